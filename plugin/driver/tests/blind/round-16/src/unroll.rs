//! Plain shared memory with the loops written out by the device API's `unrolled!`: staging
//! and row sums over constant counts, a generic column sum over a const number of rows.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;
const BLOCK: usize = 64;
const SHARED_FLOATS: usize = 8192 / 4;
/// Elements of a tile each thread stages.
const LOADS: usize = TILE / BLOCK;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_unroll_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let (col, half) = (tid % COLS, tid / COLS);

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        let source = unsafe { input.add(tile as usize * TILE) };
        unrolled!(K < LOADS => {
            unsafe { *smem.add(tid + K * BLOCK) = *source.add(tid + K * BLOCK) };
        });
        barrier();
        unrolled!(ROW < 4 => {
            acc += unsafe { *smem.add((4 * half + ROW) * COLS + col) };
        });
        barrier();
        tile += grid_dim_x();
    }
    let partials = unsafe { smem.add(TILE) };
    unsafe { *partials.add(tid) = acc };
    barrier();
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *partials.add(tid) + *partials.add(tid + COLS) };
    }
}

/// Column `col` of the first `R` rows of a staged tile.
#[inline(always)]
unsafe fn column_sum<const R: usize>(tile: *const f32, col: usize) -> f32 {
    let mut sum = 0.0f32;
    unrolled!(ROW < R => {
        sum += unsafe { *tile.add(ROW * COLS + col) };
    });
    sum
}

/// Two buffers, the tile `k` staged into buffer `k & 1`, one barrier per tile (after the
/// staging): a buffer is staged again only two tiles later, past the next tile's barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_unroll_alternate_buffers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();

    let mut acc = 0.0f32;
    let mut parity = 0usize;
    let mut tile = block_idx_x();
    while tile < tiles {
        let buffer = unsafe { smem.add(parity * TILE) };
        let source = unsafe { input.add(tile as usize * TILE) };
        unrolled!(K < LOADS => {
            unsafe { *buffer.add(tid + K * BLOCK) = *source.add(tid + K * BLOCK) };
        });
        barrier();
        if tid < COLS {
            acc += unsafe { column_sum::<ROWS>(buffer, tid) };
        }
        parity ^= 1;
        tile += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Rows split between the warps by a const parameter: warp `w` sums rows `w·H .. w·H + H`.
#[inline(always)]
unsafe fn split_rows<const H: usize>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let (col, warp) = (tid % COLS, tid / COLS);

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        let source = unsafe { input.add(tile as usize * TILE) };
        unrolled!(K < LOADS => {
            unsafe { *smem.add(tid + K * BLOCK) = *source.add(tid + K * BLOCK) };
        });
        barrier();
        acc += unsafe { column_sum::<H>(smem.add(warp * H * COLS), col) };
        barrier();
        tile += grid_dim_x();
    }
    let partials = unsafe { smem.add(TILE) };
    unsafe { *partials.add(tid) = acc };
    barrier();
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *partials.add(tid) + *partials.add(tid + COLS) };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_unroll_generic_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { split_rows::<{ ROWS / 2 }>(input, tiles, out) }
}

/// BROKEN: the per-thread load count is rounded up as `(TILE + BLOCK) / BLOCK`, five instead
/// of four: every thread stages a fifth element, and with the buffer in the window's last KiB
/// those stores land at bytes 8192..8448, past the 8 KiB the launch provides.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_unroll_loads_rounded_up(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const ROUNDED_LOADS: usize = (TILE + BLOCK) / BLOCK;
    let tid = thread_idx_x() as usize;
    let buffer = unsafe { dynamic_shared_base::<f32>().add(SHARED_FLOATS - TILE) };
    let (col, half) = (tid % COLS, tid / COLS);

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        let source = input.wrapping_add(tile as usize * TILE);
        unrolled!(K < ROUNDED_LOADS => {
            unsafe { *buffer.add(tid + K * BLOCK) = *source.add(tid + K * BLOCK) };
        });
        barrier();
        unrolled!(ROW < 4 => {
            acc += unsafe { *buffer.add((4 * half + ROW) * COLS + col) };
        });
        barrier();
        tile += grid_dim_x();
    }
    let partials = dynamic_shared_base::<f32>();
    unsafe { *partials.add(tid) = acc };
    barrier();
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *partials.add(tid) + *partials.add(tid + COLS) };
    }
}
