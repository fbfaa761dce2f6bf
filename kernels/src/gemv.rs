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
