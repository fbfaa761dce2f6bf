//! Pipeline kernels whose protocol steps live in free helper functions: generic over the stage
//! count and not, taking states by `&mut`, returning stage pointers and addresses, layouts from
//! `const fn`s, and whole kernel bodies generic over their constants.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch,
    thread_idx_x,
};
use crate::{COLS, ROWS, TILE, TILE_BYTES};

// ------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------

/// Producer step: one tile into the stage `state` points at, then on to the next stage.
#[inline(always)]
unsafe fn fill_stage<const S: u32>(
    pipe: &Pipeline<S>,
    state: &mut PipelineState<S>,
    ring: u32,
    input: *const f32,
    tile: u32,
) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(
        ring + state.index() * TILE_BYTES,
        input.add(tile as usize * TILE) as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
    state.advance();
}

/// Consumer step: the column's eight elements of the next stage.
#[inline(always)]
unsafe fn drain_stage<const S: u32>(
    pipe: &Pipeline<S>,
    state: &mut PipelineState<S>,
    ring: *const f32,
    column: usize,
) -> f32 {
    pipe.consumer_wait(state);
    let stage = ring.add(state.index() as usize * TILE);
    let mut part = 0.0f32;
    for r in 0..ROWS {
        part += *stage.add(r * COLS + column);
    }
    pipe.consumer_release(state);
    state.advance();
    part
}

/// Tiles this block owns: `block, block + grid, …` below `tiles`.
#[inline(always)]
fn owned_tiles(tiles: u32) -> u32 {
    let block = block_idx_x();
    let grid = grid_dim_x();
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

/// Stage `state` of a two-stage ring of floats.
#[inline(always)]
fn stage_ptr(ring: *const f32, state: &PipelineState<2>) -> *const f32 {
    ring.wrapping_add(state.index() as usize * TILE)
}

/// Shared-window address of stage `state` of a two-stage ring.
#[inline(always)]
fn stage_addr(window: u32, state: &PipelineState<2>) -> u32 {
    window + state.index() * TILE_BYTES
}

const fn align_up(bytes: u32, to: u32) -> u32 {
    bytes.div_ceil(to) * to
}

/// Barriers first, then the ring at the next 128-byte boundary.
const fn front_layout(stages: u32) -> (u32, u32) {
    (0, align_up(pipeline_barrier_bytes(stages), 128))
}

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// Both roles are loops of one generic helper call each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_fill_drain_generic(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            fill_stage(&pipe, &mut state, window, input, tile);
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            sum += drain_stage(&pipe, &mut state, ring, column);
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// A two-stage ring addressed through non-generic helpers returning the stage's pointer and
/// window address.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_stage_ptr_return(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<2>::init(bars, 32) } else { Pipeline::<2>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                stage_addr(window, &st),
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let stage = stage_ptr(ring, &st);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = acc;
    }
}

/// Five stages; both loops are bounded by the same helper's count of owned tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_owned_tiles_bound(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut k = 0;
        while k < owned_tiles(tiles) {
            fill_stage(&pipe, &mut state, window, input, block + k * grid);
            k += 1;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut k = 0;
        while k < owned_tiles(tiles) {
            sum += drain_stage(&pipe, &mut state, ring, column);
            k += 1;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// A whole kernel body generic over its stage count and producer thread; the consumers are the
/// warp the producer is not in.
#[inline(always)]
unsafe fn generic_body<const S: u32, const PRODUCER: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == PRODUCER { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let consumer_warp = 1 - PRODUCER / 32;
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            fill_stage(&pipe, &mut state, window, input, tile);
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid / 32 == consumer_warp {
        let column = (tid % 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            sum += drain_stage(&pipe, &mut state, ring, column);
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// `generic_body` with three stages and thread 0 producing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_generic_body_three(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    generic_body::<3, 0>(input, tiles, out);
}

/// `generic_body` with six stages and thread 63 producing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_generic_body_six(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    generic_body::<6, 63>(input, tiles, out);
}

/// Layout from a `const fn`: barriers at 0, the ring at the next 128-byte boundary.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_const_fn_layout(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const LAYOUT: (u32, u32) = front_layout(S);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 16 { Pipeline::<S>::init(window + LAYOUT.0, 32) } else { Pipeline::<S>::attach(window + LAYOUT.0) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 16 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            fill_stage(&pipe, &mut state, window + LAYOUT.1, input, tile);
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>().add(LAYOUT.1 as usize / 4);
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            sum += drain_stage(&pipe, &mut state, ring, column);
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// Consumer step that takes its state by value: it advances its own copy.
#[inline(always)]
unsafe fn drain_stage_by_value<const S: u32>(
    pipe: &Pipeline<S>,
    mut state: PipelineState<S>,
    ring: *const f32,
    column: usize,
) -> f32 {
    pipe.consumer_wait(&state);
    let stage = ring.add(state.index() as usize * TILE);
    let mut part = 0.0f32;
    for r in 0..ROWS {
        part += *stage.add(r * COLS + column);
    }
    pipe.consumer_release(&state);
    state.advance();
    part
}

/// The consumers' helper takes the state by value, so the caller's state never leaves stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_bad_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            fill_stage(&pipe, &mut state, window, input, tile);
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            sum += drain_stage_by_value(&pipe, state, ring, column);
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Destination helper that writes "the slot after the one being read".
#[inline(always)]
fn next_slot_addr<const S: u32>(ring: u32, state: &PipelineState<S>) -> u32 {
    ring + ((state.index() + 1) % S) * TILE_BYTES
}

/// Copies land in the stage after the one whose full barrier they complete, so consumers read a
/// stage that holds an older tile or nothing yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_bad_dest_next_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                next_slot_addr(window, &state),
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            sum += drain_stage(&pipe, &mut state, ring, column);
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Producer step whose copy length is a count of floats handed on as bytes.
#[inline(always)]
unsafe fn fill_floats<const S: u32>(
    pipe: &Pipeline<S>,
    state: &mut PipelineState<S>,
    ring: u32,
    src: *const f32,
    len: usize,
) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, src as *const u8, len as u32, pipe.producer_barrier(state));
    state.advance();
}

/// The copy moves 256 bytes (the tile's float count) while 1024 are announced: the full
/// barriers never complete.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_bad_copy_len_floats(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            fill_floats(&pipe, &mut state, window, input.add(tile as usize * TILE), TILE);
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            sum += drain_stage(&pipe, &mut state, ring, column);
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// The empty barriers expect "every thread but the producer" (63) while only warp 1 (32 threads)
/// consumes and releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_bad_init_all_but_producer(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const CONSUMERS: u32 = 64 - 1;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, CONSUMERS) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            fill_stage(&pipe, &mut state, window, input, tile);
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            sum += drain_stage(&pipe, &mut state, ring, column);
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// "The producer is warp 1": the lane election was forgotten.
#[inline(always)]
fn is_producer(tid: u32) -> bool {
    tid / 32 == 1
}

/// Every lane of warp 1 runs the producer loop: 32 arrivals and 32 copies per stage on full
/// barriers initialised for one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_bad_elect_whole_warp(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if is_producer(tid) {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            fill_stage(&pipe, &mut state, window, input, tile);
            tile += grid;
        }
        pipe.producer_tail(state);
    } else {
        let column = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            sum += drain_stage(&pipe, &mut state, ring, column);
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Stage pointer helper that scales the index by the tile's bytes on a float pointer.
#[inline(always)]
fn stage_of<const S: u32>(ring: *const f32, state: &PipelineState<S>) -> *const f32 {
    ring.wrapping_add(state.index() as usize * TILE_BYTES as usize)
}

/// The consumers' stage pointer is four times too far (bytes counted as floats): stage 1 reads
/// the barriers and beyond, stage 2 lies past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_help_bad_stage_units(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            fill_stage(&pipe, &mut state, window, input, tile);
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = stage_of(ring, &state);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}
