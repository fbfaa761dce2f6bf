//! Decode-shaped products on tensor cores: `C = A·Bᵀ` where A has few rows (the activations of
//! a few tokens) and B is a large weight, so the time is reading B once at the memory roofline.
//!
//! The wgmma GEMM's 128-row tiles are mostly zero fill when A has 1 to 16 rows, and its
//! one-block-per-multiprocessor ring keeps too few weight bytes in flight to reach the copy
//! rate. Here every lane loads 16-byte chunks of B's rows straight from global memory into
//! registers and feeds them to `mma.sync` (see [`crate::device::mma`]) with B's rows as the
//! multiply's M side and A's rows as its N side, so a 16-row tile of A costs one multiply per
//! 16×16 piece of B; the warps of a block split K and add their partial tiles through shared
//! memory at the end.

// Index loops over the fragment arrays instead of `iter().enumerate()`: the verifier does not
// follow `Enumerate::next` (its body is outside the scope), and a kernel that hands it a value
// it cannot follow is unverified (plugin/MODEL.md).
#![allow(clippy::needless_range_loop)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::math::f32_to_bf16_bits;
use crate::device::mma::{Accumulators16x8, FragmentA, FragmentB, mma_m16n8k16_bf16};
use crate::device::{
    WARP_SIZE, barrier, block_idx_x, block_idx_y, dynamic_shared_base, lane_id, thread_idx_x, warp_id,
};

/// Warps of a block; they split K. Sixteen warps on one 16-row tile of B, four chunks in
/// flight each, was the fastest of ten shapes tried on an H100 (8 or 16 warps, one or two
/// tiles, 2 to 8 chunks): 0.91-0.97 of cuBLAS on decode batches against 14336 × 4096,
/// where eight warps on two tiles gave 0.88-0.95 (2026-12-05).
const WARPS: u32 = 16;
/// Threads of a block.
const BLOCK_THREADS: u32 = WARPS * WARP_SIZE;
/// Rows of A (rows of C) a block multiplies: two 8-wide N halves of the multiply.
const A_ROWS: u32 = 16;
/// K values a warp's lanes load per chunk: four lanes per row, 8 values (16 bytes) each.
const CHUNK_K: u32 = 32;
/// Chunks a warp loads before it multiplies, so that many loads are in flight per lane.
const UNROLL: usize = 4;
/// K values a block covers per step: every warp's `UNROLL` chunks, side by side.
const STEP_K: u32 = WARPS * UNROLL as u32 * CHUNK_K;

/// Eight bf16 values (four `u32` pairs), aligned so that one 16-byte load fetches them.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct EightBf16([u32; 4]);

/// Floats of partial sums one warp leaves in shared memory: a 16×8 tile per (B tile, A half).
const fn partials_per_warp(b_tiles: usize) -> usize {
    b_tiles * 2 * 32 * 4
}

/// Dynamic shared memory a launch of `gemm_bf16_decode_bf16` provides.
const DECODE_SHARED_BYTES: u32 = WARPS * partials_per_warp(DECODE_B_TILES) as u32 * 4;
/// 16-row tiles of B per block.
const DECODE_B_TILES: usize = 1;

/// `C = A·Bᵀ` with C stored as bf16, for A with few rows: A is `m × k` bf16, B is `n × k` bf16
/// (K-major, a linear layer's weight), both row-major at a pitch of `pitch` values; C is `m × n`
/// bf16, row-major, the f32 sum rounded to nearest even. What `gemm_bf16_wgmma_bf16` computes,
/// read at the weight's memory rate for `m ≤ 16`: block `(x, y)` multiplies rows `16y ..
/// 16y + 16` of A by rows `16x .. 16x + 16` of B over all of K, so each row of B is read
/// `⌈m / 16⌉` times.
///
/// Inside a block: warp `w` takes the 32-value chunks `STEP_K · s + CHUNK_K · (UNROLL · w + j)`
/// of K; lane `(g, t) = (l / 4, l % 4)` loads values `8t .. 8t + 8` of each chunk of B's rows
/// `g`, `g + 8` of every 16-row tile and of A's rows `g`, `g + 8`, and one `mma.sync` per half
/// chunk adds them into the warp's tiles (the lane's eight values stand for the fragment's
/// `k` slots `2t, 2t+1, 2t+8, 2t+9` of two multiplies, in both operands alike). Rows past `m`
/// and `n` are read at the last row instead (never stored); values past `k` in the last chunk
/// are zero in both operands and not read. Then the warps' tiles are added in shared memory
/// and each thread stores its share of C.
///
/// Special values as `gemm_bf16_wgmma_bf16` (PyTorch's `torch.matmul` on bf16 operands): IEEE
/// products and sums in f32, NaN and infinities propagate, subnormals kept, one rounding to
/// bf16 (NaN becomes 0x7fff, overflow ±inf). `k = 0` gives +0.0; `m = 0` or `n = 0` stores
/// nothing.
///
/// Launch: grid `(⌈n / 16⌉, ⌈m / 16⌉)` (at least one block each way), `blockDim.x = 512`;
/// dynamic shared memory `DECODE_SHARED_BYTES` = 16 384 bytes.
///
/// # Safety
/// `a` points to `m` rows and `b` to `n` rows of `pitch` bf16 values, both 16-byte aligned;
/// `pitch` is a multiple of 8 and at least `k`; `c` points to `m * n` bf16 values.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_bf16_decode_bf16(
    a: *const u16,
    b: *const u16,
    c: *mut u16,
    m: u32,
    n: u32,
    k: u32,
    pitch: u32,
) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(DECODE_SHARED_BYTES);
    // SAFETY: the caller's contract.
    unsafe { decode_block::<DECODE_B_TILES>(a, b, c, m, n, k, pitch) };
}

/// A and B with their row pitch in values.
#[derive(Clone, Copy)]
struct Operands {
    a: *const u16,
    b: *const u16,
    pitch: usize,
}

/// The rows of the operands a lane reads (indices, so that every load's address is visibly
/// one of the kernel's global parameters plus an offset).
#[derive(Clone, Copy)]
struct Rows {
    /// Lane's rows of B: `g` and `g + 8` of each 16-row tile, clamped to `n - 1`.
    b: [[u32; 2]; 4],
    /// Lane's rows of A: `g` and `g + 8` of the block's 16, clamped to `m - 1`.
    a: [u32; 2],
}

/// One block's product, for `B_TILES` 16-row tiles of B (at most 4).
#[inline(always)]
unsafe fn decode_block<const B_TILES: usize>(
    a: *const u16,
    b: *const u16,
    c: *mut u16,
    m: u32,
    n: u32,
    k: u32,
    pitch: u32,
) {
    if m == 0 || n == 0 {
        return;
    }
    let (lane, warp) = (lane_id(), warp_id());
    let (g, t) = (lane / 4, lane % 4);
    let b_first = block_idx_x() * 16 * B_TILES as u32;
    let a_first = block_idx_y() * A_ROWS;
    let both_halves = m - a_first.min(m) > 8;
    let pitch = pitch as usize;
    let mut rows = Rows { b: [[0; 2]; 4], a: [0; 2] };
    for tile in 0..B_TILES {
        let first = b_first + 16 * tile as u32 + g;
        rows.b[tile] = [first.min(n - 1), (first + 8).min(n - 1)];
    }
    rows.a = [(a_first + g).min(m - 1), (a_first + g + 8).min(m - 1)];
    let operands = Operands { a, b, pitch };

    let mut tiles = [[[0.0f32; 4]; 2]; B_TILES];
    let lane_k = CHUNK_K * UNROLL as u32 * warp + 8 * t;
    let full_steps = k / STEP_K;
    for step in 0..full_steps {
        // SAFETY: every chunk of a full step lies below `k`, inside each row.
        unsafe {
            multiply_step::<B_TILES, false>(
                &mut tiles,
                operands,
                &rows,
                step * STEP_K + lane_k,
                k,
                both_halves,
            )
        };
    }
    if full_steps * STEP_K < k {
        // SAFETY: chunks at or past `k` are not read.
        unsafe {
            multiply_step::<B_TILES, true>(
                &mut tiles,
                operands,
                &rows,
                full_steps * STEP_K + lane_k,
                k,
                both_halves,
            )
        };
    }

    let partials = dynamic_shared_base::<f32>();
    let per_warp = partials_per_warp(B_TILES);
    for tile in 0..B_TILES {
        for half in 0..2 {
            let slot = warp as usize * per_warp + ((tile * 2 + half) * 32 + lane as usize) * 4;
            for i in 0..4 {
                // SAFETY: `slot + i < WARPS * per_warp`, the launch's shared memory.
                unsafe { *partials.add(slot + i) = tiles[tile][half][i] };
            }
        }
    }
    barrier();
    let mut output = thread_idx_x() as usize;
    while output < per_warp {
        let mut sum = 0.0f32;
        for w in 0..WARPS as usize {
            // SAFETY: inside the partial sums written before the barrier.
            sum += unsafe { *partials.add(w * per_warp + output) };
        }
        let (i, slot_lane, tile_half) = (output % 4, (output / 4) % 32, output / 128);
        let b_row = b_first + 16 * (tile_half / 2) as u32 + (slot_lane / 4) as u32 + 8 * (i / 2) as u32;
        let a_row = a_first + 8 * (tile_half % 2) as u32 + 2 * (slot_lane % 4) as u32 + (i % 2) as u32;
        if a_row < m && b_row < n {
            // SAFETY: `a_row < m`, `b_row < n`.
            unsafe { *c.add(a_row as usize * n as usize + b_row as usize) = f32_to_bf16_bits(sum) };
        }
        output += BLOCK_THREADS as usize;
    }
}

/// One warp's `UNROLL` chunks starting at `k0` (this lane's first value): loads them all, then
/// multiplies. `MASKED`: the last step, where chunks may reach past `k`.
///
/// # Safety
/// Without `MASKED`, every chunk lies below `k`. The rows are `Rows`' (16-byte aligned).
#[inline(always)]
unsafe fn multiply_step<const B_TILES: usize, const MASKED: bool>(
    tiles: &mut [[Accumulators16x8; 2]; B_TILES],
    operands: Operands,
    rows: &Rows,
    k0: u32,
    k: u32,
    both_halves: bool,
) {
    let mut b_chunks = [[[0u32; 4]; 2]; B_TILES];
    let mut a_chunks = [[0u32; 4]; 2];
    let mut loaded_b = [b_chunks; UNROLL];
    let mut loaded_a = [a_chunks; UNROLL];
    for j in 0..UNROLL {
        let at = k0 + CHUNK_K * j as u32;
        for tile in 0..B_TILES {
            for half in 0..2 {
                // SAFETY: the caller's contract.
                b_chunks[tile][half] =
                    unsafe { chunk::<MASKED>(operands.b, operands.pitch, rows.b[tile][half], at, k) };
            }
        }
        // SAFETY: as above.
        a_chunks[0] = unsafe { chunk::<MASKED>(operands.a, operands.pitch, rows.a[0], at, k) };
        if both_halves {
            // SAFETY: as above.
            a_chunks[1] = unsafe { chunk::<MASKED>(operands.a, operands.pitch, rows.a[1], at, k) };
        }
        loaded_b[j] = b_chunks;
        loaded_a[j] = a_chunks;
    }
    for j in 0..UNROLL {
        for tile in 0..B_TILES {
            let (low, high) = (loaded_b[j][tile][0], loaded_b[j][tile][1]);
            for part in 0..2 {
                let fragment: FragmentA =
                    [low[2 * part], high[2 * part], low[2 * part + 1], high[2 * part + 1]];
                let x0: FragmentB = [loaded_a[j][0][2 * part], loaded_a[j][0][2 * part + 1]];
                mma_m16n8k16_bf16(&mut tiles[tile][0], fragment, x0);
                if both_halves {
                    let x1: FragmentB = [loaded_a[j][1][2 * part], loaded_a[j][1][2 * part + 1]];
                    mma_m16n8k16_bf16(&mut tiles[tile][1], fragment, x1);
                }
            }
        }
    }
}

/// Values `at .. at + 8` of row `row` of `matrix` (rows `pitch` values apart) as four bf16 pairs. `MASKED`: values at or past `k` are zero
/// and a chunk starting at or past `k` is not read.
///
/// # Safety
/// `row` is 16-byte aligned; `at` a multiple of 8; without `MASKED`, `at + 8 <= k`; with it,
/// the row holds a multiple of 8 values at least `k` (its pitch).
#[inline(always)]
unsafe fn chunk<const MASKED: bool>(matrix: *const u16, pitch: usize, row: u32, at: u32, k: u32) -> [u32; 4] {
    let load = || {
        // SAFETY: the caller's contract: 16 aligned bytes inside the row.
        unsafe { (*(matrix.add(row as usize * pitch + at as usize) as *const EightBf16)).0 }
    };
    if !MASKED {
        return load();
    }
    if at >= k {
        return [0; 4];
    }
    let mut words = load();
    let valid = k - at;
    for pair in 0..4 {
        let first = 2 * pair as u32;
        words[pair] &= if valid > first + 1 {
            u32::MAX
        } else if valid > first {
            0xffff
        } else {
            0
        };
    }
    words
}
