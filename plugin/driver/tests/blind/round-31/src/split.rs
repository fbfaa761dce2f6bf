//! Style `split`: stages filled by several copies. A tile arrives as two halves (in either
//! order), as four quarters from a counted loop or as eight rows issued last to first, all under
//! one `expect_tx`; other kernels put two or three tiles in one stage. The consumers are one
//! shared helper where the stage is one tile.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const HALF: u32 = TILE_BYTES / 2;
const QUARTER: u32 = TILE_BYTES / 4;
const ROW_BYTES: u32 = 128;
const RING: u32 = 128;

#[inline(always)]
unsafe fn setup<const S: u32>(tid: u32, window: u32) -> Pipeline<S> {
    let pipe = if tid == 0 { Pipeline::<S>::init(window, 32) } else { Pipeline::<S>::attach(window) };
    barrier();
    pipe
}

#[inline(always)]
unsafe fn tile_src(input: *const f32, t: u32) -> *const u8 {
    input.add((t * TILE_FLOATS) as usize) as *const u8
}

/// Tiles this block owns.
#[inline(always)]
fn owned(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

/// The consumers of a ring of one-tile stages: thread `col` sums its column of every tile.
#[inline(always)]
unsafe fn consume_tiles(pipe: &Pipeline<4>, tiles: u32, b: u32, g: u32, col: u32, out: *mut f32) {
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
    let mut st = PipelineState::<4>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring.add((st.index() * TILE_FLOATS) as usize);
        for r in 0..8usize {
            acc += *stage.add(r * 32 + col as usize);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += g;
    }
    *out.add((b * 32 + col) as usize) = acc;
}

// ---- correct ----

/// Two half copies, lower then upper, under one announcement of the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING + st.index() * TILE_BYTES;
            let src = tile_src(input, t);
            let bar = pipe.producer_barrier(&st);
            bulk_copy_global_to_shared(dst, src, HALF, bar);
            bulk_copy_global_to_shared(dst + HALF, src.add(HALF as usize), HALF, bar);
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consume_tiles(&pipe, tiles, b, g, tid, out);
    }
}

/// Two half copies issued upper half first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_halves_upper_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(tid, window);
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, HALF + HALF);
            let dst = window + RING + st.index() * TILE_BYTES;
            let src = tile_src(input, t);
            bulk_copy_global_to_shared(dst + HALF, src.add(HALF as usize), HALF, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(dst, src, HALF, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        consume_tiles(&pipe, tiles, b, g, tid - 32, out);
    }
}

/// Four quarter copies from a counted loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_quarter_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING + st.index() * TILE_BYTES;
            let src = tile_src(input, t);
            for q in 0..4u32 {
                bulk_copy_global_to_shared(dst + q * QUARTER, src.add((q * QUARTER) as usize), QUARTER, pipe.producer_barrier(&st));
            }
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consume_tiles(&pipe, tiles, b, g, tid, out);
    }
}

/// Stages of two tiles (2 KiB); the last stage of an odd count holds one tile and announces one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_pair_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const PAIR: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = owned(tiles, b, g);
    let window = dynamic_shared_window_address();
    let pipe = setup::<2>(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0u32;
        while k < mine {
            pipe.producer_acquire(&st);
            let dst = window + RING + st.index() * PAIR;
            let t = b + k * g;
            if k + 1 < mine {
                pipe.producer_expect_tx(&st, 2 * TILE_BYTES);
                bulk_copy_global_to_shared(dst, tile_src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                bulk_copy_global_to_shared(dst + TILE_BYTES, tile_src(input, t + g), TILE_BYTES, pipe.producer_barrier(&st));
                k += 2;
            } else {
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(dst, tile_src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                k += 1;
            }
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut k = 0u32;
        while k < mine {
            let n = if k + 1 < mine { 2 } else { 1 };
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * 2 * TILE_FLOATS) as usize);
            for j in 0..n {
                for r in 0..8usize {
                    acc += *stage.add(j * TILE_FLOATS as usize + r * 32 + tid as usize);
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            k += n as u32;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Eight row copies of 128 bytes, issued from the last row to the first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_rows_reversed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(tid, window);
    if tid == 33 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 8 * ROW_BYTES);
            let dst = window + RING + st.index() * TILE_BYTES;
            let src = tile_src(input, t);
            for r in (0..8u32).rev() {
                bulk_copy_global_to_shared(dst + r * ROW_BYTES, src.add((r * ROW_BYTES) as usize), ROW_BYTES, pipe.producer_barrier(&st));
            }
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consume_tiles(&pipe, tiles, b, g, tid, out);
    }
}

// ---- broken ----

/// Two tiles per stage (two copies, 2 KiB announced), but the ring's stride is still one tile:
/// the second tile of stage `s` is written over the first tile of stage `s + 1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_bad_pair_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = owned(tiles, b, g);
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut k = 0u32;
        while k + 1 < mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 2 * TILE_BYTES);
            let dst = window + RING + st.index() * TILE_BYTES;
            let t = b + k * g;
            bulk_copy_global_to_shared(dst, tile_src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(dst + TILE_BYTES, tile_src(input, t + g), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0u32;
        while k + 1 < mine {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE_FLOATS) as usize);
            for r in 0..16usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 2;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The quarter loop runs `0..QUARTERS - 1`: three quarters copied, the whole tile announced.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_bad_three_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const QUARTERS: u32 = 4;
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING + st.index() * TILE_BYTES;
            let src = tile_src(input, t);
            for q in 0..QUARTERS - 1 {
                bulk_copy_global_to_shared(dst + q * QUARTER, src.add((q * QUARTER) as usize), QUARTER, pipe.producer_barrier(&st));
            }
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consume_tiles(&pipe, tiles, b, g, tid, out);
    }
}

/// Stages of three tiles always announce three; the last stage of a block's eight tiles gets two.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_bad_triple_tail(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const TRIPLE: u32 = 3 * TILE_BYTES;
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = owned(tiles, b, g);
    let window = dynamic_shared_window_address();
    let pipe = setup::<2>(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0u32;
        while k < mine {
            let n = (mine - k).min(3);
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TRIPLE);
            let dst = window + RING + st.index() * TRIPLE;
            for j in 0..n {
                bulk_copy_global_to_shared(dst + j * TILE_BYTES, tile_src(input, b + (k + j) * g), TILE_BYTES, pipe.producer_barrier(&st));
            }
            st.advance();
            k += n;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut k = 0u32;
        while k < mine {
            let n = (mine - k).min(3);
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * 3 * TILE_FLOATS) as usize);
            for r in 0..(8 * n as usize) {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k += n;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Each half is announced where it is copied: two `expect_tx` arrivals per stage on a *full*
/// barrier that expects one, so it completes after the first half and once more after the second.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_bad_expect_per_half(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            let dst = window + RING + st.index() * TILE_BYTES;
            let src = tile_src(input, t);
            for h in 0..2u32 {
                pipe.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(dst + h * HALF, src.add((h * HALF) as usize), HALF, pipe.producer_barrier(&st));
            }
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consume_tiles(&pipe, tiles, b, g, tid, out);
    }
}

/// Halves placed by the global tile number (`t % 4`) instead of the state's stage: with eight
/// blocks every tile of a block lands in one slot, and the stages consumers read stay unfilled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_split_bad_slot_by_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING + (t % STAGES) * TILE_BYTES;
            let src = tile_src(input, t);
            let bar = pipe.producer_barrier(&st);
            bulk_copy_global_to_shared(dst, src, HALF, bar);
            bulk_copy_global_to_shared(dst + HALF, src.add(HALF as usize), HALF, bar);
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consume_tiles(&pipe, tiles, b, g, tid, out);
    }
}
