//! Kernels using the launch features of the device API: cluster barriers and distributed
//! shared memory (in the contract's launch every cluster is one block), and programmatic
//! dependent launch (no-ops in an ordinary launch).
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::cluster::{block_rank_in_cluster, cluster_barrier, cluster_block_count, map_shared_to_block};
use crate::device::dependent::{allow_dependent_launch, wait_for_prior_grid};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use crate::{BLOCK_THREADS, CONSUMERS, TILE_BYTES, TILE_FLOATS, column_sum, owned_tiles, store_column, tile_source};

#[inline(always)]
unsafe fn stage_tile(buffer: *mut f32, input: *const f32, t: u32, tid: u32) {
    let source = input.add(t as usize * TILE_FLOATS);
    for k in 0..(TILE_FLOATS / BLOCK_THREADS as usize) {
        let i = tid as usize + k * BLOCK_THREADS as usize;
        *buffer.add(i) = *source.add(i);
    }
}

/// Plain staging ordered by cluster barriers (a cluster of one block: the whole block).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_launch_cluster_barrier_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        cluster_barrier();
        if tid < 32 {
            sum += column_sum(tile, tid as usize);
        }
        cluster_barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// A four-stage pipeline kernel written for dependent launch: it waits for the prior grid
/// before its first copy and lets the next grid launch once its loops are done.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_launch_dependent_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    wait_for_prior_grid();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
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
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        allow_dependent_launch();
        store_column(out, tid as usize, sum);
    }
}

/// Plain double buffering written for dependent launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_launch_dependent_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    wait_for_prior_grid();
    let tid = thread_idx_x();
    let base = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let first = block_idx_x();
    let step = grid_dim_x();
    if n > 0 {
        stage_tile(base, input, first, tid);
    }
    barrier();
    let mut sum = 0.0f32;
    let mut k = 0;
    while k < n {
        let current = base.wrapping_add((k as usize & 1) * TILE_FLOATS);
        let next = base.wrapping_add(((k as usize + 1) & 1) * TILE_FLOATS);
        if k + 1 < n {
            stage_tile(next, input, first + (k + 1) * step, tid);
        }
        if tid < 32 {
            sum += column_sum(current, tid as usize);
        }
        barrier();
        k += 1;
    }
    allow_dependent_launch();
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// The staged tile is read through the distributed-shared-memory address of this block's own
/// rank (`map_shared_to_block(tile, block_rank_in_cluster())`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_launch_mapped_own_rank(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mapped = map_shared_to_block(tile, block_rank_in_cluster());
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        barrier();
        if tid < 32 {
            sum += column_sum(mapped, tid as usize);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

/// The second cluster barrier is inside the readers' branch: warp 1 never reaches it, so the
/// barriers pair up wrongly and staging overwrites the tile while warp 0 reads it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_launch_bad_cluster_barrier_in_branch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        cluster_barrier();
        if tid < 32 {
            sum += column_sum(tile, tid as usize);
            cluster_barrier();
        }
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// The dependent-launch pipeline with the consumers' loop test written `t <= tiles`: block 0
/// waits for a ninth tile that its producer never copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_launch_bad_dependent_pipeline_le_bound(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    wait_for_prior_grid();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
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
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t <= tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        allow_dependent_launch();
        store_column(out, tid as usize, sum);
    }
}

/// Cluster-barrier staging without the second barrier: the next tile is staged while warp 0
/// still reads the current one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_launch_bad_cluster_staging_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        cluster_barrier();
        if tid < 32 {
            sum += column_sum(tile, tid as usize);
        }
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// The tile is read through `map_shared_to_block(tile, cluster_block_count())`, the block
/// count where the rank was meant: rank 1 does not exist in a cluster of one block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_launch_bad_mapped_rank_is_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mapped = map_shared_to_block(tile, cluster_block_count());
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        barrier();
        if tid < 32 {
            sum += column_sum(mapped, tid as usize);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}
