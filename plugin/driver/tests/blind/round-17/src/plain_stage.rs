//! Plain shared-memory kernels that stage one tile at a time and read it back, with block
//! barriers between the staging and the reading.

use crate::common::*;
use crate::device::launch;
use crate::device::strided::strided;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// All threads stage the tile; warp 0 sums its columns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_stage_tile(input: *const f32, tiles: u32, out: *mut f32) {
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

/// Staging through the device API's `strided`; each warp sums half of the rows and warp 1
/// hands its sums over through a second area at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_stage_strided(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = (tid % WARP) as usize;
    let half = (tid / WARP) as usize;
    let staged = dynamic_shared_base::<f32>();
    let partials = staged.wrapping_add(TILE_FLOATS);
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            let source = input.add(tile as usize * TILE_FLOATS);
            strided(
                tid as usize,
                TILE_FLOATS,
                BLOCK as usize,
                |i| *source.add(i),
                |i, value: f32| *staged.add(i) = value,
            );
            barrier();
            for row in 0..ROWS / 2 {
                acc += *staged.add((half * ROWS / 2 + row) * COLS + column);
            }
            barrier();
            tile += grid;
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

/// One tile at a time, one barrier per tile, after the staging.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_stage_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
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
            tile += grid;
        }
        if tid < WARP {
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}

/// One tile at a time, the barrier after the reads placed with the reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_stage_reader_barrier(input: *const f32, tiles: u32, out: *mut f32) {
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
                barrier();
            }
            tile += grid;
        }
        if tid < WARP {
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}
