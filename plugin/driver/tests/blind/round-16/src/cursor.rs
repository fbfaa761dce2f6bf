//! Pipeline steps written as free helpers: the ring position goes in by `&mut` (advanced in
//! place) or by value (the advanced position comes back in the result).
//!
//! Layout: `STAGES` tiles of 1 KiB from window byte 0, the barriers right after the ring.
//! Thread 0 produces, warp 1 consumes (lane `c` owns column `c`).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;

#[inline(always)]
fn tile_source(input: *const f32, tile: u32) -> *const u8 {
    input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8
}

// ---------------------------------------------------------------------------------------------
// By `&mut`.

const MUT_STAGES: u32 = 4;

fn put_tile(pipe: &Pipeline<MUT_STAGES>, state: &mut PipelineState<MUT_STAGES>, ring: u32, source: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    let destination = ring + state.index() * TILE_BYTES;
    bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

unsafe fn take_column(pipe: &Pipeline<MUT_STAGES>, state: &mut PipelineState<MUT_STAGES>, ring: *const f32, col: u32) -> f32 {
    pipe.consumer_wait(state);
    let stage = unsafe { ring.add((state.index() * TILE_FLOATS) as usize) };
    let mut sum = 0.0;
    let mut row = 0;
    while row < ROWS {
        sum += unsafe { *stage.add((col + row * COLS) as usize) };
        row += 1;
    }
    pipe.consumer_release(state);
    state.advance();
    sum
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_cursor_mut_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let barriers = window + MUT_STAGES * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<MUT_STAGES>::init(barriers, 32) } else { Pipeline::<MUT_STAGES>::attach(barriers) };
    barrier();

    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<MUT_STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            put_tile(&pipe, &mut state, window, tile_source(input, tile));
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid - 32;
        let mut state = PipelineState::<MUT_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            acc += unsafe { take_column(&pipe, &mut state, ring, col) };
            tile += step;
        }
        unsafe { *out.add((first * COLS + col) as usize) = acc };
    }
}

/// BROKEN: the first tile initialises the accumulator and returns before `advance`, so the
/// consumers stay one stage behind: stage 0 is waited and released twice, stage 3 once too
/// few, and the producer's tail waits for a release that never comes.
unsafe fn take_into(
    pipe: &Pipeline<MUT_STAGES>,
    state: &mut PipelineState<MUT_STAGES>,
    ring: *const f32,
    col: u32,
    acc: &mut f32,
    first_tile: bool,
) {
    pipe.consumer_wait(state);
    let stage = unsafe { ring.add((state.index() * TILE_FLOATS) as usize) };
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += unsafe { *stage.add((col + row * COLS) as usize) };
    }
    pipe.consumer_release(state);
    if first_tile {
        *acc = sum;
        return;
    }
    *acc += sum;
    state.advance();
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_cursor_first_tile_no_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let barriers = window + MUT_STAGES * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<MUT_STAGES>::init(barriers, 32) } else { Pipeline::<MUT_STAGES>::attach(barriers) };
    barrier();

    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<MUT_STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            put_tile(&pipe, &mut state, window, tile_source(input, tile));
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid - 32;
        let mut state = PipelineState::<MUT_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            unsafe { take_into(&pipe, &mut state, ring, col, &mut acc, tile == first) };
            tile += step;
        }
        unsafe { *out.add((first * COLS + col) as usize) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// By value: three stages, the helpers hand the next position back.

const VAL_STAGES: u32 = 3;

fn put_tile_value(
    pipe: &Pipeline<VAL_STAGES>,
    mut state: PipelineState<VAL_STAGES>,
    ring: u32,
    source: *const u8,
) -> PipelineState<VAL_STAGES> {
    pipe.producer_acquire(&state);
    pipe.producer_expect_tx(&state, TILE_BYTES);
    bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
    state.advance();
    state
}

unsafe fn take_column_value(
    pipe: &Pipeline<VAL_STAGES>,
    mut state: PipelineState<VAL_STAGES>,
    ring: *const f32,
    col: u32,
) -> (f32, PipelineState<VAL_STAGES>) {
    pipe.consumer_wait(&state);
    let base = (state.index() * TILE_FLOATS + col) as usize;
    let mut sum = 0.0;
    let mut row = 0usize;
    while row < ROWS as usize {
        sum += unsafe { *ring.add(base + row * COLS as usize) };
        row += 1;
    }
    pipe.consumer_release(&state);
    state.advance();
    (sum, state)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_cursor_value_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let barriers = window + VAL_STAGES * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<VAL_STAGES>::init(barriers, 32) } else { Pipeline::<VAL_STAGES>::attach(barriers) };
    barrier();

    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<VAL_STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            state = put_tile_value(&pipe, state, window, tile_source(input, tile));
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid - 32;
        let mut state = PipelineState::<VAL_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            let (sum, next) = unsafe { take_column_value(&pipe, state, ring, col) };
            acc += sum;
            state = next;
            tile += step;
        }
        unsafe { *out.add((first * COLS + col) as usize) = acc };
    }
}

/// BROKEN: the consumers keep only the sum of the helper's result and drop the advanced
/// position, so every tile waits on and releases stage 0; stage 1 is never released and the
/// producer hangs on its second pass.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_cursor_dropped_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let barriers = window + VAL_STAGES * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<VAL_STAGES>::init(barriers, 32) } else { Pipeline::<VAL_STAGES>::attach(barriers) };
    barrier();

    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<VAL_STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            state = put_tile_value(&pipe, state, window, tile_source(input, tile));
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid - 32;
        let state = PipelineState::<VAL_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            acc += unsafe { take_column_value(&pipe, state, ring, col) }.0;
            tile += step;
        }
        unsafe { *out.add((first * COLS + col) as usize) = acc };
    }
}
