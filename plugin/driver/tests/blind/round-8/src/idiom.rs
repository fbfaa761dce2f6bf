//! Kernels by someone who likes Rust idioms: a struct owning the ring and its pipeline, an
//! iterator over the block's tiles, closures and iterator adaptors for the column sums, traits
//! for the two roles, newtypes and const generics.

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = (TILE_FLOATS * 4) as u32;
const COLUMNS: usize = 32;
const ROWS: usize = TILE_FLOATS / COLUMNS;
const PRODUCER: u32 = 32;

/// The tiles `blockIdx.x, blockIdx.x + gridDim.x, …` below `end`.
#[derive(Clone, Copy)]
struct BlockTiles {
    next: u32,
    end: u32,
    step: u32,
}

impl Iterator for BlockTiles {
    type Item = u32;

    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        (self.next < self.end).then(|| {
            let tile = self.next;
            self.next += self.step;
            tile
        })
    }
}

#[inline(always)]
fn block_tiles(tiles: u32) -> BlockTiles {
    BlockTiles { next: block_idx_x(), end: tiles, step: grid_dim_x() }
}

/// A column of a tile: which of the 32 outputs a consumer thread owns.
#[derive(Clone, Copy)]
struct Column(usize);

impl Column {
    #[inline(always)]
    fn output(self, out: *mut f32) -> *mut f32 {
        unsafe { out.add(block_idx_x() as usize * COLUMNS + self.0) }
    }

    /// The column's elements in a stage, lazily.
    #[inline(always)]
    fn of(self, stage: *const f32) -> impl Iterator<Item = f32> {
        (0..ROWS).map(move |row| unsafe { *stage.add(row * COLUMNS + self.0) })
    }
}

#[inline(always)]
fn tile_source(input: *const f32, tile: u32) -> *const u8 {
    unsafe { input.add(tile as usize * TILE_FLOATS) }.cast::<u8>()
}

/// The ring at byte 0 of the window and its barriers right behind it.
struct TileRing<const S: u32> {
    pipeline: Pipeline<S>,
    window: u32,
    base: *mut f32,
}

impl<const S: u32> TileRing<S> {
    /// Every thread calls this; thread 0 initialises, everyone meets at the barrier.
    #[inline(always)]
    fn setup(consumers: u32) -> Self {
        let window = dynamic_shared_window_address();
        let barriers = window + S * TILE_BYTES;
        let pipeline = if thread_idx_x() == 0 {
            Pipeline::<S>::init(barriers, consumers)
        } else {
            Pipeline::<S>::attach(barriers)
        };
        barrier();
        TileRing { pipeline, window, base: dynamic_shared_base::<f32>() }
    }

    /// Producer: acquire the stage, announce and start the copy of `tile`.
    #[inline(always)]
    fn fill(&self, state: &PipelineState<S>, source: *const u8) {
        self.pipeline.producer_acquire(state);
        self.pipeline.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(self.window + state.index() * TILE_BYTES, source, TILE_BYTES, self.pipeline.producer_barrier(state));
    }

    #[inline(always)]
    fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        unsafe { self.base.add(state.index() as usize * TILE_FLOATS) }
    }
}

// ---------------------------------------------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_ring_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<4>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.fill(&state, tile_source(input, tile));
            state.advance();
            tile += grid_dim_x();
        }
        ring.pipeline.producer_tail(state);
    } else if tid < COLUMNS as u32 {
        let column = Column(tid as usize);
        let mut state = PipelineState::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.pipeline.consumer_wait(&state);
            total += column.of(ring.stage(&state)).sum::<f32>();
            ring.pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *column.output(out) = total };
    }
}

/// The column iterator is built while the stage is held, but it is lazy: the loads happen in
/// `sum`, after the release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_lazy_column_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<4>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.fill(&state, tile_source(input, tile));
            state.advance();
            tile += grid_dim_x();
        }
        ring.pipeline.producer_tail(state);
    } else if tid < COLUMNS as u32 {
        let column = Column(tid as usize);
        let mut state = PipelineState::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.pipeline.consumer_wait(&state);
            let elements = column.of(ring.stage(&state));
            ring.pipeline.consumer_release(&state);
            total += elements.sum::<f32>();
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *column.output(out) = total };
    }
}

/// The stage as a slice, the column as `iter().skip(c).step_by(32)`; the tiles as an iterator.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_slice_iter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<2>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::producer_start();
        for tile in block_tiles(tiles) {
            ring.fill(&state, tile_source(input, tile));
            state.advance();
        }
        ring.pipeline.producer_tail(state);
    } else if tid < COLUMNS as u32 {
        let column = tid as usize;
        let mut state = PipelineState::new();
        let mut total = 0.0f32;
        for _ in block_tiles(tiles) {
            ring.pipeline.consumer_wait(&state);
            let stage = unsafe { core::slice::from_raw_parts(ring.stage(&state), TILE_FLOATS) };
            total += stage.iter().skip(column).step_by(COLUMNS).sum::<f32>();
            ring.pipeline.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + column) = total };
    }
}

/// A closure reads the column; it is called between the wait and the release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_closure_reader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<3>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.fill(&state, tile_source(input, tile));
            state.advance();
            tile += grid_dim_x();
        }
        ring.pipeline.producer_tail(state);
    } else if tid < COLUMNS as u32 {
        let column = tid as usize;
        let column_sum = |stage: *const f32| -> f32 {
            let mut s = 0.0;
            for row in 0..ROWS {
                s += unsafe { *stage.add(row * COLUMNS + column) };
            }
            s
        };
        let mut state = PipelineState::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.pipeline.consumer_wait(&state);
            total += column_sum(ring.stage(&state));
            ring.pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + column) = total };
    }
}

/// "Deferred accumulation": the closure that adds the column up captures the stage pointer and
/// runs at the top of the next iteration (and once after the loop), after the release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_closure_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<3>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.fill(&state, tile_source(input, tile));
            state.advance();
            tile += grid_dim_x();
        }
        ring.pipeline.producer_tail(state);
    } else if tid < COLUMNS as u32 {
        let column = tid as usize;
        let mut state = PipelineState::new();
        let mut total = 0.0f32;
        let mut pending: Option<*const f32> = None;
        let settle = |stage: Option<*const f32>| -> f32 {
            stage.map_or(0.0, |stage| (0..ROWS).map(|row| unsafe { *stage.add(row * COLUMNS + column) }).sum())
        };
        let mut tile = block_idx_x();
        while tile < tiles {
            total += settle(pending.take());
            ring.pipeline.consumer_wait(&state);
            pending = Some(ring.stage(&state));
            ring.pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        total += settle(pending);
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + column) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// Roles as trait implementations.

trait Role<const S: u32> {
    unsafe fn run(self, ring: &TileRing<S>, input: *const f32, tiles: u32, out: *mut f32);
}

struct Producer;
struct Consumer(Column);

impl<const S: u32> Role<S> for Producer {
    #[inline(always)]
    unsafe fn run(self, ring: &TileRing<S>, input: *const f32, tiles: u32, _out: *mut f32) {
        let mut state = PipelineState::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.fill(&state, tile_source(input, tile));
            state.advance();
            tile += grid_dim_x();
        }
        ring.pipeline.producer_tail(state);
    }
}

impl<const S: u32> Role<S> for Consumer {
    #[inline(always)]
    unsafe fn run(self, ring: &TileRing<S>, _input: *const f32, tiles: u32, out: *mut f32) {
        let Consumer(column) = self;
        let mut state = PipelineState::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.pipeline.consumer_wait(&state);
            total += column.of(ring.stage(&state)).fold(0.0, |a, x| a + x);
            ring.pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *column.output(out) = total };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_trait_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<4>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        unsafe { Producer.run(&ring, input, tiles, out) };
    } else if tid < COLUMNS as u32 {
        unsafe { Consumer(Column(tid as usize)).run(&ring, input, tiles, out) };
    }
}

// ---------------------------------------------------------------------------------------------
// A cursor: the pipeline state and the tile it stands for move together.

#[derive(Clone, Copy)]
struct Cursor<const S: u32> {
    state: PipelineState<S>,
    tile: u32,
}

impl<const S: u32> Cursor<S> {
    #[inline(always)]
    fn consumer() -> Self {
        Cursor { state: PipelineState::new(), tile: block_idx_x() }
    }

    #[inline(always)]
    fn producer() -> Self {
        Cursor { state: PipelineState::producer_start(), tile: block_idx_x() }
    }

    #[inline(always)]
    fn step(&mut self) {
        self.state.advance();
        self.tile += grid_dim_x();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_cursor_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<4>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut cursor = Cursor::<4>::producer();
        while cursor.tile < tiles {
            ring.fill(&cursor.state, tile_source(input, cursor.tile));
            cursor.step();
        }
        ring.pipeline.producer_tail(cursor.state);
    } else if tid < COLUMNS as u32 {
        let column = Column(tid as usize);
        let mut cursor = Cursor::<4>::consumer();
        let mut total = 0.0f32;
        while cursor.tile < tiles {
            ring.pipeline.consumer_wait(&cursor.state);
            total += column.of(ring.stage(&cursor.state)).sum::<f32>();
            ring.pipeline.consumer_release(&cursor.state);
            cursor.step();
        }
        unsafe { *column.output(out) = total };
    }
}

/// The consumer advances its state itself after the release, and `step` advances it again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_cursor_advances_twice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<4>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut cursor = Cursor::<4>::producer();
        while cursor.tile < tiles {
            ring.fill(&cursor.state, tile_source(input, cursor.tile));
            cursor.step();
        }
        ring.pipeline.producer_tail(cursor.state);
    } else if tid < COLUMNS as u32 {
        let column = Column(tid as usize);
        let mut cursor = Cursor::<4>::consumer();
        let mut total = 0.0f32;
        while cursor.tile < tiles {
            ring.pipeline.consumer_wait(&cursor.state);
            total += column.of(ring.stage(&cursor.state)).sum::<f32>();
            ring.pipeline.consumer_release(&cursor.state);
            cursor.state.advance();
            cursor.step();
        }
        unsafe { *column.output(out) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// The whole kernel generic over the stage count.

#[inline(always)]
unsafe fn column_sums<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = TileRing::<S>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut tiles_left = block_tiles(tiles);
        while let Some(tile) = tiles_left.next() {
            ring.fill(&state, tile_source(input, tile));
            state.advance();
        }
        ring.pipeline.producer_tail(state);
    } else if tid < COLUMNS as u32 {
        let column = Column(tid as usize);
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        let mut tiles_left = block_tiles(tiles);
        while tiles_left.next().is_some() {
            ring.pipeline.consumer_wait(&state);
            total += column.of(ring.stage(&state)).sum::<f32>();
            ring.pipeline.consumer_release(&state);
            state.advance();
        }
        unsafe { *column.output(out) = total };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_generic_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    unsafe { column_sums::<3>(input, tiles, out) };
}

// ---------------------------------------------------------------------------------------------
// A helper written for "raw words" so that it also serves integer inputs: it reads the stage as
// `u32` and converts the numbers, not the bits.

#[inline(never)]
unsafe fn column_total(words: *const u32, column: usize) -> f32 {
    (0..ROWS).map(|row| unsafe { *words.add(row * COLUMNS + column) } as f32).sum()
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_u32_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<4>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.fill(&state, tile_source(input, tile));
            state.advance();
            tile += grid_dim_x();
        }
        ring.pipeline.producer_tail(state);
    } else if tid < COLUMNS as u32 {
        let mut state = PipelineState::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.pipeline.consumer_wait(&state);
            total += unsafe { column_total(ring.stage(&state).cast::<u32>(), tid as usize) };
            ring.pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------

/// The consumer keeps a copy of the state it read from, advances, then releases the copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_idiom_release_snapshot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = TileRing::<2>::setup(COLUMNS as u32);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::producer_start();
        for tile in block_tiles(tiles) {
            ring.fill(&state, tile_source(input, tile));
            state.advance();
        }
        ring.pipeline.producer_tail(state);
    } else if tid < COLUMNS as u32 {
        let column = Column(tid as usize);
        let mut state = PipelineState::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.pipeline.consumer_wait(&state);
            total += column.of(ring.stage(&state)).sum::<f32>();
            let held = state;
            state.advance();
            ring.pipeline.consumer_release(&held);
            tile += grid_dim_x();
        }
        unsafe { *column.output(out) = total };
    }
}
