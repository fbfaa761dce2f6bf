//! Assorted styles: a `#[repr(C)]` tile type in shared memory, an accumulator struct with
//! `&mut self` methods, closures doing the staging, a helper that views the stage as words, and
//! a pipeline whose producer thread publishes the result once its tail has seen every release.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};
use crate::helpers::{COLS, ROWS, TILE_FLOATS, column_of, fill_stage, stage_tile, tiles_of_block};

#[repr(C)]
struct Tile {
    rows: [[f32; 32]; 8],
}

/// The tile as a `#[repr(C)]` struct at window byte 0; warp `w` copies rows `w, w + 2, …`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_style_tile_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (lane, warp) = (tid % 32, tid / 32);
    let tile = dynamic_shared_base::<Tile>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS) as *const Tile;
        let mut r = warp;
        while r < 8 {
            (*tile).rows[r][lane] = (*src).rows[r][lane];
            r += 2;
        }
        barrier();
        if warp == 0 {
            acc += (*tile).rows.iter().map(|row| row[lane]).sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if warp == 0 {
        *out.add(block_idx_x() as usize * 32 + lane) = acc;
    }
}

/// A thread's share of the columns: half `half` of column `lane`.
struct Share {
    lane: usize,
    half: usize,
    acc: f32,
}

impl Share {
    fn of(tid: usize) -> Share {
        Share { lane: tid % COLS, half: tid / COLS, acc: 0.0 }
    }

    unsafe fn take(&mut self, tile: *const f32) {
        for r in 0..ROWS / 2 {
            self.acc += *tile.add((self.half * 4 + r) * COLS + self.lane);
        }
    }

    unsafe fn publish(&self, scratch: *mut f32) {
        *scratch.add(self.half * COLS + self.lane) = self.acc;
    }
}

/// Staging at float 0, each thread's `Share` summed over the tiles, published to floats
/// 512..576 at the end and combined by warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_style_share_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let scratch = s.add(512);
    let mut share = Share::of(tid);
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(input.add(t as usize * TILE_FLOATS), s, tid);
        barrier();
        share.take(s);
        barrier();
        t += grid_dim_x();
    }
    share.publish(scratch);
    barrier();
    if tid < COLS {
        *out.add(block_idx_x() as usize * COLS + tid) = *scratch.add(tid) + *scratch.add(COLS + tid);
    }
}

/// Staging through a closure (into floats 1024..1280), rows summed in reverse order.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_style_closure_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>().add(1024);
    let stage = |t: u32| {
        let src = input.add(t as usize * TILE_FLOATS);
        (0..4).for_each(|k| *buf.add(tid + 64 * k) = *src.add(tid + 64 * k));
    };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage(t);
        barrier();
        if tid < COLS {
            for r in (0..ROWS).rev() {
                acc += *buf.add(r * COLS + tid);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        *out.add(block_idx_x() as usize * COLS + tid) = acc;
    }
}

/// Sums column `lane` of a tile handed over as raw 32-bit words.
#[inline(never)]
unsafe fn column_of_words(words: *const u32, lane: usize) -> f32 {
    let mut sum = 0.0f32;
    for r in 0..ROWS {
        sum += *words.add(r * COLS + lane) as f32;
    }
    sum
}

/// BROKEN: the staged tile is handed to a helper as `*const u32`, which converts each word's
/// integer value (`as f32`) instead of reinterpreting its bits.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_style_tile_read_as_words(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage_tile(input.add(t as usize * TILE_FLOATS), s, tid);
        barrier();
        if tid < COLS {
            acc += column_of_words(s as *const u32, tid);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        *out.add(block_idx_x() as usize * COLS + tid) = acc;
    }
}

/// Four stages at byte 1024, barriers at 0, the consumers' column sums at floats 1536..1568.
const PUB_STAGES: u32 = 4;
const PUB_RING: u32 = 1024;
const PUB_SCRATCH: usize = 1536;

/// Consumers (warp 1) store their column sums into shared scratch just before releasing their
/// last stage; the producer, once `producer_tail` has seen that release, writes the 32 outputs.
/// With `keep_tail == false` the producer skips the tail and reads the scratch at once.
#[inline(always)]
unsafe fn producer_publishes(input: *const f32, tiles: u32, out: *mut f32, keep_tail: bool) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let scratch = dynamic_shared_base::<f32>().add(PUB_SCRATCH);
    if tid == 0 {
        Pipeline::<PUB_STAGES>::init(window, 32);
    }
    if tid >= 32 {
        *scratch.add((tid - 32) as usize) = 0.0;
    }
    barrier();
    let pipe = Pipeline::<PUB_STAGES>::attach(window);
    let (first, step) = (block_idx_x(), grid_dim_x());
    let n = tiles_of_block(first, step, tiles);
    let row = out.add(first as usize * COLS);
    if tid == 0 {
        let mut state = PipelineState::<PUB_STAGES>::producer_start();
        for k in 0..n {
            fill_stage(&pipe, &mut state, window + PUB_RING, input.add((first + k * step) as usize * TILE_FLOATS));
        }
        if keep_tail {
            pipe.producer_tail(state);
        }
        for c in 0..COLS {
            *row.add(c) = *scratch.add(c);
        }
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let stages = dynamic_shared_base::<f32>().add(PUB_RING as usize / 4);
        let mut state = PipelineState::<PUB_STAGES>::new();
        let mut sum = 0.0f32;
        for k in 0..n {
            pipe.consumer_wait(&state);
            sum += column_of(stages.add(state.index() as usize * TILE_FLOATS), lane);
            if k + 1 == n {
                *scratch.add(lane) = sum;
            }
            pipe.consumer_release(&state);
            state.advance();
        }
    }
}

/// The producer thread writes the block's outputs after its tail.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_style_producer_publishes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    producer_publishes(input, tiles, out, true);
}

/// BROKEN: as `r15_style_producer_publishes` without the producer's tail: the producer reads the
/// scratch (still zero) as soon as it has issued its last copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_style_producer_publishes_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    producer_publishes(input, tiles, out, false);
}
