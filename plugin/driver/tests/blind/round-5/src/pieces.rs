//! Persona: the bandwidth tinkerer. Copies split into pieces, stages of half a tile, stages of
//! two tiles, byte counts assembled from pieces.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const QUARTERS: u32 = 4;
const QUARTER_BYTES: u32 = TILE_BYTES / QUARTERS;

/// One stage per tile, filled by four 256-byte copies issued last quarter first; one
/// `expect_tx` of the whole tile. Thread 0 produces, warp 1 consumes; barriers at 0, ring at 128.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_pc_quarter_copies_reversed(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const RING: u32 = 128;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize);
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let stage = window + RING + state.index() * TILE_BYTES;
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            let mut q = QUARTERS;
            while q > 0 {
                q -= 1;
                bulk_copy_global_to_shared(
                    stage + q * QUARTER_BYTES,
                    src.add((q * QUARTER_BYTES) as usize),
                    QUARTER_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..8 {
                acc += *stage.add((r * 32 + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + c) as usize) = acc;
    }
}

/// Stages of half a tile (512 bytes), eight of them; every tile is two trips around the
/// protocol, so both loops run `2 × tiles` items. Thread 32 produces, warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_pc_half_tile_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 8;
    const HALF_BYTES: u32 = TILE_BYTES / 2;
    const HALF_FLOATS: u32 = TILE_FLOATS / 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * HALF_BYTES;
    if tid == 32 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = if block < tiles { (tiles - block + grid - 1) / grid } else { 0 };
    let items = 2 * count;
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut item = 0;
        while item < items {
            let t = block + (item / 2) * grid;
            let half = item % 2;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * HALF_BYTES,
                input.add((t * TILE_FLOATS + half * HALF_FLOATS) as usize) as *const u8,
                HALF_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            item += 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut item = 0;
        while item < items {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * HALF_FLOATS) as usize);
            for r in 0..4 {
                acc += *stage.add((r * 32 + tid) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            item += 1;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Stages of two tiles (2048 bytes), three of them: a stage holds tiles `t` and `t + grid`
/// (two copies, the bytes announced for both), or only `t` at the end of an odd count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_pc_pair_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * STAGE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            let both = t + grid < tiles;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, if both { 2 * TILE_BYTES } else { TILE_BYTES });
            let stage = window + state.index() * STAGE_BYTES;
            bulk_copy_global_to_shared(stage, input.add((t * TILE_FLOATS) as usize).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            if both {
                bulk_copy_global_to_shared(
                    stage + TILE_BYTES,
                    input.add(((t + grid) * TILE_FLOATS) as usize).cast(),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            t += 2 * grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            let rows = if t + grid < tiles { 16 } else { 8 };
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * STAGE_BYTES / 4) as usize);
            for r in 0..rows {
                acc += *stage.add((r * 32 + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += 2 * grid;
        }
        *out.add((block * 32 + c) as usize) = acc;
    }
}

/// BROKEN: the quarter loop starts at 1 (`for q in 1..QUARTERS`, the author meant to skip
/// nothing): 768 bytes arrive against 1024 announced, the full barrier never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_pc_three_of_four_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let stage = window + state.index() * TILE_BYTES;
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            for q in 1..QUARTERS {
                bulk_copy_global_to_shared(
                    stage + q * QUARTER_BYTES,
                    src.add((q * QUARTER_BYTES) as usize),
                    QUARTER_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..8 {
                acc += *stage.add((r * 32 + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + c) as usize) = acc;
    }
}

/// BROKEN: a tile comes in two 512-byte copies, and the second's destination is offset by
/// `HALF_BYTES * 4` (bytes taken for floats): it lands two stages further on, leaving the second
/// half of the stage stale and trampling a stage that may be in use.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_pc_half_offset_units(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const HALF_BYTES: u32 = TILE_BYTES / 2;
    const RING: u32 = 1024;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize);
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let stage = window + RING + state.index() * TILE_BYTES;
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(stage, src, HALF_BYTES, pipe.producer_barrier(&state));
            bulk_copy_global_to_shared(
                stage + HALF_BYTES * 4,
                src.add(HALF_BYTES as usize),
                HALF_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..8 {
                acc += *stage.add((r * 32 + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + c) as usize) = acc;
    }
}

/// BROKEN: half-tile stages; the consumer waits for the first half, then "saves a round trip"
/// by reading the second half from the next stage right away, before waiting for it (it waits
/// and releases that stage afterwards): the second half may not have landed yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_pc_peek_next_half(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 8;
    const HALF_BYTES: u32 = TILE_BYTES / 2;
    const HALF_FLOATS: u32 = TILE_FLOATS / 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * HALF_BYTES;
    if tid == 32 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            for half in 0..2 {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, HALF_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * HALF_BYTES,
                    input.add((t * TILE_FLOATS + half * HALF_FLOATS) as usize) as *const u8,
                    HALF_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let first = smem.add((state.index() * HALF_FLOATS) as usize);
            let second = smem.add((((state.index() + 1) % S) * HALF_FLOATS) as usize);
            for r in 0..4 {
                acc += *first.add((r * 32 + tid) as usize);
                acc += *second.add((r * 32 + tid) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            pipe.consumer_wait(&state);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}
