//! Generic bodies and generic ring wrappers.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

/// One body for any stage count: barriers at the start of shared memory, the ring after them
/// (rounded up to 16 bytes), tiles counted per block up front.
#[inline(always)]
unsafe fn front_barriers_body<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let ring_offset = (pipeline_barrier_bytes(S) + 15) & !15;
    let tid = thread_idx_x();
    let ring = if tid == 0 { Pipeline::<S>::init(window, CONSUMERS) } else { Pipeline::<S>::attach(window) };
    barrier();
    let per_block = tiles.saturating_sub(block_idx_x()).div_ceil(grid_dim_x());
    if tid == 0 {
        let mut slot = PipelineState::<S>::producer_start();
        for k in 0..per_block {
            let tile = block_idx_x() + k * grid_dim_x();
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_offset + slot.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                ring.producer_barrier(&slot),
            );
            slot.advance();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let stages = dynamic_shared_base::<u8>().add(ring_offset as usize).cast::<f32>();
        let column = lane_id() as usize;
        let mut slot = PipelineState::<S>::new();
        let mut total = 0.0f32;
        for _ in 0..per_block {
            ring.consumer_wait(&slot);
            let stage = stages.add(slot.index() as usize * TILE_FLOATS);
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&slot);
            slot.advance();
        }
        write_column(out, column as u32, total);
    }
}

/// Correct: the generic body with three stages (odd stage count, ring at byte 48).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn generic_three_stages(input: *const f32, tiles: u32, out: *mut f32) {
    front_barriers_body::<3>(input, tiles, out);
}

/// Correct: the generic body with seven stages (7280 of the 8192 bytes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn generic_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    front_barriers_body::<7>(input, tiles, out);
}

/// Correct: the generic body with a single stage: every advance wraps and flips the phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn generic_single_stage(input: *const f32, tiles: u32, out: *mut f32) {
    front_barriers_body::<1>(input, tiles, out);
}

/// A ring with its position, used by either side.
struct Lane<const S: u32> {
    ring: Pipeline<S>,
    slot: PipelineState<S>,
}

impl<const S: u32> Lane<S> {
    fn new(ring: Pipeline<S>) -> Self {
        Lane { ring, slot: Default::default() }
    }

    unsafe fn load(&mut self, destination: u32, source: *const u8) {
        self.ring.producer_acquire(&self.slot);
        self.ring.producer_expect_tx(&self.slot, TILE_BYTES);
        bulk_copy_global_to_shared(
            destination + self.slot.index() * TILE_BYTES,
            source,
            TILE_BYTES,
            self.ring.producer_barrier(&self.slot),
        );
        self.slot.advance();
    }

    unsafe fn read(&mut self, stages: *const f32, column: usize) -> f32 {
        self.ring.consumer_wait(&self.slot);
        let stage = stages.add(self.slot.index() as usize * TILE_FLOATS);
        let mut sum = 0.0f32;
        for row in 0..ROWS {
            sum += *stage.add(row * COLUMNS as usize + column);
        }
        self.ring.consumer_release(&self.slot);
        self.slot.advance();
        sum
    }

    fn drain(self) {
        self.ring.producer_tail(self.slot);
    }
}

/// Broken: `Lane::new` starts every lane from `Default` (the consumer's start, parity 0), the
/// producer's too: its first acquire waits for a release that never comes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn ring_default_state(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(barriers, CONSUMERS);
    }
    barrier();
    let ring = Pipeline::<S>::attach(barriers);
    if thread_idx_x() == 0 {
        let mut lane = Lane::new(ring);
        let mut tile = block_idx_x();
        while tile < tiles {
            lane.load(window, tile_source(input, tile));
            tile += grid_dim_x();
        }
        lane.drain();
    } else if warp_id() == 1 {
        let mut lane = Lane::new(ring);
        let column = lane_id() as usize;
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            total += lane.read(dynamic_shared_base(), column);
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Consumer side of a ring; the default stage count is the double-buffered one.
struct ColumnReader<const S: u32 = 2> {
    ring: Pipeline<S>,
    slot: PipelineState<S>,
    stages: *const f32,
    column: usize,
}

impl<const S: u32> ColumnReader<S> {
    fn attach(barriers: u32, stages: *const f32, column: usize) -> Self {
        ColumnReader { ring: Pipeline::attach(barriers), slot: PipelineState::new(), stages, column }
    }

    unsafe fn next_tile(&mut self) -> f32 {
        self.ring.consumer_wait(&self.slot);
        let stage = self.stages.add(self.slot.index() as usize * TILE_FLOATS);
        let mut sum = 0.0f32;
        for row in 0..ROWS {
            sum += *stage.add(row * COLUMNS as usize + self.column);
        }
        self.ring.consumer_release(&self.slot);
        self.slot.advance();
        sum
    }
}

/// Broken: the producer's ring has four stages, but `let reader: ColumnReader` takes the type's
/// default of two: the consumers wrap after stage 1 and their "empty" barriers are the
/// producer's full[2] and full[3].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reader_default_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, CONSUMERS);
    }
    barrier();
    if tid == 0 {
        let ring = Pipeline::<STAGES>::attach(barriers);
        let mut slot = PipelineState::<STAGES>::producer_start();
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
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut reader: ColumnReader = ColumnReader::attach(barriers, dynamic_shared_base(), column);
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            total += reader.next_tile();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}
