//! Numerically safe softmax over the rows of a matrix.

use crate::device::cluster::{ClusterExchange, cluster_count_x, cluster_idx_x};
use crate::device::dependent::{allow_dependent_launch, wait_for_prior_grid};
use crate::device::math::{exp, rescale_factor};
use crate::device::reduce::{BLOCK_REDUCE_SCRATCH_FLOATS, block_max, block_sum};
use crate::device::row::{RowLayout, RowSegment};
use crate::device::strided::strided;
use crate::device::{block_dim_x, dynamic_shared_base, thread_idx_x};

/// `out[r][c] = e^(x[r][c] - m) / sum_c e^(x[r][c] - m)` with `m` the row's maximum, so that
/// no exponential overflows; row-major, `rows × cols`, `cols > 0`.
///
/// One read of each row when it fits in the block's registers (`cols ≤ 16 · blockDim.x`) and
/// can move in 16-byte groups (`cols` a multiple of 4, `x` and `out` 16-byte aligned; see
/// [`RowLayout`]): the block finds the maximum, then the sum of the exponentials, which
/// replace the values in registers, then writes them scaled. Other rows take two reads: the
/// first finds the maximum and the sum together ("online" softmax: each thread rescales its
/// sum when its maximum grows, and the block combines the threads' pairs), the second writes.
///
/// Special values, as PyTorch's `torch.softmax`: a `-inf` (a masked position) gives 0 and the
/// rest of the row a proper softmax; a row that is all `-inf` (fully masked) is NaN, as is a
/// row holding a NaN or a `+inf` (`inf - inf`); values near `f32::MAX` are safe (their
/// differences overflow to `-inf`, whose exponential is 0). Outputs below the normal range are
/// subnormal, as far as the approximate `ex2` delivers them (within 2^-126).
///
/// Launch: one-dimensional; a block per row (grid-stride over rows); `blockDim.x` a multiple
/// of 32, at most 1024; dynamic shared memory 128 bytes. Pointers need only `f32` alignment.
///
/// May be launched with programmatic dependent launch (a launch attribute): it waits for the
/// previous kernel in the stream before touching memory and lets the next one launch at once
/// ([`crate::device::dependent`]), so back-to-back launches overlap their start with the
/// previous kernel's tail.
///
/// Few long rows (decode): launched in clusters of `n` blocks (2 to 16, a launch attribute),
/// a cluster takes a row (grid-stride over rows by cluster) and each block a segment of it
/// ([`RowSegment`]); each block takes its exponentials relative to its own maximum, and the
/// blocks combine their (maximum, sum) pairs through distributed shared memory in one cluster
/// barrier ([`ClusterExchange::max_and_sum`]), each then rescaling its exponentials by
/// `e^(block max - row max) / row sum`; so the row is still read once (or twice on the
/// two-read path) by `n` times the threads. Dynamic shared memory is then 384 bytes (the
/// exchange's 64 floats after the scratch). The one-read condition applies to each segment.
///
/// # Safety
/// `x` and `out` point to `rows * cols` floats of device memory and do not overlap.
#[kernel_verifier::unverified(
    reason = "cluster barriers, distributed shared memory and programmatic dependent launch are outside the current model"
)]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn softmax_rows(x: *const f32, out: *mut f32, rows: usize, cols: usize) {
    // Everything below reads or writes memory the kernel before this one may touch.
    wait_for_prior_grid();
    allow_dependent_launch();
    let scratch = dynamic_shared_base::<f32>();
    let mut exchange = ClusterExchange::<2>::new(scratch.wrapping_add(BLOCK_REDUCE_SCRATCH_FLOATS));
    // This block's columns of every row, and the pointers moved to their start: from here on a
    // row is `segment.len` floats, `cols` apart.
    let segment = RowSegment::of_this_block(cols);
    let (x, out) = (x.wrapping_add(segment.start), out.wrapping_add(segment.start));
    let (first_row, row_step) = (cluster_idx_x() as usize, cluster_count_x() as usize);
    let mut row = first_row;
    // Each path has its loop, so that their hoisted offsets are not live together.
    if let Some(layout) = segment.layout(&[x as usize, out as usize]) {
        while row < rows {
            // SAFETY: `row < rows`: the segment holds `len` floats; the layout checked alignment.
            let mut values = unsafe { layout.load(x.wrapping_add(row * cols), f32::NEG_INFINITY) };
            let mut local_max = f32::NEG_INFINITY;
            layout.for_each(&values, |v| local_max = local_max.max(v));
            let segment_max = block_max(local_max, scratch);
            // Exponentials relative to this block's maximum; a block of -inf only (masked, or
            // past the row's end) takes them relative to 0, so they are 0, not e^NaN.
            let base = if segment_max == f32::NEG_INFINITY { 0.0 } else { segment_max };
            RowLayout::map(&mut values, |v| exp(v - base));
            let mut local_sum = 0.0f32;
            layout.for_each(&values, |e| local_sum += e);
            let segment_sum = block_sum(local_sum, scratch);
            let (row_max, row_sum) = exchange.max_and_sum(segment_max, segment_sum);
            let scale = segment_scale(segment_max, row_max, row_sum);
            RowLayout::map(&mut values, |e| e * scale);
            // SAFETY: `out` holds the segment too, aligned as `x`.
            unsafe { layout.store(out.wrapping_add(row * cols), &values, None) };
            row += row_step;
        }
        return;
    }
    while row < rows {
        let (x_row, out_row) = (x.wrapping_add(row * cols), out.wrapping_add(row * cols));
        two_reads(x_row, out_row, segment.len, scratch, &mut exchange);
        row += row_step;
    }
}

/// What a block multiplies its exponentials `e^(v - segment_max)` by: `e^(segment_max -
/// row_max) / row_sum`. Where the block holds the row's maximum (always, without clusters)
/// that is `1 / row_sum` itself, so a block per row gives the bits of exponentials taken
/// relative to the row's maximum; a fully masked row (`-inf` maxima, sum 0) gets `inf`, and
/// its zeros become NaN, as PyTorch's do.
#[inline(always)]
fn segment_scale(segment_max: f32, row_max: f32, row_sum: f32) -> f32 {
    let inverse_sum = 1.0 / row_sum;
    if segment_max == row_max { inverse_sum } else { exp(segment_max - row_max) * inverse_sum }
}

/// The two-read softmax of one row's segment of `len` floats (see [`softmax_rows`]).
#[inline(always)]
fn two_reads(
    x_row: *const f32,
    out_row: *mut f32,
    len: usize,
    scratch: *mut f32,
    exchange: &mut ClusterExchange<2>,
) {
    let (first, step) = (thread_idx_x() as usize, block_dim_x() as usize);
    // This thread's maximum and its sum of e^(v - maximum); e^-inf = 0 starts both.
    let mut local_max = f32::NEG_INFINITY;
    let mut local_sum = 0.0f32;
    strided(
        first,
        len,
        step,
        // SAFETY: the caller's segment holds `len` floats; `strided` passes columns below `len`.
        |c| unsafe { *x_row.add(c) },
        |_, v| {
            if v > local_max {
                local_sum = local_sum * exp(local_max - v) + 1.0;
                local_max = v;
            } else {
                // While the maximum is still -inf, a -inf adds e^-inf = 0 (not e^(-inf - -inf),
                // which is NaN); a NaN still makes the sum NaN.
                let base = if local_max == f32::NEG_INFINITY { 0.0 } else { local_max };
                local_sum += exp(v - base);
            }
        },
    );
    let segment_max = block_max(local_max, scratch);
    // A thread that saw no element, or only -inf, has sum 0 (NaN if it saw a NaN) and maximum
    // -inf: it adds its sum times 0, also where the whole segment is -inf (a masked prefix
    // can cover a block's segment), where e^(-inf - -inf) would be NaN. A fully masked row
    // still ends NaN: its second read takes e^(v - -inf).
    let segment_sum = block_sum(local_sum * rescale_factor(local_max, segment_max), scratch);
    let (row_max, row_sum) = exchange.max_and_sum(segment_max, segment_sum);
    let inverse_sum = 1.0 / row_sum;
    strided(
        first,
        len,
        step,
        // SAFETY: as above.
        |c| unsafe { *x_row.add(c) },
        |c, v| unsafe { *out_row.add(c) = exp(v - row_max) * inverse_sum },
    );
}
