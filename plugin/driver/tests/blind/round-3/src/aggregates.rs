//! States kept in structs, tuples and `Option`s, and moved with `mem::replace`.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

/// A position in the ring together with the tile it stands for.
struct Cursor<const S: u32> {
    slot: PipelineState<S>,
    tile: u32,
    end: u32,
    stride: u32,
}

impl<const S: u32> Cursor<S> {
    fn new(slot: PipelineState<S>, end: u32) -> Self {
        Cursor { slot, tile: block_idx_x(), end, stride: grid_dim_x() }
    }

    fn live(&self) -> bool {
        self.tile < self.end
    }

    fn step(&mut self) {
        self.slot.advance();
        self.tile += self.stride;
    }
}

/// Correct: five stages; each side walks a `Cursor` whose `step` advances the state and the
/// tile together.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn cursor_struct_methods(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 5;
    block_threads(BLOCK_THREADS);
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let ring = if tid == 0 { Pipeline::<S>::init(barriers, CONSUMERS) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    if tid == 0 {
        let mut cursor = Cursor::new(PipelineState::<S>::producer_start(), tiles);
        while cursor.live() {
            ring.producer_acquire(&cursor.slot);
            ring.producer_expect_tx(&cursor.slot, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + cursor.slot.index() * TILE_BYTES,
                tile_source(input, cursor.tile),
                TILE_BYTES,
                ring.producer_barrier(&cursor.slot),
            );
            cursor.step();
        }
        ring.producer_tail(cursor.slot);
    } else if warp_id() == 1 {
        let stages: *const f32 = dynamic_shared_base();
        let column = lane_id() as usize;
        let mut cursor = Cursor::new(PipelineState::<S>::new(), tiles);
        let mut total = 0.0f32;
        while cursor.live() {
            ring.consumer_wait(&cursor.slot);
            let stage = stages.add(cursor.slot.index() as usize * TILE_FLOATS);
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&cursor.slot);
            cursor.step();
        }
        write_column(out, column as u32, total);
    }
}

const STAGES: u32 = 4;

#[inline(always)]
unsafe fn fill_all(ring: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) {
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
}

#[inline(always)]
unsafe fn open(initialiser: u32) -> (u32, Pipeline<STAGES>) {
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == initialiser {
        Pipeline::<STAGES>::init(barriers, CONSUMERS);
    }
    barrier();
    (window, Pipeline::<STAGES>::attach(barriers))
}

/// Correct: the producer is lane 0 of warp 1 and warp 0 consumes; the consumers' state lives
/// in an `Option` and is used through `if let Some(state) = &mut slot`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn option_state_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let tid = thread_idx_x();
    let (window, ring) = open(WARP_SIZE);
    let mut slot: Option<PipelineState<STAGES>> = Some(PipelineState::new());
    if tid == WARP_SIZE {
        fill_all(&ring, window, input, tiles);
    } else if tid < WARP_SIZE {
        let stages: *const f32 = dynamic_shared_base();
        let mut total = 0.0f32;
        if let Some(state) = &mut slot {
            let mut tile = block_idx_x();
            while tile < tiles {
                ring.consumer_wait(state);
                let stage = stages.add(state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    total += *stage.add(row * COLUMNS as usize + tid as usize);
                }
                ring.consumer_release(state);
                state.advance();
                tile += grid_dim_x();
            }
        }
        write_column(out, tid, total);
    }
}

#[inline(never)]
unsafe fn load_step(
    ring: &Pipeline<STAGES>,
    (mut slot, tile): (PipelineState<STAGES>, u32),
    window: u32,
    input: *const f32,
) -> (PipelineState<STAGES>, u32) {
    ring.producer_acquire(&slot);
    ring.producer_expect_tx(&slot, TILE_BYTES);
    bulk_copy_global_to_shared(
        window + slot.index() * TILE_BYTES,
        tile_source(input, tile),
        TILE_BYTES,
        ring.producer_barrier(&slot),
    );
    slot.advance();
    (slot, tile + grid_dim_x())
}

#[inline(never)]
unsafe fn sum_step(
    ring: &Pipeline<STAGES>,
    (mut slot, total): (PipelineState<STAGES>, f32),
    stages: *const f32,
    column: usize,
) -> (PipelineState<STAGES>, f32) {
    ring.consumer_wait(&slot);
    let stage = stages.add(slot.index() as usize * TILE_FLOATS);
    let mut sum = total;
    for row in 0..ROWS {
        sum += *stage.add(row * COLUMNS as usize + column);
    }
    ring.consumer_release(&slot);
    slot.advance();
    (slot, sum)
}

/// Correct: each step is an out-of-line function that takes `(state, carry)` by value and
/// returns the advanced pair, which the caller stores back.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn tuple_step_return(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open(0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut carry = (PipelineState::<STAGES>::producer_start(), block_idx_x());
        while carry.1 < tiles {
            carry = load_step(&ring, carry, window, input);
        }
        ring.producer_tail(carry.0);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut carry = (PipelineState::<STAGES>::new(), 0.0f32);
        let mut tile = block_idx_x();
        while tile < tiles {
            carry = sum_step(&ring, carry, dynamic_shared_base(), column);
            tile += grid_dim_x();
        }
        write_column(out, column as u32, carry.1);
    }
}

/// Broken: "both sides begin at stage 0", so the consumers copy the producer's start; its
/// parity 1 makes their first lap's waits return at once on stages not yet filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shared_start_copy(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open(0);
    let tid = thread_idx_x();
    let start = PipelineState::<STAGES>::producer_start();
    if tid == 0 {
        let mut slot = start;
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
        let stages: *const f32 = dynamic_shared_base();
        let column = lane_id() as usize;
        let mut slot = start;
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

/// Broken: the state is stepped with `mem::replace` (the current value comes out, the next
/// goes in), but the wait names the state, which already holds the next stage; on the last
/// tile that wait is for a phase nobody fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn replace_wait_next(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open(0);
    let tid = thread_idx_x();
    if tid == 0 {
        fill_all(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let stages: *const f32 = dynamic_shared_base();
        let column = lane_id() as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let mut upcoming = state;
            upcoming.advance();
            let current = core::mem::replace(&mut state, upcoming);
            ring.consumer_wait(&state);
            let stage = stages.add(current.index() as usize * TILE_FLOATS);
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&current);
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

unsafe fn column_total(ring: &Pipeline<STAGES>, all_stages: &[f32], tiles: u32, column: usize) -> Option<f32> {
    let mut slot = PipelineState::<STAGES>::new();
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.consumer_wait(&slot);
        let first = slot.index() as usize * TILE_FLOATS;
        let stage = all_stages.get(first..=first + TILE_FLOATS)?;
        total += stage.chunks_exact(COLUMNS as usize).map(|row| row[column]).sum::<f32>();
        ring.consumer_release(&slot);
        slot.advance();
        tile += grid_dim_x();
    }
    Some(total)
}

/// Broken: the stage slice is taken with an inclusive range, one float too long; for the last
/// stage `get` returns `None` and `?` leaves the consumer loop holding the stage unreleased.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn option_early_return(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open(0);
    let tid = thread_idx_x();
    if tid == 0 {
        fill_all(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let all_stages = core::slice::from_raw_parts(dynamic_shared_base::<f32>(), STAGES as usize * TILE_FLOATS);
        let column = lane_id() as usize;
        let total = column_total(&ring, all_stages, tiles, column).unwrap_or(f32::NAN);
        write_column(out, column as u32, total);
    }
}
