//! Kernels without the pipeline: the block stages each tile in shared memory with ordinary
//! loads and stores and orders them with block barriers.
#![allow(unsafe_op_in_unsafe_fn)]

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::strided::strided;
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};
use crate::{BLOCK_THREADS, COLS, ROWS, TILE_BYTES, TILE_FLOATS, column_sum, owned_tiles, store_column};

/// Every thread copies four floats of the tile (`tid + 64k`) into `buffer`.
#[inline(always)]
unsafe fn stage_tile(buffer: *mut f32, input: *const f32, t: u32, tid: u32) {
    let source = input.add(t as usize * TILE_FLOATS);
    let mut i = tid as usize;
    while i < TILE_FLOATS {
        *buffer.add(i) = *source.add(i);
        i += BLOCK_THREADS as usize;
    }
}

/// Stage, barrier, warp 0 sums its columns, barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_stage_then_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        barrier();
        if tid < 32 {
            sum += column_sum(tile, tid as usize);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// Two buffers: the next tile is staged into the other buffer while warp 0 reads this one,
/// one barrier per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let base = dynamic_shared_base::<f32>();
    let buffer = |k: u32| base.wrapping_add((k as usize % 2) * TILE_FLOATS);
    let n = owned_tiles(tiles);
    let first = block_idx_x();
    let step = grid_dim_x();
    if n > 0 {
        stage_tile(buffer(0), input, first, tid);
    }
    barrier();
    let mut sum = 0.0f32;
    for k in 0..n {
        if k + 1 < n {
            stage_tile(buffer(k + 1), input, first + (k + 1) * step, tid);
        }
        if tid < 32 {
            sum += column_sum(buffer(k), tid as usize);
        }
        barrier();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// Both warps sum half of every column (warp `w` rows `4w..4w+4`); the halves meet in a
/// scratch area after the tile buffer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_half_columns_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let scratch = tile.add(TILE_FLOATS);
    let col = (tid % 32) as usize;
    let half = (tid / 32) as usize;
    let mut part = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        barrier();
        for row in half * 4..half * 4 + 4 {
            part += *tile.add(row * COLS + col);
        }
        barrier();
        t += grid_dim_x();
    }
    *scratch.add(tid as usize) = part;
    barrier();
    if tid < 32 {
        store_column(out, col, *scratch.add(col) + *scratch.add(col + 32));
    }
}

/// The tile is staged with the device API's batched `strided` loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_strided_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
        let source = input.add(t as usize * TILE_FLOATS);
        strided(tid as usize, TILE_FLOATS, BLOCK_THREADS as usize, |i| *source.add(i), |i, v| *tile.add(i) = v);
        barrier();
        if tid < 32 {
            sum += column_sum(tile, tid as usize);
        }
        barrier();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// Warp 0 sums its column with the rows written out by `unrolled!`; the tile buffer sits at
/// byte 4096.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_unrolled_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>().add(1024);
    let mut sum = 0.0f32;
    let mut left = owned_tiles(tiles);
    let mut t = block_idx_x();
    while left > 0 {
        stage_tile(tile, input, t, tid);
        barrier();
        if tid < 32 {
            let col = tid as usize;
            unrolled!(R < ROWS => {
                sum += *tile.add(R * COLS + col);
            });
        }
        barrier();
        t += grid_dim_x();
        left -= 1;
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// The tile is staged transposed (column `c` in floats `8c..8c+8`), and each consumer sums its
/// eight contiguous floats through a slice.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_transposed_slice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let source = input.add(t as usize * TILE_FLOATS);
        for k in 0..4usize {
            let i = tid as usize + k * BLOCK_THREADS as usize;
            let (row, col) = (i / COLS, i % COLS);
            *tile.add(col * ROWS + row) = *source.add(i);
        }
        barrier();
        if tid < 32 {
            let column = slice::from_raw_parts(tile.add(tid as usize * ROWS), ROWS);
            sum += column.iter().sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

/// No barrier after the sums: the next tile's staging overwrites the buffer while warp 0 may
/// still be reading it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_bad_no_barrier_after_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        barrier();
        if tid < 32 {
            sum += column_sum(tile, tid as usize);
        }
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// No barrier between staging and summing: warp 0 reads the floats warp 1 stages before they
/// are written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_bad_no_barrier_before_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
        stage_tile(tile, input, t, tid);
        if tid < 32 {
            sum += column_sum(tile, tid as usize);
        }
        barrier();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// The barrier after the sums is inside the `tid < 32` branch: warp 0's barriers pair with
/// warp 1's next staging barrier, so staging and reading interleave (and the last barrier is
/// reached by warp 0 alone).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_bad_barrier_in_reader_branch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        barrier();
        if tid < 32 {
            sum += column_sum(tile, tid as usize);
            barrier();
        }
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// Double buffer whose buffers are `2 * TILE_BYTES` apart on a `*mut f32` (bytes used as a
/// float count): the second buffer starts at byte 8192, past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_bad_second_buffer_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    // Two tiles of room between the buffers, counted in bytes but added to a `*mut f32`.
    const BUFFER_STRIDE: usize = 2 * TILE_BYTES as usize;
    let tid = thread_idx_x();
    let base = dynamic_shared_base::<f32>();
    let buffer = |k: u32| base.wrapping_add((k as usize % 2) * BUFFER_STRIDE);
    let n = owned_tiles(tiles);
    let first = block_idx_x();
    let step = grid_dim_x();
    if n > 0 {
        stage_tile(buffer(0), input, first, tid);
    }
    barrier();
    let mut sum = 0.0f32;
    for k in 0..n {
        if k + 1 < n {
            stage_tile(buffer(k + 1), input, first + (k + 1) * step, tid);
        }
        if tid < 32 {
            sum += column_sum(buffer(k), tid as usize);
        }
        barrier();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// Double buffer that stages the next tile into the buffer being read (`buffer(k)` where
/// `buffer(k + 1)` was meant).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_bad_double_buffer_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let base = dynamic_shared_base::<f32>();
    let buffer = |k: u32| base.wrapping_add((k as usize % 2) * TILE_FLOATS);
    let n = owned_tiles(tiles);
    let first = block_idx_x();
    let step = grid_dim_x();
    if n > 0 {
        stage_tile(buffer(0), input, first, tid);
    }
    barrier();
    let mut sum = 0.0f32;
    for k in 0..n {
        if k + 1 < n {
            stage_tile(buffer(k), input, first + (k + 1) * step, tid);
        }
        if tid < 32 {
            sum += column_sum(buffer(k), tid as usize);
        }
        barrier();
    }
    if tid < 32 {
        store_column(out, tid as usize, sum);
    }
}

/// Per tile, warp 1 sums the bottom half of each column into a scratch row that reuses the
/// tile's first row (floats 0..32), which warp 0 is still reading for the top half.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_plain_bad_scratch_overlaps_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let scratch = tile;
    let col = (tid % 32) as usize;
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input, t, tid);
        barrier();
        let mut half = 0.0f32;
        let rows = if tid < 32 { 0..4 } else { 4..8 };
        for row in rows {
            half += *tile.add(row * COLS + col);
        }
        if tid >= 32 {
            *scratch.add(col) = half;
        }
        barrier();
        if tid < 32 {
            sum += half + *scratch.add(col);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        store_column(out, col, sum);
    }
}
