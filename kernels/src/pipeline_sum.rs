//! A warp-specialised producer/consumer pipeline on mbarriers and bulk async copies (sm_90).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::reduce::{BLOCK_REDUCE_SCRATCH_FLOATS, block_sum};
use crate::device::{
    WARP_SIZE, barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

/// Stages in the shared-memory ring.
const STAGES: u32 = 4;
/// Floats per tile; one bulk copy moves one tile.
pub const TILE_FLOATS: u32 = 1024;
const TILE_BYTES: u32 = TILE_FLOATS * 4;
/// Consumer threads: warps 1..=4. Warp 0's lane 0 is the producer.
const CONSUMERS: u32 = 128;
const BARRIERS_OFFSET: u32 = STAGES * TILE_BYTES;
const SCRATCH_OFFSET: u32 = BARRIERS_OFFSET + pipeline_barrier_bytes(STAGES);
/// The dynamic shared memory a launch gives: the ring, its barriers and the reduction's scratch.
const SHARED_BYTES: u32 = SCRATCH_OFFSET + BLOCK_REDUCE_SCRATCH_FLOATS as u32 * 4;

/// Sums `tiles` tiles of 1024 floats into one partial sum per block: block `b` takes tiles
/// `b, b + gridDim.x, …`, and `partials[b]` is their sum. The host adds the partials.
///
/// One thread (lane 0 of warp 0) produces: it streams each tile from global memory into a
/// 4-stage shared-memory ring with `cp.async.bulk`, completing on the stage's *full* mbarrier.
/// Warps 1–4 (128 threads) consume: each waits for the stage, adds its 8 floats of the tile
/// (stride 128, so no bank conflicts), and releases the stage to the producer. See
/// [`crate::device::pipeline`] for the protocol.
///
/// Special values: as `block_reduce_sum`, a block's partial is NaN when
/// its tiles hold a NaN or both infinities, ±inf when they hold one or overflow.
///
/// Launch: one-dimensional, `blockDim.x = 160`; dynamic shared memory
/// `4 * 4096 + 64 + 128 = 16 576` bytes.
///
/// # Safety
/// `input` points to `tiles * 1024` floats of device memory, 16-byte aligned; `partials` to
/// `gridDim.x` floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pipeline_sum(input: *const f32, tiles: u32, partials: *mut f32) {
    block_threads(WARP_SIZE + CONSUMERS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let barriers = smem + BARRIERS_OFFSET;
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(barriers, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(barriers)
    };
    barrier();

    let first_tile = block_idx_x();
    let tile_step = grid_dim_x();
    let mut partial = 0.0f32;
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first_tile;
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            let destination = smem + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += tile_step;
        }
        pipeline.producer_tail(state);
    } else if tid >= WARP_SIZE {
        let consumer = (tid - WARP_SIZE) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = first_tile;
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = ring.wrapping_add((state.index() * TILE_FLOATS) as usize);
            let mut k = consumer;
            while k < TILE_FLOATS as usize {
                // SAFETY: `k < TILE_FLOATS` within a stage the *full* barrier says is loaded.
                partial += unsafe { *stage.add(k) };
                k += CONSUMERS as usize;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += tile_step;
        }
    }

    let scratch = dynamic_shared_base::<u8>().wrapping_add(SCRATCH_OFFSET as usize) as *mut f32;
    let total = block_sum(partial, scratch);
    if tid == 0 {
        // SAFETY: `partials` holds `gridDim.x` floats.
        unsafe { *partials.add(block_idx_x() as usize) = total };
    }
}
