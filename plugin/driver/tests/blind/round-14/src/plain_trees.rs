//! Plain shared memory: reductions. A tree over the rows of a staged tile, per-thread partials
//! combined through scratch, pairs of lanes combined with a shuffle.

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const BLOCK: usize = 64;

/// Stages tile `t` into `s[0..256]`: four strided slots per thread.
///
/// # Safety
/// `s` is the shared window, `tid < 64`, `input` holds tile `t`.
#[inline(always)]
unsafe fn stage_strided(s: *mut f32, input: *const f32, t: u32, tid: usize) {
    let tile = input.wrapping_add(t as usize * TILE);
    let mut i = tid;
    while i < TILE {
        // SAFETY: the caller's contract; one writer per slot.
        unsafe { *s.add(i) = *tile.add(i) };
        i += BLOCK;
    }
}

/// Per tile, a tree over the rows: rows `0..half` += rows `half..2·half` for half = 4, 2, 1,
/// with a barrier after each level; warp 0 then adds row 0 to its totals.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_tree_rows_halving(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: `tid < 64`, tile `t` exists.
        unsafe { stage_strided(s, input, t, tid) };
        barrier();
        let mut half = 4usize;
        while half > 0 {
            let span = half * COLS;
            let mut i = tid;
            while i < span {
                // SAFETY: `i < span <= 128` and `i + span < 256`; this level writes below
                // `span` and reads at or above it.
                unsafe { *s.add(i) += *s.add(i + span) };
                i += BLOCK;
            }
            barrier();
            half /= 2;
        }
        if tid < COLS {
            // SAFETY: row 0 holds the column sums.
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Both warps sum half the rows; partials go to 64 scratch floats at byte 2048 and warp 0 reads
/// its pair back through a slice with `skip(c).step_by(32)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_tree_scratch_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    const SCRATCH: usize = 512;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let c = tid % COLS;
    let rows = if tid < COLS { 0..4 } else { 4..8 };
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: as in `stage_strided`'s contract.
        unsafe { stage_strided(s, input, t, tid) };
        barrier();
        for r in rows.clone() {
            // SAFETY: inside the staged tile.
            acc += unsafe { *s.add(r * COLS + c) };
        }
        barrier();
        t += g;
    }
    // SAFETY: floats 512..576, clear of the tile.
    unsafe { *s.add(SCRATCH + tid) = acc };
    barrier();
    if tid < COLS {
        // SAFETY: the 64 scratch floats, all written before the barrier.
        let scratch = unsafe { slice::from_raw_parts(s.add(SCRATCH) as *const f32, BLOCK) };
        let total: f32 = scratch.iter().skip(c).step_by(COLS).sum();
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = total };
    }
}

/// Adjacent threads share a column (`tid = 2c + h`), `h` taking the rows of its parity;
/// partials land in scratch at byte 1024 and thread `c` adds slots `2c` and `2c + 1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_tree_pairs_adjacent(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let c = tid >> 1;
    let h = tid & 1;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let scratch = s.wrapping_add(TILE);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let quad = input.wrapping_add(t as usize * TILE + 4 * tid).cast::<[f32; 4]>();
        // SAFETY: quad `tid` of tile `t` and of the staging area.
        unsafe { *s.cast::<[f32; 4]>().add(tid) = *quad };
        barrier();
        let mut r = h;
        while r < ROWS {
            // SAFETY: inside the staged tile.
            acc += unsafe { *s.add(r * COLS + c) };
            r += 2;
        }
        barrier();
        t += g;
    }
    // SAFETY: slot `tid` of the scratch row (floats 256..320).
    unsafe { *scratch.add(tid) = acc };
    barrier();
    if tid < COLS {
        // SAFETY: slots `2·tid` and `2·tid + 1`, written before the barrier.
        let total = unsafe { *scratch.add(2 * tid) + *scratch.add(2 * tid + 1) };
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = total };
    }
}

/// Adjacent lanes split a column's rows in halves and combine them with a two-lane shuffle
/// (`segment_sum`); the even lane keeps the total. No scratch besides the staged tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_tree_segment_shuffle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let c = tid / 2;
    let first = 4 * (tid % 2);
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: as in `stage_strided`'s contract.
        unsafe { stage_strided(s, input, t, tid) };
        barrier();
        let mut part = 0.0f32;
        for r in first..first + 4 {
            // SAFETY: inside the staged tile.
            part += unsafe { *s.add(r * COLS + c) };
        }
        acc += segment_sum(part, 2);
        barrier();
        t += g;
    }
    if lane_id() % 2 == 0 {
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = acc };
    }
}

/// The row tree of `r14_tree_rows_halving` with a single barrier after the whole tree. BROKEN:
/// the last level reads row 1 (slots 32..64), which warp 1 writes in the level before, with no
/// barrier between the levels.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_tree_levels_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: `tid < 64`, tile `t` exists.
        unsafe { stage_strided(s, input, t, tid) };
        barrier();
        let mut half = 4usize;
        while half > 0 {
            let span = half * COLS;
            let mut i = tid;
            while i < span {
                // SAFETY: `i + span < 256`.
                unsafe { *s.add(i) += *s.add(i + span) };
                i += BLOCK;
            }
            half /= 2;
        }
        barrier();
        if tid < COLS {
            // SAFETY: row 0.
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// The row tree where only threads with work at a level wait at that level's barrier. BROKEN:
/// at the last level (`span = 32`) the barrier is under `tid < span`, reached by warp 0 only;
/// warp 1 pairs it with a later barrier and runs ahead into the next tile's staging.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_tree_barrier_with_work(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: `tid < 64`, tile `t` exists.
        unsafe { stage_strided(s, input, t, tid) };
        barrier();
        let mut span = 4 * COLS;
        while span >= COLS {
            if tid < span {
                let mut i = tid;
                while i < span {
                    // SAFETY: `i + span < 256`.
                    unsafe { *s.add(i) += *s.add(i + span) };
                    i += BLOCK;
                }
                barrier();
            }
            span /= 2;
        }
        if tid < COLS {
            // SAFETY: row 0.
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Both warps sum half the rows and park partials by lane. BROKEN: the scratch slot is
/// `lane_id()`, the same for thread `c` and thread `c + 32`, so the two warps write one slot
/// between the same barriers, and the slot warp 0 reads at `c + 32` is never written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_tree_lane_slot_collision(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let c = tid % COLS;
    let first = if tid < COLS { 0 } else { 4 };
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: as in `stage_strided`'s contract.
        unsafe { stage_strided(s, input, t, tid) };
        barrier();
        for r in first..first + 4 {
            // SAFETY: inside the staged tile.
            acc += unsafe { *s.add(r * COLS + c) };
        }
        barrier();
        t += g;
    }
    let scratch = s.wrapping_add(TILE);
    // SAFETY: inside the scratch row (floats 256..320).
    unsafe { *scratch.add(lane_id() as usize) = acc };
    barrier();
    if tid < COLS {
        // SAFETY: as above.
        unsafe { *out.add(b as usize * COLS + c) = *scratch.add(c) + *scratch.add(c + COLS) };
    }
}

/// Both warps sum half the rows and park partials by thread. BROKEN: warp 0 reads warp 1's
/// partials (`scratch[c + 32]`) right after storing its own, with no barrier in between.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_tree_combine_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let c = tid % COLS;
    let first = 4 * (tid / COLS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: as in `stage_strided`'s contract.
        unsafe { stage_strided(s, input, t, tid) };
        barrier();
        for r in first..first + 4 {
            // SAFETY: inside the staged tile.
            acc += unsafe { *s.add(r * COLS + c) };
        }
        barrier();
        t += g;
    }
    let scratch = s.wrapping_add(2 * TILE);
    // SAFETY: slot `tid` of the scratch row (floats 512..576).
    unsafe { *scratch.add(tid) = acc };
    if tid < COLS {
        // SAFETY: slots `c` and `c + 32`.
        unsafe { *out.add(b as usize * COLS + c) = *scratch.add(c) + *scratch.add(c + COLS) };
    }
}
