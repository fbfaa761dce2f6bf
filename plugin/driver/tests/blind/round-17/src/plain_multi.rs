//! Plain shared-memory kernels that stage several tiles per round, with nested loops over the
//! tiles of a batch and their rows, some generic over the batch size.

use crate::common::*;
use crate::device::launch;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// Batches of up to `BATCH` tiles: all threads stage, then warp 0 and warp 1 each sum half of
/// the rows of every tile; warp 1's sums meet warp 0's after the last batch, behind the
/// batch area.
#[inline(always)]
unsafe fn batched<const BATCH: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % COLS;
    let half = tid / COLS;
    let count = owned_tiles(tiles, block, grid);
    let staged = dynamic_shared_base::<f32>();
    let partials = staged.wrapping_add(BATCH as usize * TILE_FLOATS);
    let mut acc = 0.0f32;
    let mut first = 0;
    unsafe {
        while first < count {
            let n = BATCH.min(count - first);
            for j in 0..n {
                let source = input.add((block + (first + j) * grid) as usize * TILE_FLOATS);
                let slot = staged.add(j as usize * TILE_FLOATS);
                let mut i = tid;
                while i < TILE_FLOATS {
                    *slot.add(i) = *source.add(i);
                    i += BLOCK as usize;
                }
            }
            barrier();
            for j in 0..n as usize {
                for row in 0..ROWS / 2 {
                    acc += *staged.add(j * TILE_FLOATS + (half * ROWS / 2 + row) * COLS + column);
                }
            }
            barrier();
            first += n;
        }
        if half == 1 {
            *partials.add(column) = acc;
        }
        barrier();
        if half == 0 {
            *out.add(block as usize * COLS + column) = acc + *partials.add(column);
        }
    }
}

/// Batches of two tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_generic_batch2(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    unsafe { batched::<2>(input, tiles, out) }
}

/// Batches of seven tiles (7 KiB, the partial sums behind them).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_generic_batch7(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    unsafe { batched::<7>(input, tiles, out) }
}

/// Batches of four tiles, warp 0 summing every row; nested loops over tiles and rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_batch4(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: u32 = 4;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut first = 0;
    unsafe {
        while first < count {
            let n = BATCH.min(count - first);
            for j in 0..n {
                let source = input.add((block + (first + j) * grid) as usize * TILE_FLOATS);
                for k in 0..TILE_FLOATS / BLOCK as usize {
                    let i = k * BLOCK as usize + tid;
                    *staged.add(j as usize * TILE_FLOATS + i) = *source.add(i);
                }
            }
            barrier();
            if tid < COLS {
                for j in 0..n as usize {
                    for row in 0..ROWS {
                        acc += *staged.add(j * TILE_FLOATS + row * COLS + tid);
                    }
                }
            }
            barrier();
            first += n;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// Batches of four tiles, one barrier per batch, between staging and summing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_batch4_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: u32 = 4;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut first = 0;
    unsafe {
        while first < count {
            let n = BATCH.min(count - first);
            for j in 0..n {
                let source = input.add((block + (first + j) * grid) as usize * TILE_FLOATS);
                for k in 0..TILE_FLOATS / BLOCK as usize {
                    let i = k * BLOCK as usize + tid;
                    *staged.add(j as usize * TILE_FLOATS + i) = *source.add(i);
                }
            }
            barrier();
            if tid < COLS {
                for j in 0..n as usize {
                    for row in 0..ROWS {
                        acc += *staged.add(j * TILE_FLOATS + row * COLS + tid);
                    }
                }
            }
            first += n;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}
