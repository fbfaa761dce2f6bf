//! Plain shared-memory kernels, no pipeline: staging tiles between block barriers, double
//! buffers, tree reductions, transposed staging.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;

/// Stage each tile with a 64-thread stride loop, two barriers per tile; warp `w` sums rows
/// `4w..4w + 4`; the halves are added through shared memory at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_stage_two_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let c = tid % 32;
    let half = tid / 32;
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *s.add(i) = *src.add(i);
            i += 64;
        }
        barrier();
        for r in 0..4 {
            acc += *s.add((half * 4 + r) * 32 + c);
        }
        barrier();
        t += g;
    }
    *s.add(TILE + tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *s.add(TILE + tid) + *s.add(TILE + 32 + tid);
    }
}

/// Threads read global memory directly; shared memory only joins the two halves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_global_then_join(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = dynamic_shared_base::<f32>().add(1000);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x() as usize, grid_dim_x() as usize);
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    for t in (b..tiles as usize).step_by(g) {
        for r in 0..4 {
            acc += *input.add(t * TILE + (half * 4 + r) * 32 + c);
        }
    }
    *part.add(tid) = acc;
    barrier();
    if half == 0 {
        *out.add(b * 32 + c) = *part.add(c) + *part.add(c + 32);
    }
}

/// Double buffer chosen by a parity flag: the next tile is staged into the other buffer while
/// this one is read; one barrier per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    let mut parity = 0usize;
    if b < tiles {
        let src = input.add(b as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *s.add(i) = *src.add(i);
            i += 64;
        }
    }
    barrier();
    let mut t = b;
    while t < tiles {
        let next = t + g;
        if next < tiles {
            let src = input.add(next as usize * TILE);
            let dst = s.add((parity ^ 1) * TILE);
            let mut i = tid;
            while i < TILE {
                *dst.add(i) = *src.add(i);
                i += 64;
            }
        }
        let cur = s.add(parity * TILE);
        for r in 0..4 {
            acc += *cur.add((half * 4 + r) * 32 + c);
        }
        barrier();
        parity ^= 1;
        t = next;
    }
    let part = s.add(2 * TILE);
    *part.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *part.add(tid) + *part.add(tid + 32);
    }
}

/// Thread `8r + q` sums row `r`, columns `4q..4q + 4`; the rows are added by a tree over
/// shared memory with a barrier between levels.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_row_tree(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(512);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x() as usize, grid_dim_x() as usize);
    let r = tid / 8;
    let q = tid % 8;
    let mut acc = [0.0f32; 4];
    let mut t = b;
    while t < tiles as usize {
        let row = input.add(t * TILE + r * 32 + 4 * q);
        for j in 0..4 {
            acc[j] += *row.add(j);
        }
        t += g;
    }
    for j in 0..4 {
        *s.add(r * 32 + 4 * q + j) = acc[j];
    }
    barrier();
    let mut half = 4usize;
    while half > 0 {
        if r < half {
            for j in 0..4 {
                let v = *s.add((r + half) * 32 + 4 * q + j);
                *s.add(r * 32 + 4 * q + j) += v;
            }
        }
        barrier();
        half /= 2;
    }
    if r == 0 {
        for j in 0..4 {
            *out.add(b * 32 + 4 * q + j) = *s.add(4 * q + j);
        }
    }
}

/// Each thread stages four consecutive floats with `copy_nonoverlapping`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_copy_nonoverlapping(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(1024);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        core::ptr::copy_nonoverlapping(input.add(t as usize * TILE + 4 * tid), s.add(4 * tid), 4);
        barrier();
        for r in 0..4 {
            acc += *s.add((half * 4 + r) * 32 + c);
        }
        barrier();
        t += g;
    }
    let part = s.add(TILE);
    *part.add(tid) = acc;
    barrier();
    if half == 0 {
        *out.add(b as usize * 32 + c) = *part.add(c) + *part.add(c + 32);
    }
}

/// The tile is staged transposed (`column * 8 + row`), so warp 0 reads eight consecutive floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_transposed_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut e = tid;
        while e < TILE {
            *s.add((e % 32) * 8 + e / 32) = *src.add(e);
            e += 64;
        }
        barrier();
        if tid < 32 {
            let col = s.add(tid * 8);
            for r in 0..8 {
                acc += *col.add(r);
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

struct Stager {
    buf: *mut f32,
}

impl Stager {
    unsafe fn load(&self, src: *const f32, tid: usize) {
        let mut i = tid;
        while i < TILE {
            *self.buf.add(i) = *src.add(i);
            i += 64;
        }
    }
    unsafe fn column(&self, c: usize, first_row: usize, rows: usize) -> f32 {
        let mut s = 0.0;
        for r in first_row..first_row + rows {
            s += *self.buf.add(r * 32 + c);
        }
        s
    }
}

/// Staging through a struct's methods.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_struct_stager(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let stager = Stager { buf: dynamic_shared_base::<f32>().add(256) };
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        stager.load(input.add(t as usize * TILE), tid);
        barrier();
        acc += stager.column(c, half * 4, 4);
        barrier();
        t += g;
    }
    let part = dynamic_shared_base::<f32>();
    *part.add(tid) = acc;
    barrier();
    if half == 0 {
        *out.add(b as usize * 32 + c) = *part.add(c) + *part.add(c + 32);
    }
}

/// Both warps stage with `for i in (tid..256).step_by(64)`; halves joined with a `[f32; 2]`
/// pair per column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_pairs_join(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(512);
    let pairs = dynamic_shared_base::<[f32; 2]>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    for t in (b..tiles).step_by(g as usize) {
        let src = input.add(t as usize * TILE);
        for i in (tid..TILE).step_by(64) {
            *s.add(i) = *src.add(i);
        }
        barrier();
        for r in 0..4 {
            acc += *s.add((half * 4 + r) * 32 + c);
        }
        barrier();
    }
    (*pairs.add(c))[half] = acc;
    barrier();
    if half == 0 {
        let p = *pairs.add(c);
        *out.add(b as usize * 32 + c) = p[0] + p[1];
    }
}

// ---------------------------------------------------------------- broken

/// Broken: no barrier after the reads, so the next tile's staging overwrites slots the other
/// warp may still be reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_bad_no_trailing_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(1300);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let c = tid % 32;
    let half = tid / 32;
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *s.add(i) = *src.add(i);
            i += 64;
        }
        barrier();
        for r in 0..4 {
            acc += *s.add((half * 4 + r) * 32 + c);
        }
        t += g;
    }
    barrier();
    *s.add(TILE + tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *s.add(TILE + tid) + *s.add(TILE + 32 + tid);
    }
}

/// Broken: the barrier between staging and reading is missing; each thread reads rows that
/// other threads are still writing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_bad_read_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(1620);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        core::ptr::copy_nonoverlapping(input.add(t as usize * TILE + 4 * tid), s.add(4 * tid), 4);
        for r in 0..4 {
            acc += *s.add((half * 4 + r) * 32 + c);
        }
        barrier();
        t += g;
    }
    let part = s.add(TILE);
    *part.add(tid) = acc;
    barrier();
    if half == 0 {
        *out.add(b as usize * 32 + c) = *part.add(c) + *part.add(c + 32);
    }
}

/// Broken: the double buffer stages the next tile into the buffer being read (`parity` instead
/// of `parity ^ 1`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_bad_double_buffer_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(580);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    let mut parity = 0usize;
    if b < tiles {
        let src = input.add(b as usize * TILE);
        let mut i = tid;
        while i < TILE {
            *s.add(i) = *src.add(i);
            i += 64;
        }
    }
    barrier();
    let mut t = b;
    while t < tiles {
        let next = t + g;
        if next < tiles {
            let src = input.add(next as usize * TILE);
            let dst = s.add(parity * TILE);
            let mut i = tid;
            while i < TILE {
                *dst.add(i) = *src.add(i);
                i += 64;
            }
        }
        let cur = s.add(parity * TILE);
        for r in 0..4 {
            acc += *cur.add((half * 4 + r) * 32 + c);
        }
        barrier();
        parity ^= 1;
        t = next;
    }
    let part = s.add(2 * TILE);
    *part.add(tid) = acc;
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = *part.add(tid) + *part.add(tid + 32);
    }
}

/// Broken: the row tree has one barrier after all levels instead of one per level; a level
/// reads rows the previous level is still adding to.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_bad_tree_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(1200);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x() as usize, grid_dim_x() as usize);
    let r = tid / 8;
    let q = tid % 8;
    let mut acc = [0.0f32; 4];
    let mut t = b;
    while t < tiles as usize {
        let row = input.add(t * TILE + r * 32 + 4 * q);
        for j in 0..4 {
            acc[j] += *row.add(j);
        }
        t += g;
    }
    for j in 0..4 {
        *s.add(r * 32 + 4 * q + j) = acc[j];
    }
    barrier();
    let mut half = 4usize;
    while half > 0 {
        if r < half {
            for j in 0..4 {
                let v = *s.add((r + half) * 32 + 4 * q + j);
                *s.add(r * 32 + 4 * q + j) += v;
            }
        }
        half /= 2;
    }
    barrier();
    if r == 0 {
        for j in 0..4 {
            *out.add(b * 32 + 4 * q + j) = *s.add(4 * q + j);
        }
    }
}

/// Broken: the partial sums are parked at float 2048, byte 8192: just past the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_bad_partials_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const PARTIALS: usize = 2048;
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    for t in (b..tiles).step_by(g as usize) {
        let src = input.add(t as usize * TILE);
        for i in (tid..TILE).step_by(64) {
            *s.add(i) = *src.add(i);
        }
        barrier();
        for r in 0..4 {
            acc += *s.add((half * 4 + r) * 32 + c);
        }
        barrier();
    }
    *s.add(PARTIALS + tid) = acc;
    barrier();
    if half == 0 {
        *out.add(b as usize * 32 + c) = *s.add(PARTIALS + c) + *s.add(PARTIALS + c + 32);
    }
}

/// Broken: the transposed staging divides by the block size (64) instead of the row length (32)
/// for the row: pairs of elements land on one slot and half the slots are never written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_bad_transpose_block_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>().add(900);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut e = tid;
        while e < TILE {
            *s.add((e % 32) * 8 + e / 64) = *src.add(e);
            e += 64;
        }
        barrier();
        if tid < 32 {
            let col = s.add(tid * 8);
            for r in 0..8 {
                acc += *col.add(r);
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Broken: warp 0 adds warp 1's partial sums without a barrier after they are stored.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_plain_bad_join_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = dynamic_shared_base::<f32>().add(1700);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x() as usize, grid_dim_x() as usize);
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    for t in (b..tiles as usize).step_by(g) {
        for r in 0..4 {
            acc += *input.add(t * TILE + (half * 4 + r) * 32 + c);
        }
    }
    *part.add(tid) = acc;
    if half == 0 {
        *out.add(b * 32 + c) = *part.add(c) + *part.add(c + 32);
    }
}
