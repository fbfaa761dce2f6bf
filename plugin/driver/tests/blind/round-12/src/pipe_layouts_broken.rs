//! The mbarrier pipeline in the layouts of `pipe_layouts`, broken: a look-ahead stage, a ring
//! with half-stride stages, `init` for the whole block, a producer warp, a producer that never
//! acquires. (Split from `pipe_layouts.rs` to keep files under 800 lines; the kernels are as
//! written blind.)

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x,
    warp_id,
};

use crate::pipe_layouts::{COLUMNS, ROWS, TILE_BYTES, TILE_FLOATS, tile_source};

/// Four stages; the producer fills the stage after the one it acquired, the ring being used
/// as a look-ahead buffer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_lookahead_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe =
        if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let ahead = (state.index() + 1) % STAGES;
            bulk_copy_global_to_shared(
                window + RING + ahead * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Eight stages packed into 4 KiB: the stage stride is half a tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_half_stride_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 8;
    const RING: u32 = 1024;
    const STAGE_STRIDE: u32 = TILE_BYTES / 2;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe =
        if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * STAGE_STRIDE,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * (STAGE_STRIDE as usize / 4)) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// The barriers are initialised for the block's threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_init_for_block(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    const BLOCK: u32 = 64;
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe =
        if tid == 0 { Pipeline::<STAGES>::init(window, BLOCK) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Warp 1 is the producer warp, warp 0 the consumer warp.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_producer_warp(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe =
        if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    match warp_id() {
        1 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = first;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING + state.index() * TILE_BYTES,
                    tile_source(input, t),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += step;
            }
            pipe.producer_tail(state);
        }
        _ => {
            let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
                for row in 0..ROWS {
                    acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
        }
    }
}

/// The producer's first lap finds every stage empty, and the consumers release each stage
/// before it comes round again, so the producer just keeps copying.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_producer_no_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe =
        if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}
