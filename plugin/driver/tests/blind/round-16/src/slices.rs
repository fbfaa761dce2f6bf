//! Plain shared memory seen through slices: the staged tile as `&[f32]`, read with
//! `chunks_exact`, `step_by`, `split_at` and `zip`.
//!
//! Layout (floats): the staged tile at 0, 64 partial sums at 256.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x, warp_id};
use core::slice;

const TILE: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;
const BLOCK: usize = 64;
const SHARED_FLOATS: usize = 8192 / 4;

#[inline(always)]
unsafe fn stage(tile_slot: &mut [f32], input: *const f32, tile: u32, tid: usize) {
    let source = unsafe { slice::from_raw_parts(input.add(tile as usize * TILE), TILE) };
    for i in (tid..TILE).step_by(BLOCK) {
        tile_slot[i] = source[i];
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_slice_chunks_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let (col, half) = (tid % COLS, tid / COLS);
    let first = block_idx_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        unsafe { stage(slice::from_raw_parts_mut(smem, TILE), input, tile, tid) };
        barrier();
        let staged = unsafe { slice::from_raw_parts(smem as *const f32, TILE) };
        acc += staged.chunks_exact(COLS).skip(4 * half).take(4).map(|row| row[col]).sum::<f32>();
        barrier();
        tile += grid_dim_x();
    }
    let partials = unsafe { slice::from_raw_parts_mut(smem.add(TILE), BLOCK) };
    partials[tid] = acc;
    barrier();
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = partials[tid] + partials[tid + COLS] };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_slice_iter_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let (col, half) = (tid % COLS, tid / COLS);
    let first = block_idx_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        unsafe { stage(slice::from_raw_parts_mut(smem, TILE), input, tile, tid) };
        barrier();
        let staged = unsafe { slice::from_raw_parts(smem as *const f32, TILE) };
        acc += staged[half * TILE / 2 + col..].iter().step_by(COLS).take(ROWS / 2).sum::<f32>();
        barrier();
        tile += grid_dim_x();
    }
    let partials = unsafe { slice::from_raw_parts_mut(smem.add(TILE), BLOCK) };
    partials[tid] = acc;
    barrier();
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = partials[tid] + partials[tid + COLS] };
    }
}

/// The staged tile split into its top and bottom halves, zipped row by row: warp 0's thread
/// `c` adds rows `r` and `r + 4` of column `c` for each `r < 4`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_slice_zip_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        unsafe { stage(slice::from_raw_parts_mut(smem, TILE), input, tile, tid) };
        barrier();
        if tid < COLS {
            let staged = unsafe { slice::from_raw_parts(smem as *const f32, TILE) };
            let (top, bottom) = staged.split_at(TILE / 2);
            acc += top.iter().zip(bottom).skip(tid).step_by(COLS).map(|(a, b)| a + b).sum::<f32>();
        }
        barrier();
        tile += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = acc };
    }
}

/// BROKEN: each warp stages its own half of the tile (`chunks_mut(128)`, one chunk per warp)
/// and warp 0 then sums whole columns without a block barrier, "since each warp wrote its own
/// chunk": rows 4..8 come from warp 1, which may not have stored them yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_slice_warp_chunks_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let warp = warp_id() as usize;
    let lane = tid % COLS;
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        let source = unsafe { slice::from_raw_parts(input.add(tile as usize * TILE), TILE) };
        let staged = unsafe { slice::from_raw_parts_mut(smem, TILE) };
        if let Some(mine) = staged.chunks_mut(TILE / 2).nth(warp) {
            let theirs = &source[warp * TILE / 2..(warp + 1) * TILE / 2];
            for (i, slot) in mine.iter_mut().enumerate().skip(lane).step_by(COLS) {
                *slot = theirs[i];
            }
        }
        if warp == 0 {
            let staged = unsafe { slice::from_raw_parts(smem as *const f32, TILE) };
            acc += staged.iter().skip(lane).step_by(COLS).sum::<f32>();
        }
        barrier();
        tile += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = acc };
    }
}

/// BROKEN: the tile is staged at the window's last KiB with one extra row of zeros "so that a
/// reader may run one row past the tile": the padding row is stored at bytes 8192..8320,
/// past the 8 KiB the launch provides.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_slice_padding_row_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let base = unsafe { dynamic_shared_base::<f32>().add(SHARED_FLOATS - TILE) };
    let first = block_idx_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        let padded = unsafe { slice::from_raw_parts_mut(base, TILE + COLS) };
        let source = unsafe { input.add(tile as usize * TILE) };
        for i in (tid..TILE + COLS).step_by(BLOCK) {
            padded[i] = if i < TILE { unsafe { *source.add(i) } } else { 0.0 };
        }
        barrier();
        acc += padded.chunks_exact(COLS).skip(4 * half).take(4).map(|row| row[col]).sum::<f32>();
        barrier();
        tile += grid_dim_x();
    }
    // The partial sums reuse the front of the window.
    let partials = unsafe { slice::from_raw_parts_mut(dynamic_shared_base::<f32>(), BLOCK) };
    partials[tid] = acc;
    barrier();
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = partials[tid] + partials[tid + COLS] };
    }
}
