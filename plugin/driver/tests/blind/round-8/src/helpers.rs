//! Kernels that push the work into helper functions (some `#[inline(never)]`) and try the
//! different loop shapes: `loop` + `break`, `for` over a stepped range, counted loops.

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const BARRIERS: u32 = STAGES * TILE_BYTES;

type Pipe = Pipeline<STAGES>;
type State = PipelineState<STAGES>;

/// Thread 0 initialises, everyone attaches, one block barrier.
#[inline(always)]
fn setup() -> Pipe {
    let bars = dynamic_shared_window_address() + BARRIERS;
    let pipe = if thread_idx_x() == 0 { Pipe::init(bars, 32) } else { Pipe::attach(bars) };
    barrier();
    pipe
}

#[inline(always)]
fn source(input: *const f32, tile: u32) -> *const u8 {
    unsafe { input.add((tile * TILE_FLOATS) as usize) }.cast()
}

#[inline(always)]
fn load_tile(pipe: &Pipe, state: &State, input: *const f32, tile: u32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    let dst = dynamic_shared_window_address() + state.index() * TILE_BYTES;
    bulk_copy_global_to_shared(dst, source(input, tile), TILE_BYTES, pipe.producer_barrier(state));
}

#[inline(always)]
fn column_sum(stage: *const f32, column: u32) -> f32 {
    let mut s = 0.0;
    let mut row = 0;
    while row < 8 {
        s += unsafe { *stage.add((row * 32 + column) as usize) };
        row += 1;
    }
    s
}

#[inline(always)]
fn stage_of(state: &State) -> *const f32 {
    unsafe { dynamic_shared_base::<f32>().add((state.index() * TILE_FLOATS) as usize) }
}

// ---------------------------------------------------------------------------------------------

#[inline(never)]
fn produce_all(pipe: &Pipe, input: *const f32, tiles: u32) {
    let mut state = State::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        load_tile(pipe, &state, input, tile);
        state.advance();
        tile += grid_dim_x();
    }
    pipe.producer_tail(state);
}

#[inline(never)]
fn consume_all(pipe: &Pipe, tiles: u32, column: u32) -> f32 {
    let mut state = State::new();
    let mut total = 0.0;
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.consumer_wait(&state);
        total += column_sum(stage_of(&state), column);
        pipe.consumer_release(&state);
        state.advance();
        tile += grid_dim_x();
    }
    total
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_helpers_noinline_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let pipe = setup();
    let tid = thread_idx_x();
    if tid == 32 {
        produce_all(&pipe, input, tiles);
    } else if tid < 32 {
        let total = consume_all(&pipe, tiles, tid);
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------

/// "Give me the next stage": waits, hands the stage back, and already releases it and moves on
/// so that the caller cannot forget. The caller reads the stage after the release.
#[inline(never)]
fn next_stage(pipe: &Pipe, state: &mut State) -> *const f32 {
    pipe.consumer_wait(state);
    let stage = stage_of(state);
    pipe.consumer_release(state);
    state.advance();
    stage
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_helpers_sum_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let pipe = setup();
    let tid = thread_idx_x();
    if tid == 32 {
        produce_all(&pipe, input, tiles);
    } else if tid < 32 {
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let stage = next_stage(&pipe, &mut state);
            total += column_sum(stage, tid);
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------

/// `loop` with the exit test at the top, on both sides.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_helpers_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let pipe = setup();
    let tid = thread_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        loop {
            if tile >= tiles {
                break;
            }
            load_tile(&pipe, &state, input, tile);
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        loop {
            if tile >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            total += column_sum(stage_of(&state), tid);
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = total };
    }
}

/// `for tile in (blockIdx.x..tiles).step_by(gridDim.x)` on both sides.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_helpers_for_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let pipe = setup();
    let tid = thread_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = State::producer_start();
        for tile in (block_idx_x()..tiles).step_by(step) {
            load_tile(&pipe, &state, input, tile);
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = State::new();
        let mut total = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            total += column_sum(stage_of(&state), tid);
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = total };
    }
}

/// The consumers iterate an inclusive range "up to the last tile": one tile more than the
/// producer fills in the blocks whose last step lands on `tiles` itself.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_helpers_inclusive_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let pipe = setup();
    let tid = thread_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = State::producer_start();
        for tile in (block_idx_x()..tiles).step_by(step) {
            load_tile(&pipe, &state, input, tile);
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = State::new();
        let mut total = 0.0f32;
        for _ in (block_idx_x()..=tiles).step_by(step) {
            pipe.consumer_wait(&state);
            total += column_sum(stage_of(&state), tid);
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------

/// Consumer helper that stops as soon as it has read the last tile, returning from inside the
/// window: the last stage is never released and the producer's tail waits for it.
#[inline(never)]
fn consume_until_last(pipe: &Pipe, tiles: u32, column: u32) -> f32 {
    let mut state = State::new();
    let mut total = 0.0;
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.consumer_wait(&state);
        total += column_sum(stage_of(&state), column);
        if tile + grid_dim_x() >= tiles {
            return total;
        }
        pipe.consumer_release(&state);
        state.advance();
        tile += grid_dim_x();
    }
    total
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_helpers_early_return_holding(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let pipe = setup();
    let tid = thread_idx_x();
    if tid == 32 {
        produce_all(&pipe, input, tiles);
    } else if tid < 32 {
        let total = consume_until_last(&pipe, tiles, tid);
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------

/// Tiles this block handles: `ceil((tiles - b) / g)` for `b < tiles`.
#[inline(always)]
fn my_tile_count(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

/// Both sides count their tiles first, then run `for k in 0..n`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_helpers_counted_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let pipe = setup();
    let tid = thread_idx_x();
    let n = my_tile_count(tiles);
    if tid == 32 {
        let mut state = State::producer_start();
        for k in 0..n {
            load_tile(&pipe, &state, input, block_idx_x() + k * grid_dim_x());
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = State::new();
        let mut total = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            total += column_sum(stage_of(&state), tid);
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = total };
    }
}

/// The consumers count with a floor division while the producer walks the tiles: every block
/// but the first gets one tile fewer than the producer fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_helpers_count_mismatch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let pipe = setup();
    let tid = thread_idx_x();
    if tid == 32 {
        produce_all(&pipe, input, tiles);
    } else if tid < 32 {
        let n = if block_idx_x() < tiles { (tiles - block_idx_x()) / grid_dim_x() } else { 0 };
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut k = 0;
        while k < n {
            pipe.consumer_wait(&state);
            total += column_sum(stage_of(&state), tid);
            pipe.consumer_release(&state);
            state.advance();
            k += 1;
        }
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------

/// A stage-pointer helper that scales the stage index by the tile's bytes on an `f32` pointer:
/// stage 1 reads the barriers and what follows, stage 2 and up lie past the window.
#[inline(never)]
fn stage_pointer(base: *mut f32, index: u32) -> *const f32 {
    unsafe { base.add((index * TILE_BYTES) as usize) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_helpers_stage_index_units(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let pipe = setup();
    let tid = thread_idx_x();
    if tid == 32 {
        produce_all(&pipe, input, tiles);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.consumer_wait(&state);
            total += column_sum(stage_pointer(base, state.index()), tid);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = total };
    }
}
