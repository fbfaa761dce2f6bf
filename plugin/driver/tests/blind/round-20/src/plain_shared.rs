//! Group L: plain shared memory and block barriers.

#[allow(unused_imports)]
use super::*;


#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_stage_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *tile.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            barrier();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_no_trailing_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *tile.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            // BUG: no barrier here: warp 1 overwrites the tile with the next one while warp 0 reads.
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_no_leading_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    unsafe {
        for t in (b..tiles).step_by(g) {
            let from = input.add((t * TILE) as usize);
            for i in (tid..TILE).step_by(64) {
                *tile.add(i as usize) = *from.add(i as usize);
            }
            // BUG: the barrier that publishes the staged tile is missing; rows written by warp 1 may not be there yet.
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            barrier();
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_double_buffer_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let base = dynamic_shared_base::<f32>();
    let mut parity = 0u32;
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let buf = base.add((parity * TILE) as usize);
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *buf.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *buf.add((r * COLS + tid) as usize);
                }
            }
            parity ^= 1;
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_double_buffer_stuck(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let base = dynamic_shared_base::<f32>();
    let mut parity = 0u32;
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let buf = base.add((parity * TILE) as usize);
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *buf.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *buf.add((r * COLS + tid) as usize);
                }
            }
            // BUG: `parity & 1` instead of `^= 1`: always buffer 0, one barrier per tile.
            parity &= 1;
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_halves_then_combine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let partial = unsafe { tile.add(TILE as usize) };
    let mut acc = 0.0f32;
    unsafe {
        for k in 0..owned(tiles) {
            let from = input.add(((b + k * g) * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            barrier();
        }
        *partial.add(tid as usize) = acc;
        barrier();
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = *partial.add(tid as usize) + *partial.add((tid + 32) as usize);
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_partials_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    // BUG: "after eight tiles of staging": 8 KiB in, the first byte past the window.
    let partial = unsafe { tile.add((8 * TILE) as usize) };
    let mut acc = 0.0f32;
    unsafe {
        for k in 0..owned(tiles) {
            let from = input.add(((b + k * g) * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            barrier();
        }
        *partial.add(tid as usize) = acc;
        barrier();
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = *partial.add(tid as usize) + *partial.add((tid + 32) as usize);
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_partials_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let partial = unsafe { tile.add(TILE as usize) };
    let mut acc = 0.0f32;
    unsafe {
        for k in 0..owned(tiles) {
            let from = input.add(((b + k * g) * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            barrier();
        }
        *partial.add(tid as usize) = acc;
        // BUG: warp 0 reads warp 1's partials without a barrier.
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = *partial.add(tid as usize) + *partial.add((tid + 32) as usize);
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_global_only(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let b = block_idx_x();
    if tid >= 32 {
        return;
    }
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for r in 0..ROWS {
                acc += *from.add((r * COLS + tid) as usize);
            }
            t += grid_dim_x();
        }
        *out.add((b * COLS + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_strided_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let from = unsafe { input.add((t * TILE) as usize) };
        device::strided::strided(
            tid as usize,
            TILE as usize,
            64,
            |i| unsafe { *from.add(i) },
            |i, v: f32| unsafe { *tile.add(i) = v },
        );
        barrier();
        if tid < 32 {
            for r in 0..ROWS {
                acc += unsafe { *tile.add((r * COLS + tid) as usize) };
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_strided_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let from = unsafe { input.add((t * TILE) as usize) };
        // BUG: a step of one warp (32) for a block of 64 threads: threads t and t + 32 write the same slots.
        device::strided::strided(
            tid as usize,
            TILE as usize,
            32,
            |i| unsafe { *from.add(i) },
            |i, v: f32| unsafe { *tile.add(i) = v },
        );
        barrier();
        if tid < 32 {
            for r in 0..ROWS {
                acc += unsafe { *tile.add((r * COLS + tid) as usize) };
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}
