//! The same pipeline with its tile loops written in different shapes: `loop` with `break`,
//! `for` over a `step_by` range, a count-down of the tiles left.
//!
//! Layout: four 1 KiB stages from window byte 0, barriers at byte 4096. Thread 0 produces,
//! warp 1 consumes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + BARRIER_OFFSET;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, 32) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            let mut row = 0;
            loop {
                acc += unsafe { *stage.add(row * COLS + col) };
                row += 1;
                if row == ROWS {
                    break;
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_loop_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + BARRIER_OFFSET;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, 32) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in (first..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _tile in (first..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in (0..ROWS).rev() {
                acc += unsafe { *stage.add(row * COLS + col) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_loop_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + BARRIER_OFFSET;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, 32) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    let count = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut left = count;
        while left > 0 {
            let tile = first + (count - left) * step;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = count;
        while left > 0 {
            pipe.consumer_wait(&state);
            let column = unsafe { ring.add(state.index() as usize * TILE_FLOATS + col) };
            let mut row = ROWS;
            while row > 0 {
                row -= 1;
                acc += unsafe { *column.add(row * COLS) };
            }
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

/// BROKEN: a defensive bound in the consumers' `for` loop, `tile >= tiles - step`, is one step
/// too strict: the block's last tile is skipped, its stage never released, and the producer's
/// tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_loop_guard_breaks_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + BARRIER_OFFSET;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, 32) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in (first..tiles).step_by(step as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for tile in (first..tiles).step_by(step as usize) {
            if tile >= tiles.saturating_sub(step) {
                break;
            }
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS + col) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}
