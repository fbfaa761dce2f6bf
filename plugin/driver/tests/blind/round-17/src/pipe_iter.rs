//! Pipeline kernels that read their stages with iterator adaptors, slices and closures.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const STAGES: u32 = 4;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

/// The producer shared by this family: thread 32 walks the block's tiles.
#[inline(always)]
unsafe fn feed(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<STAGES>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + state.index() * TILE_BYTES,
            unsafe { input.add(tile as usize * TILE_FLOATS) } as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        tile += grid_dim_x();
    }
    pipe.producer_tail(state);
}

/// Each stage's column summed by `(0..ROWS).map(..).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_iter_map_sum(input: *const f32, tiles: u32, out: *mut f32) {
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
            let column = tid as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                acc += (0..ROWS).map(|row| *stage.add(row * COLS + column)).sum::<f32>();
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            feed(&pipe, window, input, tiles);
        }
    }
}

/// Each stage viewed as a slice; the column is `skip(column).step_by(COLS)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_iter_slice_step_by(input: *const f32, tiles: u32, out: *mut f32) {
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
            for _ in 0..owned_tiles(tiles, block, grid) {
                pipe.consumer_wait(&state);
                let tile = core::slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
                acc += tile.iter().skip(tid as usize).step_by(COLS).sum::<f32>();
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            feed(&pipe, window, input, tiles);
        }
    }
}

/// Both roles iterate `(block..tiles).step_by(grid)` and do their step in a closure.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_iter_step_by_closures(input: *const f32, tiles: u32, out: *mut f32) {
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
    let walk = (block..tiles).step_by(grid as usize);
    if tid == WARP {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut load = |tile: u32| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = unsafe { input.add(tile as usize * TILE_FLOATS) } as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        };
        for tile in walk {
            load(tile);
        }
        pipe.producer_tail(state);
    } else if tid < WARP {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum_stage = || {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            let mut sum = 0.0f32;
            for row in 0..ROWS {
                sum += unsafe { *stage.add(row * COLS + column) };
            }
            pipe.consumer_release(&state);
            state.advance();
            sum
        };
        let mut acc = 0.0f32;
        for _ in walk {
            acc += sum_stage();
        }
        unsafe { *out.add((block * WARP + tid) as usize) = acc };
    }
}

/// Each stage's column summed over the rows `0..=ROWS`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_iter_rows_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
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
            let column = tid as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                acc += (0..=ROWS).map(|row| *stage.add(row * COLS + column)).sum::<f32>();
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            feed(&pipe, window, input, tiles);
        }
    }
}
