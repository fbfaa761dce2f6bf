//! Kernels with plain shared memory and block barriers only (no pipeline): the block stages each
//! tile cooperatively, then reads it.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::strided::strided;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const THREADS: usize = 64;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_stage_then_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
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
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_halves_combined_once(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let buf = smem;
    let partials = smem.add(TILE);
    let col = tid % 32;
    let first = (tid / 32) * 4;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *buf.add(tid + k * THREADS) = *src.add(tid + k * THREADS);
        }
        barrier();
        for r in first..first + 4 {
            acc += *buf.add(r * 32 + col);
        }
        barrier();
        t += grid_dim_x();
    }
    *partials.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = *partials.add(tid) + *partials.add(tid + 32);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_double_buffer_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    if b < tiles {
        for k in 0..4 {
            *smem.add(tid + k * THREADS) = *input.add(b as usize * TILE + tid + k * THREADS);
        }
    }
    barrier();
    let mut parity = 0usize;
    let mut t = b;
    while t < tiles {
        let next = t + g;
        if next < tiles {
            let dst = smem.add((parity ^ 1) * TILE);
            for k in 0..4 {
                *dst.add(tid + k * THREADS) = *input.add(next as usize * TILE + tid + k * THREADS);
            }
        }
        if tid < 32 {
            let cur = smem.add(parity * TILE);
            for r in 0..8 {
                acc += *cur.add(r * 32 + tid);
            }
        }
        barrier();
        parity ^= 1;
        t = next;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_quad_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let quads = dynamic_shared_base::<[f32; 4]>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const [f32; 4];
        *quads.add(tid) = *src.add(tid);
        barrier();
        if tid < 32 {
            let floats = quads as *const f32;
            for r in 0..8 {
                acc += *floats.add(r * 32 + tid);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_strided_loader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>().add(1024);
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        strided(tid, TILE, THREADS, |i| *src.add(i), |i, v: f32| *buf.add(i) = v);
        barrier();
        if tid < 32 {
            acc += (0..8).map(|r| *buf.add(r * 32 + tid)).sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_transposed_store(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let cols = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            let i = tid + k * THREADS;
            let (r, c) = (i / 32, i % 32);
            *cols.add(c * 8 + r) = *src.add(i);
        }
        barrier();
        if tid < 32 {
            let mine = cols.add(tid * 8);
            for r in 0..8 {
                acc += *mine.add(r);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_accumulator_slots(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let sums = smem.add(2048 - 32);
    let buf = smem;
    if tid < 32 {
        *sums.add(tid) = 0.0;
    }
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            *buf.add(tid + k * THREADS) = *input.add(t as usize * TILE + tid + k * THREADS);
        }
        barrier();
        if tid < 32 {
            let mut s = *sums.add(tid);
            for r in 0..8 {
                s += *buf.add(r * 32 + tid);
            }
            *sums.add(tid) = s;
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = *sums.add(tid);
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_bad_no_barrier_after_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *buf.add(i) = *src.add(i);
            i += THREADS;
        }
        if tid < 32 {
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_bad_no_barrier_before_refill(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let quads = dynamic_shared_base::<[f32; 4]>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const [f32; 4];
        *quads.add(tid) = *src.add(tid);
        barrier();
        if tid < 32 {
            let floats = quads as *const f32;
            for r in 0..8 {
                acc += *floats.add(r * 32 + tid);
            }
        }
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_bad_double_buffer_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    if b < tiles {
        for k in 0..4 {
            *smem.add(tid + k * THREADS) = *input.add(b as usize * TILE + tid + k * THREADS);
        }
    }
    barrier();
    let mut parity = 0usize;
    let mut t = b;
    while t < tiles {
        let next = t + g;
        if next < tiles {
            let dst = smem.add(parity * TILE);
            for k in 0..4 {
                *dst.add(tid + k * THREADS) = *input.add(next as usize * TILE + tid + k * THREADS);
            }
        }
        if tid < 32 {
            let cur = smem.add(parity * TILE);
            for r in 0..8 {
                acc += *cur.add(r * 32 + tid);
            }
        }
        barrier();
        parity ^= 1;
        t = next;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_bad_buffer_at_window_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    // the staging buffer goes after 7 KiB of "reserved" space, with its partials before it
    let smem = dynamic_shared_base::<f32>();
    let partials = smem.add(7 * 256);
    let buf = partials.add(64);
    let col = tid % 32;
    let first = (tid / 32) * 4;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            *buf.add(tid + k * THREADS) = *input.add(t as usize * TILE + tid + k * THREADS);
        }
        barrier();
        for r in first..first + 4 {
            acc += *buf.add(r * 32 + col);
        }
        barrier();
        t += grid_dim_x();
    }
    *partials.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = *partials.add(tid) + *partials.add(tid + 32);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_bad_partials_over_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    // partials reuse the staging buffer: it is free after the loop
    let buf = smem;
    let partials = smem;
    let col = tid % 32;
    let first = (tid / 32) * 4;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            *buf.add(tid + k * THREADS) = *input.add(t as usize * TILE + tid + k * THREADS);
        }
        barrier();
        for r in first..first + 4 {
            acc += *buf.add(r * 32 + col);
        }
        t += grid_dim_x();
        if t < tiles {
            barrier();
        }
    }
    *partials.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = *partials.add(tid) + *partials.add(tid + 32);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_bad_barrier_in_reader_branch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *buf.add(tid + k * THREADS) = *src.add(tid + k * THREADS);
        }
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
            // readers done: let the loaders go on
            barrier();
        }
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_sh_bad_loader_three_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        // 64 threads, 4 floats each... counted as 3 "after the first"
        for k in 0..3 {
            *buf.add(tid + k * THREADS) = *src.add(tid + k * THREADS);
        }
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}
