//! Structured code: structs holding pointers and pipeline state with methods, `Option`-held
//! roles, generic and `#[inline(never)]` helper functions that take the shared pointer or the
//! state.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch,
    thread_idx_x,
};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

/// A shared staging buffer and the thread that uses it.
struct Staging {
    buf: *mut f32,
    tid: usize,
}

impl Staging {
    /// Copies this thread's share (elements `tid, tid + 64, ...`) of a tile into the buffer.
    #[inline(never)]
    unsafe fn fill(&self, src: *const f32) {
        unsafe {
            let mut i = self.tid;
            while i < TILE {
                *self.buf.add(i) = *src.add(i);
                i += THREADS;
            }
        }
    }

    /// Sum of column `col` of the staged tile.
    #[inline(never)]
    unsafe fn column(&self, col: usize) -> f32 {
        unsafe {
            let mut sum = 0.0f32;
            for r in 0..ROWS {
                sum += *self.buf.add(r * COLS + col);
            }
            sum
        }
    }
}

/// Staging through a struct with `#[inline(never)]` methods; the kernel puts the barriers
/// between `fill` and `column` and after `column`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_helpers_staging_struct(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let staging = Staging { buf: dynamic_shared_base::<f32>(), tid: thread_idx_x() as usize };
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            staging.fill(input.add(tile as usize * TILE));
            barrier();
            if staging.tid < COLS {
                acc += staging.column(staging.tid);
            }
            barrier();
            tile += grid_dim_x();
        }
        if staging.tid < COLS {
            *out.add(block_idx_x() as usize * COLS + staging.tid) = acc;
        }
    }
}

/// Two shared buffers behind `front` and `back`.
#[derive(Clone, Copy)]
struct DoubleBuffer {
    front: *mut f32,
    back: *mut f32,
}

impl DoubleBuffer {
    #[inline(always)]
    fn swap(&mut self) {
        core::mem::swap(&mut self.front, &mut self.back);
    }
}

/// A double buffer in a struct (fill `back` with the next tile while reading `front`, one
/// barrier per tile), but `swap()` was put inside the readers' `if`: warp 1 never swaps, keeps
/// filling the same buffer (the one warp 0 reads every other tile), and the other buffer keeps
/// warp 1's rows of the first tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_helpers_double_buffer_swap_in_branch(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let base = dynamic_shared_base::<f32>();
        let mut bufs = DoubleBuffer { front: base, back: base.add(TILE) };
        let first = block_idx_x();
        let step = grid_dim_x();
        let count = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };
        if count > 0 {
            Staging { buf: bufs.front, tid }.fill(input.add(first as usize * TILE));
        }
        barrier();
        let mut acc = 0.0f32;
        for k in 0..count {
            if k + 1 < count {
                let next = first + (k + 1) * step;
                Staging { buf: bufs.back, tid }.fill(input.add(next as usize * TILE));
            }
            if tid < COLS {
                acc += Staging { buf: bufs.front, tid }.column(tid);
                bufs.swap();
            }
            barrier();
        }
        if tid < COLS {
            *out.add(first as usize * COLS + tid) = acc;
        }
    }
}

/// One consumer thread's place in the ring, its column and its running sum.
struct ColumnConsumer {
    pipe: Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    col: usize,
    acc: f32,
}

impl ColumnConsumer {
    #[inline(always)]
    unsafe fn take(&mut self, ring: *const f32) {
        unsafe {
            self.pipe.consumer_wait(&self.state);
            let stage = ring.add(self.state.index() as usize * TILE);
            for r in 0..ROWS {
                self.acc += *stage.add(r * COLS + self.col);
            }
            self.pipe.consumer_release(&self.state);
            self.state.advance();
        }
    }
}

/// The producer thread's state, with where it copies from and to.
struct TileProducer {
    pipe: Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    window: u32,
    input: *const f32,
}

impl TileProducer {
    #[inline(always)]
    unsafe fn put(&mut self, tile: u32) {
        unsafe {
            self.pipe.producer_acquire(&self.state);
            self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
            bulk_copy_global_to_shared(
                self.window + self.state.index() * TILE_BYTES,
                self.input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                self.pipe.producer_barrier(&self.state),
            );
            self.state.advance();
        }
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

/// Both roles as structs holding the pipeline and their state, with `&mut self` methods.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_helpers_consumer_struct(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut producer = TileProducer { pipe, state: PipelineState::producer_start(), window, input };
            let mut tile = block_idx_x();
            while tile < tiles {
                producer.put(tile);
                tile += grid_dim_x();
            }
            producer.finish();
        } else if tid < CONSUMERS {
            let mut consumer = ColumnConsumer { pipe, state: PipelineState::new(), col: tid as usize, acc: 0.0 };
            let mut tile = block_idx_x();
            while tile < tiles {
                consumer.take(ring);
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + consumer.col) = consumer.acc;
        }
    }
}

/// Each role's state lives in an `Option` that holds it only in the threads of that role; the
/// roles run under `if let Some(state) = &mut slot`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_helpers_option_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        let mut producer: Option<PipelineState<STAGES>> =
            if tid == PRODUCER { Some(PipelineState::producer_start()) } else { None };
        let mut consumer: Option<PipelineState<STAGES>> = if tid < CONSUMERS { Some(PipelineState::new()) } else { None };
        if let Some(state) = &mut producer {
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.producer_acquire(state);
                pipe.producer_expect_tx(state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(*state);
        }
        if let Some(state) = &mut consumer {
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(state);
                let stage = smem.add(state.index() as usize * TILE);
                for r in 0..ROWS {
                    acc += *stage.add(r * COLS + tid as usize);
                }
                pipe.consumer_release(state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// Producer step in a helper kept out of line: acquire, announce, copy, advance.
#[inline(never)]
fn produce_tile(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, window: u32, src: *const f32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(
        window + state.index() * TILE_BYTES,
        src as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
    state.advance();
}

/// Column sum of one stage, kept out of line.
#[inline(never)]
unsafe fn sum_column(stage: *const f32, col: usize) -> f32 {
    unsafe {
        let mut sum = 0.0f32;
        let mut p = stage.add(col);
        for _ in 0..ROWS {
            sum += *p;
            p = p.add(COLS);
        }
        sum
    }
}

/// `#[inline(never)]` helpers: the producer's whole per-tile step, and the consumers' column sum
/// called between their wait and release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_helpers_never_inline_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                produce_tile(&pipe, &mut state, window, input.add(tile as usize * TILE));
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < CONSUMERS {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += sum_column(smem.add(state.index() as usize * TILE), tid as usize);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// A consumer's handle: the pipeline and its state (`Copy`, as both fields are).
#[derive(Clone, Copy)]
struct Cursor {
    pipe: Pipeline<STAGES>,
    state: PipelineState<STAGES>,
}

impl Cursor {
    /// Takes `self` by value: the advance at the end moves a copy.
    #[inline(always)]
    unsafe fn consume(mut self, ring: *const f32, col: usize) -> f32 {
        unsafe {
            self.pipe.consumer_wait(&self.state);
            let sum = sum_column(ring.add(self.state.index() as usize * TILE), col);
            self.pipe.consumer_release(&self.state);
            self.state.advance();
            sum
        }
    }
}

/// The consumers' `Cursor::consume` takes `self` by value, so each call advances a copy and the
/// cursor in the loop stays at stage 0, phase 0: they read stage 0 for every tile and release
/// only stage 0, and the producer waits forever for stage 1 to be released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_helpers_cursor_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                produce_tile(&pipe, &mut state, window, input.add(tile as usize * TILE));
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < CONSUMERS {
            let cursor = Cursor { pipe, state: PipelineState::new() };
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                acc += cursor.consume(smem, tid as usize);
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// Stage count of the kernel's first version, which double-buffered.
const DOUBLE_BUFFER: u32 = 2;

/// A consumer loop generic over the ring's depth; it attaches to the barriers itself.
#[inline(always)]
unsafe fn consume_all<const S: u32>(bars: u32, ring: *const f32, tiles: u32, col: usize) -> f32 {
    unsafe {
        let pipe = Pipeline::<S>::attach(bars);
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.consumer_wait(&state);
            acc += sum_column(ring.add(state.index() as usize * TILE), col);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        acc
    }
}

/// The producer runs a four-stage ring, but the consumers call the generic helper with the old
/// `DOUBLE_BUFFER` depth: their `Pipeline<2>` places the empty barriers where the four-stage
/// pipeline keeps `full[2]` and `full[3]`: their releases land on those full barriers instead of
/// any empty barrier, so the producer waits forever for stage 0 to be released on its second lap.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_helpers_stage_count_mismatch(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        if tid == PRODUCER {
            let pipe = Pipeline::<STAGES>::attach(bars);
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                produce_tile(&pipe, &mut state, window, input.add(tile as usize * TILE));
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < CONSUMERS {
            let acc = consume_all::<DOUBLE_BUFFER>(bars, smem, tiles, tid as usize);
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// One consumer step: wait, sum, release, advance.
#[inline(always)]
unsafe fn consume_one(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, ring: *const f32, col: usize) -> f32 {
    unsafe {
        pipe.consumer_wait(state);
        let sum = sum_column(ring.add(state.index() as usize * TILE), col);
        pipe.consumer_release(state);
        state.advance();
        sum
    }
}

/// The helper `consume_one` already advances the state, and the loop advances it again: the
/// consumers visit stages 0 and 2 only, never release stages 1 and 3, and everyone hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_helpers_double_advance(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                produce_tile(&pipe, &mut state, window, input.add(tile as usize * TILE));
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < CONSUMERS {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                acc += consume_one(&pipe, &mut state, smem, tid as usize);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}
