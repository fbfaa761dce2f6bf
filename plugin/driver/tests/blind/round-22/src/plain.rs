//! Kernels on plain shared memory and block barriers, no pipeline: the block stages a tile
//! (or a batch of tiles) with ordinary loads and stores, a barrier, warp 0 sums its column.

use crate::device::launch;
use crate::device::row::FourFloats;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;
const BLOCK: usize = 64;

/// One tile at a time: every thread stages four floats, barrier, warp 0 sums, barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_stage_then_sum(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *buf.add(i) = *src.add(i);
            i += BLOCK;
        }
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += *buf.add(r * COLS + tid);
            }
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

/// Two buffers: the next tile is staged into one while warp 0 sums the other; one barrier per
/// tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let base = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let stage_into = |slot: u32, t: u32| {
        let dst = base.wrapping_add(slot as usize * TILE);
        let src = input.wrapping_add(t as usize * TILE);
        for j in 0..TILE / BLOCK {
            unsafe { *dst.add(tid + j * BLOCK) = *src.add(tid + j * BLOCK) };
        }
    };
    if first < tiles {
        stage_into(0, first);
    }
    barrier();
    let mut acc = 0.0f32;
    let mut cur = 0u32;
    let mut t = first;
    while t < tiles {
        let next = t + step;
        if next < tiles {
            stage_into(cur ^ 1, next);
        }
        if tid < COLS {
            let tile = base.add(cur as usize * TILE);
            for r in 0..ROWS {
                acc += *tile.add(r * COLS + tid);
            }
        }
        barrier();
        cur ^= 1;
        t = next;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

/// Each thread moves one 16-byte quad of the tile (64 quads, 1 KiB), then warp 0 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_quad_loads(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let quads = dynamic_shared_base::<FourFloats>();
    let floats = quads as *const f32;
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const FourFloats;
        *quads.add(tid) = *src.add(tid);
        barrier();
        if tid < COLS {
            let mut r = 0;
            while r < ROWS {
                acc += *floats.add(r * COLS + tid);
                r += 1;
            }
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

/// No staging: each thread sums four rows of its column straight from global memory; warp 1
/// hands its halves to warp 0 through 32 floats of shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_partial_combine(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let scratch = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for r in 0..ROWS / 2 {
            acc += *src.add((half * 4 + r) * COLS + col);
        }
        t += step;
    }
    if half == 1 {
        *scratch.add(col) = acc;
    }
    barrier();
    if half == 0 {
        *out.add(first as usize * COLS + col) = acc + *scratch.add(col);
    }
}

/// Up to eight tiles staged at once (the whole 8 KiB), then warp 0 sums them all.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_batches(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const BATCH: u32 = 8;
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let n = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };
    let mut acc = 0.0f32;
    let mut done = 0u32;
    while done < n {
        let batch = if n - done < BATCH { n - done } else { BATCH };
        let mut i = tid;
        while i < batch as usize * TILE {
            let j = (i / TILE) as u32;
            let t = first + (done + j) * step;
            *buf.add(i) = *input.add(t as usize * TILE + i % TILE);
            i += BLOCK;
        }
        barrier();
        if tid < COLS {
            for j in 0..batch as usize {
                for r in 0..ROWS {
                    acc += *buf.add(j * TILE + r * COLS + tid);
                }
            }
        }
        barrier();
        done += batch;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// BROKEN: the barrier after warp 0's reads is missing ("the next iteration has a barrier
/// anyway"): warp 1 stages the next tile into the buffer while warp 0 is still summing it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_bad_no_trailing_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *buf.add(i) = *src.add(i);
            i += BLOCK;
        }
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += *buf.add(r * COLS + tid);
            }
        }
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

/// BROKEN: warp 0 sums the tile right after staging its own share, before the barrier: rows
/// 1, 3, 5 and 7 are warp 1's stores, which may not have happened yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_bad_sum_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for j in 0..TILE / BLOCK {
            *buf.add(tid + j * BLOCK) = *src.add(tid + j * BLOCK);
        }
        if tid < COLS {
            for r in 0..ROWS {
                acc += *buf.add(r * COLS + tid);
            }
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

/// BROKEN: the next tile is staged into `cur` instead of `cur ^ 1`, the buffer warp 0 is about
/// to sum: warp 0 reads the next tile's rows (its own stores) in place of the current tile's.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_bad_double_buffer_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let base = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let stage_into = |slot: u32, t: u32| {
        let dst = base.wrapping_add(slot as usize * TILE);
        let src = input.wrapping_add(t as usize * TILE);
        for j in 0..TILE / BLOCK {
            unsafe { *dst.add(tid + j * BLOCK) = *src.add(tid + j * BLOCK) };
        }
    };
    if first < tiles {
        stage_into(0, first);
    }
    barrier();
    let mut acc = 0.0f32;
    let mut cur = 0u32;
    let mut t = first;
    while t < tiles {
        let next = t + step;
        if next < tiles {
            stage_into(cur, next);
        }
        if tid < COLS {
            let tile = base.add(cur as usize * TILE);
            for r in 0..ROWS {
                acc += *tile.add(r * COLS + tid);
            }
        }
        barrier();
        cur ^= 1;
        t = next;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

/// BROKEN: batches of eight tiles fill the 8 KiB window, and warp 1's partial sums are parked
/// right after them, at byte 8192, past the end of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_bad_partials_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const BATCH: u32 = 8;
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let warp = tid / COLS;
    let buf = dynamic_shared_base::<f32>();
    let partials = buf.add(BATCH as usize * TILE);
    let first = block_idx_x();
    let step = grid_dim_x();
    let n = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };
    let mut acc = 0.0f32;
    let mut done = 0u32;
    while done < n {
        let batch = if n - done < BATCH { n - done } else { BATCH };
        let mut i = tid;
        while i < batch as usize * TILE {
            let j = (i / TILE) as u32;
            let t = first + (done + j) * step;
            *buf.add(i) = *input.add(t as usize * TILE + i % TILE);
            i += BLOCK;
        }
        barrier();
        let mut j = warp;
        while j < batch as usize {
            for r in 0..ROWS {
                acc += *buf.add(j * TILE + r * COLS + col);
            }
            j += 2;
        }
        barrier();
        done += batch;
    }
    if warp == 1 {
        *partials.add(col) = acc;
    }
    barrier();
    if warp == 0 {
        *out.add(first as usize * COLS + col) = acc + *partials.add(col);
    }
}

/// BROKEN: the quad's byte offset `16 * tid` is used on both sides, right for the byte pointer
/// into global memory but as a quad index on the shared side: thread `t`'s quad lands at byte
/// `256 t`, past the 8 KiB window for threads 32 to 63.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_plain_bad_quad_stride(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let quads = dynamic_shared_base::<FourFloats>();
    let floats = quads as *const f32;
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const u8;
        let offset = 16 * tid;
        *quads.add(offset) = *(src.add(offset) as *const FourFloats);
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += *floats.add(r * COLS + tid);
            }
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}
