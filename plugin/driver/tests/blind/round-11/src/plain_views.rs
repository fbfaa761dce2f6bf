//! Plain shared memory through views: `slice::from_raw_parts`, `chunks`, `split_at`, iterator
//! adaptors (`skip`, `step_by`, `take`, `zip`, `enumerate`, `rev`, `fold`, `sum`) and
//! `ptr::copy_nonoverlapping` for staging. Only ordinary shared memory and block barriers.

use core::ptr::copy_nonoverlapping;
use core::slice::from_raw_parts;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;

/// Copies this thread's four contiguous floats of tile `t` into `slot`.
#[inline(always)]
unsafe fn stage_quad(input: *const f32, t: usize, slot: *mut f32, tid: usize) {
    unsafe { copy_nonoverlapping(input.add(t * TILE + tid * 4), slot.add(tid * 4), 4) };
}

/// Correct: each thread stages its quad with `copy_nonoverlapping`; after the barrier warp 0 sums
/// its column as `tile.iter().skip(c).step_by(32).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_copy_then_step_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        unsafe { stage_quad(input, t, s, tid) };
        barrier();
        if tid < COLS {
            let tile = unsafe { from_raw_parts(s as *const f32, TILE) };
            acc += tile.iter().skip(tid).step_by(COLS).sum::<f32>();
        }
        barrier();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: staging indexes a slice of the source tile with a `step_by(64)` loop; warp 0 reads
/// the staged tile as `chunks(32)` rows and picks its column from each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_chunks_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        let src = unsafe { from_raw_parts(input.add(t * TILE), TILE) };
        for i in (tid..TILE).step_by(64) {
            unsafe { *s.add(i) = src[i] };
        }
        barrier();
        if tid < COLS {
            let tile = unsafe { from_raw_parts(s as *const f32, TILE) };
            acc += tile.chunks(COLS).map(|row| row[tid]).sum::<f32>();
        }
        barrier();
        t += grid_dim_x() as usize;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: both warps read: warp `h` folds the four rows of the half-tile slice
/// `s[128h..128h + 128]`; at the end each thread parks its partial at `s[tid]` and, after a
/// barrier, warp 0 adds the two halves of `split_at(32)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let mut part = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        unsafe { stage_quad(input, t, s, tid) };
        barrier();
        let rows = unsafe { from_raw_parts(s.add(half * 128) as *const f32, 128) };
        part += rows.iter().skip(col).step_by(COLS).fold(0.0, |a, x| a + x);
        barrier();
    }
    unsafe { *s.add(tid) = part };
    barrier();
    if half == 0 {
        let scratch = unsafe { from_raw_parts(s as *const f32, 64) };
        let (lo, hi) = scratch.split_at(COLS);
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = lo[col] + hi[col] };
    }
}

/// Correct: staging walks the source slice with `enumerate().skip(tid).step_by(64)`; warp 0
/// folds its column over the rows in reverse order.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_enumerate_rev_fold(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        let src = unsafe { from_raw_parts(input.add(t * TILE), TILE) };
        for (i, v) in src.iter().enumerate().skip(tid).step_by(64) {
            unsafe { *s.add(i) = *v };
        }
        barrier();
        if tid < COLS {
            acc += (0..8).rev().fold(0.0f32, |a, r| a + unsafe { *s.add(tid + COLS * r) });
        }
        barrier();
        t += grid_dim_x() as usize;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: warp 0 sums `tile[c..].iter().step_by(32).take(8)`; staging is a `zip` of the
/// source and destination quads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_tail_slice_take(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        let src = unsafe { from_raw_parts(input.add(t * TILE + tid * 4), 4) };
        for (k, v) in (0..4usize).zip(src.iter()) {
            unsafe { *s.add(tid * 4 + k) = *v };
        }
        barrier();
        if tid < COLS {
            let tile = unsafe { from_raw_parts(s as *const f32, TILE) };
            acc += tile[tid..].iter().step_by(COLS).take(8).sum::<f32>();
        }
        barrier();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: double buffering with one barrier per tile: the next tile goes into the other slot
/// (`slot ^ 1`) while warp 0 reads this one; the barrier at the end of the iteration orders both
/// the new slot's stores before its reads and this slot's reads before it is refilled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let grid = grid_dim_x() as usize;
    let tiles = tiles as usize;
    let mut acc = 0.0f32;
    let mut slot = 0usize;
    let mut t = block_idx_x() as usize;
    if t < tiles {
        unsafe { stage_quad(input, t, s, tid) };
    }
    barrier();
    while t < tiles {
        let next = t + grid;
        if next < tiles {
            unsafe { stage_quad(input, next, s.add((slot ^ 1) * TILE), tid) };
        }
        if tid < COLS {
            let tile = unsafe { from_raw_parts(s.add(slot * TILE) as *const f32, TILE) };
            acc += tile.iter().skip(tid).step_by(COLS).sum::<f32>();
        }
        barrier();
        slot ^= 1;
        t = next;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the staging copy is not followed by a barrier before warp 0 sums (only the trailing
/// barrier is kept), so warp 0 reads the elements warp 1 copies (odd rows' quads) before they land.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_copy_missing_publish(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        unsafe { stage_quad(input, t, s, tid) };
        if tid < COLS {
            let tile = unsafe { from_raw_parts(s as *const f32, TILE) };
            acc += tile.iter().skip(tid).step_by(COLS).sum::<f32>();
        }
        barrier();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: both warps park their partial at `s[col]` (the `half * 32` offset forgotten), so the
/// two stores race on one slot and warp 0 then adds whichever won to its own partial.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_halves_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let mut part = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        unsafe { stage_quad(input, t, s, tid) };
        barrier();
        let rows = unsafe { from_raw_parts(s.add(half * 128) as *const f32, 128) };
        part += rows.iter().skip(col).step_by(COLS).sum::<f32>();
        barrier();
    }
    unsafe { *s.add(col) = part };
    barrier();
    if half == 0 {
        let other = unsafe { *s.add(col) };
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = part + other };
    }
}

/// Broken: the double buffer prefetches the next tile into `slot` (the one warp 0 is reading)
/// instead of `slot ^ 1`, overwriting the tile under the readers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_double_buffer_same_slot(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let grid = grid_dim_x() as usize;
    let tiles = tiles as usize;
    let mut acc = 0.0f32;
    let mut slot = 0usize;
    let mut t = block_idx_x() as usize;
    if t < tiles {
        unsafe { stage_quad(input, t, s, tid) };
    }
    barrier();
    while t < tiles {
        let next = t + grid;
        let target = unsafe { s.add(slot * TILE) };
        if next < tiles {
            unsafe { stage_quad(input, next, target, tid) };
        }
        if tid < COLS {
            let tile = unsafe { from_raw_parts(s.add(slot * TILE) as *const f32, TILE) };
            acc += tile.iter().skip(tid).step_by(COLS).sum::<f32>();
        }
        barrier();
        slot ^= 1;
        t = next;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the partials area is placed "after one slot per tile" (`tiles * 256` floats = 64 KiB
/// in), far past the 8 KiB of shared memory the launch provides: out-of-bounds shared accesses.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_view_partials_past_window(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let partials = unsafe { s.add(tiles as usize * TILE) };
    let mut part = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        unsafe { stage_quad(input, t, s, tid) };
        barrier();
        let rows = unsafe { from_raw_parts(s.add(half * 128) as *const f32, 128) };
        part += rows.iter().skip(col).step_by(COLS).sum::<f32>();
        barrier();
    }
    unsafe { *partials.add(tid) = part };
    barrier();
    if half == 0 {
        let scratch = unsafe { from_raw_parts(partials as *const f32, 64) };
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = scratch[col] + scratch[col + COLS] };
    }
}
