//! Decode-style matrix-vector product over half-precision weights.

use crate::device::math::{f16_bits_to_f32, fma};
use crate::device::reduce::block_sum;
use crate::device::row::FourFloats;
use crate::device::strided::strided;
use crate::device::{block_dim_x, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// Eight IEEE binary16 values, aligned so that one 16-byte load fetches them.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct EightHalves([u16; 8]);

/// `y[r] = sum_c f16(weights[r][c]) * x[c]` for `r < rows`: the projection a transformer runs
/// once per generated token. `weights` is row-major IEEE binary16 (`rows × cols`, as raw
/// bits); products are accumulated in `f32` with fused multiply-adds.
///
/// A block per row: each thread accumulates its share of the row, then the block adds the
/// threads' sums ([`block_sum`]). A row's loads are spread over the whole block, so a row is
/// done after few round trips to memory, and the last, partly filled wave of rows (the GPU
/// runs as many rows at once as blocks fit) is short. When `cols` is a multiple of 8 and
/// `weights` and `x` are 16-byte aligned, each thread loads eight weights and eight `x` values
/// at a time (three 16-byte loads), several chunks in flight ([`strided`]); otherwise one
/// weight at a time, so any half-aligned `weights` and `f32`-aligned `x` work.
///
/// Special values, as PyTorch's `torch.mv(weights.float(), x)`: an infinite or NaN weight
/// widens exactly (`cvt.f32.f16`), so `y[r]` is NaN when a product is NaN (a NaN weight or
/// `x`, `inf · 0`) or the products hold both infinities, and ±inf when they hold one; subnormal
/// halves and `x` values count at their value. `rows = 0` writes nothing; `cols = 0` gives 0.
///
/// Launch: one-dimensional; a block per row (grid-stride over rows, so any grid works);
/// `blockDim.x` a multiple of 32, at most 1024; dynamic shared memory 128 bytes (the block
/// reduction's scratch).
///
/// # Safety
/// `weights` points to `rows * cols` halves, `x` to `cols` floats and `y` to `rows` floats of
/// device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
) {
    let scratch = dynamic_shared_base::<f32>();
    let (thread, threads) = (thread_idx_x() as usize, block_dim_x() as usize);
    let vectorised =
        cols.is_multiple_of(8) && (weights as usize).is_multiple_of(16) && (x as usize).is_multiple_of(16);

    let mut row = block_idx_x() as usize;
    while row < rows {
        let w_row = weights.wrapping_add(row * cols);
        let mut acc = 0.0f32;
        if vectorised {
            let chunks = w_row as *const EightHalves;
            let x_quads = x as *const FourFloats;
            strided(
                thread,
                cols / 8,
                threads,
                // SAFETY: `chunk * 8 + 7 < cols`; the row start is 16-byte aligned because the
                // matrix is and `cols` is a multiple of 8; `x` is 16-byte aligned.
                |chunk| unsafe {
                    let (low, high) = (*x_quads.add(2 * chunk), *x_quads.add(2 * chunk + 1));
                    ((*chunks.add(chunk)).0, low.0, high.0)
                },
                |_, (halves, low, high): ([u16; 8], [f32; 4], [f32; 4])| {
                    for k in 0..4 {
                        acc = fma(f16_bits_to_f32(halves[k]), low[k], acc);
                    }
                    for k in 0..4 {
                        acc = fma(f16_bits_to_f32(halves[k + 4]), high[k], acc);
                    }
                },
            );
        } else {
            strided(
                thread,
                cols,
                threads,
                // SAFETY: `row < rows`, and `strided` passes columns below `cols`.
                |c| unsafe { (*w_row.add(c), *x.add(c)) },
                |_, (bits, x_c)| acc = fma(f16_bits_to_f32(bits), x_c, acc),
            );
        }
        let total = block_sum(acc, scratch);
        if thread == 0 {
            // SAFETY: `row < rows`.
            unsafe { *y.add(row) = total };
        }
        row += grid_dim_x() as usize;
    }
}

/// Activation rows one pass over the weights serves; a larger batch takes several passes.
const BATCH: usize = 16;

/// Runs `$body` once for each accumulator slot `$slot` in `0..BATCH`, written out: a loop over
/// the slots was left rolled by LLVM, which put the accumulators in local memory, while
/// constant indices keep them in registers.
macro_rules! each_slot {
    ($slot:ident => $body:block) => {{
        each_slot!(@ $slot $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    }};
    (@ $slot:ident $body:block; $($index:literal)*) => {
        $({
            const $slot: usize = $index;
            $body
        })*
    };
}

/// `y[b][r] = sum_c f16(weights[r][c]) * x[b][c]` for `b < batch`, `r < rows`: the same
/// projection for `batch` activation rows at once (speculative decoding, a few sequences
/// decoded together). `x` is row-major `batch × cols` floats, `y` row-major `batch × rows`.
/// Each weight is read once for up to 16 activation rows.
///
/// Not yet fast. Measured on the H200 with [`strided`]'s batched loads (four chunks in flight):
/// 255 registers and 380 bytes of spills, 14336 × 4096 in 0.165 ms for one activation row and
/// 0.887 ms for sixteen, against 0.029 ms for [`gemv_f16`] and 0.030 ms for PyTorch's `matmul`
/// at every batch up to 16 (`kernels/gpu-runner/results/h200-timing.txt`), correct on every
/// case, special values included. This loop takes one chunk at a time ([`one_at_a_time`]:
/// the same order, so the same results; no local memory left in its PTX) and is not yet
/// measured; fewer accumulators per pass is the next thing to try.
///
/// A block per weight row, as [`gemv_f16`]: each thread loads its eight-weight chunks (or single
/// weights) once and multiplies them into one accumulator per activation row, in the same
/// order [`gemv_f16`] uses; then the block adds the threads' sums ([`block_sum`]) for each
/// activation row. Row `b` of `y` is bit-for-bit what [`gemv_f16`] gives for row `b` of `x`
/// launched with the same block size. Batches above 16 run in passes of 16 (the weights are
/// then read once per pass).
///
/// Special values: as [`gemv_f16`], for each activation row (PyTorch's
/// `x @ weights.float().T`): NaN where a product is NaN or the products hold both infinities,
/// ±inf where they hold one. `batch = 0` or `rows = 0` writes nothing; `cols = 0` gives 0.
///
/// Launch: one-dimensional; a block per row (grid-stride over rows, so any grid works);
/// `blockDim.x` a multiple of 32, at most 256 (its 255 registers per thread); dynamic shared
/// memory 128 bytes. The vectorised
/// path needs `cols` a multiple of 8 and `weights` and `x` 16-byte aligned, as [`gemv_f16`].
///
/// # Safety
/// `weights` points to `rows * cols` halves, `x` to `batch * cols` floats and `y` to
/// `batch * rows` floats of device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16_batched(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    let scratch = dynamic_shared_base::<f32>();
    let (thread, threads) = (thread_idx_x() as usize, block_dim_x() as usize);
    let vectorised =
        cols.is_multiple_of(8) && (weights as usize).is_multiple_of(16) && (x as usize).is_multiple_of(16);

    let mut row = block_idx_x() as usize;
    while row < rows {
        let w_row = weights.wrapping_add(row * cols);
        let mut first = 0;
        while first < batch {
            let count = (batch - first).min(BATCH);
            let x_pass = x.wrapping_add(first * cols);
            // One accumulator per activation row; indices are constants after unrolling, so
            // they stay in registers.
            let mut acc = [0.0f32; BATCH];
            if vectorised {
                let chunks = w_row as *const EightHalves;
                one_at_a_time(
                    thread,
                    cols / 8,
                    threads,
                    // SAFETY: `chunk * 8 + 7 < cols`; the row start is 16-byte aligned because
                    // the matrix is and `cols` is a multiple of 8.
                    |chunk| unsafe { (*chunks.add(chunk)).0 },
                    |chunk, halves: [u16; 8]| {
                        // Widened once per chunk, used for every activation row (an array
                        // `map` here went through local memory).
                        let mut w = [0.0f32; 8];
                        for k in 0..8 {
                            w[k] = f16_bits_to_f32(halves[k]);
                        }
                        each_slot!(B => {
                            if B < count {
                                let quads = x_pass.wrapping_add(B * cols) as *const FourFloats;
                                // SAFETY: `first + B < batch` and `chunk * 8 + 7 < cols`; each
                                // row of `x` starts 16-byte aligned (`x` is, `cols` is a
                                // multiple of 8).
                                let (low, high) = unsafe { (*quads.add(2 * chunk), *quads.add(2 * chunk + 1)) };
                                #[allow(clippy::needless_range_loop)]
                                for k in 0..4 {
                                    acc[B] = fma(w[k], low.0[k], acc[B]);
                                }
                                for k in 0..4 {
                                    acc[B] = fma(w[k + 4], high.0[k], acc[B]);
                                }
                            }
                        });
                    },
                );
            } else {
                one_at_a_time(
                    thread,
                    cols,
                    threads,
                    // SAFETY: `row < rows`, and `strided` passes columns below `cols`.
                    |c| unsafe { *w_row.add(c) },
                    |c, bits| {
                        let w = f16_bits_to_f32(bits);
                        each_slot!(B => {
                            if B < count {
                                // SAFETY: `first + B < batch` and `c < cols`.
                                acc[B] = fma(w, unsafe { *x_pass.add(B * cols + c) }, acc[B]);
                            }
                        });
                    },
                );
            }
            each_slot!(B => {
                // `count` is the same on every thread: every thread reaches each barrier.
                if B < count {
                    let total = block_sum(acc[B], scratch);
                    if thread == 0 {
                        // SAFETY: `first + B < batch` and `row < rows`.
                        unsafe { *y.add((first + B) * rows + row) = total };
                    }
                }
            });
            first += BATCH;
        }
        row += grid_dim_x() as usize;
    }
}

/// Visits `first, first + step, …` below `end`, `consume(i, load(i))` one index at a time:
/// [`strided`]'s order without its batched loads. With sixteen accumulators per chunk, its four
/// chunks in flight were unrolled at opt-level 3 and not at 2 (the PTX of this kernel then
/// depended on the opt-level), and took the kernel to 255 registers with spills.
#[inline(always)]
fn one_at_a_time<T>(
    first: usize,
    end: usize,
    step: usize,
    load: impl Fn(usize) -> T,
    mut consume: impl FnMut(usize, T),
) {
    let mut i = first;
    while i < end {
        consume(i, load(i));
        i += step;
    }
}
