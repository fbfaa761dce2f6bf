//! Flat work counters: one counter runs over (tile, row), (tile, half) or elements, and the tile
//! boundaries are found from it by division and remainder; or a counter over every tile of the
//! launch that skips the ones another block owns.
//!
//! Roles: thread 0 copies; warp 1 (threads 32..64) sums, lane `tid - 32` taking column
//! `tid - 32`. Ring at the start of the window, barriers after the four stages.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROW: u32 = 32;
const ROWS: u32 = 8;
const HALVES: u32 = 2;
const HALF_BYTES: u32 = TILE_BYTES / HALVES;
const HALF_FLOATS: u32 = TILE / HALVES;
const STAGES: u32 = 4;
const BARRIERS_AT: u32 = STAGES * TILE_BYTES;
const CONSUMERS: u32 = 32;

#[inline(always)]
fn owned(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

#[inline(always)]
fn start() -> (Pipeline<STAGES>, u32, *const f32) {
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS_AT, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS_AT)
    };
    barrier();
    (pipe, window, dynamic_shared_base::<f32>() as *const f32)
}

/// Thread 0's loop: tile `k` of the block is `b + k * g`, from the flat counter `k`.
#[inline(always)]
fn produce_flat(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, n: u32, b: u32, g: u32) {
    let mut state = PipelineState::<STAGES>::producer_start();
    for k in 0..n {
        let t = b + k * g;
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + state.index() * TILE_BYTES,
            input.wrapping_add((t * TILE) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
    }
    pipe.producer_tail(state);
}

/// Warp 1's loop, one pass per tile.
#[inline(always)]
unsafe fn consume_tiles(pipe: &Pipeline<STAGES>, ring: *const f32, n: u32, c: u32) -> f32 {
    let mut state = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    for _ in 0..n {
        pipe.consumer_wait(&state);
        let stage = ring.add((state.index() * TILE) as usize);
        for r in 0..ROWS {
            acc += *stage.add((r * ROW + c) as usize);
        }
        pipe.consumer_release(&state);
        state.advance();
    }
    acc
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_flat_tile_row_counter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window, ring) = start();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == 0 {
        produce_flat(&pipe, window, input, n, b, g);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        // One pass per (tile, row): the row is the low part of the counter.
        for w in 0..n * ROWS {
            let r = w % ROWS;
            if r == 0 {
                pipe.consumer_wait(&state);
            }
            let stage = ring.add((state.index() * TILE) as usize);
            acc += *stage.add((r * ROW + c) as usize);
            if r == ROWS - 1 {
                pipe.consumer_release(&state);
                state.advance();
            }
        }
        *out.add((b * 32 + c) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_flat_skip_foreign(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window, ring) = start();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in 0..tiles {
            if t % g != b {
                continue;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for t in 0..tiles {
            if t % g != b {
                continue;
            }
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * ROW + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((b * 32 + c) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_flat_half_counter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window, ring) = start();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        // One pass per (tile, half): the stage is taken on the first half and handed on after
        // the second.
        for w in 0..n * HALVES {
            let k = w / HALVES;
            let h = w % HALVES;
            if h == 0 {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
            }
            let src = input.add(((b + k * g) * TILE + h * HALF_FLOATS) as usize);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES + h * HALF_BYTES,
                src as *const u8,
                HALF_BYTES,
                pipe.producer_barrier(&state),
            );
            if h == HALVES - 1 {
                state.advance();
            }
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        *out.add((b * 32 + c) as usize) = consume_tiles(&pipe, ring, n, c);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_flat_element_counter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window, ring) = start();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == 0 {
        produce_flat(&pipe, window, input, n, b, g);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        // The warp walks the block's elements 32 at a time; `e % TILE` is the row's offset.
        let mut e = 0;
        while e < n * TILE {
            let offset = e % TILE;
            if offset == 0 {
                pipe.consumer_wait(&state);
            }
            acc += *ring.add((state.index() * TILE + offset + c) as usize);
            if offset == TILE - ROW {
                pipe.consumer_release(&state);
                state.advance();
            }
            e += ROW;
        }
        *out.add((b * 32 + c) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_flat_bad_half_slots(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window, ring) = start();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for w in 0..n * HALVES {
            let k = w / HALVES;
            let h = w % HALVES;
            if h == 0 {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
            }
            let src = input.add(((b + k * g) * TILE + h * HALF_FLOATS) as usize);
            let slot = w % STAGES;
            bulk_copy_global_to_shared(
                window + slot * TILE_BYTES + h * HALF_BYTES,
                src as *const u8,
                HALF_BYTES,
                pipe.producer_barrier(&state),
            );
            if h == HALVES - 1 {
                state.advance();
            }
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        *out.add((b * 32 + c) as usize) = consume_tiles(&pipe, ring, n, c);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_flat_bad_skip_advances(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window, ring) = start();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in 0..tiles {
            if t % g != b {
                continue;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for t in 0..tiles {
            let mine = t % g == b;
            if mine {
                pipe.consumer_wait(&state);
                let stage = ring.add((state.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * ROW + c) as usize);
                }
                pipe.consumer_release(&state);
            }
            state.advance();
        }
        *out.add((b * 32 + c) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_flat_bad_lead_lane(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window, ring) = start();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    // Warp 0 does everything: its lane 0 issues the copies up front, then all 32 lanes sum.
    if tid == 0 {
        produce_flat(&pipe, window, input, n, b, g);
    }
    if tid < 32 {
        let c = tid;
        *out.add((b * 32 + c) as usize) = consume_tiles(&pipe, ring, n, c);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_flat_bad_half_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window, ring) = start();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for w in 0..n * HALVES {
            let k = w / HALVES;
            let h = w % HALVES;
            if h == 0 {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
            }
            let src = input.add(((b + k * g) * TILE + h * HALF_FLOATS) as usize);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                src as *const u8,
                HALF_BYTES,
                pipe.producer_barrier(&state),
            );
            if h == HALVES - 1 {
                state.advance();
            }
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        *out.add((b * 32 + c) as usize) = consume_tiles(&pipe, ring, n, c);
    }
}
