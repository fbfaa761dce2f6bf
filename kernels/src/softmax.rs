//! Numerically safe softmax over the rows of a matrix.

use crate::device::math::exp;
use crate::device::reduce::{block_max, block_sum};
use crate::device::{block_dim_x, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// `out[r][c] = e^(x[r][c] - m) / sum_c e^(x[r][c] - m)` with `m` the row's maximum, so that
/// no exponential overflows; row-major, `rows × cols`, `cols > 0`.
///
/// Launch: one-dimensional; a block per row (grid-stride over rows); `blockDim.x` a multiple
/// of 32, at most 1024; dynamic shared memory 128 bytes. Rows longer than the block are
/// strided over; the exponentials are recomputed rather than stored.
///
/// # Safety
/// `x` and `out` point to `rows * cols` floats of device memory and do not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn softmax_rows(x: *const f32, out: *mut f32, rows: usize, cols: usize) {
    let scratch = dynamic_shared_base::<f32>();
    let step = block_dim_x() as usize;
    let mut row = block_idx_x() as usize;
    while row < rows {
        let x_row = x.wrapping_add(row * cols);
        let out_row = out.wrapping_add(row * cols);

        let mut local_max = f32::NEG_INFINITY;
        let mut c = thread_idx_x() as usize;
        while c < cols {
            // SAFETY: `row < rows`, `c < cols`.
            local_max = local_max.max(unsafe { *x_row.add(c) });
            c += step;
        }
        let row_max = block_max(local_max, scratch);

        let mut local_sum = 0.0f32;
        let mut c = thread_idx_x() as usize;
        while c < cols {
            // SAFETY: as above.
            local_sum += exp(unsafe { *x_row.add(c) } - row_max);
            c += step;
        }
        let inverse_sum = 1.0 / block_sum(local_sum, scratch);

        let mut c = thread_idx_x() as usize;
        while c < cols {
            // SAFETY: as above.
            unsafe { *out_row.add(c) = exp(*x_row.add(c) - row_max) * inverse_sum };
            c += step;
        }
        row += grid_dim_x() as usize;
    }
}
