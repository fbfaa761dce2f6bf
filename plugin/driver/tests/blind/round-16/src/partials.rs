//! Plain shared memory, no staging of tiles: each thread accumulates its share of the block's
//! tiles straight from global memory into registers, and the block reduces the per-row (or
//! per-quad) partial sums in shared memory, with a tree or a final column sweep.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x};

const TILE: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;
const BLOCK: usize = 64;
const SHARED_FLOATS: usize = 8192 / 4;

/// Thread `tid` owns column `tid % 32` of rows `tid / 32 + 2j`, `j < 4`: its four running sums
/// over the block's tiles.
#[inline(always)]
unsafe fn row_sums(input: *const f32, tiles: u32, tid: usize) -> [f32; 4] {
    let (col, row0) = (tid % COLS, tid / COLS);
    let mut acc = [0.0f32; 4];
    let mut tile = block_idx_x();
    while tile < tiles {
        let source = unsafe { input.add(tile as usize * TILE + col) };
        for (j, a) in acc.iter_mut().enumerate() {
            *a += unsafe { *source.add((row0 + 2 * j) * COLS) };
        }
        tile += grid_dim_x();
    }
    acc
}

/// The per-row sums into `rows[row·32 + col]`, then a halving tree over the rows.
/// `sync_levels` says whether each level ends with a barrier.
#[inline(always)]
unsafe fn halving_tree(input: *const f32, tiles: u32, out: *mut f32, sync_levels: bool) {
    let tid = thread_idx_x() as usize;
    let rows = dynamic_shared_base::<f32>();
    let acc = unsafe { row_sums(input, tiles, tid) };
    let (col, row0) = (tid % COLS, tid / COLS);
    for (j, a) in acc.iter().enumerate() {
        unsafe { *rows.add((row0 + 2 * j) * COLS + col) = *a };
    }
    barrier();

    let mut half = ROWS / 2;
    while half > 0 {
        let mut i = tid;
        while i < half * COLS {
            unsafe { *rows.add(i) += *rows.add(i + half * COLS) };
            i += BLOCK;
        }
        if sync_levels {
            barrier();
        }
        half /= 2;
    }
    if !sync_levels {
        barrier();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *rows.add(tid) };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_part_halving_tree(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { halving_tree(input, tiles, out, true) }
}

/// BROKEN: the tree's levels are not separated by barriers (one barrier after the whole
/// tree): the last level adds rows that the other warp is still summing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_part_tree_no_level_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { halving_tree(input, tiles, out, false) }
}

/// The same per-row sums, reduced by a doubling stride: at stride `s` row `r` (a multiple of
/// `2s`) takes row `r + s`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_part_doubling_tree(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let rows = dynamic_shared_base::<f32>();
    let acc = unsafe { row_sums(input, tiles, tid) };
    let (col, row0) = (tid % COLS, tid / COLS);
    for (j, a) in acc.iter().enumerate() {
        unsafe { *rows.add((row0 + 2 * j) * COLS + col) = *a };
    }
    barrier();

    let mut stride = 1;
    while stride < ROWS {
        let pairs = ROWS / (2 * stride);
        let mut i = tid;
        while i < pairs * COLS {
            let row = (i / COLS) * 2 * stride;
            let c = i % COLS;
            unsafe { *rows.add(row * COLS + c) += *rows.add((row + stride) * COLS + c) };
            i += BLOCK;
        }
        barrier();
        stride *= 2;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *rows.add(tid) };
    }
}

/// Thread `t` sums quad `t` of every tile (row `t / 8`, columns `4(t % 8) ..`) as one
/// `[f32; 4]`; the quads go to shared memory in tile order and warp 0 sums each column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_part_quad_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();

    let mut acc = [0.0f32; 4];
    let mut tile = first;
    while tile < tiles {
        let quads = unsafe { input.add(tile as usize * TILE) } as *const [f32; 4];
        let quad = unsafe { *quads.add(tid) };
        for (a, v) in acc.iter_mut().zip(quad) {
            *a += v;
        }
        tile += step;
    }
    unsafe { *(smem as *mut [f32; 4]).add(tid) = acc };
    barrier();
    if tid < COLS {
        let mut sum = 0.0f32;
        for row in 0..ROWS {
            sum += unsafe { *smem.add(row * COLS + tid) };
        }
        unsafe { *out.add(first as usize * COLS + tid) = sum };
    }
}

/// BROKEN: the partial sums are stored at `partials[lane]` instead of `partials[tid]`: both
/// warps write the same 32 slots, and warp 0 then adds slots 32..64 that nobody wrote.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_part_lane_indexed_slots(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let partials = dynamic_shared_base::<f32>();
    let acc = unsafe { row_sums(input, tiles, tid) };
    let mine = acc[0] + acc[1] + acc[2] + acc[3];
    unsafe { *partials.add(lane_id() as usize) = mine };
    barrier();
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *partials.add(tid) + *partials.add(tid + COLS) };
    }
}

/// BROKEN: the per-row sums go to the window's last KiB with rows padded to 33 floats (against
/// bank conflicts), but the area was sized for unpadded rows: row 7's columns 25..31 land at
/// byte 8192 and past it, outside the 8 KiB the launch provides.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_part_padded_rows_overrun(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const PITCH: usize = COLS + 1;
    let tid = thread_idx_x() as usize;
    let rows = unsafe { dynamic_shared_base::<f32>().add(SHARED_FLOATS - ROWS * COLS) };
    let acc = unsafe { row_sums(input, tiles, tid) };
    let (col, row0) = (tid % COLS, tid / COLS);
    for (j, a) in acc.iter().enumerate() {
        unsafe { *rows.add((row0 + 2 * j) * PITCH + col) = *a };
    }
    barrier();
    if tid < COLS {
        let mut sum = 0.0f32;
        for row in 0..ROWS {
            sum += unsafe { *rows.add(row * PITCH + tid) };
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = sum };
    }
}

/// BROKEN: the tree's partner is `i + half` (a float offset) instead of `i + half·32` (a row
/// offset): each level adds a neighbour in the same row, which another thread of the same
/// level is updating.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_part_tree_partner_in_floats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let rows = dynamic_shared_base::<f32>();
    let acc = unsafe { row_sums(input, tiles, tid) };
    let (col, row0) = (tid % COLS, tid / COLS);
    for (j, a) in acc.iter().enumerate() {
        unsafe { *rows.add((row0 + 2 * j) * COLS + col) = *a };
    }
    barrier();

    let mut half = ROWS / 2;
    while half > 0 {
        let mut i = tid;
        while i < half * COLS {
            unsafe { *rows.add(i) += *rows.add(i + half) };
            i += BLOCK;
        }
        barrier();
        half /= 2;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *rows.add(tid) };
    }
}
