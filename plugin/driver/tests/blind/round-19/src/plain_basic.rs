//! Plain shared-memory kernels written inline: tiles staged by the block between block
//! barriers, single and double buffers, the whole window at once, a transposed staging, and
//! partial sums exchanged between the two warps.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, launch, thread_idx_x};
use crate::{COLS, ROWS, TILE};

#[inline(always)]
fn owned(tiles: u32, block: u32, grid: u32) -> u32 {
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// The block stages each tile (four floats per thread), warp 0 sums the columns, and a second
/// barrier keeps the next staging off the tile being summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_stage_warp0_sums(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..ROWS {
                acc += *s.add(r * COLS + tid);
            }
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Both warps sum: warp `h` takes rows `4h..4h + 4`; the barrier opens each tile, and warp 1's
/// partials go to their own 32 floats after the tile before warp 0 adds them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_halves_combine(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let smem = dynamic_shared_base::<f32>();
    let stage = smem;
    let partials = smem.add(TILE);
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        barrier();
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *stage.add(64 * k + tid) = *src.add(64 * k + tid);
        }
        barrier();
        for r in 4 * half..4 * half + 4 {
            acc += *stage.add(r * COLS + col);
        }
        t += grid;
    }
    if half == 1 {
        *partials.add(col) = acc;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * COLS + col) = acc + *partials.add(col);
    }
}

/// Double buffer with one barrier per tile: tile `k + 1` is staged into the other buffer while
/// warp 0 sums tile `k`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    let tile_src = |k: u32| input.wrapping_add((block + k * grid) as usize * TILE);
    if n > 0 {
        let src = tile_src(0);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..n {
        if k + 1 < n {
            let dst = s.add(((k + 1) & 1) as usize * TILE);
            let src = tile_src(k + 1);
            for q in 0..4 {
                *dst.add(tid + 64 * q) = *src.add(tid + 64 * q);
            }
        }
        if tid < 32 {
            let cur = s.add((k & 1) as usize * TILE);
            for r in 0..ROWS {
                acc += *cur.add(r * COLS + tid);
            }
        }
        barrier();
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Up to eight tiles staged at once (the whole 8 KiB window), the two warps taking alternate
/// tiles; the first 32 floats are reused for warp 1's partials once the last batch is summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_all_tiles_at_once(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let c = tid % COLS;
    let half = tid / COLS;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n_owned = owned(tiles, block, grid);
    let mut acc = 0.0f32;
    let mut first = 0u32;
    while first < n_owned {
        let n = (n_owned - first).min(8) as usize;
        for j in 0..n {
            let src = input.add((block + (first + j as u32) * grid) as usize * TILE);
            for k in 0..4 {
                *s.add(j * TILE + tid + 64 * k) = *src.add(tid + 64 * k);
            }
        }
        barrier();
        let mut j = half;
        while j < n {
            for r in 0..ROWS {
                acc += *s.add(j * TILE + r * COLS + c);
            }
            j += 2;
        }
        barrier();
        first += 8;
    }
    if half == 1 {
        *s.add(c) = acc;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * COLS + c) = acc + *s.add(c);
    }
}

/// Tiles staged transposed (column-major, eight floats per column) so that each summing thread
/// reads eight consecutive floats; `loop` with `break`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_transposed_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    loop {
        if t >= tiles {
            break;
        }
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            let e = tid + 64 * k;
            let (r, c) = (e / COLS, e % COLS);
            *s.add(c * ROWS + r) = *src.add(e);
        }
        barrier();
        if tid < 32 {
            let column = s.add(tid * ROWS);
            for r in 0..ROWS {
                acc += *column.add(r);
            }
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// No staging: each thread reads its half-column from global memory; shared memory only holds
/// the 64 partials, combined by warp 0 after one barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_direct_partials(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE + half * 4 * COLS + col);
        acc += *src + *src.add(COLS) + *src.add(2 * COLS) + *src.add(3 * COLS);
        t += grid;
    }
    *s.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = *s.add(tid) + *s.add(tid + 32);
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// The barrier after warp 0's sums was dropped: warp 1 restages the next tile while warp 0 is
/// still reading the current one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_bad_restage_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..ROWS {
                acc += *s.add(r * COLS + tid);
            }
        }
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Double buffer whose next tile is staged into buffer `k & 1`, the one warp 0 is reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_bad_double_buffer_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    let tile_src = |k: u32| input.wrapping_add((block + k * grid) as usize * TILE);
    if n > 0 {
        let src = tile_src(0);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..n {
        let slot = (k & 1) as usize;
        if k + 1 < n {
            let dst = s.add(slot * TILE);
            let src = tile_src(k + 1);
            for q in 0..4 {
                *dst.add(tid + 64 * q) = *src.add(tid + 64 * q);
            }
        }
        if tid < 32 {
            let cur = s.add(slot * TILE);
            for r in 0..ROWS {
                acc += *cur.add(r * COLS + tid);
            }
        }
        barrier();
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Warp 1 stores its partials into the stage's first row ("the stage is free now") right after
/// its own last reads, while warp 0 may still be reading that row of the last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_bad_partials_into_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let smem = dynamic_shared_base::<f32>();
    let stage = smem;
    let partials = smem;
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        barrier();
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *stage.add(64 * k + tid) = *src.add(64 * k + tid);
        }
        barrier();
        for r in 4 * half..4 * half + 4 {
            acc += *stage.add(r * COLS + col);
        }
        t += grid;
    }
    if half == 1 {
        *partials.add(col) = acc;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * COLS + col) = acc + *partials.add(col);
    }
}

/// The closing barrier of each tile sits inside warp 0's branch: warp 0 reaches two barriers per
/// tile and warp 1 one, so they pair up wrongly and warp 1 restages under warp 0's reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_bad_barrier_inside_warp0(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..ROWS {
                acc += *s.add(r * COLS + tid);
            }
            barrier();
        }
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Double buffer whose second buffer is placed `TILE` bytes in (through a byte pointer) instead
/// of `TILE` floats: the buffers overlap, and each staging overwrites the tile being summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_bad_second_buffer_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let base = dynamic_shared_base::<u8>();
    let bufs: [*mut f32; 2] = [base as *mut f32, base.add(TILE) as *mut f32];
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    if n > 0 {
        let src = input.add(block as usize * TILE);
        for k in 0..4 {
            *bufs[0].add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..n {
        if k + 1 < n {
            let dst = bufs[((k + 1) & 1) as usize];
            let src = input.add((block + (k + 1) * grid) as usize * TILE);
            for q in 0..4 {
                *dst.add(tid + 64 * q) = *src.add(tid + 64 * q);
            }
        }
        if tid < 32 {
            let cur = bufs[(k & 1) as usize];
            for r in 0..ROWS {
                acc += *cur.add(r * COLS + tid);
            }
        }
        barrier();
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// A tree over the staged tile (rows 4..8 onto 0..4, then 2..4 onto 0..2, then row 1 onto row 0)
/// with no barrier between levels: the last level reads warp 1's results before they are written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_plain_bad_tree_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        let mut span = TILE / 2;
        while span >= COLS {
            let mut e = tid;
            while e < span {
                *s.add(e) += *s.add(e + span);
                e += 64;
            }
            span /= 2;
        }
        if tid < 32 {
            acc += *s.add(tid);
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}
