//! A warp-specialised producer/consumer pipeline on mbarriers and bulk async copies (sm_90).
//!
//! The ring of stages lives in dynamic shared memory with two mbarriers per stage after it:
//! *full[s]* completes when stage `s` holds its tile (the producer arrives once, announcing the
//! bytes it expects, and the bulk copy's completion delivers them), *empty[s]* when every
//! consumer has released the stage. Producer, per tile: wait *empty* → arrive with
//! `expect_tx` on *full* → start the copy → next stage; after its loop it waits for every stage
//! to be released once more, so that no copy or read is in flight when the block exits.
//! Consumer, per tile: wait *full* → read → arrive on *empty* → next stage. The phase parity
//! a thread waits for flips each time its stage index wraps.
//!
//! The mbarrier operations are cuda-device's; the non-tensor bulk copy
//! (`cp.async.bulk.shared::cluster.global`) has no cuda-device function, so it is inline PTX
//! on shared-window addresses.

use cuda_device::barrier::{
    Barrier, fence_proxy_async_shared_cta, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init,
    mbarrier_try_wait_parity,
};
use cuda_device::{DynamicSharedArray, kernel, ptx_asm};

use crate::device::{WARP_SIZE, barrier, block_sum, block_x, grid_dim_x, shared_window_address, thread_x};

/// Stages in the shared-memory ring.
const STAGES: u32 = 4;
/// Floats per tile; one bulk copy moves one tile.
pub const TILE_FLOATS: u32 = 1024;
const TILE_BYTES: u32 = TILE_FLOATS * 4;
/// Consumer threads: warps 1..=4. Warp 0's lane 0 is the producer.
const CONSUMERS: u32 = 128;
/// Byte offsets in dynamic shared memory: the ring, then full[0..4] and empty[0..4] (8 bytes
/// each), then the block reduction's 32 floats.
const BARRIERS_OFFSET: usize = (STAGES * TILE_BYTES) as usize;
const SCRATCH_OFFSET: usize = BARRIERS_OFFSET + 2 * 8 * STAGES as usize;

/// A thread's place in the ring: the stage index and the parity of the phase it waits for.
#[derive(Clone, Copy)]
struct RingState {
    stage: u32,
    phase: u32,
}

impl RingState {
    #[inline(always)]
    fn advance(&mut self) {
        self.stage += 1;
        if self.stage == STAGES {
            self.stage = 0;
            self.phase ^= 1;
        }
    }
}

/// Spins until the phase of parity `phase` of the mbarrier at `bar` has completed.
#[inline(always)]
fn wait_parity(bar: *const Barrier, phase: u32) {
    // SAFETY: `bar` is an initialised mbarrier in shared memory.
    while !unsafe { mbarrier_try_wait_parity(bar, phase) } {}
}

/// Starts a bulk async copy of `bytes` from global `source` to shared-window address
/// `destination`, completing `bytes` transactions on the mbarrier at window address `bar`.
/// Both addresses 16-byte aligned, `bytes` a multiple of 16, the barrier told to expect them.
#[inline(always)]
fn bulk_copy_global_to_shared(destination: u32, source: *const f32, bytes: u32, bar: u32) {
    // SAFETY: the contract above; the copy engine writes only `destination..+bytes`.
    unsafe {
        ptx_asm!(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];",
            in("r") destination,
            in("l") source as u64,
            in("r") bytes,
            in("r") bar,
            clobber("memory"),
        );
    }
}

/// Sums `tiles` tiles of 1024 floats into one partial sum per block: block `b` takes tiles
/// `b, b + gridDim.x, …`, and `partials[b]` is their sum (the host adds the partials): the
/// default backend's `pipeline_sum`.
///
/// One thread (lane 0 of warp 0) produces: it streams each tile from global memory into a
/// 4-stage shared-memory ring with `cp.async.bulk`, completing on the stage's *full* mbarrier.
/// Warps 1–4 (128 threads) consume: each waits for the stage, adds its 8 floats of the tile
/// (stride 128, so no bank conflicts), and releases the stage. The block then adds the 160
/// threads' partials (warp butterflies, one partial per warp).
///
/// Special values: a block's partial is NaN when its tiles hold a NaN or both infinities, ±inf
/// when they hold one or overflow.
///
/// Launch: one-dimensional, `blockDim.x = 160`; dynamic shared memory
/// `4 * 4096 + 64 + 128 = 16 576` bytes. PTX: `.entry pipeline_sum(.param .u64 input,
/// .param .u32 tiles, .param .u64 partials)`.
///
/// # Safety
/// `input` points to `tiles * 1024` floats of device memory, 16-byte aligned; `partials` to
/// `gridDim.x` floats.
#[kernel]
#[kernel_verifier::unverified(
    reason = "its pipeline is cuda-device's raw mbarriers (init, arrive, expect-tx, try-wait on parities it keeps itself) with an inline-PTX bulk copy and barriers placed by `DynamicSharedArray::offset`: the model knows the mbarrier protocol only through the default device API's `Pipeline`, so none of it is modelled"
)]
pub unsafe fn pipeline_sum(input: *const f32, tiles: u32, partials: *mut f32) {
    let ring = DynamicSharedArray::<f32>::get();
    let full = DynamicSharedArray::<Barrier>::offset(BARRIERS_OFFSET);
    let empty = full.wrapping_add(STAGES as usize);
    let tid = thread_x();
    if tid == 0 {
        let mut s = 0;
        while s < STAGES as usize {
            // SAFETY: 8 bytes of shared memory reserved for each barrier; one thread
            // initialises them before the block barrier below.
            unsafe {
                mbarrier_init(full.wrapping_add(s), 1);
                mbarrier_init(empty.wrapping_add(s), CONSUMERS);
            }
            s += 1;
        }
        // SAFETY: a fence: makes the initialisation visible to the copy engine.
        unsafe { fence_proxy_async_shared_cta() };
    }
    barrier();

    let (first_tile, tile_step) = (block_x(), grid_dim_x());
    let mut partial = 0.0f32;
    if tid == 0 {
        // Waiting on parity 1 of a fresh barrier returns at once: every stage is filled once
        // before the producer waits.
        let mut state = RingState { stage: 0, phase: 1 };
        let ring_window = shared_window_address(ring);
        let mut tile = first_tile;
        while tile < tiles {
            let stage = state.stage as usize;
            wait_parity(empty.wrapping_add(stage), state.phase);
            // SAFETY: an initialised barrier; the copy below delivers the announced bytes.
            let _ = unsafe { mbarrier_arrive_expect_tx(full.wrapping_add(stage), 1, TILE_BYTES) };
            let source = input.wrapping_add(tile as usize * TILE_FLOATS as usize);
            bulk_copy_global_to_shared(
                ring_window + state.stage * TILE_BYTES,
                source,
                TILE_BYTES,
                shared_window_address(full.wrapping_add(stage)),
            );
            state.advance();
            tile += tile_step;
        }
        // Every stage released once more: no copy or read in flight when the block exits.
        let mut s = 0;
        while s < STAGES {
            wait_parity(empty.wrapping_add(state.stage as usize), state.phase);
            state.advance();
            s += 1;
        }
    } else if tid >= WARP_SIZE {
        let consumer = (tid - WARP_SIZE) as usize;
        let mut state = RingState { stage: 0, phase: 0 };
        let mut tile = first_tile;
        while tile < tiles {
            let stage = state.stage as usize;
            wait_parity(full.wrapping_add(stage), state.phase);
            let tile_floats = ring.wrapping_add(stage * TILE_FLOATS as usize);
            let mut k = consumer;
            while k < TILE_FLOATS as usize {
                // SAFETY: `k < TILE_FLOATS` within a stage the *full* barrier says is loaded.
                partial += unsafe { *tile_floats.add(k) };
                k += CONSUMERS as usize;
            }
            // SAFETY: an initialised barrier; this thread is one of its `CONSUMERS` arrivals.
            let _ = unsafe { mbarrier_arrive(empty.wrapping_add(stage)) };
            state.advance();
            tile += tile_step;
        }
    }

    let scratch = DynamicSharedArray::<f32>::offset(SCRATCH_OFFSET);
    let total = block_sum(partial, scratch);
    if tid == 0 {
        // SAFETY: `partials` holds `gridDim.x` floats.
        unsafe { *partials.add(block_x() as usize) = total };
    }
}
