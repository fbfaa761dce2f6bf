//! Plain shared-memory kernels that keep running sums in shared memory, and kernels whose
//! idle threads return early.

use crate::common::*;
use crate::device::launch;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// Sixty-four running sums in shared memory, one per thread (column, half), after the staged
/// tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_accum_slots(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % COLS;
    let half = tid / COLS;
    let staged = dynamic_shared_base::<f32>();
    let slots = staged.wrapping_add(TILE_FLOATS);
    let mut tile = block;
    unsafe {
        *slots.add(tid) = 0.0;
        while tile < tiles {
            let source = input.add(tile as usize * TILE_FLOATS);
            for k in 0..TILE_FLOATS / BLOCK as usize {
                *staged.add(k * BLOCK as usize + tid) = *source.add(k * BLOCK as usize + tid);
            }
            barrier();
            for row in 0..ROWS / 2 {
                *slots.add(tid) += *staged.add((half * ROWS / 2 + row) * COLS + column);
            }
            barrier();
            tile += grid;
        }
        barrier();
        if half == 0 {
            *out.add(block as usize * COLS + column) = *slots.add(column) + *slots.add(COLS + column);
        }
    }
}

/// Sums from global memory, combined through shared memory; warp 1 returns once its sums are
/// handed over.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_early_return_idle(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = (tid % WARP) as usize;
    let half = (tid / WARP) as usize;
    let partials = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            let rows = input.add(tile as usize * TILE_FLOATS + half * (ROWS / 2) * COLS);
            for row in 0..ROWS / 2 {
                acc += *rows.add(row * COLS + column);
            }
            tile += grid;
        }
        *partials.add(tid as usize) = acc;
        barrier();
        if tid >= WARP {
            return;
        }
        *out.add(block as usize * COLS + column) = *partials.add(column) + *partials.add(COLS + column);
    }
}

/// Running sums in shared memory, cleared by thread 0 for everyone.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_accum_cleared_by_one(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % COLS;
    let half = tid / COLS;
    let slots = dynamic_shared_base::<f32>();
    unsafe {
        if tid == 0 {
            for i in 0..BLOCK as usize {
                *slots.add(i) = 0.0;
            }
        }
        let mut tile = block;
        while tile < tiles {
            let rows = input.add(tile as usize * TILE_FLOATS + half * (ROWS / 2) * COLS);
            let mut sum = 0.0f32;
            for row in 0..ROWS / 2 {
                sum += *rows.add(row * COLS + column);
            }
            *slots.add(tid) += sum;
            tile += grid;
        }
        barrier();
        if half == 0 {
            *out.add(block as usize * COLS + column) = *slots.add(column) + *slots.add(COLS + column);
        }
    }
}

/// Thirty-two running sums in shared memory, one per column, both warps adding their rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_accum_column_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % COLS;
    let half = tid / COLS;
    let staged = dynamic_shared_base::<f32>();
    let sums = staged.wrapping_add(TILE_FLOATS);
    let mut tile = block;
    unsafe {
        if half == 0 {
            *sums.add(column) = 0.0;
        }
        while tile < tiles {
            let source = input.add(tile as usize * TILE_FLOATS);
            for k in 0..TILE_FLOATS / BLOCK as usize {
                *staged.add(k * BLOCK as usize + tid) = *source.add(k * BLOCK as usize + tid);
            }
            barrier();
            let mut part = 0.0f32;
            for row in 0..ROWS / 2 {
                part += *staged.add((half * ROWS / 2 + row) * COLS + column);
            }
            *sums.add(column) += part;
            barrier();
            tile += grid;
        }
        if half == 0 {
            *out.add(block as usize * COLS + column) = *sums.add(column);
        }
    }
}

/// One tile at a time; warp 1 only helps staging and leaves when no tile is left for it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_helper_warp_leaves(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            if tid >= WARP && tile + grid >= tiles {
                return;
            }
            let source = input.add(tile as usize * TILE_FLOATS);
            for k in 0..TILE_FLOATS / BLOCK as usize {
                let i = tid as usize + k * BLOCK as usize;
                *staged.add(i) = *source.add(i);
            }
            barrier();
            if tid < WARP {
                for row in 0..ROWS {
                    acc += *staged.add(row * COLS + tid as usize);
                }
            }
            barrier();
            tile += grid;
        }
        if tid < WARP {
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}
