//! Plain shared-memory kernels with the barriers or the addresses of their shared accesses
//! wrong (races, a write past the window).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;

#[inline(always)]
unsafe fn stage_tile(smem: *mut f32, src: *const f32, tid: usize) {
    for j in 0..TILE / THREADS {
        let i = tid + THREADS * j;
        unsafe { *smem.add(i) = *src.add(i) };
    }
}

/// Stages and sums with the tile loop's only barrier at the bottom.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_missing_first_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(smem, input.add(t as usize * TILE), tid) };
        if tid < COLS {
            for k in 0..ROWS {
                acc += unsafe { *smem.add(k * COLS + tid) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Double buffering with one barrier per tile, the buffer picked by the tile number.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_double_buffer_tile_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let buf = smem.wrapping_add((t as usize % 2) * TILE);
        unsafe { stage_tile(buf, input.add(t as usize * TILE), tid) };
        barrier();
        if warp_id() == 0 {
            let lane = lane_id() as usize;
            for k in 0..ROWS {
                acc += unsafe { *buf.add(k * COLS + lane) };
            }
        }
        t += grid_dim_x();
    }
    if warp_id() == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + lane_id() as usize) = acc };
    }
}

/// Two half-column partials per column, combined through scratch at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_combine_halves_no_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (half, col) = (tid / COLS, tid % COLS);
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.wrapping_add(TILE);
    let mut partial = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(smem, input.add(t as usize * TILE), tid) };
        barrier();
        for k in (half * ROWS / 2)..((half + 1) * ROWS / 2) {
            partial += unsafe { *smem.add(k * COLS + col) };
        }
        barrier();
        t += grid_dim_x();
    }
    unsafe {
        *scratch.add(tid) = partial;
        if half == 0 {
            *out.add(block_idx_x() as usize * COLS + col) = *scratch.add(col) + *scratch.add(col + COLS);
        }
    }
}

/// Per tile, the two half-column partials are parked in the first two rows of the tile buffer
/// (the tile has been read by then, the author reasons) and warp 0 adds them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_scratch_in_tile_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (half, col) = (tid / COLS, tid % COLS);
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe {
            stage_tile(smem, input.add(t as usize * TILE), tid);
            barrier();
            let mut partial = 0.0f32;
            for k in 0..ROWS / 2 {
                partial += *smem.add((half * ROWS / 2 + k) * COLS + col);
            }
            *smem.add(tid) = partial;
            barrier();
            if half == 0 {
                acc += *smem.add(col) + *smem.add(col + COLS);
            }
            barrier();
        }
        t += grid_dim_x();
    }
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// A running column sum kept in shared memory, updated by both warps after every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_shared_rmw_accumulate(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (half, col) = (tid / COLS, tid % COLS);
    let smem = dynamic_shared_base::<f32>();
    let sums = smem.wrapping_add(TILE);
    if half == 0 {
        unsafe { *sums.add(col) = 0.0 };
    }
    barrier();
    let mut t = block_idx_x();
    while t < tiles {
        unsafe {
            stage_tile(smem, input.add(t as usize * TILE), tid);
            barrier();
            let partial: f32 = (0..ROWS / 2).map(|k| *smem.add((half * ROWS / 2 + k) * COLS + col)).sum();
            *sums.add(col) += partial;
            barrier();
        }
        t += grid_dim_x();
    }
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = *sums.add(col) };
    }
}

/// Only the summing warp waits again after summing; warp 1 has nothing to read, so it goes
/// straight on to the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_warp0_only_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stage_tile(smem, input.add(t as usize * TILE), tid) };
        barrier();
        if warp_id() == 0 {
            for k in 0..ROWS {
                acc += unsafe { *smem.add(k * COLS + tid) };
            }
            barrier();
        }
        t += grid_dim_x();
    }
    if warp_id() == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Four tile slots, then a scratch area for the two warps' partials "after the slots".
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_scratch_units_overflow(input: *const f32, tiles: u32, out: *mut f32) {
    const SLOTS: usize = 4;
    const TILE_BYTES: usize = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (half, col) = (tid / COLS, tid % COLS);
    let b = block_idx_x() as usize;
    let g = grid_dim_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.wrapping_add(SLOTS * TILE_BYTES);
    let mut partial = 0.0f32;
    let mut next = b;
    while next < tiles as usize {
        let mut n = 0;
        while n < SLOTS && next + n * g < tiles as usize {
            unsafe { stage_tile(smem.add(n * TILE), input.add((next + n * g) * TILE), tid) };
            n += 1;
        }
        barrier();
        for slot in 0..n {
            for k in 0..ROWS / 2 {
                partial += unsafe { *smem.add(slot * TILE + (half * ROWS / 2 + k) * COLS + col) };
            }
        }
        barrier();
        next += n * g;
    }
    unsafe { *scratch.add(tid) = partial };
    barrier();
    if half == 0 {
        unsafe { *out.add(b * COLS + col) = *scratch.add(col) + *scratch.add(col + COLS) };
    }
}

/// Transposed staging (column-major, eight floats per column) with the row computed from the
/// block size instead of the row length.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_bad_transpose_row_divisor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        for j in 0..TILE / THREADS {
            let e = tid + THREADS * j;
            let row = e / THREADS;
            let col = e % COLS;
            unsafe { *smem.add(col * ROWS + row) = *src.add(e) };
        }
        barrier();
        if tid < COLS {
            let column = unsafe { core::slice::from_raw_parts(smem.add(tid * ROWS) as *const f32, ROWS) };
            acc += column.iter().copied().fold(0.0, |a, x| a + x);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}
