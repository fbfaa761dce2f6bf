//! Persona: the Hopper-features author. Programmatic dependent launch, a cluster barrier in
//! place of the block barrier, a producer that writes its stage before the copy (with and
//! without the proxy fence), and an initialisation without its barrier.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::cluster::cluster_barrier;
use crate::device::dependent::{allow_dependent_launch, wait_for_prior_grid};
use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, fence_proxy_async_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const S: u32 = 4;

/// Written for programmatic dependent launch: waits for the prior grid before touching global
/// memory, lets the next grid launch once the consumers are done. Otherwise the textbook
/// kernel (thread 0 produces, warp 1 consumes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ex_dependent_launch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    wait_for_prior_grid();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
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
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..8 {
                acc += *stage.add((r * 32 + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + c) as usize) = acc;
    }
    allow_dependent_launch();
}

/// The initialisation is published by a cluster barrier instead of the block barrier (in a
/// launch without clusters the cluster is this block, so it orders the same threads).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ex_cluster_barrier_after_init(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    cluster_barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
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
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..8 {
                acc += *stage.add((r * 32 + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + c) as usize) = acc;
    }
}

/// The producer clears the first row of its stage after acquiring it (a habit from a
/// zero-padded variant), fences the generic proxy against the async proxy, then announces and
/// copies the tile over it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ex_clear_then_fence(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..32 {
                *stage.add(k) = 0.0;
            }
            fence_proxy_async_shared();
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..8 {
                acc += *stage.add((r * 32 + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + c) as usize) = acc;
    }
}

/// BROKEN: as `r5_ex_clear_then_fence` without the proxy fence: the generic-proxy zero stores
/// and the bulk copy into the same bytes are unordered, so the zeros may land after the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ex_clear_without_fence(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..32 {
                *stage.add(k) = 0.0;
            }
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..8 {
                acc += *stage.add((r * 32 + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + c) as usize) = acc;
    }
}

/// BROKEN: thread 0 initialises the barriers and goes straight into its producer loop; nothing
/// orders the initialisation before the consumers' first waits (no block barrier), so a
/// consumer may poll an uninitialised mbarrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ex_no_barrier_after_init(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let pipe = Pipeline::<S>::init(barriers, 32);
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
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
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let pipe = Pipeline::<S>::attach(barriers);
        let c = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..8 {
                acc += *stage.add((r * 32 + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + c) as usize) = acc;
    }
}
