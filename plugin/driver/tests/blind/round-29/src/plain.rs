//! Plain shared memory and block barriers, no pipeline: the whole block stages tiles with
//! ordinary loads and stores, then some threads sum; partial sums parked in scratch, double
//! buffers, a tree over rows, 16-byte quads.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::row::FourFloats;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const THREADS: usize = 64;

/// Every thread copies four floats of the tile; barrier; warp 0 sums columns; barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_stage_then_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *s.add(tid + THREADS * k) = *src.add(tid + THREADS * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *s.add(r * 32 + tid);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

/// Both warps sum half the rows of every tile; the halves meet in scratch after the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_halves_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let col = tid % 32;
    let half = tid / 32;
    let tile = dynamic_shared_base::<f32>();
    let scratch = tile.add(TILE);
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *tile.add(tid + THREADS * k) = *src.add(tid + THREADS * k);
        }
        barrier();
        for r in 4 * half..4 * half + 4 {
            acc += *tile.add(r * 32 + col);
        }
        barrier();
        t += grid_dim_x();
    }
    *scratch.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = *scratch.add(tid) + *scratch.add(tid + 32);
    }
}

#[inline(always)]
unsafe fn stage_tile(dst: *mut f32, src: *const f32, tid: usize) {
    for k in 0..4 {
        *dst.add(tid + THREADS * k) = *src.add(tid + THREADS * k);
    }
}

/// Two buffers: the next tile is staged into one while warp 0 sums the other; one barrier a
/// tile, the buffer chosen by a flag flipped each tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if mine > 0 {
        stage_tile(s, input.add(b as usize * TILE), tid);
    }
    barrier();
    let mut cur = 0usize;
    let mut acc = 0.0f32;
    for k in 0..mine {
        if k + 1 < mine {
            stage_tile(s.add((cur ^ 1) * TILE), input.add((b + (k + 1) * g) as usize * TILE), tid);
        }
        if tid < 32 {
            let buf = s.add(cur * TILE);
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        barrier();
        cur ^= 1;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Stages up to eight tiles at once (the whole window), one barrier, then warp 0 sums them all.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_batch_of_eight(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    let mut acc = 0.0f32;
    let mut first = 0u32;
    while first < mine {
        let n = (mine - first).min(8) as usize;
        for j in 0..n {
            let t = b + (first + j as u32) * g;
            stage_tile(s.add(j * TILE), input.add(t as usize * TILE), tid);
        }
        barrier();
        if tid < 32 {
            for j in 0..n {
                for r in 0..8 {
                    acc += *s.add(j * TILE + r * 32 + tid);
                }
            }
        }
        barrier();
        first += n as u32;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Each thread owns a row and four columns of every tile; after the tiles, the eight rows of
/// partials are folded by a tree with a barrier per level.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_row_tree(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let row = tid / 8;
    let quad = tid % 8;
    let tile = dynamic_shared_base::<f32>();
    let partial = tile.add(TILE);
    let mut acc = [0.0f32; 4];
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input.add(t as usize * TILE), tid);
        barrier();
        for j in 0..4 {
            acc[j] += *tile.add(row * 32 + 4 * quad + j);
        }
        barrier();
        t += grid_dim_x();
    }
    for j in 0..4 {
        *partial.add(row * 32 + 4 * quad + j) = acc[j];
    }
    barrier();
    let mut half = 4usize;
    while half > 0 {
        if row < half {
            for j in 0..4 {
                *partial.add(row * 32 + 4 * quad + j) += *partial.add((row + half) * 32 + 4 * quad + j);
            }
        }
        barrier();
        half /= 2;
    }
    if row == 0 {
        for j in 0..4 {
            *out.add(block_idx_x() as usize * 32 + 4 * quad + j) = *partial.add(4 * quad + j);
        }
    }
}

/// Stages with one 16-byte quad per thread; warp 1 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_quad_loads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let quads = dynamic_shared_base::<FourFloats>();
    let floats = quads as *const f32;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const FourFloats;
        *quads.add(tid) = *src.add(tid);
        barrier();
        if tid >= 32 {
            for r in 0..8 {
                acc += *floats.add(r * 32 + tid - 32);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid >= 32 {
        *out.add(block_idx_x() as usize * 32 + tid - 32) = acc;
    }
}

/// Stages and sums with only the barrier at the end of each tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_bad_sum_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(s, input.add(t as usize * TILE), tid);
        if tid < 32 {
            for r in 0..8 {
                acc += *s.add(r * 32 + tid);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

/// One barrier per tile, after staging; the next tile is staged while warp 0 may still read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_bad_single_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(s, input.add(t as usize * TILE), tid);
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *s.add(r * 32 + tid);
            }
        }
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

/// The barrier that ends each tile is inside the summing warp's branch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_bad_barrier_in_branch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(s, input.add(t as usize * TILE), tid);
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *s.add(r * 32 + tid);
            }
            barrier();
        }
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

/// The two warps' partials meet in scratch, read back with no barrier after the stores.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_bad_partials_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let col = tid % 32;
    let half = tid / 32;
    let tile = dynamic_shared_base::<f32>();
    let scratch = tile.add(TILE);
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input.add(t as usize * TILE), tid);
        barrier();
        for r in 4 * half..4 * half + 4 {
            acc += *tile.add(r * 32 + col);
        }
        barrier();
        t += grid_dim_x();
    }
    *scratch.add(tid) = acc;
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = *scratch.add(tid) + *scratch.add(tid + 32);
    }
}

/// Partials parked in the window's last 128 bytes, one float per thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_bad_scratch_at_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let col = tid % 32;
    let half = tid / 32;
    let tile = dynamic_shared_base::<f32>();
    let scratch = tile.add(2048 - 32);
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(tile, input.add(t as usize * TILE), tid);
        barrier();
        for r in 4 * half..4 * half + 4 {
            acc += *tile.add(r * 32 + col);
        }
        barrier();
        t += grid_dim_x();
    }
    *scratch.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = *scratch.add(tid) + *scratch.add(tid + 32);
    }
}

/// Double buffer whose prefetch goes into the buffer being summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_pl_bad_prefetch_same_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if mine > 0 {
        stage_tile(s, input.add(b as usize * TILE), tid);
    }
    barrier();
    let mut cur = 0usize;
    let mut acc = 0.0f32;
    for k in 0..mine {
        if k + 1 < mine {
            stage_tile(s.add(cur * TILE), input.add((b + (k + 1) * g) as usize * TILE), tid);
        }
        if tid < 32 {
            let buf = s.add(cur * TILE);
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        barrier();
        cur ^= 1;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}
