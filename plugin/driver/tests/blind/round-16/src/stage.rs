//! Plain shared memory: the whole block stages each tile into shared memory (thread `t` copies
//! elements `t, t + 64, t + 128, t + 192`), then thread `t` sums four rows of column `t % 32`
//! (warp 0 the top half, warp 1 the bottom half); the two halves are combined at the end.
//!
//! Layout (floats): tile buffer(s) from 0, 256 floats each; the 64 partial sums at 512.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;
const BLOCK: usize = 64;
const PARTIALS: usize = 512;

/// Thread `tid` copies its four elements of tile `tile` into `buffer`.
#[inline(always)]
unsafe fn stage_tile(buffer: *mut f32, input: *const f32, tile: u32, tid: usize) {
    let source = unsafe { input.add(tile as usize * TILE) };
    let mut i = tid;
    while i < TILE {
        unsafe { *buffer.add(i) = *source.add(i) };
        i += BLOCK;
    }
}

/// Rows `4·half .. 4·half + 4` of column `col` of the staged tile.
#[inline(always)]
unsafe fn half_column(buffer: *const f32, col: usize, half: usize) -> f32 {
    let mut sum = 0.0;
    let mut row = 4 * half;
    while row < 4 * half + 4 {
        sum += unsafe { *buffer.add(row * COLS + col) };
        row += 1;
    }
    sum
}

/// Stores this thread's partial, then warp 0 adds warp 1's and writes the block's outputs.
#[inline(always)]
unsafe fn combine(smem: *mut f32, partials_at: usize, acc: f32, tid: usize, out: *mut f32, first: u32) {
    let partials = unsafe { smem.add(partials_at) };
    unsafe { *partials.add(tid) = acc };
    barrier();
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = *partials.add(tid) + *partials.add(tid + COLS) };
    }
}

/// One buffer, two barriers per tile; `sync_after_stage` and `sync_after_read` say which of
/// the two are there.
#[inline(always)]
unsafe fn single_buffer(input: *const f32, tiles: u32, out: *mut f32, sync_after_stage: bool, sync_after_read: bool) {
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let (col, half) = (tid % COLS, tid / COLS);

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        unsafe { stage_tile(smem, input, tile, tid) };
        if sync_after_stage {
            barrier();
        }
        acc += unsafe { half_column(smem, col, half) };
        if sync_after_read {
            barrier();
        }
        tile += step;
    }
    unsafe { combine(smem, PARTIALS, acc, tid, out, first) };
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stage_basic(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { single_buffer(input, tiles, out, true, true) }
}

/// BROKEN: no barrier after the reads: a warp that is done with tile `k` starts staging tile
/// `k + 1` over rows the other warp is still reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stage_no_second_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { single_buffer(input, tiles, out, true, false) }
}

/// BROKEN: no barrier between staging and reading: half of every thread's rows were staged
/// by the other warp, which may not have stored them yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stage_no_first_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { single_buffer(input, tiles, out, false, true) }
}

/// Two buffers, the next tile staged while the current one is read, one barrier per tile.
/// `live_slot` stages into the buffer being read instead of the other one.
#[inline(always)]
unsafe fn double_buffer(input: *const f32, tiles: u32, out: *mut f32, live_slot: bool) {
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let count = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };
    let (col, half) = (tid % COLS, tid / COLS);

    if count > 0 {
        unsafe { stage_tile(smem, input, first, tid) };
    }
    barrier();
    let mut acc = 0.0f32;
    let mut k = 0u32;
    while k < count {
        let current = unsafe { smem.add((k as usize & 1) * TILE) };
        if k + 1 < count {
            let slot = if live_slot { k as usize & 1 } else { (k as usize + 1) & 1 };
            unsafe { stage_tile(smem.add(slot * TILE), input, first + (k + 1) * step, tid) };
        }
        acc += unsafe { half_column(current, col, half) };
        barrier();
        k += 1;
    }
    unsafe { combine(smem, PARTIALS, acc, tid, out, first) };
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stage_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { double_buffer(input, tiles, out, false) }
}

/// BROKEN: the parity of the prefetch is off by one: tile `k + 1` is staged into the buffer
/// that holds tile `k`, while it is being read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stage_prefetch_into_live_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { double_buffer(input, tiles, out, true) }
}

/// Staged transposed (column-major: element `(row, col)` at `col·8 + row`), so that each of
/// warp 0's threads reads its column as eight consecutive floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stage_transposed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        let source = unsafe { input.add(tile as usize * TILE) };
        for k in 0..TILE / BLOCK {
            let i = tid + k * BLOCK;
            let (row, col) = (i / COLS, i % COLS);
            unsafe { *smem.add(col * 8 + row) = *source.add(i) };
        }
        barrier();
        if tid < COLS {
            let column = unsafe { smem.add(tid * 8) };
            for row in 0..8 {
                acc += unsafe { *column.add(row) };
            }
        }
        barrier();
        tile += step;
    }
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = acc };
    }
}

/// BROKEN: the per-tile partial sums live at float 192 ("three quarters of the block's
/// threads in"), inside the staged tile's rows 6 and 7: a thread stores its partial while the
/// other warp may still be reading those rows of the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stage_partials_overlap_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let (col, half) = (tid % COLS, tid / COLS);
    let partials = unsafe { smem.add(3 * BLOCK) };

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        unsafe { stage_tile(smem, input, tile, tid) };
        barrier();
        let mine = unsafe { half_column(smem, col, half) };
        unsafe { *partials.add(tid) = mine };
        barrier();
        if tid < COLS {
            acc += unsafe { *partials.add(tid) + *partials.add(tid + COLS) };
        }
        barrier();
        tile += step;
    }
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = acc };
    }
}

/// BROKEN: the transposed store swaps its factors, `row·8 + col` instead of `col·8 + row`:
/// elements `(row, col)` and `(row + 1, col - 8)` land on the same slot, written by two
/// threads between the same barriers, and whole columns are never stored.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_stage_transpose_swapped_index(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        let source = unsafe { input.add(tile as usize * TILE) };
        for k in 0..TILE / BLOCK {
            let i = tid + k * BLOCK;
            let (row, col) = (i / COLS, i % COLS);
            unsafe { *smem.add(row * 8 + col) = *source.add(i) };
        }
        barrier();
        if tid < COLS {
            let column = unsafe { smem.add(tid * 8) };
            for row in 0..8 {
                acc += unsafe { *column.add(row) };
            }
        }
        barrier();
        tile += step;
    }
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = acc };
    }
}
