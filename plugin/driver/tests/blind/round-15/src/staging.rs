//! Plain shared memory, no pipeline: the whole block stages each tile into shared memory with
//! ordinary loads and stores (thread `t` copies floats `t, t + 64, t + 128, t + 192`), a block
//! barrier publishes it, and the columns are summed from shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const W: usize = 32;

#[inline(always)]
unsafe fn copy_in(src: *const f32, dst: *mut f32, tid: usize, stride: usize) {
    let mut k = tid;
    while k < TILE {
        unsafe { *dst.add(k) = *src.add(k) };
        k += stride;
    }
}

/// Stage, barrier, warp 0 sums its column, barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_two_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { copy_in(input.add(t as usize * TILE), s, tid, 64) };
        barrier();
        if tid < W {
            for r in 0..8 {
                acc += unsafe { *s.add(r * W + tid) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < W {
        unsafe { *out.add(block_idx_x() as usize * W + tid) = acc };
    }
}

/// BROKEN: no barrier between staging and summing: warp 0 reads the odd rows that warp 1 is
/// still storing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_no_publish_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { copy_in(input.add(t as usize * TILE), s, tid, 64) };
        if tid < W {
            for r in 0..8 {
                acc += unsafe { *s.add(r * W + tid) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < W {
        unsafe { *out.add(block_idx_x() as usize * W + tid) = acc };
    }
}

/// BROKEN: no barrier after the sums: warp 1 goes on to stage the next tile over the one warp 0
/// is still reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_no_reuse_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { copy_in(input.add(t as usize * TILE), s, tid, 64) };
        barrier();
        if tid < W {
            for r in 0..8 {
                acc += unsafe { *s.add(r * W + tid) };
            }
        }
        t += grid_dim_x();
    }
    if tid < W {
        unsafe { *out.add(block_idx_x() as usize * W + tid) = acc };
    }
}

/// Two slots used alternately: one barrier per tile suffices, since a slot is refilled only
/// after the barrier that follows its last read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut parity = 0usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let slot = unsafe { s.add(parity * TILE) };
        unsafe { copy_in(input.add(t as usize * TILE), slot, tid, 64) };
        barrier();
        if tid < W {
            for r in 0..8 {
                acc += unsafe { *slot.add(r * W + tid) };
            }
        }
        parity ^= 1;
        t += grid_dim_x();
    }
    if tid < W {
        unsafe { *out.add(block_idx_x() as usize * W + tid) = acc };
    }
}

/// BROKEN: as `r15_stage_double_buffer`, but only the summing warp flips its slot: warp 1 keeps
/// staging into slot 0, so on odd tiles warp 0 reads half a tile that was never stored there.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_double_buffer_one_warp_flips(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut parity = 0usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let slot = unsafe { s.add(parity * TILE) };
        unsafe { copy_in(input.add(t as usize * TILE), slot, tid, 64) };
        barrier();
        if tid < W {
            for r in 0..8 {
                acc += unsafe { *slot.add(r * W + tid) };
            }
            parity ^= 1;
        }
        t += grid_dim_x();
    }
    if tid < W {
        unsafe { *out.add(block_idx_x() as usize * W + tid) = acc };
    }
}

/// Both warps sum four rows of their column; the partials meet in shared memory after the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_half_rows_partials(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (lane, half) = (tid % W, tid / W);
    let s = dynamic_shared_base::<f32>();
    let partials = unsafe { s.add(TILE) };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { copy_in(input.add(t as usize * TILE), s, tid, 64) };
        barrier();
        let mut mine = 0.0f32;
        for r in half * 4..half * 4 + 4 {
            mine += unsafe { *s.add(r * W + lane) };
        }
        unsafe { *partials.add(tid) = mine };
        barrier();
        if half == 0 {
            acc += unsafe { *partials.add(lane) + *partials.add(W + lane) };
        }
        t += grid_dim_x();
    }
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * W + lane) = acc };
    }
}

/// BROKEN: as `r15_stage_half_rows_partials`, but warp 0 combines before the barrier that
/// publishes warp 1's partials.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_combine_before_publish(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (lane, half) = (tid % W, tid / W);
    let s = dynamic_shared_base::<f32>();
    let partials = unsafe { s.add(TILE) };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { copy_in(input.add(t as usize * TILE), s, tid, 64) };
        barrier();
        let mut mine = 0.0f32;
        for r in half * 4..half * 4 + 4 {
            mine += unsafe { *s.add(r * W + lane) };
        }
        unsafe { *partials.add(tid) = mine };
        if half == 0 {
            acc += unsafe { *partials.add(lane) + *partials.add(W + lane) };
        }
        barrier();
        t += grid_dim_x();
    }
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * W + lane) = acc };
    }
}

/// BROKEN: the staging loop steps by a warp (32) instead of the block (64): threads `t` and
/// `t + 32` store the same floats, and rows 5..7 are never staged.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_warp_stride_copy(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        for k in 0..4 {
            unsafe { *s.add(tid + W * k) = *src.add(tid + W * k) };
        }
        barrier();
        if tid < W {
            for r in 0..8 {
                acc += unsafe { *s.add(r * W + tid) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < W {
        unsafe { *out.add(block_idx_x() as usize * W + tid) = acc };
    }
}

/// BROKEN: warp 1 leaves at the top of the tile loop ("it has no column to sum"), before doing
/// its share of the staging; the odd rows are never stored (if the barriers let warp 0 on).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_upper_warp_leaves_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid >= W {
            return;
        }
        unsafe { copy_in(input.add(t as usize * TILE), s, tid, 64) };
        barrier();
        for r in 0..8 {
            acc += unsafe { *s.add(r * W + tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < W {
        unsafe { *out.add(block_idx_x() as usize * W + tid) = acc };
    }
}

/// Rows are staged by warp (warp `w` copies rows `w, w + 2, …` as whole rows), then each warp-0
/// lane sums its column; an early return keeps warp 1 out of the final store only.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_stage_rows_by_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (lane, warp) = (tid % W, tid / W);
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        for row in (warp..8).step_by(2) {
            unsafe { *s.add(row * W + lane) = *src.add(row * W + lane) };
        }
        barrier();
        if warp == 0 {
            acc = (0..8).fold(acc, |a, row| a + unsafe { *s.add(row * W + lane) });
        }
        barrier();
        t += grid_dim_x();
    }
    if warp != 0 {
        return;
    }
    unsafe { *out.add(block_idx_x() as usize * W + lane) = acc };
}
