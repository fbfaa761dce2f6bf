//! Pipelines written once and instantiated several times: a const-generic body (stage count,
//! ring offset, release count), a macro that writes whole kernels, and rows summed with the
//! device API's `unrolled!`.

#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

/// The whole kernel for a ring of `S` stages at byte `RING`, `CONSUMERS` releasing threads.
#[inline(always)]
unsafe fn run<const S: u32, const RING: u32, const CONSUMERS: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// The generic body with three stages at byte 48.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pg_generic_s3(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run::<3, 48, 32>(input, tiles, out);
}

/// The generic body with six stages at byte 96.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pg_generic_s6(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run::<6, 96, 32>(input, tiles, out);
}

/// Broken: "every thread of the block consumes" was passed as the release count (64), but the
/// body's consumers are warp 0; no *empty* barrier ever completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pg_bad_generic_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run::<4, 64, THREADS>(input, tiles, out);
}

/// Writes a whole ring kernel: `stages` stages at byte `ring`, thread `producer` copying and
/// warp 0 summing.
macro_rules! ring_kernel {
    ($(#[$doc:meta])* $name:ident, stages = $s:expr, ring = $ring:expr, producer = $p:expr) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            block_threads(64);
            dynamic_shared_bytes(8192);
            const STAGES: u32 = $s;
            const RING_AT: u32 = $ring;
            let tid = thread_idx_x();
            let win = dynamic_shared_window_address();
            let pipe = if tid == 0 {
                Pipeline::<STAGES>::init(win, 32)
            } else {
                Pipeline::<STAGES>::attach(win)
            };
            barrier();
            if tid == $p {
                let mut st = PipelineState::<STAGES>::producer_start();
                let mut t = block_idx_x();
                while t < tiles {
                    pipe.producer_acquire(&st);
                    pipe.producer_expect_tx(&st, TILE_BYTES);
                    bulk_copy_global_to_shared(
                        win + RING_AT + st.index() * TILE_BYTES,
                        tile_source(input, t),
                        TILE_BYTES,
                        pipe.producer_barrier(&st),
                    );
                    st.advance();
                    t += grid_dim_x();
                }
                pipe.producer_tail(st);
            } else if tid < 32 {
                let ring = dynamic_shared_base::<u8>().add(RING_AT as usize) as *const f32;
                let mut st = PipelineState::<STAGES>::new();
                let mut acc = 0.0f32;
                let mut t = block_idx_x();
                while t < tiles {
                    pipe.consumer_wait(&st);
                    acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
                    pipe.consumer_release(&st);
                    st.advance();
                    t += grid_dim_x();
                }
                store_column(out, tid, acc);
            }
        }
    };
}

ring_kernel!(
    /// Macro-written: two stages at byte 32, the last thread copies.
    r18_pg_macro_s2, stages = 2, ring = 32, producer = 63
);

ring_kernel!(
    /// Macro-written: five stages at byte 80, thread 40 copies.
    r18_pg_macro_s5, stages = 5, ring = 80, producer = 40
);

ring_kernel!(
    /// Broken: seven stages placed after a 1 KiB scratch plus barriers (byte 1056) need
    /// 8224 bytes; the last stage runs 32 bytes past the window.
    r18_pg_bad_macro_s7_high, stages = 7, ring = 1056, producer = 32
);

ring_kernel!(
    /// Broken: the ring starts at byte 32, inside the 64 bytes of barriers of four stages; the
    /// first copy overwrites the *empty* barriers.
    r18_pg_bad_macro_ring_on_barriers, stages = 4, ring = 32, producer = 32
);

/// Sum of column `lane` of a stage, the rows written out by `unrolled!`.
#[inline(always)]
unsafe fn rows_unrolled<const R: usize>(stage: *const f32, lane: usize) -> f32 {
    let mut parts = [0.0f32; R];
    unrolled!(ROW < R => {
        parts[ROW] = *stage.add(lane + ROW * COLS);
    });
    let mut sum = 0.0f32;
    unrolled!(ROW < R => {
        sum += parts[ROW];
    });
    sum
}

/// Rows summed by a const-generic helper written with `unrolled!`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pg_unrolled_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING: u32 = 64;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += rows_unrolled::<ROWS>(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Stage `index` of a ring at `ring_bytes`, in floats.
#[inline(always)]
fn stage_floats(ring_bytes: u32, index: u32) -> usize {
    ring_bytes as usize + index as usize * TILE_BYTES as usize
}

/// Broken: the consumers' stage offset is computed in bytes (`stage_floats` returns the byte
/// offset) and added to an `f32` pointer; from stage 2 on the reads leave the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pg_bad_units(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const RING: u32 = 64;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>() as *const f32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(base.add(stage_floats(RING, st.index())), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// One consumer step written as a self-contained helper.
#[inline(always)]
unsafe fn take_one<const S: u32>(pipe: &Pipeline<S>, ring: *const f32, lane: usize) -> f32 {
    let st = PipelineState::<S>::new();
    pipe.consumer_wait(&st);
    let v = column_sum(ring.add(st.index() as usize * TILE_FLOATS), lane);
    pipe.consumer_release(&st);
    v
}

/// Broken: `take_one` makes a fresh state each call, so every tile waits on stage 0, parity 0:
/// after the first tile the wait returns at once on stage 0's old data, stage 1 is never
/// released and the producer hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pg_bad_fresh_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING: u32 = 32;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += take_one::<S>(&pipe, ring, tid as usize);
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}
