//! Pipeline kernels whose consumers read a stage through iterator adaptors (`fold`, `skip`,
//! `step_by`, `chunks_exact`, `map`/`sum`) and whose tile loops run over a small `Iterator` of
//! tile indices. Four stages at window byte 0, barriers right after the ring (byte 4096).

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const S: u32 = 4;
const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;

/// The tiles of one block: `next, next + step, …` below `end`.
#[derive(Clone, Copy)]
struct BlockTiles {
    next: u32,
    step: u32,
    end: u32,
}

impl BlockTiles {
    fn of_this_block(tiles: u32) -> Self {
        BlockTiles { next: block_idx_x(), step: grid_dim_x(), end: tiles }
    }
}

impl Iterator for BlockTiles {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.next < self.end {
            let tile = self.next;
            self.next += self.step;
            Some(tile)
        } else {
            None
        }
    }
}

struct Setup {
    pipe: Pipeline<S>,
    ring: u32,
    stages: *const f32,
}

#[inline(always)]
fn setup() -> Setup {
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if thread_idx_x() == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    Setup { pipe: Pipeline::attach(bars), ring: window, stages: dynamic_shared_base::<f32>() }
}

/// The producer's whole job, over a `BlockTiles` loop.
#[inline(always)]
unsafe fn producer(pipe: &Pipeline<S>, ring: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    for tile in BlockTiles::of_this_block(tiles) {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let src = unsafe { input.add(tile as usize * TILE_FLOATS) };
        bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
    }
    pipe.producer_tail(state);
}

#[inline(always)]
unsafe fn write_column(out: *mut f32, lane: usize, value: f32) {
    unsafe { *out.add(block_idx_x() as usize * COLS + lane) = value };
}

/// Consumers fold the eight rows of their column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_iter_fold_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Setup { pipe, ring, stages } = setup();
    let tid = thread_idx_x();
    if tid == 0 {
        unsafe { producer(&pipe, ring, input, tiles) };
    } else if tid >= 32 {
        let lane = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { stages.add(state.index() as usize * TILE_FLOATS) };
            total = (0..ROWS).fold(total, |acc, row| acc + unsafe { *stage.add(row * COLS + lane) });
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { write_column(out, lane, total) };
    }
}

/// Consumers view the stage as a slice and take every 32nd element from their lane.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_iter_slice_skip_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Setup { pipe, ring, stages } = setup();
    let tid = thread_idx_x();
    if tid == 0 {
        unsafe { producer(&pipe, ring, input, tiles) };
    } else if tid >= 32 {
        let lane = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        for _ in BlockTiles::of_this_block(tiles) {
            pipe.consumer_wait(&state);
            let tile = unsafe { slice::from_raw_parts(stages.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS) };
            total += tile.iter().skip(lane).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { write_column(out, lane, total) };
    }
}

/// BROKEN: the column iterator is built while the stage is held but summed after the release;
/// the producer may already be refilling the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_iter_sum_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Setup { pipe, ring, stages } = setup();
    let tid = thread_idx_x();
    if tid == 0 {
        unsafe { producer(&pipe, ring, input, tiles) };
    } else if tid >= 32 {
        let lane = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        for _ in BlockTiles::of_this_block(tiles) {
            pipe.consumer_wait(&state);
            let tile = unsafe { slice::from_raw_parts(stages.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS) };
            let column = tile.iter().skip(lane).step_by(COLS);
            pipe.consumer_release(&state);
            total += column.sum::<f32>();
            state.advance();
        }
        unsafe { write_column(out, lane, total) };
    }
}

/// Consumers walk the stage by rows with `chunks_exact`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_iter_chunks_exact_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Setup { pipe, ring, stages } = setup();
    let tid = thread_idx_x();
    if tid == 0 {
        unsafe { producer(&pipe, ring, input, tiles) };
    } else if tid >= 32 {
        let lane = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        for _ in BlockTiles::of_this_block(tiles) {
            pipe.consumer_wait(&state);
            let tile = unsafe { slice::from_raw_parts(stages.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS) };
            for row in tile.chunks_exact(COLS) {
                total += row[lane];
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { write_column(out, lane, total) };
    }
}

/// BROKEN: row 0 of the column is "prefetched" before the wait, from a stage whose copy has not
/// landed yet (or that still holds the tile of the previous pass).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_iter_head_row_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Setup { pipe, ring, stages } = setup();
    let tid = thread_idx_x();
    if tid == 0 {
        unsafe { producer(&pipe, ring, input, tiles) };
    } else if tid >= 32 {
        let lane = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        for _ in BlockTiles::of_this_block(tiles) {
            let stage = unsafe { stages.add(state.index() as usize * TILE_FLOATS) };
            let head = unsafe { *stage.add(lane) };
            pipe.consumer_wait(&state);
            let rest: f32 = (1..ROWS).map(|row| unsafe { *stage.add(row * COLS + lane) }).sum();
            total += head + rest;
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { write_column(out, lane, total) };
    }
}

/// Both roles run the same `BlockTiles` loop, one copy of the cursor each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_iter_shared_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Setup { pipe, ring, stages } = setup();
    let cursor = BlockTiles::of_this_block(tiles);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        for tile in cursor {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = unsafe { input.add(tile as usize * TILE_FLOATS) };
            bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let lane = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let total = cursor.fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&state);
            let stage = unsafe { stages.add(state.index() as usize * TILE_FLOATS) };
            let mut column = 0.0f32;
            for row in 0..ROWS {
                column += unsafe { *stage.add(row * COLS + lane) };
            }
            pipe.consumer_release(&state);
            state.advance();
            acc + column
        });
        unsafe { write_column(out, lane, total) };
    }
}

/// BROKEN: the consumers count their tiles as `(tiles - first) / step`, rounding down: every
/// block but block 0 consumes one tile fewer than the producer fills, and the producer's tail
/// waits for that stage forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_iter_floor_tile_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Setup { pipe, ring, stages } = setup();
    let tid = thread_idx_x();
    if tid == 0 {
        unsafe { producer(&pipe, ring, input, tiles) };
    } else if tid >= 32 {
        let lane = tid as usize - 32;
        let first = block_idx_x();
        let count = if first < tiles { (tiles - first) / grid_dim_x() } else { 0 };
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        for _ in 0..count {
            pipe.consumer_wait(&state);
            let stage = unsafe { stages.add(state.index() as usize * TILE_FLOATS) };
            total += (0..ROWS).map(|row| unsafe { *stage.add(row * COLS + lane) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { write_column(out, lane, total) };
    }
}
