//! Plain shared-memory reductions: a tree over the rows of a staged tile, warp shuffles feeding
//! per-column accumulators in shared memory, per-thread registers stored once for a final
//! combine, and a transposed (padded) staging.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};
use crate::helpers::{BLOCK, COLS, ROWS, TILE_FLOATS, stage_tile};

/// Stage the tile, then halve the rows (4, 2, 1) with a barrier after every level: row 0 ends
/// with the column sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_tree_rows_halving(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(input.add(t as usize * TILE_FLOATS), s, tid) };
        barrier();
        let mut half = ROWS / 2;
        while half > 0 {
            let span = half * COLS;
            let mut k = tid;
            while k < span {
                unsafe { *s.add(k) += *s.add(k + span) };
                k += BLOCK;
            }
            barrier();
            half /= 2;
        }
        if tid < COLS {
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// BROKEN: the same tree with one barrier after the whole tree instead of one per level: the
/// last level reads row 1, which the other warp is still adding into.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_tree_rows_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(input.add(t as usize * TILE_FLOATS), s, tid) };
        barrier();
        let mut half = ROWS / 2;
        while half > 0 {
            let span = half * COLS;
            let mut k = tid;
            while k < span {
                unsafe { *s.add(k) += *s.add(k + span) };
                k += BLOCK;
            }
            half /= 2;
        }
        barrier();
        if tid < COLS {
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Eight lanes per column: lane `l` reads row `l % 8` of column `pass * 8 + tid / 8`, a segment
/// shuffle sums the eight, and the segment's first lane adds it to the column's accumulator in
/// shared memory (after the tile, at float 256; each accumulator has one writer).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_tree_segment_shuffle_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let sums = unsafe { s.add(TILE_FLOATS) };
    if tid < COLS {
        unsafe { *sums.add(tid) = 0.0 };
    }
    let row = tid % 8;
    let group = tid / 8;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(input.add(t as usize * TILE_FLOATS), s, tid) };
        barrier();
        for pass in 0..4 {
            let column = pass * 8 + group;
            let v = unsafe { *s.add(row * COLS + column) };
            let total = segment_sum(v, 8);
            if row == 0 {
                unsafe { *sums.add(column) += total };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    barrier();
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *sums.add(tid) };
    }
}

/// Each thread keeps quad `tid` of every tile summed in registers; at the end the quads go to
/// shared memory once and warp 0 gathers its column from eight of them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_tree_register_quads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let quads = input as *const [f32; 4];
    let mut acc = [0.0f32; 4];
    let mut t = block_idx_x();
    while t < tiles {
        let q = unsafe { *quads.add(t as usize * 64 + tid) };
        for (a, v) in acc.iter_mut().zip(q) {
            *a += v;
        }
        t += grid_dim_x();
    }
    let scratch = dynamic_shared_base::<[f32; 4]>();
    unsafe { *scratch.add(tid) = acc };
    barrier();
    if tid < COLS {
        let c = tid;
        let mut sum = 0.0f32;
        for r in 0..ROWS {
            sum += unsafe { (*scratch.add(c / 4 + 8 * r))[c % 4] };
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + c) = sum };
    }
}

/// Quads of scratch per window (8192 / 16).
const WINDOW_QUADS: usize = 512;

/// BROKEN: as `r15_tree_register_quads`, but the scratch is placed "at the end of the window",
/// computed as `WINDOW_QUADS - 63` instead of `- 64`: thread 63 stores its quad at byte 8192.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_tree_register_quads_at_window_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let quads = input as *const [f32; 4];
    let mut acc = [0.0f32; 4];
    let mut t = block_idx_x();
    while t < tiles {
        let q = unsafe { *quads.add(t as usize * 64 + tid) };
        for (a, v) in acc.iter_mut().zip(q) {
            *a += v;
        }
        t += grid_dim_x();
    }
    let scratch = unsafe { dynamic_shared_base::<[f32; 4]>().add(WINDOW_QUADS - 63) };
    unsafe { *scratch.add(tid) = acc };
    barrier();
    if tid < COLS {
        let c = tid;
        let mut sum = 0.0f32;
        for r in 0..ROWS {
            sum += unsafe { (*scratch.add(c / 4 + 8 * r))[c % 4] };
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + c) = sum };
    }
}

/// Stage the tile transposed, column `c` at floats `c * PITCH ..`; a pitch of 9 keeps the rows
/// of neighbouring columns apart (and the banks spread).
#[inline(always)]
unsafe fn transposed<const PITCH: usize>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        let mut k = tid;
        while k < TILE_FLOATS {
            let (r, c) = (k / COLS, k % COLS);
            unsafe { *s.add(c * PITCH + r) = *src.add(k) };
            k += BLOCK;
        }
        barrier();
        if tid < COLS {
            let column = unsafe { core::slice::from_raw_parts(s.add(tid * PITCH), ROWS) };
            acc += column.iter().sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Transposed staging with a pitch of 9.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_tree_transposed_pitch_nine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { transposed::<9>(input, tiles, out) };
}

/// BROKEN: transposed staging with a pitch of 7, shorter than a column's eight rows: row 7 of
/// column `c` and row 0 of column `c + 1` are one float, stored by two threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_tree_transposed_pitch_seven(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { transposed::<7>(input, tiles, out) };
}
