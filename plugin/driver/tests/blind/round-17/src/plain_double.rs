//! Plain shared-memory kernels with several tile buffers: the next tile is staged while the
//! current one is read, one barrier per tile.

use crate::common::*;
use crate::device::launch;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// Stages the block's `k`-th tile into buffer `slot`.
#[inline(always)]
unsafe fn load(buffers: *mut f32, slot: usize, input: *const f32, tile: u32, tid: usize) {
    let destination = unsafe { buffers.add(slot * TILE_FLOATS) };
    let source = unsafe { input.add(tile as usize * TILE_FLOATS) };
    let mut i = tid;
    while i < TILE_FLOATS {
        unsafe { *destination.add(i) = *source.add(i) };
        i += BLOCK as usize;
    }
}

/// Sums this lane's column of buffer `slot`.
#[inline(always)]
unsafe fn column_of(buffers: *const f32, slot: usize, column: usize) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += unsafe { *buffers.add(slot * TILE_FLOATS + row * COLS + column) };
    }
    sum
}

/// Two buffers: tile `k + 1` goes into buffer `(k + 1) % 2` while buffer `k % 2` is read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let buffers = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    unsafe {
        if count > 0 {
            load(buffers, 0, input, block, tid);
        }
        barrier();
        for k in 0..count {
            if k + 1 < count {
                load(buffers, ((k + 1) % 2) as usize, input, block + (k + 1) * grid, tid);
            }
            if tid < COLS {
                acc += column_of(buffers, (k % 2) as usize, tid);
            }
            barrier();
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// Three buffers, staging two tiles ahead.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_triple_ahead(input: *const f32, tiles: u32, out: *mut f32) {
    const BUFFERS: u32 = 3;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let buffers = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    unsafe {
        for k in 0..count.min(BUFFERS - 1) {
            load(buffers, k as usize, input, block + k * grid, tid);
        }
        barrier();
        let mut slot = 0usize;
        for k in 0..count {
            let ahead = k + BUFFERS - 1;
            if ahead < count {
                load(buffers, (ahead % BUFFERS) as usize, input, block + ahead * grid, tid);
            }
            if tid < COLS {
                acc += column_of(buffers, slot, tid);
            }
            slot = if slot + 1 == BUFFERS as usize { 0 } else { slot + 1 };
            barrier();
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// Two buffers, the next tile staged into the current buffer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_double_current(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let buffers = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    unsafe {
        if count > 0 {
            load(buffers, 0, input, block, tid);
        }
        barrier();
        for k in 0..count {
            let current = (k % 2) as usize;
            if k + 1 < count {
                load(buffers, current, input, block + (k + 1) * grid, tid);
            }
            if tid < COLS {
                acc += column_of(buffers, current, tid);
            }
            barrier();
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}
