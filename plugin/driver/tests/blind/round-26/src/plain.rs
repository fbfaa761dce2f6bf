//! No pipeline: straight global reads, and plain shared staging between block barriers.

use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, launch, thread_idx_x};

const TILE_FLOATS: usize = 256;

/// No shared memory at all: warp 0 reads its columns straight from global memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_plain_no_shared(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid < 32 {
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            let tile = input.add(t as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *tile.add(r * 32 + tid as usize);
            }
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// All 64 threads stage a tile (4 floats each) into shared memory; warp 0 sums the columns
/// between two block barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_plain_staged_tile(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let buf = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let tile = input.add(t as usize * TILE_FLOATS);
        for k in 0..4usize {
            *buf.add(tid + 64 * k) = *tile.add(tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..8usize {
                acc += *buf.add(r * 32 + tid);
            }
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * 32 + tid) = acc;
    }
}

/// Warp 1 sums rows 4..8 from global memory and parks them in shared memory; after a barrier
/// warp 0 adds them to its rows 0..4.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_plain_halves_through_shared(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let partials = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let col = tid % 32;
    let first_row = (tid / 32) * 4;
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let tile = input.add(t as usize * TILE_FLOATS);
        for r in first_row..first_row + 4 {
            acc += *tile.add(r * 32 + col);
        }
        t += grid;
    }
    if tid >= 32 {
        *partials.add(col) = acc;
    }
    barrier();
    if tid < 32 {
        *out.add(block as usize * 32 + col) = acc + *partials.add(col);
    }
}

// ---------------------------------------------------------------- broken

/// Broken: no barrier after warp 0's reads, so the next tile's staging overwrites the buffer
/// while warp 0 may still be reading it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_plain_bad_staged_no_second_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let buf = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let tile = input.add(t as usize * TILE_FLOATS);
        for k in 0..4usize {
            *buf.add(tid + 64 * k) = *tile.add(tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..8usize {
                acc += *buf.add(r * 32 + tid);
            }
        }
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * 32 + tid) = acc;
    }
}

/// Broken: warp 0 reads warp 1's partial sums with no barrier between the store and the load.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_plain_bad_partials_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let partials = dynamic_shared_base::<f32>().add(7936 / 4);
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let col = tid % 32;
    let first_row = (tid / 32) * 4;
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let tile = input.add(t as usize * TILE_FLOATS);
        for r in first_row..first_row + 4 {
            acc += *tile.add(r * 32 + col);
        }
        t += grid;
    }
    if tid >= 32 {
        *partials.add(col) = acc;
    }
    if tid < 32 {
        *out.add(block as usize * 32 + col) = acc + *partials.add(col);
    }
}

/// Broken: the staging buffer starts at byte 7680, so its 1024 bytes end 512 bytes past the
/// 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_plain_bad_staging_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let buf = dynamic_shared_base::<f32>().add(7680 / 4);
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let tile = input.add(t as usize * TILE_FLOATS);
        for k in 0..4usize {
            *buf.add(tid + 64 * k) = *tile.add(tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..8usize {
                acc += *buf.add(r * 32 + tid);
            }
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * 32 + tid) = acc;
    }
}
