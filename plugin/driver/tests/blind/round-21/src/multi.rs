//! Kernels with several pipelines, several copies per stage, arrays of states and arrays of
//! stage pointers.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use crate::{COLS, CONSUMERS, ROWS, TILE_BYTES, TILE_FLOATS, column_sum, owned_tiles, store_column, tile_source};

const HALF_BYTES: u32 = TILE_BYTES / 2;
const HALF_FLOATS: usize = TILE_FLOATS / 2;
const HALF_ROWS: usize = ROWS / 2;

#[inline(always)]
unsafe fn half_column(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0f32;
    for row in 0..HALF_ROWS {
        s += *stage.add(row * COLS + col);
    }
    s
}

/// Two pipelines of four stages: one carries each tile's top four rows, the other its bottom
/// four, each with its own producer thread (32 and 33); consumers wait on both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_two_pipelines_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const TOP_RING: u32 = 0;
    const BOTTOM_RING: u32 = S * HALF_BYTES;
    const TOP_BARRIERS: u32 = 2 * S * HALF_BYTES;
    const BOTTOM_BARRIERS: u32 = TOP_BARRIERS + pipeline_barrier_bytes(S);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + TOP_BARRIERS, CONSUMERS);
        Pipeline::<S>::init(window + BOTTOM_BARRIERS, CONSUMERS);
    }
    barrier();
    let top = Pipeline::<S>::attach(window + TOP_BARRIERS);
    let bottom = Pipeline::<S>::attach(window + BOTTOM_BARRIERS);
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            top.producer_acquire(&state);
            top.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(window + TOP_RING + state.index() * HALF_BYTES, tile_source(input, t), HALF_BYTES, top.producer_barrier(&state));
            state.advance();
            t += step;
        }
        top.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            bottom.producer_acquire(&state);
            bottom.producer_expect_tx(&state, HALF_BYTES);
            let source = tile_source(input, t).add(HALF_BYTES as usize);
            bulk_copy_global_to_shared(window + BOTTOM_RING + state.index() * HALF_BYTES, source, HALF_BYTES, bottom.producer_barrier(&state));
            state.advance();
            t += step;
        }
        bottom.producer_tail(state);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let top_ring = base.add(TOP_RING as usize / 4);
        let bottom_ring = base.add(BOTTOM_RING as usize / 4);
        let col = tid as usize;
        let mut top_state = PipelineState::<S>::new();
        let mut bottom_state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            top.consumer_wait(&top_state);
            bottom.consumer_wait(&bottom_state);
            sum += half_column(top_ring.add(top_state.index() as usize * HALF_FLOATS), col);
            sum += half_column(bottom_ring.add(bottom_state.index() as usize * HALF_FLOATS), col);
            top.consumer_release(&top_state);
            bottom.consumer_release(&bottom_state);
            top_state.advance();
            bottom_state.advance();
            t += step;
        }
        store_column(out, col, sum);
    }
}

/// One pipeline of three stages; each stage is filled by two half-tile copies against one
/// `expect_tx` of the whole tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_two_copies_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(barriers, CONSUMERS) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let destination = window + state.index() * TILE_BYTES;
            let source = tile_source(input, t);
            bulk_copy_global_to_shared(destination, source, HALF_BYTES, pipe.producer_barrier(&state));
            bulk_copy_global_to_shared(destination + HALF_BYTES, source.add(HALF_BYTES as usize), HALF_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
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

/// Two pipelines of two stages take alternate tiles (even and odd positions in the block's
/// sequence); each role keeps its two states in an array indexed by constants.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_alternating_state_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const EVEN_RING: u32 = 0;
    const ODD_RING: u32 = S * TILE_BYTES;
    const EVEN_BARRIERS: u32 = 2 * S * TILE_BYTES;
    const ODD_BARRIERS: u32 = EVEN_BARRIERS + pipeline_barrier_bytes(S);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + EVEN_BARRIERS, CONSUMERS);
        Pipeline::<S>::init(window + ODD_BARRIERS, CONSUMERS);
    }
    barrier();
    let even = Pipeline::<S>::attach(window + EVEN_BARRIERS);
    let odd = Pipeline::<S>::attach(window + ODD_BARRIERS);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut states = [PipelineState::<S>::producer_start(); 2];
        for k in 0..n {
            let source = tile_source(input, block_idx_x() + k * grid_dim_x());
            if k % 2 == 0 {
                even.producer_acquire(&states[0]);
                even.producer_expect_tx(&states[0], TILE_BYTES);
                bulk_copy_global_to_shared(window + EVEN_RING + states[0].index() * TILE_BYTES, source, TILE_BYTES, even.producer_barrier(&states[0]));
                states[0].advance();
            } else {
                odd.producer_acquire(&states[1]);
                odd.producer_expect_tx(&states[1], TILE_BYTES);
                bulk_copy_global_to_shared(window + ODD_RING + states[1].index() * TILE_BYTES, source, TILE_BYTES, odd.producer_barrier(&states[1]));
                states[1].advance();
            }
        }
        even.producer_tail(states[0]);
        odd.producer_tail(states[1]);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut states = [PipelineState::<S>::new(); 2];
        let mut sum = 0.0f32;
        for k in 0..n {
            if k % 2 == 0 {
                even.consumer_wait(&states[0]);
                sum += column_sum(base.add(EVEN_RING as usize / 4 + states[0].index() as usize * TILE_FLOATS), col);
                even.consumer_release(&states[0]);
                states[0].advance();
            } else {
                odd.consumer_wait(&states[1]);
                sum += column_sum(base.add(ODD_RING as usize / 4 + states[1].index() as usize * TILE_FLOATS), col);
                odd.consumer_release(&states[1]);
                states[1].advance();
            }
        }
        store_column(out, col, sum);
    }
}

/// Four stages; the consumers pick their stage from an array of four stage pointers built
/// with `core::array::from_fn`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_stage_pointer_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(barriers, CONSUMERS) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let stages: [*const f32; S as usize] = core::array::from_fn(|s| ring.wrapping_add(s * TILE_FLOATS) as *const f32);
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(stages[state.index() as usize], tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

/// Five stages; each stage is filled by a loop of four quarter-tile copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_quarter_copies_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    const QUARTER: u32 = TILE_BYTES / 4;
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(barriers, CONSUMERS) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let destination = window + state.index() * TILE_BYTES;
            let source = tile_source(input, t);
            for q in 0..4u32 {
                bulk_copy_global_to_shared(destination + q * QUARTER, source.add((q * QUARTER) as usize), QUARTER, pipe.producer_barrier(&state));
            }
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
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

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

/// The bottom-half pipeline's producer announces a whole tile for its half-tile copy: the
/// bottom full barriers never complete.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_bad_half_pipeline_expects_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const TOP_RING: u32 = 0;
    const BOTTOM_RING: u32 = S * HALF_BYTES;
    const TOP_BARRIERS: u32 = 2 * S * HALF_BYTES;
    const BOTTOM_BARRIERS: u32 = TOP_BARRIERS + pipeline_barrier_bytes(S);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + TOP_BARRIERS, CONSUMERS);
        Pipeline::<S>::init(window + BOTTOM_BARRIERS, CONSUMERS);
    }
    barrier();
    let top = Pipeline::<S>::attach(window + TOP_BARRIERS);
    let bottom = Pipeline::<S>::attach(window + BOTTOM_BARRIERS);
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            top.producer_acquire(&state);
            top.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(window + TOP_RING + state.index() * HALF_BYTES, tile_source(input, t), HALF_BYTES, top.producer_barrier(&state));
            state.advance();
            t += step;
        }
        top.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            bottom.producer_acquire(&state);
            bottom.producer_expect_tx(&state, TILE_BYTES);
            let source = tile_source(input, t).add(HALF_BYTES as usize);
            bulk_copy_global_to_shared(window + BOTTOM_RING + state.index() * HALF_BYTES, source, HALF_BYTES, bottom.producer_barrier(&state));
            state.advance();
            t += step;
        }
        bottom.producer_tail(state);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut top_state = PipelineState::<S>::new();
        let mut bottom_state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            top.consumer_wait(&top_state);
            bottom.consumer_wait(&bottom_state);
            sum += half_column(base.add(TOP_RING as usize / 4 + top_state.index() as usize * HALF_FLOATS), col);
            sum += half_column(base.add(BOTTOM_RING as usize / 4 + bottom_state.index() as usize * HALF_FLOATS), col);
            top.consumer_release(&top_state);
            bottom.consumer_release(&bottom_state);
            top_state.advance();
            bottom_state.advance();
            t += step;
        }
        store_column(out, col, sum);
    }
}

/// The consumers release the bottom state on the top pipeline (a copy-paste slip): the bottom
/// pipeline's stages are never released and its producer stops after four tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_bad_release_on_other_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const TOP_RING: u32 = 0;
    const BOTTOM_RING: u32 = S * HALF_BYTES;
    const TOP_BARRIERS: u32 = 2 * S * HALF_BYTES;
    const BOTTOM_BARRIERS: u32 = TOP_BARRIERS + pipeline_barrier_bytes(S);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + TOP_BARRIERS, CONSUMERS);
        Pipeline::<S>::init(window + BOTTOM_BARRIERS, CONSUMERS);
    }
    barrier();
    let top = Pipeline::<S>::attach(window + TOP_BARRIERS);
    let bottom = Pipeline::<S>::attach(window + BOTTOM_BARRIERS);
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            top.producer_acquire(&state);
            top.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(window + TOP_RING + state.index() * HALF_BYTES, tile_source(input, t), HALF_BYTES, top.producer_barrier(&state));
            state.advance();
            t += step;
        }
        top.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            bottom.producer_acquire(&state);
            bottom.producer_expect_tx(&state, HALF_BYTES);
            let source = tile_source(input, t).add(HALF_BYTES as usize);
            bulk_copy_global_to_shared(window + BOTTOM_RING + state.index() * HALF_BYTES, source, HALF_BYTES, bottom.producer_barrier(&state));
            state.advance();
            t += step;
        }
        bottom.producer_tail(state);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut top_state = PipelineState::<S>::new();
        let mut bottom_state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            top.consumer_wait(&top_state);
            bottom.consumer_wait(&bottom_state);
            sum += half_column(base.add(TOP_RING as usize / 4 + top_state.index() as usize * HALF_FLOATS), col);
            sum += half_column(base.add(BOTTOM_RING as usize / 4 + bottom_state.index() as usize * HALF_FLOATS), col);
            top.consumer_release(&top_state);
            top.consumer_release(&bottom_state);
            top_state.advance();
            bottom_state.advance();
            t += step;
        }
        store_column(out, col, sum);
    }
}

/// The odd pipeline's ring starts at 1 KiB, inside the even ring (0..2 KiB): both pipelines
/// copy into bytes 1024..2048 at once.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_bad_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const EVEN_RING: u32 = 0;
    const ODD_RING: u32 = TILE_BYTES;
    const EVEN_BARRIERS: u32 = 4 * TILE_BYTES;
    const ODD_BARRIERS: u32 = EVEN_BARRIERS + pipeline_barrier_bytes(S);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + EVEN_BARRIERS, CONSUMERS);
        Pipeline::<S>::init(window + ODD_BARRIERS, CONSUMERS);
    }
    barrier();
    let even = Pipeline::<S>::attach(window + EVEN_BARRIERS);
    let odd = Pipeline::<S>::attach(window + ODD_BARRIERS);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut states = [PipelineState::<S>::producer_start(); 2];
        for k in 0..n {
            let source = tile_source(input, block_idx_x() + k * grid_dim_x());
            if k % 2 == 0 {
                even.producer_acquire(&states[0]);
                even.producer_expect_tx(&states[0], TILE_BYTES);
                bulk_copy_global_to_shared(window + EVEN_RING + states[0].index() * TILE_BYTES, source, TILE_BYTES, even.producer_barrier(&states[0]));
                states[0].advance();
            } else {
                odd.producer_acquire(&states[1]);
                odd.producer_expect_tx(&states[1], TILE_BYTES);
                bulk_copy_global_to_shared(window + ODD_RING + states[1].index() * TILE_BYTES, source, TILE_BYTES, odd.producer_barrier(&states[1]));
                states[1].advance();
            }
        }
        even.producer_tail(states[0]);
        odd.producer_tail(states[1]);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut states = [PipelineState::<S>::new(); 2];
        let mut sum = 0.0f32;
        for k in 0..n {
            if k % 2 == 0 {
                even.consumer_wait(&states[0]);
                sum += column_sum(base.add(EVEN_RING as usize / 4 + states[0].index() as usize * TILE_FLOATS), col);
                even.consumer_release(&states[0]);
                states[0].advance();
            } else {
                odd.consumer_wait(&states[1]);
                sum += column_sum(base.add(ODD_RING as usize / 4 + states[1].index() as usize * TILE_FLOATS), col);
                odd.consumer_release(&states[1]);
                states[1].advance();
            }
        }
        store_column(out, col, sum);
    }
}

/// The quarter-copy loop runs `0..3`: three quarters land against an announcement of the whole
/// tile, and the full barrier never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_bad_quarter_loop_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    const QUARTER: u32 = TILE_BYTES / 4;
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(barriers, CONSUMERS) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let destination = window + state.index() * TILE_BYTES;
            let source = tile_source(input, t);
            for q in 0..3u32 {
                bulk_copy_global_to_shared(destination + q * QUARTER, source.add((q * QUARTER) as usize), QUARTER, pipe.producer_barrier(&state));
            }
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
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

/// The stage-pointer array is built with a stride of one row (`s * COLS`) instead of one tile:
/// stages 1 to 3 point into stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_multi_bad_pointer_array_row_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(barriers, CONSUMERS) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let stages: [*const f32; S as usize] = core::array::from_fn(|s| ring.wrapping_add(s * COLS) as *const f32);
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(stages[state.index() as usize], tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}
