//! Pipeline kernels written with iterators and slices: `step_by` tile ranges, `map`/`sum`
//! over a stage's rows, slices of a stage, `chunks_exact`, `enumerate`/`zip`, `rev`, `fold` and
//! `for_each` with the state captured by the closure.
#![allow(unsafe_op_in_unsafe_fn)]

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_dim_x, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use crate::{COLS, CONSUMERS, ROWS, SHARED_BYTES, TILE_BYTES, TILE_FLOATS, owned_tiles, store_column, tile_source};

/// Four stages; both roles loop over `(first..tiles).step_by(grid)`; the consumers sum a
/// column with `(0..ROWS).map(..).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_step_by_map_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (first..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (first..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            sum += (0..ROWS).map(|r| *stage.add(r * COLS + col)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, col, sum);
    }
}

/// Three stages; the consumers view the stage as a slice and sum
/// `iter().skip(col).step_by(COLS)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_stage_slice_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, block_idx_x() + k * grid_dim_x()), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            sum += stage.iter().skip(tid as usize).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

/// Five stages; the consumers split the stage slice into rows with `chunks_exact(COLS)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_chunks_exact_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 5;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            for row in stage.chunks_exact(COLS) {
                sum += row[col];
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, col, sum);
    }
}

/// Two stages; the producer walks `enumerate()` of its tile range, the consumers `zip` a count
/// with the same range.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_enumerate_zip(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<2>::init(barriers, CONSUMERS) } else { Pipeline::<2>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut copied = 0u32;
        for (k, t) in (first..tiles).step_by(step).enumerate() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            copied = k as u32 + 1;
        }
        let _ = copied;
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0f32;
        for (_k, _t) in (0u32..).zip((first..tiles).step_by(step)) {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            sum += (0..ROWS).map(|r| *stage.add(r * COLS + tid as usize)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

/// Six stages; both roles count down with `(0..n).rev()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_rev_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 6;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let n = owned_tiles(tiles);
    let last = block_idx_x() + n.saturating_sub(1) * grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for left in (0..n).rev() {
            // `left` tiles remain after this one: the tile is `last - left * grid`.
            let t = last - left * grid_dim_x();
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in (0..n).rev() {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            sum += stage.iter().skip(tid as usize).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

/// Four stages at byte 1024; the producer runs `for_each` over its tiles and the consumers
/// `fold` over their count, both closures capturing the state by mutable reference.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_for_each_fold(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        (first..tiles).step_by(step).for_each(|t| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let sum = (0..owned_tiles(tiles)).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let s: f32 = (0..ROWS).map(|r| *stage.add(r * COLS + col)).sum();
            pipe.consumer_release(&state);
            state.advance();
            acc + s
        });
        store_column(out, col, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

/// The consumers' range ends at `tiles - 1`: the last block (whose last tile is 63) runs one
/// tile fewer than its producer, whose tail then waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_bad_range_end_minus_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (first..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (first..tiles - 1).step_by(step) {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            sum += (0..ROWS).map(|r| *stage.add(r * COLS + col)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, col, sum);
    }
}

/// The consumers build the lazy column iterator over the stage, release the stage, and only
/// then sum the iterator: the reads happen after the release, racing with the refill.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_bad_lazy_sum_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 2;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, block_idx_x() + k * grid_dim_x()), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            let column = stage.iter().skip(tid as usize).step_by(COLS);
            pipe.consumer_release(&state);
            state.advance();
            sum += column.sum::<f32>();
        }
        store_column(out, tid as usize, sum);
    }
}

/// The consumers make their stage slice once, before the loop, from the ring's base: every
/// tile is read from stage 0 whatever stage the state is on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_bad_slice_made_before_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (first..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let stage = slice::from_raw_parts(dynamic_shared_base::<f32>().add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
        let mut sum = 0.0f32;
        for _ in (first..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            for row in stage.chunks_exact(COLS) {
                sum += row[tid as usize];
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

/// The consumers step their tile range by `block_dim_x()` (64) instead of `grid_dim_x()` (8):
/// they take one tile and leave, and the producer waits for releases forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_bad_step_by_block_dim(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (first..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (first..tiles).step_by(block_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            sum += (0..ROWS).map(|r| *stage.add(r * COLS + col)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, col, sum);
    }
}

/// The consumers walk the ring with their own cycling iterator over the whole 8 KiB window cut
/// into tiles (eight "stages") while the pipeline has four: from the fifth tile on they read
/// the barriers and stages nobody filled for that tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_bad_cycle_over_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (first..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let whole = slice::from_raw_parts(dynamic_shared_base::<f32>(), SHARED_BYTES as usize / 4);
        let mut stages = whole.chunks_exact(TILE_FLOATS).cycle();
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (first..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            if let Some(stage) = stages.next() {
                sum += stage.iter().skip(tid as usize).step_by(COLS).sum::<f32>();
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

/// The producer's range is inclusive (`first..=tiles`): block 0 copies a 65th tile (past the
/// input) that no consumer takes, and its tail waits for that release forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_iter_bad_producer_inclusive_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        (first..=tiles).step_by(step).for_each(|t| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let sum = (first..tiles).step_by(step).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let s: f32 = (0..ROWS).map(|r| *stage.add(r * COLS + col)).sum();
            pipe.consumer_release(&state);
            state.advance();
            acc + s
        });
        store_column(out, col, sum);
    }
}
