//! Pipeline kernels that differ in where things sit in the window: barriers first, the ring
//! reused once drained, stages read as 16-byte quads, a flag before the ring.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

const STAGES: u32 = 4;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

/// The producer loop of this family, copying into the ring at `ring_window`.
#[inline(always)]
unsafe fn fill_ring(pipe: &Pipeline<STAGES>, ring_window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<STAGES>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring_window + state.index() * TILE_BYTES,
            unsafe { input.add(tile as usize * TILE_FLOATS) } as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        tile += grid_dim_x();
    }
    pipe.producer_tail(state);
}

/// The consumer loop of this family: this lane's column of every stage of `ring`.
#[inline(always)]
unsafe fn sum_column(pipe: &Pipeline<STAGES>, ring: *const f32, column: usize, tiles: u32) -> f32 {
    let mut state = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.consumer_wait(&state);
        let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
        for row in 0..ROWS {
            acc += unsafe { *stage.add(row * COLS + column) };
        }
        pipe.consumer_release(&state);
        state.advance();
        tile += grid_dim_x();
    }
    acc
}

/// Barriers at the window's start, the ring from 1 KiB.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_layout_barriers_first(input: *const f32, tiles: u32, out: *mut f32) {
    const RING_OFFSET: u32 = 1024;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>().add(RING_OFFSET as usize / 4);
            let acc = sum_column(&pipe, ring, tid as usize, tiles);
            *out.add((block_idx_x() * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            fill_ring(&pipe, window + RING_OFFSET, input, tiles);
        }
    }
}

/// Once the pipeline has drained, stage 0 holds the sums so that warp 1 stores them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_layout_ring_reused(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let ring = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    unsafe {
        if tid < WARP {
            acc = sum_column(&pipe, ring, tid as usize, tiles);
        } else if tid == WARP {
            fill_ring(&pipe, window, input, tiles);
        }
    }
    barrier();
    unsafe {
        if warp_id() == 0 {
            *ring.add(lane_id() as usize) = acc;
        }
    }
    barrier();
    unsafe {
        if warp_id() == 1 {
            *out.add((block_idx_x() * WARP + lane_id()) as usize) = *ring.add(lane_id() as usize);
        }
    }
}

/// Consumers read 16-byte quads: lane `l` holds columns `4(l / 4)..+4` of rows `l % 4` and
/// `l % 4 + 4`; four-lane segment sums finish each column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_layout_quads_segment(input: *const f32, tiles: u32, out: *mut f32) {
    const QUADS_PER_ROW: usize = COLS / 4;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid < WARP {
            let lane = tid as usize;
            let quad_column = lane / 4;
            let first_row = lane % 4;
            let ring = dynamic_shared_base::<[f32; 4]>();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = [0.0f32; 4];
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * (TILE_FLOATS / 4));
                for row in [first_row, first_row + 4] {
                    let quad = *stage.add(row * QUADS_PER_ROW + quad_column);
                    for i in 0..4 {
                        acc[i] += quad[i];
                    }
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            let mut total = [0.0f32; 4];
            for i in 0..4 {
                total[i] = segment_sum(acc[i], 4);
            }
            if first_row == 0 {
                for i in 0..4 {
                    *out.add(block as usize * COLS + 4 * quad_column + i) = total[i];
                }
            }
        } else if tid == WARP {
            fill_ring(&pipe, window, input, tiles);
        }
    }
}

/// A 16-byte word before the ring holds the block's tile count for every thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_layout_ring_after_flag(input: *const f32, tiles: u32, out: *mut f32) {
    const FLAG_BYTES: u32 = 16;
    const RING_OFFSET: u32 = FLAG_BYTES;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    let flag = dynamic_shared_base::<u32>();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        unsafe { *flag = owned_tiles(tiles, block, grid) };
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let count = unsafe { *flag };
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>().add(RING_OFFSET as usize / 4);
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for _ in 0..count {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            for k in 0..count {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_OFFSET + state.index() * TILE_BYTES,
                    input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            pipe.producer_tail(state);
        }
    }
}

/// Consumers step through the ring by the stage size in bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_layout_stage_byte_stride(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_BYTES as usize);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            fill_ring(&pipe, window, input, tiles);
        }
    }
}

/// The producer steps through the ring by the stage size in floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_layout_copy_float_stride(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid < WARP {
            let acc = sum_column(&pipe, dynamic_shared_base::<f32>(), tid as usize, tiles);
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_FLOATS as u32,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}

/// The drained ring holds the sums for warp 1, trusting the producer's tail for the order.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_layout_reuse_after_tail(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let ring = dynamic_shared_base::<f32>();
    unsafe {
        if tid < WARP {
            let acc = sum_column(&pipe, ring, tid as usize, tiles);
            *ring.add(tid as usize) = acc;
        } else if tid == WARP {
            fill_ring(&pipe, window, input, tiles);
        }
        if warp_id() == 1 {
            *out.add((block_idx_x() * WARP + lane_id()) as usize) = *ring.add(lane_id() as usize);
        }
    }
}
