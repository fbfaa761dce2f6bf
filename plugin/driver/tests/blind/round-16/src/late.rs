//! Consumers that hold a stage longer: the previous stage is released only once the next one
//! has landed (CUTLASS's consumer order), and a one-warp kernel whose lane 0 refills the ring
//! from inside the consumer loop.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;

// ---------------------------------------------------------------------------------------------
// Release one tile late. Four stages from byte 0, barriers at byte 4096; thread 0 produces,
// warp 1 consumes.

const LATE_STAGES: u32 = 4;

#[inline(always)]
unsafe fn late_release(input: *const f32, tiles: u32, out: *mut f32, release_last: bool) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + LATE_STAGES * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<LATE_STAGES>::init(bars, 32) } else { Pipeline::<LATE_STAGES>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<LATE_STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let col = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<LATE_STAGES>::new();
        let mut held = state;
        let mut holding = false;
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS + col) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS) };
            }
            if holding {
                pipe.consumer_release(&held);
            }
            held = state;
            holding = true;
            state.advance();
            tile += step;
        }
        if holding && release_last {
            pipe.consumer_release(&held);
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_late_release_previous(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { late_release(input, tiles, out, true) }
}

/// BROKEN: the loop releases each stage one tile late, and nothing releases the stage still
/// held after the loop: the producer's tail waits for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_late_release_forgets_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { late_release(input, tiles, out, false) }
}

// ---------------------------------------------------------------------------------------------
// One warp does everything: lanes 0..32 consume, lane 0 also keeps the ring full from inside
// the loop, `PRIME` tiles ahead. Two stages from byte 0, barriers at byte 2048. Warp 1 has
// nothing to do.

const ONE_WARP_STAGES: u32 = 2;

#[inline(always)]
unsafe fn one_warp<const PRIME: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + ONE_WARP_STAGES * TILE_BYTES;
    let pipe = if tid == 0 {
        Pipeline::<ONE_WARP_STAGES>::init(bars, 32)
    } else {
        Pipeline::<ONE_WARP_STAGES>::attach(bars)
    };
    barrier();
    if warp_id() != 0 {
        return;
    }
    let first = block_idx_x();
    let step = grid_dim_x();
    let count = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };
    let lane = lane_id();

    let mut produced = PipelineState::<ONE_WARP_STAGES>::producer_start();
    let mut issued = 0u32;
    if lane == 0 {
        while issued < count.min(PRIME) {
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            let source = input.wrapping_add((first + issued * step) as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + produced.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&produced));
            produced.advance();
            issued += 1;
        }
    }

    let ring = dynamic_shared_base::<f32>();
    let mut consumed = PipelineState::<ONE_WARP_STAGES>::new();
    let mut acc = 0.0f32;
    let mut k = 0;
    while k < count {
        pipe.consumer_wait(&consumed);
        let stage = unsafe { ring.add(consumed.index() as usize * TILE_FLOATS) };
        for row in 0..ROWS {
            acc += unsafe { *stage.add(row * COLS + lane as usize) };
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        if lane == 0 && issued < count {
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            let source = input.wrapping_add((first + issued * step) as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + produced.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&produced));
            produced.advance();
            issued += 1;
        }
        k += 1;
    }
    if lane == 0 {
        pipe.producer_tail(produced);
    }
    unsafe { *out.add(first as usize * COLS + lane as usize) = acc };
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_late_one_warp_refills(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { one_warp::<ONE_WARP_STAGES>(input, tiles, out) }
}

/// BROKEN: lane 0 primes the ring with one tile more than it has stages ("keep one extra in
/// flight"): the third acquire waits for stage 0 to be released, which lane 0 itself would do
/// only after it gets past that acquire. The warp deadlocks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_late_prime_one_too_many(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { one_warp::<{ ONE_WARP_STAGES + 1 }>(input, tiles, out) }
}
