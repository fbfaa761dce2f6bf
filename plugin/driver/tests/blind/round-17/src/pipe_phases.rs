//! Pipeline kernels that run the ring in two phases (the first and the second half of the
//! block's tiles), or treat the first tile specially.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const STAGES: u32 = 4;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

/// Sums this lane's column of the block's tiles `from..to` (in block order), continuing from
/// `state`.
#[inline(always)]
unsafe fn consume_range(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    ring: *const f32,
    column: usize,
    from: u32,
    to: u32,
) -> f32 {
    let mut acc = 0.0f32;
    for _ in from..to {
        pipe.consumer_wait(state);
        let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
        for row in 0..ROWS {
            acc += unsafe { *stage.add(row * COLS + column) };
        }
        pipe.consumer_release(state);
        state.advance();
    }
    acc
}

/// Copies the block's tiles `from..to` (in block order), continuing from `state`.
#[inline(always)]
unsafe fn produce_range(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    window: u32,
    input: *const f32,
    from: u32,
    to: u32,
) {
    let block = block_idx_x();
    let grid = grid_dim_x();
    for k in from..to {
        pipe.producer_acquire(state);
        pipe.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + state.index() * TILE_BYTES,
            unsafe { input.add((block + k * grid) as usize * TILE_FLOATS) } as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(state),
        );
        state.advance();
    }
}

/// Two phases over the first and the second half of the tiles, the states carried across.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_phase_two_halves(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let count = owned_tiles(tiles, block, grid_dim_x());
    let middle = count / 2;
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<STAGES>::new();
            let early = consume_range(&pipe, &mut state, ring, tid as usize, 0, middle);
            let late = consume_range(&pipe, &mut state, ring, tid as usize, middle, count);
            *out.add((block * WARP + tid) as usize) = early + late;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            produce_range(&pipe, &mut state, window, input, 0, middle);
            produce_range(&pipe, &mut state, window, input, middle, count);
            pipe.producer_tail(state);
        }
    }
}

/// One phase of the consumers: its own state from the ring's start.
#[inline(always)]
unsafe fn consume_phase(pipe: &Pipeline<STAGES>, ring: *const f32, column: usize, from: u32, to: u32) -> f32 {
    let mut state = PipelineState::<STAGES>::new();
    unsafe { consume_range(pipe, &mut state, ring, column, from, to) }
}

/// One phase of the producer: its own state, drained at the end of the phase.
#[inline(always)]
unsafe fn produce_phase(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, from: u32, to: u32) {
    let mut state = PipelineState::<STAGES>::producer_start();
    unsafe { produce_range(pipe, &mut state, window, input, from, to) };
    pipe.producer_tail(state);
}

/// Two phases, each role's phase a self-contained call.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_phase_self_contained(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let count = owned_tiles(tiles, block, grid_dim_x());
    let middle = count / 2;
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let early = consume_phase(&pipe, ring, tid as usize, 0, middle);
            let late = consume_phase(&pipe, ring, tid as usize, middle, count);
            *out.add((block * WARP + tid) as usize) = early + late;
        } else if tid == WARP {
            produce_phase(&pipe, window, input, 0, middle);
            produce_phase(&pipe, window, input, middle, count);
        }
    }
}

/// The consumers take the first tile's sum as their starting value.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_phase_first_tile_seeds(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for (k, _tile) in (block..tiles).step_by(grid as usize).enumerate() {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                let mut sum = 0.0f32;
                for row in 0..ROWS {
                    sum += *stage.add(row * COLS + tid as usize);
                }
                if k == 0 {
                    acc = sum;
                    continue;
                }
                acc += sum;
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            produce_range(&pipe, &mut state, window, input, 0, owned_tiles(tiles, block, grid));
            pipe.producer_tail(state);
        }
    }
}
