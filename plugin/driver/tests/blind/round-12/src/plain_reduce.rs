//! Plain shared memory: reductions. Tree folds in place, warp shuffles over segments of lanes,
//! one warp per parity of the tile stream, and the device API's `block_sum`.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::reduce::{BLOCK_REDUCE_SCRATCH_FLOATS, block_sum, segment_sum};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const COLUMNS: usize = 32;

#[inline(always)]
unsafe fn stage_tile(tile: *mut f32, input: *const f32, t: u32, tid: usize) {
    let src = unsafe { input.add(t as usize * TILE_FLOATS) };
    let mut i = tid;
    while i < TILE_FLOATS {
        unsafe { *tile.add(i) = *src.add(i) };
        i += 64;
    }
}

/// Folds the staged tile in place, 256 → 128 → 64 → 32, a barrier after every level.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_reduce_halving_tree(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(s, input, t, tid) };
        barrier();
        let mut half = TILE_FLOATS / 2;
        while half >= COLUMNS {
            let mut i = tid;
            while i < half {
                unsafe { *s.add(i) += *s.add(i + half) };
                i += 64;
            }
            barrier();
            half /= 2;
        }
        if tid < COLUMNS {
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// The same fold with the last level written out by hand.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_reduce_tree_last_level(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(s, input, t, tid) };
        barrier();
        let mut half = TILE_FLOATS / 2;
        while half > COLUMNS {
            let mut i = tid;
            while i < half {
                unsafe { *s.add(i) += *s.add(i + half) };
                i += 64;
            }
            barrier();
            half /= 2;
        }
        // 64 -> 32
        unsafe { *s.add(tid) += *s.add(tid + COLUMNS) };
        barrier();
        if tid < COLUMNS {
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// The fold over an array of level widths, one barrier once the levels are done.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_reduce_tree_levels_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(s, input, t, tid) };
        barrier();
        for half in [128usize, 64, 32] {
            let mut i = tid;
            while i < half {
                unsafe { *s.add(i) += *s.add(i + half) };
                i += 64;
            }
        }
        barrier();
        if tid < COLUMNS {
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Warp shuffles: in each of four passes, the 8-lane segment `lane / 8` of warp `w` reads the
/// eight rows of column `pass * 8 + w * 4 + lane / 8` and sums them with `segment_sum`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_reduce_warp_segments(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let lane = tid % 32;
    let warp = tid / 32;
    let row = lane % 8;
    let group = lane / 8;
    let s: *mut f32 = dynamic_shared_base();
    let mut acc = [0.0f32; 4];
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(s, input, t, tid) };
        barrier();
        for (pass, slot) in acc.iter_mut().enumerate() {
            let column = pass * 8 + warp * 4 + group;
            let value = unsafe { *s.add(column + COLUMNS * row) };
            *slot += segment_sum(value, 8);
        }
        barrier();
        t += grid_dim_x();
    }
    if row < 4 {
        let column = row * 8 + warp * 4 + group;
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + column) = acc[row] };
    }
}

/// Warp shuffles over segments, each warp staging the half of the tile it works on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_reduce_warp_segments_own_half(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let lane = tid % 32;
    let warp = tid / 32;
    let row = lane % 8;
    let group = lane / 8;
    let s: *mut f32 = dynamic_shared_base();
    let mut acc = [0.0f32; 4];
    let mut t = block_idx_x();
    while t < tiles {
        // Each warp copies 128 floats; its lanes then read only columns of its own half.
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        for k in 0..4 {
            let i = warp * 128 + lane + 32 * k;
            unsafe { *s.add(i) = *src.add(i) };
        }
        for (pass, slot) in acc.iter_mut().enumerate() {
            let column = pass * 8 + warp * 4 + group;
            let value = unsafe { *s.add(column + COLUMNS * row) };
            *slot += segment_sum(value, 8);
        }
        barrier();
        t += grid_dim_x();
    }
    if row < 4 {
        let column = row * 8 + warp * 4 + group;
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + column) = acc[row] };
    }
}

/// Warp `w` takes every other tile of the block's stream straight from global memory; warp 1
/// hands its column sums to warp 0 through shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_reduce_warp_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let lane = tid % 32;
    let warp = tid / 32;
    let step = grid_dim_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize + warp * step;
    while t < tiles as usize {
        let src = unsafe { input.add(t * TILE_FLOATS + lane) };
        for k in 0..8 {
            acc += unsafe { *src.add(COLUMNS * k) };
        }
        t += 2 * step;
    }
    let partial: *mut f32 = dynamic_shared_base();
    if warp == 1 {
        unsafe { *partial.add(lane) = acc };
    }
    barrier();
    if warp == 0 {
        let total = acc + unsafe { *partial.add(lane) };
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + lane) = total };
    }
}

/// Both warps take every other tile and publish their column sums; warp 0 adds them up.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_reduce_warp_partials(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let lane = tid % 32;
    let warp = tid / 32;
    let step = grid_dim_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize + warp * step;
    while t < tiles as usize {
        let src = unsafe { input.add(t * TILE_FLOATS + lane) };
        for k in 0..8 {
            acc += unsafe { *src.add(COLUMNS * k) };
        }
        t += 2 * step;
    }
    let partial: *mut f32 = dynamic_shared_base();
    unsafe { *partial.add(lane) = acc };
    barrier();
    if warp == 0 {
        let total = unsafe { *partial.add(lane) + *partial.add(lane + COLUMNS) };
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + lane) = total };
    }
}

/// One `block_sum` per column: thread `tid` contributes row `tid % 8` of every eighth tile of
/// the block's stream, starting at the `tid / 8`-th.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_reduce_block_sum_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let scratch: *mut f32 = dynamic_shared_base();
    let step = grid_dim_x() as usize;
    let first = block_idx_x() as usize + (tid / 8) * step;
    let row = tid % 8;
    for column in 0..COLUMNS {
        let mut value = 0.0f32;
        let mut t = first;
        while t < tiles as usize {
            value += unsafe { *input.add(t * TILE_FLOATS + column + COLUMNS * row) };
            t += 8 * step;
        }
        let total = block_sum(value, scratch);
        if tid == column {
            unsafe { *out.add(block_idx_x() as usize * COLUMNS + column) = total };
        }
    }
}

/// The tile is staged by the block; only warp 0 holds the rows, so only warp 0 reduces them
/// with `block_sum`, one column at a time.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_reduce_block_sum_warp_zero(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let scratch: *mut f32 = dynamic_shared_base();
    let tile = unsafe { scratch.add(BLOCK_REDUCE_SCRATCH_FLOATS) };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(tile, input, t, tid) };
        barrier();
        if tid < COLUMNS {
            for column in 0..COLUMNS {
                let value = if tid < 8 { unsafe { *tile.add(column + COLUMNS * tid) } } else { 0.0 };
                let total = block_sum(value, scratch);
                if tid == column {
                    acc += total;
                }
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}
