//! Stages that are not one tile: a stage of two tiles (2 KiB, the block's last stage may hold
//! one), and stages of half a tile (512 bytes, each tile crossing the ring in two fills).
//!
//! Thread 0 produces, warp 1 consumes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;

// ---------------------------------------------------------------------------------------------
// Two tiles per stage: three stages of 2 KiB from byte 0, barriers at byte 6144.

const PAIR_STAGES: u32 = 3;
const PAIR_BYTES: u32 = 2 * TILE_BYTES;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stages_two_tiles_each(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + PAIR_STAGES * PAIR_BYTES;
    let pipe = if tid == 0 { Pipeline::<PAIR_STAGES>::init(bars, 32) } else { Pipeline::<PAIR_STAGES>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<PAIR_STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            let second = tile + step < tiles;
            pipe.producer_acquire(&state);
            let destination = window + state.index() * PAIR_BYTES;
            let full = pipe.producer_barrier(&state);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            if second {
                pipe.producer_expect_tx(&state, 2 * TILE_BYTES);
                bulk_copy_global_to_shared(destination, source, TILE_BYTES, full);
                let next = input.wrapping_add((tile + step) as usize * TILE_FLOATS) as *const u8;
                bulk_copy_global_to_shared(destination + TILE_BYTES, next, TILE_BYTES, full);
            } else {
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(destination, source, TILE_BYTES, full);
            }
            state.advance();
            tile += 2 * step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<PAIR_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            let held = if tile + step < tiles { 2 } else { 1 };
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * 2 * TILE_FLOATS + col) };
            for row in 0..held * ROWS {
                acc += unsafe { *stage.add(row * COLS) };
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += 2 * step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// Half a tile per stage: eight stages of 512 bytes from byte 0, barriers at byte 4096.

const HALF_STAGES: u32 = 8;
const HALF_BYTES: u32 = TILE_BYTES / 2;
const HALF_FLOATS: usize = TILE_FLOATS / 2;
const HALF_ROWS: usize = ROWS / 2;

#[inline(always)]
fn produce_halves(pipe: &Pipeline<HALF_STAGES>, window: u32, input: *const f32, first: u32, step: u32, tiles: u32) {
    let mut state = PipelineState::<HALF_STAGES>::producer_start();
    let mut tile = first;
    while tile < tiles {
        let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
        let mut half = 0;
        while half < 2 {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * HALF_BYTES,
                source.wrapping_add((half * HALF_BYTES) as usize),
                HALF_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            half += 1;
        }
        tile += step;
    }
    pipe.producer_tail(state);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stages_half_tile_each(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + HALF_STAGES * HALF_BYTES;
    let pipe = if tid == 0 { Pipeline::<HALF_STAGES>::init(bars, 32) } else { Pipeline::<HALF_STAGES>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        produce_halves(&pipe, window, input, first, step, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<HALF_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            for _half in 0..2 {
                pipe.consumer_wait(&state);
                let stage = unsafe { ring.add(state.index() as usize * HALF_FLOATS + col) };
                for row in 0..HALF_ROWS {
                    acc += unsafe { *stage.add(row * COLS) };
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

/// BROKEN: the consumers still think a stage holds a whole tile: one fill per tile, eight
/// rows read from a 512-byte stage (the second half from the next stage). They take half the
/// fills the producer makes, and its tail waits for releases that never come.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stages_halves_counted_as_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + HALF_STAGES * HALF_BYTES;
    let pipe = if tid == 0 { Pipeline::<HALF_STAGES>::init(bars, 32) } else { Pipeline::<HALF_STAGES>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        produce_halves(&pipe, window, input, first, step, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<HALF_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * HALF_FLOATS + col) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS) };
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}
