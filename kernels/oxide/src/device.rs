//! The device building blocks the kernels share, on top of `cuda-device`: thread geometry, the
//! approximate math of the default backend's kernels, strided loops, warp and block
//! reductions, the cluster exchange of the row kernels, and programmatic dependent launch.
//!
//! Everything here is `#[inline(always)]`, which the backend turns into LLVM `alwaysinline`
//! (it still translates each function separately, passing shared pointers as generic ones):
//! `opt` inlines them into each kernel and infers the shared address space back, so the
//! reductions' scratch is reached with `ld.shared`/`st.shared`.

use cuda_device::cluster::{
    barrier_cluster_arrive_aligned, barrier_cluster_arrive_relaxed_aligned, barrier_cluster_wait_aligned,
    block_rank, cluster_idx, cluster_size, num_clusters,
};
use cuda_device::shared::cvta_generic_to_shared_offset;
use cuda_device::{float, ptx_asm, thread, warp};

/// Threads in a warp.
pub const WARP_SIZE: u32 = 32;

/// Floats of shared scratch that [`block_sum`] and [`block_max`] need (one per warp).
pub const BLOCK_REDUCE_SCRATCH_FLOATS: usize = 32;

/// Blocks a cluster may hold (sm_90's largest, non-portable, cluster size).
pub const MAX_CLUSTER_BLOCKS: u32 = 16;

/// Loads a thread issues in a strided loop before it consumes the first of them.
const IN_FLIGHT: usize = 4;

// ---------------------------------------------------------------------------------------------
// Geometry
// ---------------------------------------------------------------------------------------------

/// `threadIdx.x`.
#[inline(always)]
pub fn thread_x() -> u32 {
    thread::threadIdx_x()
}

/// `blockDim.x`.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    thread::blockDim_x()
}

/// `blockIdx.x`.
#[inline(always)]
pub fn block_x() -> u32 {
    thread::blockIdx_x()
}

/// `gridDim.x`.
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    thread::gridDim_x()
}

/// This thread's index in a one-dimensional grid.
#[inline(always)]
pub fn global_thread_index() -> usize {
    block_x() as usize * block_dim_x() as usize + thread_x() as usize
}

/// Threads in a one-dimensional grid: the step of a grid-stride loop.
#[inline(always)]
pub fn grid_thread_count() -> usize {
    grid_dim_x() as usize * block_dim_x() as usize
}

/// Block-wide barrier (`bar.sync 0`): every thread of the block must reach it.
#[inline(always)]
pub fn barrier() {
    thread::sync_threads();
}

/// The 32-bit shared-window address of a pointer into this block's shared memory, as
/// `mbarrier`, `cp.async.bulk` and `mapa` operands want it.
#[inline(always)]
pub fn shared_window_address<T>(pointer: *const T) -> u32 {
    // SAFETY: converts an address; reads and writes nothing. The shared window is 32-bit.
    unsafe { cvta_generic_to_shared_offset(pointer as *const u8) as u32 }
}

// ---------------------------------------------------------------------------------------------
// Math: the default backend's approximate instructions, without `.ftz`
// ---------------------------------------------------------------------------------------------

/// `e^x` through `ex2.approx.f32` of `x · log2 e`; `exp(-inf) = 0`, subnormals kept.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    float::ex2_approx_f32(x * core::f32::consts::LOG2_E)
}

/// `1/sqrt(x)` through `rsqrt.approx.f32`; `rsqrt(+inf) = 0`, `rsqrt(0) = +inf`.
#[inline(always)]
pub fn rsqrt(x: f32) -> f32 {
    float::rsqrt_approx_f32(x)
}

/// `e^(max - new_max)`, and 0 where `max` is `-inf` (where `e^(-inf - -inf)` would be NaN):
/// what turns a sum of exponentials relative to `max` into one relative to `new_max`.
#[inline(always)]
pub fn rescale_factor(max: f32, new_max: f32) -> f32 {
    if max == f32::NEG_INFINITY { 0.0 } else { exp(max - new_max) }
}

// ---------------------------------------------------------------------------------------------
// Strided loops
// ---------------------------------------------------------------------------------------------

/// Visits `first, first + step, …` below `end`, in that order: `load(i)` for four indices at a
/// time, then `consume(i, loaded)` for each; the tail one at a time. `step` must be non-zero.
///
/// The loads of a group are independent, so four are in flight per thread instead of one; the
/// visiting order, and so any sum a thread keeps, is that of a plain loop.
#[inline(always)]
pub fn strided<T: Copy>(
    first: usize,
    end: usize,
    step: usize,
    load: impl Fn(usize) -> T,
    mut consume: impl FnMut(usize, T),
) {
    let mut i = first;
    while i + (IN_FLIGHT - 1) * step < end {
        let (i1, i2, i3) = (i + step, i + 2 * step, i + 3 * step);
        let (v0, v1, v2, v3) = (load(i), load(i1), load(i2), load(i3));
        consume(i, v0);
        consume(i1, v1);
        consume(i2, v2);
        consume(i3, v3);
        i += IN_FLIGHT * step;
    }
    while i < end {
        consume(i, load(i));
        i += step;
    }
}

// ---------------------------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------------------------

/// Sum over the 32 lanes of a warp by butterfly shuffles (xor 16, 8, 4, 2, 1): every lane ends
/// with the same bits. All 32 lanes must take part.
#[inline(always)]
pub fn warp_sum(mut value: f32) -> f32 {
    let mut lane_mask = WARP_SIZE / 2;
    while lane_mask > 0 {
        value += warp::shuffle_xor_f32(value, lane_mask);
        lane_mask /= 2;
    }
    value
}

/// Maximum over the 32 lanes of a warp (`f32::max`: a NaN loses to a number); as [`warp_sum`].
#[inline(always)]
pub fn warp_max(mut value: f32) -> f32 {
    let mut lane_mask = WARP_SIZE / 2;
    while lane_mask > 0 {
        value = value.max(warp::shuffle_xor_f32(value, lane_mask));
        lane_mask /= 2;
    }
    value
}

/// Sum over every thread of the block; every thread receives the same bits.
///
/// Contract: a one-dimensional block of a multiple of 32 threads (at most 1024), reached by
/// every thread in uniform control flow (it holds two barriers); `scratch` is
/// [`BLOCK_REDUCE_SCRATCH_FLOATS`] floats of shared memory nothing else uses during the call.
#[inline(always)]
pub fn block_sum(value: f32, scratch: *mut f32) -> f32 {
    block_reduce::<false>(value, scratch)
}

/// Maximum over every thread of the block; as [`block_sum`].
#[inline(always)]
pub fn block_max(value: f32, scratch: *mut f32) -> f32 {
    block_reduce::<true>(value, scratch)
}

#[inline(always)]
fn warp_reduce<const MAX: bool>(value: f32) -> f32 {
    if MAX { warp_max(value) } else { warp_sum(value) }
}

/// One partial per warp through `scratch`, then a butterfly over the partials in every warp.
#[inline(always)]
fn block_reduce<const MAX: bool>(value: f32, scratch: *mut f32) -> f32 {
    let identity = if MAX { f32::NEG_INFINITY } else { 0.0 };
    let warp_total = warp_reduce::<MAX>(value);
    let warps = block_dim_x() / WARP_SIZE;
    let (lane, warp) = (thread_x() % WARP_SIZE, thread_x() / WARP_SIZE);
    // SAFETY: the contract gives 32 scratch floats; warp and lane indices are below 32.
    unsafe {
        if lane == 0 {
            *scratch.add(warp as usize) = warp_total;
        }
        barrier();
        let partial = if lane < warps { *scratch.add(lane as usize) } else { identity };
        let total = warp_reduce::<MAX>(partial);
        // Every warp has read the partials before anyone may write the scratch again.
        barrier();
        total
    }
}

// ---------------------------------------------------------------------------------------------
// Clusters: row segments and the exchange of per-block results
// ---------------------------------------------------------------------------------------------

/// The cluster this block belongs to in a one-dimensional grid of clusters, and the number of
/// clusters: `(blockIdx.x, gridDim.x)` in a launch without clusters.
#[inline(always)]
pub fn cluster_index_and_count() -> (usize, usize) {
    (cluster_idx() as usize, num_clusters() as usize)
}

/// This block's columns of a row of `cols`: `cols` split in `cluster_size()` segments of a
/// multiple of 4 columns, the last one shorter (or empty). Returns `(start, len)`; the whole
/// row in a launch without clusters.
#[inline(always)]
pub fn row_segment(cols: usize) -> (usize, usize) {
    let blocks = (cluster_size() as usize).max(1);
    // Rounded up to a multiple of 4 by hand: cuda-oxide keeps `next_multiple_of`'s overflow
    // check (and its trap) even with overflow checks off.
    let segment = cols.div_ceil(blocks).wrapping_add(3) & !3;
    let start = (block_rank() as usize * segment).min(cols);
    (start, segment.min(cols - start))
}

/// Combines one value per block (or `SLOT` values) across the blocks of a cluster with one
/// cluster barrier per reduction: each block *pushes* its values into its own slot of every
/// block's shared memory (`mapa` + `st.shared::cluster`), the barrier publishes the stores, and
/// each block combines its local slots with one warp butterfly, in rank order, so that every
/// thread of the cluster gets the same bits. The slots are `2 · SLOT · 16` floats of shared
/// memory at the same offset in every block, in two sets that consecutive reductions
/// alternate, so that no block overwrites a set another may still read.
///
/// A block may store into another's shared memory only once that block is running: the
/// exchange arrives (relaxed, without blocking) at a cluster barrier when it is made, and the
/// first reduction waits for that barrier before its stores; [`Self::finish`] waits if no
/// reduction did. Without clusters (one block) reductions return their input and touch
/// nothing.
///
/// The slots are held by their shared-window address, not a pointer, and reached through
/// inline PTX: a `mapa` result is a `shared::cluster` address, which cuda-oxide's
/// `map_shared_rank` hands back as an `addrspace(3)` (CTA-shared) pointer that must not be
/// dereferenced.
///
/// Contract: every thread of every block of the cluster makes the same sequence of calls, in
/// uniform control flow, and then calls [`Self::finish`]; at most [`MAX_CLUSTER_BLOCKS`]
/// blocks per cluster; at least 32 threads per block.
pub struct ClusterExchange<const SLOT: usize> {
    slots: u32,
    blocks: u32,
    set: u32,
    start_pending: bool,
}

impl<const SLOT: usize> ClusterExchange<SLOT> {
    /// Made by every thread of the cluster; `slots` points to the exchange's floats in this
    /// block's shared memory (16-byte aligned).
    #[inline(always)]
    pub fn new(slots: *mut f32) -> Self {
        let blocks = cluster_size();
        let start_pending = blocks > 1;
        if start_pending {
            // SAFETY: every thread of the cluster arrives once here and waits once later.
            unsafe { barrier_cluster_arrive_relaxed_aligned() };
        }
        ClusterExchange { slots: shared_window_address(slots), blocks, set: 0, start_pending }
    }

    /// Waits at the start barrier if no reduction did, so that every arrive has its wait.
    #[inline(always)]
    pub fn finish(self) {
        if self.start_pending {
            // SAFETY: pairs the arrive of `new`.
            unsafe { barrier_cluster_wait_aligned() };
        }
    }

    /// This block's `values` into slot `rank` of the next set of every block, then one cluster
    /// barrier. Returns the shared-window address of that set in this block: slot `r <
    /// blocks` holds block `r`'s values.
    #[inline(always)]
    fn publish(&mut self, values: [f32; SLOT]) -> u32 {
        if self.start_pending {
            // SAFETY: pairs the arrive of `new`; every block has started once it returns.
            unsafe { barrier_cluster_wait_aligned() };
            self.start_pending = false;
        }
        let set = self.slots + 4 * self.set * (SLOT as u32) * MAX_CLUSTER_BLOCKS;
        self.set ^= 1;
        let target = thread_x();
        if target < self.blocks {
            let slot = set + 4 * (SLOT as u32) * block_rank();
            let mut k = 0;
            while k < SLOT {
                let value = values[k];
                // SAFETY: the contract gives every block both sets at the same offset; block
                // `target` is running (start barrier) and has not passed the barrier below.
                unsafe {
                    ptx_asm!(
                        "{ .reg .u32 %%remote; mapa.shared::cluster.u32 %%remote, %0, %1; st.shared::cluster.f32 [%%remote], %2; }",
                        in("r") slot + 4 * k as u32,
                        in("r") target,
                        in("f") value,
                        clobber("memory"),
                    );
                }
                k += 1;
            }
        }
        // SAFETY: the contract keeps every thread of the cluster on this path. The arrive
        // releases the remote stores, the wait acquires the others'.
        unsafe {
            barrier_cluster_arrive_aligned();
            barrier_cluster_wait_aligned();
        }
        set
    }

    /// Float `k` of slot `rank` of a published set, or `identity` past the cluster's blocks.
    #[inline(always)]
    fn read_slot(&self, set: u32, rank: u32, k: usize, identity: f32) -> f32 {
        if rank >= self.blocks {
            return identity;
        }
        let value: f32;
        // SAFETY: a local shared load of a slot written before `publish`'s barrier.
        unsafe {
            ptx_asm!(
                "ld.shared::cta.f32 %0, [%1];",
                out("=f") value,
                in("r") set + 4 * ((SLOT as u32) * rank + k as u32),
            );
        }
        value
    }
}

impl ClusterExchange<1> {
    /// The sum over the cluster's blocks of each block's `block_total` (the same value in
    /// every thread of a block), added in rank order by one warp butterfly.
    #[inline(always)]
    pub fn sum(&mut self, block_total: f32) -> f32 {
        if self.blocks == 1 {
            return block_total;
        }
        let set = self.publish([block_total]);
        warp_sum(self.read_slot(set, thread_x() % WARP_SIZE, 0, 0.0))
    }
}

impl ClusterExchange<2> {
    /// Softmax's two reductions in one barrier: the maximum of the blocks' `block_max`, and
    /// `Σ_b block_sum_b · e^(block_max_b - max)`, the blocks' sums of exponentials (each
    /// relative to its own maximum) made relative to the row's. A block whose maximum is
    /// `-inf` adds `block_sum · 0`.
    #[inline(always)]
    pub fn max_and_sum(&mut self, block_max: f32, block_sum: f32) -> (f32, f32) {
        if self.blocks == 1 {
            return (block_max, block_sum);
        }
        let set = self.publish([block_max, block_sum]);
        let lane = thread_x() % WARP_SIZE;
        let max = self.read_slot(set, lane, 0, f32::NEG_INFINITY);
        let sum = self.read_slot(set, lane, 1, 0.0);
        let row_max = warp_max(max);
        (row_max, warp_sum(sum * rescale_factor(max, row_max)))
    }
}

// ---------------------------------------------------------------------------------------------
// Programmatic dependent launch
// ---------------------------------------------------------------------------------------------

/// Waits until the grid this one depends on (the previous kernel in the stream, under
/// programmatic dependent launch) has completed and its writes are visible; a no-op in an
/// ordinary launch. Call it before touching memory another kernel may touch.
#[inline(always)]
pub fn wait_for_prior_grid() {
    // SAFETY: `griddepcontrol.wait` only blocks; the memory clobber keeps accesses below it.
    unsafe { ptx_asm!("griddepcontrol.wait;", clobber("memory")) };
}

/// Lets the next kernel in the stream launch now (under programmatic dependent launch); it
/// still waits for this grid's end at its own [`wait_for_prior_grid`].
#[inline(always)]
pub fn allow_dependent_launch() {
    // SAFETY: a scheduling hint with no memory effect.
    unsafe { ptx_asm!("griddepcontrol.launch_dependents;") };
}
