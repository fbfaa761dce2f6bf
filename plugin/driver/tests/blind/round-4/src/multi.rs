//! Several pipelines in one block: a tile split between two rings, by rows or by columns.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::{COLUMNS, TILE_BYTES, TILE_FLOATS};
use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;
const HALF_BYTES: u32 = TILE_BYTES / 2;
const HALF_FLOATS: usize = TILE_FLOATS / 2;
const RING_BYTES: u32 = STAGES * HALF_BYTES;

/// Rows 0..4 of every tile travel through ring `top` (producer thread 32), rows 4..8 through
/// ring `bottom` (producer thread 33); warp 0 consumes both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn multi_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let top_ring = window;
    let bottom_ring = window + RING_BYTES;
    let top_bars = window + 2 * RING_BYTES;
    let bottom_bars = top_bars + pipeline_barrier_bytes(STAGES);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(top_bars, 32);
        Pipeline::<STAGES>::init(bottom_bars, 32);
    }
    barrier();
    let top = Pipeline::<STAGES>::attach(top_bars);
    let bottom = Pipeline::<STAGES>::attach(bottom_bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            top.producer_acquire(&state);
            top.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                top_ring + state.index() * HALF_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                HALF_BYTES,
                top.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        top.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            bottom.producer_acquire(&state);
            bottom.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                bottom_ring + state.index() * HALF_BYTES,
                input.add(t as usize * TILE_FLOATS + HALF_FLOATS) as *const u8,
                HALF_BYTES,
                bottom.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        bottom.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let bottom_smem = smem.add(STAGES as usize * HALF_FLOATS);
        let mut top_state = PipelineState::<STAGES>::new();
        let mut bottom_state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            top.consumer_wait(&top_state);
            let p = smem.add(top_state.index() as usize * HALF_FLOATS + c);
            acc += *p + *p.add(32) + *p.add(64) + *p.add(96);
            top.consumer_release(&top_state);
            top_state.advance();

            bottom.consumer_wait(&bottom_state);
            let q = bottom_smem.add(bottom_state.index() as usize * HALF_FLOATS + c);
            acc += *q + *q.add(32) + *q.add(64) + *q.add(96);
            bottom.consumer_release(&bottom_state);
            bottom_state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + c) = acc;
    }
}

/// Columns 0..16 of every tile go through ring `left`, consumed by threads 0..16; columns
/// 16..32 through ring `right`, consumed by threads 16..32. Each stage holds 8 rows of 16
/// columns, gathered by 8 copies of 64 bytes. Thread 32 feeds both rings.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn multi_column_halves(input: *const f32, tiles: u32, out: *mut f32) {
    const HALF_COLUMNS: usize = COLUMNS / 2;
    const ROW_BYTES: u32 = (COLUMNS * 4) as u32;
    const PIECE_BYTES: u32 = ROW_BYTES / 2;
    const ROWS: u32 = 8;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let rings = [window, window + RING_BYTES];
    let left_bars = window + 2 * RING_BYTES;
    let right_bars = left_bars + pipeline_barrier_bytes(STAGES);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(left_bars, HALF_COLUMNS as u32);
        Pipeline::<STAGES>::init(right_bars, HALF_COLUMNS as u32);
    }
    barrier();
    let left = Pipeline::<STAGES>::attach(left_bars);
    let right = Pipeline::<STAGES>::attach(right_bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut left_state = PipelineState::<STAGES>::producer_start();
        let mut right_state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;

            left.producer_acquire(&left_state);
            left.producer_expect_tx(&left_state, HALF_BYTES);
            let dst = rings[0] + left_state.index() * HALF_BYTES;
            for row in 0..ROWS {
                bulk_copy_global_to_shared(
                    dst + row * PIECE_BYTES,
                    src.add((row * ROW_BYTES) as usize),
                    PIECE_BYTES,
                    left.producer_barrier(&left_state),
                );
            }
            left_state.advance();

            right.producer_acquire(&right_state);
            right.producer_expect_tx(&right_state, HALF_BYTES);
            let dst = rings[1] + right_state.index() * HALF_BYTES;
            for row in 0..ROWS {
                bulk_copy_global_to_shared(
                    dst + row * PIECE_BYTES,
                    src.add((row * ROW_BYTES + PIECE_BYTES) as usize),
                    PIECE_BYTES,
                    right.producer_barrier(&right_state),
                );
            }
            right_state.advance();
            t += grid;
        }
        left.producer_tail(left_state);
        right.producer_tail(right_state);
    } else if tid < HALF_COLUMNS as u32 {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            left.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * HALF_FLOATS);
            for row in 0..ROWS as usize {
                acc += *stage.add(row * HALF_COLUMNS + c);
            }
            left.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + c) = acc;
    } else if tid < COLUMNS as u32 {
        let c = tid as usize - HALF_COLUMNS;
        let right_smem = smem.add(STAGES as usize * HALF_FLOATS);
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            right.consumer_wait(&state);
            let stage = right_smem.add(state.index() as usize * HALF_FLOATS);
            for row in 0..ROWS as usize {
                acc += *stage.add(row * HALF_COLUMNS + c);
            }
            right.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + HALF_COLUMNS + c) = acc;
    }
}

/// As `multi_split_halves`, with the second ring's barriers placed right after the first's.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn multi_barrier_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let top_ring = window;
    let bottom_ring = window + RING_BYTES;
    let top_bars = window + 2 * RING_BYTES;
    let bottom_bars = top_bars + 8 * STAGES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(top_bars, 32);
        Pipeline::<STAGES>::init(bottom_bars, 32);
    }
    barrier();
    let top = Pipeline::<STAGES>::attach(top_bars);
    let bottom = Pipeline::<STAGES>::attach(bottom_bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            top.producer_acquire(&state);
            top.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                top_ring + state.index() * HALF_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                HALF_BYTES,
                top.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        top.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            bottom.producer_acquire(&state);
            bottom.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                bottom_ring + state.index() * HALF_BYTES,
                input.add(t as usize * TILE_FLOATS + HALF_FLOATS) as *const u8,
                HALF_BYTES,
                bottom.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        bottom.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let bottom_smem = smem.add(STAGES as usize * HALF_FLOATS);
        let mut top_state = PipelineState::<STAGES>::new();
        let mut bottom_state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            top.consumer_wait(&top_state);
            let p = smem.add(top_state.index() as usize * HALF_FLOATS + c);
            acc += *p + *p.add(32) + *p.add(64) + *p.add(96);
            top.consumer_release(&top_state);
            top_state.advance();

            bottom.consumer_wait(&bottom_state);
            let q = bottom_smem.add(bottom_state.index() as usize * HALF_FLOATS + c);
            acc += *q + *q.add(32) + *q.add(64) + *q.add(96);
            bottom.consumer_release(&bottom_state);
            bottom_state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + c) = acc;
    }
}

/// As `multi_split_halves`, the consumer's two halves written as one block of code.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn multi_release_swapped(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let top_ring = window;
    let bottom_ring = window + RING_BYTES;
    let top_bars = window + 2 * RING_BYTES;
    let bottom_bars = top_bars + pipeline_barrier_bytes(STAGES);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(top_bars, 32);
        Pipeline::<STAGES>::init(bottom_bars, 32);
    }
    barrier();
    let top = Pipeline::<STAGES>::attach(top_bars);
    let bottom = Pipeline::<STAGES>::attach(bottom_bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            top.producer_acquire(&state);
            top.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                top_ring + state.index() * HALF_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                HALF_BYTES,
                top.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        top.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            bottom.producer_acquire(&state);
            bottom.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                bottom_ring + state.index() * HALF_BYTES,
                input.add(t as usize * TILE_FLOATS + HALF_FLOATS) as *const u8,
                HALF_BYTES,
                bottom.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        bottom.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let bottom_smem = smem.add(STAGES as usize * HALF_FLOATS);
        let mut top_state = PipelineState::<STAGES>::new();
        let mut bottom_state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            top.consumer_wait(&top_state);
            bottom.consumer_wait(&bottom_state);
            let p = smem.add(top_state.index() as usize * HALF_FLOATS + c);
            let q = bottom_smem.add(bottom_state.index() as usize * HALF_FLOATS + c);
            acc += *p + *p.add(32) + *p.add(64) + *p.add(96);
            acc += *q + *q.add(32) + *q.add(64) + *q.add(96);
            top.consumer_release(&top_state);
            top.consumer_release(&bottom_state);
            top_state.advance();
            bottom_state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + c) = acc;
    }
}
