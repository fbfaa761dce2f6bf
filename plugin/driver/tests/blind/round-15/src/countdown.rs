//! Kernels whose tile loops count down a precomputed number of tiles (`left`), written against
//! the helpers in `helpers.rs` (a producer step taking the state by `&mut`, a column reader
//! taking the stage by raw pointer). Pipelines here: four stages from byte 1024, barriers at 0.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};
use crate::helpers::{
    COLS, ROWS, TILE_BYTES, TILE_FLOATS, column_of, fill_stage, global_tile, stage_tile,
    tiles_of_block,
};

const STAGES: u32 = 4;
const RING_AT: u32 = 1024;

/// Which job a thread has in the count-down pipelines.
enum Job {
    Fill,
    Drain(usize),
}

fn job(tid: u32) -> Option<Job> {
    if tid == 0 {
        Some(Job::Fill)
    } else {
        tid.checked_sub(32).map(|lane| Job::Drain(lane as usize))
    }
}

/// Thread 0 initialises, everyone attaches after the barrier.
#[inline(always)]
fn open_pipeline() -> Pipeline<STAGES> {
    let bars = dynamic_shared_window_address();
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    Pipeline::<STAGES>::attach(bars)
}

#[inline(always)]
fn ring_floats() -> *const f32 {
    dynamic_shared_base::<f32>().wrapping_add(RING_AT as usize / 4)
}

/// Both roles count down the block's tile count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_cd_pipe_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open_pipeline();
    let (first, step) = (block_idx_x(), grid_dim_x());
    let n = tiles_of_block(first, step, tiles);
    let ring = dynamic_shared_window_address() + RING_AT;
    match job(thread_idx_x()) {
        Some(Job::Fill) => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut left = n;
            while left > 0 {
                unsafe { fill_stage(&pipe, &mut state, ring, global_tile(input, first, step, n - left)) };
                left -= 1;
            }
            pipe.producer_tail(state);
        }
        Some(Job::Drain(lane)) => {
            let stages = ring_floats();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut left = n;
            while left > 0 {
                pipe.consumer_wait(&state);
                acc += unsafe { column_of(stages.add(state.index() as usize * TILE_FLOATS), lane) };
                pipe.consumer_release(&state);
                state.advance();
                left -= 1;
            }
            unsafe { *out.add(first as usize * COLS + lane) = acc };
        }
        None => {}
    }
}

/// BROKEN: the producer advances its state after `fill_stage`, which has already advanced it:
/// only every other stage is filled, and the consumers wait on stage 1 forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_cd_pipe_double_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open_pipeline();
    let (first, step) = (block_idx_x(), grid_dim_x());
    let n = tiles_of_block(first, step, tiles);
    let ring = dynamic_shared_window_address() + RING_AT;
    match job(thread_idx_x()) {
        Some(Job::Fill) => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut left = n;
            while left > 0 {
                unsafe { fill_stage(&pipe, &mut state, ring, global_tile(input, first, step, n - left)) };
                state.advance();
                left -= 1;
            }
            pipe.producer_tail(state);
        }
        Some(Job::Drain(lane)) => {
            let stages = ring_floats();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut left = n;
            while left > 0 {
                pipe.consumer_wait(&state);
                acc += unsafe { column_of(stages.add(state.index() as usize * TILE_FLOATS), lane) };
                pipe.consumer_release(&state);
                state.advance();
                left -= 1;
            }
            unsafe { *out.add(first as usize * COLS + lane) = acc };
        }
        None => {}
    }
}

/// BROKEN: the consumers skip the release of the block's third tile (a `continue` that only
/// advances): that stage is never freed and the producer waits on it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_cd_pipe_third_tile_unreleased(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open_pipeline();
    let (first, step) = (block_idx_x(), grid_dim_x());
    let n = tiles_of_block(first, step, tiles);
    let ring = dynamic_shared_window_address() + RING_AT;
    match job(thread_idx_x()) {
        Some(Job::Fill) => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut left = n;
            while left > 0 {
                unsafe { fill_stage(&pipe, &mut state, ring, global_tile(input, first, step, n - left)) };
                left -= 1;
            }
            pipe.producer_tail(state);
        }
        Some(Job::Drain(lane)) => {
            let stages = ring_floats();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut left = n;
            while left > 0 {
                pipe.consumer_wait(&state);
                acc += unsafe { column_of(stages.add(state.index() as usize * TILE_FLOATS), lane) };
                left -= 1;
                if n - left == 3 {
                    state.advance();
                    continue;
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            unsafe { *out.add(first as usize * COLS + lane) = acc };
        }
        None => {}
    }
}

/// BROKEN: the consumers' state is created afresh for every tile, so they always wait on, read
/// and release stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_cd_pipe_state_per_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open_pipeline();
    let (first, step) = (block_idx_x(), grid_dim_x());
    let n = tiles_of_block(first, step, tiles);
    let ring = dynamic_shared_window_address() + RING_AT;
    match job(thread_idx_x()) {
        Some(Job::Fill) => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut left = n;
            while left > 0 {
                unsafe { fill_stage(&pipe, &mut state, ring, global_tile(input, first, step, n - left)) };
                left -= 1;
            }
            pipe.producer_tail(state);
        }
        Some(Job::Drain(lane)) => {
            let stages = ring_floats();
            let mut acc = 0.0f32;
            let mut left = n;
            while left > 0 {
                let mut state = PipelineState::<STAGES>::new();
                pipe.consumer_wait(&state);
                acc += unsafe { column_of(stages.add(state.index() as usize * TILE_FLOATS), lane) };
                pipe.consumer_release(&state);
                state.advance();
                left -= 1;
            }
            unsafe { *out.add(first as usize * COLS + lane) = acc };
        }
        None => {}
    }
}

const HALF_BYTES: u32 = TILE_BYTES / 2;
const HALF_FLOATS: usize = TILE_FLOATS / 2;

/// One stage filled by two half-tile copies; `second_half_fits(start)` decides whether the
/// second half (the input's floats `start..start + 128`) lies inside the input.
#[inline(always)]
unsafe fn fill_in_halves(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    ring: u32,
    input: *const f32,
    tile: u32,
    second_half_fits: impl Fn(usize) -> bool,
) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    let start = tile as usize * TILE_FLOATS;
    let dst = ring + state.index() * TILE_BYTES;
    let full = pipe.producer_barrier(state);
    bulk_copy_global_to_shared(dst, unsafe { input.add(start) }.cast(), HALF_BYTES, full);
    if second_half_fits(start + HALF_FLOATS) {
        bulk_copy_global_to_shared(dst + HALF_BYTES, unsafe { input.add(start + HALF_FLOATS) }.cast(), HALF_BYTES, full);
    }
    state.advance();
}

#[inline(always)]
unsafe fn halves_body(input: *const f32, tiles: u32, out: *mut f32, strict_end: bool) {
    let pipe = open_pipeline();
    let (first, step) = (block_idx_x(), grid_dim_x());
    let n = tiles_of_block(first, step, tiles);
    let ring = dynamic_shared_window_address() + RING_AT;
    let input_floats = tiles as usize * TILE_FLOATS;
    match job(thread_idx_x()) {
        Some(Job::Fill) => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut left = n;
            while left > 0 {
                let tile = first + (n - left) * step;
                if strict_end {
                    unsafe { fill_in_halves(&pipe, &mut state, ring, input, tile, |s| s + HALF_FLOATS < input_floats) };
                } else {
                    unsafe { fill_in_halves(&pipe, &mut state, ring, input, tile, |s| s + HALF_FLOATS <= input_floats) };
                }
                left -= 1;
            }
            pipe.producer_tail(state);
        }
        Some(Job::Drain(lane)) => {
            let stages = ring_floats();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut left = n;
            while left > 0 {
                pipe.consumer_wait(&state);
                acc += unsafe { column_of(stages.add(state.index() as usize * TILE_FLOATS), lane) };
                pipe.consumer_release(&state);
                state.advance();
                left -= 1;
            }
            unsafe { *out.add(first as usize * COLS + lane) = acc };
        }
        None => {}
    }
}

/// Each stage arrives in two 512-byte copies on one 1024-byte announcement.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_cd_pipe_two_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { halves_body(input, tiles, out, false) };
}

/// BROKEN: the guard on the second half is strict (`<` where the half may end exactly at the
/// input's end): the very last tile gets one half, the full barrier stays 512 bytes short and
/// the block that owns it hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_cd_pipe_last_tile_half_missing(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { halves_body(input, tiles, out, true) };
}

/// Plain: stage, barrier, count the rows down from 8, barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_cd_plain_rows_down(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let (first, step) = (block_idx_x(), grid_dim_x());
    let mut left = tiles_of_block(first, step, tiles);
    let mut tile = first;
    let mut acc = 0.0f32;
    while left > 0 {
        unsafe { stage_tile(input.add(tile as usize * TILE_FLOATS), s, tid) };
        barrier();
        if tid < COLS {
            let mut r = ROWS;
            while r > 0 {
                r -= 1;
                acc += unsafe { *s.add(r * COLS + tid) };
            }
        }
        barrier();
        tile += step;
        left -= 1;
    }
    if tid < COLS {
        unsafe { *out.add(first as usize * COLS + tid) = acc };
    }
}

/// Plain, both warps summing half the rows into registers; the reuse barrier is skipped on the
/// last tile ("nothing is staged after it"), then the partials are stored at floats 0..64 for the
/// final combine.
///
/// BROKEN: on the last tile warp 1 stores its partials over row 1 while warp 0 may still be
/// reading it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_cd_plain_last_tile_skips_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (lane, half) = (tid % COLS, tid / COLS);
    let s = dynamic_shared_base::<f32>();
    let (first, step) = (block_idx_x(), grid_dim_x());
    let mut left = tiles_of_block(first, step, tiles);
    let mut tile = first;
    let mut mine = 0.0f32;
    while left > 0 {
        unsafe { stage_tile(input.add(tile as usize * TILE_FLOATS), s, tid) };
        barrier();
        for r in 0..4 {
            mine += unsafe { *s.add((half * 4 + r) * COLS + lane) };
        }
        if left > 1 {
            barrier();
        }
        tile += step;
        left -= 1;
    }
    unsafe { *s.add(tid) = mine };
    barrier();
    if half == 0 {
        unsafe { *out.add(first as usize * COLS + lane) = *s.add(lane) + *s.add(COLS + lane) };
    }
}

/// Plain, as above but with the reuse barrier on every tile: correct.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_cd_plain_halves_then_partials(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (lane, half) = (tid % COLS, tid / COLS);
    let s = dynamic_shared_base::<f32>();
    let (first, step) = (block_idx_x(), grid_dim_x());
    let mut left = tiles_of_block(first, step, tiles);
    let mut tile = first;
    let mut mine = 0.0f32;
    while left > 0 {
        unsafe { stage_tile(input.add(tile as usize * TILE_FLOATS), s, tid) };
        barrier();
        for r in 0..4 {
            mine += unsafe { *s.add((half * 4 + r) * COLS + lane) };
        }
        barrier();
        tile += step;
        left -= 1;
    }
    unsafe { *s.add(tid) = mine };
    barrier();
    if half == 0 {
        unsafe { *out.add(first as usize * COLS + lane) = *s.add(lane) + *s.add(COLS + lane) };
    }
}
