//! Straight-line pipeline kernels: one producer thread, one consumer warp, plain loops, varied
//! stage counts and ring placements.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use crate::{COLS, CONSUMERS, TILE_BYTES, TILE_FLOATS, column_sum, owned_tiles, store_column, tile_source};

/// Four stages at the start of the window, barriers right after the ring; `while` loops.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_four_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    const BARRIERS: u32 = STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

/// Two stages behind the barriers (ring at byte 128); `for … step_by` loops.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_two_stages_behind_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 2;
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<u8>().add(RING as usize) as *const f32;
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let first = block_idx_x() as usize;
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (first..tiles as usize).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let destination = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(destination, tile_source(input, t as u32), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let col = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _t in (first..tiles as usize).step_by(step) {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum += *stage.add(row * COLS + col);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, col, sum);
    }
}

/// Seven stages (7 KiB of ring), barriers in the last 112 bytes before 7280; the last thread
/// of the block produces; both roles count their owned tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_seven_stages_last_thread(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 7;
    let barriers = dynamic_shared_window_address() + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let count = owned_tiles(tiles);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..count {
            let t = first + k * step;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                dynamic_shared_window_address() + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in 0..count {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

/// Three stages; both roles count down the tiles they have left.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_three_stages_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    const BARRIERS: u32 = 4096;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut left = owned_tiles(tiles);
        let mut t = block_idx_x();
        while left > 0 {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut left = owned_tiles(tiles);
        while left > 0 {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        store_column(out, tid as usize, sum);
    }
}

/// Five stages, barriers first at byte 0, ring at 1 KiB; `loop` with `break`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_five_stages_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 5;
    const RING_BYTES_OFFSET: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let step = grid_dim_x();
    let mut t = block_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTES_OFFSET + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_BYTES_OFFSET as usize / 4);
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

/// Six stages; thread 0 produces and the second warp consumes (column = tid - 32).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_six_stages_second_warp_reads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 6;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            sum += column_sum(stage, col);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, col, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

/// Eight stages fill the whole 8 KiB window; the barriers are put right after the ring, at
/// byte 8192, outside the launch's dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_bad_eight_stages_barriers_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 8;
    const BARRIERS: u32 = STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

/// The consumers' loop test looks one tile ahead (`t + step < tiles`) and so stops one tile
/// early: the last stage is never released and the producer's tail waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_bad_consumers_stop_one_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    const BARRIERS: u32 = STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t + step < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

/// The producer announces two tiles' bytes per stage but copies one: the full barrier never
/// completes its phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_bad_expect_two_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + 6144;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, STAGE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * STAGE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * 2 * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

/// The barrier offset is computed as `(STAGES - 1)` tiles, so the barriers sit inside the
/// last stage and the copy into stage 3 overwrites them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_bad_barriers_inside_last_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    const BARRIERS: u32 = (STAGES - 1) * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

/// The producer starts its state with `new()` (phase 0) instead of `producer_start()`: its
/// first acquire waits for a release that needs a tile it has not copied.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_bad_producer_starts_phase_zero(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, CONSUMERS) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::new();
        for t in (first..tiles).step_by(step as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in (first..tiles).step_by(step as usize) {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

/// The consumers leave their loop after reading the last tile without releasing it ("nobody
/// refills it anyway"): the producer's tail waits for that release forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_basic_bad_last_tile_not_released(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    const BARRIERS: u32 = STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            if t + step >= tiles {
                break;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}
