//! Shared memory handed to helpers as slices: a stage becomes `&[f32]`, `&[[f32; 32]; 8]` or two
//! halves from `split_at`, and the helpers that sum a column never see a raw pointer. Results
//! can also go through a shared `&mut [f32]` scratch before warp 1 writes them out.
//!
//! Ring at the start of the window, barriers after it, scratch (32 floats) after the barriers.
//! Thread 32 copies; threads 0..32 each sum one column.

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROW: usize = 32;
const ROWS: usize = 8;
const STAGES: u32 = 4;
const RING_BYTES: u32 = STAGES * TILE_BYTES;
const SCRATCH_AT: usize = (RING_BYTES + 16 * STAGES) as usize;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

type Rows = [[f32; ROW]; ROWS];

#[inline(always)]
fn owned(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

#[inline(always)]
fn open() -> Pipeline<STAGES> {
    let bars = dynamic_shared_window_address() + RING_BYTES;
    let pipe = if thread_idx_x() == 0 { Pipeline::<STAGES>::init(bars, CONSUMERS) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    pipe
}

#[inline(always)]
fn produce(pipe: &Pipeline<STAGES>, input: *const f32, n: u32, b: u32, g: u32) {
    let window = dynamic_shared_window_address();
    let mut state = PipelineState::<STAGES>::producer_start();
    for k in 0..n {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let src = input.wrapping_add(((b + k * g) as usize) * TILE);
        bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
    }
    pipe.producer_tail(state);
}

/// The stage `state` points at, as a flat slice of `len` floats.
#[inline(always)]
unsafe fn stage_slice<'a>(state: &PipelineState<STAGES>, len: usize) -> &'a [f32] {
    let ring = dynamic_shared_base::<f32>() as *const f32;
    slice::from_raw_parts(ring.add(state.index() as usize * TILE), len)
}

/// The stage `state` points at, as rows.
#[inline(always)]
unsafe fn stage_rows<'a>(state: &PipelineState<STAGES>) -> &'a Rows {
    let ring = dynamic_shared_base::<f32>() as *const f32;
    &*(ring.add(state.index() as usize * TILE) as *const Rows)
}

/// Column `c` of a tile laid out row after row.
#[inline(always)]
fn column_of(tile: &[f32], c: usize) -> f32 {
    tile.iter().skip(c).step_by(ROW).sum()
}

/// Column `c` of a tile held as rows.
#[inline(always)]
fn column_of_rows(rows: &Rows, c: usize) -> f32 {
    let mut acc = 0.0;
    for row in rows {
        acc += row[c];
    }
    acc
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_views_flat_slice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        produce(&pipe, input, n, b, g);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            acc += column_of(stage_slice(&state, TILE), c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_views_row_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        produce(&pipe, input, n, b, g);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            acc += column_of_rows(stage_rows(&state), c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Column `c` of four rows.
#[inline(always)]
fn half_column(half: &[f32], c: usize) -> f32 {
    let mut acc = 0.0;
    let mut i = c;
    while i < half.len() {
        acc += half[i];
        i += ROW;
    }
    acc
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_views_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        produce(&pipe, input, n, b, g);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let (mut top_sum, mut bottom_sum) = (0.0f32, 0.0f32);
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let (top, bottom) = stage_slice(&state, TILE).split_at(TILE / 2);
            top_sum += half_column(top, c);
            bottom_sum += half_column(bottom, c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = top_sum + bottom_sum;
    }
}

/// 32 floats of scratch `at` bytes into the window (past the ring and its barriers).
#[inline(always)]
unsafe fn scratch<'a>(at: usize) -> &'a mut [f32] {
    slice::from_raw_parts_mut(dynamic_shared_base::<u8>().add(at) as *mut f32, 32)
}

/// The last 128 bytes of the window.
const TOP_SCRATCH_AT: usize = 8192 - 128;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_views_scratch_handoff(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        produce(&pipe, input, n, b, g);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            acc += column_of_rows(stage_rows(&state), c);
            pipe.consumer_release(&state);
            state.advance();
        }
        scratch(SCRATCH_AT)[c] = acc;
    }
    barrier();
    // Warp 1 writes the block's row of results.
    if tid >= 32 {
        let lane = lane_id() as usize;
        *out.add(b as usize * 32 + lane) = scratch(SCRATCH_AT)[lane];
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_views_bad_slice_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        produce(&pipe, input, n, b, g);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            acc += column_of(stage_slice(&state, TILE_BYTES as usize), c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_views_bad_scratch_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        produce(&pipe, input, n, b, g);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            acc += column_of_rows(stage_rows(&state), c);
            pipe.consumer_release(&state);
            state.advance();
        }
        scratch(TOP_SCRATCH_AT)[c] = acc;
    }
    if tid >= 32 {
        let lane = lane_id() as usize;
        *out.add(b as usize * 32 + lane) = scratch(TOP_SCRATCH_AT)[lane];
    }
}

/// The stage a copy lands in, by the address the copy was given.
#[inline(always)]
unsafe fn rows_at<'a>(address: u32) -> &'a Rows {
    &*(address as usize as *const Rows)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_views_bad_rows_at_destination(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open();
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        produce(&pipe, input, n, b, g);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            acc += column_of_rows(rows_at(window + state.index() * TILE_BYTES), c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Hands a stage back for the whole warp.
#[inline(always)]
fn done_with(pipe: &Pipeline<STAGES>, state: &PipelineState<STAGES>) {
    if lane_id() == 0 {
        pipe.consumer_release(state);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_views_bad_warp_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        produce(&pipe, input, n, b, g);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let (top, bottom) = stage_slice(&state, TILE).split_at(TILE / 2);
            acc += half_column(top, c) + half_column(bottom, c);
            done_with(&pipe, &state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}
