//! Halide style: the algorithm (`out(c) = sum over t, r of in(t, r, c)`) is fixed, and each
//! kernel is a *schedule* of it written as small value types: `Split` (a variable of some
//! extent split into outer and inner by a factor, `x = xo * factor + xi`), `gpu_threads`
//! bindings, `compute_at` (the staged input computed per tile), `rfactor` (the row reduction
//! split across warps) and `async_` / `fold_storage` (the staged input produced into a folded
//! ring by a producer thread, through the `Pipeline`).
//!
//! Launch: 64 threads, 8 blocks, 8192 bytes of dynamic shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const TILE_FLOATS: u32 = ROWS * COLS;
const TILE_BYTES: u32 = TILE_FLOATS * 4;

/// A variable of `extent` split by `factor`: `outer = cdiv(extent, factor)` iterations of the
/// outer variable, `x = xo * factor + xi`. The tail strategy is `RoundUp`: no guard.
#[derive(Clone, Copy)]
struct Split {
    outer: u32,
    factor: u32,
}

impl Split {
    #[inline(always)]
    const fn new(extent: u32, factor: u32) -> Split {
        Split { outer: extent.div_ceil(factor), factor }
    }

    #[inline(always)]
    const fn at(&self, xo: u32, xi: u32) -> u32 {
        xo * self.factor + xi
    }
}

/// The tile loop `t` of the block: `t = b + k * g` for `k` in `0..tiles_of_block`.
#[derive(Clone, Copy)]
struct TileVar {
    first: u32,
    step: u32,
}

impl TileVar {
    #[inline(always)]
    fn of_block() -> TileVar {
        TileVar { first: block_idx_x(), step: grid_dim_x() }
    }
}

/// `stage.compute_at(out, t).store_in(Shared).split(e, eo, ei, 64).gpu_threads(ei)`.
const STAGE_SPLIT: Split = Split::new(TILE_FLOATS, THREADS);
/// `out.update().split(r, ro, ri, 4).unroll(ri)`.
const ROW_SPLIT: Split = Split::new(ROWS, 4);

/// Realizes the staged tile `t` into `dst`: thread `ei` takes `e = eo * 64 + ei`.
#[inline(always)]
unsafe fn realize_stage(dst: *mut f32, input: *const f32, t: u32, split: Split, ei: u32) {
    let src = input.add((t * TILE_FLOATS) as usize);
    for eo in 0..split.outer {
        let e = split.at(eo, ei) as usize;
        *dst.add(e) = *src.add(e);
    }
}

/// The update `out(c) += stage(r, c)` over `r = ro * 4 + ri`, `ro` in `ros`.
#[inline(always)]
unsafe fn reduce_rows(stage: *const f32, c: u32, split: Split, ro_first: u32, ro_end: u32) -> f32 {
    let mut sum = 0.0;
    let mut ro = ro_first;
    while ro < ro_end {
        for ri in 0..split.factor {
            sum += *stage.add((split.at(ro, ri) * COLS + c) as usize);
        }
        ro += 1;
    }
    sum
}

/// `compute_at` the tile loop: the whole block realizes each tile into shared memory (split
/// by 64, bound to the threads), then warp 0 runs the row reduction split 2 x 4.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_halide_compute_at_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let stage = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let tv = TileVar::of_block();
    let mut acc = 0.0f32;
    let mut t = tv.first;
    while t < tiles {
        realize_stage(stage, input, t, STAGE_SPLIT, tid);
        barrier();
        if tid < COLS {
            acc += reduce_rows(stage, tid, ROW_SPLIT, 0, ROW_SPLIT.outer);
        }
        barrier();
        t += tv.step;
    }
    if tid < COLS {
        *out.add((tv.first * COLS + tid) as usize) = acc;
    }
}

/// `rfactor(ro)` bound to the warps: warp `w` reduces rows `4w..4w+4` of every tile; the
/// intermediate `rf(c, ro)` is stored in shared memory after the tile, a block barrier, then
/// warp 0 reduces over `ro`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_halide_rfactor_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let stage = dynamic_shared_base::<f32>();
    let rf = stage.add(TILE_FLOATS as usize);
    let tid = thread_idx_x();
    let ro = tid / COLS;
    let c = tid % COLS;
    let tv = TileVar::of_block();
    let mut acc = 0.0f32;
    let mut t = tv.first;
    while t < tiles {
        realize_stage(stage, input, t, STAGE_SPLIT, tid);
        barrier();
        acc += reduce_rows(stage, c, ROW_SPLIT, ro, ro + 1);
        barrier();
        t += tv.step;
    }
    *rf.add((ro * COLS + c) as usize) = acc;
    barrier();
    if ro == 0 {
        *out.add((tv.first * COLS + c) as usize) = *rf.add(c as usize) + *rf.add((COLS + c) as usize);
    }
}

/// `stage.async_().fold_storage(t, 4)`: thread 0 produces each tile into the folded ring slot
/// of its pipeline state with one bulk copy; warp 1 consumes with the 2 x 4 row split.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_halide_async_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let tv = TileVar::of_block();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = tv.first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += tv.step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = tv.first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += reduce_rows(ring.add((state.index() * TILE_FLOATS) as usize), c, ROW_SPLIT, 0, ROW_SPLIT.outer);
            pipe.consumer_release(&state);
            state.advance();
            t += tv.step;
        }
        *out.add((tv.first * COLS + c) as usize) = acc;
    }
}

/// The copy itself split: `split(e, eo, ei, 64)` on the bulk copy, four 256-byte chunk copies
/// per stage from a counted loop under one `expect_tx` of the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_halide_split_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    const CHUNK: Split = Split::new(TILE_FLOATS, 64);
    const CHUNK_BYTES: u32 = CHUNK.factor * 4;
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let tv = TileVar::of_block();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = tv.first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add((t * TILE_FLOATS) as usize);
            for eo in 0..CHUNK.outer {
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES + eo * CHUNK_BYTES,
                    src.add(CHUNK.at(eo, 0) as usize) as *const u8,
                    CHUNK_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            t += tv.step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = tv.first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += reduce_rows(ring.add((state.index() * TILE_FLOATS) as usize), c, ROW_SPLIT, 0, ROW_SPLIT.outer);
            pipe.consumer_release(&state);
            state.advance();
            t += tv.step;
        }
        *out.add((tv.first * COLS + c) as usize) = acc;
    }
}

/// BROKEN: the row reduction is split by 3 with the `RoundUp` tail (no guard): `cdiv(8, 3) = 3`
/// outer iterations of three rows read rows 0 to 8. The staged tile is stored at the top of the window
/// (byte 7168), so row 8 is bytes 8192.. past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_halide_bad_split_roundup(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    const ROW_SPLIT_3: Split = Split::new(ROWS, 3);
    let stage = dynamic_shared_base::<f32>().add(((WINDOW_BYTES - TILE_BYTES) / 4) as usize);
    let tid = thread_idx_x();
    let tv = TileVar::of_block();
    let mut acc = 0.0f32;
    let mut t = tv.first;
    while t < tiles {
        realize_stage(stage, input, t, STAGE_SPLIT, tid);
        barrier();
        if tid < COLS {
            acc += reduce_rows(stage, tid, ROW_SPLIT_3, 0, ROW_SPLIT_3.outer);
        }
        barrier();
        t += tv.step;
    }
    if tid < COLS {
        *out.add((tv.first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the `rfactor` intermediate is stored and then reduced over `ro` with no block
/// barrier between: warp 0 reads warp 1's `rf(c, 1)` before warp 1 stores it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_halide_bad_rfactor_no_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let stage = dynamic_shared_base::<f32>();
    let rf = stage.add(TILE_FLOATS as usize);
    let tid = thread_idx_x();
    let ro = tid / COLS;
    let c = tid % COLS;
    let tv = TileVar::of_block();
    let mut acc = 0.0f32;
    let mut t = tv.first;
    while t < tiles {
        realize_stage(stage, input, t, STAGE_SPLIT, tid);
        barrier();
        acc += reduce_rows(stage, c, ROW_SPLIT, ro, ro + 1);
        barrier();
        t += tv.step;
    }
    *rf.add((ro * COLS + c) as usize) = acc;
    if ro == 0 {
        *out.add((tv.first * COLS + c) as usize) = *rf.add(c as usize) + *rf.add((COLS + c) as usize);
    }
}

/// BROKEN: `fold_storage` sized by the row split's inner extent: ring slots 512 bytes apart
/// (4 rows) while each bulk copy writes a whole 1024-byte tile, so slot `s + 1`'s copy
/// overwrites rows 4..7 of slot `s` that the consumers are about to read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_halide_bad_fold_extent(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    const FOLD_BYTES: u32 = ROW_SPLIT.factor * COLS * 4;
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let tv = TileVar::of_block();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = tv.first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * FOLD_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += tv.step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = tv.first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let slot = ring.add((state.index() * FOLD_BYTES / 4) as usize);
            acc += reduce_rows(slot, c, ROW_SPLIT, 0, ROW_SPLIT.outer);
            pipe.consumer_release(&state);
            state.advance();
            t += tv.step;
        }
        *out.add((tv.first * COLS + c) as usize) = acc;
    }
}

/// BROKEN: the chunked copy loop runs `CHUNK.outer - 1` times (three 256-byte chunks) under an
/// `expect_tx` of the whole tile: each full barrier is left 256 bytes short and never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_halide_bad_split_copies_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    const CHUNK: Split = Split::new(TILE_FLOATS, 64);
    const CHUNK_BYTES: u32 = CHUNK.factor * 4;
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let tv = TileVar::of_block();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = tv.first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add((t * TILE_FLOATS) as usize);
            for eo in 0..CHUNK.outer - 1 {
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES + eo * CHUNK_BYTES,
                    src.add(CHUNK.at(eo, 0) as usize) as *const u8,
                    CHUNK_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            t += tv.step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = tv.first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += reduce_rows(ring.add((state.index() * TILE_FLOATS) as usize), c, ROW_SPLIT, 0, ROW_SPLIT.outer);
            pipe.consumer_release(&state);
            state.advance();
            t += tv.step;
        }
        *out.add((tv.first * COLS + c) as usize) = acc;
    }
}
