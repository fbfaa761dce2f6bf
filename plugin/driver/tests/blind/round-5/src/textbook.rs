//! Persona: the textbook author. Everything spelled out in the kernel body, one producer thread,
//! one warp of consumers, `while` loops over the block's tiles.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: u32 = 32;
const ROWS: u32 = 8;

/// Thread 0 produces, warp 1 consumes; four stages at the start of shared memory, barriers after.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_warp1_consumers_four_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..ROWS {
                acc += *stage.add((c + COLUMNS * k) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * COLUMNS + c) as usize) = acc;
    }
}

/// Barriers first (at offset 0), ring of two stages from offset 128; the last thread produces,
/// warp 0 consumes; the producer thread also initialises.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_barriers_first_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const RING_OFFSET: u32 = 128;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING_OFFSET / 4) as usize);
    let pipe = if tid == 63 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING_OFFSET + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add((t * TILE_FLOATS) as usize).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    }
    if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            let mut k = 0;
            while k < ROWS {
                acc += *stage.add((tid + k * COLUMNS) as usize);
                k += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * COLUMNS + tid) as usize) = acc;
    }
}

/// Seven stages (an odd ring) fill 7 KiB; the barriers follow. Thread 32 produces, warp 0
/// consumes; both loops count tiles with a precomputed trip count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 7;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 32 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = if block < tiles { (tiles - block + grid - 1) / grid } else { 0 };
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..count {
            let t = block + i * grid;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..count {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..ROWS {
                acc += *stage.add((tid + COLUMNS * k) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block * COLUMNS + tid) as usize) = acc;
    }
}

/// One stage only: the producer waits for every tile to be released before the next copy.
/// Barriers at offset 0, the single stage at offset 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_single_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 1;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let stage_window = window + 1024;
    let stage = dynamic_shared_base::<f32>().add(256);
    if tid == 0 {
        Pipeline::<STAGES>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                stage_window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let base = stage.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..ROWS {
                acc += *base.add((c + COLUMNS * k) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * COLUMNS + c) as usize) = acc;
    }
}

/// BROKEN: the consumers release the stage first ("so the producer can start the next copy
/// early") and read it afterwards: the producer may already be refilling it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_release_before_read(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            pipe.consumer_release(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..ROWS {
                acc += *stage.add((c + COLUMNS * k) as usize);
            }
            state.advance();
            t += grid;
        }
        *out.add((block * COLUMNS + c) as usize) = acc;
    }
}

/// BROKEN: announces two tiles' worth of bytes per stage but copies one tile: the full
/// barrier never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_expect_double_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..ROWS {
                acc += *stage.add((c + COLUMNS * k) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * COLUMNS + c) as usize) = acc;
    }
}

/// BROKEN: the consumers' loop stops one tile early (`t + grid < tiles`): the last stage is
/// never released, so the producer's tail waits forever (and the last tile is missing).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_consumer_one_short(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t + grid < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..ROWS {
                acc += *stage.add((c + COLUMNS * k) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * COLUMNS + c) as usize) = acc;
    }
}

/// BROKEN: the empty barriers are initialised for the whole block (64) but only warp 1
/// releases: no stage is ever empty again after the first round.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_init_count_whole_block(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..ROWS {
                acc += *stage.add((c + COLUMNS * k) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * COLUMNS + c) as usize) = acc;
    }
}

/// BROKEN: the barriers are placed at `(STAGES - 1) * TILE_BYTES`, i.e. inside the last stage
/// of the ring: the copy into stage 3 overwrites the mbarriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_barriers_inside_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + (STAGES - 1) * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..ROWS {
                acc += *stage.add((c + COLUMNS * k) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * COLUMNS + c) as usize) = acc;
    }
}

/// BROKEN: the producer acquires once before its loop (the author thought one acquire "opens"
/// the ring) and then streams every tile: it overwrites stages the consumers still read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_tb_hoisted_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + STAGES * TILE_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        pipe.producer_acquire(&state);
        let mut t = block;
        while t < tiles {
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * TILE_FLOATS) as usize);
            for k in 0..ROWS {
                acc += *stage.add((c + COLUMNS * k) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * COLUMNS + c) as usize) = acc;
    }
}
