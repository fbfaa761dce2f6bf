//! Pipelines written with iterators: `step_by` ranges over the owned tiles, stages viewed as
//! slices (`from_raw_parts`) and walked with `chunks`, `skip`/`step_by`, `enumerate`, `zip`,
//! and a producer that walks its tiles backwards.

#![allow(unsafe_op_in_unsafe_fn)]

use core::slice;

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const S: u32 = 4;
const RING: u32 = 64;
const RING_FLOATS: usize = RING as usize / 4;

#[inline(always)]
fn setup() -> (Pipeline<S>, u32) {
    let win = dynamic_shared_window_address();
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    (Pipeline::<S>::attach(win), win)
}

/// One producer step: acquire, announce, copy tile `t` into the state's stage, advance.
#[inline(always)]
fn produce(pipe: &Pipeline<S>, st: &mut PipelineState<S>, win: u32, input: *const f32, t: u32) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

/// Both roles walk `(first..tiles).step_by(grid)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_step_by_ranges(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = setup();
    let owned = (block_idx_x()..tiles).step_by(grid_dim_x() as usize);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in owned {
            produce(&pipe, &mut st, win, input, t);
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _t in owned {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        }
        store_column(out, tid, acc);
    }
}

/// Each stage is a slice; a lane sums `skip(lane).step_by(32)` of it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_slice_skip_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = setup();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            produce(&pipe, &mut st, win, input, t);
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS) as *const f32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(ring.add(st.index() as usize * TILE_FLOATS), TILE_FLOATS);
            acc += stage.iter().skip(tid as usize).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// A stage slice cut into rows with `chunks`, the lane's element of each row summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_chunks_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = setup();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..n {
            produce(&pipe, &mut st, win, input, owned_tile(k));
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS) as *const f32;
        let lane = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(ring.add(st.index() as usize * TILE_FLOATS), TILE_FLOATS);
            for row in stage.chunks(COLS) {
                acc += row[lane];
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        store_column(out, tid, acc);
    }
}

/// The producer copies its tiles last to first; a column sum does not care about the order.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_reverse_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = setup();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in (0..n).rev() {
            produce(&pipe, &mut st, win, input, owned_tile(k));
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        }
        store_column(out, tid, acc);
    }
}

/// A stage borrowed as `&[[f32; 32]; 8]`, its rows walked with `enumerate` and the row weights
/// (all one) zipped in.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_enumerate_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = setup();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            produce(&pipe, &mut st, win, input, t);
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS) as *const [[f32; COLS]; ROWS];
        let lane = tid as usize;
        let weights = [1.0f32; ROWS];
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&st);
            let tile: &[[f32; COLS]; ROWS] = &*ring.add(st.index() as usize);
            for (_r, (row, w)) in tile.iter().zip(weights.iter()).enumerate() {
                acc += row[lane] * *w;
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the consumer takes its stage from a cycle over `0..LAST_STAGE` zipped with the tiles,
/// where `LAST_STAGE = S - 1` was meant inclusively: stage 3 is never read, and stages 0..2 are
/// read while they hold other tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_bad_cycle_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const LAST_STAGE: usize = S as usize - 1;
    let tid = thread_idx_x();
    let (pipe, win) = setup();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..n {
            produce(&pipe, &mut st, win, input, owned_tile(k));
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for (_k, slot) in (0..n).zip((0..LAST_STAGE).cycle()) {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(slot * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the consumers' range end is rounded up by `grid - 1` ("ceil"), which gives blocks
/// 0..6 one tile more than the producer copies; they wait on a stage nobody fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_bad_ceil_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = setup();
    let step = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in (block_idx_x()..tiles).step_by(step as usize) {
            produce(&pipe, &mut st, win, input, t);
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (block_idx_x()..tiles + step - 1).step_by(step as usize) {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the producer writes each tile into "the other stage of the pair" (`index ^ 1`), a
/// swap written for two stages in a ring of three: tiles of stage 2 go to a fourth slot
/// nobody reads, and stage 2 is read without ever being written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_bad_pair_swap_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S3: u32 = 3;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S3>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S3>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S3>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let slot = st.index() ^ 1;
            bulk_copy_global_to_shared(win + RING + slot * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS);
        let mut st = PipelineState::<S3>::new();
        let mut acc = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the stage slice is one row too long (`TILE_FLOATS + COLS`), so `chunks` yields a
/// ninth row taken from the next stage (or past the ring for the last one).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_bad_nine_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = setup();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..n {
            produce(&pipe, &mut st, win, input, owned_tile(k));
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS) as *const f32;
        let lane = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(ring.add(st.index() as usize * TILE_FLOATS), TILE_FLOATS + COLS);
            acc += stage.chunks(COLS).map(|row| row[lane]).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the slot a lane reads is remembered from the previous tile (`slot` is updated after
/// the read), so every tile after the first is read from the stage just released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pi_bad_lagging_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = setup();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            produce(&pipe, &mut st, win, input, t);
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING_FLOATS);
        let mut st = PipelineState::<S>::new();
        let mut slot = 0usize;
        let mut acc = 0.0f32;
        for (_k, _t) in (block_idx_x()..tiles).step_by(grid_dim_x() as usize).enumerate() {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(slot * TILE_FLOATS), tid as usize);
            slot = st.index() as usize;
            pipe.consumer_release(&st);
            st.advance();
        }
        store_column(out, tid, acc);
    }
}
