//! Pipelines driven through closures and iterator adaptors: a `push` closure capturing the
//! producer's state, `for_each`/`fold` over the block's tiles, slices over the waited stage
//! (`skip`/`step_by`, `chunks_exact`), `try_for_each` with `ControlFlow`.

use core::ops::ControlFlow;
use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x,
};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF_BYTES: u32 = 512;
const COLS: usize = 32;
const ROWS: usize = 8;

/// A `push` closure that captures the producer's state by reference; consumers sum through a
/// `map(..).sum()` closure; barriers at the end of the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_clo_push_closure(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = 8192 - 16 * S;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut push = |t: u32| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.wrapping_add(t as usize * TILE).cast::<u8>();
            bulk_copy_global_to_shared(win + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        };
        let mut t = b;
        while t < tiles {
            push(t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        let column_of = |stage: *const f32| -> f32 {
            // SAFETY: `stage` is a waited stage; row `r`, column `c < 32`.
            (0..ROWS).map(|r| unsafe { *stage.add(r * COLS + c) }).sum()
        };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_of(ring.wrapping_add(st.index() as usize * TILE));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = acc };
    }
}

/// The producer's loop is `step_by(..).for_each(..)`, the consumers' a `fold` whose closure
/// waits, reads, releases and advances; two stages from byte 4096, barriers at byte 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_clo_for_each_fold(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    const RING: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<S>::init(win, 32) } else { Pipeline::<S>::attach(win) };
    barrier();
    let b = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 40 {
        let mut st = PipelineState::<S>::producer_start();
        (b..tiles).step_by(step).for_each(|t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING + st.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        // SAFETY: byte 4096 of the window.
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut st = PipelineState::<S>::new();
        let total = (b..tiles).step_by(step).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let mut part = 0.0f32;
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                part += unsafe { *ring.add(st.index() as usize * TILE + r * COLS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            acc + part
        });
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = total };
    }
}

/// Warp 1 consumes; each waited stage is viewed as a slice and its column summed with
/// `iter().skip(c).step_by(32)`; thread 0 loads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_clo_slice_skip_step(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    const BARS: u32 = 3 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = lane_id() as usize;
        let base = dynamic_shared_base::<f32>() as *const f32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            // SAFETY: the waited stage, 256 floats, not used past the release.
            let stage = unsafe { slice::from_raw_parts(base.add(st.index() as usize * TILE), TILE) };
            acc += stage.iter().skip(c).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = acc };
    }
}

/// Each waited stage is cut into rows with `chunks_exact(32)`; five stages from byte 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_clo_chunks_exact_rows(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 5;
    const RING: u32 = 1024;
    const BARS: u32 = RING + S * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 63 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 63 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING + st.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        // SAFETY: byte 1024 of the window.
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) } as *const f32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            // SAFETY: the waited stage, not used past the release.
            let stage = unsafe { slice::from_raw_parts(ring.add(st.index() as usize * TILE), TILE) };
            acc += stage.chunks_exact(COLS).map(|row| row[c]).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = acc };
    }
}

/// Both loops are `try_for_each` over an open range, breaking with `ControlFlow::Break` once
/// the block's tiles are done.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_clo_try_for_each_break(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = 4 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let _ = (0u32..).try_for_each(|k| {
            let t = b + k * g;
            if t >= tiles {
                return ControlFlow::Break(());
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            ControlFlow::Continue(())
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let _ = (0u32..).try_for_each(|k| {
            if b + k * g >= tiles {
                return ControlFlow::Break(());
            }
            pipe.consumer_wait(&st);
            let at = st.index() as usize * TILE + tid as usize;
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *ring.add(at + r * COLS) };
            }
            pipe.consumer_release(&st);
            st.advance();
            ControlFlow::Continue(())
        });
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// A `peek` closure fetches row 0 of the stage "early" to overlap it with the wait. BROKEN: the
/// read happens before `consumer_wait`, so it sees the stage before the tile's copy landed (the
/// previous tile, or nothing on the first pass).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_clo_peek_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        // SAFETY (both closures): `stage` is a stage of the ring; `c < 32`.
        let peek = |stage: *const f32| unsafe { *stage.add(c) };
        let rest = |stage: *const f32| -> f32 { (1..ROWS).map(|r| unsafe { *stage.add(r * COLS + c) }).sum() };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let stage = ring.wrapping_add(st.index() as usize * TILE) as *const f32;
            let head = peek(stage);
            pipe.consumer_wait(&st);
            acc += head + rest(stage);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = acc };
    }
}

/// The producer's destination comes from a `slot_addr` closure. BROKEN: it names the next stage,
/// `(index + 1) % S`, while the copy completes the current stage's barrier, so consumers read a
/// stage filled for the previous tile (or not filled yet).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_clo_destination_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let slot_addr = |s: &PipelineState<S>| win + ((s.index() + 1) % S) * TILE_BYTES;
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                slot_addr(&st),
                input.wrapping_add(t as usize * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                // SAFETY: inside the ring.
                acc += unsafe { *ring.add(st.index() as usize * TILE + r * COLS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// The consumers' `try_for_each` stops right after reading the last tile ("nothing is left to
/// refill"). BROKEN: that stage is never released, so `producer_tail` waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_clo_last_tile_unreleased(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    const BARS: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let count = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..count {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                input.wrapping_add((b + k * g) as usize * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let _ = (0..count).try_for_each(|k| {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *ring.add(st.index() as usize * TILE + r * COLS + tid as usize) };
            }
            if k + 1 == count {
                return ControlFlow::Break(());
            }
            pipe.consumer_release(&st);
            st.advance();
            ControlFlow::Continue(())
        });
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// Each tile is copied as two 512-byte halves by a `copy_half` closure. BROKEN: `expect_tx`
/// announces one half only, so the *full* barrier completes after the first half lands and the
/// second half's bytes fall into the next phase: consumers read partial stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_clo_expect_one_half(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, HALF_BYTES);
            let src = input.wrapping_add(t as usize * TILE).cast::<u8>();
            let copy_half = |h: u32| {
                bulk_copy_global_to_shared(
                    win + st.index() * TILE_BYTES + h * HALF_BYTES,
                    src.wrapping_add((h * HALF_BYTES) as usize),
                    HALF_BYTES,
                    pipe.producer_barrier(&st),
                )
            };
            copy_half(0);
            copy_half(1);
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *ring.add(st.index() as usize * TILE + r * COLS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}
