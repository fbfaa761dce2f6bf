//! Plain shared memory with warp roles: warp 0 stages each tile (lane `l` copies elements
//! `l, l + 32, …`), warp 1 sums the columns; block barriers hand each tile over.
//!
//! Layout (floats): one or two tile buffers of 256 floats from 0.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, warp_id};

const TILE: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;

#[inline(always)]
unsafe fn load_by_warp(buffer: *mut f32, input: *const f32, tile: u32, lane: usize) {
    let source = unsafe { input.add(tile as usize * TILE) };
    for i in (lane..TILE).step_by(COLS) {
        unsafe { *buffer.add(i) = *source.add(i) };
    }
}

#[inline(always)]
unsafe fn column(buffer: *const f32, lane: usize) -> f32 {
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += unsafe { *buffer.add(row * COLS + lane) };
    }
    sum
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_ws_loader_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (warp, lane) = (warp_id(), lane_id() as usize);
    let buffer = dynamic_shared_base::<f32>();
    let first = block_idx_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        if warp == 0 {
            unsafe { load_by_warp(buffer, input, tile, lane) };
        }
        barrier();
        if warp == 1 {
            acc += unsafe { column(buffer, lane) };
        }
        barrier();
        tile += grid_dim_x();
    }
    if warp == 1 {
        unsafe { *out.add(first as usize * COLS + lane) = acc };
    }
}

/// Two buffers: warp 0 stages tile `k + 1` while warp 1 reads tile `k`; one barrier per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_ws_ping_pong(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (warp, lane) = (warp_id(), lane_id() as usize);
    let smem = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let count = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };

    if warp == 0 && count > 0 {
        unsafe { load_by_warp(smem, input, first, lane) };
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..count {
        let ping = (k & 1) as usize;
        if warp == 0 {
            if k + 1 < count {
                unsafe { load_by_warp(smem.add((1 - ping) * TILE), input, first + (k + 1) * step, lane) };
            }
        } else {
            acc += unsafe { column(smem.add(ping * TILE), lane) };
        }
        barrier();
    }
    if warp == 1 {
        unsafe { *out.add(first as usize * COLS + lane) = acc };
    }
}

/// BROKEN: the hand-over barrier sits inside the loader's branch only, so the two warps'
/// barriers no longer pair up tile by tile: warp 1 reads tile `k` one barrier early, before
/// warp 0 has staged it, and later while warp 0 overwrites it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_ws_barrier_in_loader_branch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (warp, lane) = (warp_id(), lane_id() as usize);
    let buffer = dynamic_shared_base::<f32>();
    let first = block_idx_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        if warp == 0 {
            unsafe { load_by_warp(buffer, input, tile, lane) };
            barrier();
        } else {
            acc += unsafe { column(buffer, lane) };
        }
        barrier();
        tile += grid_dim_x();
    }
    if warp == 1 {
        unsafe { *out.add(first as usize * COLS + lane) = acc };
    }
}

/// BROKEN: one buffer and one barrier per tile, in the double buffer's pattern: warp 0 stages
/// tile `k + 1` into the only buffer right after the barrier, while warp 1 still reads tile
/// `k` from it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_ws_single_buffer_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (warp, lane) = (warp_id(), lane_id() as usize);
    let buffer = dynamic_shared_base::<f32>();
    let first = block_idx_x();

    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        if warp == 0 {
            unsafe { load_by_warp(buffer, input, tile, lane) };
        }
        barrier();
        if warp == 1 {
            acc += unsafe { column(buffer, lane) };
        }
        tile += grid_dim_x();
    }
    if warp == 1 {
        unsafe { *out.add(first as usize * COLS + lane) = acc };
    }
}
