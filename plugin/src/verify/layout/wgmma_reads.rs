//! The tiles `wgmma.mma_async` reads, for rule `shared-layout`: every byte a multiply reads
//! (its tile address, the rows its shape reads, [`super::super::descriptors`]) lies inside one
//! stage part the copies fill, for every thread issuing it and every value of the counters its
//! address is built from. What is not shown so is a gap: the tensor cores might read a stage
//! the consumer does not hold, or the barriers.

use super::*;
use crate::ir::semantic::wgmma::WgmmaMmaOp;
use crate::verify::descriptors::{SWIZZLE_ROW_BYTES, TILE_ROWS, tile_addresses};

/// The multiplies of the scope (operation numbers).
pub(super) fn multiplies(ctx: &Context, index: &ScopeIndex) -> Vec<usize> {
    index
        .ops_of_class(OpClass::Semantic)
        .filter(|(_, op)| Operation::get_op::<WgmmaMmaOp>(*op, ctx).is_some())
        .map(|(n, _)| n)
        .collect()
}

/// Gaps for the multiplies `multiplies` whose tiles are not shown inside a stage part of
/// `rings`. `intervals` reads the thread's own terms (a warpgroup's rows) as intervals.
pub(super) fn check_wgmma_reads(
    intervals: &Evaluator<'_, '_>,
    rings: &[(Extent, Option<(StateId, i64)>)],
    multiplies: &[usize],
    gaps: &mut Vec<Gap>,
) {
    let (ctx, index) = (intervals.ctx, intervals.index);
    for &n in multiplies {
        let op = index.ops[n];
        let Some(addresses) = tile_addresses(ctx, intervals.locals, op) else { continue };
        intervals.access_block.set(Some(index.op_block[n]));
        for (which, (address, rows)) in ["A", "B"].iter().zip(addresses.into_iter().zip(TILE_ROWS)) {
            let why = match address {
                None => format!(
                    "the {which} tile a wgmma multiply reads: its descriptor is not one \
                     `k_major_swizzle_128b_descriptor` made"
                ),
                Some(address) => match read_bytes(intervals, address, rows) {
                    Some((stride, lo, hi)) if inside_a_part(rings, stride, lo, hi) => continue,
                    Some((stride, lo, hi)) => format!(
                        "the {which} tile a wgmma multiply reads: window bytes {lo}..{hi} + {stride}·index are not \
                         shown inside one stage the copies fill"
                    ),
                    None => format!(
                        "the {which} tile a wgmma multiply reads is not a stage of a ring the copies fill (its \
                         address is not the window plus a stage index times a stride plus offsets)"
                    ),
                },
            };
            gaps.push(Gap::at(
                ctx,
                index,
                op,
                GapKind::Undecided,
                format!("the shared-memory layout: {why}"),
            ));
        }
    }
}

/// The stride and the bytes `[lo, hi)` (stage 0's) a multiply reads from `rows` rows starting
/// at `address`: from the start of the row holding its first byte to the end of its last row.
/// A row's start is exact where the window is rounded to at least a row; otherwise the first
/// byte may lie up to a row past it.
fn read_bytes(intervals: &Evaluator<'_, '_>, address: Value, rows: i64) -> Option<(i64, i64, i64)> {
    let Affine { window: 1, index: Some((_, stride)), lo, hi, .. } = intervals.place(address)? else {
        return None;
    };
    let aligned_window = intervals.rounding.get().is_some_and(|rounding| rounding >= SWIZZLE_ROW_BYTES);
    let row_start = |at: i64| at - at.rem_euclid(SWIZZLE_ROW_BYTES);
    let first = if aligned_window { row_start(lo) } else { lo - (SWIZZLE_ROW_BYTES - 1) };
    let last_row = if aligned_window { row_start(hi) } else { hi };
    Some((stride, first, last_row + rows * SWIZZLE_ROW_BYTES))
}
