//! Plain shared-memory kernels that reduce each staged tile's rows with a tree in place.

use crate::common::*;
use crate::device::launch;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// Stages one tile with a per-thread loop.
#[inline(always)]
unsafe fn stage_tile(staged: *mut f32, source: *const f32, tid: usize) {
    let mut i = tid;
    while i < TILE_FLOATS {
        unsafe { *staged.add(i) = *source.add(i) };
        i += BLOCK as usize;
    }
}

/// Rows folded in half, in quarters, then in eighths, a barrier after every level.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_tree_rows(input: *const f32, tiles: u32, out: *mut f32) {
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
            stage_tile(staged, input.add(tile as usize * TILE_FLOATS), tid);
            barrier();
            let mut half = ROWS / 2;
            while half > 0 {
                let mut i = tid;
                while i < half * COLS {
                    *staged.add(i) += *staged.add(i + half * COLS);
                    i += BLOCK as usize;
                }
                barrier();
                half /= 2;
            }
            if tid < COLS {
                acc += *staged.add(tid);
            }
            barrier();
            tile += grid;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// The same tree over the levels `[4, 2, 1]`, each level a `step_by` loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_tree_levels(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    unsafe {
        for tile in (block..tiles).step_by(grid as usize) {
            stage_tile(staged, input.add(tile as usize * TILE_FLOATS), tid);
            barrier();
            for rows in [4usize, 2, 1] {
                for i in (tid..rows * COLS).step_by(BLOCK as usize) {
                    *staged.add(i) += *staged.add(i + rows * COLS);
                }
                barrier();
            }
            if tid < COLS {
                acc += *staged.add(tid);
            }
            barrier();
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// The tree with one barrier after all of its levels.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_tree_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
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
            stage_tile(staged, input.add(tile as usize * TILE_FLOATS), tid);
            barrier();
            let mut half = ROWS / 2;
            while half > 0 {
                let mut i = tid;
                while i < half * COLS {
                    *staged.add(i) += *staged.add(i + half * COLS);
                    i += BLOCK as usize;
                }
                half /= 2;
            }
            barrier();
            if tid < COLS {
                acc += *staged.add(tid);
            }
            barrier();
            tile += grid;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// The tree, threads with nothing left to fold leaving it early.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_tree_idle_leave(input: *const f32, tiles: u32, out: *mut f32) {
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
            stage_tile(staged, input.add(tile as usize * TILE_FLOATS), tid);
            barrier();
            let mut half = ROWS / 2;
            while half > 0 {
                if tid >= half * COLS {
                    break;
                }
                let mut i = tid;
                while i < half * COLS {
                    *staged.add(i) += *staged.add(i + half * COLS);
                    i += BLOCK as usize;
                }
                barrier();
                half /= 2;
            }
            if tid < COLS {
                acc += *staged.add(tid);
            }
            barrier();
            tile += grid;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}
