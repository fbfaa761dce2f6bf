//! Kernels without the pipeline: tiles staged in shared memory by ordinary loads and stores,
//! ordered by block barriers (single buffer, double buffer, whole window), and one kernel that
//! reads global memory directly.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// One tile at a time: the block stages it (four floats per thread), warp 0 sums the columns,
/// and a second barrier keeps the next staging off the tile being read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_single_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *s.add(r * 32 + tid);
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Two buffers used alternately, one barrier per tile; warp 1 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut parity = 0usize;
    let mut t = b;
    while t < tiles {
        let buf = s.add(parity * 256);
        let src = input.add(t as usize * 256);
        let mut i = tid;
        while i < 256 {
            *buf.add(i) = *src.add(i);
            i += 64;
        }
        barrier();
        if tid >= 32 {
            let c = tid - 32;
            for r in 0..8 {
                acc += *buf.add(r * 32 + c);
            }
        }
        parity ^= 1;
        t += g;
    }
    if tid >= 32 {
        *out.add(b as usize * 32 + tid - 32) = acc;
    }
}

#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad([f32; 4]);

/// Each thread stages one 16-byte quad of the tile; warp 0 sums after the barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_quad_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let quads = dynamic_shared_base::<Quad>();
    let floats = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256) as *const Quad;
        *quads.add(tid) = *src.add(tid);
        barrier();
        if tid < 32 {
            let mut r = 0;
            while r < 8 {
                acc += *floats.add(r * 32 + tid);
                r += 1;
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// All eight of the block's tiles staged at once (the whole 8 KiB window); each thread sums half
/// a column over every tile, then the halves meet in the first 64 floats after another barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_whole_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = ((tiles - b).div_ceil(g) as usize).min(8);
    for k in 0..mine {
        let src = input.add((b as usize + k * g as usize) * 256);
        for j in 0..4 {
            *s.add(k * 256 + j * 64 + tid) = *src.add(j * 64 + tid);
        }
    }
    barrier();
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    for k in 0..mine {
        for r in 0..4 {
            acc += *s.add(k * 256 + (half * 4 + r) * 32 + c);
        }
    }
    barrier();
    *s.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *s.add(tid) + *s.add(tid + 32);
    }
}

/// No shared memory: each of warp 0's lanes reads its column straight from global memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_registers_only(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid < 32 {
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let tile = input.add(t as usize * 256);
            for r in 0..8 {
                acc += *tile.add(r * 32 + tid);
            }
            t += g;
        }
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// The tile is staged transposed (column c's eight values contiguous at 8c); warp 1 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_transposed_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            let i = tid + 64 * k;
            *s.add((i % 32) * 8 + i / 32) = *src.add(i);
        }
        barrier();
        if tid >= 32 {
            let col = s.add((tid - 32) * 8);
            for r in 0..8 {
                acc += *col.add(r);
            }
        }
        barrier();
        t += g;
    }
    if tid >= 32 {
        *out.add(b as usize * 32 + tid - 32) = acc;
    }
}

/// Single buffer staged by all threads, summed by warp 0, one barrier per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_bad_single_buffer_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *s.add(r * 32 + tid);
            }
        }
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Quad staging; warp 0 sums the tile right after its own quad is stored.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_bad_sum_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let quads = dynamic_shared_base::<Quad>();
    let floats = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256) as *const Quad;
        *quads.add(tid) = *src.add(tid);
        if tid < 32 {
            let mut r = 0;
            while r < 8 {
                acc += *floats.add(r * 32 + tid);
                r += 1;
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Double buffer; the staging loop steps by two threads' worth of floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_bad_staging_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut parity = 0usize;
    let mut t = b;
    while t < tiles {
        let buf = s.add(parity * 256);
        let src = input.add(t as usize * 256);
        let mut i = tid;
        while i < 256 {
            *buf.add(i) = *src.add(i);
            i += 128;
        }
        barrier();
        if tid >= 32 {
            let c = tid - 32;
            for r in 0..8 {
                acc += *buf.add(r * 32 + c);
            }
        }
        parity ^= 1;
        t += g;
    }
    if tid >= 32 {
        *out.add(b as usize * 32 + tid - 32) = acc;
    }
}

/// Whole window staging; the halves of each column meet in scratch after the staged tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_bad_scratch_after_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = ((tiles - b).div_ceil(g) as usize).min(8);
    for k in 0..mine {
        let src = input.add((b as usize + k * g as usize) * 256);
        for j in 0..4 {
            *s.add(k * 256 + j * 64 + tid) = *src.add(j * 64 + tid);
        }
    }
    barrier();
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    for k in 0..mine {
        for r in 0..4 {
            acc += *s.add(k * 256 + (half * 4 + r) * 32 + c);
        }
    }
    let scratch = s.add(8 * 256);
    *scratch.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *scratch.add(tid) + *scratch.add(tid + 32);
    }
}

/// Double buffer with the buffer to read chosen from the next parity.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_plain_bad_double_buffer_reads_other(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut parity = 0usize;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        let mut i = tid;
        while i < 256 {
            *s.add(parity * 256 + i) = *src.add(i);
            i += 64;
        }
        barrier();
        parity ^= 1;
        if tid >= 32 {
            let c = tid - 32;
            for r in 0..8 {
                acc += *s.add(parity * 256 + r * 32 + c);
            }
        }
        t += g;
    }
    if tid >= 32 {
        *out.add(b as usize * 32 + tid - 32) = acc;
    }
}
