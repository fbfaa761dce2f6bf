//! RMSNorm over the rows of a matrix, as in Llama-style transformer blocks.

use cuda_device::{DynamicSharedArray, kernel};

use crate::device::{
    BLOCK_REDUCE_SCRATCH_FLOATS, ClusterExchange, allow_dependent_launch, block_dim_x, block_sum,
    cluster_index_and_count, row_segment, rsqrt, strided, thread_x, wait_for_prior_grid,
};

/// `out[r][c] = x[r][c] / sqrt(mean_c(x[r][c]^2) + eps) * weight[c]`, row-major, `rows × cols`:
/// the default backend's `rms_norm`, computed as `(x · rsqrt.approx(Σx² / cols + eps)) · w`.
///
/// Each block reads a row twice: once for the sum of squares (each thread its columns
/// `threadIdx.x, + blockDim.x, …`, then a warp butterfly and one partial per warp), once to
/// write. This is the default backend's two-read path; its one-read path (rows held in
/// registers) sums the same squares in another order, so the two agree to rounding.
///
/// Special values, as PyTorch's `F.rms_norm`: a NaN in a row makes the row NaN; a sum of
/// squares that overflows gives `rsqrt(inf) = 0`, so finite elements give ±0 and infinities
/// NaN; subnormals are kept. Rows of zero columns write nothing.
///
/// Launch: one-dimensional; a block per row (grid-stride over rows, so any grid works);
/// `blockDim.x` a multiple of 32, at most 1024; dynamic shared memory 128 bytes (the block
/// reduction's scratch). Pointers need only `f32` alignment. May be launched with
/// programmatic dependent launch: it waits for the previous grid before touching memory and
/// lets the next one launch at once. May be launched in clusters of 2 to 16 blocks (a launch
/// attribute): a cluster takes a row, each block a segment of it, and the blocks add their
/// sums of squares through distributed shared memory; dynamic shared memory is then 256
/// bytes. PTX: `.entry rms_norm(.param .u64 x, .param .u64 weight, .param .u64 out,
/// .param .u64 rows, .param .u64 cols, .param .f32 eps)`.
///
/// # Safety
/// `x` and `out` point to `rows * cols` floats, `weight` to `cols` floats of device memory;
/// `out` does not overlap the inputs.
#[kernel]
#[kernel_verifier::unverified(
    reason = "cluster barriers, distributed shared memory (inline PTX `mapa`/`st.shared::cluster`) and programmatic dependent launch are outside the current model"
)]
pub unsafe fn rms_norm(x: *const f32, weight: *const f32, out: *mut f32, rows: usize, cols: usize, eps: f32) {
    // Everything below reads or writes memory the kernel before this one may touch.
    wait_for_prior_grid();
    allow_dependent_launch();
    let scratch = DynamicSharedArray::<f32>::get();
    let mut exchange = ClusterExchange::<1>::new(scratch.wrapping_add(BLOCK_REDUCE_SCRATCH_FLOATS));
    // This block's columns of every row; from here on a row is `len` floats, `cols` apart.
    let (start, len) = row_segment(cols);
    let (x, weight, out) = (x.wrapping_add(start), weight.wrapping_add(start), out.wrapping_add(start));
    let (first_row, row_step) = cluster_index_and_count();
    let (first, step) = (thread_x() as usize, block_dim_x() as usize);
    let mut row = first_row;
    while row < rows {
        let x_row = x.wrapping_add(row * cols);
        let out_row = out.wrapping_add(row * cols);
        let mut sum_of_squares = 0.0f32;
        // SAFETY: `row < rows`; `strided` passes columns below the segment's length.
        strided(first, len, step, |c| unsafe { *x_row.add(c) }, |_, v| sum_of_squares += v * v);
        let row_sum = exchange.sum(block_sum(sum_of_squares, scratch));
        let inverse_rms = rsqrt(row_sum / cols as f32 + eps);
        strided(
            first,
            len,
            step,
            // SAFETY: as above; `weight` holds the segment's `len` floats.
            |c| unsafe { (*x_row.add(c), *weight.add(c)) },
            |c, (v, w)| unsafe { *out_row.add(c) = v * inverse_rms * w },
        );
        row += row_step;
    }
    exchange.finish();
}
