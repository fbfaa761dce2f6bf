//! Persona: factors everything into small helper functions: a setup function, a function that
//! returns a stage's pointer or slice, `produce_one`/`consume_one` taking `&mut` states,
//! closures over the pipeline.

use core::slice;

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const LANES: u32 = 32;

/// First tile, end and stride of this block's tiles.
#[inline(always)]
fn block_tiles(tiles: u32) -> (u32, u32, u32) {
    (block_idx_x(), tiles, grid_dim_x())
}

/// Global source of tile `t`.
#[inline(always)]
fn tile_src(input: *const f32, t: u32) -> *const u8 {
    input.wrapping_add(t as usize * TILE_FLOATS) as *const u8
}

/// Pointer to the stage a state points at.
#[inline(always)]
fn stage_ptr<const S: u32>(ring: *const f32, state: &PipelineState<S>) -> *const f32 {
    ring.wrapping_add(state.index() as usize * TILE_FLOATS)
}

/// The stage as a slice.
///
/// # Safety
/// `ring` is the ring's base and the caller holds the stage (between wait and release).
#[inline(always)]
unsafe fn stage_slice<'a>(ring: *const f32, index: u32) -> &'a [f32] {
    unsafe { slice::from_raw_parts(ring.add(index as usize * TILE_FLOATS), TILE_FLOATS) }
}

/// Sum of column `lane` of a tile.
#[inline(always)]
fn column_sum(stage: &[f32], lane: usize) -> f32 {
    let mut s = 0.0;
    let mut i = lane;
    while i < stage.len() {
        s += stage[i];
        i += LANES as usize;
    }
    s
}

/// Initialises the barriers at `at` with thread 0, syncs, and hands everyone the pipeline.
#[inline(always)]
fn setup<const S: u32>(at: u32, consumers: u32) -> Pipeline<S> {
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(at, consumers);
    }
    barrier();
    Pipeline::<S>::attach(at)
}

// ---------------------------------------------------------------------------------------------
// Correct: 4 stages, `produce_one` and `consume_one` helpers taking `&mut PipelineState`.
// ---------------------------------------------------------------------------------------------
const S4: u32 = 4;

#[inline(never)]
fn produce_one(pipe: &Pipeline<S4>, state: &mut PipelineState<S4>, window: u32, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

#[inline(always)]
fn consume_one(pipe: &Pipeline<S4>, state: &mut PipelineState<S4>, ring: *const f32, lane: u32) -> f32 {
    pipe.consumer_wait(state);
    let tile = stage_ptr(ring, state);
    let mut s = 0.0f32;
    for row in 0..8 {
        // SAFETY: inside the stage, which this thread holds.
        s += unsafe { *tile.add((row * LANES + lane) as usize) };
    }
    pipe.consumer_release(state);
    state.advance();
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_help_fns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup::<S4>(window + S4 * TILE_BYTES, LANES);
    let (first, end, step) = block_tiles(tiles);

    if tid == 32 {
        let mut state = PipelineState::<S4>::producer_start();
        let mut t = first;
        while t < end {
            produce_one(&pipe, &mut state, window, tile_src(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S4>::new();
        let mut acc = 0.0;
        let mut t = first;
        while t < end {
            acc += consume_one(&pipe, &mut state, ring, tid);
            t += step;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block_idx_x() * LANES + tid) as usize) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 3 stages, the producer's per-tile work in `load_tile` (the caller advances), the
// consumer reads through `stage_slice` + `column_sum`. Consumers are warp 1, producer thread 0.
// ---------------------------------------------------------------------------------------------
const S3: u32 = 3;

#[inline(always)]
fn load_tile(pipe: &Pipeline<S3>, state: &PipelineState<S3>, window: u32, input: *const f32, t: u32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    let dst = window + state.index() * TILE_BYTES;
    bulk_copy_global_to_shared(dst, tile_src(input, t), TILE_BYTES, pipe.producer_barrier(state));
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_help_slices(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup::<S3>(window + S3 * TILE_BYTES, LANES);
    let (first, end, step) = block_tiles(tiles);

    if tid == 0 {
        let mut state = PipelineState::<S3>::producer_start();
        let mut t = first;
        while t < end {
            load_tile(&pipe, &state, window, input, t);
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let mut state = PipelineState::<S3>::new();
        let mut acc = 0.0;
        let mut t = first;
        while t < end {
            pipe.consumer_wait(&state);
            // SAFETY: the stage is held between wait and release.
            let stage = unsafe { stage_slice(ring, state.index()) };
            acc += column_sum(stage, lane);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 5 stages, per-tile steps written as closures capturing the state by `&mut`.
// ---------------------------------------------------------------------------------------------
const S5: u32 = 5;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_help_closures(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup::<S5>(window + S5 * TILE_BYTES, LANES);
    let (first, end, step) = block_tiles(tiles);

    if tid == 32 {
        let mut state = PipelineState::<S5>::producer_start();
        let mut produce = |t: u32| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_src(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        };
        let mut t = first;
        while t < end {
            produce(t);
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut state = PipelineState::<S5>::new();
        let mut consume = || -> f32 {
            pipe.consumer_wait(&state);
            // SAFETY: the stage is held between wait and release.
            let s = column_sum(unsafe { stage_slice(ring, state.index()) }, lane);
            pipe.consumer_release(&state);
            state.advance();
            s
        };
        let mut acc = 0.0;
        let mut t = first;
        while t < end {
            acc += consume();
            t += step;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: a pure `advanced(state) -> state` helper; the producer assigns its result, the
// consumer calls it and drops the result, so the consumer never leaves stage 0.
// ---------------------------------------------------------------------------------------------
#[inline(always)]
fn advanced<const S: u32>(state: PipelineState<S>) -> PipelineState<S> {
    let mut next = state;
    next.advance();
    next
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_help_dropped_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup::<S4>(window + S4 * TILE_BYTES, LANES);
    let (first, end, step) = block_tiles(tiles);

    if tid == 32 {
        let mut state = PipelineState::<S4>::producer_start();
        let mut t = first;
        while t < end {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_src(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state = advanced(state);
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let state = PipelineState::<S4>::new();
        let mut acc = 0.0;
        let mut t = first;
        while t < end {
            pipe.consumer_wait(&state);
            // SAFETY: the stage is held between wait and release.
            acc += column_sum(unsafe { stage_slice(ring, state.index()) }, tid as usize);
            pipe.consumer_release(&state);
            advanced(state);
            t += step;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block_idx_x() * LANES + tid) as usize) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: `next_tile` helper advances first and releases afterwards, so each release names the
// stage after the one just read (which the consumers have not read yet).
// ---------------------------------------------------------------------------------------------
#[inline(always)]
fn next_tile(pipe: &Pipeline<S4>, state: &mut PipelineState<S4>) {
    state.advance();
    pipe.consumer_release(state);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_help_release_after_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup::<S4>(window + S4 * TILE_BYTES, LANES);
    let (first, end, step) = block_tiles(tiles);

    if tid == 32 {
        let mut state = PipelineState::<S4>::producer_start();
        let mut t = first;
        while t < end {
            produce_one(&pipe, &mut state, window, tile_src(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S4>::new();
        let mut acc = 0.0;
        let mut t = first;
        while t < end {
            pipe.consumer_wait(&state);
            // SAFETY: the stage is held between wait and release.
            acc += column_sum(unsafe { stage_slice(ring, state.index()) }, tid as usize);
            next_tile(&pipe, &mut state);
            t += step;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block_idx_x() * LANES + tid) as usize) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: `arm_stage` helper acquires, arms the full barrier and advances ("the stage is ours
// now"); the caller then issues the copy with the *advanced* state: destination and barrier of
// the next stage.
// ---------------------------------------------------------------------------------------------
#[inline(always)]
fn arm_stage(pipe: &Pipeline<S4>, state: &mut PipelineState<S4>) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    state.advance();
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_help_copy_after_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup::<S4>(window + S4 * TILE_BYTES, LANES);
    let (first, end, step) = block_tiles(tiles);

    if tid == 32 {
        let mut state = PipelineState::<S4>::producer_start();
        let mut t = first;
        while t < end {
            arm_stage(&pipe, &mut state);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_src(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S4>::new();
        let mut acc = 0.0;
        let mut t = first;
        while t < end {
            acc += consume_one(&pipe, &mut state, ring, tid);
            t += step;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block_idx_x() * LANES + tid) as usize) = acc };
    }
}
