//! Numerically safe softmax over the rows of a matrix.

use cuda_device::{DynamicSharedArray, kernel};

use crate::device::{
    BLOCK_REDUCE_SCRATCH_FLOATS, ClusterExchange, allow_dependent_launch, block_dim_x, block_max, block_sum,
    cluster_index_and_count, exp, rescale_factor, row_segment, strided, thread_x, wait_for_prior_grid,
};

/// `out[r][c] = e^(x[r][c] - m) / sum_c e^(x[r][c] - m)` with `m` the row's maximum, so that
/// no exponential overflows; row-major, `rows × cols`, `cols > 0`: the default backend's
/// `softmax_rows`.
///
/// Two reads of each row (the default backend's two-read path): the first finds the maximum
/// and the sum of exponentials together ("online": each thread rescales its sum when its
/// maximum grows; the block combines the threads' pairs), the second writes
/// `e^(v - m) · (1 / sum)`. Exponentials are `ex2.approx` of `(v - m) · log2 e`.
///
/// Special values, as PyTorch's `torch.softmax`: a `-inf` (a masked position) gives 0 and the
/// rest of the row a proper softmax; a row that is all `-inf` is NaN, as is a row holding a
/// NaN or a `+inf`; values near `f32::MAX` are safe.
///
/// Launch: one-dimensional; a block per row (grid-stride over rows); `blockDim.x` a multiple
/// of 32, at most 1024; dynamic shared memory 128 bytes. Pointers need only `f32` alignment.
/// May be launched with programmatic dependent launch, as `rms_norm`. May be launched in
/// clusters of 2 to 16 blocks: each block takes a segment of the row, and the blocks combine
/// their (maximum, sum) pairs through distributed shared memory in one cluster barrier; dynamic
/// shared memory is then 384 bytes. PTX: `.entry softmax_rows(.param .u64 x, .param .u64 out,
/// .param .u64 rows, .param .u64 cols)`.
///
/// # Safety
/// `x` and `out` point to `rows * cols` floats of device memory and do not overlap.
#[kernel]
#[kernel_verifier::unverified(
    reason = "cluster barriers, distributed shared memory (inline PTX `mapa`/`st.shared::cluster`) and programmatic dependent launch are outside the current model"
)]
pub unsafe fn softmax_rows(x: *const f32, out: *mut f32, rows: usize, cols: usize) {
    // Everything below reads or writes memory the kernel before this one may touch.
    wait_for_prior_grid();
    allow_dependent_launch();
    let scratch = DynamicSharedArray::<f32>::get();
    let mut exchange = ClusterExchange::<2>::new(scratch.wrapping_add(BLOCK_REDUCE_SCRATCH_FLOATS));
    let (start, len) = row_segment(cols);
    let (x, out) = (x.wrapping_add(start), out.wrapping_add(start));
    let (first_row, row_step) = cluster_index_and_count();
    let (first, step) = (thread_x() as usize, block_dim_x() as usize);
    let mut row = first_row;
    while row < rows {
        let (x_row, out_row) = (x.wrapping_add(row * cols), out.wrapping_add(row * cols));
        // This thread's maximum and its sum of e^(v - maximum); e^-inf = 0 starts both.
        let mut local_max = f32::NEG_INFINITY;
        let mut local_sum = 0.0f32;
        strided(
            first,
            len,
            step,
            // SAFETY: `row < rows`; `strided` passes columns below the segment's length.
            |c| unsafe { *x_row.add(c) },
            |_, v| {
                if v > local_max {
                    local_sum = local_sum * exp(local_max - v) + 1.0;
                    local_max = v;
                } else {
                    // While the maximum is still -inf, a -inf adds e^-inf = 0 (not
                    // e^(-inf - -inf) = NaN); a NaN still makes the sum NaN.
                    let base = if local_max == f32::NEG_INFINITY { 0.0 } else { local_max };
                    local_sum += exp(v - base);
                }
            },
        );
        let segment_max = block_max(local_max, scratch);
        // A thread that saw no element, or only -inf, adds its sum times 0.
        let segment_sum = block_sum(local_sum * rescale_factor(local_max, segment_max), scratch);
        let (row_max, row_sum) = exchange.max_and_sum(segment_max, segment_sum);
        let inverse_sum = 1.0 / row_sum;
        strided(
            first,
            len,
            step,
            // SAFETY: as above; `out` holds the segment too.
            |c| unsafe { *x_row.add(c) },
            |c, v| unsafe { *out_row.add(c) = exp(v - row_max) * inverse_sum },
        );
        row += row_step;
    }
    exchange.finish();
}
