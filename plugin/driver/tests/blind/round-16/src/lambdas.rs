//! Plain shared memory driven by closures: staging and reading written as closures the tile
//! loop calls, and staging through the device API's `strided` loop with closures for the
//! load and the store.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::strided::strided;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;
const BLOCK: usize = 64;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_lambda_stage_and_read(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let (col, half) = (tid % COLS, tid / COLS);

    let stage = |tile: u32| {
        let source = input.wrapping_add(tile as usize * TILE);
        for k in 0..TILE / BLOCK {
            let i = tid + k * BLOCK;
            unsafe { *smem.add(i) = *source.add(i) };
        }
    };
    let read = || -> f32 { (0..4).map(|r| unsafe { *smem.add((4 * half + r) * COLS + col) }).sum() };

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        stage(tile);
        barrier();
        acc += read();
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
pub unsafe extern "ptx-kernel" fn r16_lambda_strided_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        let source = input.wrapping_add(tile as usize * TILE);
        strided(tid, TILE, BLOCK, |i| unsafe { *source.add(i) }, |i, v: f32| unsafe { *smem.add(i) = v });
        barrier();
        if tid < COLS {
            for row in 0..ROWS {
                acc += unsafe { *smem.add(row * COLS + tid) };
            }
        }
        barrier();
        tile += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// BROKEN: a double buffer whose reader closure captured the buffer pointer once, before the
/// loop: it always reads buffer 0, which every other prefetch overwrites while it is read;
/// the odd tiles are never read at all.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_lambda_reader_captures_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let count = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };
    let buffers = [smem, smem.wrapping_add(TILE)];

    let stage = |buffer: *mut f32, tile: u32| {
        let source = input.wrapping_add(tile as usize * TILE);
        let mut i = tid;
        while i < TILE {
            unsafe { *buffer.add(i) = *source.add(i) };
            i += BLOCK;
        }
    };
    let current = buffers[0];
    let read_column = || -> f32 {
        let mut sum = 0.0;
        for row in 0..ROWS {
            sum += unsafe { *current.add(row * COLS + tid) };
        }
        sum
    };

    if count > 0 {
        stage(buffers[0], first);
    }
    barrier();
    let mut acc = 0.0f32;
    let mut k = 0u32;
    while k < count {
        if k + 1 < count {
            stage(buffers[(k as usize + 1) & 1], first + (k + 1) * step);
        }
        if tid < COLS {
            acc += read_column();
        }
        barrier();
        k += 1;
    }
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = acc };
    }
}

/// BROKEN: staging and reading fused into one closure per tile ("load, then sum my rows"),
/// with the block barrier only between tiles: a thread sums rows that the other warp has not
/// stored yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_lambda_fused_stage_read(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let (col, half) = (tid % COLS, tid / COLS);

    let load_and_sum = |tile: u32| -> f32 {
        let source = input.wrapping_add(tile as usize * TILE);
        for k in 0..TILE / BLOCK {
            unsafe { *smem.add(tid + k * BLOCK) = *source.add(tid + k * BLOCK) };
        }
        (4 * half..4 * half + 4).map(|row| unsafe { *smem.add(row * COLS + col) }).sum()
    };

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        acc += load_and_sum(tile);
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
