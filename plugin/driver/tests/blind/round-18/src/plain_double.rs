//! Plain shared memory with more than one buffer: ping-pong buffers with one barrier per
//! tile, a register prefetch, a ring of four buffers filled three tiles ahead, and a loader warp
//! feeding a summing warp.

#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, dynamic_shared_base, thread_idx_x, warp_id, lane_id};

/// Stages tile `t` into `dst` with all 64 threads (four floats each).
#[inline(always)]
unsafe fn stage(dst: *mut f32, input: *const f32, t: u32, tid: usize) {
    let src = tile_floats(input, t);
    let mut q = 0;
    while q < 4 {
        *dst.add(tid + 64 * q) = *src.add(tid + 64 * q);
        q += 1;
    }
}

/// Stages tile `t` into `dst` with one warp (eight floats per lane).
#[inline(always)]
unsafe fn stage_by_warp(dst: *mut f32, input: *const f32, t: u32, lane: usize) {
    let src = tile_floats(input, t);
    for r in 0..ROWS {
        *dst.add(r * COLS + lane) = *src.add(r * COLS + lane);
    }
}

/// Two buffers; while warp 0 sums one, everyone stages the next tile into the other; one
/// barrier per tile. The buffer is chosen by a parity flipped each tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_ping_pong(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    if n > 0 {
        stage(s, input, owned_tile(0), tid);
    }
    barrier();
    let mut cur = 0usize;
    let mut k = 0;
    while k < n {
        if k + 1 < n {
            stage(s.add((cur ^ 1) * TILE_FLOATS), input, owned_tile(k + 1), tid);
        }
        if tid < COLS {
            acc += column_sum(s.add(cur * TILE_FLOATS), tid);
        }
        barrier();
        cur ^= 1;
        k += 1;
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// The next tile waits in registers while the current one is summed from shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_register_prefetch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let load = |k: u32| -> [f32; 4] {
        let src = tile_floats(input, owned_tile(k));
        [*src.add(tid), *src.add(tid + 64), *src.add(tid + 128), *src.add(tid + 192)]
    };
    let mut regs = if n > 0 { load(0) } else { [0.0; 4] };
    let mut acc = 0.0f32;
    for k in 0..n {
        for (q, v) in regs.iter().enumerate() {
            *s.add(tid + 64 * q) = *v;
        }
        barrier();
        if k + 1 < n {
            regs = load(k + 1);
        }
        if tid < COLS {
            acc += column_sum(s, tid);
        }
        barrier();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// A ring of four buffers filled three tiles ahead of the one being summed; one barrier per
/// tile is enough because the buffer refilled was last read a tile ago.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_ring_ahead_three(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const BUFFERS: u32 = 4;
    const AHEAD: u32 = 3;
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let slot = |k: u32| s.add((k % BUFFERS) as usize * TILE_FLOATS);
    let n = owned_tiles(tiles);
    let mut j = 0;
    while j < AHEAD.min(n) {
        stage(slot(j), input, owned_tile(j), tid);
        j += 1;
    }
    barrier();
    let mut acc = 0.0f32;
    let mut k = 0;
    while k < n {
        if k + AHEAD < n {
            stage(slot(k + AHEAD), input, owned_tile(k + AHEAD), tid);
        }
        if tid < COLS {
            acc += column_sum(slot(k), tid);
        }
        barrier();
        k += 1;
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Ping-pong indexed by the tile counter's low bit.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_epoch_bit(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    if n > 0 {
        stage(s, input, owned_tile(0), tid);
    }
    barrier();
    for k in 0..n {
        let next = ((k + 1) & 1) as usize;
        let this = (k & 1) as usize;
        if k + 1 < n {
            stage(s.add(next * TILE_FLOATS), input, owned_tile(k + 1), tid);
        }
        if tid < COLS {
            acc += column_sum(s.add(this * TILE_FLOATS), tid);
        }
        barrier();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Warp 1 loads the next tile while warp 0 sums the current one (ping-pong, one barrier).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_loader_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let lane = lane_id() as usize;
    let loader = warp_id() == 1;
    let s = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    if loader && n > 0 {
        stage_by_warp(s, input, owned_tile(0), lane);
    }
    barrier();
    let mut k = 0;
    while k < n {
        if loader {
            if k + 1 < n {
                stage_by_warp(s.add(((k + 1) & 1) as usize * TILE_FLOATS), input, owned_tile(k + 1), lane);
            }
        } else {
            acc += column_sum(s.add((k & 1) as usize * TILE_FLOATS), lane);
        }
        barrier();
        k += 1;
    }
    if !loader {
        store_column(out, lane as u32, acc);
    }
}

/// Broken: the prefetch goes to `slot(k)` instead of `slot(k + 1)`: the next tile is staged
/// into the buffer warp 0 is summing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_bad_prefetch_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let slot = |k: u32| s.add((k & 1) as usize * TILE_FLOATS);
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    if n > 0 {
        stage(slot(0), input, owned_tile(0), tid);
    }
    barrier();
    let mut k = 0;
    while k < n {
        if k + 1 < n {
            stage(slot(k), input, owned_tile(k + 1), tid);
        }
        if tid < COLS {
            acc += column_sum(slot(k), tid);
        }
        barrier();
        k += 1;
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: four buffers filled four tiles ahead: the buffer refilled is the one being summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_bad_ring_ahead_four(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const BUFFERS: u32 = 4;
    const AHEAD: u32 = 4;
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let slot = |k: u32| s.add((k % BUFFERS) as usize * TILE_FLOATS);
    let n = owned_tiles(tiles);
    let mut j = 0;
    while j < AHEAD.min(n) {
        stage(slot(j), input, owned_tile(j), tid);
        j += 1;
    }
    barrier();
    let mut acc = 0.0f32;
    let mut k = 0;
    while k < n {
        if k + AHEAD < n {
            stage(slot(k + AHEAD), input, owned_tile(k + AHEAD), tid);
        }
        if tid < COLS {
            acc += column_sum(slot(k), tid);
        }
        barrier();
        k += 1;
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: the loop's barrier is at the top of each pass, and the peeled last tile is summed
/// with no barrier after the pass that staged it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_bad_peeled_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    if n > 0 {
        stage(s, input, owned_tile(0), tid);
        let mut k = 0;
        while k + 1 < n {
            barrier();
            stage(s.add(((k + 1) & 1) as usize * TILE_FLOATS), input, owned_tile(k + 1), tid);
            if tid < COLS {
                acc += column_sum(s.add((k & 1) as usize * TILE_FLOATS), tid);
            }
            k += 1;
        }
        if tid < COLS {
            acc += column_sum(s.add(((n - 1) & 1) as usize * TILE_FLOATS), tid);
        }
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: two 4 KiB halves (four tiles each) alternate by batch, and the per-thread partials
/// are placed after them, at byte 8192.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_bad_partials_after_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const HALF_FLOATS: usize = WINDOW_BYTES as usize / 8;
    const PER_HALF: u32 = (HALF_FLOATS / TILE_FLOATS) as u32;
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let column = tid % COLS;
    let rows = (tid / COLS) * 4;
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    let mut batch = 0u32;
    let mut k0 = 0;
    while k0 < n {
        let half = s.add((batch & 1) as usize * HALF_FLOATS);
        let m = (n - k0).min(PER_HALF);
        for j in 0..m {
            stage(half.add(j as usize * TILE_FLOATS), input, owned_tile(k0 + j), tid);
        }
        barrier();
        for j in 0..m {
            let tile = half.add(j as usize * TILE_FLOATS);
            for r in rows..rows + 4 {
                acc += *tile.add(column + r * COLS);
            }
        }
        batch += 1;
        k0 += PER_HALF;
    }
    let partials = s.add(2 * HALF_FLOATS);
    *partials.add(tid) = acc;
    barrier();
    if tid < COLS {
        store_column(out, tid as u32, *partials.add(tid) + *partials.add(tid + COLS));
    }
}

/// Broken: the loader warp flips the buffer parity but the summing warp's flip was left out;
/// warp 0 keeps summing buffer 0 while warp 1 refills it every other tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_db_bad_loader_flips_alone(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let lane = lane_id() as usize;
    let loader = warp_id() == 1;
    let s = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    let mut cur = 0usize;
    if loader && n > 0 {
        stage_by_warp(s, input, owned_tile(0), lane);
    }
    barrier();
    let mut k = 0;
    while k < n {
        if loader {
            if k + 1 < n {
                stage_by_warp(s.add((cur ^ 1) * TILE_FLOATS), input, owned_tile(k + 1), lane);
            }
            cur ^= 1;
        } else {
            acc += column_sum(s.add(cur * TILE_FLOATS), lane);
        }
        barrier();
        k += 1;
    }
    if !loader {
        store_column(out, lane as u32, acc);
    }
}
