//! RMSNorm over the rows of a matrix, as in Llama-style transformer blocks.

use crate::device::math::rsqrt;
use crate::device::reduce::block_sum;
use crate::device::row::RowLayout;
use crate::device::strided::strided;
use crate::device::{block_dim_x, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// `out[r][c] = x[r][c] / sqrt(mean_c(x[r][c]^2) + eps) * weight[c]`, row-major, `rows × cols`.
///
/// One read of each row when it fits in the block's registers (`cols ≤ 16 · blockDim.x`, so
/// 16,384 floats with 1024 threads) and can move in 16-byte groups (`cols` a multiple of 4,
/// `x`, `weight` and `out` 16-byte aligned; see [`RowLayout`]). Other rows take two passes,
/// the second reading the row again (mostly from the L2).
///
/// Special values, as PyTorch's `F.rms_norm` (which sums the squares in `f32` too): a NaN in
/// a row makes the whole row NaN; when the row's sum of squares overflows `f32` (an infinity,
/// or values near `f32::MAX`), `rsqrt` of it is 0, so the row's finite elements give ±0 and its
/// infinities NaN (`inf · 0`); subnormal inputs and outputs are kept, not flushed to zero.
/// Rows of zero columns write nothing.
///
/// Launch: one-dimensional; a block per row (grid-stride over rows, so any grid works);
/// `blockDim.x` a multiple of 32, at most 1024; dynamic shared memory 128 bytes (the block
/// reduction's scratch). Pointers need only `f32` alignment.
///
/// # Safety
/// `x` and `out` point to `rows * cols` floats, `weight` to `cols` floats of device memory;
/// `out` does not overlap the inputs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn rms_norm(
    x: *const f32,
    weight: *const f32,
    out: *mut f32,
    rows: usize,
    cols: usize,
    eps: f32,
) {
    let scratch = dynamic_shared_base::<f32>();
    let (first_row, row_step) = (block_idx_x() as usize, grid_dim_x() as usize);
    // Each path has its loop, so that their hoisted offsets are not live together.
    if let Some(layout) = RowLayout::new(cols, &[x as usize, weight as usize, out as usize]) {
        let mut row = first_row;
        while row < rows {
            // SAFETY: `row < rows`: the row holds `cols` floats; the layout checked alignment.
            let mut values = unsafe { layout.load(x.wrapping_add(row * cols), 0.0) };
            let mut sum_of_squares = 0.0f32;
            layout.for_each(&values, |v| sum_of_squares += v * v);
            let inverse_rms = rsqrt(block_sum(sum_of_squares, scratch) / cols as f32 + eps);
            RowLayout::map(&mut values, |v| v * inverse_rms);
            // SAFETY: `out` holds the row and `weight` `cols` floats, aligned as `x`.
            unsafe { layout.store(out.wrapping_add(row * cols), &values, Some(weight)) };
            row += row_step;
        }
        return;
    }
    let (first, step) = (thread_idx_x() as usize, block_dim_x() as usize);
    let mut row = first_row;
    while row < rows {
        let x_row = x.wrapping_add(row * cols);
        let out_row = out.wrapping_add(row * cols);
        let mut sum_of_squares = 0.0f32;
        // SAFETY: `row < rows`, and `strided` passes columns below `cols`.
        strided(first, cols, step, |c| unsafe { *x_row.add(c) }, |_, v| sum_of_squares += v * v);
        let inverse_rms = rsqrt(block_sum(sum_of_squares, scratch) / cols as f32 + eps);
        strided(
            first,
            cols,
            step,
            // SAFETY: as above; `weight` holds `cols` floats.
            |c| unsafe { (*x_row.add(c), *weight.add(c)) },
            |c, (v, w)| unsafe { *out_row.add(c) = v * inverse_rms * w },
        );
        row += row_step;
    }
}
