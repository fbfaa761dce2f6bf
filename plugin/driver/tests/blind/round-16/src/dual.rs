//! Two pipelines in one kernel: the block's tiles alternate between two rings (even and odd
//! tiles), or every tile is split across two rings (its first four rows in one, its last four
//! in the other).
//!
//! Thread 0 produces into both, warp 1 consumes from both.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;

// ---------------------------------------------------------------------------------------------
// Even and odd tiles: ring A (two stages) at byte 0, ring B (two stages) at byte 2048,
// A's barriers at 4096, B's at 4128.

const EO_STAGES: u32 = 2;
const RING_A: u32 = 0;
const RING_B: u32 = EO_STAGES * TILE_BYTES;
const BARS_A: u32 = 2 * EO_STAGES * TILE_BYTES;
const BARS_B: u32 = BARS_A + 16 * EO_STAGES;

#[inline(always)]
fn fill(pipe: &Pipeline<EO_STAGES>, state: &mut PipelineState<EO_STAGES>, ring: u32, source: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

#[inline(always)]
unsafe fn column_of(ring: *const f32, index: u32, col: usize) -> f32 {
    let stage = unsafe { ring.add(index as usize * TILE_FLOATS + col) };
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += unsafe { *stage.add(row * COLS) };
    }
    sum
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_dual_even_odd(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (even, odd) = if tid == 0 {
        (Pipeline::<EO_STAGES>::init(window + BARS_A, 32), Pipeline::<EO_STAGES>::init(window + BARS_B, 32))
    } else {
        (Pipeline::<EO_STAGES>::attach(window + BARS_A), Pipeline::<EO_STAGES>::attach(window + BARS_B))
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut even_state = PipelineState::<EO_STAGES>::producer_start();
        let mut odd_state = PipelineState::<EO_STAGES>::producer_start();
        let mut tile = first;
        let mut k = 0u32;
        while tile < tiles {
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            if k % 2 == 0 {
                fill(&even, &mut even_state, window + RING_A, source);
            } else {
                fill(&odd, &mut odd_state, window + RING_B, source);
            }
            k += 1;
            tile += step;
        }
        even.producer_tail(even_state);
        odd.producer_tail(odd_state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let smem = dynamic_shared_base::<f32>();
        let ring_a = unsafe { smem.add(RING_A as usize / 4) };
        let ring_b = unsafe { smem.add(RING_B as usize / 4) };
        let mut even_state = PipelineState::<EO_STAGES>::new();
        let mut odd_state = PipelineState::<EO_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        let mut k = 0u32;
        while tile < tiles {
            if k % 2 == 0 {
                even.consumer_wait(&even_state);
                acc += unsafe { column_of(ring_a, even_state.index(), col) };
                even.consumer_release(&even_state);
                even_state.advance();
            } else {
                odd.consumer_wait(&odd_state);
                acc += unsafe { column_of(ring_b, odd_state.index(), col) };
                odd.consumer_release(&odd_state);
                odd_state.advance();
            }
            k += 1;
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

/// BROKEN: in the odd branch, copied from the even one, the wait is on the odd pipeline but
/// the release still goes to the even one: the odd ring is never released and the producer
/// hangs on its second pass over it, while the even ring collects twice its releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_dual_wait_odd_release_even(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (even, odd) = if tid == 0 {
        (Pipeline::<EO_STAGES>::init(window + BARS_A, 32), Pipeline::<EO_STAGES>::init(window + BARS_B, 32))
    } else {
        (Pipeline::<EO_STAGES>::attach(window + BARS_A), Pipeline::<EO_STAGES>::attach(window + BARS_B))
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut even_state = PipelineState::<EO_STAGES>::producer_start();
        let mut odd_state = PipelineState::<EO_STAGES>::producer_start();
        let mut tile = first;
        let mut k = 0u32;
        while tile < tiles {
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            if k % 2 == 0 {
                fill(&even, &mut even_state, window + RING_A, source);
            } else {
                fill(&odd, &mut odd_state, window + RING_B, source);
            }
            k += 1;
            tile += step;
        }
        even.producer_tail(even_state);
        odd.producer_tail(odd_state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let smem = dynamic_shared_base::<f32>();
        let ring_a = unsafe { smem.add(RING_A as usize / 4) };
        let ring_b = unsafe { smem.add(RING_B as usize / 4) };
        let mut even_state = PipelineState::<EO_STAGES>::new();
        let mut odd_state = PipelineState::<EO_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        let mut k = 0u32;
        while tile < tiles {
            if k % 2 == 0 {
                even.consumer_wait(&even_state);
                acc += unsafe { column_of(ring_a, even_state.index(), col) };
                even.consumer_release(&even_state);
                even_state.advance();
            } else {
                odd.consumer_wait(&odd_state);
                acc += unsafe { column_of(ring_b, odd_state.index(), col) };
                even.consumer_release(&odd_state);
                odd_state.advance();
            }
            k += 1;
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// Row halves: ring TOP (four stages of 512 bytes) at byte 0, ring BOTTOM (four of 512) at
// byte 2048; TOP's barriers at 4096, BOTTOM's at 4160.

const RH_STAGES: u32 = 4;
const HALF_BYTES: u32 = TILE_BYTES / 2;
const HALF_FLOATS: usize = TILE_FLOATS / 2;
const RING_TOP: u32 = 0;
const RING_BOTTOM: u32 = RH_STAGES * HALF_BYTES;
const BARS_TOP: u32 = 2 * RH_STAGES * HALF_BYTES;
const BARS_BOTTOM: u32 = BARS_TOP + 16 * RH_STAGES;

#[inline(always)]
unsafe fn half_column(ring: *const f32, index: u32, col: usize) -> f32 {
    let stage = unsafe { ring.add(index as usize * HALF_FLOATS + col) };
    let mut sum = 0.0;
    for row in 0..ROWS / 2 {
        sum += unsafe { *stage.add(row * COLS) };
    }
    sum
}

#[inline(always)]
unsafe fn row_halves(input: *const f32, tiles: u32, out: *mut f32, bottom_signals_top: bool) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let top = if tid == 0 { Pipeline::<RH_STAGES>::init(window + BARS_TOP, 32) } else { Pipeline::<RH_STAGES>::attach(window + BARS_TOP) };
    let bottom = if tid == 0 {
        Pipeline::<RH_STAGES>::init(window + BARS_BOTTOM, 32)
    } else {
        Pipeline::<RH_STAGES>::attach(window + BARS_BOTTOM)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut top_state = PipelineState::<RH_STAGES>::producer_start();
        let mut bottom_state = PipelineState::<RH_STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;

            top.producer_acquire(&top_state);
            top.producer_expect_tx(&top_state, HALF_BYTES);
            bulk_copy_global_to_shared(
                window + RING_TOP + top_state.index() * HALF_BYTES,
                source,
                HALF_BYTES,
                top.producer_barrier(&top_state),
            );
            top_state.advance();

            bottom.producer_acquire(&bottom_state);
            bottom.producer_expect_tx(&bottom_state, HALF_BYTES);
            let full = if bottom_signals_top { top.producer_barrier(&bottom_state) } else { bottom.producer_barrier(&bottom_state) };
            bulk_copy_global_to_shared(
                window + RING_BOTTOM + bottom_state.index() * HALF_BYTES,
                source.wrapping_add(HALF_BYTES as usize),
                HALF_BYTES,
                full,
            );
            bottom_state.advance();

            tile += step;
        }
        top.producer_tail(top_state);
        bottom.producer_tail(bottom_state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let smem = dynamic_shared_base::<f32>();
        let ring_top = unsafe { smem.add(RING_TOP as usize / 4) };
        let ring_bottom = unsafe { smem.add(RING_BOTTOM as usize / 4) };
        let mut top_state = PipelineState::<RH_STAGES>::new();
        let mut bottom_state = PipelineState::<RH_STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            top.consumer_wait(&top_state);
            acc += unsafe { half_column(ring_top, top_state.index(), col) };
            top.consumer_release(&top_state);
            top_state.advance();

            bottom.consumer_wait(&bottom_state);
            acc += unsafe { half_column(ring_bottom, bottom_state.index(), col) };
            bottom.consumer_release(&bottom_state);
            bottom_state.advance();

            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_dual_row_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { row_halves(input, tiles, out, false) }
}

/// BROKEN: the bottom half's copy completes on the top pipeline's full barrier (the barrier
/// lookup was copied from the top half): the bottom ring's full barriers get their arrival but
/// never their bytes, and the consumers hang on the first bottom half.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_dual_bottom_signals_top(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { row_halves(input, tiles, out, true) }
}
