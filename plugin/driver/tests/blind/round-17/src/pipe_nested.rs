//! Pipeline kernels with nested loops: stages filled by several copies, stages holding two
//! tiles, and tile loops split into groups of one ring's worth.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const STAGES: u32 = 4;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;
const HALVES: u32 = 2;
const HALF_BYTES: u32 = TILE_BYTES / HALVES;
const HALF_FLOATS: usize = TILE_FLOATS / HALVES as usize;

/// Each stage is filled by two copies of half a tile under one `expect_tx`; the consumers
/// read it half by half.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_nest_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
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
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let stage = window + state.index() * TILE_BYTES;
                let source = input.add(tile as usize * TILE_FLOATS);
                for half in 0..HALVES {
                    bulk_copy_global_to_shared(
                        stage + half * HALF_BYTES,
                        source.add(half as usize * HALF_FLOATS) as *const u8,
                        HALF_BYTES,
                        pipe.producer_barrier(&state),
                    );
                }
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
                for half in 0..HALVES as usize {
                    let rows = stage.add(half * HALF_FLOATS);
                    for row in 0..ROWS / 2 {
                        acc += *rows.add(row * COLS + tid as usize);
                    }
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}

/// Stages of two tiles: three stages of 2 KiB, the last stage of an odd count holding one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_nest_pair_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const PAIR_STAGES: u32 = 3;
    const PAIR_BYTES: u32 = 2 * TILE_BYTES;
    const PAIR_FLOATS: usize = 2 * TILE_FLOATS;
    const PAIR_BARRIERS: u32 = PAIR_STAGES * PAIR_BYTES;
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<PAIR_STAGES>::init(window + PAIR_BARRIERS, WARP);
    }
    barrier();
    let pipe = Pipeline::<PAIR_STAGES>::attach(window + PAIR_BARRIERS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let pairs = count.div_ceil(2);
    unsafe {
        if tid == WARP {
            let mut state = PipelineState::<PAIR_STAGES>::producer_start();
            for pair in 0..pairs {
                let first = block + 2 * pair * grid;
                let source = input.add(first as usize * TILE_FLOATS) as *const u8;
                let second = input.wrapping_add((first + grid) as usize * TILE_FLOATS) as *const u8;
                let stage = window + state.index() * PAIR_BYTES;
                pipe.producer_acquire(&state);
                if 2 * pair + 1 < count {
                    pipe.producer_expect_tx(&state, 2 * TILE_BYTES);
                    bulk_copy_global_to_shared(stage, source, TILE_BYTES, pipe.producer_barrier(&state));
                    bulk_copy_global_to_shared(stage + TILE_BYTES, second, TILE_BYTES, pipe.producer_barrier(&state));
                } else {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    bulk_copy_global_to_shared(stage, source, TILE_BYTES, pipe.producer_barrier(&state));
                }
                state.advance();
            }
            pipe.producer_tail(state);
        } else if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<PAIR_STAGES>::new();
            let mut acc = 0.0f32;
            for pair in 0..pairs {
                let held = if 2 * pair + 1 < count { 2 } else { 1 };
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * PAIR_FLOATS);
                for j in 0..held {
                    for row in 0..ROWS {
                        acc += *stage.add(j * TILE_FLOATS + row * COLS + tid as usize);
                    }
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}

/// The tile loop split into groups of `STAGES` tiles, the state carried across groups.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_nest_groups(input: *const f32, tiles: u32, out: *mut f32) {
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
    let groups = count.div_ceil(STAGES);
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for group in 0..groups {
                for slot in 0..STAGES {
                    if group * STAGES + slot >= count {
                        break;
                    }
                    pipe.consumer_wait(&state);
                    let stage = ring.add(state.index() as usize * TILE_FLOATS);
                    for row in 0..ROWS {
                        acc += *stage.add(row * COLS + tid as usize);
                    }
                    pipe.consumer_release(&state);
                    state.advance();
                }
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            for group in 0..groups {
                for slot in 0..STAGES {
                    let k = group * STAGES + slot;
                    if k >= count {
                        break;
                    }
                    pipe.producer_acquire(&state);
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    bulk_copy_global_to_shared(
                        window + state.index() * TILE_BYTES,
                        input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8,
                        TILE_BYTES,
                        pipe.producer_barrier(&state),
                    );
                    state.advance();
                }
            }
            pipe.producer_tail(state);
        }
    }
}

/// Groups of `STAGES` tiles, each group of the consumers starting from a fresh state.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_nest_state_per_group(input: *const f32, tiles: u32, out: *mut f32) {
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
    let groups = count.div_ceil(STAGES);
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut acc = 0.0f32;
            for group in 0..groups {
                let mut state = PipelineState::<STAGES>::new();
                for slot in 0..STAGES {
                    if group * STAGES + slot >= count {
                        break;
                    }
                    pipe.consumer_wait(&state);
                    let stage = ring.add(state.index() as usize * TILE_FLOATS);
                    for row in 0..ROWS {
                        acc += *stage.add(row * COLS + tid as usize);
                    }
                    pipe.consumer_release(&state);
                    state.advance();
                }
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<STAGES>::producer_start();
            for group in 0..groups {
                for slot in 0..STAGES {
                    let k = group * STAGES + slot;
                    if k >= count {
                        break;
                    }
                    pipe.producer_acquire(&state);
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    bulk_copy_global_to_shared(
                        window + state.index() * TILE_BYTES,
                        input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8,
                        TILE_BYTES,
                        pipe.producer_barrier(&state),
                    );
                    state.advance();
                }
            }
            pipe.producer_tail(state);
        }
    }
}

/// Each stage filled row-chunk by row-chunk: four rows per copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_nest_row_chunks(input: *const f32, tiles: u32, out: *mut f32) {
    const CHUNK_ROWS: usize = 4;
    const CHUNK_FLOATS: usize = CHUNK_ROWS * COLS;
    const CHUNK_BYTES: u32 = CHUNK_FLOATS as u32;
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
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let source = input.add(tile as usize * TILE_FLOATS);
                for chunk in 0..ROWS / CHUNK_ROWS {
                    bulk_copy_global_to_shared(
                        window + state.index() * TILE_BYTES + chunk as u32 * CHUNK_BYTES,
                        source.add(chunk * CHUNK_FLOATS) as *const u8,
                        CHUNK_BYTES,
                        pipe.producer_barrier(&state),
                    );
                }
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
                for chunk in 0..ROWS / CHUNK_ROWS {
                    for row in 0..CHUNK_ROWS {
                        acc += *stage.add(chunk * CHUNK_FLOATS + row * COLS + tid as usize);
                    }
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}
