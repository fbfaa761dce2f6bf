//! Per-tile steps written as closures over the ring.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

/// Correct: three stages; the producer's and the consumers' per-tile steps are closures that
/// take the state by `&mut`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn closure_steps(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let stages: *const f32 = dynamic_shared_base();
    let tid = thread_idx_x();
    let ring = if tid == 0 {
        Pipeline::<STAGES>::init(barriers, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(barriers)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let fill = |slot: &mut PipelineState<STAGES>, tile: u32| {
            ring.producer_acquire(slot);
            ring.producer_expect_tx(slot, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + slot.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                ring.producer_barrier(slot),
            );
            slot.advance();
        };
        let mut slot = PipelineState::producer_start();
        let mut tile = first;
        while tile < tiles {
            fill(&mut slot, tile);
            tile += step;
        }
        ring.producer_tail(slot);
    } else if tid >= WARP_SIZE {
        let column = (tid - WARP_SIZE) as usize;
        let drain = |slot: &mut PipelineState<STAGES>| -> f32 {
            ring.consumer_wait(slot);
            let stage = stages.add(slot.index() as usize * TILE_FLOATS);
            let sum = (0..ROWS).fold(0.0f32, |acc, row| acc + *stage.add(row * COLUMNS as usize + column));
            ring.consumer_release(slot);
            slot.advance();
            sum
        };
        let mut slot = PipelineState::new();
        let mut total = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            total += drain(&mut slot);
            tile += step;
        }
        write_column(out, column as u32, total);
    }
}

const STAGES: u32 = 4;

#[inline(always)]
unsafe fn open() -> (u32, Pipeline<STAGES>) {
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, CONSUMERS);
    }
    barrier();
    (window, Pipeline::<STAGES>::attach(barriers))
}

#[inline(always)]
unsafe fn load_tiles(ring: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) {
    let mut slot = PipelineState::<STAGES>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.producer_acquire(&slot);
        ring.producer_expect_tx(&slot, TILE_BYTES);
        let full = ring.producer_barrier(&slot);
        bulk_copy_global_to_shared(window + slot.index() * TILE_BYTES, tile_source(input, tile), TILE_BYTES, full);
        slot.advance();
        tile += grid_dim_x();
    }
    ring.producer_tail(slot);
}

/// Broken: software-pipelined consumer that adds up the previous stage after waiting on the
/// current one, but that previous stage was already released (the producer may be refilling it).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn deferred_column_read(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        load_tiles(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let stages: *const f32 = dynamic_shared_base();
        let column_sum = |stage: *const f32| -> f32 {
            (0..ROWS).map(|row| *stage.add(row * COLUMNS as usize + column)).sum()
        };
        let mut slot = PipelineState::<STAGES>::new();
        let mut pending: Option<*const f32> = None;
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            if let Some(previous) = pending.replace(stages.add(slot.index() as usize * TILE_FLOATS)) {
                total += column_sum(previous);
            }
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        if let Some(last) = pending {
            total += column_sum(last);
        }
        write_column(out, column as u32, total);
    }
}

/// Broken: `drain` (reads the landed stage's column) also hands the stage back, and the loop
/// releases it again: 64 arrivals per phase on an empty barrier counting 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn drain_then_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        load_tiles(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let stages: *const f32 = dynamic_shared_base();
        // Reads this thread's column of a landed stage.
        let drain = |slot: &PipelineState<STAGES>| -> f32 {
            let stage = stages.add(slot.index() as usize * TILE_FLOATS);
            let mut sum = 0.0f32;
            for row in 0..ROWS {
                sum += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(slot);
            sum
        };
        let mut slot = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            total += drain(&slot);
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}
