//! Pipelines with a phase before or after the steady loop: a first tile peeled off to seed the
//! accumulator, and the ring reused as plain scratch once the pipeline has drained.
//!
//! Layout: four 1 KiB stages from window byte 0, barriers at byte 4096. Thread 0 produces,
//! warp 1 consumes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

#[inline(always)]
fn produce_all(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, first: u32, step: u32, tiles: u32) {
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
}

#[inline(always)]
unsafe fn column(ring: *const f32, index: u32, col: usize) -> f32 {
    let base = index as usize * TILE_FLOATS + col;
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += unsafe { *ring.add(base + row * COLS) };
    }
    sum
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_phase_peeled_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        produce_all(&pipe, window, input, first, step, tiles);
    } else if tid >= 32 && first < tiles {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();

        // The first tile seeds the accumulator.
        pipe.consumer_wait(&state);
        let mut acc = unsafe { column(ring, state.index(), col) };
        pipe.consumer_release(&state);
        state.advance();

        let mut tile = first + step;
        while tile < tiles {
            pipe.consumer_wait(&state);
            acc += unsafe { column(ring, state.index(), col) };
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    } else if tid >= 32 {
        unsafe { *out.add(first as usize * COLS + (tid - 32) as usize) = 0.0 };
    }
}

/// BROKEN: the peeled first tile keeps its ring position in a block of its own, and the loop
/// starts again from a fresh position at stage 0: the loop's first wait returns at once on
/// stage 0's old phase, every stage is released out of step with the producer, the block's
/// last tile is never read, and the producer's tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_phase_peeled_restart(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        produce_all(&pipe, window, input, first, step, tiles);
    } else if tid >= 32 && first < tiles {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();

        let mut acc = {
            let mut seed = PipelineState::<STAGES>::new();
            pipe.consumer_wait(&seed);
            let sum = unsafe { column(ring, seed.index(), col) };
            pipe.consumer_release(&seed);
            seed.advance();
            sum
        };

        let mut state = PipelineState::<STAGES>::new();
        let mut tile = first + step;
        while tile < tiles {
            pipe.consumer_wait(&state);
            acc += unsafe { column(ring, state.index(), col) };
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    } else if tid >= 32 {
        unsafe { *out.add(first as usize * COLS + (tid - 32) as usize) = 0.0 };
    }
}

/// After the pipeline: the consumers park their sums in stage 0 and warp 0 writes them out.
#[inline(always)]
unsafe fn through_ring(input: *const f32, tiles: u32, out: *mut f32, sync_before_read: bool) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    let mut acc = 0.0f32;
    if tid == 0 {
        produce_all(&pipe, window, input, first, step, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            acc += unsafe { column(ring, state.index(), col) };
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
    }

    // Every copy has landed and every stage is released (the producer's tail returned).
    barrier();
    if warp_id() == 1 {
        unsafe { *ring.add(lane_id() as usize) = acc };
    }
    if sync_before_read {
        barrier();
    }
    if warp_id() == 0 {
        let lane = lane_id() as usize;
        unsafe { *out.add(first as usize * COLS + lane) = *ring.add(lane) };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_phase_ring_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { through_ring(input, tiles, out, true) }
}

/// BROKEN: no block barrier between warp 1 parking its sums in stage 0 and warp 0 reading
/// them: warp 0 may read stale tile data.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_phase_scratch_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { through_ring(input, tiles, out, false) }
}
