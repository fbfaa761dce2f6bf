//! Plain shared memory: tiles staged into shared memory by the whole block between block
//! barriers, then summed by warp 0 (or by everyone, with partials combined at the end).

#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// One tile at a time: stage, barrier, warp 0 sums, barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_stage_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        let mut i = tid;
        while i < TILE_FLOATS {
            *s.add(i) = *src.add(i);
            i += THREADS as usize;
        }
        barrier();
        if tid < COLS {
            acc += column_sum(s, tid);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Up to eight tiles per round fill the whole window; then warp 0 sums them all.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_batched_eight(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const BATCH: u32 = 8;
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    let mut k0 = 0;
    while k0 < n {
        let m = (n - k0).min(BATCH);
        for j in 0..m {
            let src = tile_floats(input, owned_tile(k0 + j));
            let slot = s.add(j as usize * TILE_FLOATS);
            for q in 0..4 {
                let e = tid + 64 * q;
                *slot.add(e) = *src.add(e);
            }
        }
        barrier();
        if tid < COLS {
            for j in 0..m {
                acc += column_sum(s.add(j as usize * TILE_FLOATS), tid);
            }
        }
        barrier();
        k0 += BATCH;
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Each thread stages one 16-byte quad of the tile; every thread sums half a column; the two
/// halves meet in a partials area after the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_quad_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let quads = s as *mut [f32; 4];
    let partials = s.add(TILE_FLOATS);
    let column = tid % COLS;
    let first_row = (tid / COLS) * 4;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t) as *const [f32; 4];
        *quads.add(tid) = *src.add(tid);
        barrier();
        for r in first_row..first_row + 4 {
            acc += *s.add(column + r * COLS);
        }
        barrier();
        t += grid_dim_x();
    }
    *partials.add(tid) = acc;
    barrier();
    if tid < COLS {
        store_column(out, tid as u32, *partials.add(tid) + *partials.add(tid + COLS));
    }
}

/// No staging: each thread sums half a column straight from global memory, and shared memory
/// only combines the halves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_direct_partials(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let p = dynamic_shared_base::<f32>();
    let column = tid % COLS;
    let half = tid / COLS;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        for r in 0..4 {
            acc += *src.add(column + (half * 4 + r) * COLS);
        }
        t += grid_dim_x();
    }
    *p.add(tid) = acc;
    barrier();
    if tid < COLS {
        let total = *p.add(tid) + *p.add(tid + COLS);
        store_column(out, tid as u32, total);
    }
}

/// The tile is staged transposed (column-major), so a column is eight consecutive floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_transposed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        for q in 0..4 {
            let e = tid + 64 * q;
            let (r, c) = (e / COLS, e % COLS);
            *s.add(c * ROWS + r) = *src.add(e);
        }
        barrier();
        if tid < COLS {
            let col = s.add(tid * ROWS);
            for r in 0..ROWS {
                acc += *col.add(r);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: the barrier after the sum was dropped, so warp 1 stages the next tile while warp 0
/// is still summing the current one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_bad_no_trailing_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        let mut i = tid;
        while i < TILE_FLOATS {
            *s.add(i) = *src.add(i);
            i += THREADS as usize;
        }
        barrier();
        if tid < COLS {
            acc += column_sum(s, tid);
        }
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: the one barrier per tile sits after the sum instead of between staging and sum;
/// warp 0 reads the odd rows warp 1 is still writing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_bad_barrier_after_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        for q in 0..4 {
            *s.add(tid + 64 * q) = *src.add(tid + 64 * q);
        }
        if tid < COLS {
            acc += column_sum(s, tid);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: a 64-byte header (the batch's tile count) sits in front of a batch of eight tiles;
/// the eighth tile's slot ends 64 bytes past the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_bad_batch_header(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const BATCH: u32 = 8;
    const HEADER_FLOATS: usize = 16;
    let tid = thread_idx_x() as usize;
    let header = dynamic_shared_base::<u32>();
    let slots = dynamic_shared_base::<f32>().add(HEADER_FLOATS);
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    let mut k0 = 0;
    while k0 < n {
        if tid == 0 {
            *header = (n - k0).min(BATCH);
        }
        barrier();
        let m = *header;
        for j in 0..m {
            let src = tile_floats(input, owned_tile(k0 + j));
            for q in 0..4 {
                let e = tid + 64 * q;
                *slots.add(j as usize * TILE_FLOATS + e) = *src.add(e);
            }
        }
        barrier();
        if tid < COLS {
            for j in 0..m {
                acc += column_sum(slots.add(j as usize * TILE_FLOATS), tid);
            }
        }
        barrier();
        k0 += BATCH;
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: both halves of a column store their partial into the column's slot (`tid % 32`), so
/// the two warps write the same 32 floats and one half is lost.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_bad_partials_by_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let p = dynamic_shared_base::<f32>();
    let column = tid % COLS;
    let half = tid / COLS;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        for r in 0..4 {
            acc += *src.add(column + (half * 4 + r) * COLS);
        }
        t += grid_dim_x();
    }
    *p.add(column) = acc;
    barrier();
    if tid < COLS {
        store_column(out, tid as u32, *p.add(column) + *p.add(column + COLS));
    }
}

/// Broken: the second barrier was moved inside the readers' branch ("only warp 0 reads"), so
/// warp 0 and warp 1 reach different barriers and warp 1 restages while warp 0 reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_ps_bad_reader_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        for q in 0..4 {
            let e = tid + 64 * q;
            *s.add((e % COLS) * ROWS + e / COLS) = *src.add(e);
        }
        barrier();
        if tid < COLS {
            let col = s.add(tid * ROWS);
            for r in 0..ROWS {
                acc += *col.add(r);
            }
            barrier();
        }
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}
