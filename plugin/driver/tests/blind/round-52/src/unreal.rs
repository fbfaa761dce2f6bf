//! Unreal Engine C++ conventions: `F`-prefixed structs, `b`-prefixed booleans, PascalCase
//! methods (`Initialize`, `Tick`, `Get*`), `uint32`/`int32` aliases, `constexpr`-style
//! `static` constants on types, components ticked once per frame (here: per tile) by their
//! owner, and `check()`-style sanity asserts.
#![allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

type uint32 = u32;
type float = f32;

const NumThreads: uint32 = 64;
const SharedBytes: uint32 = 8192;
const TileFloats: usize = 256;
const TileBytes: uint32 = (TileFloats * core::mem::size_of::<float>()) as uint32;
const NumColumns: usize = 32;
const NumRows: usize = 8;
const NumConsumers: uint32 = 32;
const ProducerThread: uint32 = 32;

/// Frame bookkeeping: which tile this block works on next.
#[derive(Clone, Copy)]
struct FTileCursor {
    Tile: uint32,
    Step: uint32,
}

impl FTileCursor {
    #[inline(always)]
    fn ForBlock() -> Self {
        FTileCursor { Tile: block_idx_x(), Step: grid_dim_x() }
    }
}

#[inline(always)]
unsafe fn SumColumn(Stage: *const float, Column: usize) -> float {
    let mut Total: float = 0.0;
    for Row in 0..NumRows {
        Total += *Stage.add(Row * NumColumns + Column);
    }
    Total
}

#[inline(always)]
fn GetBarrierAddress<const NumStages: uint32>() -> uint32 {
    dynamic_shared_window_address() + NumStages * TileBytes
}

/// The consumer component: one column, ticked once per tile.
struct FColumnConsumer<'a> {
    Pipe: &'a Pipeline<4>,
    State: PipelineState<4>,
    Column: usize,
    Accumulated: float,
}

impl<'a> FColumnConsumer<'a> {
    #[inline(always)]
    unsafe fn Tick(&mut self) {
        let Ring = dynamic_shared_base::<float>();
        self.Pipe.consumer_wait(&self.State);
        self.Accumulated += SumColumn(Ring.add(self.State.index() as usize * TileFloats), self.Column);
        self.Pipe.consumer_release(&self.State);
        self.State.advance();
    }
}

/// The producer component: one bulk copy per tick.
struct FTileStreamer<'a> {
    Pipe: &'a Pipeline<4>,
    State: PipelineState<4>,
    Source: *const float,
}

impl<'a> FTileStreamer<'a> {
    #[inline(always)]
    unsafe fn Tick(&mut self, Tile: uint32) {
        let Window = dynamic_shared_window_address();
        self.Pipe.producer_acquire(&self.State);
        self.Pipe.producer_expect_tx(&self.State, TileBytes);
        bulk_copy_global_to_shared(
            Window + self.State.index() * TileBytes,
            self.Source.add(Tile as usize * TileFloats) as *const u8,
            TileBytes,
            self.Pipe.producer_barrier(&self.State),
        );
        self.State.advance();
    }

    #[inline(always)]
    fn EndPlay(self) {
        self.Pipe.producer_tail(self.State);
    }
}

/// Components ticked by their owner: a streamer on thread 32, 32 column consumers in warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_unreal_tick_components(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NumThreads);
    dynamic_shared_bytes(SharedBytes);
    let ThreadIndex = thread_idx_x();
    let Barriers = GetBarrierAddress::<4>();
    let Pipe = if ThreadIndex == 0 { Pipeline::<4>::init(Barriers, NumConsumers) } else { Pipeline::<4>::attach(Barriers) };
    barrier();

    let bIsStreamer = ThreadIndex == ProducerThread;
    let bIsConsumer = ThreadIndex < NumConsumers;
    if bIsStreamer {
        let mut Streamer = FTileStreamer { Pipe: &Pipe, State: PipelineState::<4>::producer_start(), Source: input };
        let mut Cursor = FTileCursor::ForBlock();
        while Cursor.Tile < tiles {
            Streamer.Tick(Cursor.Tile);
            Cursor.Tile += Cursor.Step;
        }
        Streamer.EndPlay();
    } else if bIsConsumer {
        let mut Consumer = FColumnConsumer { Pipe: &Pipe, State: PipelineState::<4>::new(), Column: ThreadIndex as usize, Accumulated: 0.0 };
        let mut Cursor = FTileCursor::ForBlock();
        while Cursor.Tile < tiles {
            Consumer.Tick();
            Cursor.Tile += Cursor.Step;
        }
        *out.add(block_idx_x() as usize * NumColumns + Consumer.Column) = Consumer.Accumulated;
    }
}

/// Game thread / render thread split: a double buffer, the game thread (32) streaming tiles,
/// the render warp (0) summing them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_unreal_game_render(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NumThreads);
    dynamic_shared_bytes(SharedBytes);
    let ThreadIndex = thread_idx_x();
    let Window = dynamic_shared_window_address();
    let Ring = dynamic_shared_base::<float>();
    let Barriers = GetBarrierAddress::<2>();
    let Pipe = if ThreadIndex == 0 { Pipeline::<2>::init(Barriers, NumConsumers) } else { Pipeline::<2>::attach(Barriers) };
    barrier();

    let bIsGameThread = ThreadIndex == ProducerThread;
    let bIsRenderThread = ThreadIndex < NumConsumers;
    if bIsGameThread {
        let mut State = PipelineState::<2>::producer_start();
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.producer_acquire(&State);
            Pipe.producer_expect_tx(&State, TileBytes);
            bulk_copy_global_to_shared(Window + State.index() * TileBytes, input.add(Tile as usize * TileFloats) as *const u8, TileBytes, Pipe.producer_barrier(&State));
            State.advance();
            Tile += grid_dim_x();
        }
        Pipe.producer_tail(State);
    } else if bIsRenderThread {
        let mut State = PipelineState::<2>::new();
        let mut Accumulated: float = 0.0;
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.consumer_wait(&State);
            Accumulated += SumColumn(Ring.add(State.index() as usize * TileFloats), ThreadIndex as usize);
            Pipe.consumer_release(&State);
            State.advance();
            Tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NumColumns + ThreadIndex as usize) = Accumulated;
    }
}

#[inline(always)]
unsafe fn RunStreamingTask(Pipe: &Pipeline<5>, Source: *const float, NumTiles: uint32) {
    let Window = dynamic_shared_window_address();
    let mut State = PipelineState::<5>::producer_start();
    let mut Tile = block_idx_x();
    while Tile < NumTiles {
        Pipe.producer_acquire(&State);
        Pipe.producer_expect_tx(&State, TileBytes);
        bulk_copy_global_to_shared(Window + State.index() * TileBytes, Source.add(Tile as usize * TileFloats) as *const u8, TileBytes, Pipe.producer_barrier(&State));
        State.advance();
        Tile += grid_dim_x();
    }
    Pipe.producer_tail(State);
}

#[inline(always)]
unsafe fn RunReductionTask(Pipe: &Pipeline<5>, Column: usize, NumTiles: uint32) -> float {
    let Ring = dynamic_shared_base::<float>();
    let mut State = PipelineState::<5>::new();
    let mut Accumulated: float = 0.0;
    let mut Tile = block_idx_x();
    while Tile < NumTiles {
        Pipe.consumer_wait(&State);
        Accumulated += SumColumn(Ring.add(State.index() as usize * TileFloats), Column);
        Pipe.consumer_release(&State);
        State.advance();
        Tile += grid_dim_x();
    }
    Accumulated
}

/// Async tasks: five stages, the loops inside `RunStreamingTask` / `RunReductionTask`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_unreal_async_tasks(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NumThreads);
    dynamic_shared_bytes(SharedBytes);
    let ThreadIndex = thread_idx_x();
    let Barriers = GetBarrierAddress::<5>();
    let Pipe = if ThreadIndex == 0 { Pipeline::<5>::init(Barriers, NumConsumers) } else { Pipeline::<5>::attach(Barriers) };
    barrier();
    if ThreadIndex == ProducerThread {
        RunStreamingTask(&Pipe, input, tiles);
    } else if ThreadIndex < NumConsumers {
        let Sum = RunReductionTask(&Pipe, ThreadIndex as usize, tiles);
        *out.add(block_idx_x() as usize * NumColumns + ThreadIndex as usize) = Sum;
    }
}

/// Offset of the render-target scratch: past the ring (4 KiB) and its barriers, rounded to 512.
const ScratchOffsetFloats: usize = 4608 / 4;

/// Render-target style resolve: consumers write their column to a scratch target beside the
/// ring, the whole block syncs, then warp 1 resolves the target into `out`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_unreal_resolve_target(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NumThreads);
    dynamic_shared_bytes(SharedBytes);
    let ThreadIndex = thread_idx_x();
    let Window = dynamic_shared_window_address();
    let Ring = dynamic_shared_base::<float>();
    let Target = Ring.add(ScratchOffsetFloats);
    let Barriers = GetBarrierAddress::<4>();
    let Pipe = if ThreadIndex == 0 { Pipeline::<4>::init(Barriers, NumConsumers) } else { Pipeline::<4>::attach(Barriers) };
    barrier();

    if ThreadIndex == ProducerThread {
        let mut State = PipelineState::<4>::producer_start();
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.producer_acquire(&State);
            Pipe.producer_expect_tx(&State, TileBytes);
            bulk_copy_global_to_shared(Window + State.index() * TileBytes, input.add(Tile as usize * TileFloats) as *const u8, TileBytes, Pipe.producer_barrier(&State));
            State.advance();
            Tile += grid_dim_x();
        }
        Pipe.producer_tail(State);
    } else if ThreadIndex < NumConsumers {
        let mut State = PipelineState::<4>::new();
        let mut Accumulated: float = 0.0;
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.consumer_wait(&State);
            Accumulated += SumColumn(Ring.add(State.index() as usize * TileFloats), ThreadIndex as usize);
            Pipe.consumer_release(&State);
            State.advance();
            Tile += grid_dim_x();
        }
        *Target.add(ThreadIndex as usize) = Accumulated;
    }
    barrier();
    if ThreadIndex >= 32 {
        let Column = (ThreadIndex - 32) as usize;
        *out.add(block_idx_x() as usize * NumColumns + Column) = *Target.add(Column);
    }
}

/// The streamer sized as a `TRingBuffer<4>` and the consumers' view as a `TRingBuffer<3>`
/// attached to the same barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_unreal_ring_views(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NumThreads);
    dynamic_shared_bytes(SharedBytes);
    let ThreadIndex = thread_idx_x();
    let Window = dynamic_shared_window_address();
    let Ring = dynamic_shared_base::<float>();
    let Barriers = GetBarrierAddress::<4>();
    if ThreadIndex == 0 {
        let _ = Pipeline::<4>::init(Barriers, NumConsumers);
    }
    barrier();

    if ThreadIndex == ProducerThread {
        let Pipe = Pipeline::<4>::attach(Barriers);
        let mut State = PipelineState::<4>::producer_start();
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.producer_acquire(&State);
            Pipe.producer_expect_tx(&State, TileBytes);
            bulk_copy_global_to_shared(Window + State.index() * TileBytes, input.add(Tile as usize * TileFloats) as *const u8, TileBytes, Pipe.producer_barrier(&State));
            State.advance();
            Tile += grid_dim_x();
        }
        Pipe.producer_tail(State);
    } else if ThreadIndex < NumConsumers {
        let View = Pipeline::<3>::attach(Barriers);
        let mut State = PipelineState::<3>::new();
        let mut Accumulated: float = 0.0;
        let mut Tile = block_idx_x();
        while Tile < tiles {
            View.consumer_wait(&State);
            Accumulated += SumColumn(Ring.add(State.index() as usize * TileFloats), ThreadIndex as usize);
            View.consumer_release(&State);
            State.advance();
            Tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NumColumns + ThreadIndex as usize) = Accumulated;
    }
}

/// Game/render split with the tile payload sized from a `double`-precision asset format.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_unreal_asset_payload(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NumThreads);
    dynamic_shared_bytes(SharedBytes);
    let ThreadIndex = thread_idx_x();
    let Window = dynamic_shared_window_address();
    let Ring = dynamic_shared_base::<float>();
    let PayloadBytes: uint32 = (TileFloats * core::mem::size_of::<f64>()) as uint32;
    let Barriers = Window + 2 * PayloadBytes;
    let Pipe = if ThreadIndex == 0 { Pipeline::<2>::init(Barriers, NumConsumers) } else { Pipeline::<2>::attach(Barriers) };
    barrier();

    if ThreadIndex == ProducerThread {
        let mut State = PipelineState::<2>::producer_start();
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.producer_acquire(&State);
            Pipe.producer_expect_tx(&State, PayloadBytes);
            bulk_copy_global_to_shared(Window + State.index() * TileBytes, input.add(Tile as usize * TileFloats) as *const u8, PayloadBytes, Pipe.producer_barrier(&State));
            State.advance();
            Tile += grid_dim_x();
        }
        Pipe.producer_tail(State);
    } else if ThreadIndex < NumConsumers {
        let mut State = PipelineState::<2>::new();
        let mut Accumulated: float = 0.0;
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.consumer_wait(&State);
            Accumulated += SumColumn(Ring.add(State.index() as usize * TileFloats), ThreadIndex as usize);
            Pipe.consumer_release(&State);
            State.advance();
            Tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NumColumns + ThreadIndex as usize) = Accumulated;
    }
}

/// Consumers ticking with their pipeline cursor declared in the tick's scope.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_unreal_consumer_tick(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NumThreads);
    dynamic_shared_bytes(SharedBytes);
    let ThreadIndex = thread_idx_x();
    let Window = dynamic_shared_window_address();
    let Ring = dynamic_shared_base::<float>();
    let Barriers = GetBarrierAddress::<4>();
    let Pipe = if ThreadIndex == 0 { Pipeline::<4>::init(Barriers, NumConsumers) } else { Pipeline::<4>::attach(Barriers) };
    barrier();

    if ThreadIndex == ProducerThread {
        let mut State = PipelineState::<4>::producer_start();
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.producer_acquire(&State);
            Pipe.producer_expect_tx(&State, TileBytes);
            bulk_copy_global_to_shared(Window + State.index() * TileBytes, input.add(Tile as usize * TileFloats) as *const u8, TileBytes, Pipe.producer_barrier(&State));
            State.advance();
            Tile += grid_dim_x();
        }
        Pipe.producer_tail(State);
    } else if ThreadIndex < NumConsumers {
        let mut Accumulated: float = 0.0;
        let mut Tile = block_idx_x();
        while Tile < tiles {
            let mut State = PipelineState::<4>::new();
            Pipe.consumer_wait(&State);
            Accumulated += SumColumn(Ring.add(State.index() as usize * TileFloats), ThreadIndex as usize);
            Pipe.consumer_release(&State);
            State.advance();
            Tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NumColumns + ThreadIndex as usize) = Accumulated;
    }
}

/// The resolve pass again, warp 1 reading the target once its own frame work is done.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_unreal_resolve_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NumThreads);
    dynamic_shared_bytes(SharedBytes);
    let ThreadIndex = thread_idx_x();
    let Window = dynamic_shared_window_address();
    let Ring = dynamic_shared_base::<float>();
    let Target = Ring.add(ScratchOffsetFloats);
    let Barriers = GetBarrierAddress::<4>();
    let Pipe = if ThreadIndex == 0 { Pipeline::<4>::init(Barriers, NumConsumers) } else { Pipeline::<4>::attach(Barriers) };
    barrier();

    if ThreadIndex == ProducerThread {
        let mut State = PipelineState::<4>::producer_start();
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.producer_acquire(&State);
            Pipe.producer_expect_tx(&State, TileBytes);
            bulk_copy_global_to_shared(Window + State.index() * TileBytes, input.add(Tile as usize * TileFloats) as *const u8, TileBytes, Pipe.producer_barrier(&State));
            State.advance();
            Tile += grid_dim_x();
        }
        Pipe.producer_tail(State);
    } else if ThreadIndex < NumConsumers {
        let mut State = PipelineState::<4>::new();
        let mut Accumulated: float = 0.0;
        let mut Tile = block_idx_x();
        while Tile < tiles {
            Pipe.consumer_wait(&State);
            Accumulated += SumColumn(Ring.add(State.index() as usize * TileFloats), ThreadIndex as usize);
            Pipe.consumer_release(&State);
            State.advance();
            Tile += grid_dim_x();
        }
        *Target.add(ThreadIndex as usize) = Accumulated;
    }
    if ThreadIndex >= 32 {
        let Column = (ThreadIndex - 32) as usize;
        *out.add(block_idx_x() as usize * NumColumns + Column) = *Target.add(Column);
    }
}
