//! Plain shared memory, no pipeline: the block stages each tile with ordinary loads and
//! stores between block barriers, then sums columns; partial sums exchanged through scratch.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_stage_then_sum(input: *const f32, tiles: u32, out: *mut f32) {
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

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_half_rows_per_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let scratch = s.add(256);
    let tid = thread_idx_x() as usize;
    let col = tid % 32;
    let half = tid / 32;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut part = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        let mut i = tid;
        while i < 256 {
            *s.add(i) = *src.add(i);
            i += 64;
        }
        barrier();
        for r in 0..4 {
            part += *s.add((half * 4 + r) * 32 + col);
        }
        barrier();
        t += g;
    }
    *scratch.add(tid) = part;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *scratch.add(tid) + *scratch.add(tid + 32);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut parity: u32 = 0;
    let mut t = b;
    while t < tiles {
        let buf = s.add(parity as usize * 256);
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            *buf.add(tid + 64 * k) = *src.add(tid + 64 * k);
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

/// No shared memory at all: warp 1 reads its column straight from global memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_registers_only(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    if tid < 32 {
        return;
    }
    let col = tid - 32;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * 256);
        for r in 0..8 {
            acc += *tile.add(r * 32 + col);
        }
        t += g;
    }
    *out.add(b as usize * 32 + col) = acc;
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_partials_pairwise(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let partial = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let col = tid & 31;
    let first_row = (tid >> 5) * 4;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * 256);
        let mut p = 0.0f32;
        for r in first_row..first_row + 4 {
            p += *tile.add(r * 32 + col);
        }
        *partial.add(tid) = p;
        barrier();
        if tid < 32 {
            acc += *partial.add(tid) + *partial.add(tid + 32);
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_copy_nonoverlapping(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        core::ptr::copy_nonoverlapping(input.add(t as usize * 256 + tid * 4), s.add(tid * 4), 4);
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

#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Quad([f32; 4]);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_quad_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let quads = dynamic_shared_base::<Quad>();
    let floats = quads as *const f32;
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256) as *const Quad;
        *quads.add(tid) = *src.add(tid);
        barrier();
        if tid >= 32 {
            let c = tid - 32;
            for r in 0..8 {
                acc += *floats.add(r * 32 + c);
            }
        }
        barrier();
        t += g;
    }
    if tid >= 32 {
        *out.add(b as usize * 32 + tid - 32) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// No barrier after the sums: the next tile's stores overwrite rows warp 0 is still reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_bad_no_second_barrier(input: *const f32, tiles: u32, out: *mut f32) {
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

/// Warp 0 sums the staged tile before the barrier that orders warp 1's stores.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_bad_sum_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(1280);
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
        if tid < 32 {
            for r in 0..8 {
                acc += *s.add(r * 32 + tid);
            }
        }
        barrier();
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// The barrier between staging and summing is inside `if tid < 32`: warp 1 never reaches it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_bad_barrier_in_branch(input: *const f32, tiles: u32, out: *mut f32) {
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
        if tid < 32 {
            barrier();
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

/// The staging loop runs three passes of 64 floats instead of four: rows 6 and 7 are never
/// staged (buffer at byte 5248 so that no other kernel's leftovers line up).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_bad_three_quarters_staged(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(1312);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        for k in 0..3 {
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

/// The double buffer's readers flip parity but the stores always go to buffer 0: the next
/// tile is staged into the buffer being read (buffers at byte 5376 so that leftovers do not line up).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_bad_double_buffer_one_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(1344);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut parity: u32 = 0;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        let buf = s.add(parity as usize * 256);
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

/// The partial sums are parked "after the tile" at float 2016, but 64 of them run to byte
/// 8320, past the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_plain_bad_scratch_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let scratch = dynamic_shared_base::<f32>().add(2016);
    let tid = thread_idx_x() as usize;
    let col = tid & 31;
    let first_row = (tid >> 5) * 4;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * 256);
        let mut p = 0.0f32;
        for r in first_row..first_row + 4 {
            p += *tile.add(r * 32 + col);
        }
        *scratch.add(tid) = p;
        barrier();
        if tid < 32 {
            acc += *scratch.add(tid) + *scratch.add(tid + 32);
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}
