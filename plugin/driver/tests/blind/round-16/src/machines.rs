//! Roles written as small state machines: an enum of steps and a `loop { match … }` that moves
//! from one to the next.
//!
//! Layout: four 1 KiB stages from window byte 0, barriers at byte 4096. Thread 0 produces,
//! warp 1 consumes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Feed {
    Acquire,
    Announce,
    Copy,
    Advance,
    Drain,
    Done,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    Wait,
    Sum,
    Release,
    Next,
    Finished,
}

#[inline(always)]
fn setup() -> (u32, Pipeline<STAGES>) {
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    (window, pipe)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_fsm_producer_enum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (window, pipe) = setup();
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        let mut next = if tile < tiles { Feed::Acquire } else { Feed::Drain };
        loop {
            next = match next {
                Feed::Acquire => {
                    pipe.producer_acquire(&state);
                    Feed::Announce
                }
                Feed::Announce => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    Feed::Copy
                }
                Feed::Copy => {
                    let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
                    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
                    Feed::Advance
                }
                Feed::Advance => {
                    state.advance();
                    tile += step;
                    if tile < tiles { Feed::Acquire } else { Feed::Drain }
                }
                Feed::Drain => {
                    pipe.producer_tail(state);
                    Feed::Done
                }
                Feed::Done => break,
            };
        }
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS + col) };
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_fsm_consumer_enum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (window, pipe) = setup();
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        let mut now = if tile < tiles { Read::Wait } else { Read::Finished };
        while now != Read::Finished {
            now = match now {
                Read::Wait => {
                    pipe.consumer_wait(&state);
                    Read::Sum
                }
                Read::Sum => {
                    let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS + col) };
                    for row in 0..ROWS {
                        acc += unsafe { *stage.add(row * COLS) };
                    }
                    Read::Release
                }
                Read::Release => {
                    pipe.consumer_release(&state);
                    Read::Next
                }
                Read::Next => {
                    state.advance();
                    tile += step;
                    if tile < tiles { Read::Wait } else { Read::Finished }
                }
                Read::Finished => Read::Finished,
            };
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

/// BROKEN: the producer machine announces the bytes only on its first pass over the ring
/// ("the barrier keeps the count"); from the fifth tile on the copies land on a full barrier
/// still waiting for its arrival, which never completes, and the consumers hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_fsm_skip_announce_after_first_pass(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (window, pipe) = setup();
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        let mut issued = 0u32;
        let mut next = if tile < tiles { Feed::Acquire } else { Feed::Drain };
        loop {
            next = match next {
                Feed::Acquire => {
                    pipe.producer_acquire(&state);
                    if issued < STAGES { Feed::Announce } else { Feed::Copy }
                }
                Feed::Announce => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    Feed::Copy
                }
                Feed::Copy => {
                    let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
                    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
                    issued += 1;
                    Feed::Advance
                }
                Feed::Advance => {
                    state.advance();
                    tile += step;
                    if tile < tiles { Feed::Acquire } else { Feed::Drain }
                }
                Feed::Drain => {
                    pipe.producer_tail(state);
                    Feed::Done
                }
                Feed::Done => break,
            };
        }
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS + col) };
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

/// BROKEN: the consumer machine goes straight from summing the block's last tile to
/// `Finished` ("nothing follows it"), so the last stage is never released and the producer's
/// tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_fsm_last_tile_unreleased(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (window, pipe) = setup();
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        let mut now = if tile < tiles { Read::Wait } else { Read::Finished };
        while now != Read::Finished {
            now = match now {
                Read::Wait => {
                    pipe.consumer_wait(&state);
                    Read::Sum
                }
                Read::Sum => {
                    let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS + col) };
                    for row in 0..ROWS {
                        acc += unsafe { *stage.add(row * COLS) };
                    }
                    if tile + step >= tiles { Read::Finished } else { Read::Release }
                }
                Read::Release => {
                    pipe.consumer_release(&state);
                    Read::Next
                }
                Read::Next => {
                    state.advance();
                    tile += step;
                    Read::Wait
                }
                Read::Finished => Read::Finished,
            };
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}
