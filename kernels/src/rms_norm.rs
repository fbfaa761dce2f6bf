//! RMSNorm over the rows of a matrix, as in Llama-style transformer blocks.

use crate::device::math::rsqrt;
use crate::device::reduce::block_sum;
use crate::device::strided::strided;
use crate::device::{block_dim_x, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// `out[r][c] = x[r][c] / sqrt(mean_c(x[r][c]^2) + eps) * weight[c]`, row-major, `rows × cols`.
///
/// Launch: one-dimensional; a block per row (grid-stride over rows, so any grid works);
/// `blockDim.x` a multiple of 32, at most 1024; dynamic shared memory 128 bytes (the block
/// reduction's scratch). Rows longer than the block are strided over, with batched loads
/// ([`strided`]); the second pass reads the row again (mostly from cache).
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
    let mut row = block_idx_x() as usize;
    while row < rows {
        let x_row = x.wrapping_add(row * cols);
        let out_row = out.wrapping_add(row * cols);

        let (first, step) = (thread_idx_x() as usize, block_dim_x() as usize);
        let mut sum_of_squares = 0.0f32;
        // SAFETY: `row < rows`, and `strided` passes columns below `cols`.
        strided(first, cols, step, |c| unsafe { *x_row.add(c) }, |_, v| sum_of_squares += v * v);
        let total = block_sum(sum_of_squares, scratch);
        let inverse_rms = rsqrt(total / cols as f32 + eps);

        strided(
            first,
            cols,
            step,
            // SAFETY: as above; `weight` holds `cols` floats.
            |c| unsafe { (*x_row.add(c), *weight.add(c)) },
            |c, (v, w)| unsafe { *out_row.add(c) = v * inverse_rms * w },
        );
        row += grid_dim_x() as usize;
    }
}
