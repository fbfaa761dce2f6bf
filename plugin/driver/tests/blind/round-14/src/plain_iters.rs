//! Plain shared memory written with iterators and closures: `for_each`, `map(..).sum()`,
//! `fold`, the device API's `strided` loop, `unrolled!`, row pointers walked in reverse,
//! `chunks_exact(..).enumerate().skip(..).step_by(..)`, const-generic helpers.

use core::ptr::copy_nonoverlapping;
use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::strided::strided;
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const BLOCK: usize = 64;

/// Staging by `(0..4).for_each(..)`, the column by `(0..8).map(..).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_it_for_each_map_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.wrapping_add(t as usize * TILE);
        (0..4).for_each(|k| {
            let i = tid + BLOCK * k;
            // SAFETY: slot `i < 256`, one writer per slot.
            unsafe { *s.add(i) = *tile.add(i) };
        });
        barrier();
        if tid < COLS {
            // SAFETY: rows of column `tid` of the staged tile.
            acc += (0..ROWS).map(|r| unsafe { *s.add(r * COLS + tid) }).sum::<f32>();
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Staging with the device API's batched `strided` loop, the column with `fold`; the tile sits
/// at byte 2048.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_it_strided_fold(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>().wrapping_add(512);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.wrapping_add(t as usize * TILE);
        strided(
            tid,
            TILE,
            BLOCK,
            // SAFETY: `i < 256` inside tile `t`.
            |i| unsafe { *tile.add(i) },
            // SAFETY: slot `i < 256` of the staging area, one writer per slot.
            |i, v| unsafe { *s.add(i) = v },
        );
        barrier();
        if tid < COLS {
            // SAFETY: rows of column `tid`.
            acc = (0..ROWS).fold(acc, |a, r| a + unsafe { *s.add(r * COLS + tid) });
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Staging and summing written out with `unrolled!`; accumulators in an array of two.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_it_unrolled_macro(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = [0.0f32; 2];
    let mut t = b;
    while t < tiles {
        let tile = input.wrapping_add(t as usize * TILE);
        unrolled!(K < 4 => {
            let i = tid + BLOCK * K;
            // SAFETY: slot `i < 256`, one writer per slot.
            unsafe { *s.add(i) = *tile.add(i) };
        });
        barrier();
        if tid < COLS {
            unrolled!(R < ROWS => {
                // SAFETY: row `R` of column `tid`.
                acc[R % 2] += unsafe { *s.add(R * COLS + tid) };
            });
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc[0] + acc[1] };
    }
}

/// Staging through `chunks_exact(4).enumerate().skip(tid).step_by(64)` over the global tile and
/// `copy_nonoverlapping`; the column through an array of row pointers walked with `rev()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_it_rev_row_pointers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let rows: [*const f32; ROWS] = core::array::from_fn(|r| s.wrapping_add(r * COLS) as *const f32);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: tile `t` of the input, 256 floats.
        let src = unsafe { slice::from_raw_parts(input.add(t as usize * TILE), TILE) };
        for (k, quad) in src.chunks_exact(4).enumerate().skip(tid).step_by(BLOCK) {
            // SAFETY: quad `k < 64` of the staging area, one writer per quad.
            unsafe { copy_nonoverlapping(quad.as_ptr(), s.add(4 * k), 4) };
        }
        barrier();
        if tid < COLS {
            // SAFETY: column `tid` of each staged row.
            acc += rows.iter().rev().map(|row| unsafe { *row.add(tid) }).sum::<f32>();
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Stages `PER` floats per thread, strided by `THREADS`.
///
/// # Safety
/// `dst` has `PER · THREADS` floats of shared memory; `src` as many readable; `tid < THREADS`.
#[inline(always)]
unsafe fn stage<const PER: usize, const THREADS: usize>(dst: *mut f32, src: *const f32, tid: usize) {
    for k in 0..PER {
        // SAFETY: the caller's contract; one writer per slot.
        unsafe { *dst.add(tid + k * THREADS) = *src.add(tid + k * THREADS) };
    }
}

/// Sums column `c` of a `ROWS_N × COLS_N` tile.
///
/// # Safety
/// `tile` is a staged tile of that shape; `c < COLS_N`.
#[inline(always)]
unsafe fn column_sum<const ROWS_N: usize, const COLS_N: usize>(tile: *const f32, c: usize) -> f32 {
    let mut v = 0.0f32;
    let mut r = 0;
    while r < ROWS_N {
        // SAFETY: the caller's contract.
        v += unsafe { *tile.add(r * COLS_N + c) };
        r += 1;
    }
    v
}

/// Const-generic helpers for staging and summing; the tile at byte 6144.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_it_const_generic_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    // SAFETY: byte 6144 of the 8 KiB window; the tile ends at its last byte.
    let s = unsafe { dynamic_shared_base::<f32>().add(1536) };
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: 256 floats each side; `tid < 64`.
        unsafe { stage::<4, BLOCK>(s, input.add(t as usize * TILE), tid) };
        barrier();
        if tid < COLS {
            // SAFETY: the staged tile; `tid < 32`.
            acc += unsafe { column_sum::<ROWS, COLS>(s, tid) };
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// One barrier per tile, at the top of the loop, "so that the previous tile is done before the
/// next one is staged". BROKEN: nothing orders the staging with the `fold` that follows it in
/// the same interval; warp 0 reads rows other threads are still writing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_it_barrier_only_on_top(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        barrier();
        let tile = input.wrapping_add(t as usize * TILE);
        (0..4).for_each(|k| {
            let i = tid + BLOCK * k;
            // SAFETY: slot `i < 256`.
            unsafe { *s.add(i) = *tile.add(i) };
        });
        if tid < COLS {
            // SAFETY: column `tid` of the staging area.
            acc = (0..ROWS).fold(acc, |a, r| a + unsafe { *s.add(r * COLS + tid) });
        }
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Both warps sum half the rows; the 32 column partials are meant to sit in the window's last
/// 32 floats. BROKEN: the scratch holds 64 partials (one per thread) starting 32 floats before
/// the end, so warp 1's stores land at bytes 8192..8320, outside the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_it_scratch_tail_overrun(input: *const f32, tiles: u32, out: *mut f32) {
    const WINDOW_FLOATS: usize = 8192 / 4;
    const SCRATCH: usize = WINDOW_FLOATS - COLS;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let c = tid % COLS;
    let rows = (tid / COLS) * 4..(tid / COLS) * 4 + 4;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.wrapping_add(t as usize * TILE);
        (0..4).map(|k| tid + BLOCK * k).for_each(|i| {
            // SAFETY: slot `i < 256`.
            unsafe { *s.add(i) = *tile.add(i) };
        });
        barrier();
        // SAFETY: rows of column `c`.
        acc += rows.clone().map(|r| unsafe { *s.add(r * COLS + c) }).sum::<f32>();
        barrier();
        t += g;
    }
    // SAFETY: meant as the window's last floats (64 slots do not fit there).
    let scratch = unsafe { slice::from_raw_parts_mut(s.add(SCRATCH), BLOCK) };
    scratch[tid] = acc;
    barrier();
    if tid < COLS {
        let total = scratch[c] + scratch[c + COLS];
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = total };
    }
}

/// Warp 1 leaves at once because only warp 0 sums. BROKEN: the staging loop still assumes 64
/// threads (`step_by(64)` from `tid`), so half the slots of every tile are never staged, and the
/// barriers after that thread-dependent `return` are reached by warp 0 alone.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_it_warp1_leaves_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    if tid >= COLS {
        return;
    }
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.wrapping_add(t as usize * TILE);
        for i in (tid..TILE).step_by(BLOCK) {
            // SAFETY: slot `i < 256`.
            unsafe { *s.add(i) = *tile.add(i) };
        }
        barrier();
        // SAFETY: column `tid` of the staging area.
        acc += (0..ROWS).map(|r| unsafe { *s.add(r * COLS + tid) }).sum::<f32>();
        barrier();
        t += g;
    }
    // SAFETY: `tid < 32`.
    unsafe { *out.add(b as usize * COLS + tid) = acc };
}
