//! Plain shared memory reductions: row trees over a staged tile, a halving stride, warp
//! segment sums with a shared hand-off, and the device API's `block_sum` per column.

#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::reduce::{block_sum, segment_sum};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x, warp_id};

#[inline(always)]
unsafe fn stage_tile(s: *mut f32, input: *const f32, t: u32, tid: usize) {
    let src = tile_floats(input, t);
    for q in 0..4 {
        *s.add(tid + 64 * q) = *src.add(tid + 64 * q);
    }
}

/// Rows folded pairwise (8 → 4 → 2 → 1) with a barrier per level; warp 0 keeps row 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_rows_tree(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(s, input, t, tid);
        barrier();
        for h in [4usize, 2, 1] {
            for j in 0..2 {
                let i = tid + 64 * j;
                if i < h * COLS {
                    *s.add(i) += *s.add(i + h * COLS);
                }
            }
            barrier();
        }
        if tid < COLS {
            acc += *s.add(tid);
        }
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Thread `t` loads the quad of row `t % 8`, columns `4 (t / 8)…`; the eight rows of a quad
/// are eight consecutive lanes, summed with `segment_sum`; the sums meet in shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_segment_quads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let group = tid / ROWS;
    let row = tid % ROWS;
    let mut v = [0.0f32; 4];
    let mut t = block_idx_x();
    while t < tiles {
        let quad = *(tile_floats(input, t).add(row * COLS + 4 * group) as *const [f32; 4]);
        for j in 0..4 {
            v[j] += quad[j];
        }
        t += grid_dim_x();
    }
    let sums = [segment_sum(v[0], 8), segment_sum(v[1], 8), segment_sum(v[2], 8), segment_sum(v[3], 8)];
    let s = dynamic_shared_base::<[f32; 4]>();
    if row == 0 {
        *s.add(group) = sums;
    }
    barrier();
    if tid < COLS {
        let columns = dynamic_shared_base::<f32>();
        store_column(out, tid as u32, *columns.add(tid));
    }
}

/// One `block_sum` per column: thread `t` contributes row `t % 8` of the owned tiles
/// `k ≡ t / 8 (mod 8)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_block_sum_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let scratch = dynamic_shared_base::<f32>();
    let row = (tid % 8) as usize;
    let n = owned_tiles(tiles);
    for c in 0..COLS {
        let mut value = 0.0f32;
        let mut k = tid / 8;
        while k < n {
            value += *tile_floats(input, owned_tile(k)).add(c + row * COLS);
            k += 8;
        }
        let total = block_sum(value, scratch);
        if tid as usize == c {
            store_column(out, tid, total);
        }
    }
}

/// Warps take turns: warp `w` stages and sums the owned tiles `2i + w` in its own half of the
/// window; the warps' sums meet at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_warp_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let w = warp_id() as usize;
    let lane = lane_id() as usize;
    let base = dynamic_shared_base::<f32>();
    let mine = base.add(w * TILE_FLOATS);
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    let mut k0 = 0;
    while k0 < n {
        let k = k0 + w as u32;
        if k < n {
            let src = tile_floats(input, owned_tile(k));
            for r in 0..ROWS {
                *mine.add(r * COLS + lane) = *src.add(r * COLS + lane);
            }
        }
        barrier();
        if k < n {
            acc += column_sum(mine, lane);
        }
        barrier();
        k0 += 2;
    }
    let partials = base.add(2 * TILE_FLOATS);
    *partials.add(w * COLS + lane) = acc;
    barrier();
    if w == 0 {
        store_column(out, lane as u32, *partials.add(lane) + *partials.add(COLS + lane));
    }
}

/// The staged tile is halved 256 → 128 → 64 → 32 floats with a `while` stride.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_halving_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(s, input, t, tid);
        barrier();
        let mut h = TILE_FLOATS / 2;
        while h >= COLS {
            let mut i = tid;
            while i < h {
                *s.add(i) += *s.add(i + h);
                i += THREADS as usize;
            }
            barrier();
            h /= 2;
        }
        if tid < COLS {
            acc += *s.add(tid);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: the halving levels have no barrier between them (one after the loop), so the last
/// level reads `s[tid + 32]` before warp 1 has written it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_bad_levels_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(s, input, t, tid);
        barrier();
        let mut h = TILE_FLOATS / 2;
        while h >= COLS {
            let mut i = tid;
            while i < h {
                *s.add(i) += *s.add(i + h);
                i += THREADS as usize;
            }
            h /= 2;
        }
        barrier();
        if tid < COLS {
            acc += *s.add(tid);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: `block_sum`'s scratch is the staged tile itself; its warp totals are written into
/// elements 0 and 1 while other threads still read them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_bad_scratch_in_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(s, input, t, tid);
        barrier();
        for c in 0..COLS {
            let value = if tid < ROWS { *s.add(c + tid * COLS) } else { 0.0 };
            let total = block_sum(value, s);
            if tid == c {
                acc += total;
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: warp 0 picks up warp 1's partial before the barrier that publishes it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_bad_peer_read_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let w = warp_id() as usize;
    let lane = lane_id() as usize;
    let p = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    let mut k = w as u32;
    while k < n {
        acc += column_sum(tile_floats(input, owned_tile(k)), lane);
        k += 2;
    }
    *p.add(w * COLS + lane) = acc;
    let mut total = 0.0f32;
    if w == 0 {
        total = *p.add(lane) + *p.add(COLS + lane);
    }
    barrier();
    if w == 0 {
        store_column(out, lane as u32, total);
    }
}

/// Broken: the level barrier sits inside `if tid < h`; the last level (h = 32) is reached by
/// warp 0 only, which then pairs with warp 1's next barrier while warp 1 restages the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_bad_level_barrier_in_branch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(s, input, t, tid);
        barrier();
        let mut h = TILE_FLOATS / 2;
        while h >= COLS {
            if tid < h {
                let mut i = tid;
                while i < h {
                    *s.add(i) += *s.add(i + h);
                    i += THREADS as usize;
                }
                barrier();
            }
            h /= 2;
        }
        if tid < COLS {
            acc += *s.add(tid);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: eight tile slots fill the window and the per-thread partials are placed after them,
/// at byte 8192.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_rd_bad_partials_after_slots(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const SLOTS: u32 = 8;
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let partials = s.add(SLOTS as usize * TILE_FLOATS);
    let column = tid % COLS;
    let half = tid / COLS;
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    let mut k0 = 0;
    while k0 < n {
        let m = (n - k0).min(SLOTS);
        for j in 0..m {
            stage_tile(s.add(j as usize * TILE_FLOATS), input, owned_tile(k0 + j), tid);
        }
        barrier();
        for j in 0..m {
            let slot = s.add(j as usize * TILE_FLOATS);
            for r in 0..4 {
                acc += *slot.add(column + (half * 4 + r) * COLS);
            }
        }
        barrier();
        k0 += SLOTS;
    }
    *partials.add(tid) = acc;
    barrier();
    if tid < COLS {
        store_column(out, tid as u32, *partials.add(tid) + *partials.add(tid + COLS));
    }
}
