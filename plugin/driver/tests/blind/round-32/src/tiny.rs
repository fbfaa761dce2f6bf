//! A module of tiny `#[inline(always)]` helpers (`op::…`: roles, columns, stage addresses,
//! one protocol step each) and kernels written as straight-line code that shadows its names
//! as it goes (`let t = …; let t = t + step;`, `let stage = …; let stage = stage.add(c);`).
//!
//! Pipeline kernels: barriers at window byte 0, a ring of 1 KiB stages at `op::RING` unless
//! the kernel says otherwise, one producer thread, 32 consumer threads (one column each).
//! The plain kernels stage a tile through shared memory with every thread.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

mod op {
    use super::*;

    pub const TILE_FLOATS: u32 = 256;
    pub const TILE_BYTES: u32 = 1024;
    pub const RING: u32 = 1024;
    pub const CONSUMERS: u32 = 32;
    /// Bytes between padded stages (half a bank row of slack after each tile).
    pub const PADDED_STRIDE: u32 = TILE_BYTES + 64;

    #[inline(always)]
    pub fn is_producer(tid: u32) -> bool {
        tid == 0
    }

    #[inline(always)]
    pub fn is_consumer(tid: u32) -> bool {
        tid >= 32
    }

    #[inline(always)]
    pub fn is_consumer_past_first_warp(tid: u32) -> bool {
        tid > 32
    }

    #[inline(always)]
    pub fn column(tid: u32) -> u32 {
        tid % 32
    }

    #[inline(always)]
    pub fn first_tile() -> u32 {
        block_idx_x()
    }

    #[inline(always)]
    pub fn step() -> u32 {
        grid_dim_x()
    }

    #[inline(always)]
    pub unsafe fn source(input: *const f32, t: u32) -> *const u8 {
        input.add((t * TILE_FLOATS) as usize).cast::<u8>()
    }

    #[inline(always)]
    pub fn stage_window<const S: u32>(window: u32, ring: u32, st: &PipelineState<S>) -> u32 {
        window + ring + st.index() * TILE_BYTES
    }

    #[inline(always)]
    pub fn padded_stage_window<const S: u32>(window: u32, ring: u32, st: &PipelineState<S>) -> u32 {
        window + ring + st.index() * PADDED_STRIDE
    }

    #[inline(always)]
    pub unsafe fn stage<const S: u32>(ring: *const f32, st: &PipelineState<S>) -> *const f32 {
        ring.add((st.index() * TILE_FLOATS) as usize)
    }

    #[inline(always)]
    pub unsafe fn ring(ring_at: u32) -> *const f32 {
        dynamic_shared_base::<f32>().add((ring_at / 4) as usize)
    }

    #[inline(always)]
    pub unsafe fn column_sum(stage: *const f32, c: u32) -> f32 {
        let mut s = 0.0f32;
        for r in 0..8 {
            s += *stage.add((r * 32 + c) as usize);
        }
        s
    }

    #[inline(always)]
    pub fn claim<const S: u32>(pipe: &Pipeline<S>, st: &PipelineState<S>) {
        pipe.producer_acquire(st);
    }

    #[inline(always)]
    pub fn fill<const S: u32>(pipe: &Pipeline<S>, st: &PipelineState<S>, dst: u32, src: *const u8) {
        pipe.producer_expect_tx(st, TILE_BYTES);
        bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(st));
    }

    #[inline(always)]
    pub fn take<const S: u32>(pipe: &Pipeline<S>, st: &PipelineState<S>) {
        pipe.consumer_wait(st);
    }

    #[inline(always)]
    pub fn done<const S: u32>(pipe: &Pipeline<S>, st: &PipelineState<S>) {
        pipe.consumer_release(st);
    }

    #[inline(always)]
    pub unsafe fn put(out: *mut f32, c: u32, v: f32) {
        *out.add((block_idx_x() * 32 + c) as usize) = v;
    }

    /// Every thread of the block copies four floats of tile `t` into `buf`.
    #[inline(always)]
    pub unsafe fn stage_plain(buf: *mut f32, input: *const f32, t: u32, tid: u32) {
        let tile = input.add((t * TILE_FLOATS) as usize);
        for k in 0..4u32 {
            let i = (tid + 64 * k) as usize;
            *buf.add(i) = *tile.add(i);
        }
    }
}

/// Four stages at byte 1024, written as straight-line code over the helpers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_shadowed_flow(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if op::is_producer(tid) { Pipeline::<4>::init(window, op::CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let t = op::first_tile();
    if op::is_producer(tid) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = t;
        while t < tiles {
            op::claim(&pipe, &st);
            let src = op::source(input, t);
            let dst = op::stage_window(window, op::RING, &st);
            op::fill(&pipe, &st, dst, src);
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    } else if op::is_consumer(tid) {
        let c = op::column(tid);
        let ring = op::ring(op::RING);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = t;
        while t < tiles {
            op::take(&pipe, &st);
            let stage = op::stage(ring, &st);
            let stage = stage.add(c as usize);
            let v = 0.0f32;
            let v = v + *stage;
            let v = v + *stage.add(32);
            let v = v + *stage.add(64);
            let v = v + *stage.add(96);
            let v = v + *stage.add(128);
            let v = v + *stage.add(160);
            let v = v + *stage.add(192);
            let v = v + *stage.add(224);
            acc += v;
            op::done(&pipe, &st);
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    }
}

/// Three stages at byte 512; warp 0 consumes and the block's last thread initialises and
/// produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_last_thread_producer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_AT: u32 = 512;
    let tid = thread_idx_x();
    let producer = tid == 63;
    let window = dynamic_shared_window_address();
    let pipe = if producer { Pipeline::<3>::init(window, op::CONSUMERS) } else { Pipeline::<3>::attach(window) };
    barrier();
    if tid < 32 {
        let c = op::column(tid);
        let ring = op::ring(RING_AT);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = op::first_tile();
        while t < tiles {
            op::take(&pipe, &st);
            let stage = op::stage(ring, &st);
            acc += op::column_sum(stage, c);
            op::done(&pipe, &st);
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    } else if producer {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = op::first_tile();
        while t < tiles {
            op::claim(&pipe, &st);
            op::fill(&pipe, &st, op::stage_window(window, RING_AT, &st), op::source(input, t));
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    }
}

/// Two stages at byte 64, the smallest ring the barriers leave room for.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_AT: u32 = 64;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if op::is_producer(tid) { Pipeline::<2>::init(window, op::CONSUMERS) } else { Pipeline::<2>::attach(window) };
    barrier();
    if op::is_producer(tid) {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = op::first_tile();
        while t < tiles {
            op::claim(&pipe, &st);
            op::fill(&pipe, &st, op::stage_window(window, RING_AT, &st), op::source(input, t));
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    } else if op::is_consumer(tid) {
        let c = op::column(tid);
        let ring = op::ring(RING_AT);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = op::first_tile();
        while t < tiles {
            op::take(&pipe, &st);
            acc += op::column_sum(op::stage(ring, &st), c);
            op::done(&pipe, &st);
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    }
}

/// Seven stages at byte 1024: the ring ends exactly at the end of the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if op::is_producer(tid) { Pipeline::<7>::init(window, op::CONSUMERS) } else { Pipeline::<7>::attach(window) };
    barrier();
    if op::is_producer(tid) {
        let mut st = PipelineState::<7>::producer_start();
        let mut t = op::first_tile();
        while t < tiles {
            op::claim(&pipe, &st);
            op::fill(&pipe, &st, op::stage_window(window, op::RING, &st), op::source(input, t));
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    } else if op::is_consumer(tid) {
        let c = op::column(tid);
        let ring = op::ring(op::RING);
        let mut st = PipelineState::<7>::new();
        let mut acc = 0.0f32;
        let mut t = op::first_tile();
        while t < tiles {
            op::take(&pipe, &st);
            acc += op::column_sum(op::stage(ring, &st), c);
            op::done(&pipe, &st);
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    }
}

/// Four stages at byte 1024; the 32 consumers are threads 1 to 32, across the warp boundary.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_straddling_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if op::is_producer(tid) { Pipeline::<4>::init(window, op::CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if op::is_producer(tid) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = op::first_tile();
        while t < tiles {
            op::claim(&pipe, &st);
            op::fill(&pipe, &st, op::stage_window(window, op::RING, &st), op::source(input, t));
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    } else if tid <= 32 {
        let c = tid - 1;
        let ring = op::ring(op::RING);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = op::first_tile();
        while t < tiles {
            op::take(&pipe, &st);
            acc += op::column_sum(op::stage(ring, &st), c);
            op::done(&pipe, &st);
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    }
}

/// Plain shared memory: every thread stages four floats of each tile, warp 0 sums its
/// columns between two block barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_plain_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let buf = dynamic_shared_base::<f32>();
    let acc = 0.0f32;
    let mut acc = acc;
    let mut t = op::first_tile();
    while t < tiles {
        op::stage_plain(buf, input, t, tid);
        barrier();
        if tid < 32 {
            acc += op::column_sum(buf, tid);
        }
        barrier();
        t += op::step();
    }
    if tid < 32 {
        op::put(out, tid, acc);
    }
}

/// Four stages at byte 1024; consumers are chosen as the threads past the first warp.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_bad_consumer_gt(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if op::is_producer(tid) { Pipeline::<4>::init(window, op::CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if op::is_producer(tid) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = op::first_tile();
        while t < tiles {
            op::claim(&pipe, &st);
            op::fill(&pipe, &st, op::stage_window(window, op::RING, &st), op::source(input, t));
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    } else if op::is_consumer_past_first_warp(tid) {
        let c = op::column(tid);
        let ring = op::ring(op::RING);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = op::first_tile();
        while t < tiles {
            op::take(&pipe, &st);
            acc += op::column_sum(op::stage(ring, &st), c);
            op::done(&pipe, &st);
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    }
}

/// Four stages at byte 1024; consumers hand the stage back first and sum its column after.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_bad_release_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if op::is_producer(tid) { Pipeline::<4>::init(window, op::CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if op::is_producer(tid) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = op::first_tile();
        while t < tiles {
            op::claim(&pipe, &st);
            op::fill(&pipe, &st, op::stage_window(window, op::RING, &st), op::source(input, t));
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    } else if op::is_consumer(tid) {
        let c = op::column(tid);
        let ring = op::ring(op::RING);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = op::first_tile();
        while t < tiles {
            op::take(&pipe, &st);
            let stage = op::stage(ring, &st);
            op::done(&pipe, &st);
            let stage = stage.add(c as usize);
            let v = *stage + *stage.add(32) + *stage.add(64) + *stage.add(96);
            let v = v + *stage.add(128) + *stage.add(160) + *stage.add(192) + *stage.add(224);
            acc += v;
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    }
}

/// Four stages at byte 1024; the consumers shadow `tiles` with the last tile's index and
/// keep looping while below it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_bad_shadowed_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if op::is_producer(tid) { Pipeline::<4>::init(window, op::CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if op::is_producer(tid) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = op::first_tile();
        while t < tiles {
            op::claim(&pipe, &st);
            op::fill(&pipe, &st, op::stage_window(window, op::RING, &st), op::source(input, t));
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    } else if op::is_consumer(tid) {
        let c = op::column(tid);
        let tiles = tiles - 1;
        let ring = op::ring(op::RING);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = op::first_tile();
        while t < tiles {
            op::take(&pipe, &st);
            acc += op::column_sum(op::stage(ring, &st), c);
            op::done(&pipe, &st);
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    }
}

/// Plain shared memory: every thread stages four floats, warp 0 sums its columns, and one
/// block barrier per tile closes the pass.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_bad_plain_barrier_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let buf = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = op::first_tile();
    while t < tiles {
        op::stage_plain(buf, input, t, tid);
        if tid < 32 {
            acc += op::column_sum(buf, tid);
        }
        barrier();
        t += op::step();
    }
    if tid < 32 {
        op::put(out, tid, acc);
    }
}

/// Four stages at byte 1024; the producer fills each stage without claiming it first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_bad_fill_unclaimed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if op::is_producer(tid) { Pipeline::<4>::init(window, op::CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if op::is_producer(tid) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = op::first_tile();
        while t < tiles {
            let dst = op::stage_window(window, op::RING, &st);
            let src = op::source(input, t);
            op::fill(&pipe, &st, dst, src);
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    } else if op::is_consumer(tid) {
        let c = op::column(tid);
        let ring = op::ring(op::RING);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = op::first_tile();
        while t < tiles {
            op::take(&pipe, &st);
            acc += op::column_sum(op::stage(ring, &st), c);
            op::done(&pipe, &st);
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    }
}

/// Four stages at byte 1024; the producer places stages with the padded stride, the
/// consumers find them tile by tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_tiny_bad_padded_producer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if op::is_producer(tid) { Pipeline::<4>::init(window, op::CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if op::is_producer(tid) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = op::first_tile();
        while t < tiles {
            op::claim(&pipe, &st);
            op::fill(&pipe, &st, op::padded_stage_window(window, op::RING, &st), op::source(input, t));
            st.advance();
            t += op::step();
        }
        pipe.producer_tail(st);
    } else if op::is_consumer(tid) {
        let c = op::column(tid);
        let ring = op::ring(op::RING);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = op::first_tile();
        while t < tiles {
            op::take(&pipe, &st);
            acc += op::column_sum(op::stage(ring, &st), c);
            op::done(&pipe, &st);
            st.advance();
            t += op::step();
        }
        op::put(out, c, acc);
    }
}
