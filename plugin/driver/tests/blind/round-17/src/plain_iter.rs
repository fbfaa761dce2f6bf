//! Plain shared-memory kernels written with slices, iterator adaptors, `copy_nonoverlapping`
//! and the device API's `unrolled!`.

use crate::common::*;
use crate::device::launch;
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// Staging through a mutable slice, summing through `iter().skip().step_by().sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_iter_slices(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let base = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            {
                let staged = core::slice::from_raw_parts_mut(base, TILE_FLOATS);
                let source = core::slice::from_raw_parts(input.add(tile as usize * TILE_FLOATS), TILE_FLOATS);
                for i in (tid..TILE_FLOATS).step_by(BLOCK as usize) {
                    staged[i] = source[i];
                }
            }
            barrier();
            if tid < COLS {
                let staged = core::slice::from_raw_parts(base as *const f32, TILE_FLOATS);
                acc += staged.iter().skip(tid).step_by(COLS).sum::<f32>();
            }
            barrier();
            tile += grid;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// Staging and summing written out with `unrolled!`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_iter_unrolled(input: *const f32, tiles: u32, out: *mut f32) {
    const PER_THREAD: usize = TILE_FLOATS / BLOCK as usize;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            let source = input.add(tile as usize * TILE_FLOATS);
            unrolled!(K < PER_THREAD => {
                *staged.add(tid + K * BLOCK as usize) = *source.add(tid + K * BLOCK as usize);
            });
            barrier();
            if tid < COLS {
                unrolled!(ROW < ROWS => {
                    acc += *staged.add(ROW * COLS + tid);
                });
            }
            barrier();
            tile += grid;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// Each thread copies one 16-byte quad with `copy_nonoverlapping`; warp 0 walks the rows with
/// `chunks_exact`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_iter_chunks(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let base = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            let source = input.add(tile as usize * TILE_FLOATS);
            core::ptr::copy_nonoverlapping(source.add(4 * tid), base.add(4 * tid), 4);
            barrier();
            if tid < COLS {
                let staged = core::slice::from_raw_parts(base as *const f32, TILE_FLOATS);
                acc += staged.chunks_exact(COLS).map(|row| row[tid]).sum::<f32>();
            }
            barrier();
            tile += grid;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// Warp 1's sums go 4 KiB into the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_iter_scratch_offset(input: *const f32, tiles: u32, out: *mut f32) {
    const SCRATCH_OFFSET: usize = 4096;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % COLS;
    let half = tid / COLS;
    let base = dynamic_shared_base::<f32>();
    let scratch = base.wrapping_add(SCRATCH_OFFSET);
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            let source = input.add(tile as usize * TILE_FLOATS);
            for i in (tid..TILE_FLOATS).step_by(BLOCK as usize) {
                *base.add(i) = *source.add(i);
            }
            barrier();
            acc += (0..ROWS / 2).map(|row| *base.add((half * ROWS / 2 + row) * COLS + column)).sum::<f32>();
            barrier();
            tile += grid;
        }
        if half == 1 {
            *scratch.add(column) = acc;
        }
        barrier();
        if half == 0 {
            *out.add(block as usize * COLS + column) = acc + *scratch.add(column);
        }
    }
}

/// Batches of eight tiles filling the window; each column's rows read counting down.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_iter_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: u32 = 8;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let base = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut done = 0;
    unsafe {
        while done < count {
            let n = BATCH.min(count - done);
            for j in 0..n as usize {
                let source = input.add((block + (done + j as u32) * grid) as usize * TILE_FLOATS);
                for i in (tid..TILE_FLOATS).step_by(BLOCK as usize) {
                    *base.add(j * TILE_FLOATS + i) = *source.add(i);
                }
            }
            barrier();
            if tid < COLS {
                for j in 0..n as usize {
                    let tile = base.add(j * TILE_FLOATS);
                    let mut row = ROWS;
                    while row > 0 {
                        acc += *tile.add(row * COLS + tid);
                        row -= 1;
                    }
                }
            }
            barrier();
            done += n;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}
