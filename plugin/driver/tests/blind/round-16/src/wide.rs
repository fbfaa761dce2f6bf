//! Wider roles: every thread of the block consumes (each warp four rows of the tile, combined
//! through shared partial sums), or the producer is a whole warp that waits together while
//! one elected lane issues the copies.
//!
//! Layout: four 1 KiB stages from window byte 0, barriers at byte 4096, 64 partial sums at
//! byte 4160.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id,
};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;
const PARTIALS_FLOATS_OFFSET: usize = (BARRIER_OFFSET as usize + 64) / 4;

#[inline(always)]
fn put(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, window: u32, input: *const f32, tile: u32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

/// Every thread consumes; thread 0 also produces, `STAGES` tiles ahead of its own reads.
/// `combine` says whether the block barrier before the partial sums are combined is there.
#[inline(always)]
unsafe fn all_consume(input: *const f32, tiles: u32, out: *mut f32, releasing: u32, combine_barrier: bool) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, releasing)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    let count = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };

    let mut produced = PipelineState::<STAGES>::producer_start();
    if tid == 0 {
        let mut k = 0;
        while k < count.min(STAGES) {
            put(&pipe, &mut produced, window, input, first + k * step);
            k += 1;
        }
    }

    let col = lane_id() as usize;
    let row0 = warp_id() as usize * (ROWS / 2);
    let mut consumed = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut k = 0;
    while k < count {
        pipe.consumer_wait(&consumed);
        let stage = unsafe { smem.add(consumed.index() as usize * TILE_FLOATS) };
        for row in row0..row0 + ROWS / 2 {
            acc += unsafe { *stage.add(row * COLS + col) };
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        if tid == 0 && k + STAGES < count {
            put(&pipe, &mut produced, window, input, first + (k + STAGES) * step);
        }
        k += 1;
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }

    let partials = unsafe { smem.add(PARTIALS_FLOATS_OFFSET) };
    unsafe { *partials.add(tid as usize) = acc };
    if combine_barrier {
        barrier();
    }
    if tid < 32 {
        unsafe { *out.add(first as usize * COLS + col) = *partials.add(col) + *partials.add(col + 32) };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_wide_all_threads_consume(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { all_consume(input, tiles, out, 64, true) }
}

/// BROKEN: the block barrier between storing the partial sums and combining them is missing:
/// warp 0 adds warp 1's partials, which warp 1 may not have stored yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_wide_combine_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { all_consume(input, tiles, out, 64, false) }
}

/// The producer is warp 0: every lane waits for the stage and keeps the position, lane 0
/// alone announces the bytes and issues the copy. Warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_wide_warp_waits_lane_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if warp_id() == 0 {
        let elected = lane_id() == 0;
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            if elected {
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            }
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else {
        let col = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS + col) };
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

/// BROKEN: the producer warp forgot the election: all 32 lanes announce 1 KiB and copy the
/// tile, 32 arrivals and 32 KiB of transactions on a full barrier set up for one arrival and
/// one tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_wide_every_lane_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if warp_id() == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else {
        let col = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS + col) };
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}

/// BROKEN: the empty barriers are initialised for the whole block (64 releases) but only
/// warp 1 consumes and releases: no stage is ever reported empty, and the producer hangs on
/// its first refill.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_wide_init_for_whole_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let block = 64;
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, block)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            put(&pipe, &mut state, window, input, tile);
            tile += step;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let col = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS + col) };
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + col) = acc };
    }
}
