//! Kernels written for Hopper's launch extensions: thread-block clusters (distributed shared
//! memory) and programmatic dependent launch. Both must also run in a plain launch.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::{COLUMNS, ROWS, TILE_BYTES, TILE_FLOATS};
use crate::device::cluster::{block_rank_in_cluster, map_shared_to_block};
use crate::device::dependent::{allow_dependent_launch, wait_for_prior_grid};
use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;

/// The consumers read their stage through its distributed-shared-memory address in this
/// block's own rank, as code that may later read a peer's stage would.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn clu_mapped_self(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let rank = block_rank_in_cluster();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let local = smem.add(state.index() as usize * TILE_FLOATS + c);
            let column = map_shared_to_block(local, rank);
            for r in 0..ROWS {
                acc += *column.add(r * COLUMNS);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + c) = acc;
    }
}

/// Programmatic dependent launch done by the book: every thread waits for the previous grid
/// before touching global memory, and lets the next one launch once its own work is issued.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn clu_pdl_ordered(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    wait_for_prior_grid();
    let smem = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        allow_dependent_launch();
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let p = smem.add(state.index() as usize * TILE_FLOATS + c);
            for r in 0..ROWS {
                acc += *p.add(r * COLUMNS);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + c) = acc;
        allow_dependent_launch();
    } else {
        allow_dependent_launch();
    }
}

/// Blocks are paired in clusters of two; the consumers read the upper half of each tile's
/// rows from the partner block's copy of the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn clu_peer_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let partner = block_rank_in_cluster() ^ 1;
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let p = smem.add(state.index() as usize * TILE_FLOATS + c);
            for r in 0..ROWS / 2 {
                acc += *p.add(r * COLUMNS);
            }
            let remote = map_shared_to_block(p.add(ROWS / 2 * COLUMNS), partner);
            for r in 0..ROWS / 2 {
                acc += *remote.add(r * COLUMNS);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + c) = acc;
    }
}
