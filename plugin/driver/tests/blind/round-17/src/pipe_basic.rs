//! Pipeline kernels written the plain way: thread 32 (lane 0 of warp 1) produces, warp 0
//! consumes one column per lane, `while` and counted loops over the block's tiles.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

const STAGES: u32 = 4;
/// The ring fills bytes `0..4096`; the barriers follow it.
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

/// Reference shape: `while tile < tiles` in both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_basic_while(input: *const f32, tiles: u32, out: *mut f32) {
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
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}

/// Counted loops over the block's tile count, the producer elected as lane 0 of warp 1, the
/// pipeline value handed out by `init` to its thread and by `attach` to the others.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_basic_counted_warp_elected(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, WARP)
    } else {
        Pipeline::<STAGES>::attach(barriers)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let warp = warp_id();
    let lane = lane_id();
    unsafe {
        if warp == 0 {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for _ in 0..count {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                let mut row = 0;
                while row < ROWS {
                    acc += *stage.add(row * COLS + lane as usize);
                    row += 1;
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add((block * WARP + lane) as usize) = acc;
        } else if lane == 0 {
            let mut state = PipelineState::<STAGES>::producer_start();
            for k in 0..count {
                let tile = block + k * grid;
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let source = input.add(tile as usize * TILE_FLOATS) as *const u8;
                let destination = window + state.index() * TILE_BYTES;
                bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
            }
            pipe.producer_tail(state);
        }
    }
}

/// Two stages, the ring at 1 KiB and the barriers at the window's start.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_basic_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const TWO: u32 = 2;
    const RING_OFFSET: u32 = 1024;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<TWO>::init(window, WARP);
    }
    barrier();
    let pipe = Pipeline::<TWO>::attach(window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid == WARP {
            let mut state = PipelineState::<TWO>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_OFFSET + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        } else if tid < WARP {
            let ring = dynamic_shared_base::<f32>().add(RING_OFFSET as usize / 4);
            let mut state = PipelineState::<TWO>::new();
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

/// The consumers count their tiles as `(tiles - block) / grid`, the producer walks them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_basic_floor_count(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mine = (tiles - block) / grid;
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for _ in 0..mine {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}

/// The consumers count down the tiles left in signed arithmetic, one grid stride at a time.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_basic_signed_left(input: *const f32, tiles: u32, out: *mut f32) {
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
            let stride = grid as i32;
            let mut left = tiles as i32 - block as i32;
            while left >= stride {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                left -= stride;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}

/// The producer walks `block..=last` by the grid stride.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_basic_last_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
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
        } else if tid == WARP {
            let last = tiles;
            let mut state = PipelineState::<STAGES>::producer_start();
            for tile in (block..=last).step_by(grid as usize) {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            pipe.producer_tail(state);
        }
    }
}

/// The consumers compute their stage pointer once, before the tile loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_basic_hoisted_stage(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mut state = PipelineState::<STAGES>::new();
            let stage = dynamic_shared_base::<f32>().add(state.index() as usize * TILE_FLOATS);
            let column = stage.add(tid as usize);
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                for row in 0..ROWS {
                    acc += *column.add(row * COLS);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}
