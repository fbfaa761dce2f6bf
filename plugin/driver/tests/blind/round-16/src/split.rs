//! A stage filled by several bulk copies: two halves of 512 bytes, or four quarters of 256
//! bytes in an inner loop, all announced by one `expect_tx` of the whole tile.
//!
//! Layout: four 1 KiB stages from window byte 0, barriers at byte 4096. Thread 0 produces,
//! warp 1 consumes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF_BYTES: u32 = TILE_BYTES / 2;
const QUARTERS: u32 = 4;
const QUARTER_BYTES: u32 = TILE_BYTES / QUARTERS;
const ROWS: usize = 8;
const COLS: usize = 32;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

/// The consumers' side, the same in every kernel of this file.
#[inline(always)]
unsafe fn consume_all(pipe: &Pipeline<STAGES>, first: u32, step: u32, tiles: u32, col: usize, out: *mut f32) {
    let ring = dynamic_shared_base::<f32>();
    let mut state = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        pipe.consumer_wait(&state);
        let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
        for row in 0..ROWS {
            acc += unsafe { *stage.add(row * COLS + col) };
        }
        pipe.consumer_release(&state);
        state.advance();
        tile += step;
    }
    unsafe { *out.add(first as usize * COLS + col) = acc };
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
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
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            let destination = window + state.index() * TILE_BYTES;
            let full = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(destination, source, HALF_BYTES, full);
            bulk_copy_global_to_shared(destination + HALF_BYTES, source.wrapping_add(HALF_BYTES as usize), HALF_BYTES, full);
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        unsafe { consume_all(&pipe, first, step, tiles, (tid - 32) as usize, out) };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_split_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
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
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, QUARTERS * QUARTER_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            let destination = window + state.index() * TILE_BYTES;
            for quarter in 0..QUARTERS {
                let offset = quarter * QUARTER_BYTES;
                bulk_copy_global_to_shared(
                    destination + offset,
                    source.wrapping_add(offset as usize),
                    QUARTER_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        unsafe { consume_all(&pipe, first, step, tiles, (tid - 32) as usize, out) };
    }
}

/// BROKEN: the second half is copied only `if tile + 1 < tiles` (a bounds check meant for the
/// input's end): for the very last tile (block 7's) only 512 of the 1024 announced bytes
/// arrive, that stage's full barrier never completes and block 7 hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_split_guarded_second_half(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
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
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            let destination = window + state.index() * TILE_BYTES;
            let full = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(destination, source, HALF_BYTES, full);
            if tile + 1 < tiles {
                bulk_copy_global_to_shared(destination + HALF_BYTES, source.wrapping_add(HALF_BYTES as usize), HALF_BYTES, full);
            }
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        unsafe { consume_all(&pipe, first, step, tiles, (tid - 32) as usize, out) };
    }
}

/// BROKEN: each half announces its own 512 bytes: two `expect_tx` arrivals per stage on a
/// full barrier initialised for one, so the phase accounting breaks (the first half's
/// arrival and bytes can complete the phase before the second half lands, and the second
/// arrival has no phase to count in).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_split_expect_per_half(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
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
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            let destination = window + state.index() * TILE_BYTES;
            for half in 0..2u32 {
                pipe.producer_expect_tx(&state, HALF_BYTES);
                bulk_copy_global_to_shared(
                    destination + half * HALF_BYTES,
                    source.wrapping_add((half * HALF_BYTES) as usize),
                    HALF_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        unsafe { consume_all(&pipe, first, step, tiles, (tid - 32) as usize, out) };
    }
}
