//! Pipeline kernels whose steps live in helper functions taking the pipeline, the state and
//! shared pointers as parameters.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const STAGES: u32 = 4;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

/// One consumer step: wait, sum this lane's column of the stage, release, advance.
#[inline(always)]
unsafe fn consume_tile(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    ring: *const f32,
    column: usize,
) -> f32 {
    pipe.consumer_wait(state);
    let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += unsafe { *stage.add(row * COLS + column) };
    }
    pipe.consumer_release(state);
    state.advance();
    sum
}

/// One producer step: acquire, announce, copy the tile at `source`, advance.
#[inline(always)]
unsafe fn produce_tile(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    ring_window: u32,
    source: *const f32,
) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(
        ring_window + state.index() * TILE_BYTES,
        source as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
    state.advance();
}

/// Both roles through one helper each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_helper_consume_produce(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = dynamic_shared_base::<f32>() as *const f32;
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                acc += consume_tile(&pipe, &mut state, ring, tid as usize);
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                produce_tile(&pipe, &mut state, window, input.add(tile as usize * TILE_FLOATS));
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}

/// The stage's address, computed out of line.
#[inline(never)]
fn stage_of(ring: *const f32, state: &PipelineState<STAGES>) -> *const f32 {
    ring.wrapping_add(state.index() as usize * TILE_FLOATS)
}

/// One column of a tile, summed out of line.
#[inline(never)]
unsafe fn column_sum(tile: *const f32, column: usize) -> f32 {
    let mut sum = 0.0f32;
    let mut at = unsafe { tile.add(column) };
    for _ in 0..ROWS {
        sum += unsafe { *at };
        at = at.wrapping_add(COLS);
    }
    sum
}

/// Consumers read through a stage-pointer helper and a column helper, both not inlined.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_helper_stage_pointer(input: *const f32, tiles: u32, out: *mut f32) {
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
    let count = owned_tiles(tiles, block, grid);
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>() as *const f32;
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for _ in 0..count {
                pipe.consumer_wait(&state);
                acc += column_sum(stage_of(ring, &state), tid as usize);
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            for k in 0..count {
                produce_tile(&pipe, &mut state, window, input.add((block + k * grid) as usize * TILE_FLOATS));
            }
            pipe.producer_tail(state);
        }
    }
}

/// Announces a tile and starts its copy into the acquired stage.
#[inline(always)]
fn issue(pipe: &Pipeline<STAGES>, state: &PipelineState<STAGES>, destination: u32, source: *const u8) {
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipe.producer_barrier(state));
}

/// The producer keeps acquire and advance in the loop and hands the copy to a helper.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_helper_issue_fn(input: *const f32, tiles: u32, out: *mut f32) {
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
        if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                issue(
                    &pipe,
                    &state,
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        } else if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}

/// The consumer loop steps its state after the consume helper.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_helper_double_advance(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = dynamic_shared_base::<f32>() as *const f32;
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                acc += consume_tile(&pipe, &mut state, ring, tid as usize);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                produce_tile(&pipe, &mut state, window, input.add(tile as usize * TILE_FLOATS));
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}

/// Consumer step that skips the release on the block's last tile.
#[inline(always)]
unsafe fn fold_tile(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    ring: *const f32,
    column: usize,
    last: bool,
) -> f32 {
    pipe.consumer_wait(state);
    let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += unsafe { *stage.add(row * COLS + column) };
    }
    if last {
        return sum;
    }
    pipe.consumer_release(state);
    state.advance();
    sum
}

/// The consume helper returns early on the last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_helper_last_unreleased(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = dynamic_shared_base::<f32>() as *const f32;
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                let last = tile + grid >= tiles;
                acc += fold_tile(&pipe, &mut state, ring, tid as usize, last);
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                produce_tile(&pipe, &mut state, window, input.add(tile as usize * TILE_FLOATS));
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}

/// Announces `floats` floats and copies them.
#[inline(always)]
fn load_floats(
    pipe: &Pipeline<STAGES>,
    state: &PipelineState<STAGES>,
    destination: u32,
    source: *const f32,
    floats: u32,
) {
    pipe.producer_expect_tx(state, floats * 4);
    bulk_copy_global_to_shared(destination, source as *const u8, floats, pipe.producer_barrier(state));
}

/// The producer's copy helper takes a count of floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_helper_copy_floats(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = dynamic_shared_base::<f32>() as *const f32;
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                acc += consume_tile(&pipe, &mut state, ring, tid as usize);
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                load_floats(
                    &pipe,
                    &state,
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS),
                    TILE_FLOATS as u32,
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}
