//! Pipeline kernels built on `Ring<S>`: a small newtype holding one pipeline, the window address
//! of its first stage and a generic pointer to the same bytes. Producers `push` tiles, consumers
//! `pop` a column sum; the barriers always sit at window byte 0.
//!
//! Roles everywhere in this file: thread 0 produces, warp 1 (threads 32..63) consumes, lane `l`
//! of warp 1 owns column `l`.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;

#[derive(Clone, Copy)]
struct Ring<const S: u32> {
    pipe: Pipeline<S>,
    first_stage: u32,
    floats: *mut f32,
}

impl<const S: u32> Ring<S> {
    /// Thread 0 initialises the barriers at window byte 0 for `consumers` releasing threads;
    /// every thread then waits for it and attaches.
    #[inline(always)]
    unsafe fn open(stage_offset: u32, consumers: u32) -> Self {
        let window = dynamic_shared_window_address();
        if thread_idx_x() == 0 {
            Pipeline::<S>::init(window, consumers);
        }
        barrier();
        Ring {
            pipe: Pipeline::attach(window),
            first_stage: window + stage_offset,
            floats: dynamic_shared_base::<f32>().add(stage_offset as usize / 4),
        }
    }

    #[inline(always)]
    fn slot_address(&self, state: &PipelineState<S>) -> u32 {
        self.first_stage + state.index() * TILE_BYTES
    }

    #[inline(always)]
    unsafe fn slot(&self, state: &PipelineState<S>) -> *const f32 {
        self.floats.add(state.index() as usize * TILE_FLOATS)
    }

    #[inline(always)]
    unsafe fn push_announcing(&self, state: &mut PipelineState<S>, tile: *const f32, bytes: u32) {
        self.pipe.producer_acquire(state);
        self.pipe.producer_expect_tx(state, bytes);
        bulk_copy_global_to_shared(
            self.slot_address(state),
            tile.cast(),
            TILE_BYTES,
            self.pipe.producer_barrier(state),
        );
        state.advance();
    }

    #[inline(always)]
    unsafe fn push(&self, state: &mut PipelineState<S>, tile: *const f32) {
        self.push_announcing(state, tile, TILE_BYTES);
    }

    /// Like `push`, but copies into the slot after the acquired one (a "look-ahead" slot).
    #[inline(always)]
    unsafe fn push_ahead(&self, state: &mut PipelineState<S>, tile: *const f32) {
        self.pipe.producer_acquire(state);
        self.pipe.producer_expect_tx(state, TILE_BYTES);
        let ahead = self.first_stage + ((state.index() + 1) % S) * TILE_BYTES;
        bulk_copy_global_to_shared(ahead, tile.cast(), TILE_BYTES, self.pipe.producer_barrier(state));
        state.advance();
    }

    #[inline(always)]
    unsafe fn pop_rows(&self, state: &mut PipelineState<S>, lane: usize, rows: usize) -> f32 {
        self.pipe.consumer_wait(state);
        let slot = self.slot(state);
        let mut sum = 0.0;
        for row in 0..rows {
            sum += *slot.add(row * COLS + lane);
        }
        self.pipe.consumer_release(state);
        state.advance();
        sum
    }

    #[inline(always)]
    unsafe fn pop(&self, state: &mut PipelineState<S>, lane: usize) -> f32 {
        self.pop_rows(state, lane, ROWS)
    }

    #[inline(always)]
    fn finish(&self, state: PipelineState<S>) {
        self.pipe.producer_tail(state);
    }
}

/// The producer's loop over this block's tiles, through `push`.
#[inline(always)]
unsafe fn produce_all<const S: u32>(ring: &Ring<S>, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.push(&mut state, input.add(tile as usize * TILE_FLOATS));
        tile += grid_dim_x();
    }
    ring.finish(state);
}

/// The consumers' loop over this block's tiles, through `pop`; writes the column.
#[inline(always)]
unsafe fn consume_all<const S: u32>(ring: &Ring<S>, tiles: u32, out: *mut f32, lane: usize) {
    let mut state = PipelineState::<S>::new();
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        total += ring.pop(&mut state, lane);
        tile += grid_dim_x();
    }
    *out.add(block_idx_x() as usize * COLS + lane) = total;
}

/// Four stages after 128 bytes of barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_ring_newtype_four(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::open(128, 32);
    let tid = thread_idx_x();
    if tid == 0 {
        produce_all(&ring, input, tiles);
    } else if tid >= 32 {
        consume_all(&ring, tiles, out, (tid - 32) as usize);
    }
}

/// Seven stages filling the window from byte 1024 to its very end (8192).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_ring_seven_to_window_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<7>::open(1024, 32);
    let tid = thread_idx_x();
    if tid == 0 {
        produce_all(&ring, input, tiles);
    } else if tid >= 32 {
        consume_all(&ring, tiles, out, (tid - 32) as usize);
    }
}

/// BROKEN: the producer announces two tiles' bytes per stage but copies one tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_ring_announces_tile_pair(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::open(128, 32);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.push_announcing(&mut state, input.add(tile as usize * TILE_FLOATS), 2 * TILE_BYTES);
            tile += grid_dim_x();
        }
        ring.finish(state);
    } else if tid >= 32 {
        consume_all(&ring, tiles, out, (tid - 32) as usize);
    }
}

/// BROKEN: every copy lands in the slot after the one whose barrier it completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_ring_copies_one_slot_ahead(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::open(128, 32);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.push_ahead(&mut state, input.add(tile as usize * TILE_FLOATS));
            tile += grid_dim_x();
        }
        ring.finish(state);
    } else if tid >= 32 {
        consume_all(&ring, tiles, out, (tid - 32) as usize);
    }
}

/// BROKEN: seven stages end at the window's end and the consumers read nine rows per stage, so
/// the last stage's ninth row lies past byte 8192.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_ring_nine_rows_at_window_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<7>::open(1024, 32);
    let tid = thread_idx_x();
    if tid == 0 {
        produce_all(&ring, input, tiles);
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let mut state = PipelineState::<7>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            total += ring.pop_rows(&mut state, lane, ROWS + 1);
            tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + lane) = total;
    }
}

/// BROKEN: the empty barriers are initialised for the whole block (64) while only warp 1
/// releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_ring_empty_counts_whole_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::open(128, 64);
    let tid = thread_idx_x();
    if tid == 0 {
        produce_all(&ring, input, tiles);
    } else if tid >= 32 {
        consume_all(&ring, tiles, out, (tid - 32) as usize);
    }
}

/// Consumers keep the previous stage until the next one has been waited for, then release it;
/// the last one is released after the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_ring_release_one_behind(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::open(128, 32);
    let tid = thread_idx_x();
    if tid == 0 {
        produce_all(&ring, input, tiles);
        return;
    }
    if tid < 32 {
        return;
    }
    let lane = (tid - 32) as usize;
    let mut state = PipelineState::<4>::new();
    let mut held: Option<PipelineState<4>> = None;
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.pipe.consumer_wait(&state);
        let slot = ring.slot(&state);
        for row in 0..ROWS {
            total += *slot.add(row * COLS + lane);
        }
        if let Some(previous) = held.take() {
            ring.pipe.consumer_release(&previous);
        }
        held = Some(state);
        state.advance();
        tile += grid_dim_x();
    }
    if let Some(previous) = held {
        ring.pipe.consumer_release(&previous);
    }
    *out.add(block_idx_x() as usize * COLS + lane) = total;
}

/// BROKEN: as `r15_ring_release_one_behind`, but the stage still held after the loop is never
/// released, so the producer's tail waits for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_ring_release_one_behind_keeps_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::open(128, 32);
    let tid = thread_idx_x();
    if tid == 0 {
        produce_all(&ring, input, tiles);
        return;
    }
    if tid < 32 {
        return;
    }
    let lane = (tid - 32) as usize;
    let mut state = PipelineState::<4>::new();
    let mut held: Option<PipelineState<4>> = None;
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.pipe.consumer_wait(&state);
        let slot = ring.slot(&state);
        for row in 0..ROWS {
            total += *slot.add(row * COLS + lane);
        }
        if let Some(previous) = held.replace(state) {
            ring.pipe.consumer_release(&previous);
        }
        state.advance();
        tile += grid_dim_x();
    }
    *out.add(block_idx_x() as usize * COLS + lane) = total;
}
