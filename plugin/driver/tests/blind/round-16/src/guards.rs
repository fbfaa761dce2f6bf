//! Plain shared memory with guards: early returns, `let … else`, `Option` of the thread's
//! column, threads that only help with the staging.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;
const BLOCK: usize = 64;

#[inline(always)]
unsafe fn stage(smem: *mut f32, input: *const f32, tile: u32, tid: usize) {
    let source = unsafe { input.add(tile as usize * TILE) };
    for k in 0..TILE / BLOCK {
        let i = tid + k * BLOCK;
        unsafe { *smem.add(i) = *source.add(i) };
    }
}

/// A block without tiles writes zeros and leaves (the whole block at once); the others stage
/// and sum as usual.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_guard_idle_block_returns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let first = block_idx_x();
    if first >= tiles {
        if tid < COLS {
            unsafe { *out.add(first as usize * COLS + tid) = 0.0 };
        }
        return;
    }
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        unsafe { stage(smem, input, tile, tid) };
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
        unsafe { *out.add(first as usize * COLS + tid) = acc };
    }
}

/// Each thread's column is an `Option`: warp 0's threads own one, warp 1 only stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_guard_optional_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let column = (tid < COLS).then_some(tid);

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        unsafe { stage(smem, input, tile, tid) };
        barrier();
        if let Some(c) = column {
            let mut row = 0;
            while row < ROWS {
                acc += unsafe { *smem.add(row * COLS + c) };
                row += 1;
            }
        }
        barrier();
        tile += grid_dim_x();
    }
    if let Some(c) = column {
        unsafe { *out.add(block_idx_x() as usize * COLS + c) = acc };
    }
}

/// The tile count comes from `checked_sub` with `let … else` (uniform in the block), and the
/// loop runs over `0..count`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_guard_let_else_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let first = block_idx_x();
    let step = grid_dim_x();
    let smem = dynamic_shared_base::<f32>();
    let Some(span) = tiles.checked_sub(first).filter(|&s| s > 0) else {
        if tid < COLS {
            unsafe { *out.add(first as usize * COLS + tid) = 0.0 };
        }
        return;
    };
    let count = span.div_ceil(step);

    let (col, half) = (tid % COLS, tid / COLS);
    let mut acc = 0.0f32;
    for k in 0..count {
        unsafe { stage(smem, input, first + k * step, tid) };
        barrier();
        for row in 4 * half..4 * half + 4 {
            acc += unsafe { *smem.add(row * COLS + col) };
        }
        barrier();
    }
    let partials = unsafe { smem.add(TILE) };
    unsafe { *partials.add(tid) = acc };
    barrier();
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = *partials.add(tid) + *partials.add(tid + COLS) };
    }
}

/// BROKEN: warp 1 "only helps with the staging" and returns right after the first tile's
/// barrier: from the second tile on only warp 0 stages, so half of each tile is never
/// written (warp 0 sums the first tile's leftovers), and the barriers are reached by half
/// the block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_guard_helpers_leave_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        unsafe { stage(smem, input, tile, tid) };
        barrier();
        if tid >= COLS {
            return;
        }
        for row in 0..ROWS {
            acc += unsafe { *smem.add(row * COLS + tid) };
        }
        barrier();
        tile += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}
