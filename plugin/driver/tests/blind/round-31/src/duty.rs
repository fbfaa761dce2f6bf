//! Style `duty`: the roles laid out differently over the block. The producer sits in warp 0
//! or warp 1, on the first or last thread or an odd one; consumers are a whole warp, a half warp
//! taking two columns each, eight threads taking a quad of columns (read as `[f32; 4]`), a run
//! of 32 threads straddling both warps, or every even thread. Roles are chosen with `matches!`,
//! ranges' `contains`, `warp_id`/`lane_id` and named constants.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id,
};

const BLOCK: u32 = 64;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const RING: u32 = 128;

#[inline(always)]
unsafe fn setup(tid: u32, window: u32, consumers: u32) -> Pipeline<4> {
    let pipe = if tid == 0 { Pipeline::<4>::init(window, consumers) } else { Pipeline::<4>::attach(window) };
    barrier();
    pipe
}

/// The whole producer: every owned tile from `first`, `step` apart, then the tail.
#[inline(always)]
unsafe fn feed(pipe: &Pipeline<4>, window: u32, input: *const f32, first: u32, step: u32, tiles: u32) {
    let mut st = PipelineState::<4>::producer_start();
    let mut t = first;
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + RING + st.index() * TILE_BYTES,
            input.add((t * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&st),
        );
        st.advance();
        t += step;
    }
    pipe.producer_tail(st);
}

#[inline(always)]
fn ring() -> *const f32 {
    dynamic_shared_base::<f32>().wrapping_add((RING / 4) as usize) as *const f32
}

/// One consumer summing column `col` of every tile.
#[inline(always)]
unsafe fn eat_column(pipe: &Pipeline<4>, b: u32, g: u32, tiles: u32, col: u32, out: *mut f32) {
    let mut st = PipelineState::<4>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring().add((st.index() * TILE_FLOATS) as usize);
        for r in 0..8usize {
            acc += *stage.add(r * 32 + col as usize);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += g;
    }
    *out.add((b * 32 + col) as usize) = acc;
}

/// One consumer summing columns `col` and `col + 16`.
#[inline(always)]
unsafe fn eat_two(pipe: &Pipeline<4>, b: u32, g: u32, tiles: u32, col: u32, out: *mut f32) {
    let mut st = PipelineState::<4>::new();
    let (mut lo, mut hi) = (0.0f32, 0.0f32);
    let mut t = b;
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring().add((st.index() * TILE_FLOATS) as usize);
        for r in 0..8usize {
            lo += *stage.add(r * 32 + col as usize);
            hi += *stage.add(r * 32 + col as usize + 16);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += g;
    }
    *out.add((b * 32 + col) as usize) = lo;
    *out.add((b * 32 + col + 16) as usize) = hi;
}

// ---- correct ----

/// Producer: thread 0 (warp 0, lane 0). Consumers: warp 1, one column per lane.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_warp_one_eats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 32);
    if warp_id() == 0 && lane_id() == 0 {
        feed(&pipe, window, input, b, g, tiles);
    } else if warp_id() == 1 {
        eat_column(&pipe, b, g, tiles, lane_id(), out);
    }
}

/// Sixteen consumers (threads 0 to 15), two columns each; the producer is the block's last thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_sixteen_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 16);
    if tid == BLOCK - 1 {
        feed(&pipe, window, input, b, g, tiles);
    } else if tid < 16 {
        eat_two(&pipe, b, g, tiles, tid, out);
    }
}

/// Eight consumers (threads 8 to 15), each reading a quad of columns as one `[f32; 4]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_eight_quads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 8);
    if tid == 40 {
        feed(&pipe, window, input, b, g, tiles);
    } else if (8..16).contains(&tid) {
        let quad = (tid - 8) as usize;
        let mut acc = [0.0f32; 4];
        let mut st = PipelineState::<4>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring().add((st.index() * TILE_FLOATS) as usize);
            for r in 0..8usize {
                let v = *(stage.add(r * 32 + quad * 4) as *const [f32; 4]);
                for j in 0..4 {
                    acc[j] += v[j];
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        for j in 0..4 {
            *out.add(b as usize * 32 + quad * 4 + j) = acc[j];
        }
    }
}

/// Consumers are threads 16 to 47 (half of each warp); the producer is the last thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_straddle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 32);
    let eats = matches!(tid, 16..=47);
    if tid == BLOCK - 1 {
        feed(&pipe, window, input, b, g, tiles);
    } else if eats {
        eat_column(&pipe, b, g, tiles, tid - 16, out);
    }
}

/// Every even thread consumes (column `tid / 2`); thread 1 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_even_threads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 32);
    if tid == 1 {
        feed(&pipe, window, input, b, g, tiles);
    } else if tid % 2 == 0 {
        eat_column(&pipe, b, g, tiles, tid / 2, out);
    }
}

// ---- broken ----

/// The copying is split between lane 0 of each warp (threads 0 and 32), alternate tiles each:
/// two producer threads, each with its own state, both starting at stage 0 of one pipeline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_bad_producer_per_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 32);
    if lane_id() == 0 {
        feed(&pipe, window, input, b + warp_id() * g, 2 * g, tiles);
    } else if tid % 2 == 1 {
        eat_column(&pipe, b, g, tiles, tid / 2, out);
    }
}

/// Sixteen consumers with two columns each, set up with the whole warp's count of 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_bad_sixteen_of_32(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 32);
    if tid == BLOCK - 1 {
        feed(&pipe, window, input, b, g, tiles);
    } else if tid < 16 {
        eat_two(&pipe, b, g, tiles, tid, out);
    }
}

/// The straddling run written `16..=48`: 33 consumers, and thread 48 sums "column 32" (row
/// `r + 1`'s column 0) into the next block's first output.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_bad_straddle_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 32);
    let eats = matches!(tid, 16..=48);
    if tid == BLOCK - 1 {
        feed(&pipe, window, input, b, g, tiles);
    } else if eats {
        eat_column(&pipe, b, g, tiles, tid - 16, out);
    }
}

/// Lane 31 of the consumer warp also runs the producer loop before its own consumer loop: it
/// needs its own releases to refill stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_bad_producer_in_consumer_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 32);
    if warp_id() == 0 && lane_id() == 31 {
        feed(&pipe, window, input, b, g, tiles);
    }
    if warp_id() == 0 {
        eat_column(&pipe, b, g, tiles, lane_id(), out);
    }
}

/// The producer is named "the last thread" as `BLOCK` instead of `BLOCK - 1`: no thread copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_duty_bad_producer_past_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(8192);
    const PRODUCER: u32 = BLOCK;
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window, 32);
    if tid == PRODUCER {
        feed(&pipe, window, input, b, g, tiles);
    } else if tid < 32 {
        eat_column(&pipe, b, g, tiles, tid, out);
    }
}
