//! Plain shared memory: a tile staged by the whole block, then summed per column.
//! Loops of every shape: `for` over ranges and `step_by`, `while`, `loop`/`break`, slices,
//! `ptr::copy_nonoverlapping`, double buffering.

use core::ptr;
use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const COLUMNS: usize = 32;
const ROWS: usize = TILE_FLOATS / COLUMNS;

/// Stages with `for k in 0..4`, walks the tiles with `while`, two barriers per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_for_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        for k in 0..4 {
            let i = tid + 64 * k;
            unsafe { *tile.add(i) = *src.add(i) };
        }
        barrier();
        if tid < COLUMNS {
            for k in 0..ROWS {
                acc += unsafe { *tile.add(tid + COLUMNS * k) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Warp 1 only helps stage, warp 0 sums; the tile is staged four contiguous floats per thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_reuse_single_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        let src = unsafe { input.add(t * TILE_FLOATS) };
        for k in 0..4 {
            unsafe { *tile.add(tid * 4 + k) = *src.add(tid * 4 + k) };
        }
        // Everything staged: the summing warp may start.
        barrier();
        if tid < COLUMNS {
            let mut k = 0;
            while k < ROWS {
                acc += unsafe { *tile.add(tid + COLUMNS * k) };
                k += 1;
            }
        }
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Both warps sum: thread `tid` owns column `tid % 32` and rows `4 * (tid / 32)..+4`; the two
/// halves meet in a scratch area after the tile loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_halves_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let column = tid % COLUMNS;
    let half = tid / COLUMNS;
    let tile: *mut f32 = dynamic_shared_base();
    let partial = unsafe { tile.add(TILE_FLOATS) };
    let mut acc = 0.0f32;
    let first = block_idx_x() as usize;
    let step = grid_dim_x() as usize;
    for t in (first..tiles as usize).step_by(step) {
        let src = unsafe { input.add(t * TILE_FLOATS) };
        for i in (tid..TILE_FLOATS).step_by(64) {
            unsafe { *tile.add(i) = *src.add(i) };
        }
        barrier();
        for row in half * 4..half * 4 + 4 {
            acc += unsafe { *tile.add(column + COLUMNS * row) };
        }
        barrier();
    }
    unsafe { *partial.add(tid) = acc };
    barrier();
    if tid < COLUMNS {
        let total = unsafe { *partial.add(tid) + *partial.add(tid + COLUMNS) };
        unsafe { *out.add(first * COLUMNS + tid) = total };
    }
}

/// As above, with the partials written at the end of the last iteration: the loop's barrier is
/// taken to order them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_halves_late_partial(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let column = tid % COLUMNS;
    let half = tid / COLUMNS;
    let tile: *mut f32 = dynamic_shared_base();
    let partial = unsafe { tile.add(TILE_FLOATS) };
    let mut acc = 0.0f32;
    let first = block_idx_x() as usize;
    let step = grid_dim_x() as usize;
    let mut t = first;
    while t < tiles as usize {
        let src = unsafe { input.add(t * TILE_FLOATS) };
        for i in (tid..TILE_FLOATS).step_by(64) {
            unsafe { *tile.add(i) = *src.add(i) };
        }
        barrier();
        for row in half * 4..half * 4 + 4 {
            acc += unsafe { *tile.add(column + COLUMNS * row) };
        }
        barrier();
        t += step;
    }
    // The barrier at the end of the loop already separates the tile from the combine.
    unsafe { *partial.add(tid) = acc };
    if tid < COLUMNS {
        let total = unsafe { *partial.add(tid) + *partial.add(tid + COLUMNS) };
        unsafe { *out.add(first * COLUMNS + tid) = total };
    }
}

/// `loop` with `break`, each thread moving its four floats with `copy_nonoverlapping`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_copy_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    loop {
        if t >= tiles as usize {
            break;
        }
        unsafe { ptr::copy_nonoverlapping(input.add(t * TILE_FLOATS + tid * 4), tile.add(tid * 4), 4) };
        barrier();
        if tid < COLUMNS {
            let mut k = 0;
            while k < ROWS {
                acc += unsafe { *tile.add(tid + COLUMNS * k) };
                k += 1;
            }
        }
        barrier();
        t += grid_dim_x() as usize;
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Warp 1 has nothing to sum, so it goes straight on to the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_idle_warp_continues(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        for k in 0..4 {
            unsafe { *tile.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
        if tid >= COLUMNS {
            t += grid_dim_x();
            continue;
        }
        barrier();
        for k in 0..ROWS {
            acc += unsafe { *tile.add(tid + COLUMNS * k) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Views the global tile as a slice, stages it `chunks(64)` at a time and sums the shared tile
/// through an iterator.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_slices_chunks(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        let src = unsafe { slice::from_raw_parts(input.add(t * TILE_FLOATS), TILE_FLOATS) };
        for (row, chunk) in src.chunks(64).enumerate() {
            unsafe { *tile.add(row * 64 + tid) = chunk[tid] };
        }
        barrier();
        if tid < COLUMNS {
            let staged = unsafe { slice::from_raw_parts(tile as *const f32, TILE_FLOATS) };
            acc += staged.iter().skip(tid).step_by(COLUMNS).sum::<f32>();
        }
        barrier();
        t += grid_dim_x() as usize;
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Eight tile slots fill the window; up to eight tiles are staged per round, then both warps
/// sum their halves of every staged slot. The partials follow the slots.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_eight_slots(input: *const f32, tiles: u32, out: *mut f32) {
    const SLOTS: usize = 8;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let column = tid % COLUMNS;
    let half = tid / COLUMNS;
    let slots: *mut f32 = dynamic_shared_base();
    let partial = unsafe { slots.add(SLOTS * TILE_FLOATS) };
    let step = grid_dim_x() as usize;
    let tiles = tiles as usize;
    let mut acc = 0.0f32;
    let mut first = block_idx_x() as usize;
    while first < tiles {
        let mut staged = 0;
        while staged < SLOTS && first + staged * step < tiles {
            let src = unsafe { input.add((first + staged * step) * TILE_FLOATS) };
            let slot = unsafe { slots.add(staged * TILE_FLOATS) };
            for k in 0..4 {
                unsafe { *slot.add(tid + 64 * k) = *src.add(tid + 64 * k) };
            }
            staged += 1;
        }
        barrier();
        for s in 0..staged {
            let slot = unsafe { slots.add(s * TILE_FLOATS) };
            for row in half * 4..half * 4 + 4 {
                acc += unsafe { *slot.add(column + COLUMNS * row) };
            }
        }
        barrier();
        first += SLOTS * step;
    }
    unsafe { *partial.add(tid) = acc };
    barrier();
    if tid < COLUMNS {
        let total = unsafe { *partial.add(tid) + *partial.add(tid + COLUMNS) };
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = total };
    }
}

/// Double buffering with one barrier per tile: the next tile goes into the other buffer while
/// warp 0 sums the current one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let base: *mut f32 = dynamic_shared_base();
    let buffer = |slot: u32| unsafe { base.add(slot as usize * TILE_FLOATS) };
    let stage = |t: u32, slot: u32| {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        let dst = buffer(slot);
        for k in 0..4 {
            unsafe { *dst.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
    };
    let step = grid_dim_x();
    let mut t = block_idx_x();
    if t < tiles {
        stage(t, 0);
    }
    barrier();
    let mut j = 0u32;
    let mut acc = 0.0f32;
    while t < tiles {
        let next = t + step;
        if next < tiles {
            stage(next, (j + 1) & 1);
        }
        if tid < COLUMNS {
            let current = buffer(j & 1);
            for k in 0..ROWS {
                acc += unsafe { *current.add(tid + COLUMNS * k) };
            }
        }
        barrier();
        t = next;
        j += 1;
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Double buffering again, the buffers picked by a closure on the tile counter.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_stage_double_buffer_slots(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let base: *mut f32 = dynamic_shared_base();
    let slot = |j: usize| unsafe { base.add((j % 2) * TILE_FLOATS) };
    let step = grid_dim_x();
    let mut t = block_idx_x();
    if t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        let dst = slot(0);
        for k in 0..4 {
            unsafe { *dst.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
    }
    barrier();
    let mut j = 0usize;
    let mut acc = 0.0f32;
    while t < tiles {
        let next = t + step;
        if next < tiles {
            // Prefetch the next tile while warp 0 works on this one.
            let src = unsafe { input.add(next as usize * TILE_FLOATS) };
            let dst = slot(j + 2);
            for k in 0..4 {
                unsafe { *dst.add(tid + 64 * k) = *src.add(tid + 64 * k) };
            }
        }
        if tid < COLUMNS {
            let src = slot(j);
            for k in 0..ROWS {
                acc += unsafe { *src.add(tid + COLUMNS * k) };
            }
        }
        barrier();
        t = next;
        j += 1;
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}
