//! Pipeline kernels where all 64 threads consume (each warp half the rows of a column) and
//! thread 0 also produces, refilling a stage right after it has read it.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const STAGES: u32 = 4;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;
/// Warp 1's column partials, after the barriers.
const PARTIAL_OFFSET: usize = (BARRIER_OFFSET + 16 * STAGES) as usize;
const HALF_ROWS: usize = ROWS / 2;

/// Thread 0 fills the ring ahead, then issues tile `k + STAGES` after reading tile `k`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_dual_prefetch_ahead(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, BLOCK) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let column = (tid % WARP) as usize;
    let half = (tid / WARP) as usize;
    let producer = tid == 0;
    let base = dynamic_shared_base::<f32>();

    let mut produced = PipelineState::<STAGES>::producer_start();
    let mut issue = |k: u32| {
        pipe.producer_acquire(&produced);
        pipe.producer_expect_tx(&produced, TILE_BYTES);
        let source = unsafe { input.add((block + k * grid) as usize * TILE_FLOATS) } as *const u8;
        bulk_copy_global_to_shared(window + produced.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&produced));
        produced.advance();
    };
    if producer {
        for k in 0..count.min(STAGES) {
            issue(k);
        }
    }
    let mut consumed = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    for k in 0..count {
        pipe.consumer_wait(&consumed);
        let stage = unsafe { base.add(consumed.index() as usize * TILE_FLOATS) };
        for row in 0..HALF_ROWS {
            acc += unsafe { *stage.add((half * HALF_ROWS + row) * COLS + column) };
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        if producer && k + STAGES < count {
            issue(k + STAGES);
        }
    }
    if producer {
        pipe.producer_tail(produced);
    }
    unsafe {
        let partials = base.add(PARTIAL_OFFSET / 4);
        if half == 1 {
            *partials.add(column) = acc;
        }
        barrier();
        if half == 0 {
            *out.add(block as usize * COLS + column) = acc + *partials.add(column);
        }
    }
}

/// Thread 0 issues all of the block's tiles first, then reads them with the others.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_dual_load_then_read(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, BLOCK) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let column = (tid % WARP) as usize;
    let half = (tid / WARP) as usize;
    let base = dynamic_shared_base::<f32>();
    let mut produced = PipelineState::<STAGES>::producer_start();
    if tid == 0 {
        for k in 0..count {
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            let source = unsafe { input.add((block + k * grid) as usize * TILE_FLOATS) } as *const u8;
            bulk_copy_global_to_shared(window + produced.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&produced));
            produced.advance();
        }
    }
    let mut consumed = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    for _ in 0..count {
        pipe.consumer_wait(&consumed);
        let stage = unsafe { base.add(consumed.index() as usize * TILE_FLOATS) };
        for row in 0..HALF_ROWS {
            acc += unsafe { *stage.add((half * HALF_ROWS + row) * COLS + column) };
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    unsafe {
        let partials = base.add(PARTIAL_OFFSET / 4);
        if half == 1 {
            *partials.add(column) = acc;
        }
        barrier();
        if half == 0 {
            *out.add(block as usize * COLS + column) = acc + *partials.add(column);
        }
    }
}

/// The prefetching kernel, its producer thread leaving the releases to the others.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_dual_producer_keeps_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, BLOCK) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let column = (tid % WARP) as usize;
    let half = (tid / WARP) as usize;
    let producer = tid == 0;
    let base = dynamic_shared_base::<f32>();

    let mut produced = PipelineState::<STAGES>::producer_start();
    let mut issue = |k: u32| {
        pipe.producer_acquire(&produced);
        pipe.producer_expect_tx(&produced, TILE_BYTES);
        let source = unsafe { input.add((block + k * grid) as usize * TILE_FLOATS) } as *const u8;
        bulk_copy_global_to_shared(window + produced.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&produced));
        produced.advance();
    };
    if producer {
        for k in 0..count.min(STAGES) {
            issue(k);
        }
    }
    let mut consumed = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    for k in 0..count {
        pipe.consumer_wait(&consumed);
        let stage = unsafe { base.add(consumed.index() as usize * TILE_FLOATS) };
        for row in 0..HALF_ROWS {
            acc += unsafe { *stage.add((half * HALF_ROWS + row) * COLS + column) };
        }
        if producer {
            consumed.advance();
            if k + STAGES < count {
                issue(k + STAGES);
            }
        } else {
            pipe.consumer_release(&consumed);
            consumed.advance();
        }
    }
    if producer {
        pipe.producer_tail(produced);
    }
    unsafe {
        let partials = base.add(PARTIAL_OFFSET / 4);
        if half == 1 {
            *partials.add(column) = acc;
        }
        barrier();
        if half == 0 {
            *out.add(block as usize * COLS + column) = acc + *partials.add(column);
        }
    }
}
