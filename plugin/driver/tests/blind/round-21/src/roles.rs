//! Pipeline kernels with different role splits: the whole block consuming with thread 0 also
//! producing, warp/lane helpers, the last thread as producer, the upper warp consuming, two
//! warps taking alternate tiles of one pipeline.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};
use crate::{BLOCK_THREADS, COLS, CONSUMERS, TILE_BYTES, TILE_FLOATS, column_sum, owned_tiles, store_column, tile_source};

const FOUR: u32 = 4;
const RING_END: u32 = FOUR * TILE_BYTES;
/// Partials of the 64 threads, after the ring and its barriers.
const SCRATCH: u32 = RING_END + pipeline_barrier_bytes(FOUR);

#[inline(always)]
unsafe fn half_rows(stage: *const f32, col: usize, half: usize) -> f32 {
    let mut s = 0.0f32;
    for row in half * 4..half * 4 + 4 {
        s += *stage.add(row * COLS + col);
    }
    s
}

#[inline(always)]
unsafe fn put_tile(pipe: &Pipeline<FOUR>, state: &mut PipelineState<FOUR>, window: u32, input: *const f32, t: u32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

/// All 64 threads consume (each half a column: warp `w` sums rows `4w..4w+4`), thread 0 also
/// copies each tile just before the block waits for it; the halves meet in scratch after the
/// ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_block_consumes_thread0_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<FOUR>::init(window + RING_END, BLOCK_THREADS) } else { Pipeline::<FOUR>::attach(window + RING_END) };
    barrier();
    let ring = dynamic_shared_base::<f32>();
    let col = (tid % 32) as usize;
    let half = (tid / 32) as usize;
    let mut produced = PipelineState::<FOUR>::producer_start();
    let mut state = PipelineState::<FOUR>::new();
    let mut part = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 0 {
            put_tile(&pipe, &mut produced, window, input, t);
        }
        pipe.consumer_wait(&state);
        part += half_rows(ring.add(state.index() as usize * TILE_FLOATS), col, half);
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    let scratch = dynamic_shared_base::<f32>().add(SCRATCH as usize / 4);
    *scratch.add(tid as usize) = part;
    barrier();
    if tid < 32 {
        store_column(out, col, *scratch.add(col) + *scratch.add(col + 32));
    }
}

/// Three stages; lane 0 of warp 1 produces (`warp_id()`/`lane_id()`), warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_warp_lane_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(barriers, CONSUMERS) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    let warp = warp_id();
    let lane = lane_id();
    if warp == 1 && lane == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if warp == 0 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), lane as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, lane as usize, sum);
    }
}

/// Seven stages behind the barriers (ring at 128); the block's last thread produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_last_thread_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 7;
    const RING: u32 = 128;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window, CONSUMERS) } else { Pipeline::<S>::attach(window) };
    barrier();
    let n = owned_tiles(tiles);
    if tid == BLOCK_THREADS - 1 {
        let mut state = PipelineState::<S>::producer_start();
        let mut k = 0;
        while k < n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, tile_source(input, block_idx_x() + k * grid_dim_x()), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            k += 1;
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut k = 0;
        while k < n {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            k += 1;
        }
        store_column(out, tid as usize, sum);
    }
}

/// Four stages; thread 0 produces and the threads in `(32..64)` consume.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_upper_warp_range_contains(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<FOUR>::init(window + RING_END, CONSUMERS) } else { Pipeline::<FOUR>::attach(window + RING_END) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            put_tile(&pipe, &mut state, window, input, t);
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if (32..64).contains(&tid) {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<FOUR>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        store_column(out, col, sum);
    }
}

/// One pipeline released by 32 threads per stage: warp 0 takes the block's even tiles and
/// warp 1 the odd ones; every thread advances its state on every tile and waits only on its
/// own. Thread 0 also copies each tile; partial columns meet in scratch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_warps_alternate_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<FOUR>::init(window + RING_END, CONSUMERS) } else { Pipeline::<FOUR>::attach(window + RING_END) };
    barrier();
    let ring = dynamic_shared_base::<f32>();
    let warp = warp_id();
    let col = lane_id() as usize;
    let n = owned_tiles(tiles);
    let mut produced = PipelineState::<FOUR>::producer_start();
    let mut state = PipelineState::<FOUR>::new();
    let mut part = 0.0f32;
    for k in 0..n {
        if tid == 0 {
            put_tile(&pipe, &mut produced, window, input, block_idx_x() + k * grid_dim_x());
        }
        if k % 2 == warp {
            pipe.consumer_wait(&state);
            part += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
        }
        state.advance();
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    let scratch = dynamic_shared_base::<f32>().add(SCRATCH as usize / 4);
    *scratch.add(tid as usize) = part;
    barrier();
    if tid < 32 {
        store_column(out, col, *scratch.add(col) + *scratch.add(col + 32));
    }
}

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

/// Thread 0 produces, and the consumer branch (`else if tid < 32`) leaves 31 releasing threads
/// for a pipeline built for 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_bad_producer_inside_consumer_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<FOUR>::init(window + RING_END, CONSUMERS) } else { Pipeline::<FOUR>::attach(window + RING_END) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            put_tile(&pipe, &mut state, window, input, t);
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<FOUR>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        store_column(out, tid as usize, sum);
    }
}

/// The producer branch tests only `warp_id() == 1`, without electing a lane: all 32 threads
/// of warp 1 arrive on each full barrier (built for one arrival) and copy every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_bad_whole_warp_produces(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(barriers, CONSUMERS) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if warp_id() == 1 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else {
        let lane = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), lane);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, lane, sum);
    }
}

/// Like the block-consumes kernel, but without the barrier between writing the partials to
/// scratch and reading the other warp's: warp 0 may read scratch before warp 1 wrote it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_bad_scratch_read_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<FOUR>::init(window + RING_END, BLOCK_THREADS) } else { Pipeline::<FOUR>::attach(window + RING_END) };
    barrier();
    let ring = dynamic_shared_base::<f32>();
    let col = (tid % 32) as usize;
    let half = (tid / 32) as usize;
    let mut produced = PipelineState::<FOUR>::producer_start();
    let mut state = PipelineState::<FOUR>::new();
    let mut part = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 0 {
            put_tile(&pipe, &mut produced, window, input, t);
        }
        pipe.consumer_wait(&state);
        part += half_rows(ring.add(state.index() as usize * TILE_FLOATS), col, half);
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    let scratch = dynamic_shared_base::<f32>().add(SCRATCH as usize / 4);
    *scratch.add(tid as usize) = part;
    if tid < 32 {
        store_column(out, col, *scratch.add(col) + *scratch.add(col + 32));
    }
}

/// The alternate-tiles kernel with the advance moved inside the warp's own branch: each warp
/// walks the stages as if it took every tile, reads the other warp's tiles and releases
/// stages the other warp still reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_bad_warps_advance_only_own_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<FOUR>::init(window + RING_END, CONSUMERS) } else { Pipeline::<FOUR>::attach(window + RING_END) };
    barrier();
    let ring = dynamic_shared_base::<f32>();
    let warp = warp_id();
    let col = lane_id() as usize;
    let n = owned_tiles(tiles);
    let mut produced = PipelineState::<FOUR>::producer_start();
    let mut state = PipelineState::<FOUR>::new();
    let mut part = 0.0f32;
    for k in 0..n {
        if tid == 0 {
            put_tile(&pipe, &mut produced, window, input, block_idx_x() + k * grid_dim_x());
        }
        if k % 2 == warp {
            pipe.consumer_wait(&state);
            part += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
            state.advance();
        }
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    let scratch = dynamic_shared_base::<f32>().add(SCRATCH as usize / 4);
    *scratch.add(tid as usize) = part;
    barrier();
    if tid < 32 {
        store_column(out, col, *scratch.add(col) + *scratch.add(col + 32));
    }
}

/// Thread 0 is both producer and a consumer, and runs its whole producer loop before it
/// consumes: the fifth acquire waits for its own release of tile 0, which never comes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_role_bad_thread0_produces_everything_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<FOUR>::init(window + RING_END, CONSUMERS) } else { Pipeline::<FOUR>::attach(window + RING_END) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            put_tile(&pipe, &mut state, window, input, t);
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    }
    if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<FOUR>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        store_column(out, tid as usize, sum);
    }
}
