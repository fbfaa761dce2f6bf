//! Helper functions: per-tile steps, whole roles, stage pointers and column sums in free functions.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const S: u32 = 4;

#[inline(always)]
fn stage_ptr(ring: *const f32, state: &PipelineState<S>) -> *const f32 {
    unsafe { ring.add(state.index() as usize * TILE_FLOATS) }
}

#[inline(always)]
unsafe fn column_sum(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0f32;
    for r in 0..8usize {
        s += *stage.add(r * 32 + col);
    }
    s
}

#[inline(always)]
unsafe fn tile_source(input: *const f32, t: u32) -> *const u8 {
    input.add(t as usize * TILE_FLOATS).cast::<u8>()
}

#[inline(always)]
unsafe fn fill(pipe: &Pipeline<S>, state: &mut PipelineState<S>, window: u32, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

#[inline(always)]
unsafe fn drain(pipe: &Pipeline<S>, state: &mut PipelineState<S>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(state);
    let s = column_sum(stage_ptr(ring, state), col);
    pipe.consumer_release(state);
    state.advance();
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_fill_drain(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            acc += drain(&pipe, &mut state, ring, tid as usize);
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

unsafe fn produce_all(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
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
        t += grid_dim_x();
    }
    pipe.producer_tail(state);
}

unsafe fn consume_all(pipe: &Pipeline<S>, ring: *const f32, tiles: u32, col: usize) -> f32 {
    let mut state = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        acc += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    acc
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_whole_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window;
    let ring_window = window + 1024;
    let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        produce_all(&pipe, ring_window, input, tiles);
    } else if tid < 32 {
        let total = consume_all(&pipe, ring, tiles, tid as usize);
        *out.add((block_idx_x() * 32 + tid) as usize) = total;
    }
}

/// Initialises (thread 0), synchronises and attaches in one helper.
#[inline(always)]
fn setup<const N: u32>(bars: u32, consumers: u32) -> Pipeline<N> {
    if thread_idx_x() == 0 {
        let _ = Pipeline::<N>::init(bars, consumers);
    }
    barrier();
    Pipeline::<N>::attach(bars)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_setup_helper(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + N * TILE_BYTES;
    let pipe = setup::<N>(bars, 32);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// One generic body, instantiated with depth 6 (barriers first, ring at byte 256).
unsafe fn generic_body<const N: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let bars = window;
    let ring_offset = 256u32;
    let ring_window = window + ring_offset;
    let ring = dynamic_shared_base::<f32>().add(ring_offset as usize / 4);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(ring_window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_generic_depth_six(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const _: () = assert!(pipeline_barrier_bytes(6) <= 256);
    generic_body::<6>(input, tiles, out);
}

/// Consumer step taking the state by value and handing it back in a tuple with the sum.
#[inline(always)]
unsafe fn take_tile(pipe: &Pipeline<S>, state: PipelineState<S>, ring: *const f32, col: usize) -> (PipelineState<S>, f32) {
    let mut state = state;
    pipe.consumer_wait(&state);
    let s = column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
    pipe.consumer_release(&state);
    state.advance();
    (state, s)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let pipe = setup::<S>(bars, 32);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            let (next, s) = take_tile(&pipe, state, ring, tid as usize);
            state = next;
            acc += s;
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------- broken

#[inline(always)]
fn stage_ptr_in_bytes(ring: *const f32, state: &PipelineState<S>) -> *const f32 {
    unsafe { ring.add(state.index() as usize * TILE_BYTES as usize) }
}

/// Broken: the stage-pointer helper scales the index by the tile's bytes on an `f32` pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_bad_stage_ptr_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let pipe = setup::<S>(bars, 32);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(stage_ptr_in_bytes(ring, &state), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

#[inline(always)]
unsafe fn column_sum_nine(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0f32;
    for r in 0..=8usize {
        s += *stage.add(r * 32 + col);
    }
    s
}

/// Broken: the column helper sums rows 0..=8, the ninth row from the next stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_bad_nine_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let pipe = setup::<S>(bars, 32);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum_nine(stage_ptr(ring, &state), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

#[inline(always)]
unsafe fn fill_half(pipe: &Pipeline<S>, state: &mut PipelineState<S>, window: u32, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES / 2, pipe.producer_barrier(state));
    state.advance();
}

/// Broken: the fill helper announces a whole tile and copies half of it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_bad_fill_half_copy(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let pipe = setup::<S>(bars, 32);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            fill_half(&pipe, &mut state, window, tile_source(input, t));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            acc += drain(&pipe, &mut state, ring, tid as usize);
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

#[inline(always)]
unsafe fn drain_early(pipe: &Pipeline<1>, state: &mut PipelineState<1>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(state);
    pipe.consumer_release(state);
    let s = column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
    state.advance();
    s
}

/// Broken: a one-stage ring whose drain helper releases the stage before summing it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_bad_drain_release_first(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + TILE_BYTES;
    let pipe = setup::<1>(bars, 32);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<1>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<1>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            acc += drain_early(&pipe, &mut state, ring, tid as usize);
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

#[inline(always)]
unsafe fn fill_forgetful(pipe: &Pipeline<S>, state: &mut PipelineState<S>, window: u32, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
}

/// Broken: the fill helper never advances the producer's state, so every tile goes to stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_bad_fill_no_advance(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let pipe = setup::<S>(bars, 32);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            fill_forgetful(&pipe, &mut state, window, tile_source(input, t));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            acc += drain(&pipe, &mut state, ring, tid as usize);
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

#[inline(always)]
fn advanced(state: PipelineState<S>) -> PipelineState<S> {
    let mut next = state;
    next.advance();
    next
}

/// Broken: the consumers call a helper that returns the advanced state and drop its result.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_help_bad_advanced_result_dropped(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let pipe = setup::<S>(bars, 32);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(stage_ptr(ring, &state), tid as usize);
            pipe.consumer_release(&state);
            let _ = advanced(state);
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}
