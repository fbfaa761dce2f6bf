//! Plain shared-memory kernels with wrong shared-memory arithmetic or synchronisation: strides
//! and units, scratch indices, element types, a tree level without its barrier, a fence where a
//! barrier belongs.

use core::sync::atomic::{Ordering, fence};

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;

#[inline(always)]
unsafe fn stage_quads(smem: *mut f32, src: *const f32, tid: usize) {
    unsafe { *(smem as *mut [f32; 4]).add(tid) = *(src as *const [f32; 4]).add(tid) };
}

/// Staging in pairs of floats, two pairs per thread, the second pair a warp further.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_pair_stride_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let pairs = dynamic_shared_base::<[f32; 2]>();
    let floats = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { (input as *const [f32; 2]).add(t as usize * TILE / 2) };
        for j in 0..2 {
            let p = tid + COLS * j;
            unsafe { *pairs.add(p) = *src.add(p) };
        }
        barrier();
        if warp_id() == 0 {
            let lane = lane_id() as usize;
            for k in 0..ROWS {
                acc += unsafe { *floats.add(k * COLS + lane) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if warp_id() == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + lane_id() as usize) = acc };
    }
}

/// A strided column sum helper written for an integer table, reused on the staged tile.
#[inline(never)]
unsafe fn sum_strided(p: *const u32, start: usize, stride: usize, n: usize) -> f32 {
    let mut s = 0.0f32;
    for i in 0..n {
        s += unsafe { *p.add(start + i * stride) } as f32;
    }
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_u32_helper_pun(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let words = dynamic_shared_base::<u32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_quads(words as *mut f32, input.add(t as usize * TILE), tid) };
        barrier();
        if tid < COLS {
            acc += unsafe { sum_strided(words, tid, COLS, ROWS) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Four tile slots staged as quads; the slot offset is taken in floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_quad_slot_units(input: *const f32, tiles: u32, out: *mut f32) {
    const SLOTS: usize = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x() as usize;
    let g = grid_dim_x() as usize;
    let quads = dynamic_shared_base::<[f32; 4]>();
    let floats = dynamic_shared_base::<f32>();
    let src = input as *const [f32; 4];
    let mut acc = 0.0f32;
    let mut first = b;
    while first < tiles as usize {
        let n = (tiles as usize - first).div_ceil(g).min(SLOTS);
        for slot in 0..n {
            let t = first + slot * g;
            unsafe { *quads.add(slot * TILE + tid) = *src.add(t * TILE / 4 + tid) };
        }
        barrier();
        if tid < COLS {
            for slot in 0..n {
                for k in 0..ROWS {
                    acc += unsafe { *floats.add(slot * TILE + k * COLS + tid) };
                }
            }
        }
        barrier();
        first += n * g;
    }
    if tid < COLS {
        unsafe { *out.add(b * COLS + tid) = acc };
    }
}

/// The rows of the staged tile are folded in place, halving each level (8 → 4 → 2 → 1); the
/// last level, row 1 into row 0, is left to warp 0 without a barrier before it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_row_tree_last_level_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe {
            stage_quads(smem, input.add(t as usize * TILE), tid);
            barrier();
            let mut half = ROWS / 2;
            while half > 0 {
                let mut i = tid;
                while i < half * COLS {
                    *smem.add(i) += *smem.add(i + half * COLS);
                    i += THREADS;
                }
                half /= 2;
                if half > 1 {
                    barrier();
                }
            }
            if tid < COLS {
                acc += *smem.add(tid);
            }
            barrier();
        }
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Double buffering with one barrier per tile, both warps summing half the rows; after the
/// last tile warp 1 hands its sums over through the buffer that tile used.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_double_buffer_tail_reuse(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (half, col) = (tid / COLS, tid % COLS);
    let smem = dynamic_shared_base::<f32>();
    let mut partial = 0.0f32;
    let mut parity = 0usize;
    let mut t = block_idx_x();
    while t < tiles {
        let buf = smem.wrapping_add(parity * TILE);
        unsafe { stage_quads(buf, input.add(t as usize * TILE), tid) };
        barrier();
        for k in (half * 4..half * 4 + 4).rev() {
            partial += unsafe { *buf.add(k * COLS + col) };
        }
        parity ^= 1;
        t += grid_dim_x();
    }
    let last = smem.wrapping_add((parity ^ 1) * TILE);
    if half == 1 {
        unsafe { *last.add(col) = partial };
    }
    barrier();
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = partial + *last.add(col) };
    }
}

/// Each thread parks its half-column partial in a 64-float scratch area at its lane.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_scratch_index_lane(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let lane = lane_id() as usize;
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.wrapping_add(TILE);
    let rows = if warp_id() == 0 { 0..ROWS / 2 } else { ROWS / 2..ROWS };
    let mut partial = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_quads(smem, input.add(t as usize * TILE), tid) };
        barrier();
        for k in rows.clone() {
            partial += unsafe { *smem.add(k * COLS + lane) };
        }
        barrier();
        t += grid_dim_x();
    }
    unsafe { *scratch.add(lane) = partial };
    barrier();
    if warp_id() == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = *scratch.add(lane) + *scratch.add(lane + COLS) };
    }
}

/// Scratch at the start of the window, the tile in its last KiB; the rows are summed by a
/// count-down loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_countdown_rows_tile_at_end(input: *const f32, tiles: u32, out: *mut f32) {
    const WINDOW_FLOATS: usize = 8192 / 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let tile = smem.wrapping_add(WINDOW_FLOATS - TILE);
    let scratch = smem;
    let (half, col) = (tid / COLS, tid % COLS);
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_quads(tile, input.add(t as usize * TILE), tid) };
        barrier();
        if half == 0 {
            let mut k = ROWS;
            while k > 0 {
                acc += unsafe { *tile.add(k * COLS + col) };
                k -= 1;
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if half == 0 {
        unsafe { *scratch.add(col) = acc };
    }
    barrier();
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = *scratch.add(col) };
    }
}

/// A memory fence between staging and summing, where the block needs a barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_fence_instead_of_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_quads(smem, input.add(t as usize * TILE), tid) };
        fence(Ordering::SeqCst);
        if tid < COLS {
            for k in 0..ROWS {
                acc += unsafe { *smem.add(k * COLS + tid) };
            }
        }
        fence(Ordering::SeqCst);
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}
