//! Round 35, module `iters`: the tile loops are driven by iterator adapters, as a Rust author
//! writes them: `(block..tiles).step_by(grid)` in a `for` loop, the same iterator consumed by
//! `while let Some(tile) = work.next()`, a countdown `(0..mine).rev().map(..)` that hands out
//! the block's tiles last to first, and two `step_by` iterators zipped into pairs of tiles (two
//! tiles per stage, the odd tile padded with `chain(repeat(None))`). Rows of a stage are summed
//! with plain loops or with `(0..ROWS).map(..).sum()`.
//!
//! Layout (every kernel): the barriers at window byte 0 (at most 64 bytes), the ring from byte
//! 1024. Launch: 64 threads, 8192 bytes of dynamic shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const BARRIERS: u32 = 0;
const RING: u32 = 1024;

/// Global address of tile `tile` of the input, as the bulk copy wants it.
#[inline(always)]
unsafe fn tile_source(input: *const f32, tile: u32) -> *const u8 {
    input.add(tile as usize * TILE_FLOATS) as *const u8
}

/// Generic pointer to the first float of ring stage `index`, stages `stage_bytes` apart.
#[inline(always)]
unsafe fn stage_floats(index: u32, stage_bytes: u32) -> *const f32 {
    dynamic_shared_base::<f32>().add(((RING + index * stage_bytes) / 4) as usize) as *const f32
}

/// Tiles of this block: `block, block + grid, …` below `tiles`.
#[inline(always)]
fn tiles_of_block(block: u32, grid: u32, tiles: u32) -> u32 {
    if block < tiles {
        (tiles - block).div_ceil(grid)
    } else {
        0
    }
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Two stages; both roles walk the block's tiles with `for tile in (block..tiles).step_by(grid)`.
/// Warp 0 consumes (one column per lane), thread 32 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_iters_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in (block..tiles).step_by(grid) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in (block..tiles).step_by(grid) {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index(), TILE_BYTES);
            for row in 0..ROWS {
                sum += *stage.add(row * COLS + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Three stages; one `StepBy` iterator per thread, drained with `while let Some(tile) =
/// work.next()`. Warp 1 consumes, thread 0 produces (and initialises the barriers).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_iters_while_let_next(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 3;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mut work = (block..tiles).step_by(grid_dim_x() as usize);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(tile) = work.next() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        while let Some(_tile) = work.next() {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index(), TILE_BYTES);
            for row in 0..ROWS {
                sum += *stage.add(row * COLS + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Four stages; the producer hands out the block's tiles last to first through
/// `(0..mine).rev().map(|k| block + k * grid)`, the consumers count the same `(0..mine).rev()`
/// and sum a stage's column with `(0..ROWS).map(..).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_iters_rev_map_sum(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 4;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mine = tiles_of_block(block, grid, tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in (0..mine).rev().map(|k| block + k * grid) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in (0..mine).rev() {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index(), TILE_BYTES);
            sum += (0..ROWS)
                .map(|row| *stage.add(row * COLS + column))
                .sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Two stages of two tiles each (2048-byte stages): the block's tiles taken in pairs by zipping
/// `(block..tiles).step_by(2 * grid)` with the odd-numbered ones, padded with `None` so that an
/// odd last tile fills half a stage (its `expect_tx` announces one tile).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_iters_zip_pairs(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    const PAIR_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let step = 2 * grid as usize;
    let pairs = || {
        (block..tiles).step_by(step).zip(
            (block + grid..tiles)
                .step_by(step)
                .map(Some)
                .chain(core::iter::repeat(None)),
        )
    };
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for (first, second) in pairs() {
            pipe.producer_acquire(&state);
            let count = if second.is_some() { 2 } else { 1 };
            pipe.producer_expect_tx(&state, count * TILE_BYTES);
            let stage = window + RING + state.index() * PAIR_BYTES;
            let full = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(stage, tile_source(input, first), TILE_BYTES, full);
            if let Some(second) = second {
                bulk_copy_global_to_shared(
                    stage + TILE_BYTES,
                    tile_source(input, second),
                    TILE_BYTES,
                    full,
                );
            }
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for (_, second) in pairs() {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index(), PAIR_BYTES);
            let halves = if second.is_some() { 2 } else { 1 };
            for half in 0..halves {
                for row in 0..ROWS {
                    sum += *stage.add(half * TILE_FLOATS + row * COLS + column);
                }
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// Broken: as `r35_iters_step_by`, but the consumers walk `(block..=tiles).step_by(grid)`: in a
/// block whose first tile is `tiles mod grid` (block 0 at 64 tiles) the inclusive range yields
/// one tile more than the producer copies, and the consumers wait forever for it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_iters_bad_inclusive_range(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in (block..tiles).step_by(grid) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in (block..=tiles).step_by(grid) {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index(), TILE_BYTES);
            for row in 0..ROWS {
                sum += *stage.add(row * COLS + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Broken: as `r35_iters_rev_map_sum`, but the consumers number their tiles with `enumerate()`
/// and wait only for the first `STAGES` of them, on the belief that once the ring is primed the
/// producer stays ahead: from the second lap on they read each stage before its refill landed
/// (the previous lap's tile, or a torn one) and release it again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_iters_bad_wait_first_lap_only(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 4;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mine = tiles_of_block(block, grid, tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in (0..mine).rev().map(|k| block + k * grid) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for (k, _) in (0..mine).rev().enumerate() {
            if k < STAGES as usize {
                pipe.consumer_wait(&state);
            }
            let stage = stage_floats(state.index(), TILE_BYTES);
            sum += (0..ROWS)
                .map(|row| *stage.add(row * COLS + column))
                .sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Broken: as `r35_iters_zip_pairs`, but the producer announces one tile's bytes for every
/// stage although it copies two tiles into it: the full barrier completes after the first 1024
/// bytes land, and the surplus bytes complete the stage's next phase early.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_iters_bad_pair_tile_bytes(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    const PAIR_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let step = 2 * grid as usize;
    let pairs = || {
        (block..tiles).step_by(step).zip(
            (block + grid..tiles)
                .step_by(step)
                .map(Some)
                .chain(core::iter::repeat(None)),
        )
    };
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for (first, second) in pairs() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let stage = window + RING + state.index() * PAIR_BYTES;
            let full = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(stage, tile_source(input, first), TILE_BYTES, full);
            if let Some(second) = second {
                bulk_copy_global_to_shared(
                    stage + TILE_BYTES,
                    tile_source(input, second),
                    TILE_BYTES,
                    full,
                );
            }
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for (_, second) in pairs() {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index(), PAIR_BYTES);
            let halves = if second.is_some() { 2 } else { 1 };
            for half in 0..halves {
                for row in 0..ROWS {
                    sum += *stage.add(half * TILE_FLOATS + row * COLS + column);
                }
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Broken: as `r35_iters_rev_map_sum`, but since the tiles come last to first the producer fills
/// the ring from the top as well, `STAGES - 1 - index`: each copy lands in another stage than the
/// one whose full barrier it completes, so the consumers read a stage that is stale or still
/// being written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_iters_bad_ring_filled_backwards(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 4;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mine = tiles_of_block(block, grid, tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in (0..mine).rev().map(|k| block + k * grid) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + (STAGES - 1 - state.index()) * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in (0..mine).rev() {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index(), TILE_BYTES);
            sum += (0..ROWS)
                .map(|row| *stage.add(row * COLS + column))
                .sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}
