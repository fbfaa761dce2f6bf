//! Warp and block reductions.
//!
//! Warp reductions use butterfly shuffles, so every lane ends with the same, bitwise identical
//! result. Block reductions combine one partial per warp through a 32-float scratch area in
//! shared memory; they contain barriers and must be called by every thread of the block.

use core::arch::asm;

use super::geometry::{WARP_SIZE, block_dim_x, lane_id, warp_id};
use super::shared::barrier;

/// Floats of shared scratch that [`block_sum`] and [`block_max`] need.
pub const BLOCK_REDUCE_SCRATCH_FLOATS: usize = 32;

#[inline(always)]
fn shuffle_xor(value: f32, lane_mask: u32) -> f32 {
    let result: f32;
    // SAFETY: all 32 lanes take part (member mask 0xffffffff); callers keep warps converged.
    unsafe {
        asm!(
            "shfl.sync.bfly.b32 {result}, {value}, {lane_mask}, 0x1f, 0xffffffff;",
            result = out(reg32) result,
            value = in(reg32) value,
            lane_mask = in(reg32) lane_mask,
            options(nomem, nostack),
        );
    }
    result
}

/// Sum over the 32 lanes of a warp; every lane receives it.
#[inline(always)]
pub fn warp_sum(value: f32) -> f32 {
    segment_sum(value, WARP_SIZE)
}

/// Sum over each aligned segment of `lanes` consecutive lanes (`lanes` a power of two, at most
/// 32): every lane receives its own segment's sum. All 32 lanes take part, as in [`warp_sum`].
#[inline(always)]
pub fn segment_sum(mut value: f32, lanes: u32) -> f32 {
    let mut lane_mask = lanes / 2;
    while lane_mask > 0 {
        value += shuffle_xor(value, lane_mask);
        lane_mask /= 2;
    }
    value
}

/// Maximum over the 32 lanes of a warp; every lane receives it.
#[inline(always)]
pub fn warp_max(mut value: f32) -> f32 {
    let mut lane_mask = WARP_SIZE / 2;
    while lane_mask > 0 {
        value = value.max(shuffle_xor(value, lane_mask));
        lane_mask /= 2;
    }
    value
}

/// Sum over every thread of the block; every thread receives it.
///
/// Contract: the block is one-dimensional with a multiple of 32 threads (at most 1024), and
/// `scratch` points to [`BLOCK_REDUCE_SCRATCH_FLOATS`] floats of shared memory that no other
/// code touches during the call. The scratch may be reused right after the call returns.
#[inline(always)]
pub fn block_sum(value: f32, scratch: *mut f32) -> f32 {
    block_reduce(value, scratch, 0.0, warp_sum)
}

/// Maximum over every thread of the block; every thread receives it. Same contract as
/// [`block_sum`].
#[inline(always)]
pub fn block_max(value: f32, scratch: *mut f32) -> f32 {
    block_reduce(value, scratch, f32::NEG_INFINITY, warp_max)
}

#[inline(always)]
fn block_reduce(value: f32, scratch: *mut f32, identity: f32, warp_reduce: impl Fn(f32) -> f32) -> f32 {
    let warp_total = warp_reduce(value);
    let warps = block_dim_x() / WARP_SIZE;
    // SAFETY: the contract gives 32 scratch floats; warp and lane indices are below 32.
    unsafe {
        if lane_id() == 0 {
            *scratch.add(warp_id() as usize) = warp_total;
        }
        barrier();
        let lane = lane_id();
        let partial = if lane < warps { *scratch.add(lane as usize) } else { identity };
        let total = warp_reduce(partial);
        // Every warp has read its partials before anyone may overwrite the scratch again.
        barrier();
        total
    }
}
