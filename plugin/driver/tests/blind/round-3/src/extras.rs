//! Clusters (distributed shared memory) and programmatic dependent launch around the ring.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::cluster::{block_rank_in_cluster, cluster_barrier, map_shared_to_block};
use crate::device::dependent::{allow_dependent_launch, wait_for_prior_grid};
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

const STAGES: u32 = 4;
type Ring = Pipeline<STAGES>;
type Slot = PipelineState<STAGES>;

#[inline(always)]
unsafe fn open() -> (u32, Ring) {
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Ring::init(barriers, CONSUMERS);
    }
    barrier();
    (window, Ring::attach(barriers))
}

#[inline(always)]
unsafe fn produce(ring: &Ring, window: u32, input: *const f32, tiles: u32) {
    let mut slot = Slot::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.producer_acquire(&slot);
        ring.producer_expect_tx(&slot, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + slot.index() * TILE_BYTES,
            tile_source(input, tile),
            TILE_BYTES,
            ring.producer_barrier(&slot),
        );
        slot.advance();
        tile += grid_dim_x();
    }
    ring.producer_tail(slot);
}

#[inline(always)]
unsafe fn consume(ring: &Ring, tiles: u32, column: usize) -> f32 {
    let stages: *const f32 = dynamic_shared_base();
    let mut slot = Slot::new();
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.consumer_wait(&slot);
        let stage = stages.add(slot.index() as usize * TILE_FLOATS);
        for row in 0..ROWS {
            total += *stage.add(row * COLUMNS as usize + column);
        }
        ring.consumer_release(&slot);
        slot.advance();
        tile += grid_dim_x();
    }
    total
}

/// Scratch for the consumers' totals, after the barriers.
#[inline(always)]
unsafe fn scratch() -> *mut f32 {
    dynamic_shared_base::<u8>()
        .add((STAGES * TILE_BYTES + pipeline_barrier_bytes(STAGES)) as usize)
        .cast::<f32>()
}

/// Correct: warp 1 publishes its totals into this block's scratch through the cluster window
/// (`mapa` of its own rank), a cluster barrier (a one-block cluster in a plain launch) orders
/// them, and warp 0 stores them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn cluster_own_rank_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    let tid = thread_idx_x();
    let slots = scratch();
    if tid == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let total = consume(&ring, tiles, column);
        *map_shared_to_block(slots.add(column), block_rank_in_cluster()) = total;
    }
    cluster_barrier();
    if warp_id() == 0 {
        write_column(out, lane_id(), *slots.add(lane_id() as usize));
    }
}

/// Broken: as `cluster_own_rank_scratch`, but the rank in the cluster is taken as
/// `block_idx_x() % 2` (clusters of two assumed); the launch has no clusters, so odd blocks map
/// to a rank that does not exist.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn cluster_rank_guess(input: *const f32, tiles: u32, out: *mut f32) {
    const CLUSTER_BLOCKS: u32 = 2;
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    let tid = thread_idx_x();
    let slots = scratch();
    if tid == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let total = consume(&ring, tiles, column);
        *map_shared_to_block(slots.add(column), block_idx_x() % CLUSTER_BLOCKS) = total;
    }
    cluster_barrier();
    if warp_id() == 0 {
        write_column(out, lane_id(), *slots.add(lane_id() as usize));
    }
}

/// Correct: written for programmatic dependent launch: every thread waits for the prior grid
/// before any global access, and lets the next grid launch once its loop is done.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn dependent_launch_ok(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    wait_for_prior_grid();
    let (window, ring) = open();
    let tid = thread_idx_x();
    if tid == 0 {
        produce(&ring, window, input, tiles);
        allow_dependent_launch();
    } else if warp_id() == 1 {
        let column = lane_id();
        let total = consume(&ring, tiles, column as usize);
        allow_dependent_launch();
        write_column(out, column, total);
    }
}
