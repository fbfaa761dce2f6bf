//! Roles written as helper functions, some kept out of line.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

const STAGES: u32 = 4;
type Ring = Pipeline<STAGES>;
type Slot = PipelineState<STAGES>;

/// Initialises the ring behind the stages and returns it with the stages' window address.
#[inline(always)]
unsafe fn open_ring() -> (u32, Ring) {
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Ring::init(barriers, CONSUMERS);
    }
    barrier();
    (window, Ring::attach(barriers))
}

/// The producer of every kernel here: this block's tiles, one bulk copy each.
#[inline(never)]
unsafe fn produce_all(ring: &Ring, window: u32, input: *const f32, tiles: u32) {
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

#[inline(never)]
unsafe fn column_of(stage: *const f32, column: usize) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += *stage.add(row * COLUMNS as usize + column);
    }
    sum
}

#[inline(never)]
unsafe fn consume_all(ring: &Ring, stages: *const f32, tiles: u32, column: u32) -> f32 {
    let mut slot = Slot::new();
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.consumer_wait(&slot);
        let stage = stages.add(slot.index() as usize * TILE_FLOATS);
        total += column_of(stage, column as usize);
        ring.consumer_release(&slot);
        slot.advance();
        tile += grid_dim_x();
    }
    total
}

/// Correct: producer and consumer loops in out-of-line helpers, the column read in a third.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn helpers_never_inline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open_ring();
    if thread_idx_x() == 0 {
        produce_all(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id();
        let total = consume_all(&ring, dynamic_shared_base(), tiles, column);
        write_column(out, column, total);
    }
}

/// Takes one tile off the ring for this thread's column.
#[inline(always)]
unsafe fn take_tile(ring: &Ring, mut slot: Slot, stages: *const f32, column: usize) -> f32 {
    ring.consumer_wait(&slot);
    let stage = stages.add(slot.index() as usize * TILE_FLOATS);
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += *stage.add(row * COLUMNS as usize + column);
    }
    ring.consumer_release(&slot);
    slot.advance();
    sum
}

/// Broken: `take_tile` gets the consumer state by value, so its `advance` moves a copy; the
/// caller waits on stage 0, phase 0 every time.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open_ring();
    if thread_idx_x() == 0 {
        produce_all(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id();
        let stages: *const f32 = dynamic_shared_base();
        let slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            total += take_tile(&ring, slot, stages, column as usize);
            tile += grid_dim_x();
        }
        write_column(out, column, total);
    }
}

/// Broken: the first row of each tile is loaded ahead, before the stage's wait, to hide the
/// shared-memory latency; the copy may not have landed yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn prefetch_head_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open_ring();
    if thread_idx_x() == 0 {
        produce_all(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let stages: *const f32 = dynamic_shared_base();
        let mut slot = Slot::new();
        let mut stage = stages.add(slot.index() as usize * TILE_FLOATS);
        let mut head = *stage.add(column);
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let mut sum = head;
            for row in 1..ROWS {
                sum += *stage.add(row * COLUMNS as usize + column);
            }
            total += sum;
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
            stage = stages.add(slot.index() as usize * TILE_FLOATS);
            if tile < tiles {
                head = *stage.add(column);
            }
        }
        write_column(out, column as u32, total);
    }
}

/// Column total shared with the integer (histogram) variant of this kernel.
#[inline(never)]
unsafe fn column_total(words: *const u32, column: usize) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += *words.add(row * COLUMNS as usize + column) as f32;
    }
    sum
}

/// Broken: the stage (f32) reaches `column_total` as `*const u32`: the bits are summed as
/// integers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn u32_column_helper(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open_ring();
    if thread_idx_x() == 0 {
        produce_all(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id();
        let stages: *const f32 = dynamic_shared_base();
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let stage = stages.add(slot.index() as usize * TILE_FLOATS);
            total += column_total(stage.cast(), column as usize);
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column, total);
    }
}
