//! Numerically safe softmax over the rows of a matrix.

use crate::device::math::exp;
use crate::device::reduce::{block_max, block_sum};
use crate::device::strided::strided;
use crate::device::{block_dim_x, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// `out[r][c] = e^(x[r][c] - m) / sum_c e^(x[r][c] - m)` with `m` the row's maximum, so that
/// no exponential overflows; row-major, `rows × cols`, `cols > 0`.
///
/// Two passes over each row. The first finds the maximum and the sum of exponentials together
/// ("online" softmax): each thread keeps its running maximum and a sum relative to it, and
/// rescales the sum when the maximum grows; the block then combines the threads' pairs. The
/// second pass writes the outputs, recomputing the exponentials rather than storing them.
///
/// Launch: one-dimensional; a block per row (grid-stride over rows); `blockDim.x` a multiple
/// of 32, at most 1024; dynamic shared memory 128 bytes. Rows longer than the block are
/// strided over, with batched loads ([`strided`]).
///
/// # Safety
/// `x` and `out` point to `rows * cols` floats of device memory and do not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn softmax_rows(x: *const f32, out: *mut f32, rows: usize, cols: usize) {
    let scratch = dynamic_shared_base::<f32>();
    let (first, step) = (thread_idx_x() as usize, block_dim_x() as usize);
    let mut row = block_idx_x() as usize;
    while row < rows {
        let x_row = x.wrapping_add(row * cols);
        let out_row = out.wrapping_add(row * cols);

        // This thread's maximum and its sum of e^(v - maximum); e^-inf = 0 starts both.
        let mut local_max = f32::NEG_INFINITY;
        let mut local_sum = 0.0f32;
        strided(
            first,
            cols,
            step,
            // SAFETY: `row < rows`, and `strided` passes columns below `cols`.
            |c| unsafe { *x_row.add(c) },
            |_, v| {
                if v > local_max {
                    local_sum = local_sum * exp(local_max - v) + 1.0;
                    local_max = v;
                } else {
                    local_sum += exp(v - local_max);
                }
            },
        );
        let row_max = block_max(local_max, scratch);
        // A thread that saw no element has sum 0 and maximum -inf: it adds 0 · e^-inf = 0.
        let inverse_sum = 1.0 / block_sum(local_sum * exp(local_max - row_max), scratch);

        strided(
            first,
            cols,
            step,
            // SAFETY: as above.
            |c| unsafe { *x_row.add(c) },
            |c, v| unsafe { *out_row.add(c) = exp(v - row_max) * inverse_sum },
        );
        row += grid_dim_x() as usize;
    }
}
