//! Plain shared memory moved in quads: each thread stages one `[f32; 4]` of the tile per tile
//! (64 quads are the 256 floats), in tile order or transposed.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

type Quad = [f32; 4];

const TILE: usize = 256;
const COLS: usize = 32;

#[inline(always)]
unsafe fn load_quad(input: *const f32, tile: u32, q: usize) -> Quad {
    unsafe { *(input.add(tile as usize * TILE) as *const Quad).add(q) }
}

/// Stores the two warps' partial sums at float `at` and writes `partials[c] + partials[c + 32]`.
#[inline(always)]
unsafe fn combine(smem: *mut f32, at: usize, acc: f32, tid: usize, out: *mut f32) {
    let partials = unsafe { smem.add(at) };
    unsafe { *partials.add(tid) = acc };
    barrier();
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *partials.add(tid) + *partials.add(tid + COLS) };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_quad_stage_vectors(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let quads = smem as *mut Quad;
    let (col, half) = (tid % COLS, tid / COLS);

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        unsafe { *quads.add(tid) = load_quad(input, tile, tid) };
        barrier();
        for row in 4 * half..4 * half + 4 {
            acc += unsafe { *smem.add(row * COLS + col) };
        }
        barrier();
        tile += grid_dim_x();
    }
    unsafe { combine(smem, TILE, acc, tid, out) };
}

/// Thread `t`'s quad is row `t / 8`, columns `4(t % 8) .. + 4`; it is stored transposed
/// (column `c` at floats `8c .. 8c + 8`), and warp 0's thread `c` reads its column back as two
/// quads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_quad_column_major(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let (row, col0) = (tid / 8, 4 * (tid % 8));

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        let quad = unsafe { load_quad(input, tile, tid) };
        for (k, v) in quad.into_iter().enumerate() {
            unsafe { *smem.add((col0 + k) * 8 + row) = v };
        }
        barrier();
        if tid < COLS {
            let column = unsafe { smem.add(tid * 8) } as *const Quad;
            let (a, b) = unsafe { (*column, *column.add(1)) };
            acc += a.iter().chain(b.iter()).sum::<f32>();
        }
        barrier();
        tile += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// BROKEN: double buffer in the window's last 2 KiB (float 1536 on), addressed through a
/// quad pointer stepped by `tid * 4`, a float count: quad slots land 64 bytes apart, and
/// warp 1's (every thread from 32 on, or from 16 on in the second buffer) fall past byte 8192.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_quad_units_as_floats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let (col, half) = (tid % COLS, tid / COLS);

    let mut acc = 0.0f32;
    let mut k = 0usize;
    let mut tile = block_idx_x();
    while tile < tiles {
        let buffer = unsafe { smem.add(1536 + (k & 1) * TILE) };
        unsafe { *(buffer as *mut Quad).add(tid * 4) = load_quad(input, tile, tid) };
        barrier();
        for row in 4 * half..4 * half + 4 {
            acc += unsafe { *buffer.add(row * COLS + col) };
        }
        k += 1;
        tile += grid_dim_x();
    }
    barrier();
    unsafe { combine(smem, 0, acc, tid, out) };
}

/// BROKEN: the staging index was kept from a two-float version: thread `t` stores its quad at
/// float `2t`, so neighbouring threads' quads overlap by two floats (and the upper half of
/// the tile is never staged).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_quad_overlapping_slots(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let (col, half) = (tid % COLS, tid / COLS);

    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        unsafe { *(smem.add(2 * tid) as *mut Quad) = load_quad(input, tile, tid) };
        barrier();
        for row in 4 * half..4 * half + 4 {
            acc += unsafe { *smem.add(row * COLS + col) };
        }
        barrier();
        tile += grid_dim_x();
    }
    unsafe { combine(smem, TILE, acc, tid, out) };
}
