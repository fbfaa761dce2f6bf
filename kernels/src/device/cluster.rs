//! Thread-block clusters (sm_90): the blocks of a cluster run at the same time, on one GPC, and
//! can read each other's shared memory ("distributed shared memory").
//!
//! The host asks for clusters at launch time (a cluster-dimension launch attribute); a kernel
//! launched without one sees clusters of one block each (`%cluster_nctarank` = 1,
//! `%clusterid.x` = `%ctaid.x`), so a kernel written for clusters runs unchanged in a plain
//! launch. Row kernels use clusters to split one long row across several blocks when rows are
//! few (decode shapes), combining the blocks' partial results through a [`ClusterExchange`]
//! instead of a second kernel launch.

use core::arch::asm;

use super::geometry::{lane_id, thread_idx_x};
use super::math::rescale_factor;
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

/// The arrive half of [`cluster_barrier`] without its memory ordering (`.relaxed`): it does not
/// block; the thread's next [`cluster_wait`] returns once every thread of the cluster arrived.
#[inline(always)]
fn cluster_arrive_relaxed() {
    // SAFETY: as [`cluster_barrier`]; the caller pairs it with one later [`cluster_wait`].
    unsafe { asm!("barrier.cluster.arrive.relaxed.aligned;", options(nostack)) }
}

/// The wait half of [`cluster_barrier`], after a [`cluster_arrive_relaxed`].
#[inline(always)]
fn cluster_wait() {
    // SAFETY: as [`cluster_barrier`].
    unsafe { asm!("barrier.cluster.wait.aligned;", options(nostack)) }
}

/// The generic address of the same shared-memory location as `local` in block `rank` of this
/// cluster (`mapa`): ordinary loads and stores through it reach that block's shared memory.
///
/// `local` must be a generic address of this block's shared memory and `rank` below
/// [`cluster_block_count`]; the other block must not have exited before the access.
#[inline(always)]
pub fn map_shared_to_block(local: *mut f32, rank: u32) -> *mut f32 {
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
    mapped as *mut f32
}

/// Blocks a cluster may hold (sm_90's largest, non-portable, cluster size).
pub const MAX_CLUSTER_BLOCKS: usize = 16;

/// Floats of shared memory a [`ClusterExchange`] needs: two sets of one slot per block.
pub const CLUSTER_EXCHANGE_FLOATS: usize = 2 * MAX_CLUSTER_BLOCKS;

/// Combines one value per block across the blocks of a cluster with ONE cluster barrier per
/// reduction: each block writes its value into its own slot of every block's shared memory
/// (a remote store through [`map_shared_to_block`]), the barrier publishes the stores, and
/// each block then reads its local slots. Reading the others' shared memory instead (pull)
/// needs a second barrier, so that no block overwrites or leaves while another still reads;
/// on the H200 that barrier cost 0.4-0.5 us of a 3 us row kernel at 4 × 32,768.
///
/// A block may write another's shared memory only once that block has started: the exchange
/// arrives (without blocking) at the cluster barrier when it is made, and its first reduction
/// waits for every block's arrival before its remote stores (compute-sanitizer's racecheck
/// flags the stores without it: "a block that might not have entered yet"). By then the
/// blocks have long started, so the wait costs little; an exchange that made no reduction
/// waits when it is dropped, so that every arrive has its wait.
///
/// Consecutive reductions alternate between two sets of slots: a block writes set `s` of
/// reduction `i` only after passing the barrier of reduction `i - 1`, which every other block
/// reaches only after reading set `s` of reduction `i - 2`. Without clusters (a cluster of one
/// block) a reduction returns its value and touches no memory.
///
/// `SLOT` floats per block and reduction: 1 for [`Self::sum`] and [`Self::max`], 2 for
/// [`Self::max_and_sum`], which combines a softmax's maximum and sum in one barrier.
///
/// Contract: every thread of every block of the cluster makes the same sequence of
/// reductions; `slots` is this block's `SLOT ·` [`CLUSTER_EXCHANGE_FLOATS`] floats of shared
/// memory, at the same offset in every block, used by nothing else; at most
/// [`MAX_CLUSTER_BLOCKS`] blocks per cluster, at least 32 threads per block.
pub struct ClusterExchange<const SLOT: usize = 1> {
    slots: *mut f32,
    set: usize,
    /// Arrived at the start barrier and not yet waited (only in clusters of several blocks).
    start_pending: bool,
}

impl<const SLOT: usize> ClusterExchange<SLOT> {
    /// Made by every thread of the cluster, in uniform control flow (it arrives at a barrier).
    #[inline(always)]
    pub fn new(slots: *mut f32) -> ClusterExchange<SLOT> {
        let start_pending = cluster_block_count() > 1;
        if start_pending {
            cluster_arrive_relaxed();
        }
        ClusterExchange { slots, set: 0, start_pending }
    }

    /// Before a reduction's remote stores: waits for the start barrier (once), and returns
    /// the next set of slots.
    #[inline(always)]
    fn next_set(&mut self) -> *mut f32 {
        if self.start_pending {
            cluster_wait();
            self.start_pending = false;
        }
        let set = self.slots.wrapping_add(self.set * SLOT * MAX_CLUSTER_BLOCKS);
        self.set ^= 1;
        set
    }

    /// One exchange, in a cluster of `blocks` (more than one): this block's `values` into its
    /// slot (`rank`) of every block's next set, then one cluster barrier. Returns that set,
    /// this block's: slot `r < blocks` now holds block `r`'s values, for lane `r` of a warp to
    /// read and a warp butterfly to combine.
    #[inline(always)]
    fn publish(&mut self, blocks: u32, values: [f32; SLOT]) -> *const f32 {
        let set = self.next_set();
        // SAFETY: the contract gives both sets in every block of the cluster; thread `r <
        // blocks` writes slot `rank` of block `r`, which cannot have exited: it waits at the
        // barrier below.
        unsafe {
            let thread = thread_idx_x();
            if thread < blocks {
                let slot = set.add(SLOT * block_rank_in_cluster() as usize);
                // Indexed: the iterator form left `values` in local memory (32 bytes of stack
                // in `softmax_rows`, which the shape pins caught).
                #[allow(clippy::needless_range_loop)]
                for k in 0..SLOT {
                    *map_shared_to_block(slot.add(k), thread) = values[k];
                }
            }
        }
        cluster_barrier();
        set
    }
}

impl ClusterExchange<2> {
    /// The maximum over the blocks of the cluster of each block's `block_max`, and the sum of
    /// each block's `block_sum` of exponentials taken relative to its own maximum,
    /// `Σ_b block_sum_b · e^(block_max_b - max)`: softmax's two reductions in one barrier.
    /// Every thread of the cluster receives the same bits (one warp butterfly per block, in
    /// rank order). A block whose maximum is `-inf` (all masked, or no elements) adds
    /// `block_sum · 0`: nothing, unless its sum is NaN; when every block's is `-inf` the sum
    /// is 0.
    #[inline(always)]
    pub fn max_and_sum(&mut self, block_max: f32, block_sum: f32) -> (f32, f32) {
        let blocks = cluster_block_count();
        if blocks == 1 {
            return (block_max, block_sum);
        }
        let set = self.publish(blocks, [block_max, block_sum]);
        let lane = lane_id() as usize;
        // SAFETY: lane `r < blocks` reads local slot `r`, written before `publish`'s barrier.
        let (max, sum) = if lane < blocks as usize {
            unsafe { (*set.add(2 * lane), *set.add(2 * lane + 1)) }
        } else {
            (f32::NEG_INFINITY, 0.0)
        };
        let row_max = warp_max(max);
        (row_max, warp_sum(sum * rescale_factor(max, row_max)))
    }
}

impl ClusterExchange {
    /// Sum over the blocks of the cluster of each block's `block_total` (a value every thread
    /// of the block holds, such as [`super::reduce::block_sum`]'s result); every thread of the
    /// cluster receives the same, bitwise identical sum (added in rank order by one warp
    /// butterfly in every block).
    #[inline(always)]
    pub fn sum(&mut self, block_total: f32) -> f32 {
        self.reduce(block_total, 0.0, warp_sum)
    }

    /// Maximum over the blocks of the cluster of each block's `block_max`; as [`Self::sum`].
    #[inline(always)]
    pub fn max(&mut self, block_max: f32) -> f32 {
        self.reduce(block_max, f32::NEG_INFINITY, warp_max)
    }

    #[inline(always)]
    fn reduce(&mut self, value: f32, identity: f32, warp_reduce: impl Fn(f32) -> f32) -> f32 {
        let blocks = cluster_block_count();
        if blocks == 1 {
            return value;
        }
        let set = self.publish(blocks, [value]);
        let lane = lane_id();
        // SAFETY: lane `r < blocks` reads local slot `r`, written before `publish`'s barrier.
        let partial = if lane < blocks { unsafe { *set.add(lane as usize) } } else { identity };
        warp_reduce(partial)
    }
}

impl<const SLOT: usize> Drop for ClusterExchange<SLOT> {
    /// Waits at the start barrier if no reduction did, so that no thread leaves an arrive
    /// without its wait.
    #[inline(always)]
    fn drop(&mut self) {
        if self.start_pending {
            cluster_wait();
        }
    }
}
