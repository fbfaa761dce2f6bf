//! Style 1 (`fortran`): ports of CUDA Fortran / OpenACC kernels.
//!
//! The originals are one `MODULE colsum_mod` with its parameters and `CONTAINS` subroutines:
//! a tile is the Fortran array `tile(NCOL, NROW)`, column-major and 1-based, so the contract's
//! "column c" is `tile(c + 1, 1:NROW)`. Indices stay 1-based inside the port
//! (`threadIdx%x`, `blockIdx%x`, `DO it = ib, tiles, nb`) and are converted to 0-based offsets
//! only at the edges: [`tile_off`], [`tile_src`], [`store_out`].

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

// ---------------------------------------------------------------- MODULE colsum_params
/// `blockDim%x` of every launch.
const NTHREADS: u32 = 64;
/// Dynamic shared memory of every launch (bytes).
const SMEM_BYTES: u32 = 8192;
/// Leading dimension of `tile(NCOL, NROW)`.
const NCOL: u32 = 32;
const NROW: u32 = 8;
const TILE_ELEMS: u32 = NCOL * NROW;
const TILE_BYTES: u32 = TILE_ELEMS * 4;
/// `INTEGER, PARAMETER :: NSTAGES = 4`
const NSTAGES: u32 = 4;
/// `stage(:, :, 1:NSTAGES)` from byte 0, the mbarriers right after it.
const RING_BYTES: u32 = NSTAGES * TILE_BYTES;
/// `threadIdx%x == 33`: the first thread of the second warp issues the copies.
const PRODUCER_TX: u32 = NCOL + 1;

// ---------------------------------------------------------------- CONTAINS
/// `threadIdx%x` (1-based).
#[inline(always)]
fn threadidx_x() -> u32 {
    thread_idx_x() + 1
}

/// `blockIdx%x` (1-based).
#[inline(always)]
fn blockidx_x() -> u32 {
    block_idx_x() + 1
}

/// `gridDim%x`.
#[inline(always)]
fn griddim_x() -> u32 {
    grid_dim_x()
}

/// 0-based float offset of `tile(i, j)`, `1 <= i <= NCOL`, `1 <= j <= NROW` (column-major).
#[inline(always)]
fn tile_off(i: u32, j: u32) -> usize {
    ((i - 1) + NCOL * (j - 1)) as usize
}

/// `a(1, 1, it)`: first float of the 1-based tile `it` of the input.
#[inline(always)]
unsafe fn tile_src(a: *const f32, it: u32) -> *const f32 {
    a.add(((it - 1) * TILE_ELEMS) as usize)
}

/// `colsum = SUM(tile(i, 1:NROW))`.
#[inline(always)]
unsafe fn column_sum(tile: *const f32, i: u32) -> f32 {
    let mut s = 0.0f32;
    let mut j = 1u32;
    while j <= NROW {
        s += *tile.add(tile_off(i, j));
        j += 1;
    }
    s
}

/// `SUBROUTINE accumulate(tile, i, colsum)`: `colsum = colsum + SUM(tile(i, :))`, `DO j` written
/// as an inclusive range.
#[inline(always)]
unsafe fn accumulate(tile: *const f32, i: u32, colsum: &mut f32) {
    for j in 1..=NROW {
        *colsum += *tile.add(tile_off(i, j));
    }
}

/// `out(i, ib) = v`: output column `i` of block `ib`, both 1-based.
#[inline(always)]
unsafe fn store_out(out: *mut f32, i: u32, ib: u32, v: f32) {
    *out.add(((ib - 1) * NCOL + (i - 1)) as usize) = v;
}

/// `SUBROUTINE load_rows(pipe, st, ring, a, j_first, j_last)`: one bulk copy of rows
/// `j_first:j_last` of tile `a` into the stage `st` holds (a column-major row block is
/// contiguous: `NCOL` floats per row).
#[inline(always)]
unsafe fn load_rows(
    pipe: &Pipeline<NSTAGES>,
    st: &PipelineState<NSTAGES>,
    ring: u32,
    a: *const f32,
    j_first: u32,
    j_last: u32,
) {
    let bytes = (j_last - j_first + 1) * NCOL * 4;
    let dst = ring + st.index() * TILE_BYTES + (j_first - 1) * NCOL * 4;
    let src = a.add(((j_first - 1) * NCOL) as usize);
    bulk_copy_global_to_shared(dst, src as *const u8, bytes, pipe.producer_barrier(st));
}

// ================================================================ correct kernels

/// Correct. `DO it = blockIdx%x, tiles, gridDim%x` over a four-stage ring: thread 33 (1-based)
/// acquires, announces and copies each tile; threads 1..32 wait, sum `tile(i, 1:NROW)` and
/// release. Barriers after the ring at byte 4096.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_fortran_tile_colsum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = threadidx_x();
    let ib = blockidx_x();
    let nb = griddim_x();
    let win = dynamic_shared_window_address();
    let bars = win + RING_BYTES;
    if tx == 1 {
        Pipeline::<NSTAGES>::init(bars, NCOL);
    }
    barrier();
    let pipe = Pipeline::<NSTAGES>::attach(bars);

    if tx == PRODUCER_TX {
        let mut st = PipelineState::<NSTAGES>::producer_start();
        let mut it = ib;
        while it <= tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                tile_src(input, it) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            it += nb;
        }
        pipe.producer_tail(st);
    } else if tx <= NCOL {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<NSTAGES>::new();
        let mut colsum = 0.0f32;
        let mut it = ib;
        while it <= tiles {
            pipe.consumer_wait(&st);
            colsum += column_sum(ring.add((st.index() * TILE_ELEMS) as usize), tx);
            pipe.consumer_release(&st);
            st.advance();
            it += nb;
        }
        store_out(out, tx, ib, colsum);
    }
}

/// Correct. Plain shared memory, no pipeline: `DO k = threadIdx%x, TILE_ELEMS, NTHREADS` stages
/// the tile with all 64 threads, `CALL syncthreads()`, threads 1..32 sum their column, and a
/// second `syncthreads()` before the buffer is refilled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_fortran_plain_staged(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = threadidx_x();
    let ib = blockidx_x();
    let nb = griddim_x();
    let s = dynamic_shared_base::<f32>();
    let mut colsum = 0.0f32;
    let mut it = ib;
    while it <= tiles {
        let a = tile_src(input, it);
        let mut k = tx;
        while k <= TILE_ELEMS {
            *s.add((k - 1) as usize) = *a.add((k - 1) as usize);
            k += NTHREADS;
        }
        barrier();
        if tx <= NCOL {
            colsum += column_sum(s, tx);
        }
        barrier();
        it += nb;
    }
    if tx <= NCOL {
        store_out(out, tx, ib, colsum);
    }
}

/// Correct, written outside the usual order on purpose: the producer (the last thread,
/// `threadIdx%x == 64`) issues each tile's bulk copy right after the acquire and only then
/// arrives with `expect_tx` (acquire -> copy -> expect_tx -> advance), which MODEL.md allows.
/// Three stages, barriers after the ring; the consumers sum through `accumulate`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_fortran_copy_then_expect(input: *const f32, tiles: u32, out: *mut f32) {
    const NST: u32 = 3;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = threadidx_x();
    let ib = blockidx_x();
    let nb = griddim_x();
    let win = dynamic_shared_window_address();
    let bars = win + NST * TILE_BYTES;
    if tx == NTHREADS {
        Pipeline::<NST>::init(bars, NCOL);
    }
    barrier();
    let pipe = Pipeline::<NST>::attach(bars);

    if tx == NTHREADS {
        let mut st = PipelineState::<NST>::producer_start();
        let mut it = ib;
        while it <= tiles {
            pipe.producer_acquire(&st);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                tile_src(input, it) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            pipe.producer_expect_tx(&st, TILE_BYTES);
            st.advance();
            it += nb;
        }
        pipe.producer_tail(st);
    } else if tx <= NCOL {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<NST>::new();
        let mut colsum = 0.0f32;
        let mut it = ib;
        while it <= tiles {
            pipe.consumer_wait(&st);
            accumulate(ring.add((st.index() * TILE_ELEMS) as usize), tx, &mut colsum);
            pipe.consumer_release(&st);
            st.advance();
            it += nb;
        }
        store_out(out, tx, ib, colsum);
    }
}

/// Correct. Each stage is filled by two bulk copies of 512 bytes (`CALL load_rows(.., 1, 4)` and
/// `CALL load_rows(.., 5, 8)`) under one `expect_tx` of the whole tile. Barriers at byte 0, the
/// ring from byte 1024; thread 1 produces and threads 33..64 (the second warp) consume, column
/// `i = threadIdx%x - NCOL`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_fortran_two_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
    const RING_OFF: u32 = 1024;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = threadidx_x();
    let ib = blockidx_x();
    let nb = griddim_x();
    let win = dynamic_shared_window_address();
    if tx == 1 {
        Pipeline::<NSTAGES>::init(win, NCOL);
    }
    barrier();
    let pipe = Pipeline::<NSTAGES>::attach(win);

    if tx == 1 {
        let mut st = PipelineState::<NSTAGES>::producer_start();
        let mut it = ib;
        while it <= tiles {
            let a = tile_src(input, it);
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            load_rows(&pipe, &st, win + RING_OFF, a, 1, 4);
            load_rows(&pipe, &st, win + RING_OFF, a, 5, 8);
            st.advance();
            it += nb;
        }
        pipe.producer_tail(st);
    } else if tx > NCOL {
        let i = tx - NCOL;
        let ring = dynamic_shared_base::<f32>().add((RING_OFF / 4) as usize);
        let mut st = PipelineState::<NSTAGES>::new();
        let mut colsum = 0.0f32;
        let mut it = ib;
        while it <= tiles {
            pipe.consumer_wait(&st);
            colsum += column_sum(ring.add((st.index() * TILE_ELEMS) as usize), i);
            pipe.consumer_release(&st);
            st.advance();
            it += nb;
        }
        store_out(out, i, ib, colsum);
    }
}

// ================================================================ broken kernels

/// BROKEN (tile-count): the consumers run `DO n = 1, ntrip` with Fortran's trip count
/// `(last - first + step) / step`, but `first` was converted to 0-based a second time
/// (`blockIdx%x - 1`). Block 1 (1-based) then counts 9 tiles where the producer's
/// `DO it = ib, tiles, nb` copies 8: its consumers wait for a ninth fill that never comes (hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_fortran_bad_trip_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = threadidx_x();
    let ib = blockidx_x();
    let nb = griddim_x();
    let win = dynamic_shared_window_address();
    let bars = win + RING_BYTES;
    if tx == 1 {
        Pipeline::<NSTAGES>::init(bars, NCOL);
    }
    barrier();
    let pipe = Pipeline::<NSTAGES>::attach(bars);

    if tx == PRODUCER_TX {
        let mut st = PipelineState::<NSTAGES>::producer_start();
        let mut it = ib;
        while it <= tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                tile_src(input, it) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            it += nb;
        }
        pipe.producer_tail(st);
    } else if tx <= NCOL {
        let first = ib - 1;
        let ntrip = (tiles - first + nb) / nb;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<NSTAGES>::new();
        let mut colsum = 0.0f32;
        for _n in 1..=ntrip {
            pipe.consumer_wait(&st);
            colsum += column_sum(ring.add((st.index() * TILE_ELEMS) as usize), tx);
            pipe.consumer_release(&st);
            st.advance();
        }
        store_out(out, tx, ib, colsum);
    }
}

/// BROKEN (copy-destination): the stage number is kept 1-based (`is = index + 1`, Fortran's
/// `stage(:, :, is)`); the consumers convert it at the edge (`is - 1`) but the copy's destination
/// does not (`is * TILE_BYTES`), so every tile lands one stage further on. The consumers read a
/// stage that holds the previous tile (or nothing yet, for the first): wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_fortran_bad_stage_one_based(input: *const f32, tiles: u32, out: *mut f32) {
    const RING_OFF: u32 = 1024;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = threadidx_x();
    let ib = blockidx_x();
    let nb = griddim_x();
    let win = dynamic_shared_window_address();
    if tx == 1 {
        Pipeline::<NSTAGES>::init(win, NCOL);
    }
    barrier();
    let pipe = Pipeline::<NSTAGES>::attach(win);

    if tx == PRODUCER_TX {
        let mut st = PipelineState::<NSTAGES>::producer_start();
        let mut it = ib;
        while it <= tiles {
            let is = st.index() + 1;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING_OFF + is * TILE_BYTES,
                tile_src(input, it) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            it += nb;
        }
        pipe.producer_tail(st);
    } else if tx <= NCOL {
        let ring = dynamic_shared_base::<f32>().add((RING_OFF / 4) as usize);
        let mut st = PipelineState::<NSTAGES>::new();
        let mut colsum = 0.0f32;
        let mut it = ib;
        while it <= tiles {
            pipe.consumer_wait(&st);
            let is = st.index() + 1;
            colsum += column_sum(ring.add(((is - 1) * TILE_ELEMS) as usize), tx);
            pipe.consumer_release(&st);
            st.advance();
            it += nb;
        }
        store_out(out, tx, ib, colsum);
    }
}

/// BROKEN (release-count): the consumer test mixes the 1-based `threadIdx%x` with an exclusive
/// bound (`tx < NCOL`), so only threads 1..31 consume and release while the pipeline was
/// initialised for `NCOL` = 32 releasing threads. No empty barrier ever completes: the producer
/// hangs at its fifth acquire (and column 32 is never written).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_fortran_bad_lane_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = threadidx_x();
    let ib = blockidx_x();
    let nb = griddim_x();
    let win = dynamic_shared_window_address();
    let bars = win + RING_BYTES;
    if tx == 1 {
        Pipeline::<NSTAGES>::init(bars, NCOL);
    }
    barrier();
    let pipe = Pipeline::<NSTAGES>::attach(bars);

    if tx == PRODUCER_TX {
        let mut st = PipelineState::<NSTAGES>::producer_start();
        let mut it = ib;
        while it <= tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                tile_src(input, it) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            it += nb;
        }
        pipe.producer_tail(st);
    } else if tx < NCOL {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<NSTAGES>::new();
        let mut colsum = 0.0f32;
        let mut it = ib;
        while it <= tiles {
            pipe.consumer_wait(&st);
            accumulate(ring.add((st.index() * TILE_ELEMS) as usize), tx, &mut colsum);
            pipe.consumer_release(&st);
            st.advance();
            it += nb;
        }
        store_out(out, tx, ib, colsum);
    }
}

/// BROKEN (shared-order): a plain staging kernel in which the second warp (threads 33..64,
/// `DO k = tx - NCOL, TILE_ELEMS, NCOL`) loads the tile into shared memory and the first warp sums
/// it, with the `syncthreads()` between the staging loop and the column sums left out (the OpenACC
/// original relied on the implicit barrier at the end of a `!$acc loop`); only the barrier at the
/// end of the tile is kept. The first warp reads the buffer while the loader warp's global loads
/// are still in flight: it sums the previous tile (garbage for the first), a race and wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_fortran_bad_plain_missing_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = threadidx_x();
    let ib = blockidx_x();
    let nb = griddim_x();
    let s = dynamic_shared_base::<f32>();
    let mut colsum = 0.0f32;
    let mut it = ib;
    while it <= tiles {
        if tx > NCOL {
            let a = tile_src(input, it);
            let mut k = tx - NCOL;
            while k <= TILE_ELEMS {
                *s.add((k - 1) as usize) = *a.add((k - 1) as usize);
                k += NCOL;
            }
        } else {
            colsum += column_sum(s, tx);
        }
        barrier();
        it += nb;
    }
    if tx <= NCOL {
        store_out(out, tx, ib, colsum);
    }
}
