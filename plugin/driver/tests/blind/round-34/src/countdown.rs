//! Tile loops that count down: a `left` counter that runs to zero, reversed ranges, rows walked
//! from the last to the first. The barriers sit at the start of the window and the ring after
//! them, so a stage is `RING_AT + index * TILE_BYTES` bytes in.
//!
//! Roles: thread 32 copies, threads 0..32 each sum one column of every tile of the block.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROW: usize = 32;
const ROW_BYTES: u32 = 128;
const ROWS: usize = 8;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;
/// The barriers take the first 64 bytes; the ring follows.
const RING_AT: u32 = 16 * STAGES;

/// How many of the tiles `0..tiles` fall to block `b` of `g`.
#[inline(always)]
fn owned(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

#[inline(always)]
fn ring() -> *const f32 {
    // SAFETY: the launch gives 8192 bytes; the ring starts 64 bytes in.
    unsafe { dynamic_shared_base::<u8>().add(RING_AT as usize) as *const f32 }
}

#[inline(always)]
fn setup() -> (Pipeline<STAGES>, u32) {
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    (pipe, window)
}

#[inline(always)]
unsafe fn column_down(stage: *const f32, c: usize) -> f32 {
    let mut acc = 0.0;
    let mut r = ROWS;
    while r > 0 {
        r -= 1;
        acc += *stage.add(r * ROW + c);
    }
    acc
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_countdown_left_counter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window) = setup();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut left = n;
        let mut src = input.wrapping_add(b as usize * TILE);
        while left > 0 {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING_AT + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            src = src.wrapping_add(g as usize * TILE);
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        while left > 0 {
            pipe.consumer_wait(&state);
            let stage = ring().add(state.index() as usize * TILE);
            let mut r = 0;
            while r < ROWS {
                acc += *stage.add(r * ROW + c);
                r += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_countdown_rev_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window) = setup();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        // Last owned tile first.
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in (0..n).rev() {
            let t = (b + k * g) as usize;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_AT + state.index() * TILE_BYTES,
                input.add(t * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _k in (0..n).rev() {
            pipe.consumer_wait(&state);
            acc += column_down(ring().add(state.index() as usize * TILE), c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// One tile copied as eight row copies, last row first, under one announcement of the tile.
#[inline(always)]
unsafe fn fill_rows_down(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, window: u32, src: *const f32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    let dst = window + RING_AT + state.index() * TILE_BYTES;
    let mut r = ROWS;
    while r > 0 {
        r -= 1;
        bulk_copy_global_to_shared(
            dst + r as u32 * ROW_BYTES,
            src.add(r * ROW) as *const u8,
            ROW_BYTES,
            pipe.producer_barrier(state),
        );
    }
    state.advance();
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_countdown_rows_down(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window) = setup();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut left = n;
        while left != 0 {
            let k = n - left;
            fill_rows_down(&pipe, &mut state, window, input.add(((b + k * g) as usize) * TILE));
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        while left != 0 {
            pipe.consumer_wait(&state);
            acc += column_down(ring().add(state.index() as usize * TILE), c);
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_countdown_from_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window) = setup();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        // Walk the source back from the block's last tile.
        let last = if n > 0 { b + (n - 1) * g } else { b };
        let mut src = input.wrapping_add(last as usize * TILE);
        for _ in (1..=n).rev() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_AT + state.index() * TILE_BYTES,
                src as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            src = src.wrapping_sub(g as usize * TILE);
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        loop {
            if left == 0 {
                break;
            }
            pipe.consumer_wait(&state);
            acc += column_down(ring().add(state.index() as usize * TILE), c);
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_countdown_bad_signed_left(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window) = setup();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut left = n;
        let mut src = input.wrapping_add(b as usize * TILE);
        while left > 0 {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_AT + state.index() * TILE_BYTES,
                src as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            src = src.wrapping_add(g as usize * TILE);
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = n as i32;
        while left >= 0 {
            pipe.consumer_wait(&state);
            acc += column_down(ring().add(state.index() as usize * TILE), c);
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_countdown_bad_rows_from_seven(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window) = setup();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut left = n;
        while left != 0 {
            let k = n - left;
            let src = input.add(((b + k * g) as usize) * TILE);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING_AT + state.index() * TILE_BYTES;
            let mut r = ROWS - 1;
            while r > 0 {
                bulk_copy_global_to_shared(
                    dst + r as u32 * ROW_BYTES,
                    src.add(r * ROW) as *const u8,
                    ROW_BYTES,
                    pipe.producer_barrier(&state),
                );
                r -= 1;
            }
            state.advance();
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        while left != 0 {
            pipe.consumer_wait(&state);
            acc += column_down(ring().add(state.index() as usize * TILE), c);
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_countdown_bad_rows_step_late(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window) = setup();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut left = n;
        while left != 0 {
            let k = n - left;
            let src = input.add(((b + k * g) as usize) * TILE);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING_AT + state.index() * TILE_BYTES;
            let mut r = ROWS;
            while r > 0 {
                bulk_copy_global_to_shared(
                    dst + r as u32 * ROW_BYTES,
                    src.wrapping_add(r * ROW) as *const u8,
                    ROW_BYTES,
                    pipe.producer_barrier(&state),
                );
                r -= 1;
            }
            state.advance();
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        while left != 0 {
            pipe.consumer_wait(&state);
            acc += column_down(ring().add(state.index() as usize * TILE), c);
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_countdown_bad_stage_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, window) = setup();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in (0..n).rev() {
            let t = (b + (n - 1 - k) * g) as usize;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_AT + state.index() * TILE_BYTES,
                input.add(t * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _k in (0..n).rev() {
            pipe.consumer_wait(&state);
            let stage = ring().add(state.index() as usize * TILE_BYTES as usize);
            acc += column_down(stage, c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}
