//! Persona: loves iterators, slices and small traits. Tiles of a block are a `step_by` range or a
//! custom `Iterator`; stages are read as `&[f32]` through `chunks_exact`, `skip`/`step_by`,
//! `array::from_fn`, `sum()`.

use core::slice;

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;

/// A ring of tiles in dynamic shared memory, seen as slices.
trait StageView {
    fn stage(&self, index: u32) -> &[f32];
}

#[derive(Clone, Copy)]
struct SharedRing {
    base: *const f32,
}

impl StageView for SharedRing {
    #[inline(always)]
    fn stage(&self, index: u32) -> &[f32] {
        // SAFETY: the ring holds whole tiles at `base`, one per stage.
        unsafe { slice::from_raw_parts(self.base.add(index as usize * TILE_FLOATS), TILE_FLOATS) }
    }
}

/// The tiles `t` of one block: `block, block + grid, …` below `tiles`.
#[derive(Clone, Copy)]
struct BlockTiles {
    next: u32,
    end: u32,
    step: u32,
}

impl BlockTiles {
    #[inline(always)]
    fn for_this_block(tiles: u32) -> Self {
        BlockTiles { next: block_idx_x(), end: tiles, step: grid_dim_x() }
    }
}

impl Iterator for BlockTiles {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.next < self.end {
            let t = self.next;
            self.next += self.step;
            Some(t)
        } else {
            None
        }
    }
}

#[inline(always)]
fn tile_source(input: *const f32, tile: u32) -> *const u8 {
    input.wrapping_add(tile as usize * TILE_FLOATS).cast()
}

// ---------------------------------------------------------------------------------------------
// Correct: 2 stages; the consumers' per-tile partial sums come out of a `map(..).sum()` over the
// block's tiles, each partial a `skip(lane).step_by(32).sum()` over the stage slice.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_iter_step_by_sum(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let window = dynamic_shared_window_address();
    let ring: *const f32 = dynamic_shared_base::<f32>();
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(barriers);
    let my_tiles = (block..tiles).step_by(grid as usize);

    match tid {
        0..32 => {
            let mut state = PipelineState::<STAGES>::default();
            let total: f32 = my_tiles
                .map(|_| {
                    pipeline.consumer_wait(&state);
                    // SAFETY: the stage holds a whole tile once the wait returns.
                    let stage = unsafe { slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS) };
                    let part: f32 = stage.iter().skip(tid).step_by(COLUMNS).sum();
                    pipeline.consumer_release(&state);
                    state.advance();
                    part
                })
                .sum();
            // SAFETY: 32 outputs per block.
            unsafe { *out.add(block as usize * COLUMNS + tid) = total };
        }
        32 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            for t in my_tiles {
                pipeline.producer_acquire(&state);
                pipeline.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    tile_source(input, t),
                    TILE_BYTES,
                    pipeline.producer_barrier(&state),
                );
                state.advance();
            }
            pipeline.producer_tail(state);
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 5 stages, stages through the `StageView` trait, rows with `chunks_exact(32)`.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_iter_chunks_trait(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = SharedRing { base: dynamic_shared_base::<f32>() };
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(barriers);

    if tid < 32 {
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        for _ in BlockTiles::for_this_block(tiles) {
            pipeline.consumer_wait(&state);
            total += ring.stage(state.index()).chunks_exact(COLUMNS).map(|row| row[lane]).sum::<f32>();
            pipeline.consumer_release(&state);
            state.advance();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + lane) = total };
    } else if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in BlockTiles::for_this_block(tiles) {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
        }
        pipeline.producer_tail(state);
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 6 stages; the consumer copies its column into a register array with
// `array::from_fn`, releases the stage at once, then sums the registers.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_iter_regs_from_fn(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 6;
    const PRODUCER: u32 = 63;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = SharedRing { base: dynamic_shared_base::<f32>() };
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(barriers);

    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        BlockTiles::for_this_block(tiles).for_each(|t| {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
        });
        pipeline.producer_tail(state);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        for _ in BlockTiles::for_this_block(tiles) {
            pipeline.consumer_wait(&state);
            let stage = ring.stage(state.index());
            let column: [f32; 8] = core::array::from_fn(|row| stage[lane + COLUMNS * row]);
            pipeline.consumer_release(&state);
            state.advance();
            total += column.iter().sum::<f32>();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + lane) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 3 stages, a custom tile iterator, every thread consumes half a column (warp w takes
// rows 4w..4w+3), thread 0 also produces inside the same `for`. Scratch after the barriers.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_iter_tile_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const BARRIERS_AT: u32 = STAGES * TILE_BYTES;
    const SCRATCH_AT: usize = (BARRIERS_AT as usize + 128) / 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let ring = SharedRing { base: shared };
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS_AT, 64);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(window + BARRIERS_AT);

    let lane = (tid % 32) as usize;
    let warp = (tid / 32) as usize;
    let mut producer = PipelineState::<STAGES>::producer_start();
    let mut consumer = PipelineState::<STAGES>::new();
    let mut partial = 0.0f32;
    for t in BlockTiles::for_this_block(tiles) {
        if tid == 0 {
            pipeline.producer_acquire(&producer);
            pipeline.producer_expect_tx(&producer, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + producer.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipeline.producer_barrier(&producer),
            );
            producer.advance();
        }
        pipeline.consumer_wait(&consumer);
        partial += ring
            .stage(consumer.index())
            .chunks_exact(COLUMNS)
            .skip(4 * warp)
            .take(4)
            .map(|row| row[lane])
            .sum::<f32>();
        pipeline.consumer_release(&consumer);
        consumer.advance();
    }
    if tid == 0 {
        pipeline.producer_tail(producer);
    }

    // SAFETY: the scratch lies after the barriers, inside the 8 KiB.
    unsafe {
        let scratch = shared.add(SCRATCH_AT);
        if warp == 1 {
            *scratch.add(lane) = partial;
        }
        barrier();
        if warp == 0 {
            *out.add(block_idx_x() as usize * COLUMNS + lane) = partial + *scratch.add(lane);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the consumer takes the stage slice, releases "since we already have the slice", and
// only then sums it: the read happens after the release, the producer may be refilling it.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_iter_release_then_sum(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = SharedRing { base: dynamic_shared_base::<f32>() };
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(barriers);

    if tid < 32 {
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        for _ in BlockTiles::for_this_block(tiles) {
            pipeline.consumer_wait(&state);
            let stage = ring.stage(state.index());
            pipeline.consumer_release(&state);
            state.advance();
            total += stage.iter().skip(lane).step_by(COLUMNS).sum::<f32>();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + lane) = total };
    } else if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in BlockTiles::for_this_block(tiles) {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
        }
        pipeline.producer_tail(state);
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the stage offset is computed in bytes (`index * TILE_BYTES`) but added to an `f32`
// pointer, so stage s is read 4 KiB * s into shared memory: stages 2 and 3 lie past the 8 KiB.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_iter_bytes_as_floats(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base: *const f32 = dynamic_shared_base::<f32>();
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(barriers);

    if tid < 32 {
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        for _ in BlockTiles::for_this_block(tiles) {
            pipeline.consumer_wait(&state);
            let offset = (state.index() * TILE_BYTES) as usize;
            // SAFETY: (the author believed) the stage lies at `offset`.
            let stage = unsafe { slice::from_raw_parts(base.add(offset), TILE_FLOATS) };
            total += stage.chunks_exact(COLUMNS).map(|row| row[lane]).sum::<f32>();
            pipeline.consumer_release(&state);
            state.advance();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + lane) = total };
    } else if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in BlockTiles::for_this_block(tiles) {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
        }
        pipeline.producer_tail(state);
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: both roles' states built by one closure that calls `producer_start()`: the consumers
// wait for parity 1, which a fresh full barrier reports complete at once; they read empty stages.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_iter_consumer_producer_start(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = SharedRing { base: dynamic_shared_base::<f32>() };
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(barriers);
    let fresh = || PipelineState::<STAGES>::producer_start();

    if tid < 32 {
        let lane = tid as usize;
        let mut state = fresh();
        let mut total = 0.0f32;
        for _ in BlockTiles::for_this_block(tiles) {
            pipeline.consumer_wait(&state);
            total += ring.stage(state.index()).iter().skip(lane).step_by(COLUMNS).sum::<f32>();
            pipeline.consumer_release(&state);
            state.advance();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + lane) = total };
    } else if tid == 32 {
        let mut state = fresh();
        for t in BlockTiles::for_this_block(tiles) {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
        }
        pipeline.producer_tail(state);
    }
}
