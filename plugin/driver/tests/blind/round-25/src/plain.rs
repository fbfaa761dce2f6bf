//! No pipeline: tiles staged into plain shared memory by the whole block with block barriers, or
//! read straight from global memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const THREADS: usize = 64;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_stage_then_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let buf = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *buf.add(i) = *src.add(i);
            i += THREADS;
        }
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_global_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    if tid >= 32 {
        return;
    }
    let b = block_idx_x();
    let acc: f32 = (b..tiles)
        .step_by(grid_dim_x() as usize)
        .map(|t| (0..8).map(|r| *input.add(t as usize * TILE + r * 32 + tid as usize)).sum::<f32>())
        .sum();
    *out.add((b * 32 + tid) as usize) = acc;
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_half_rows_partials_in_shared(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let col = tid % 32;
    let half = tid / 32;
    let b = block_idx_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * TILE);
        for r in half * 4..half * 4 + 4 {
            acc += *tile.add(r * 32 + col);
        }
        t += grid_dim_x();
    }
    *part.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *part.add(tid) + *part.add(tid + 32);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let bufs = dynamic_shared_base::<[f32; TILE]>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = tiles.saturating_sub(b).div_ceil(g);
    let load = |k: u32, slot: usize| {
        let src = input.add((b + k * g) as usize * TILE);
        let dst = bufs.add(slot) as *mut f32;
        for j in 0..4 {
            *dst.add(tid + j * THREADS) = *src.add(tid + j * THREADS);
        }
    };
    if mine > 0 {
        load(0, 0);
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..mine {
        if k + 1 < mine {
            load(k + 1, ((k + 1) & 1) as usize);
        }
        if tid < 32 {
            let cur = &*bufs.add((k & 1) as usize);
            for r in 0..8 {
                acc += cur[r * 32 + tid];
            }
        }
        barrier();
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_quads_per_thread(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let quads = dynamic_shared_base::<[f32; 4]>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    for t in (b..tiles).step_by(g as usize) {
        let src = input.add(t as usize * TILE) as *const [f32; 4];
        *quads.add(tid) = *src.add(tid);
        barrier();
        if tid < 32 {
            let flat = quads as *const f32;
            for r in 0..8 {
                acc += *flat.add(r * 32 + tid);
            }
        }
        barrier();
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_all_tiles_at_once(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const MAX_TILES: u32 = 8;
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = tiles.saturating_sub(b).div_ceil(g).min(MAX_TILES);
    for k in 0..mine {
        let src = input.add((b + k * g) as usize * TILE);
        let dst = smem.add(k as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *dst.add(i) = *src.add(i);
            i += THREADS;
        }
    }
    barrier();
    if tid < 32 {
        let mut acc = 0.0f32;
        for k in 0..mine as usize {
            for r in 0..8 {
                acc += *smem.add(k * TILE + r * 32 + tid);
            }
        }
        *out.add(b as usize * 32 + tid) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_bad_one_barrier_per_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let buf = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *buf.add(i) = *src.add(i);
            i += THREADS;
        }
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_bad_sum_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let quads = dynamic_shared_base::<[f32; 4]>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    for t in (b..tiles).step_by(g as usize) {
        let src = input.add(t as usize * TILE) as *const [f32; 4];
        *quads.add(tid) = *src.add(tid);
        if tid < 32 {
            let flat = quads as *const f32;
            for r in 0..8 {
                acc += *flat.add(r * 32 + tid);
            }
        }
        barrier();
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_bad_barrier_only_for_summers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let buf = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *buf.add(i) = *src.add(i);
            i += THREADS;
        }
        if tid < 32 {
            // the summing warp waits for the staging
            barrier();
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_bad_totals_after_staged_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const MAX_TILES: u32 = 8;
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = tiles.saturating_sub(b).div_ceil(g).min(MAX_TILES);
    for k in 0..mine {
        let src = input.add((b + k * g) as usize * TILE);
        let dst = smem.add(k as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *dst.add(i) = *src.add(i);
            i += THREADS;
        }
    }
    barrier();
    // per-column totals kept after the staged tiles
    let totals = smem.add(MAX_TILES as usize * TILE);
    if tid < 32 {
        let mut acc = 0.0f32;
        for k in 0..mine as usize {
            for r in 0..8 {
                acc += *smem.add(k * TILE + r * 32 + tid);
            }
        }
        *totals.add(tid) = acc;
    }
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *totals.add(tid);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_bad_double_buffer_loads_current(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let bufs = dynamic_shared_base::<[f32; TILE]>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = tiles.saturating_sub(b).div_ceil(g);
    let load = |k: u32, slot: usize| {
        let src = input.add((b + k * g) as usize * TILE);
        let dst = bufs.add(slot) as *mut f32;
        for j in 0..4 {
            *dst.add(tid + j * THREADS) = *src.add(tid + j * THREADS);
        }
    };
    if mine > 0 {
        load(0, 0);
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..mine {
        if k + 1 < mine {
            load(k + 1, (k & 1) as usize);
        }
        if tid < 32 {
            let cur = &*bufs.add((k & 1) as usize);
            for r in 0..8 {
                acc += cur[r * 32 + tid];
            }
        }
        barrier();
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_bad_partials_wrong_partner(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let col = tid % 32;
    let half = tid / 32;
    let b = block_idx_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * TILE);
        for r in half * 4..half * 4 + 4 {
            acc += *tile.add(r * 32 + col);
        }
        t += grid_dim_x();
    }
    *part.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *part.add(tid) + *part.add(63 - tid);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_plain_bad_global_rows_as_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    if tid >= 32 {
        return;
    }
    let b = block_idx_x();
    let acc: f32 = (b..tiles)
        .step_by(grid_dim_x() as usize)
        .map(|t| (0..8).map(|r| *input.add(t as usize * TILE + r + tid as usize * 8)).sum::<f32>())
        .sum();
    *out.add((b * 32 + tid) as usize) = acc;
}
