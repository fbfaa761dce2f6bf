//! Style 6 (`handasm`): code by someone who writes PTX by hand.
//!
//! Count-down `while` loops, pointer bumping (`p = p.add(..)`), loops unrolled by 2 or 4 with an
//! epilogue, shifts and masks instead of `*`, `/` and `%`, the stage kept in a `PipelineState`
//! "register" and rotated by hand.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const NTID: u32 = 64;
const SMEM: u32 = 8192;
/// log2 of a tile in floats (256) and in bytes (1024).
const LG_TILE_F: u32 = 8;
const LG_TILE_B: u32 = 10;
const TILE_B: u32 = 1 << LG_TILE_B;
/// log2 of the row length (32 floats).
const LG_COLS: u32 = 5;
const COLS: u32 = 1 << LG_COLS;

/// Column sum of one staged tile from `p` (the column's first element): eight rows as two
/// passes of four independent adds, the pointer bumped by four rows per pass.
#[inline(always)]
unsafe fn col8(mut p: *const f32) -> f32 {
    let (mut a0, mut a1, mut a2, mut a3) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    let mut n = 2u32;
    while n != 0 {
        a0 += *p;
        a1 += *p.add(COLS as usize);
        a2 += *p.add((2 * COLS) as usize);
        a3 += *p.add((3 * COLS) as usize);
        p = p.add((4 * COLS) as usize);
        n -= 1;
    }
    (a0 + a1) + (a2 + a3)
}

/// Tiles of block `b` (`b, b + g, … < tiles`), counted without a divide.
#[inline(always)]
fn owned(tiles: u32, b: u32, g: u32) -> u32 {
    let mut n = 0u32;
    let mut t = b;
    while t < tiles {
        n += 1;
        t += g;
    }
    n
}

// ================================================================ correct kernels

/// Correct. Count-down loops in both roles (`while left != 0 { …; left -= 1 }`), the producer's
/// source bumped by `g << 8` floats per tile, destinations `win + (idx << 10)`, the consumer's
/// column at `(idx << 8) | lane`. Four stages at byte 0, barriers at 4096; thread 32 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_handasm_countdown_bump(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTID);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let win = dynamic_shared_window_address();
    let bar = win + (4 << LG_TILE_B);
    if tid == 0 {
        Pipeline::<4>::init(bar, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bar);
    let n = owned(tiles, b, g);

    if tid == COLS {
        let mut st = PipelineState::<4>::producer_start();
        let mut src = input.add((b << LG_TILE_F) as usize);
        let bump = (g << LG_TILE_F) as usize;
        let mut left = n;
        while left != 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            bulk_copy_global_to_shared(win + (st.index() << LG_TILE_B), src as *const u8, TILE_B, pipe.producer_barrier(&st));
            src = src.add(bump);
            st.advance();
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < COLS {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        while left != 0 {
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(((b << LG_COLS) | tid) as usize) = acc;
    }
}

/// Correct. Both roles unrolled by two (`while left >= 2 { tile; tile; left -= 2 }`) with a
/// one-tile epilogue on `left & 1`; the consumer keeps two accumulators. Three stages at byte 0,
/// barriers at 3072; thread 32 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_handasm_unroll2_epilogue(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTID);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let win = dynamic_shared_window_address();
    let bar = win + (3 << LG_TILE_B);
    if tid == 0 {
        Pipeline::<3>::init(bar, COLS);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bar);
    let n = owned(tiles, b, g);

    if tid == COLS {
        let mut st = PipelineState::<3>::producer_start();
        let mut src = input.add((b << LG_TILE_F) as usize);
        let bump = (g << LG_TILE_F) as usize;
        let mut left = n;
        while left >= 2 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            bulk_copy_global_to_shared(win + (st.index() << LG_TILE_B), src as *const u8, TILE_B, pipe.producer_barrier(&st));
            src = src.add(bump);
            st.advance();
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            bulk_copy_global_to_shared(win + (st.index() << LG_TILE_B), src as *const u8, TILE_B, pipe.producer_barrier(&st));
            src = src.add(bump);
            st.advance();
            left -= 2;
        }
        if left & 1 != 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            bulk_copy_global_to_shared(win + (st.index() << LG_TILE_B), src as *const u8, TILE_B, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < COLS {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let (mut even, mut odd) = (0.0f32, 0.0f32);
        let mut left = n;
        while left >= 2 {
            pipe.consumer_wait(&st);
            even += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            pipe.consumer_wait(&st);
            odd += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            left -= 2;
        }
        if left & 1 != 0 {
            pipe.consumer_wait(&st);
            even += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(((b << LG_COLS) | tid) as usize) = even + odd;
    }
}

/// Correct, written outside the usual order on purpose: the consumer's first tile is peeled off
/// (wait, read, keep), and in the loop each tile is waited for and read before the *previous*
/// stage is released (`prev` rotated by hand: release `prev`, `prev = st`, advance), the last
/// held stage released after the loop: CUTLASS's consumer order. Three stages; barriers at byte
/// 0, the ring from byte 128; thread 0 produces, the second warp consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_handasm_peeled_hold_previous(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 128;
    block_threads(NTID);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<3>::init(win, COLS);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(win);
    let n = owned(tiles, b, g);

    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut src = input.add((b << LG_TILE_F) as usize);
        let bump = (g << LG_TILE_F) as usize;
        let mut left = n;
        while left != 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            bulk_copy_global_to_shared(win + RING + (st.index() << LG_TILE_B), src as *const u8, TILE_B, pipe.producer_barrier(&st));
            src = src.add(bump);
            st.advance();
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid >= COLS {
        let lane = tid & (COLS - 1);
        let ring = dynamic_shared_base::<f32>().add((RING >> 2) as usize);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        if left != 0 {
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | lane) as usize));
            let mut prev = st;
            st.advance();
            left -= 1;
            while left != 0 {
                pipe.consumer_wait(&st);
                acc += col8(ring.add(((st.index() << LG_TILE_F) | lane) as usize));
                pipe.consumer_release(&prev);
                prev = st;
                st.advance();
                left -= 1;
            }
            pipe.consumer_release(&prev);
        }
        *out.add(((b << LG_COLS) | lane) as usize) = acc;
    }
}

/// Correct. Two stages at byte 2048, addressed with bit-disjoint fields `RING | idx << 10` (bytes)
/// and `(RING >> 2 | idx << 8) | lane` (floats), barriers at byte 0; the producer walks the tiles
/// with `t += g` and a bumped source pointer, the consumers the same `t` loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_handasm_or_addressed_pair(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 2048;
    block_threads(NTID);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<2>::init(win, COLS);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(win);

    if tid == COLS {
        let mut st = PipelineState::<2>::producer_start();
        let mut src = input.add((b << LG_TILE_F) as usize);
        let bump = (g << LG_TILE_F) as usize;
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            bulk_copy_global_to_shared(win + (RING | st.index() << LG_TILE_B), src as *const u8, TILE_B, pipe.producer_barrier(&st));
            src = src.add(bump);
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < COLS {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += col8(smem.add(((RING >> 2 | st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(((b << LG_COLS) | tid) as usize) = acc;
    }
}

// ================================================================ broken kernels

/// BROKEN (consumer-order): the consumer loop is unrolled by four by copy and paste, and the
/// fourth copy lost its `consumer_release`. The fourth stage of every group of four is never
/// handed back: the producer's second acquire of stage 3 waits forever (hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_handasm_bad_unroll4_lost_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTID);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let win = dynamic_shared_window_address();
    let bar = win + (4 << LG_TILE_B);
    if tid == 0 {
        Pipeline::<4>::init(bar, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bar);
    let n = owned(tiles, b, g);

    if tid == COLS {
        let mut st = PipelineState::<4>::producer_start();
        let mut src = input.add((b << LG_TILE_F) as usize);
        let bump = (g << LG_TILE_F) as usize;
        let mut left = n;
        while left != 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            bulk_copy_global_to_shared(win + (st.index() << LG_TILE_B), src as *const u8, TILE_B, pipe.producer_barrier(&st));
            src = src.add(bump);
            st.advance();
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < COLS {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        while left >= 4 {
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            st.advance();
            left -= 4;
        }
        while left != 0 {
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(((b << LG_COLS) | tid) as usize) = acc;
    }
}

/// BROKEN (tile-count): the consumers count their tiles with a shift, `(tiles - b) >> 3`
/// (grid of 8 blocks), which drops the rounding up: blocks 1..7 consume 7 tiles while the
/// producer's `while t < tiles` copies 8. The eighth stage is never released and the producer's
/// tail waits forever (hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_handasm_bad_shift_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTID);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let win = dynamic_shared_window_address();
    let bar = win + (4 << LG_TILE_B);
    if tid == 0 {
        Pipeline::<4>::init(bar, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bar);

    if tid == COLS {
        let mut st = PipelineState::<4>::producer_start();
        let mut src = input.add((b << LG_TILE_F) as usize);
        let bump = (g << LG_TILE_F) as usize;
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            bulk_copy_global_to_shared(win + (st.index() << LG_TILE_B), src as *const u8, TILE_B, pipe.producer_barrier(&st));
            src = src.add(bump);
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < COLS {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = (tiles - b) >> 3;
        while left != 0 {
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(((b << LG_COLS) | tid) as usize) = acc;
    }
}

/// BROKEN (shared-layout): the copy's destination scales the stage index with the float shift
/// (`idx << 8`) instead of the byte shift (`idx << 10`), so the copies land 256 bytes apart and
/// overlap one another, while the consumers read stages 1024 bytes apart (`idx << 8` floats):
/// stages 1..3 are read where no copy of theirs landed, and overlapping copies overwrite each
/// other: wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_handasm_bad_stride_shift(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 1024;
    block_threads(NTID);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(win, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(win);
    let n = owned(tiles, b, g);

    if tid == COLS {
        let mut st = PipelineState::<4>::producer_start();
        let mut src = input.add((b << LG_TILE_F) as usize);
        let bump = (g << LG_TILE_F) as usize;
        let mut left = n;
        while left != 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            bulk_copy_global_to_shared(win + RING + (st.index() << LG_TILE_F), src as *const u8, TILE_B, pipe.producer_barrier(&st));
            src = src.add(bump);
            st.advance();
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < COLS {
        let ring = dynamic_shared_base::<f32>().add((RING >> 2) as usize);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        while left != 0 {
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(((b << LG_COLS) | tid) as usize) = acc;
    }
}

/// BROKEN (producer-order, copy-destination): to hide the wrap test's latency the producer
/// rotates its stage register right after the `expect_tx`, before the copy: the destination is
/// the old stage (computed before the advance) but the copy completes on the *next* stage's full
/// barrier. Each full barrier then completes on its own announcement plus the previous stage's
/// bytes, so consumers read stages whose copy has not landed yet (race, wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_handasm_bad_early_rotate(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 1024;
    block_threads(NTID);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(win, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(win);
    let n = owned(tiles, b, g);

    if tid == COLS {
        let mut st = PipelineState::<4>::producer_start();
        let mut src = input.add((b << LG_TILE_F) as usize);
        let bump = (g << LG_TILE_F) as usize;
        let mut left = n;
        while left != 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_B);
            let dst = win + RING + (st.index() << LG_TILE_B);
            st.advance();
            bulk_copy_global_to_shared(dst, src as *const u8, TILE_B, pipe.producer_barrier(&st));
            src = src.add(bump);
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < COLS {
        let ring = dynamic_shared_base::<f32>().add((RING >> 2) as usize);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = n;
        while left != 0 {
            pipe.consumer_wait(&st);
            acc += col8(ring.add(((st.index() << LG_TILE_F) | tid) as usize));
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(((b << LG_COLS) | tid) as usize) = acc;
    }
}
