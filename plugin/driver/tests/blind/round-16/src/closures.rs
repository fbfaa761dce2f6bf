//! Pipeline steps as closures: called directly in the tile loop, or handed to a small generic
//! driver that walks the block's tiles.
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

/// Calls `f(tile)` for the tiles `first, first + step, …` below `end`.
#[inline(always)]
fn each_tile<F: FnMut(u32)>(first: u32, end: u32, step: u32, mut f: F) {
    let mut tile = first;
    while tile < end {
        f(tile);
        tile += step;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_closure_direct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut put = |tile: u32| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        };
        let mut tile = first;
        while tile < tiles {
            put(tile);
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut take = || -> f32 {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            let mut sum = 0.0;
            for row in 0..ROWS {
                sum += unsafe { *stage.add(col + row * COLS) };
            }
            pipe.consumer_release(&state);
            state.advance();
            sum
        };
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            acc += take();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_closure_generic_driver(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        each_tile(first, tiles, step, |tile| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        each_tile(first, tiles, step, |_| {
            pipe.consumer_wait(&state);
            let column = unsafe { ring.add(state.index() as usize * TILE_FLOATS + col) };
            let mut row = 0;
            while row < ROWS {
                acc += unsafe { *column.add(row * COLS) };
                row += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
        });
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

/// BROKEN: the consumer closure releases the stage right after locating its column and sums
/// the column afterwards, while the producer may already be refilling that stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_closure_sum_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        each_tile(first, tiles, step, |tile| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        each_tile(first, tiles, step, |_| {
            pipe.consumer_wait(&state);
            let column = unsafe { ring.add(state.index() as usize * TILE_FLOATS + col) };
            // Hand the stage back early so that the producer can start the next copy.
            pipe.consumer_release(&state);
            state.advance();
            for row in 0..ROWS {
                acc += unsafe { *column.add(row * COLS) };
            }
        });
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

/// BROKEN: the consumer closure refuses to advance past the last stage ("the ring has only
/// `STAGES` slots"), so from the fourth tile on it re-reads stage 3; stage 0 is never released
/// a second time and the producer's tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_closure_guarded_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut put = |tile: u32| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        };
        let mut tile = first;
        while tile < tiles {
            put(tile);
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut take = || -> f32 {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            let mut sum = 0.0;
            for row in 0..ROWS {
                sum += unsafe { *stage.add(col + row * COLS) };
            }
            pipe.consumer_release(&state);
            if state.index() + 1 < STAGES {
                state.advance();
            }
            sum
        };
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            acc += take();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}
