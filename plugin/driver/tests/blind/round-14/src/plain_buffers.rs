//! Plain shared memory: double and triple buffers (the next tile staged while the current one is
//! read, one barrier per tile) and a padded transpose through a second buffer.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const BLOCK: usize = 64;

/// Copies quad `tid` of tile `t` into the buffer at `dst`.
///
/// # Safety
/// `dst` is a 1 KiB shared buffer, `tid < 64`, tile `t` exists.
#[inline(always)]
unsafe fn put_quad(dst: *mut f32, input: *const f32, t: usize, tid: usize) {
    let from = input.wrapping_add(t * TILE + 4 * tid).cast::<[f32; 4]>();
    // SAFETY: the caller's contract; 16-byte aligned both sides.
    unsafe { *dst.cast::<[f32; 4]>().add(tid) = *from };
}

/// Column `c` of the tile in the buffer at `src`.
///
/// # Safety
/// `src` is a staged 1 KiB buffer; `c < 32`.
#[inline(always)]
unsafe fn column(src: *const f32, c: usize) -> f32 {
    let mut v = 0.0f32;
    for r in 0..ROWS {
        // SAFETY: the caller's contract.
        v += unsafe { *src.add(r * COLS + c) };
    }
    v
}

/// Two 1 KiB buffers flipped with `cur ^= 1`: tile `k + 1` goes into the other buffer while warp
/// 0 reads tile `k`, one barrier per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_buf_double_xor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x() as usize;
    let g = grid_dim_x() as usize;
    let n = tiles as usize;
    let mine = if b < n { (n - b).div_ceil(g) } else { 0 };
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut cur = 0usize;
    if mine > 0 {
        // SAFETY: buffer 0, tile `b`.
        unsafe { put_quad(s, input, b, tid) };
    }
    barrier();
    let mut k = 0;
    while k < mine {
        if k + 1 < mine {
            // SAFETY: the other buffer; tile `b + (k + 1)·g` exists.
            unsafe { put_quad(s.add((cur ^ 1) * TILE), input, b + (k + 1) * g, tid) };
        }
        if tid < COLS {
            // SAFETY: the current buffer, staged before the last barrier.
            acc += unsafe { column(s.add(cur * TILE), tid) };
        }
        barrier();
        cur ^= 1;
        k += 1;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b * COLS + tid) = acc };
    }
}

/// Two halves of a buffer pair.
struct Halves {
    base: *mut f32,
}

impl Halves {
    #[inline(always)]
    fn half(&self, which: i32) -> *mut f32 {
        self.base.wrapping_add(which as usize * TILE)
    }
}

/// Double buffer with `slot = 1 - slot` and signed counters, behind a `Halves` struct at byte
/// 4096; warp 1 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_buf_double_one_minus(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x() as i32;
    let g = grid_dim_x() as i32;
    let total = tiles as i32;
    let bufs = Halves { base: dynamic_shared_base::<f32>().wrapping_add(1024) };
    let mut slot: i32 = 0;
    let mut acc = 0.0f32;
    if b < total {
        // SAFETY: half 0; tile `b`.
        unsafe { put_quad(bufs.half(0), input, b as usize, tid) };
    }
    barrier();
    let mut t: i32 = b;
    while t < total {
        let next = t + g;
        if next < total {
            // SAFETY: the other half; tile `next` exists.
            unsafe { put_quad(bufs.half(1 - slot), input, next as usize, tid) };
        }
        if tid >= COLS {
            // SAFETY: the current half, staged before the last barrier.
            acc += unsafe { column(bufs.half(slot), tid - COLS) };
        }
        barrier();
        slot = 1 - slot;
        t = next;
    }
    if tid >= COLS {
        // SAFETY: `tid - 32 < 32`.
        unsafe { *out.add(b as usize * COLS + tid - COLS) = acc };
    }
}

/// Stage row-major into `a`, transpose into `bt` with rows padded to 9 floats, then thread `c`
/// sums the eight contiguous floats of transposed row `c`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_buf_transpose_padded(input: *const f32, tiles: u32, out: *mut f32) {
    const PITCH: usize = ROWS + 1;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let a = dynamic_shared_base::<f32>();
    let bt = a.wrapping_add(TILE);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: quad `tid` of `a`; tile `t` exists.
        unsafe { put_quad(a, input, t as usize, tid) };
        barrier();
        for k in 0..4 {
            let i = tid + BLOCK * k;
            let (r, c) = (i / COLS, i % COLS);
            // SAFETY: `a[i]`, `i < 256`; `bt[c·9 + r] < 288` floats after `a`.
            unsafe { *bt.add(c * PITCH + r) = *a.add(i) };
        }
        barrier();
        if tid < COLS {
            // SAFETY: transposed row `tid`, written before the barrier.
            let row = unsafe { core::slice::from_raw_parts(bt.add(tid * PITCH) as *const f32, ROWS) };
            acc += row.iter().sum::<f32>();
        }
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Three buffers indexed `% 3`, staging two tiles ahead of the one warp 0 reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_buf_triple_mod(input: *const f32, tiles: u32, out: *mut f32) {
    const BUFS: usize = 3;
    const AHEAD: usize = 2;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x() as usize;
    let g = grid_dim_x() as usize;
    let n = tiles as usize;
    let mine = if b < n { (n - b).div_ceil(g) } else { 0 };
    let s = dynamic_shared_base::<f32>();
    let buffer = |k: usize| s.wrapping_add((k % BUFS) * TILE);
    for k in 0..AHEAD.min(mine) {
        // SAFETY: buffer `k`; tile `b + k·g` exists.
        unsafe { put_quad(buffer(k), input, b + k * g, tid) };
    }
    barrier();
    let mut acc = 0.0f32;
    let mut k = 0;
    while k < mine {
        if k + AHEAD < mine {
            // SAFETY: the buffer read two tiles ago, released by the last barrier.
            unsafe { put_quad(buffer(k + AHEAD), input, b + (k + AHEAD) * g, tid) };
        }
        if tid < COLS {
            // SAFETY: buffer `k % 3`, staged at least one barrier ago.
            acc += unsafe { column(buffer(k), tid) };
        }
        barrier();
        k += 1;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b * COLS + tid) = acc };
    }
}

/// Double buffer where the buffer for the next tile is computed as `cur & 1`. BROKEN: that is
/// `cur` itself (the author meant `cur ^ 1`): the next tile is staged into the buffer warp 0 is
/// reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_buf_double_and_slip(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x() as usize;
    let g = grid_dim_x() as usize;
    let n = tiles as usize;
    let mine = if b < n { (n - b).div_ceil(g) } else { 0 };
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut cur = 0usize;
    if mine > 0 {
        // SAFETY: buffer 0.
        unsafe { put_quad(s, input, b, tid) };
    }
    barrier();
    for k in 0..mine {
        let nxt = cur & 1;
        if k + 1 < mine {
            // SAFETY: a buffer of the pair.
            unsafe { put_quad(s.add(nxt * TILE), input, b + (k + 1) * g, tid) };
        }
        if tid < COLS {
            // SAFETY: a buffer of the pair.
            acc += unsafe { column(s.add(cur * TILE), tid) };
        }
        barrier();
        cur ^= 1;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b * COLS + tid) = acc };
    }
}

/// Double buffer without any barrier in the loop ("the buffers alternate, so they never
/// collide"). BROKEN: warp 0 reads the quads warp 1 staged with nothing ordering them, and
/// warp 1 may run a tile ahead into the buffer warp 0 is reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_buf_double_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x() as usize;
    let g = grid_dim_x() as usize;
    let n = tiles as usize;
    let mine = if b < n { (n - b).div_ceil(g) } else { 0 };
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    if mine > 0 {
        // SAFETY: buffer 0.
        unsafe { put_quad(s, input, b, tid) };
    }
    barrier();
    let mut k = 0;
    while k < mine {
        let cur = k % 2;
        if k + 1 < mine {
            // SAFETY: the other buffer.
            unsafe { put_quad(s.add((1 - cur) * TILE), input, b + (k + 1) * g, tid) };
        }
        if tid < COLS {
            // SAFETY: a buffer of the pair.
            acc += unsafe { column(s.add(cur * TILE), tid) };
        }
        k += 1;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b * COLS + tid) = acc };
    }
}

/// Transpose into an unpadded buffer placed "after" the staged tile. BROKEN: the offset is
/// taken in halves of a tile (`TILE / 2` floats), so the transposed buffer overlaps the upper
/// half of the tile that the other threads are still reading during the transpose.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_buf_transpose_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let a = dynamic_shared_base::<f32>();
    let bt = a.wrapping_add(TILE / 2);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        // SAFETY: quad `tid` of `a`.
        unsafe { put_quad(a, input, t as usize, tid) };
        barrier();
        for k in 0..4 {
            let i = tid + BLOCK * k;
            // SAFETY: inside the window (floats 128..384).
            unsafe { *bt.add((i % COLS) * ROWS + i / COLS) = *a.add(i) };
        }
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                // SAFETY: transposed row `tid`.
                acc += unsafe { *bt.add(tid * ROWS + r) };
            }
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Three buffers indexed `% 3`, staging three tiles ahead. BROKEN: `(k + 3) % 3 == k % 3`, so
/// the tile three ahead is staged into the buffer warp 0 is reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_buf_triple_ahead_three(input: *const f32, tiles: u32, out: *mut f32) {
    const BUFS: usize = 3;
    const AHEAD: usize = 3;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x() as usize;
    let g = grid_dim_x() as usize;
    let n = tiles as usize;
    let mine = if b < n { (n - b).div_ceil(g) } else { 0 };
    let s = dynamic_shared_base::<f32>();
    let buffer = |k: usize| s.wrapping_add((k % BUFS) * TILE);
    for k in 0..AHEAD.min(mine) {
        // SAFETY: buffer `k`.
        unsafe { put_quad(buffer(k), input, b + k * g, tid) };
    }
    barrier();
    let mut acc = 0.0f32;
    let mut k = 0;
    while k < mine {
        if k + AHEAD < mine {
            // SAFETY: a buffer of the three.
            unsafe { put_quad(buffer(k + AHEAD), input, b + (k + AHEAD) * g, tid) };
        }
        if tid < COLS {
            // SAFETY: a buffer of the three.
            acc += unsafe { column(buffer(k), tid) };
        }
        barrier();
        k += 1;
    }
    if tid < COLS {
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b * COLS + tid) = acc };
    }
}
