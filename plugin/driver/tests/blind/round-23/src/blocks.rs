//! More kernels without the pipeline: a staging struct with methods, closures that stage and
//! sum, and register accumulation with the two warps' halves combined through shared scratch.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

struct Stager {
    buf: *mut f32,
    tid: usize,
}

impl Stager {
    unsafe fn stage(&self, tile: *const f32) {
        let mut i = self.tid;
        while i < 256 {
            *self.buf.add(i) = *tile.add(i);
            i += 64;
        }
    }

    unsafe fn column(&self, c: usize) -> f32 {
        let mut s = 0.0;
        for r in 0..8 {
            s += *self.buf.add(r * 32 + c);
        }
        s
    }
}

/// A staging struct with `stage` and `column` methods; buffer at byte 2048, warp 1 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_blk_stager_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let st = Stager { buf: dynamic_shared_base::<f32>().add(512), tid };
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        st.stage(input.add(t as usize * 256));
        barrier();
        if tid >= 32 {
            acc += st.column(tid - 32);
        }
        barrier();
        t += g;
    }
    if tid >= 32 {
        *out.add(b as usize * 32 + tid - 32) = acc;
    }
}

/// Each thread reads elements tid + 64k of every tile from global memory (column tid % 32, rows
/// tid / 32 + 2k); the two warps' partials meet in shared scratch after one barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_blk_scratch_two_warps(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let scratch = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * 256);
        acc += (0..4).map(|k| *tile.add(tid + 64 * k)).sum::<f32>();
        t += g;
    }
    *scratch.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *scratch.add(tid) + *scratch.add(tid + 32);
    }
}

/// Closures for staging and summing, two barriers per tile; warp 0 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_blk_closure_stager(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let stage = |t: u32| {
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            *s.add(64 * k + tid) = *src.add(64 * k + tid);
        }
    };
    let column = |c: usize| -> f32 {
        let mut v = 0.0;
        for r in 0..8 {
            v += *s.add(32 * r + c);
        }
        v
    };
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        stage(t);
        barrier();
        if tid < 32 {
            acc += column(tid);
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Register accumulation from global memory; partials of both warps stored by column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_blk_bad_scratch_by_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let scratch = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * 256);
        acc += (0..4).map(|k| *tile.add(tid + 64 * k)).sum::<f32>();
        t += g;
    }
    *scratch.add(tid % 32) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *scratch.add(tid) + *scratch.add(tid + 32);
    }
}

/// Every thread sums half a column of every tile from global memory; halves meet in scratch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_blk_bad_half_from_block_size(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let scratch = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let (c, half) = (tid % 32, tid / 64);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * 256 + half * 128 + c);
        for r in 0..4 {
            acc += *tile.add(32 * r);
        }
        t += g;
    }
    *scratch.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + c) = *scratch.add(c) + *scratch.add(c + 32);
    }
}
