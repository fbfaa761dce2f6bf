//! Plain shared-memory kernels, no pipeline: partial sums meeting in shared memory, a double
//! buffer filled by ordinary loads, accumulators in shared memory taken in turns.

use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;

/// Each thread sums its column over half the rows (warp 0 rows 0..4, warp 1 rows 4..8) straight
/// from global memory; the halves meet in shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_plain_column_halves(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let partials = dynamic_shared_base::<f32>();
    let column = tid % 32;
    let first_row = (tid / 32) * 4;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let tile = unsafe { input.add(t as usize * TILE) };
        for row in first_row..first_row + 4 {
            acc += unsafe { *tile.add(row * 32 + column) };
        }
        t += grid_dim_x();
    }
    unsafe { *partials.add(tid) = acc };
    barrier();
    if tid < 32 {
        let total = unsafe { *partials.add(tid) + *partials.add(tid + 32) };
        unsafe { *out.add(block_idx_x() as usize * 32 + tid) = total };
    }
}

/// The halves meet without the barrier: warp 0 may read warp 1's slot before it is written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_plain_column_halves_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let partials = dynamic_shared_base::<f32>();
    let column = tid % 32;
    let first_row = (tid / 32) * 4;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let tile = unsafe { input.add(t as usize * TILE) };
        for row in first_row..first_row + 4 {
            acc += unsafe { *tile.add(row * 32 + column) };
        }
        t += grid_dim_x();
    }
    unsafe { *partials.add(tid) = acc };
    if tid < 32 {
        let total = unsafe { *partials.add(tid) + *partials.add(tid + 32) };
        unsafe { *out.add(block_idx_x() as usize * 32 + tid) = total };
    }
}

/// Two tile buffers: while warp 0 adds up buffer `k % 2`, everyone loads the next tile into
/// the other one; one barrier per tile separates the two uses of each buffer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let buffers = dynamic_shared_base::<f32>();
    let step = grid_dim_x();
    let load = |slot: usize, tile: u32| {
        let src = unsafe { input.add(tile as usize * TILE) };
        let dst = unsafe { buffers.add(slot * TILE) };
        let mut k = tid;
        while k < TILE {
            unsafe { *dst.add(k) = *src.add(k) };
            k += 64;
        }
    };
    let mut t = block_idx_x();
    if t < tiles {
        load(0, t);
    }
    barrier();
    let mut acc = 0.0f32;
    let mut k = 0usize;
    while t < tiles {
        if t + step < tiles {
            load((k + 1) % 2, t + step);
        }
        if tid < 32 {
            let cur = unsafe { buffers.add((k % 2) * TILE) };
            for row in 0..8 {
                acc += unsafe { *cur.add(row * 32 + tid) };
            }
        }
        barrier();
        k += 1;
        t += step;
    }
    if tid < 32 {
        unsafe { *out.add(block_idx_x() as usize * 32 + tid) = acc };
    }
}

/// Double buffer with the slot arithmetic off by one: the next tile is loaded into the buffer
/// being read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_plain_double_buffer_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let buffers = dynamic_shared_base::<f32>();
    let step = grid_dim_x();
    let load = |slot: usize, tile: u32| {
        let src = unsafe { input.add(tile as usize * TILE) };
        let dst = unsafe { buffers.add(slot * TILE) };
        let mut k = tid;
        while k < TILE {
            unsafe { *dst.add(k) = *src.add(k) };
            k += 64;
        }
    };
    let mut t = block_idx_x();
    if t < tiles {
        load(0, t);
    }
    barrier();
    let mut acc = 0.0f32;
    let mut k = 0usize;
    while t < tiles {
        let next = k + 1;
        if t + step < tiles {
            // the buffer for tile `next`
            load(k % 2, t + step);
        }
        if tid < 32 {
            let cur = unsafe { buffers.add((k % 2) * TILE) };
            for row in 0..8 {
                acc += unsafe { *cur.add(row * 32 + tid) };
            }
        }
        barrier();
        k = next;
        t += step;
    }
    if tid < 32 {
        unsafe { *out.add(block_idx_x() as usize * 32 + tid) = acc };
    }
}

/// 32 accumulators in shared memory; per tile the two warps add their halves in turns, a
/// barrier between the turns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_plain_turns(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let acc = dynamic_shared_base::<f32>();
    let column = tid % 32;
    let warp = tid / 32;
    if warp == 0 {
        unsafe { *acc.add(column) = 0.0 };
    }
    barrier();
    let mut t = block_idx_x();
    while t < tiles {
        let tile = unsafe { input.add(t as usize * TILE) };
        let mine: f32 = (0..4).map(|r| unsafe { *tile.add((warp * 4 + r) * 32 + column) }).sum();
        for turn in 0..2 {
            if warp == turn {
                unsafe { *acc.add(column) += mine };
            }
            barrier();
        }
        t += grid_dim_x();
    }
    if warp == 0 {
        unsafe { *out.add(block_idx_x() as usize * 32 + column) = *acc.add(column) };
    }
}

/// Accumulators in shared memory, both warps adding into them at once ("float adds to shared
/// memory are fast"): read-modify-write from two warps on the same word.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_plain_shared_accumulate_race(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let acc = dynamic_shared_base::<f32>();
    let column = tid % 32;
    let warp = tid / 32;
    if warp == 0 {
        unsafe { *acc.add(column) = 0.0 };
    }
    barrier();
    let mut t = block_idx_x();
    while t < tiles {
        let tile = unsafe { input.add(t as usize * TILE) };
        let mine: f32 = (0..4).map(|r| unsafe { *tile.add((warp * 4 + r) * 32 + column) }).sum();
        unsafe { *acc.add(column) += mine };
        t += grid_dim_x();
    }
    barrier();
    if warp == 0 {
        unsafe { *out.add(block_idx_x() as usize * 32 + column) = *acc.add(column) };
    }
}
