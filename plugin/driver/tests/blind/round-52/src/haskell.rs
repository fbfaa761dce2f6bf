//! Haskell-community habits: newtypes for every unit, small total functions composed with
//! folds and `map`, a `Monoid`-like `mappend` for partial sums, ranges as lazy lists
//! (`step_by` for `[b, b+g ..]`), `where`-style inner helpers, and no mutable counters in
//! sight where a fold will do.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const SMEM: u32 = 8192;
const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;

/// A column index, kept apart from every other `u32`.
#[derive(Clone, Copy)]
struct Col(usize);

/// A sum with its identity and `mappend`.
#[derive(Clone, Copy)]
struct Sum(f32);

impl Sum {
    const MEMPTY: Sum = Sum(0.0);
    #[inline(always)]
    fn mappend(self, other: Sum) -> Sum {
        Sum(self.0 + other.0)
    }
}

/// `[b, b + g .. tiles - 1]`: the block's tiles as a lazy list.
#[inline(always)]
fn my_tiles(tiles: u32) -> core::iter::StepBy<core::ops::Range<u32>> {
    (block_idx_x()..tiles).step_by(grid_dim_x() as usize)
}

/// `column stage c = sum [stage !! (r * 32 + c) | r <- [0..7]]`
#[inline(always)]
unsafe fn column(stage: *const f32, Col(c): Col) -> Sum {
    Sum((0..ROWS).map(|r| *stage.add(r * COLS + c)).sum())
}

#[inline(always)]
unsafe fn emit(out: *mut f32, Col(c): Col, Sum(s): Sum) {
    *out.add(block_idx_x() as usize * COLS + c) = s;
}

#[inline(always)]
fn ring_at<const N: u32>(tid: u32, consumers: u32) -> Pipeline<N> {
    let bars = dynamic_shared_window_address() + N * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<N>::init(bars, consumers) } else { Pipeline::<N>::attach(bars) };
    barrier();
    pipe
}

/// `foldl' (<>) mempty . map column`: four stages, warp 0 folds, thread 32 fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_haskell_foldl_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let pipe = ring_at::<4>(tid, 32);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = Col(tid as usize);
        let mut st = PipelineState::<4>::new();
        let mut acc = Sum::MEMPTY;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            acc = acc.mappend(column(ring.add(st.index() as usize * TILE), c));
            pipe.consumer_release(&st);
            st.advance();
        }
        emit(out, c, acc);
    }
}

/// A pair monoid: sixteen consumers, each folding columns `c` and `c + 16` together.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_haskell_monoid_pair(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let pipe = ring_at::<4>(tid, 16);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 16 {
        let (lo, hi) = (Col(tid as usize), Col(tid as usize + 16));
        let mut st = PipelineState::<4>::new();
        let mut acc = (Sum::MEMPTY, Sum::MEMPTY);
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc = (acc.0.mappend(column(stage, lo)), acc.1.mappend(column(stage, hi)));
            pipe.consumer_release(&st);
            st.advance();
        }
        emit(out, lo, acc.0);
        emit(out, hi, acc.1);
    }
}

/// Six stages deep; the fold written with `fold` over the row list.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_haskell_six_deep(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let pipe = ring_at::<6>(tid, 32);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if tid == 32 {
        let mut st = PipelineState::<6>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<6>::new();
        let mut acc = 0.0f32;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc = (0..ROWS).fold(acc, |s, r| s + *stage.add(r * COLS + c));
            pipe.consumer_release(&st);
            st.advance();
        }
        emit(out, Col(c), Sum(acc));
    }
}

/// `flip`ped roles: warp 1 folds, thread 0 both sets up the ring and fills it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_haskell_flipped_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let pipe = ring_at::<3>(tid, 32);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = Col((tid - 32) as usize);
        let mut st = PipelineState::<3>::new();
        let mut acc = Sum::MEMPTY;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            acc = acc.mappend(column(ring.add(st.index() as usize * TILE), c));
            pipe.consumer_release(&st);
            st.advance();
        }
        emit(out, c, acc);
    }
}

/// The column kept as a lazy list and forced when the accumulator is updated.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_haskell_lazy_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let pipe = ring_at::<4>(tid, 32);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            let thunk = (0..ROWS).map(|r| *stage.add(r * COLS + c));
            pipe.consumer_release(&st);
            acc += thunk.sum::<f32>();
            st.advance();
        }
        emit(out, Col(c), Sum(acc));
    }
}

/// The producer fills `succ` of the slot it acquired, as a ring written with `succ`/`mod`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_haskell_succ_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let pipe = ring_at::<4>(tid, 32);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let succ = |i: u32| (i + 1) % 4;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + succ(st.index()) * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = Col(tid as usize);
        let mut st = PipelineState::<4>::new();
        let mut acc = Sum::MEMPTY;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            acc = acc.mappend(column(ring.add(st.index() as usize * TILE), c));
            pipe.consumer_release(&st);
            st.advance();
        }
        emit(out, c, acc);
    }
}

/// `length [b, b+g .. tiles-1]` computed as `(tiles - b) \`div\` g` for the consumers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_haskell_length_div(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let pipe = ring_at::<4>(tid, 32);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = Col(tid as usize);
        let len = (tiles - block_idx_x()) / grid_dim_x();
        let mut st = PipelineState::<4>::new();
        let mut acc = Sum::MEMPTY;
        for _ in 0..len {
            pipe.consumer_wait(&st);
            acc = acc.mappend(column(ring.add(st.index() as usize * TILE), c));
            pipe.consumer_release(&st);
            st.advance();
        }
        emit(out, c, acc);
    }
}

/// The pair monoid again, its ring set up with the warp's width as the release count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_haskell_pair_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let pipe = ring_at::<4>(tid, 32);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 16 {
        let (lo, hi) = (Col(tid as usize), Col(tid as usize + 16));
        let mut st = PipelineState::<4>::new();
        let mut acc = (Sum::MEMPTY, Sum::MEMPTY);
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc = (acc.0.mappend(column(stage, lo)), acc.1.mappend(column(stage, hi)));
            pipe.consumer_release(&st);
            st.advance();
        }
        emit(out, lo, acc.0);
        emit(out, hi, acc.1);
    }
}
