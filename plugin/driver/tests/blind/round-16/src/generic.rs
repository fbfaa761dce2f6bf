//! One pipeline body generic over its stage count (and, in the second body, over where the
//! barriers go or how far apart the stages are), instantiated by several entries.
//!
//! Thread 0 produces, warp 1 consumes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const SHARED_BYTES: u32 = 8192;

/// The whole kernel for a ring of `S` stages, `STRIDE` bytes apart from window byte 0, with
/// its barriers at window byte `bars`.
#[inline(always)]
unsafe fn ring_sum<const S: u32, const STRIDE: u32>(input: *const f32, tiles: u32, out: *mut f32, bars: u32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + bars, 32) } else { Pipeline::<S>::attach(window + bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * STRIDE, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add((state.index() * (STRIDE / 4)) as usize) };
            let mut row = 0;
            while row < ROWS {
                acc += unsafe { *stage.add((row * COLS + col) as usize) };
                row += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add((first * COLS + col) as usize) = acc };
    }
}

/// Ring of `S` whole tiles, barriers right after it.
#[inline(always)]
unsafe fn packed<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe { ring_sum::<S, TILE_BYTES>(input, tiles, out, S * TILE_BYTES) }
}

/// Ring of `S` whole tiles, barriers in the last bytes of the window.
#[inline(always)]
unsafe fn bars_at_end<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe { ring_sum::<S, TILE_BYTES>(input, tiles, out, SHARED_BYTES - pipeline_barrier_bytes(S)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_gen_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { packed::<2>(input, tiles, out) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_gen_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { packed::<7>(input, tiles, out) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_gen_bars_at_end_four(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { bars_at_end::<4>(input, tiles, out) }
}

/// BROKEN: with eight stages the ring fills the whole 8 KiB window, and the barriers placed
/// in its last 128 bytes lie inside stage 7: the copy into stage 7 overwrites every barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_gen_bars_at_end_eight(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { bars_at_end::<8>(input, tiles, out) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_gen_stride_five(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { ring_sum::<5, TILE_BYTES>(input, tiles, out, 7 * TILE_BYTES) }
}

/// BROKEN: stages 512 bytes apart for 1 KiB copies: each copy also overwrites the first half
/// of the next stage, which may still be waiting to be read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_gen_stride_half(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { ring_sum::<4, { TILE_BYTES / 2 }>(input, tiles, out, 7 * TILE_BYTES) }
}
