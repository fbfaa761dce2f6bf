//! Peeled loops: a first tile copied before the producer's loop, a last tile consumed after the
//! consumers' loop, and the same shapes with one tile too many.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

#[inline(always)]
unsafe fn copy_tile(pipe: &Pipeline<4>, st: &mut PipelineState<4>, ring: u32, input: *const f32, t: u32) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

#[inline(always)]
unsafe fn sum_tile(pipe: &Pipeline<4>, st: &mut PipelineState<4>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(st);
    let s = ring.add(st.index() as usize * TILE + col);
    let mut v = 0.0f32;
    for r in 0..8 {
        v += *s.add(r * 32);
    }
    pipe.consumer_release(st);
    st.advance();
    v
}

/// Consumers run their loop while another tile follows, then take the last tile after it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_peel_last_tile_after_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            copy_tile(&pipe, &mut st, window + 1024, input, t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t + g < tiles {
            acc += sum_tile(&pipe, &mut st, ring, tid as usize);
            t += g;
        }
        if t < tiles {
            acc += sum_tile(&pipe, &mut st, ring, tid as usize);
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The producer copies the block's first tile before its loop, which starts one grid step on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_peel_first_tile_before_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 6144, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 6144);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        if b < tiles {
            copy_tile(&pipe, &mut st, window + 2048, input, b);
        }
        let mut t = b + g;
        while t < tiles {
            copy_tile(&pipe, &mut st, window + 2048, input, t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += sum_tile(&pipe, &mut st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: after a full loop the consumers "drain" one more stage; it is never filled, so they
/// wait forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_peel_bad_extra_drain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            copy_tile(&pipe, &mut st, window + 1024, input, t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += sum_tile(&pipe, &mut st, ring, tid as usize);
            t += g;
        }
        if b < tiles {
            acc += sum_tile(&pipe, &mut st, ring, tid as usize);
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the producer copies the first tile before its loop and then starts the loop at the
/// same tile: one copy more than the consumers take, so the producer's tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_peel_bad_prologue_and_full_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 6144, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 6144);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        if b < tiles {
            copy_tile(&pipe, &mut st, window + 2048, input, b);
        }
        let mut t = b;
        while t < tiles {
            copy_tile(&pipe, &mut st, window + 2048, input, t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += sum_tile(&pipe, &mut st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
