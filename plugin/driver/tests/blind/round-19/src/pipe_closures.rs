//! Pipeline kernels written with closures and iterators: a producer closure driven by
//! `for_each`, consumers folding over their tiles, stages viewed as slices from raw parts and
//! summed through `skip`/`step_by`, `map`/`sum` and `chunks_exact`.
#![allow(unsafe_op_in_unsafe_fn)]

use core::slice;

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch,
    thread_idx_x,
};
use crate::{COLS, ROWS, TILE, TILE_BYTES};

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// The producer is a closure over the pipeline and its state, driven by `for_each` over
/// `(block..tiles).step_by(grid)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_clos_push_for_each(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let push = |tile: u32| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        };
        (block..tiles).step_by(grid as usize).for_each(push);
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// Consumers view the waited stage as a slice and sum their column with `skip`/`step_by`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_clos_slice_skip_step(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE), TILE);
            sum += stage.iter().skip(tid as usize).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}

/// Consumers fold over their tile count with a closure that waits, reads, releases, advances.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_clos_fold_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let owned = if block < tiles { (tiles - block).div_ceil(grid) } else { 0 };
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        for k in 0..owned {
            let tile = block + k * grid;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let total = (0..owned).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            let mut part = 0.0f32;
            for r in 0..ROWS {
                part += unsafe { *stage.add(r * COLS + c) };
            }
            pipe.consumer_release(&state);
            state.advance();
            acc + part
        });
        *out.add(block as usize * COLS + c) = total;
    }
}

/// Consumers sum their column as `(0..ROWS).map(|r| stage[r * 32 + c]).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_clos_map_rows_sum(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 63 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE);
            sum += (0..ROWS).map(|r| unsafe { *stage.add(r * COLS + c) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// Consumers split the waited stage's slice into rows with `chunks_exact` and pick their column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_clos_chunks_exact_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize % COLS;
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE), TILE);
            sum += stage.chunks_exact(COLS).map(|row| row[c]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// The column's iterator over the stage is built before the release and summed after it: the
/// lazy iterator reads the stage only when `sum` runs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_clos_bad_lazy_column_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE), TILE);
            let column = stage.iter().skip(tid as usize).step_by(COLS);
            pipe.consumer_release(&state);
            state.advance();
            sum += column.sum::<f32>();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}

/// The consumers fold over `1..owned` while the producer copies `0..owned`: one stage is never
/// released and the producer's tail waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_clos_bad_fold_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let owned = if block < tiles { (tiles - block).div_ceil(grid) } else { 0 };
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        for k in 0..owned {
            let tile = block + k * grid;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let total = (1..owned).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            let mut part = 0.0f32;
            for r in 0..ROWS {
                part += unsafe { *stage.add(r * COLS + c) };
            }
            pipe.consumer_release(&state);
            state.advance();
            acc + part
        });
        *out.add(block as usize * COLS + c) = total;
    }
}

/// The per-tile consumer closure is a `move` closure built inside the loop: it advances its own
/// copy of the state, and every tile starts again from the loop's stale state (stage 0).
#[unsafe(no_mangle)]
#[allow(unused_assignments, unused_variables)]
pub unsafe extern "ptx-kernel" fn r19_clos_bad_move_closure_per_tile(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            let mut take = move || {
                pipe.consumer_wait(&state);
                let stage = ring.wrapping_add(state.index() as usize * TILE);
                let mut part = 0.0f32;
                for r in 0..ROWS {
                    part += unsafe { *stage.add(r * COLS + c) };
                }
                pipe.consumer_release(&state);
                state.advance();
                part
            };
            sum += take();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// The row iterator runs `0..=ROWS`: the ninth "row" is the first row of the next stage (or the
/// barriers after the last stage).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_clos_bad_rows_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 63 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE);
            sum += (0..=ROWS).map(|r| unsafe { *stage.add(r * COLS + c) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// A closure loads the stage's column "early to hide latency" and is called before the wait.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_clos_bad_load_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let column = |stage: *const f32| -> [f32; ROWS] {
            let mut v = [0.0f32; ROWS];
            for (r, x) in v.iter_mut().enumerate() {
                *x = unsafe { *stage.add(r * COLS + c) };
            }
            v
        };
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            let early = column(ring.add(state.index() as usize * TILE));
            pipe.consumer_wait(&state);
            sum += early.iter().sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}
