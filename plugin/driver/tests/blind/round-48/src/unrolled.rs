//! Module `unrolled`: hand-unrolled straight-line code, the way performance code was written
//! before compilers unrolled reliably (Duff's device, hand-scheduled inner loops). No loop runs
//! over a constant count: the eight rows of a column are eight named loads summed as a balanced
//! tree, a thread's four staged floats are four written-out stores, and the tile loop itself is
//! unrolled by two where it pays, with a remainder pass.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const BARRIERS: u32 = 0;
const RING: u32 = 1024;
const RING_FLOATS: usize = 256;
const CONSUMERS: u32 = 32;

/// Pipeline: the consumer's eight row loads are written out and summed as a balanced tree.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_unrolled_pipeline_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            let r0 = *p;
            let r1 = *p.add(32);
            let r2 = *p.add(64);
            let r3 = *p.add(96);
            let r4 = *p.add(128);
            let r5 = *p.add(160);
            let r6 = *p.add(192);
            let r7 = *p.add(224);
            pipe.consumer_release(&st);
            acc += ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Pipeline whose tile loop is unrolled by two in both roles, two tiles per pass, with a
/// remainder pass for an odd last tile (the same test in both roles).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_unrolled_tiles_by_two(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t + g < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add((t + g) as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += 2 * g;
        }
        if t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut even = 0.0f32;
        let mut odd = 0.0f32;
        let mut t = b;
        while t + g < tiles {
            pipe.consumer_wait(&st);
            let p = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            even += ((*p + *p.add(32)) + (*p.add(64) + *p.add(96)))
                + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)));
            pipe.consumer_release(&st);
            st.advance();
            pipe.consumer_wait(&st);
            let q = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            odd += ((*q + *q.add(32)) + (*q.add(64) + *q.add(96)))
                + ((*q.add(128) + *q.add(160)) + (*q.add(192) + *q.add(224)));
            pipe.consumer_release(&st);
            st.advance();
            t += 2 * g;
        }
        if t < tiles {
            pipe.consumer_wait(&st);
            let p = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            even += ((*p + *p.add(32)) + (*p.add(64) + *p.add(96)))
                + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)));
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = even + odd;
    }
}

/// Plain: each thread's four staged floats are four written-out stores, warp 0's eight row
/// loads are written out, two block barriers per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_unrolled_plain_quad_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS + tid);
        let dst = s.add(tid);
        *dst = *src;
        *dst.add(64) = *src.add(64);
        *dst.add(128) = *src.add(128);
        *dst.add(192) = *src.add(192);
        barrier();
        if tid < 32 {
            let p = s.add(tid);
            acc += ((*p + *p.add(32)) + (*p.add(64) + *p.add(96)))
                + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)));
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Pipeline on a two-stage ring (double buffering), the consumer's rows written out in two
/// groups of four.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_unrolled_two_stage_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const PAIR: u32 = 2;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<PAIR>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<PAIR>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<PAIR>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<PAIR>::new();
        let mut top = 0.0f32;
        let mut bottom = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            top += (*p + *p.add(32)) + (*p.add(64) + *p.add(96));
            bottom += (*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = top + bottom;
    }
}

/// BROKEN: in the consumers' unrolled pair the second tile's loads were pasted from the first
/// and still go through `p`, the first tile's stage pointer, after that stage was released: the
/// second tile of every pair is never read and the first (or its refill) is summed twice.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_unrolled_bad_pair_stale_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t + g < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add((t + g) as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += 2 * g;
        }
        if t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t + g < tiles {
            pipe.consumer_wait(&st);
            let p = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            acc += ((*p + *p.add(32)) + (*p.add(64) + *p.add(96)))
                + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)));
            pipe.consumer_release(&st);
            st.advance();
            pipe.consumer_wait(&st);
            acc += ((*p + *p.add(32)) + (*p.add(64) + *p.add(96)))
                + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)));
            pipe.consumer_release(&st);
            st.advance();
            t += 2 * g;
        }
        if t < tiles {
            pipe.consumer_wait(&st);
            let p = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            acc += ((*p + *p.add(32)) + (*p.add(64) + *p.add(96)))
                + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)));
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// BROKEN: plain staging written out, but the block barrier between the four stores and warp
/// 0's row loads is missing: warp 0 reads rows that warp 1 is still writing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_unrolled_bad_plain_missing_first_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS + tid);
        let dst = s.add(tid);
        *dst = *src;
        *dst.add(64) = *src.add(64);
        *dst.add(128) = *src.add(128);
        *dst.add(192) = *src.add(192);
        if tid < 32 {
            let p = s.add(tid);
            acc += ((*p + *p.add(32)) + (*p.add(64) + *p.add(96)))
                + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)));
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// BROKEN: the written-out row loads run to `r8` (nine rows, `0..=8`): the ninth load reads row 0
/// of the next stage (past the ring for stage 3), adding a foreign float to every column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_unrolled_bad_row_nine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            let r0 = *p;
            let r1 = *p.add(32);
            let r2 = *p.add(64);
            let r3 = *p.add(96);
            let r4 = *p.add(128);
            let r5 = *p.add(160);
            let r6 = *p.add(192);
            let r7 = *p.add(224);
            let r8 = *p.add(256);
            pipe.consumer_release(&st);
            acc += ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) + r8;
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// BROKEN: in the producer's unrolled pair the second tile's `expect_tx` was left out: its copy
/// delivers bytes to a full barrier that never gets the producer's arrival, so the consumers
/// wait forever on the second tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_unrolled_bad_pair_missing_expect(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t + g < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            pipe.producer_acquire(&st);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add((t + g) as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += 2 * g;
        }
        if t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut even = 0.0f32;
        let mut odd = 0.0f32;
        let mut t = b;
        while t + g < tiles {
            pipe.consumer_wait(&st);
            let p = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            even += ((*p + *p.add(32)) + (*p.add(64) + *p.add(96)))
                + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)));
            pipe.consumer_release(&st);
            st.advance();
            pipe.consumer_wait(&st);
            let q = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            odd += ((*q + *q.add(32)) + (*q.add(64) + *q.add(96)))
                + ((*q.add(128) + *q.add(160)) + (*q.add(192) + *q.add(224)));
            pipe.consumer_release(&st);
            st.advance();
            t += 2 * g;
        }
        if t < tiles {
            pipe.consumer_wait(&st);
            let p = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS + c);
            even += ((*p + *p.add(32)) + (*p.add(64) + *p.add(96)))
                + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)));
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = even + odd;
    }
}
