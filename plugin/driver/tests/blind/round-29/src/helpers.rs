//! Helper functions, generic over the stage count and not: whole producer and consumer loops in
//! helpers, per-tile steps taking `&mut PipelineState`, stage-pointer and destination helpers,
//! a setup helper that initialises and publishes the pipeline.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;

/// Tiles of this block: `b, b + g, …` below `tiles`.
#[inline(always)]
fn owned_tiles(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

/// Global address of this block's `k`-th tile.
#[inline(always)]
unsafe fn tile_source(input: *const f32, k: u32) -> *const u8 {
    input.add((block_idx_x() + k * grid_dim_x()) as usize * TILE) as *const u8
}

/// Sum of column `col` over the eight rows of a staged tile.
#[inline(always)]
unsafe fn column_sum(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0;
    for r in 0..ROWS {
        s += *stage.add(r * COLS + col);
    }
    s
}

/// The whole producer role of a ring at window address `ring`.
fn produce<const S: u32>(pipe: &Pipeline<S>, ring: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    for k in 0..owned_tiles(tiles) {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        let src = unsafe { tile_source(input, k) };
        bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
    }
    pipe.producer_tail(st);
}

/// The whole consumer role for column `col`; returns the column's total.
unsafe fn consume<const S: u32>(pipe: &Pipeline<S>, ring: *const f32, col: usize, tiles: u32) -> f32 {
    let mut st = PipelineState::<S>::new();
    let mut acc = 0.0;
    for _ in 0..owned_tiles(tiles) {
        pipe.consumer_wait(&st);
        acc += column_sum(ring.add(st.index() as usize * TILE), col);
        pipe.consumer_release(&st);
        st.advance();
    }
    acc
}

/// Generic producer and consumer helpers over a four-stage ring; thread 0 copies, warp 1 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_generic_loops(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let total = consume(&pipe, dynamic_shared_base::<f32>().add(256), col, tiles);
        *out.add(block_idx_x() as usize * COLS + col) = total;
    }
}

fn load_tile(pipe: &Pipeline<3>, st: &mut PipelineState<3>, ring: u32, src: *const u8) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

unsafe fn take_tile(pipe: &Pipeline<3>, st: &mut PipelineState<3>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(st);
    let v = column_sum(ring.add(st.index() as usize * TILE), col);
    pipe.consumer_release(st);
    st.advance();
    v
}

/// Per-tile step helpers taking the state by `&mut`, tile loops in the kernel; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_step_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 3 * TILE_BYTES;
    let pipe = if tid == 32 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            load_tile(&pipe, &mut st, window, input.add(t as usize * TILE) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += take_tile(&pipe, &mut st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[inline(always)]
fn stage_of(ring: *const f32, st: &PipelineState<4>) -> *const f32 {
    unsafe { ring.add(st.index() as usize * TILE) }
}

/// A stage-pointer helper and a column helper; ring first, barriers at byte 4096.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_stage_pointer_fn(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(stage_of(ring, &st), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Initialises the pipeline in thread 0, attaches everywhere else, and publishes it.
fn setup<const S: u32>(bars: u32, consumers: u32) -> Pipeline<S> {
    let pipe = if thread_idx_x() == 0 { Pipeline::<S>::init(bars, consumers) } else { Pipeline::<S>::attach(bars) };
    barrier();
    pipe
}

/// Two stages set up by a `setup` helper; thread 32 copies, warp 0 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_setup_helper(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<2>(window, 32);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[inline(always)]
fn dest(ring: u32, st: &PipelineState<6>) -> u32 {
    ring + st.index() * TILE_BYTES
}

#[inline(always)]
unsafe fn src(input: *const f32, t: u32) -> *const u8 {
    input.add(t as usize * TILE).cast()
}

/// Six stages from the window's start, barriers at byte 6144; destination and source helpers;
/// thread 63 copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_dest_helper(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 6 * TILE_BYTES;
    let pipe = if tid == 63 { Pipeline::<6>::init(bars, 32) } else { Pipeline::<6>::attach(bars) };
    barrier();
    if tid == 63 {
        let mut st = PipelineState::<6>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(dest(window, &st), src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<6>::new();
        let mut acc = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Sums of `N` columns `first, first + stride, …` of a staged tile.
#[inline(always)]
unsafe fn columns<const N: usize>(stage: *const f32, first: usize, stride: usize) -> [f32; N] {
    let mut sums = [0.0f32; N];
    for (j, s) in sums.iter_mut().enumerate() {
        *s = column_sum(stage, first + j * stride);
    }
    sums
}

/// Sixteen consumers, each summing two columns through a const-generic helper.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_two_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 16) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 16 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = [0.0f32; 2];
        for _ in 0..owned_tiles(tiles) {
            pipe.consumer_wait(&st);
            let part = columns::<2>(ring.add(st.index() as usize * TILE), tid as usize, 16);
            pipe.consumer_release(&st);
            acc[0] += part[0];
            acc[1] += part[1];
            st.advance();
        }
        let o = out.add(block_idx_x() as usize * COLS + tid as usize);
        *o = acc[0];
        *o.add(16) = acc[1];
    }
}

/// The setup helper is handed one more releasing thread than the warp of consumers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_bad_setup_count_plus_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(window, 33);
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let total = consume(&pipe, dynamic_shared_base::<f32>().add(256), tid as usize, tiles);
        *out.add(block_idx_x() as usize * COLS + tid as usize) = total;
    }
}

unsafe fn take_tile_late(pipe: &Pipeline<3>, st: &mut PipelineState<3>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(st);
    pipe.consumer_release(st);
    st.advance();
    column_sum(ring.add(st.index() as usize * TILE), col)
}

/// The per-tile consumer helper releases and advances first, then sums through the state.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_bad_take_reads_after_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 3 * TILE_BYTES;
    let pipe = if tid == 32 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            load_tile(&pipe, &mut st, window, input.add(t as usize * TILE) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += take_tile_late(&pipe, &mut st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The producer helper runs a four-stage pipeline; the consumers attach its barriers as a
/// three-stage one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_bad_depth_mismatch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    if tid == 0 {
        let pipe = Pipeline::<4>::attach(window);
        produce(&pipe, window + 1024, input, tiles);
    } else if tid >= 32 {
        let pipe = Pipeline::<3>::attach(window);
        let col = (tid - 32) as usize;
        let total = consume(&pipe, dynamic_shared_base::<f32>().add(256), col, tiles);
        *out.add(block_idx_x() as usize * COLS + col) = total;
    }
}

/// Initialises the pipeline and waits for the block, but only in the initialising thread.
fn setup_leader<const S: u32>(bars: u32, consumers: u32) -> Pipeline<S> {
    if thread_idx_x() == 0 {
        let pipe = Pipeline::<S>::init(bars, consumers);
        barrier();
        pipe
    } else {
        Pipeline::<S>::attach(bars)
    }
}

/// Setup whose block barrier sits inside the initialising thread's branch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_bad_setup_barrier_in_leader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup_leader::<4>(window, 32);
    if tid == 0 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let total = consume(&pipe, dynamic_shared_base::<f32>().add(256), col, tiles);
        *out.add(block_idx_x() as usize * COLS + col) = total;
    }
}

/// Column sum over raw 32-bit words.
#[inline(never)]
unsafe fn column_words(stage: *const u32, col: usize) -> f32 {
    let mut s = 0.0;
    for r in 0..ROWS {
        s += *stage.add(r * COLS + col) as f32;
    }
    s
}

/// The consumers hand the stage to a helper that reads it as `u32` words and converts them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_bad_column_words(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        for _ in 0..owned_tiles(tiles) {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc += column_words(stage as *const u32, tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

/// The consumers count their tiles with `owned_tiles(tiles - 1)`, the producer with
/// `owned_tiles(tiles)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_help_bad_owned_tiles_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        for _ in 0..owned_tiles(tiles - 1) {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}
