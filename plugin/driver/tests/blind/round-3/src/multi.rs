//! Two pipelines in one block.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

const S: u32 = 2;
/// Bytes of one ring of two full-tile stages.
const RING_BYTES: u32 = S * TILE_BYTES;

/// Correct: even-numbered tiles of the block go through ring `even`, odd ones through ring
/// `odd` (two stages each); one producer and one consumer warp drive both, each side with a
/// state per ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn even_odd_pipelines(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let even_barriers = window + 2 * RING_BYTES;
    let odd_barriers = even_barriers + pipeline_barrier_bytes(S);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(even_barriers, CONSUMERS);
        Pipeline::<S>::init(odd_barriers, CONSUMERS);
    }
    barrier();
    let even = Pipeline::<S>::attach(even_barriers);
    let odd = Pipeline::<S>::attach(odd_barriers);
    if tid == 0 {
        let mut even_slot = PipelineState::<S>::producer_start();
        let mut odd_slot = PipelineState::<S>::producer_start();
        let mut k = 0u32;
        let mut tile = block_idx_x();
        while tile < tiles {
            if k % 2 == 0 {
                even.producer_acquire(&even_slot);
                even.producer_expect_tx(&even_slot, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + even_slot.index() * TILE_BYTES,
                    tile_source(input, tile),
                    TILE_BYTES,
                    even.producer_barrier(&even_slot),
                );
                even_slot.advance();
            } else {
                odd.producer_acquire(&odd_slot);
                odd.producer_expect_tx(&odd_slot, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_BYTES + odd_slot.index() * TILE_BYTES,
                    tile_source(input, tile),
                    TILE_BYTES,
                    odd.producer_barrier(&odd_slot),
                );
                odd_slot.advance();
            }
            k += 1;
            tile += grid_dim_x();
        }
        even.producer_tail(even_slot);
        odd.producer_tail(odd_slot);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let base: *const f32 = dynamic_shared_base();
        let ring_floats = RING_BYTES as usize / 4;
        let mut even_slot = PipelineState::<S>::new();
        let mut odd_slot = PipelineState::<S>::new();
        let mut total = 0.0f32;
        let mut k = 0u32;
        let mut tile = block_idx_x();
        while tile < tiles {
            if k % 2 == 0 {
                even.consumer_wait(&even_slot);
                let stage = base.add(even_slot.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    total += *stage.add(row * COLUMNS as usize + column);
                }
                even.consumer_release(&even_slot);
                even_slot.advance();
            } else {
                odd.consumer_wait(&odd_slot);
                let stage = base.add(ring_floats + odd_slot.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    total += *stage.add(row * COLUMNS as usize + column);
                }
                odd.consumer_release(&odd_slot);
                odd_slot.advance();
            }
            k += 1;
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Correct: two rings of four half-tile stages; ring `top` carries rows 0..4 of every tile
/// (producer thread 0), ring `bottom` rows 4..8 (producer thread 1); warp 1 reads both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn split_halves_two_pipelines(input: *const f32, tiles: u32, out: *mut f32) {
    const H: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    const HALF_FLOATS: usize = TILE_FLOATS / 2;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let bottom_ring = window + H * HALF;
    let top_barriers = window + 2 * H * HALF;
    let bottom_barriers = top_barriers + pipeline_barrier_bytes(H);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<H>::init(top_barriers, CONSUMERS);
        Pipeline::<H>::init(bottom_barriers, CONSUMERS);
    }
    barrier();
    let top = Pipeline::<H>::attach(top_barriers);
    let bottom = Pipeline::<H>::attach(bottom_barriers);
    if tid == 0 {
        let mut slot = PipelineState::<H>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            top.producer_acquire(&slot);
            top.producer_expect_tx(&slot, HALF);
            bulk_copy_global_to_shared(window + slot.index() * HALF, tile_source(input, tile), HALF, top.producer_barrier(&slot));
            slot.advance();
            tile += grid_dim_x();
        }
        top.producer_tail(slot);
    } else if tid == 1 {
        let mut slot = PipelineState::<H>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            bottom.producer_acquire(&slot);
            bottom.producer_expect_tx(&slot, HALF);
            bulk_copy_global_to_shared(
                bottom_ring + slot.index() * HALF,
                tile_source(input, tile).add(HALF as usize),
                HALF,
                bottom.producer_barrier(&slot),
            );
            slot.advance();
            tile += grid_dim_x();
        }
        bottom.producer_tail(slot);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let top_stages: *const f32 = dynamic_shared_base();
        let bottom_stages = top_stages.add(H as usize * HALF_FLOATS);
        let mut top_slot = PipelineState::<H>::new();
        let mut bottom_slot = PipelineState::<H>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            top.consumer_wait(&top_slot);
            let rows = top_stages.add(top_slot.index() as usize * HALF_FLOATS);
            for row in 0..ROWS / 2 {
                total += *rows.add(row * COLUMNS as usize + column);
            }
            top.consumer_release(&top_slot);
            top_slot.advance();
            bottom.consumer_wait(&bottom_slot);
            let rows = bottom_stages.add(bottom_slot.index() as usize * HALF_FLOATS);
            for row in 0..ROWS / 2 {
                total += *rows.add(row * COLUMNS as usize + column);
            }
            bottom.consumer_release(&bottom_slot);
            bottom_slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Broken: as `even_odd_pipelines`, but the consumers hand stages back through one closure
/// written for the even ring: odd stages are released on the even ring's empty barriers, the
/// odd ring's are never released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn release_on_sibling(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let even_barriers = window + 2 * RING_BYTES;
    let odd_barriers = even_barriers + pipeline_barrier_bytes(S);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(even_barriers, CONSUMERS);
        Pipeline::<S>::init(odd_barriers, CONSUMERS);
    }
    barrier();
    let even = Pipeline::<S>::attach(even_barriers);
    let odd = Pipeline::<S>::attach(odd_barriers);
    if tid == 0 {
        let mut even_slot = PipelineState::<S>::producer_start();
        let mut odd_slot = PipelineState::<S>::producer_start();
        let mut k = 0u32;
        let mut tile = block_idx_x();
        while tile < tiles {
            if k % 2 == 0 {
                even.producer_acquire(&even_slot);
                even.producer_expect_tx(&even_slot, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + even_slot.index() * TILE_BYTES,
                    tile_source(input, tile),
                    TILE_BYTES,
                    even.producer_barrier(&even_slot),
                );
                even_slot.advance();
            } else {
                odd.producer_acquire(&odd_slot);
                odd.producer_expect_tx(&odd_slot, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_BYTES + odd_slot.index() * TILE_BYTES,
                    tile_source(input, tile),
                    TILE_BYTES,
                    odd.producer_barrier(&odd_slot),
                );
                odd_slot.advance();
            }
            k += 1;
            tile += grid_dim_x();
        }
        even.producer_tail(even_slot);
        odd.producer_tail(odd_slot);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let base: *const f32 = dynamic_shared_base();
        let column_sum = |stage: *const f32| -> f32 {
            let mut sum = 0.0f32;
            for row in 0..ROWS {
                sum += *stage.add(row * COLUMNS as usize + column);
            }
            sum
        };
        let hand_back = |slot: &mut PipelineState<S>| {
            even.consumer_release(slot);
            slot.advance();
        };
        let mut even_slot = PipelineState::<S>::new();
        let mut odd_slot = PipelineState::<S>::new();
        let mut total = 0.0f32;
        let mut k = 0u32;
        let mut tile = block_idx_x();
        while tile < tiles {
            if k % 2 == 0 {
                even.consumer_wait(&even_slot);
                total += column_sum(base.add(even_slot.index() as usize * TILE_FLOATS));
                hand_back(&mut even_slot);
            } else {
                odd.consumer_wait(&odd_slot);
                total += column_sum(base.add((RING_BYTES / 4) as usize + odd_slot.index() as usize * TILE_FLOATS));
                hand_back(&mut odd_slot);
            }
            k += 1;
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}
