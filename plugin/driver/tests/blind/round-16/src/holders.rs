//! Plain shared memory behind small types: a `SharedTile` that stages and reads a tile, and
//! per-thread accumulator records (`#[repr(C)]` structs) kept in shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;
const BLOCK: usize = 64;

/// A tile-sized buffer in shared memory.
#[derive(Clone, Copy)]
struct SharedTile {
    base: *mut f32,
}

impl SharedTile {
    /// This thread's share of the copy of tile `tile` into the buffer.
    unsafe fn fill(&self, input: *const f32, tile: u32, tid: usize) {
        let source = unsafe { input.add(tile as usize * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *self.base.add(i) = *source.add(i) };
            i += BLOCK;
        }
    }

    /// `fill` followed by the block barrier that publishes it.
    unsafe fn fill_and_publish(&self, input: *const f32, tile: u32, tid: usize) {
        unsafe { self.fill(input, tile, tid) };
        barrier();
    }

    /// Column `col` over rows `rows`.
    unsafe fn column(&self, col: usize, rows: core::ops::Range<usize>) -> f32 {
        let mut sum = 0.0;
        for row in rows {
            sum += unsafe { *self.base.add(row * COLS + col) };
        }
        sum
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_hold_shared_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let staged = SharedTile { base: smem };
    let (col, half) = (tid % COLS, tid / COLS);

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        unsafe { staged.fill(input, tile, tid) };
        barrier();
        acc += unsafe { staged.column(col, 4 * half..4 * half + 4) };
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

/// BROKEN: the barrier lives inside `fill_and_publish`, after the stores, and nothing orders
/// the reads of tile `k` before the stores of tile `k + 1`: a warp that finishes its rows
/// early overwrites rows the other warp is still reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_hold_publish_inside_fill(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let staged = SharedTile { base: smem };
    let (col, half) = (tid % COLS, tid / COLS);

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        unsafe { staged.fill_and_publish(input, tile, tid) };
        acc += unsafe { staged.column(col, 4 * half..4 * half + 4) };
        tile += grid_dim_x();
    }
    barrier();
    let partials = unsafe { smem.add(TILE) };
    unsafe { *partials.add(tid) = acc };
    barrier();
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *partials.add(tid) + *partials.add(tid + COLS) };
    }
}

/// One thread's running sums: column `tid % 32` of rows `4·(tid / 32) + j`.
#[repr(C)]
#[derive(Clone, Copy)]
struct RowAccumulator {
    rows: [f32; 4],
}

/// Accumulates every tile of the block into `slots[slot]`, straight from global memory.
#[inline(always)]
unsafe fn accumulate(slots: *mut RowAccumulator, slot: usize, input: *const f32, tiles: u32, tid: usize) {
    let (col, half) = (tid % COLS, tid / COLS);
    let mine = unsafe { &mut *slots.add(slot) };
    mine.rows = [0.0; 4];
    let mut tile = block_idx_x();
    while tile < tiles {
        let source = unsafe { input.add(tile as usize * TILE + col) };
        for (j, row) in mine.rows.iter_mut().enumerate() {
            *row += unsafe { *source.add((4 * half + j) * COLS) };
        }
        tile += grid_dim_x();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_hold_accumulator_records(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let slots = dynamic_shared_base::<RowAccumulator>();
    unsafe { accumulate(slots, tid, input, tiles, tid) };
    barrier();
    if tid < COLS {
        let (top, bottom) = unsafe { (*slots.add(tid), *slots.add(tid + COLS)) };
        let sum: f32 = top.rows.iter().chain(bottom.rows.iter()).sum();
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = sum };
    }
}

/// BROKEN: the records are indexed by column, not by thread: threads `c` and `c + 32` both
/// read, add to and write back `slots[c]` (and clear it) concurrently, and updates are lost.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_hold_record_per_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let slots = dynamic_shared_base::<RowAccumulator>();
    unsafe { accumulate(slots, tid % COLS, input, tiles, tid) };
    barrier();
    if tid < COLS {
        let record = unsafe { *slots.add(tid) };
        let sum: f32 = record.rows.iter().sum();
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = sum };
    }
}
