//! Where the stages and the barriers sit in shared memory, and how a stage is addressed.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

const STAGES: u32 = 4;
type Ring = Pipeline<STAGES>;
type Slot = PipelineState<STAGES>;

/// Correct: barriers at the start of shared memory, the ring in the top 4 KiB (it ends exactly
/// at the 8192 bytes of the launch).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn ring_from_top(input: *const f32, tiles: u32, out: *mut f32) {
    const SHARED_BYTES: u32 = 8192;
    const RING_OFFSET: u32 = SHARED_BYTES - STAGES * TILE_BYTES;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Ring::init(window, CONSUMERS);
    }
    barrier();
    let ring = Ring::attach(window);
    if tid == 0 {
        let mut slot = Slot::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_OFFSET + slot.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                ring.producer_barrier(&slot),
            );
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let stages = dynamic_shared_base::<f32>().add(RING_OFFSET as usize / 4);
        let column = lane_id() as usize;
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
        write_column(out, column as u32, total);
    }
}

/// Correct: both sides look their stage up in tables built once (window addresses for the
/// copies, generic pointers for the reads), indexed by the state's stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn stage_pointer_table(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let ring = if tid == 0 { Ring::init(barriers, CONSUMERS) } else { Ring::attach(barriers) };
    barrier();
    if tid == 0 {
        let destinations: [u32; STAGES as usize] = core::array::from_fn(|s| window + s as u32 * TILE_BYTES);
        let mut slot = Slot::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            bulk_copy_global_to_shared(
                destinations[slot.index() as usize],
                tile_source(input, tile),
                TILE_BYTES,
                ring.producer_barrier(&slot),
            );
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let base: *const f32 = dynamic_shared_base();
        let stages: [*const f32; STAGES as usize] = core::array::from_fn(|s| base.wrapping_add(s * TILE_FLOATS));
        let column = lane_id() as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let stage = stages[slot.index() as usize];
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Standard consumers over stages that start at `stages`, `stride` floats apart.
#[inline(always)]
unsafe fn consume(ring: &Ring, stages: *const f32, stride: usize, tiles: u32, column: usize) -> f32 {
    let mut slot = Slot::new();
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.consumer_wait(&slot);
        let stage = stages.add(slot.index() as usize * stride);
        for row in 0..ROWS {
            total += *stage.add(row * COLUMNS as usize + column);
        }
        ring.consumer_release(&slot);
        slot.advance();
        tile += grid_dim_x();
    }
    total
}

/// Standard producer into stages that start at window address `ring_window`, `stride` bytes
/// apart.
#[inline(always)]
unsafe fn produce(ring: &Ring, ring_window: u32, stride: u32, input: *const f32, tiles: u32) {
    let mut slot = Slot::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.producer_acquire(&slot);
        ring.producer_expect_tx(&slot, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring_window + slot.index() * stride,
            tile_source(input, tile),
            TILE_BYTES,
            ring.producer_barrier(&slot),
        );
        slot.advance();
        tile += grid_dim_x();
    }
    ring.producer_tail(slot);
}

/// Broken: the stage stride is written in floats (256) and used for both the copies' byte
/// addresses and the reads' float pointers: the copies land 256 bytes apart and overlap, the
/// reads look 1 KiB apart.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn stride_in_floats(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGE_STRIDE: u32 = TILE_FLOATS as u32;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Ring::init(barriers, CONSUMERS);
    }
    barrier();
    let ring = Ring::attach(barriers);
    if thread_idx_x() == 0 {
        produce(&ring, window, STAGE_STRIDE, input, tiles);
    } else if warp_id() == 1 {
        let total = consume(&ring, dynamic_shared_base(), STAGE_STRIDE as usize, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Broken: barriers first, ring after them, but the barrier area is sized as one full and one
/// empty barrier (not one pair per stage): stage 0 starts on full[2], and the first copy
/// overwrites full[2], full[3] and every empty barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn barrier_bytes_stale(input: *const f32, tiles: u32, out: *mut f32) {
    /// A full and an empty barrier, 8 bytes each.
    const BARRIER_BYTES: u32 = 2 * 8;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    if thread_idx_x() == 0 {
        Ring::init(window, CONSUMERS);
    }
    barrier();
    let ring = Ring::attach(window);
    if thread_idx_x() == 0 {
        produce(&ring, window + BARRIER_BYTES, TILE_BYTES, input, tiles);
    } else if warp_id() == 1 {
        let stages = dynamic_shared_base::<u8>().add(BARRIER_BYTES as usize).cast::<f32>();
        let total = consume(&ring, stages, TILE_FLOATS, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Broken: the consumer warp's lane 0 initialises the ring and everyone proceeds with no block
/// barrier (the init's proxy fence orders the copy engine, not the other threads): the producer
/// may arrive on a barrier before its init, which then wipes the arrival.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn init_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let ring = if tid == WARP_SIZE { Ring::init(barriers, CONSUMERS) } else { Ring::attach(barriers) };
    fence_proxy_async_shared();
    if tid == 0 {
        produce(&ring, window, TILE_BYTES, input, tiles);
    } else if warp_id() == 1 {
        let total = consume(&ring, dynamic_shared_base(), TILE_FLOATS, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Broken: rows counted from 1 as in the layout notes, `1..=ROWS`, without the `- 1`: each
/// column skips row 0 and reads one row past the stage (the next stage, or the barriers).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn rows_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let ring = if tid == 0 { Ring::init(barriers, CONSUMERS) } else { Ring::attach(barriers) };
    barrier();
    if tid == 0 {
        produce(&ring, window, TILE_BYTES, input, tiles);
    } else if warp_id() == 1 {
        let stages: *const f32 = dynamic_shared_base();
        let column = lane_id() as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let stage = stages.add(slot.index() as usize * TILE_FLOATS);
            for row in 1..=ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Broken: the copy's destination comes from a `match` on the stage whose last arm was copied
/// from the one before: stage 3's tile lands in stage 2.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn match_stage_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let ring = if tid == 0 { Ring::init(barriers, CONSUMERS) } else { Ring::attach(barriers) };
    barrier();
    if tid == 0 {
        let mut slot = Slot::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            let offset = match slot.index() {
                0 => 0,
                1 => TILE_BYTES,
                2 => 2 * TILE_BYTES,
                _ => 2 * TILE_BYTES,
            };
            bulk_copy_global_to_shared(window + offset, tile_source(input, tile), TILE_BYTES, ring.producer_barrier(&slot));
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let total = consume(&ring, dynamic_shared_base(), TILE_FLOATS, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Stage `stage` counted down from the end of the ring.
#[inline(always)]
unsafe fn stage_from_end(ring_end: *const f32, stage: u32) -> *const f32 {
    ring_end.sub((stage as usize + 1) * TILE_FLOATS)
}

/// Broken: the consumers address stages from the end of the ring (the layout of the other
/// kernel that keeps its barriers below the ring), the producer from the start: stage `s` is
/// read from where stage `3 - s` is copied.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn mirrored_consumer_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let ring = if tid == 0 { Ring::init(barriers, CONSUMERS) } else { Ring::attach(barriers) };
    barrier();
    if tid == 0 {
        produce(&ring, window, TILE_BYTES, input, tiles);
    } else if warp_id() == 1 {
        let ring_end = dynamic_shared_base::<f32>().add(STAGES as usize * TILE_FLOATS) as *const f32;
        let column = lane_id() as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let stage = stage_from_end(ring_end, slot.index());
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}
