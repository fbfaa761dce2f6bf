//! Plain shared-memory kernels built from functions: generic helpers, closures for loads and
//! stores, slices from raw parts with iterator adaptors (`skip`, `step_by`, `chunks_exact`,
//! `take`), and the device API's `strided` loop.
#![allow(unsafe_op_in_unsafe_fn)]

use core::slice;

use crate::device::strided::strided;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, launch, thread_idx_x};
use crate::{COLS, ROWS, TILE, TILE_BYTES};

// ------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------

/// Thread `tid` copies `PER` floats, 64 apart, of the tile at `src` into `dst`.
#[inline(always)]
unsafe fn stage<const PER: usize>(dst: *mut f32, src: *const f32, tid: usize) {
    for k in 0..PER {
        *dst.add(tid + 64 * k) = *src.add(tid + 64 * k);
    }
}

/// Sum of column `c` over the `R` rows of the staged tile at `s`.
#[inline(always)]
unsafe fn column<const R: usize>(s: *const f32, c: usize) -> f32 {
    let mut acc = 0.0f32;
    for r in 0..R {
        acc += *s.add(r * COLS + c);
    }
    acc
}

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// Staging and summing through helpers generic over floats per thread and rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_generic_stage_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        stage::<4>(s, input.add(t as usize * TILE), tid);
        barrier();
        if tid < 32 {
            acc += column::<ROWS>(s, tid);
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// The staging writes through a mutable slice (`iter_mut().enumerate().skip(tid).step_by(64)`)
/// and the sum reads a slice with `skip(c).step_by(32)`; each slice lives between two barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_slice_iter_sum(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        {
            let src = slice::from_raw_parts(input.add(t as usize * TILE), TILE);
            let dst = slice::from_raw_parts_mut(s, TILE);
            for (i, v) in dst.iter_mut().enumerate().skip(tid).step_by(64) {
                *v = src[i];
            }
        }
        barrier();
        if tid < 32 {
            let tile = slice::from_raw_parts(s as *const f32, TILE);
            acc += tile.iter().skip(tid).step_by(COLS).sum::<f32>();
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Loads and stores through closures; both warps sum half the rows and exchange partials
/// through a second region.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_closures(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let put = |i: usize, v: f32| unsafe { *s.add(i) = v };
    let get = |i: usize| unsafe { *s.add(i) };
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let fetch = |t: u32, i: usize| unsafe { *input.add(t as usize * TILE + i) };
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        for k in 0..4 {
            put(tid + 64 * k, fetch(t, tid + 64 * k));
        }
        barrier();
        for r in 0..4 {
            acc += get((4 * half + r) * COLS + col);
        }
        barrier();
        t += grid;
    }
    put(TILE + tid, acc);
    barrier();
    if half == 0 {
        *out.add(block as usize * COLS + col) = get(TILE + col) + get(TILE + COLS + col);
    }
}

/// Each warp takes its four rows of the staged tile as `chunks_exact(32).skip(4h).take(4)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_chunks_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let partials = s.add(2 * TILE);
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        stage::<4>(s, input.add(t as usize * TILE), tid);
        barrier();
        let tile = slice::from_raw_parts(s as *const f32, TILE);
        acc += tile.chunks_exact(COLS).skip(4 * half).take(4).map(|row| row[col]).sum::<f32>();
        barrier();
        t += grid;
    }
    if half == 1 {
        *partials.add(col) = acc;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * COLS + col) = acc + *partials.add(col);
    }
}

/// The staging is the device API's `strided` loop (loads batched four at a time).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_device_strided(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        strided(tid, TILE, 64, |i| unsafe { *src.add(i) }, |i, v| unsafe { *s.add(i) = v });
        barrier();
        if tid < 32 {
            acc += column::<ROWS>(s, tid);
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// Staging helper that ends with the block barrier, "so callers cannot forget it".
#[inline(always)]
unsafe fn stage_synced(dst: *mut f32, src: *const f32, tid: usize) {
    stage::<4>(dst, src, tid);
    barrier();
}

/// The staging helper brings its own barrier, and the caller relies on it alone: nothing keeps
/// the next staging off the tile warp 0 is still summing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_bad_helper_single_sync(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        stage_synced(s, input.add(t as usize * TILE), tid);
        if tid < 32 {
            acc += column::<ROWS>(s, tid);
        }
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// The stage sits in the window's last KiB (partials at the front), and the `strided` staging
/// runs to `TILE_BYTES` (1024) floats instead of 256: stores run 3 KiB past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_bad_strided_bytes_end(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let smem = dynamic_shared_base::<f32>();
    let partials = smem;
    let s = smem.add(7 * TILE);
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        strided(tid, TILE_BYTES as usize, 64, |i| unsafe { *src.add(i) }, |i, v| unsafe { *s.add(i) = v });
        barrier();
        for r in 4 * half..4 * half + 4 {
            acc += *s.add(r * COLS + col);
        }
        barrier();
        t += grid;
    }
    if half == 1 {
        *partials.add(col) = acc;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * COLS + col) = acc + *partials.add(col);
    }
}

/// Warp 0's column sum is computed before the barrier that follows the staging, so it reads
/// the half of the tile warp 1 may not have stored yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_bad_sum_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        stage::<4>(s, input.add(t as usize * TILE), tid);
        let part = if tid < 32 {
            let tile = slice::from_raw_parts(s as *const f32, TILE);
            tile.iter().skip(tid).step_by(COLS).sum::<f32>()
        } else {
            0.0
        };
        barrier();
        acc += part;
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Helper that waits for the staging and then sums a column.
#[inline(always)]
unsafe fn gather(s: *const f32, c: usize) -> f32 {
    barrier();
    column::<ROWS>(s, c)
}

/// The helper holding the post-staging barrier is called only by warp 0: the warps reach
/// different barriers, and warp 1 restages while warp 0 reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_bad_divergent_sync_helper(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        stage::<4>(s, input.add(t as usize * TILE), tid);
        if tid < 32 {
            acc += gather(s, tid);
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Both warps add their half-column sums into one shared accumulator per column in the same
/// interval (`acc[c] += part`): the read-modify-writes of the two warps race.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pf_bad_shared_accumulator_rmw(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let sums = s.add(TILE);
    let bump = |i: usize, v: f32| unsafe { *sums.add(i) += v };
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if half == 0 {
        *sums.add(col) = 0.0;
    }
    barrier();
    let mut t = block;
    while t < tiles {
        stage::<4>(s, input.add(t as usize * TILE), tid);
        barrier();
        let mut part = 0.0f32;
        for r in 4 * half..4 * half + 4 {
            part += *s.add(r * COLS + col);
        }
        bump(col, part);
        barrier();
        t += grid;
    }
    if half == 0 {
        *out.add(block as usize * COLS + col) = *sums.add(col);
    }
}
