//! The other device features around the same job: programmatic dependent launch around a
//! pipeline, distributed shared memory and the cluster barrier (in a launch without clusters,
//! each block its own cluster), the cluster exchange, and `unrolled!` stage copies.

use crate::device::cluster::{ClusterExchange, block_rank_in_cluster, cluster_barrier, map_shared_to_block};
use crate::device::dependent::{allow_dependent_launch, wait_for_prior_grid};
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;
/// Rows summed by warp 0 in the mapped-scratch kernels; warp 1 takes the rest.
const SPLIT: u32 = 2;
const QUARTERS: usize = 4;
const QUARTER: u32 = TILE_BYTES / QUARTERS as u32;

#[inline(always)]
unsafe fn column(stage: *const f32, col: u32) -> f32 {
    let mut s = 0.0f32;
    for r in 0..ROWS {
        s += *stage.add((r * COLS + col) as usize);
    }
    s
}

/// A four-stage pipeline launched as a programmatic dependent: every thread waits for the
/// prior grid first, and the producer lets the next grid launch once its copies are issued.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_misc_dependent_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    wait_for_prior_grid();
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        allow_dependent_launch();
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// No pipeline: each thread sums part of a column from global memory (warp 0 rows 0-1, warp 1
/// rows 2-7); warp 1 stores its parts
/// through `map_shared_to_block` at its own rank (distributed shared memory), a cluster barrier
/// publishes them, warp 0 adds them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_misc_cluster_mapped_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let scratch = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add((t * TILE_FLOATS + col) as usize);
        let rows = if half == 0 { 0..SPLIT } else { SPLIT..ROWS };
        for r in rows {
            acc += *src.add((r * COLS) as usize);
        }
        t += step;
    }
    if half == 1 {
        *map_shared_to_block(scratch.add(col as usize), block_rank_in_cluster()) = acc;
    }
    cluster_barrier();
    if half == 0 {
        *out.add((first * COLS + col) as usize) = acc + *scratch.add(col as usize);
    }
}

/// No pipeline: the tile is staged with block barriers, and each column's total goes through
/// a `ClusterExchange` sum (every thread takes part), which in a launch without clusters hands
/// back the block's own value.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_misc_cluster_exchange(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let slots = buf.add(TILE_FLOATS as usize);
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add((t * TILE_FLOATS) as usize);
        let mut i = tid;
        while i < TILE_FLOATS as usize {
            *buf.add(i) = *src.add(i);
            i += 64;
        }
        barrier();
        if tid < COLS as usize {
            acc += column(buf, tid as u32);
        }
        barrier();
        t += step;
    }
    let mut exchange = ClusterExchange::<1>::new(slots);
    let total = exchange.sum(acc);
    if tid < COLS as usize {
        *out.add(first as usize * COLS as usize + tid) = total;
    }
}

/// Each stage filled by four quarter copies written out with `unrolled!`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_misc_unrolled_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + state.index() * TILE_BYTES;
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            unrolled!(Q < QUARTERS => {
                bulk_copy_global_to_shared(
                    dst + Q as u32 * QUARTER,
                    src.add(Q * QUARTER as usize),
                    QUARTER,
                    pipe.producer_barrier(&state),
                );
            });
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// BROKEN: a dependent-launch pipeline of two stages whose consumers read stage
/// `index ^ 1`, the other stage (the one being refilled, or not yet filled).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_misc_bad_dependent_other_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    wait_for_prior_grid();
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        allow_dependent_launch();
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column(ring.add(((state.index() ^ 1) * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: as `r22_misc_cluster_mapped_scratch` without the cluster barrier: warp 0 (two rows
/// per tile) reads the scratch slots before warp 1 (six rows per tile) has stored into them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_misc_bad_mapped_scratch_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let scratch = dynamic_shared_base::<f32>().add(512);
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add((t * TILE_FLOATS + col) as usize);
        let rows = if half == 0 { 0..SPLIT } else { SPLIT..ROWS };
        for r in rows {
            acc += *src.add((r * COLS) as usize);
        }
        t += step;
    }
    if half == 1 {
        *map_shared_to_block(scratch.add(col as usize), block_rank_in_cluster()) = acc;
    } else {
        *out.add((first * COLS + col) as usize) = acc + *scratch.add(col as usize);
    }
}

/// BROKEN: `unrolled!` is bounded by `QUARTERS - 1` ("the last quarter is the tail"), so three
/// quarter copies deliver 768 of the 1024 bytes announced: the consumers hang on tile 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_misc_bad_unrolled_three_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + state.index() * TILE_BYTES;
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            unrolled!(Q < QUARTERS - 1 => {
                bulk_copy_global_to_shared(
                    dst + Q as u32 * QUARTER,
                    src.add(Q * QUARTER as usize),
                    QUARTER,
                    pipe.producer_barrier(&state),
                );
            });
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: a dependent-launch pipeline whose consumers leave their loop when `t + step > tiles`
/// after stepping, one tile early in blocks 1 to 7: the producer's tail waits for the last
/// tile's release forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_misc_bad_dependent_exit_test(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    wait_for_prior_grid();
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        allow_dependent_launch();
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        if t < tiles {
            loop {
                pipe.consumer_wait(&state);
                acc += column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
                pipe.consumer_release(&state);
                state.advance();
                t += step;
                if t + step > tiles {
                    break;
                }
            }
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}
