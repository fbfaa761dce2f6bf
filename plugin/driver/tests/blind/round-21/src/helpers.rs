//! Pipeline kernels whose steps live in helper functions and closures: whole roles in
//! functions, per-tile steps taking `&mut PipelineState`, states handed back by value, stage
//! pointers computed by helpers, a body generic over the stage count.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use crate::{COLS, CONSUMERS, ROWS, TILE_BYTES, TILE_FLOATS, column_sum, owned_tiles, store_column, tile_source};

// ------------------------------------------------------------------------------------------
// Whole roles in functions.
// ------------------------------------------------------------------------------------------

unsafe fn produce_all(pipe: &Pipeline<4>, ring_window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<4>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(ring_window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(state);
}

unsafe fn consume_all(pipe: &Pipeline<4>, ring: *const f32, tiles: u32, col: usize) -> f32 {
    let mut state = PipelineState::<4>::new();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    sum
}

/// Producer and consumer loops each in a function of their own.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_role_functions(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    if tid == 32 {
        produce_all(&pipe, window, input, tiles);
    } else if tid < 32 {
        let sum = consume_all(&pipe, dynamic_shared_base::<f32>(), tiles, tid as usize);
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Per-tile steps.
// ------------------------------------------------------------------------------------------

#[inline(always)]
unsafe fn load_tile<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, ring_window: u32, source: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(ring_window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

#[inline(always)]
unsafe fn take_tile<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(state);
    let sum = column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
    pipe.consumer_release(state);
    state.advance();
    sum
}

/// Three stages; each tile's producer and consumer steps are helpers taking `&mut` states.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_step_functions(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            let t = block_idx_x() + k * grid_dim_x();
            load_tile(&pipe, &mut state, window, tile_source(input, t));
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in 0..n {
            sum += take_tile(&pipe, &mut state, ring, tid as usize);
        }
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Stage addresses from helpers.
// ------------------------------------------------------------------------------------------

const TWO_RING: u32 = 256;

#[inline(always)]
fn stage_of(ring: *const f32, state: &PipelineState<2>) -> *const f32 {
    ring.wrapping_add(state.index() as usize * TILE_FLOATS)
}

#[inline(always)]
fn stage_window(ring_window: u32, state: &PipelineState<2>) -> u32 {
    ring_window + state.index() * TILE_BYTES
}

/// Two stages at byte 256 behind the barriers; stage pointers and copy destinations from
/// helpers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_stage_address_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, CONSUMERS) } else { Pipeline::<2>::attach(window) };
    barrier();
    let ring_window = window + TWO_RING;
    let ring = dynamic_shared_base::<u8>().add(TWO_RING as usize) as *const f32;
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(stage_window(ring_window, &state), tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let col = tid as usize;
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = stage_of(ring, &state);
            let mut row = 0;
            while row < ROWS {
                sum += *stage.add(row * COLS + col);
                row += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, col, sum);
    }
}

// ------------------------------------------------------------------------------------------
// States handed back by value.
// ------------------------------------------------------------------------------------------

#[inline(never)]
unsafe fn fill(pipe: &Pipeline<4>, mut state: PipelineState<4>, ring_window: u32, source: *const u8) -> PipelineState<4> {
    pipe.producer_acquire(&state);
    pipe.producer_expect_tx(&state, TILE_BYTES);
    bulk_copy_global_to_shared(ring_window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
    state.advance();
    state
}

#[inline(never)]
unsafe fn drain(pipe: &Pipeline<4>, mut state: PipelineState<4>, ring: *const f32, col: usize, sum: &mut f32) -> PipelineState<4> {
    pipe.consumer_wait(&state);
    *sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
    pipe.consumer_release(&state);
    state.advance();
    state
}

/// Four stages, ring at 2 KiB; the step helpers (not inlined) take the state by value and
/// return it advanced.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 2048;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            state = fill(&pipe, state, window + RING, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            state = drain(&pipe, state, ring, tid as usize, &mut sum);
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// A body generic over the stage count.
// ------------------------------------------------------------------------------------------

#[inline(always)]
unsafe fn staged_sum<const S: u32>(input: *const f32, tiles: u32, out: *mut f32, ring_offset: u32, barrier_offset: u32) {
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 {
        Pipeline::<S>::init(window + barrier_offset, CONSUMERS)
    } else {
        Pipeline::<S>::attach(window + barrier_offset)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            load_tile(&pipe, &mut state, window + ring_offset, tile_source(input, t));
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(ring_offset as usize) as *const f32;
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            sum += take_tile(&pipe, &mut state, ring, tid as usize);
            t += grid_dim_x();
        }
        store_column(out, tid as usize, sum);
    }
}

/// The generic body with five stages: ring at 0, barriers after its 5 KiB.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_generic_five_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    staged_sum::<5>(input, tiles, out, 0, 5 * TILE_BYTES);
}

// ------------------------------------------------------------------------------------------
// Closures.
// ------------------------------------------------------------------------------------------

/// Four stages; the producer's step and the consumers' step are closures capturing the
/// state by mutable reference.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_closure_steps(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES + 512;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut put = |t: u32| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        };
        let mut t = first;
        while t < tiles {
            put(t);
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut take = || -> f32 {
            pipe.consumer_wait(&state);
            let s = column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
            state.advance();
            s
        };
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            sum += take();
            t += step;
        }
        store_column(out, col, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

#[inline(always)]
fn next_stage_window(ring_window: u32, state: &PipelineState<4>) -> u32 {
    // "the stage after the one the consumers are on"
    ring_window + ((state.index() + 1) % 4) * TILE_BYTES
}

/// The copy destination helper names the stage after the acquired one: consumers read a
/// stage that holds stale (or no) data while the copy lands in a stage they may be reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_bad_copy_into_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(next_stage_window(window, &state), tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let sum = consume_all(&pipe, dynamic_shared_base::<f32>(), tiles, tid as usize);
        store_column(out, tid as usize, sum);
    }
}

#[inline(always)]
fn stage_pointer(ring: *const f32, state: &PipelineState<4>) -> *const f32 {
    // Bytes where floats were meant: stage 1 starts at byte 4096, stage 2 past the window.
    ring.wrapping_add(state.index() as usize * TILE_BYTES as usize)
}

/// The consumers' stage-pointer helper scales the index by the tile's bytes on a `*const
/// f32`: stage 2 lies at byte 8192, outside the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_bad_stage_pointer_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    if tid == 32 {
        produce_all(&pipe, window, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(stage_pointer(ring, &state), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        store_column(out, tid as usize, sum);
    }
}

/// The producer calls the by-value `fill` helper but drops the state it returns: every tile
/// goes to stage 0 and the consumers wait for stage 1 forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_bad_returned_state_dropped(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 2048;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            let _ = fill(&pipe, state, window + RING, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            state = drain(&pipe, state, ring, tid as usize, &mut sum);
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

/// The consumers call `take_tile` (which advances) and then advance again themselves: they
/// skip every other stage, which is never released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_bad_double_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            load_tile(&pipe, &mut state, window, tile_source(input, block_idx_x() + k * grid_dim_x()));
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in 0..n {
            sum += take_tile(&pipe, &mut state, ring, tid as usize);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

/// The producer's closure announces the tile's size in floats (256) instead of bytes (1024):
/// the full barrier's transaction count does not match what the copy delivers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_bad_closure_expects_floats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES + 512;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut put = |t: u32| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_FLOATS as u32);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        };
        let mut t = first;
        while t < tiles {
            put(t);
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut take = || -> f32 {
            pipe.consumer_wait(&state);
            let s = column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
            state.advance();
            s
        };
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            sum += take();
            t += step;
        }
        store_column(out, col, sum);
    }
}

/// The generic body bumped to six stages with the barrier offset left at five tiles: the
/// barriers lie inside stage 5 and its copy overwrites them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_help_bad_generic_six_stages_old_offset(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    staged_sum::<6>(input, tiles, out, 0, 5 * TILE_BYTES);
}
