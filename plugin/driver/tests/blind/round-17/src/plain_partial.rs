//! Plain shared-memory kernels where threads sum from global memory and combine their
//! partial sums through shared memory once at the end.

use crate::common::*;
use crate::device::launch;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// Thread (column, half) sums four rows of its column over the block's tiles; warp 1's sums
/// meet warp 0's in shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_partials_global(input: *const f32, tiles: u32, out: *mut f32) {
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
            let source = input.add(tile as usize * TILE_FLOATS + half * (ROWS / 2) * COLS + column);
            for row in 0..ROWS / 2 {
                acc += *source.add(row * COLS);
            }
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

/// Thread `t` sums row `t / 8`, columns `4(t % 8)..+4` as 16-byte quads; the 8 × 32 partial
/// sums go to shared memory and warp 0 adds each column's eight rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_partials_quads(input: *const f32, tiles: u32, out: *mut f32) {
    const QUADS_PER_ROW: usize = COLS / 4;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let row = tid / QUADS_PER_ROW;
    let quad = tid % QUADS_PER_ROW;
    let partials = dynamic_shared_base::<[f32; 4]>();
    let mut acc = [0.0f32; 4];
    let mut tile = block;
    unsafe {
        while tile < tiles {
            let quads = input.add(tile as usize * TILE_FLOATS) as *const [f32; 4];
            let value = *quads.add(row * QUADS_PER_ROW + quad);
            for i in 0..4 {
                acc[i] += value[i];
            }
            tile += grid;
        }
        *partials.add(row * QUADS_PER_ROW + quad) = acc;
        barrier();
        if tid < COLS {
            let sums = partials as *const f32;
            let mut total = 0.0f32;
            for r in 0..ROWS {
                total += *sums.add(r * COLS + tid);
            }
            *out.add(block as usize * COLS + tid) = total;
        }
    }
}

/// As `r17_plain_partials_global`, warp 0 picking up warp 1's sums right after they are stored.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_partials_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
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
            let source = input.add(tile as usize * TILE_FLOATS + half * (ROWS / 2) * COLS + column);
            for row in 0..ROWS / 2 {
                acc += *source.add(row * COLS);
            }
            tile += grid;
        }
        if half == 1 {
            *partials.add(column) = acc;
        } else {
            *out.add(block as usize * COLS + column) = acc + *partials.add(column);
        }
    }
}

/// Batches of up to eight staged tiles; warp 1's sums go right after the batch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_partials_after_batch(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: u32 = 8;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = (tid % WARP) as usize;
    let half = (tid / WARP) as usize;
    let staged = dynamic_shared_base::<f32>();
    let partials = staged.wrapping_add(BATCH as usize * TILE_FLOATS);
    let count = owned_tiles(tiles, block, grid);
    let mut acc = 0.0f32;
    let mut done = 0;
    unsafe {
        while done < count {
            let n = BATCH.min(count - done);
            for j in 0..n {
                let source = input.add((block + (done + j) * grid) as usize * TILE_FLOATS);
                let slot = staged.add(j as usize * TILE_FLOATS);
                let mut i = tid as usize;
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
            done += n;
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
