//! Plain shared memory: a tile (or a batch of tiles) staged by the whole block between block
//! barriers, then summed by column; scratch areas for per-thread partials.

use core::ptr::copy_nonoverlapping;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x, warp_id};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;

/// Each thread copies its 16-byte quad with `copy_nonoverlapping`; warp 0 sums its column
/// between the two barriers of each tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_stg_copy_quads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: quad `tid` of tile `t` in global memory and of the staging tile in shared
        // memory; every thread writes its own quad.
        unsafe { copy_nonoverlapping(input.add(t as usize * TILE + 4 * tid), s.add(4 * tid), 4) };
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                // SAFETY: row `r`, column `tid` of the staged tile.
                acc += unsafe { *s.add(r * COLS + tid) };
            }
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Both warps sum half the rows of their column; after the loop each thread parks its partial
/// in a scratch row past the tile, and warp 0 adds the pairs after a barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_stg_half_rows_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let quads = s.cast::<[f32; 4]>();
    let src = input.cast::<[f32; 4]>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: quad `tid` of tile `t` (64 quads a tile); 16-byte aligned both sides.
        unsafe { *quads.add(tid) = *src.add(t as usize * (TILE / 4) + tid) };
        barrier();
        for r in 4 * half..4 * half + 4 {
            // SAFETY: inside the staged tile.
            acc += unsafe { *s.add(r * COLS + col) };
        }
        barrier();
        t += g;
    }
    // SAFETY: the scratch row (floats 256..320) lies past the tile.
    let scratch = unsafe { s.add(TILE) };
    // SAFETY: one slot per thread.
    unsafe { *scratch.add(tid) = acc };
    barrier();
    if half == 0 {
        // SAFETY: slots `col` and `col + 32`, written before the barrier.
        unsafe { *out.add(b as usize * COLS + col) = *scratch.add(col) + *scratch.add(col + COLS) };
    }
}

/// Up to four tiles staged at once (4 KiB), element by element with a `while` loop stepping by
/// the block size; warp 0 sums the whole batch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_stg_batch_four(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: u32 = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut done = 0u32;
    while done < mine {
        let n = (mine - done).min(BATCH) as usize;
        let mut e = tid;
        while e < n * TILE {
            let q = e / TILE;
            let t = (b + (done + q as u32) * g) as usize;
            // SAFETY: element `e % 256` of tile `t`; slot `e` of the 1..4-tile batch.
            unsafe { *s.add(e) = *input.add(t * TILE + e % TILE) };
            e += THREADS;
        }
        barrier();
        if tid < COLS {
            for q in 0..n {
                for r in 0..ROWS {
                    // SAFETY: tile `q` of the staged batch.
                    acc += unsafe { *s.add(q * TILE + r * COLS + tid) };
                }
            }
        }
        barrier();
        done += n as u32;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Warp 1 sums; warp 0 leaves right after the loop's last barrier; staged by a `for` over four
/// strided slots.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_stg_warp1_sums(input: *const f32, tiles: u32, out: *mut f32) {
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
        for k in 0..4 {
            let i = tid + THREADS * k;
            // SAFETY: slot `i < 256` of tile and staging area, one writer per slot.
            unsafe { *s.add(i) = *tile.add(i) };
        }
        barrier();
        if tid >= COLS {
            let c = tid - COLS;
            for r in 0..ROWS {
                // SAFETY: inside the staged tile.
                acc += unsafe { *s.add(r * COLS + c) };
            }
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        return;
    }
    // SAFETY: `tid - 32 < 32`.
    unsafe { *out.add(b as usize * COLS + tid - COLS) = acc };
}

/// A staging helper.
struct Stager {
    smem: *mut f32,
}

impl Stager {
    /// # Safety
    /// `tile` points at 256 readable floats; `tid < 64`.
    #[inline(always)]
    unsafe fn load(&self, tile: *const f32, tid: usize) {
        // SAFETY: the caller's contract; quad `tid` of the 1 KiB staging area.
        unsafe { copy_nonoverlapping(tile.add(4 * tid), self.smem.add(4 * tid), 4) };
    }

    /// # Safety
    /// `c < 32`.
    #[inline(always)]
    unsafe fn column(&self, c: usize) -> f32 {
        let mut s = 0.0f32;
        for r in 0..ROWS {
            // SAFETY: inside the staging area.
            s += unsafe { *self.smem.add(r * COLS + c) };
        }
        s
    }
}

/// A `Stager` object with one barrier per tile, after the staging. BROKEN: nothing separates
/// warp 0's column reads of tile `t` from warp 1's staging of the next tile into the same area.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_stg_single_barrier_refill(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let stager = Stager { smem: dynamic_shared_base::<f32>() };
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: tile `t` of the input; `tid < 64`.
        unsafe { stager.load(input.wrapping_add(t as usize * TILE), tid) };
        barrier();
        if tid < COLS {
            // SAFETY: `tid < 32`.
            acc += unsafe { stager.column(tid) };
        }
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Each thread stages its quad and, being a column owner, starts summing at once; the only
/// barrier is at the end of the tile. BROKEN: a column's other rows are staged by other threads
/// (seven of them in warp 1), read before any barrier orders their stores.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_stg_read_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: quad `tid` of tile `t` and of the staging area.
        unsafe { copy_nonoverlapping(input.add(t as usize * TILE + 4 * tid), s.add(4 * tid), 4) };
        if tid < COLS {
            for r in 0..ROWS {
                // SAFETY: inside the staging area.
                acc += unsafe { *s.add(r * COLS + tid) };
            }
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Barriers at the top of each tile (before staging) and after staging; the partials reuse the
/// last two rows of the staging area. BROKEN: after the last tile no barrier follows the reads,
/// so warp 0 parks its partials in row 6 while warp 1 may still be reading rows 4..8.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_stg_scratch_over_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let first_row = 4 * (tid / COLS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        barrier();
        let tile = input.wrapping_add(t as usize * TILE);
        let mut i = tid;
        while i < TILE {
            // SAFETY: slot `i < 256`, one writer per slot.
            unsafe { *s.add(i) = *tile.add(i) };
            i += THREADS;
        }
        barrier();
        for r in first_row..first_row + 4 {
            // SAFETY: inside the staged tile.
            acc += unsafe { *s.add(r * COLS + col) };
        }
        t += g;
    }
    // Scratch: the tile's rows 6 and 7.
    // SAFETY: floats 192..256 of the window.
    let scratch = unsafe { s.add(6 * COLS) };
    // SAFETY: one slot per thread.
    unsafe { *scratch.add(tid) = acc };
    barrier();
    if tid < COLS {
        // SAFETY: slots `tid` and `tid + 32`.
        unsafe { *out.add(b as usize * COLS + tid) = *scratch.add(tid) + *scratch.add(tid + COLS) };
    }
}

/// Batches of eight tiles, the whole 8 KiB window, both warps summing half the rows; partials go
/// to a scratch row after the batch. BROKEN: the batch fills the window, so the scratch row lies
/// at bytes 8192..8448, outside the dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_stg_batch_eight_then_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: u32 = 8;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut done = 0u32;
    while done < mine {
        let n = (mine - done).min(BATCH) as usize;
        let mut e = tid;
        while e < n * TILE {
            let t = (b + (done + (e / TILE) as u32) * g) as usize;
            // SAFETY: slot `e` of the batch.
            unsafe { *s.add(e) = *input.add(t * TILE + e % TILE) };
            e += THREADS;
        }
        barrier();
        for q in 0..n {
            for r in 4 * half..4 * half + 4 {
                // SAFETY: tile `q` of the batch.
                acc += unsafe { *s.add(q * TILE + r * COLS + col) };
            }
        }
        barrier();
        done += n as u32;
    }
    let scratch = s.wrapping_add(BATCH as usize * TILE);
    // SAFETY: meant as a slot per thread after the batch (it is past the window).
    unsafe { *scratch.add(tid) = acc };
    barrier();
    if half == 0 {
        // SAFETY: as above.
        unsafe { *out.add(b as usize * COLS + col) = *scratch.add(col) + *scratch.add(col + COLS) };
    }
}

/// Warp 0 stages rows 0..4 and warp 1 rows 4..8; only the summing warp waits at a barrier before
/// reading. BROKEN: that barrier sits under `warp_id() == 0`; warp 1 meets it with its
/// end-of-tile barrier and goes on staging the next tile's rows 4..8 while warp 0 reads them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_stg_barrier_in_summing_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: quad `tid` (rows 0..4 for warp 0, 4..8 for warp 1).
        unsafe { copy_nonoverlapping(input.add(t as usize * TILE + 4 * tid), s.add(4 * tid), 4) };
        if warp_id() == 0 {
            barrier();
            for r in 0..ROWS {
                // SAFETY: inside the staging area.
                acc += unsafe { *s.add(r * COLS + tid) };
            }
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}
