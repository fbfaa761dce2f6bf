//! Two pipelines in one kernel.
//!
//! *Even/odd*: two rings of two stages, `a` carrying the block's even tiles and `b` its odd ones;
//! one producer thread fills them alternately and warp 1 drains them in the same order.
//! Layout: `a`'s barriers at byte 0, `b`'s at byte 64, `a`'s ring at 1024..3072, `b`'s at
//! 3072..5120.
//!
//! *Split rows*: both rings carry every tile, `top` its rows 0..3 and `bottom` its rows 4..7 (512
//! bytes each); thread 0 produces `top`, thread 1 produces `bottom`, warp 1 drains both.
//! Layout: barriers at 0 and 64, `top`'s three stages at 256..1792, `bottom`'s at 2048..3584.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;

mod even_odd {
    pub const A_BARS: u32 = 0;
    pub const B_BARS: u32 = 64;
    pub const A_RING: u32 = 1024;
    pub const B_RING: u32 = 3072;
    /// Where `b`'s ring would sit if it were packed right after `a`'s barriers' kilobyte, one
    /// stage too early.
    pub const B_RING_PACKED: u32 = 2048;
}

/// Init both even/odd pipelines (thread 0) and attach.
#[inline(always)]
fn two_rings() -> (Pipeline<2>, Pipeline<2>) {
    let w = dynamic_shared_window_address();
    if thread_idx_x() == 0 {
        Pipeline::<2>::init(w + even_odd::A_BARS, 32);
        Pipeline::<2>::init(w + even_odd::B_BARS, 32);
    }
    barrier();
    (Pipeline::attach(w + even_odd::A_BARS), Pipeline::attach(w + even_odd::B_BARS))
}

/// The even/odd kernel body, with `b`'s ring at `b_ring` and the odd tiles released on
/// `b` (or on `a` when `release_odd_on_a`).
#[inline(always)]
unsafe fn even_odd_body(input: *const f32, tiles: u32, out: *mut f32, b_ring: u32, release_odd_on_a: bool) {
    let (a, b) = two_rings();
    let w = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let (first, step) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut sa = PipelineState::<2>::producer_start();
        let mut sb = PipelineState::<2>::producer_start();
        let mut odd = false;
        let mut t = first;
        while t < tiles {
            let src = unsafe { input.add(t as usize * TILE_FLOATS) }.cast::<u8>();
            if odd {
                b.producer_acquire(&sb);
                b.producer_expect_tx(&sb, TILE_BYTES);
                bulk_copy_global_to_shared(w + b_ring + sb.index() * TILE_BYTES, src, TILE_BYTES, b.producer_barrier(&sb));
                sb.advance();
            } else {
                a.producer_acquire(&sa);
                a.producer_expect_tx(&sa, TILE_BYTES);
                bulk_copy_global_to_shared(w + even_odd::A_RING + sa.index() * TILE_BYTES, src, TILE_BYTES, a.producer_barrier(&sa));
                sa.advance();
            }
            odd = !odd;
            t += step;
        }
        a.producer_tail(sa);
        b.producer_tail(sb);
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let ring_a = unsafe { base.add(even_odd::A_RING as usize / 4) };
        let ring_b = unsafe { base.add(b_ring as usize / 4) };
        let mut sa = PipelineState::<2>::new();
        let mut sb = PipelineState::<2>::new();
        let mut odd = false;
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            if odd {
                b.consumer_wait(&sb);
                let stage = unsafe { ring_b.add(sb.index() as usize * TILE_FLOATS) };
                for r in 0..8 {
                    sum += unsafe { *stage.add(r * 32 + lane) };
                }
                if release_odd_on_a {
                    a.consumer_release(&sb);
                } else {
                    b.consumer_release(&sb);
                }
                sb.advance();
            } else {
                a.consumer_wait(&sa);
                let stage = unsafe { ring_a.add(sa.index() as usize * TILE_FLOATS) };
                for r in 0..8 {
                    sum += unsafe { *stage.add(r * 32 + lane) };
                }
                a.consumer_release(&sa);
                sa.advance();
            }
            odd = !odd;
            t += step;
        }
        unsafe { *out.add(first as usize * 32 + lane) = sum };
    }
}

/// Even tiles through one ring, odd tiles through the other.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_twin_even_odd(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { even_odd_body(input, tiles, out, even_odd::B_RING, false) };
}

/// BROKEN: odd tiles are waited for on `b` but released on `a`: `b`'s stages are never freed,
/// `a`'s get twice the releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_twin_odd_released_on_even(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { even_odd_body(input, tiles, out, even_odd::B_RING, true) };
}

/// BROKEN: `b`'s ring starts at byte 2048, which is `a`'s second stage: the two producers' copies
/// land in the same kilobyte.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_twin_rings_share_a_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { even_odd_body(input, tiles, out, even_odd::B_RING_PACKED, false) };
}

const HALF_BYTES: u32 = 512;
const HALF_FLOATS: usize = 128;
const TOP_BARS: u32 = 0;
const BOTTOM_BARS: u32 = 64;
const TOP_RING: u32 = 256;
const BOTTOM_RING: u32 = 2048;

/// One half-tile producer: `which` is 0 for the top rows, 1 for the bottom rows; its copies
/// complete on `signal`'s barriers.
#[inline(always)]
unsafe fn half_producer(
    own: &Pipeline<3>,
    signal: &Pipeline<3>,
    ring: u32,
    which: usize,
    input: *const f32,
    tiles: u32,
) {
    let w = dynamic_shared_window_address();
    let mut state = PipelineState::<3>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        own.producer_acquire(&state);
        own.producer_expect_tx(&state, HALF_BYTES);
        let src = unsafe { input.add(t as usize * TILE_FLOATS + which * HALF_FLOATS) };
        bulk_copy_global_to_shared(w + ring + state.index() * HALF_BYTES, src.cast(), HALF_BYTES, signal.producer_barrier(&state));
        state.advance();
        t += grid_dim_x();
    }
    own.producer_tail(state);
}

#[inline(always)]
unsafe fn split_rows_body(input: *const f32, tiles: u32, out: *mut f32, bottom_signals_top: bool) {
    let w = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<3>::init(w + TOP_BARS, 32);
        Pipeline::<3>::init(w + BOTTOM_BARS, 32);
    }
    barrier();
    let top = Pipeline::<3>::attach(w + TOP_BARS);
    let bottom = Pipeline::<3>::attach(w + BOTTOM_BARS);
    match tid {
        0 => unsafe { half_producer(&top, &top, TOP_RING, 0, input, tiles) },
        1 => {
            let signal = if bottom_signals_top { &top } else { &bottom };
            unsafe { half_producer(&bottom, signal, BOTTOM_RING, 1, input, tiles) }
        }
        32..=63 => {
            let lane = (tid - 32) as usize;
            let base = dynamic_shared_base::<f32>();
            let mut st_top = PipelineState::<3>::new();
            let mut st_bottom = PipelineState::<3>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                top.consumer_wait(&st_top);
                let rows = unsafe { base.add(TOP_RING as usize / 4 + st_top.index() as usize * HALF_FLOATS) };
                for r in 0..4 {
                    sum += unsafe { *rows.add(r * 32 + lane) };
                }
                top.consumer_release(&st_top);
                st_top.advance();

                bottom.consumer_wait(&st_bottom);
                let rows = unsafe { base.add(BOTTOM_RING as usize / 4 + st_bottom.index() as usize * HALF_FLOATS) };
                for r in 0..4 {
                    sum += unsafe { *rows.add(r * 32 + lane) };
                }
                bottom.consumer_release(&st_bottom);
                st_bottom.advance();
                t += grid_dim_x();
            }
            unsafe { *out.add(block_idx_x() as usize * 32 + lane) = sum };
        }
        _ => {}
    }
}

/// Rows 0..3 through one pipeline, rows 4..7 through another, each with its own producer thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_twin_split_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { split_rows_body(input, tiles, out, false) };
}

/// BROKEN: the bottom producer's copies complete on the top pipeline's full barriers; the bottom
/// stages' full barriers never receive their bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_twin_bottom_signals_top(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { split_rows_body(input, tiles, out, true) };
}
