//! Style "tree": reductions. Halving strides in shared memory, warp shuffles through the device
//! API's `segment_sum`, the device API's `block_sum`, and a tree over a two-dimensional view of
//! the staged tile.

use crate::device::reduce::{block_sum, segment_sum};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, launch, lane_id, thread_idx_x, warp_id};

const TILE: usize = 256;
const COLS: usize = 32;

#[inline(always)]
unsafe fn stage_tile(s: *mut f32, src: *const f32, tid: usize) {
    let mut i = tid;
    while i < TILE {
        unsafe { *s.add(i) = *src.add(i) };
        i += 64;
    }
}

/// Correct: stage the tile, then fold it in halves (128, 64, 32 floats) with a barrier after
/// every level, so that `s[0..32]` holds the tile's column sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_halving(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(s, input.add(t as usize * TILE), tid) };
        barrier();
        let mut stride = TILE / 2;
        while stride >= COLS {
            let mut i = tid;
            while i < stride {
                unsafe { *s.add(i) += *s.add(i + stride) };
                i += 64;
            }
            barrier();
            stride /= 2;
        }
        if tid < COLS {
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the halving tree with a single barrier after the whole fold: the level of stride 32
/// reads `s[32..64]`, which warp 1 writes at the level of stride 64 in the same interval.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_halving_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(s, input.add(t as usize * TILE), tid) };
        barrier();
        let mut stride = TILE / 2;
        while stride >= COLS {
            let mut i = tid;
            while i < stride {
                unsafe { *s.add(i) += *s.add(i + stride) };
                i += 64;
            }
            stride /= 2;
        }
        barrier();
        if tid < COLS {
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the classic tree with the barrier inside `if tid < stride`. At the last level
/// (stride 32) only warp 0 reaches it; it pairs with warp 1's end-of-tile barrier and the
/// warps drift a tile apart (barrier under a divergent branch, race on the staged tile).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_barrier_in_branch(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(s, input.add(t as usize * TILE), tid) };
        barrier();
        let mut stride = TILE / 2;
        while stride >= COLS {
            if tid < stride {
                let mut i = tid;
                while i < stride {
                    unsafe { *s.add(i) += *s.add(i + stride) };
                    i += 64;
                }
                barrier();
            }
            stride /= 2;
        }
        if tid < COLS {
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: warp 1 "has nothing to do" at the stride-32 level, so each thread runs as many
/// levels as it takes part in, each followed by a barrier: warp 1 reaches one barrier fewer
/// per tile (barrier in a loop whose trip count depends on the thread), runs ahead and
/// restages the tile warp 0 is still folding.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_levels_per_warp(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let levels = if tid < COLS { 3 } else { 2 };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(s, input.add(t as usize * TILE), tid) };
        barrier();
        let mut stride = TILE / 2;
        for _ in 0..levels {
            let mut i = tid;
            while i < stride {
                unsafe { *s.add(i) += *s.add(i + stride) };
                i += 64;
            }
            barrier();
            stride /= 2;
        }
        if tid < COLS {
            acc += unsafe { *s.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: staged tile, then warp 0 reads it as 8 rows × 4 groups of 8 columns: lane `l`
/// takes row `l % 8` of column group `l / 8`; eight partials per lane, summed over the 8 lanes
/// of a group with `segment_sum(·, 8)` after the loop (registers only).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_shuffle_segments(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let row = tid % 8;
    let group = (tid / 8) % 4;
    let mut acc = [0.0f32; 8];
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(s, input.add(t as usize * TILE), tid) };
        barrier();
        if tid < COLS {
            let base = unsafe { s.add(row * COLS + group * 8) };
            for (i, a) in acc.iter_mut().enumerate() {
                *a += unsafe { *base.add(i) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        let mut mine = 0.0f32;
        for (i, a) in acc.iter().enumerate() {
            let total = segment_sum(*a, 8);
            if i == row {
                mine = total;
            }
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + group * 8 + row) = mine };
    }
}

/// Correct: 32 block reductions through the device API's `block_sum` (two barriers each). For
/// column `c`, thread `tid` contributes row `tid % 8` of the block's tiles `tid / 8`,
/// `tid / 8 + 8`, …; thread 0 writes the total.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_block_sum_columns(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let grid = grid_dim_x();
    let scratch = dynamic_shared_base::<f32>();
    let row = (tid % 8) as usize;
    for c in 0..COLS {
        let mut v = 0.0f32;
        let mut j = tid / 8;
        loop {
            let t = b + j * grid;
            if t >= tiles {
                break;
            }
            v += unsafe { *input.add(t as usize * TILE + row * COLS + c) };
            j += 8;
        }
        let total = block_sum(v, scratch);
        if tid == 0 {
            unsafe { *out.add(b as usize * COLS + c) = total };
        }
    }
}

/// Correct: each warp takes every other tile of the block; inside a warp, lane `l` holds row
/// `l % 8` of column group `l / 8`, and `segment_sum(·, 8)` folds the rows. The warps'
/// per-column results meet in shared memory after a barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_shuffle_two_warps(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let warp = warp_id() as usize;
    let lane = lane_id() as usize;
    let row = lane % 8;
    let group = lane / 8;
    let grid = grid_dim_x();
    let mut acc = [0.0f32; 8];
    let mut t = block_idx_x() + warp as u32 * grid;
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE + row * COLS + group * 8) };
        for (i, a) in acc.iter_mut().enumerate() {
            *a += unsafe { *src.add(i) };
        }
        t += 2 * grid;
    }
    let parts = dynamic_shared_base::<f32>();
    for (i, a) in acc.iter().enumerate() {
        let total = segment_sum(*a, 8);
        if i == row {
            unsafe { *parts.add(warp * COLS + group * 8 + i) = total };
        }
    }
    barrier();
    if warp == 0 {
        let total = unsafe { *parts.add(lane) + *parts.add(COLS + lane) };
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = total };
    }
}

/// Broken: `r10_tree_shuffle_two_warps` without the barrier ("the shuffles already synchronise"):
/// they synchronise a warp, not the block, so warp 0 reads warp 1's slots before they are
/// written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_shuffle_two_warps_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let warp = warp_id() as usize;
    let lane = lane_id() as usize;
    let row = lane % 8;
    let group = lane / 8;
    let grid = grid_dim_x();
    let mut acc = [0.0f32; 8];
    let mut t = block_idx_x() + warp as u32 * grid;
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE + row * COLS + group * 8) };
        for (i, a) in acc.iter_mut().enumerate() {
            *a += unsafe { *src.add(i) };
        }
        t += 2 * grid;
    }
    let parts = dynamic_shared_base::<f32>();
    for (i, a) in acc.iter().enumerate() {
        let total = segment_sum(*a, 8);
        if i == row {
            unsafe { *parts.add(warp * COLS + group * 8 + i) = total };
        }
    }
    if warp == 0 {
        let total = unsafe { *parts.add(lane) + *parts.add(COLS + lane) };
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = total };
    }
}

type Rows = [[f32; COLS]; 8];

/// Correct: the staged tile seen as `[[f32; 32]; 8]`; the rows are folded in halves (4, 2, 1
/// rows) with a barrier after every level; each level's elements are spread over the threads
/// by a flat index.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_row_fold(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let rows = dynamic_shared_base::<Rows>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) as *const Rows };
        for e in [tid, tid + 64, tid + 128, tid + 192] {
            unsafe { (*rows)[e / COLS][e % COLS] = (*src)[e / COLS][e % COLS] };
        }
        barrier();
        for half in [4usize, 2, 1] {
            let mut e = tid;
            while e < half * COLS {
                let (r, c) = (e / COLS, e % COLS);
                unsafe { (*rows)[r][c] += (*rows)[r + half][c] };
                e += 64;
            }
            barrier();
        }
        if tid < COLS {
            acc += unsafe { (*rows)[0][tid] };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: registers only, no shared memory. Warp `w` owns columns `16w..16w+16`; lane `l`
/// sums column `16w + l / 2` over the rows of parity `l % 2`, and `segment_sum(·, 2)` joins the
/// two parities.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_tree_registers_only(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let warp = warp_id() as usize;
    let lane = lane_id() as usize;
    let column = 16 * warp + lane / 2;
    let parity = lane % 2;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        let mut r = parity;
        while r < 8 {
            acc += unsafe { *src.add(r * COLS + column) };
            r += 2;
        }
        t += grid_dim_x();
    }
    let total = segment_sum(acc, 2);
    if parity == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + column) = total };
    }
}
