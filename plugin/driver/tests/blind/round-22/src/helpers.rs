//! Pipeline kernels factored into small free functions: a setup helper, a producer step, a
//! consumer step, a stage-pointer helper, a column reader and a tile-count helper.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;

/// Initialises the pipeline at `bars` from thread 0 and makes it visible to the block.
#[inline(always)]
fn setup<const S: u32>(bars: u32, consumers: u32) -> Pipeline<S> {
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(bars, consumers);
    }
    barrier();
    Pipeline::<S>::attach(bars)
}

/// How many tiles this block owns (`b, b + grid, …` below `tiles`).
#[inline(always)]
fn owned_tiles(tiles: u32) -> u32 {
    let first = block_idx_x();
    let step = grid_dim_x();
    if tiles > first { (tiles - first + step - 1) / step } else { 0 }
}

/// Global address of tile `t`.
#[inline(always)]
unsafe fn tile_source(input: *const f32, t: u32) -> *const u8 {
    input.add((t * TILE_FLOATS) as usize) as *const u8
}

/// The first float of the stage `state` points at.
#[inline(always)]
unsafe fn stage_ptr<const S: u32>(ring: *const f32, state: &PipelineState<S>) -> *const f32 {
    ring.add((state.index() * TILE_FLOATS) as usize)
}

/// Sum of one column of a staged tile.
#[inline(always)]
unsafe fn column_sum(stage: *const f32, col: u32) -> f32 {
    let mut sum = 0.0f32;
    for r in 0..ROWS {
        sum += *stage.add((r * COLS + col) as usize);
    }
    sum
}

/// One producer step: acquire, announce, copy, advance.
#[inline(always)]
unsafe fn fill<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, window: u32, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

/// One consumer step: wait, read a column, release, advance.
#[inline(always)]
unsafe fn drain<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, ring: *const f32, col: u32) -> f32 {
    pipe.consumer_wait(state);
    let v = column_sum(stage_ptr(ring, state), col);
    pipe.consumer_release(state);
    state.advance();
    v
}

/// Producer and consumer steps as helpers, a tile-count helper bounding both loops.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_fill_drain(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup::<S>(window + S * TILE_BYTES, COLS);
    let tid = thread_idx_x();
    let n = owned_tiles(tiles);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        for k in 0..n {
            fill(&pipe, &mut state, window, tile_source(input, first + k * step));
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            acc += drain(&pipe, &mut state, ring, tid);
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// A consumer step that takes its state by value and hands the advanced one back.
#[inline(always)]
unsafe fn consume_step<const S: u32>(
    pipe: &Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    col: u32,
    acc: &mut f32,
) -> PipelineState<S> {
    let mut state = state;
    pipe.consumer_wait(&state);
    *acc += column_sum(stage_ptr(ring, &state), col);
    pipe.consumer_release(&state);
    state.advance();
    state
}

/// Three stages; the consumer's state travels through a by-value helper.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let pipe = setup::<S>(bars, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            state = consume_step(&pipe, state, ring, tid, &mut acc);
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// The column read as a slice: skip to the column, step by a row.
#[inline(always)]
unsafe fn column_from_slice(stage: *const f32, col: u32) -> f32 {
    let tile = core::slice::from_raw_parts(stage, TILE_FLOATS as usize);
    tile.iter().skip(col as usize).step_by(COLS as usize).sum()
}

/// Two stages; the consumer reads its column through a slice helper.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_column_slice(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup::<S>(window + S * TILE_BYTES, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_from_slice(stage_ptr(ring, &state), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Reads `rows` values `stride` apart, generic over the element type.
#[inline(always)]
unsafe fn read_strided<T: Copy + Default + core::ops::AddAssign>(p: *const T, rows: usize, stride: usize) -> T {
    let mut acc = T::default();
    let mut r = 0;
    while r < rows {
        acc += *p.add(r * stride);
        r += 1;
    }
    acc
}

/// Five stages; the column is read by a generic strided reader started at the column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_generic_reader(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup::<S>(window + S * TILE_BYTES, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = stage_ptr(ring, &state);
            acc += read_strided(stage.add(tid as usize), ROWS as usize, COLS as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Where everything lives: the ring's window address, its generic pointer, the barriers.
#[inline(always)]
fn layout<const S: u32>() -> (u32, *mut f32, u32) {
    let window = dynamic_shared_window_address();
    (window, dynamic_shared_base::<f32>(), window + S * TILE_BYTES)
}

/// Four stages; the layout comes from a helper returning a tuple; thread 0 produces and warp 1
/// consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_layout_tuple(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let (window, ring, bars) = layout::<S>();
    let pipe = setup::<S>(bars, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += drain(&pipe, &mut state, ring, col);
            t += step;
        }
        *out.add((first * COLS + col) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// Tile count off by one: "the tiles after the first, plus the first".
#[inline(always)]
fn owned_tiles_plus(tiles: u32) -> u32 {
    let first = block_idx_x();
    let step = grid_dim_x();
    if tiles > first { (tiles - first) / step + 1 } else { 0 }
}

/// BROKEN: the consumers count their tiles with `owned_tiles_plus`, which gives block 0 nine
/// tiles of 64 where the producer's `while t < tiles` copies eight: block 0's consumers wait
/// for a ninth tile forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_bad_owned_plus_one(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup::<S>(window + S * TILE_BYTES, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..owned_tiles_plus(tiles) {
            acc += drain(&pipe, &mut state, ring, tid);
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// "The stage after the one being filled": reads the next stage of the ring.
#[inline(always)]
unsafe fn next_stage_ptr<const S: u32>(ring: *const f32, state: &PipelineState<S>) -> *const f32 {
    ring.add((((state.index() + 1) % S) * TILE_FLOATS) as usize)
}

/// BROKEN: the stage-pointer helper returns the stage after the state's, so each tile is read
/// from a stage holding another tile (or one still being filled).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_bad_next_stage_ptr(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup::<S>(window + S * TILE_BYTES, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(next_stage_ptr(ring, &state), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// A producer step that takes the state by value: the advance happens to the helper's copy.
#[inline(always)]
unsafe fn fill_copy<const S: u32>(pipe: &Pipeline<S>, mut state: PipelineState<S>, window: u32, src: *const u8) {
    pipe.producer_acquire(&state);
    pipe.producer_expect_tx(&state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
    state.advance();
}

/// BROKEN: the producer step takes its state by value, so the producer's own state never
/// advances: every tile is copied into stage 0, and the consumers wait on stage 1 forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_bad_fill_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup::<S>(window + S * TILE_BYTES, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            fill_copy(&pipe, state, window, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += drain(&pipe, &mut state, ring, tid);
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// The size of a tile, as its author remembered it.
#[inline(always)]
const fn tile_size() -> u32 {
    ROWS * COLS
}

/// BROKEN: `tile_size()` is the tile's element count, used as bytes by both the announcement
/// and the copy (they agree), so only the first 256 bytes (two rows) of each stage are filled
/// and rows 2 to 7 are read stale.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_bad_size_in_elements(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup::<S>(window + S * TILE_BYTES, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, tile_size());
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                tile_size(),
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += drain(&pipe, &mut state, ring, tid);
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Column sum "over every row", inclusive bound.
#[inline(always)]
unsafe fn column_sum_inclusive(stage: *const f32, col: u32) -> f32 {
    let mut sum = 0.0f32;
    for r in 0..=ROWS {
        sum += *stage.add((r * COLS + col) as usize);
    }
    sum
}

/// BROKEN: the column reader runs `0..=ROWS`, nine rows, reading row 0 of the next stage (and,
/// from the last stage, the barriers) into every column sum.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_help_bad_nine_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup::<S>(window + S * TILE_BYTES, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            fill(&pipe, &mut state, window, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum_inclusive(stage_ptr(ring, &state), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}
