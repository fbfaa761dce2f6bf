//! Thread-block clusters (sm_90): the blocks of a cluster run at the same time, on one GPC, and
//! can read each other's shared memory ("distributed shared memory").
//!
//! The host asks for clusters at launch time (a cluster-dimension launch attribute); a kernel
//! launched without one sees clusters of one block each (`%cluster_nctarank` = 1,
//! `%clusterid.x` = `%ctaid.x`), so a kernel written for clusters runs unchanged in a plain
//! launch. Row kernels use clusters to split one long row across several blocks when rows are
//! few (decode shapes), combining the blocks' partial results through [`cluster_sum`] and
//! [`cluster_max`] instead of a second kernel launch.

use core::arch::asm;

use super::geometry::{lane_id, thread_idx_x};
use super::reduce::{warp_max, warp_sum};

/// Reads one 32-bit special register.
macro_rules! special_register {
    ($name:literal) => {{
        let value: u32;
        // SAFETY: reading a special register has no preconditions and no side effects.
        unsafe {
            asm!(
                concat!("mov.u32 {value}, ", $name, ";"),
                value = out(reg32) value,
                options(pure, nomem, nostack),
            );
        }
        value
    }};
}

/// This block's cluster in a one-dimensional grid of clusters (`%clusterid.x`).
#[inline(always)]
pub fn cluster_idx_x() -> u32 {
    special_register!("%clusterid.x")
}

/// Clusters in a one-dimensional grid (`%nclusterid.x`).
#[inline(always)]
pub fn cluster_count_x() -> u32 {
    special_register!("%nclusterid.x")
}

/// This block's rank within its cluster (`%cluster_ctarank`), `0..cluster_block_count()`.
#[inline(always)]
pub fn block_rank_in_cluster() -> u32 {
    special_register!("%cluster_ctarank")
}

/// Blocks in this block's cluster (`%cluster_nctarank`): 1 in a launch without clusters.
#[inline(always)]
pub fn cluster_block_count() -> u32 {
    special_register!("%cluster_nctarank")
}

/// Barrier over every thread of every block of the cluster: the arrive releases this thread's
/// earlier writes (shared memory included) and the wait acquires the others'. Like
/// [`super::barrier`], every thread of the cluster must reach it, in uniform control flow.
#[inline(always)]
pub fn cluster_barrier() {
    // SAFETY: the caller keeps the barrier in uniform control flow across the cluster.
    unsafe {
        asm!("barrier.cluster.arrive.aligned;", "barrier.cluster.wait.aligned;", options(nostack));
    }
}

/// The generic address of the same shared-memory location as `local` in block `rank` of this
/// cluster (`mapa`): ordinary loads through it read that block's shared memory.
///
/// `local` must be a generic address of this block's shared memory and `rank` below
/// [`cluster_block_count`]; the other block must not have exited before the read.
#[inline(always)]
pub fn map_shared_to_block(local: *mut f32, rank: u32) -> *const f32 {
    let mapped: u64;
    // SAFETY: computes an address; reads and writes nothing.
    unsafe {
        asm!(
            "mapa.u64 {mapped}, {local}, {rank};",
            mapped = out(reg64) mapped,
            local = in(reg64) local as u64,
            rank = in(reg32) rank,
            options(pure, nomem, nostack),
        );
    }
    mapped as *const f32
}

/// Floats of shared memory [`cluster_sum`] and [`cluster_max`] need for their exchange slot
/// (one, padded to 16 bytes), beside the block reduction's scratch.
pub const CLUSTER_EXCHANGE_FLOATS: usize = 4;

/// Sum over the blocks of the cluster of each block's `block_total` (a value every thread of
/// the block holds, such as [`super::reduce::block_sum`]'s result); every thread of the
/// cluster receives the same, bitwise identical sum (added in rank order by one warp butterfly
/// in every block). Without clusters it returns `block_total` and touches no memory.
///
/// Contract: called by every thread of every block of the cluster; `exchange` is this block's
/// [`CLUSTER_EXCHANGE_FLOATS`] floats of shared memory, at the same offset in every block; at
/// most 32 blocks per cluster (the hardware allows 16).
#[inline(always)]
pub fn cluster_sum(block_total: f32, exchange: *mut f32) -> f32 {
    cluster_reduce(block_total, exchange, 0.0, warp_sum)
}

/// Maximum over the blocks of the cluster of each block's `block_max`; same contract as
/// [`cluster_sum`].
#[inline(always)]
pub fn cluster_max(block_max: f32, exchange: *mut f32) -> f32 {
    cluster_reduce(block_max, exchange, f32::NEG_INFINITY, warp_max)
}

#[inline(always)]
fn cluster_reduce(value: f32, exchange: *mut f32, identity: f32, warp_reduce: impl Fn(f32) -> f32) -> f32 {
    let blocks = cluster_block_count();
    if blocks == 1 {
        return value;
    }
    // SAFETY: the contract gives the exchange slot in every block of the cluster; lane `r`
    // reads block `r < blocks`, which has not exited: it waits at the second barrier.
    unsafe {
        if thread_idx_x() == 0 {
            *exchange = value;
        }
        cluster_barrier();
        let lane = lane_id();
        let partial = if lane < blocks { *map_shared_to_block(exchange, lane) } else { identity };
        let total = warp_reduce(partial);
        // Every block has read every slot before any block may write its slot again or exit.
        cluster_barrier();
        total
    }
}
