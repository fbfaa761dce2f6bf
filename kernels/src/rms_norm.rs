//! RMSNorm over the rows of a matrix, as in Llama-style transformer blocks.

use crate::device::cluster::{ClusterExchange, cluster_count_x, cluster_idx_x};
use crate::device::dependent::{allow_dependent_launch, wait_for_prior_grid};
use crate::device::math::rsqrt;
use crate::device::reduce::{BLOCK_REDUCE_SCRATCH_FLOATS, block_sum};
use crate::device::row::{RowLayout, RowSegment};
use crate::device::strided::strided;
use crate::device::{block_dim_x, dynamic_shared_base, thread_idx_x};

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
/// May be launched with programmatic dependent launch (a launch attribute): it waits for the
/// previous kernel in the stream before touching memory and lets the next one launch at once
/// ([`crate::device::dependent`]), so back-to-back launches overlap their start with the
/// previous kernel's tail.
///
/// Few long rows (decode): launched in clusters of `n` blocks (2 to 16, a launch attribute),
/// a cluster takes a row (grid-stride over rows by cluster) and each block a segment of it
/// ([`RowSegment`]); the blocks add their sums of squares through distributed shared memory
/// ([`ClusterExchange`], one cluster barrier per row), so the row is still read once and
/// written once, by `n` times the threads. Dynamic shared memory is then 256 bytes (the
/// exchange's 32 floats after the scratch). The one-read condition above applies to each
/// block's segment.
///
/// # Safety
/// `x` and `out` point to `rows * cols` floats, `weight` to `cols` floats of device memory;
/// `out` does not overlap the inputs.
#[kernel_verifier::unverified(
    reason = "cluster barriers, distributed shared memory and programmatic dependent launch are outside the current model"
)]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn rms_norm(
    x: *const f32,
    weight: *const f32,
    out: *mut f32,
    rows: usize,
    cols: usize,
    eps: f32,
) {
    // SAFETY: the caller keeps the entry's contract, which is the body's.
    unsafe { rms_norm_rows::<false>(x, weight, out, rows, cols, eps) };
}

/// [`rms_norm`] with the block's share of `weight` held in registers on the one-read path:
/// loaded once, together with the first row, instead of after each row's reduction. The
/// entry for rows split across clusters (decode), where that reduction is the critical path:
/// the weight's trip to the L2 no longer follows it (H200, 4 × 32,768 in clusters of 8 blocks
/// of 256 threads: 0.83 of [`rms_norm`]'s time, the same bits).
///
/// Launch: as [`rms_norm`], but `blockDim.x` at most 512: the held weight takes a thread past
/// the 64 registers a 1024-thread block allows (about 72 on sm_90; 512 leaves room for more).
///
/// # Safety
/// As [`rms_norm`].
#[kernel_verifier::unverified(
    reason = "cluster barriers, distributed shared memory and programmatic dependent launch are outside the current model"
)]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn rms_norm_held_weight(
    x: *const f32,
    weight: *const f32,
    out: *mut f32,
    rows: usize,
    cols: usize,
    eps: f32,
) {
    // SAFETY: the caller keeps the entry's contract, which is the body's.
    unsafe { rms_norm_rows::<true>(x, weight, out, rows, cols, eps) };
}

/// The body of [`rms_norm`] (`HOLD_WEIGHT` false) and [`rms_norm_held_weight`] (true).
///
/// # Safety
/// As [`rms_norm`].
#[inline(always)]
unsafe fn rms_norm_rows<const HOLD_WEIGHT: bool>(
    x: *const f32,
    weight: *const f32,
    out: *mut f32,
    rows: usize,
    cols: usize,
    eps: f32,
) {
    // Everything below reads or writes memory the kernel before this one may touch.
    wait_for_prior_grid();
    allow_dependent_launch();
    let scratch = dynamic_shared_base::<f32>();
    let mut exchange = ClusterExchange::new(scratch.wrapping_add(BLOCK_REDUCE_SCRATCH_FLOATS));
    // This block's columns of every row, and the pointers moved to their start: from here on a
    // row is `segment.len` floats, `cols` apart.
    let segment = RowSegment::of_this_block(cols);
    let (x, weight, out) =
        (x.wrapping_add(segment.start), weight.wrapping_add(segment.start), out.wrapping_add(segment.start));
    let (first_row, row_step) = (cluster_idx_x() as usize, cluster_count_x() as usize);
    // Each path has its loop, so that their hoisted offsets are not live together.
    if let Some(layout) = segment.layout(&[x as usize, weight as usize, out as usize]) {
        // Loaded before the first row's values, so that both are in flight together.
        // SAFETY: `weight` holds the segment's `len` floats, aligned as `x`.
        let held_weight = HOLD_WEIGHT.then(|| unsafe { layout.load(weight, 0.0) });
        let mut row = first_row;
        while row < rows {
            // SAFETY: `row < rows`: the segment holds `len` floats; the layout checked alignment.
            let mut values = unsafe { layout.load(x.wrapping_add(row * cols), 0.0) };
            let mut sum_of_squares = 0.0f32;
            layout.for_each(&values, |v| sum_of_squares += v * v);
            let row_sum = exchange.sum(block_sum(sum_of_squares, scratch));
            let inverse_rms = rsqrt(row_sum / cols as f32 + eps);
            // `(v · inverse_rms) · w` either way, so both entries give the same bits.
            RowLayout::map(&mut values, |v| v * inverse_rms);
            let out_row = out.wrapping_add(row * cols);
            match &held_weight {
                Some(held) => {
                    RowLayout::zip_map(&mut values, held, |v, w| v * w);
                    // SAFETY: `out` holds the segment, aligned as `x`.
                    unsafe { layout.store(out_row, &values, None) };
                }
                // SAFETY: as above; `weight` holds the segment's `len` floats, aligned as `x`.
                None => unsafe { layout.store(out_row, &values, Some(weight)) },
            }
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
        // SAFETY: `row < rows`, and `strided` passes columns below the segment's length.
        strided(first, segment.len, step, |c| unsafe { *x_row.add(c) }, |_, v| sum_of_squares += v * v);
        let row_sum = exchange.sum(block_sum(sum_of_squares, scratch));
        let inverse_rms = rsqrt(row_sum / cols as f32 + eps);
        strided(
            first,
            segment.len,
            step,
            // SAFETY: as above; `weight` holds the segment's `len` floats.
            |c| unsafe { (*x_row.add(c), *weight.add(c)) },
            |c, (v, w)| unsafe { *out_row.add(c) = v * inverse_rms * w },
        );
        row += row_step;
    }
}
