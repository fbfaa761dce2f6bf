//! Which threads produce and which consume.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

const STAGES: u32 = 4;
type Ring = Pipeline<STAGES>;
type Slot = PipelineState<STAGES>;

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
unsafe fn consume(ring: &Ring, tiles: u32, column: u32) -> f32 {
    let stages: *const f32 = dynamic_shared_base();
    let mut slot = Slot::new();
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.consumer_wait(&slot);
        let stage = stages.add(slot.index() as usize * TILE_FLOATS);
        for row in 0..ROWS {
            total += *stage.add(row * COLUMNS as usize + column as usize);
        }
        ring.consumer_release(&slot);
        slot.advance();
        tile += grid_dim_x();
    }
    total
}

/// Correct: the last thread of the block (63) produces and warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn last_thread_producer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let producer = tid == BLOCK_THREADS - 1;
    let ring = if producer { Ring::init(barriers, WARP_SIZE) } else { Ring::attach(barriers) };
    barrier();
    if producer {
        produce(&ring, window, input, tiles);
    } else if tid < WARP_SIZE {
        let total = consume(&ring, tiles, tid);
        write_column(out, tid, total);
    }
}

/// Correct: roles from a signed offset to the consumer warp: -32 is the producer (thread 0),
/// 0..=31 are the consumers (warp 1), the rest idle.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn signed_role_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let offset = thread_idx_x() as i32 - WARP_SIZE as i32;
    if offset == -(WARP_SIZE as i32) {
        Ring::init(barriers, CONSUMERS);
    }
    barrier();
    let ring = Ring::attach(barriers);
    match offset {
        i32::MIN..=-32 => produce(&ring, window, input, tiles),
        0..=31 => {
            let column = offset as u32;
            let total = consume(&ring, tiles, column);
            write_column(out, column, total);
        }
        _ => {}
    }
}

/// Correct: the 32 odd threads consume (column `tid / 2`), thread 0 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn odd_lanes_consume(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Ring::init(barriers, BLOCK_THREADS / 2);
    }
    barrier();
    let ring = Ring::attach(barriers);
    if tid & 1 == 1 {
        let column = tid >> 1;
        let total = consume(&ring, tiles, column);
        write_column(out, column, total);
    } else if tid == 0 {
        produce(&ring, window, input, tiles);
    }
}

/// Correct: every thread consumes half a column (64 releasing threads) and thread 0 also
/// produces, one tile ahead of its own reads; the halves meet in shared memory after the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn producer_also_consumes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let partials = dynamic_shared_base::<u8>()
        .add((STAGES * TILE_BYTES + pipeline_barrier_bytes(STAGES)) as usize)
        .cast::<f32>();
    let tid = thread_idx_x();
    let ring = if tid == 0 { Ring::init(barriers, BLOCK_THREADS) } else { Ring::attach(barriers) };
    barrier();
    let column = (tid % WARP_SIZE) as usize;
    let half = (tid / WARP_SIZE) as usize;
    let stages: *const f32 = dynamic_shared_base();
    let mut load = Slot::producer_start();
    let mut read = Slot::new();
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        if tid == 0 {
            ring.producer_acquire(&load);
            ring.producer_expect_tx(&load, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + load.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                ring.producer_barrier(&load),
            );
            load.advance();
        }
        ring.consumer_wait(&read);
        let stage = stages.add(read.index() as usize * TILE_FLOATS);
        for row in half * ROWS / 2..(half + 1) * ROWS / 2 {
            total += *stage.add(row * COLUMNS as usize + column);
        }
        ring.consumer_release(&read);
        read.advance();
        tile += grid_dim_x();
    }
    if tid == 0 {
        ring.producer_tail(load);
    }
    if half == 1 {
        *partials.add(column) = total;
    }
    barrier();
    if half == 0 {
        write_column(out, column as u32, total + *partials.add(column));
    }
}

/// Correct: addresses computed in 64-bit integers, consumers chosen by `(32..=63).contains`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wide_int_addresses(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGE_BYTES: u64 = TILE_BYTES as u64;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address() as u64;
    let base = dynamic_shared_base::<f32>() as usize;
    let barriers = (window + u64::from(STAGES) * STAGE_BYTES) as u32;
    let tid = thread_idx_x();
    if tid == 0 {
        Ring::init(barriers, CONSUMERS);
    }
    barrier();
    let ring = Ring::attach(barriers);
    if tid == 0 {
        let mut slot = Slot::producer_start();
        let mut tile = u64::from(block_idx_x());
        while tile < u64::from(tiles) {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, STAGE_BYTES as u32);
            let destination = (window + u64::from(slot.index()) * STAGE_BYTES) as u32;
            let source = (input as u64 + tile * STAGE_BYTES) as *const u8;
            bulk_copy_global_to_shared(destination, source, STAGE_BYTES as u32, ring.producer_barrier(&slot));
            slot.advance();
            tile += u64::from(grid_dim_x());
        }
        ring.producer_tail(slot);
    } else if (32..=63).contains(&tid) {
        let column = (tid - 32) as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x() as usize;
        while tile < tiles as usize {
            ring.consumer_wait(&slot);
            let stage = (base + slot.index() as usize * STAGE_BYTES as usize) as *const f32;
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x() as usize;
        }
        write_column(out, column as u32, total);
    }
}

/// Broken: "one elected lane issues the copies" is `lane_id() == 0`, which is true in both
/// warps: threads 0 and 32 each run the producer loop on the same ring (two arrivals and two
/// copies per stage), and thread 32 only consumes after its own producer loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn lane_zero_producers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Ring::init(barriers, CONSUMERS);
    }
    barrier();
    let ring = Ring::attach(barriers);
    let elected = lane_id() == 0;
    if elected {
        produce(&ring, window, input, tiles);
    }
    if warp_id() == 1 {
        let total = consume(&ring, tiles, lane_id());
        write_column(out, lane_id(), total);
    }
}

/// Broken: the producer moved to lane 0 of warp 1 ("keep warp 0 free"), but the consumers are
/// still `tid >= 32` behind an `else`: 31 threads release an empty barrier counting 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn producer_in_consumer_warp(input: *const f32, tiles: u32, out: *mut f32) {
    const PRODUCER: u32 = WARP_SIZE;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let ring = if tid == PRODUCER { Ring::init(barriers, CONSUMERS) } else { Ring::attach(barriers) };
    barrier();
    if tid == PRODUCER {
        produce(&ring, window, input, tiles);
    } else if tid >= WARP_SIZE {
        let column = tid - WARP_SIZE;
        let total = consume(&ring, tiles, column);
        write_column(out, column, total);
    }
}

/// Broken: both warps now read half a column each (64 releasing threads), but the ring is still
/// initialised for one warp of consumers: each empty barrier completes twice per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn stale_consumer_count(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let partials = dynamic_shared_base::<u8>()
        .add((S * TILE_BYTES + pipeline_barrier_bytes(S)) as usize)
        .cast::<f32>();
    let tid = thread_idx_x();
    let ring = if tid == 0 { Pipeline::<S>::init(barriers, CONSUMERS) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let column = (tid % WARP_SIZE) as usize;
    let half = (tid / WARP_SIZE) as usize;
    let stages: *const f32 = dynamic_shared_base();
    let mut load = PipelineState::<S>::producer_start();
    let mut read = PipelineState::<S>::new();
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        if tid == 0 {
            ring.producer_acquire(&load);
            ring.producer_expect_tx(&load, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + load.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                ring.producer_barrier(&load),
            );
            load.advance();
        }
        ring.consumer_wait(&read);
        let stage = stages.add(read.index() as usize * TILE_FLOATS);
        for row in half * ROWS / 2..(half + 1) * ROWS / 2 {
            total += *stage.add(row * COLUMNS as usize + column);
        }
        ring.consumer_release(&read);
        read.advance();
        tile += grid_dim_x();
    }
    if tid == 0 {
        ring.producer_tail(load);
    }
    if half == 1 {
        *partials.add(column) = total;
    }
    barrier();
    if half == 0 {
        write_column(out, column as u32, total + *partials.add(column));
    }
}
