//! Module `kahan`: numerical-analysis style, every sum compensated (Kahan–Babuška). A running
//! total is a pair `(sum, comp)`: `comp` carries the low-order bits lost by the last addition,
//! and each new term is corrected by it before it is added (`y = x - comp; s' = sum + y;
//! comp = (s' - sum) - y`). Partial totals are combined the same way, error terms included.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF_BYTES: u32 = 512;
const HALF_FLOATS: usize = 128;
const BARRIERS: u32 = 0;
const RING: u32 = 1024;
const RING_FLOATS: usize = 256;
const CONSUMERS: u32 = 32;
/// Plain kernels: the staged tile at float 0, the error-carrying partials at float 512.
const PARTIALS_FLOATS: usize = 512;

/// Pipeline: each consumer keeps a compensated running total of its column over the rows of
/// every tile its block owns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_kahan_pipeline_columns(input: *const f32, tiles: u32, out: *mut f32) {
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
        let mut sum = 0.0f32;
        let mut comp = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                let y = *stage.add(r * COLUMNS + c) - comp;
                let s = sum + y;
                comp = (s - sum) - y;
                sum = s;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = sum;
    }
}

/// Pipeline whose stage is filled by two 512-byte copies (rows 0..4 and rows 4..8, issued after
/// one `expect_tx` of the whole tile); the consumer sums the two halves as separate compensated
/// totals and combines them at the end, error terms included.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_kahan_two_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
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
            let tile = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                tile as *const u8,
                HALF_BYTES,
                pipe.producer_barrier(&st),
            );
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES + HALF_BYTES,
                tile.add(HALF_FLOATS) as *const u8,
                HALF_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let (mut hi, mut hi_comp) = (0.0f32, 0.0f32);
        let (mut lo, mut lo_comp) = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..4 {
                let y = *stage.add(r * COLUMNS + c) - hi_comp;
                let s = hi + y;
                hi_comp = (s - hi) - y;
                hi = s;
            }
            for r in 4..ROWS {
                let y = *stage.add(r * COLUMNS + c) - lo_comp;
                let s = lo + y;
                lo_comp = (s - lo) - y;
                lo = s;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // Combine the two compensated totals (their error terms first).
        let y = lo - (lo_comp + hi_comp);
        let total = hi + y;
        *out.add(b as usize * COLUMNS + c) = total;
    }
}

/// Plain: every thread reads its column's half-tile straight from global memory into a
/// compensated total (warp 0 rows 0..4, warp 1 rows 4..8), then the two warps' totals and error
/// terms meet in shared memory after a block barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_kahan_plain_pairwise(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let c = tid % COLUMNS;
    let half = tid / COLUMNS;
    let p = dynamic_shared_base::<f32>().add(PARTIALS_FLOATS);
    let mut sum = 0.0f32;
    let mut comp = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS + half * 4 * COLUMNS);
        for r in 0..4 {
            let y = *src.add(r * COLUMNS + c) - comp;
            let s = sum + y;
            comp = (s - sum) - y;
            sum = s;
        }
        t += g;
    }
    // sums at floats 0..64 of the partials, error terms at 64..128
    *p.add(tid) = sum;
    *p.add(64 + tid) = comp;
    barrier();
    if tid < COLUMNS {
        let other = *p.add(tid + 32);
        let other_comp = *p.add(64 + tid + 32);
        let y = other - (comp + other_comp);
        *out.add(b as usize * COLUMNS + tid) = sum + y;
    }
}

/// Plain: the tile staged by all 64 threads, a block barrier, warp 0's compensated column sums,
/// and a second barrier before the buffer is staged again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_kahan_plain_staged(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut sum = 0.0f32;
    let mut comp = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < COLUMNS {
            for r in 0..ROWS {
                let y = *s.add(r * COLUMNS + tid) - comp;
                let n = sum + y;
                comp = (n - sum) - y;
                sum = n;
            }
        }
        barrier();
        t += g;
    }
    if tid < COLUMNS {
        *out.add(b as usize * COLUMNS + tid) = sum;
    }
}

/// BROKEN: the producer copies each tile into the *next* stage (`(index + 1) % STAGES`, a
/// prefetch slot computed once too often): every consumer wait completes on bytes that landed
/// in another stage, and the consumers sum stale or empty stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_kahan_bad_wrong_stage_dest(input: *const f32, tiles: u32, out: *mut f32) {
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
            let slot = (st.index() + 1) % STAGES;
            bulk_copy_global_to_shared(
                window + RING + slot * TILE_BYTES,
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
        let mut sum = 0.0f32;
        let mut comp = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                let y = *stage.add(r * COLUMNS + c) - comp;
                let s = sum + y;
                comp = (s - sum) - y;
                sum = s;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = sum;
    }
}

/// BROKEN: the pairwise combination without its block barrier: each thread of warp 0 reads the
/// partner's total and error term (written by a thread of warp 1) in the same interval.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_kahan_bad_comp_scratch_race(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let c = tid % COLUMNS;
    let half = tid / COLUMNS;
    let p = dynamic_shared_base::<f32>().add(PARTIALS_FLOATS);
    let mut sum = 0.0f32;
    let mut comp = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS + half * 4 * COLUMNS);
        for r in 0..4 {
            let y = *src.add(r * COLUMNS + c) - comp;
            let s = sum + y;
            comp = (s - sum) - y;
            sum = s;
        }
        t += g;
    }
    *p.add(tid) = sum;
    *p.add(64 + tid) = comp;
    if tid < COLUMNS {
        let other = *p.add(tid + 32);
        let other_comp = *p.add(64 + tid + 32);
        let y = other - (comp + other_comp);
        *out.add(b as usize * COLUMNS + tid) = sum + y;
    }
}

/// BROKEN: the consumers release only once, after their whole loop ("the totals are final only
/// then"): no stage is freed while the producer needs one, so it hangs at its fifth acquire.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_kahan_bad_consumer_no_release(input: *const f32, tiles: u32, out: *mut f32) {
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
        let mut sum = 0.0f32;
        let mut comp = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                let y = *stage.add(r * COLUMNS + c) - comp;
                let s = sum + y;
                comp = (s - sum) - y;
                sum = s;
            }
            st.advance();
            t += g;
        }
        pipe.consumer_release(&st);
        *out.add(b as usize * COLUMNS + c) = sum;
    }
}

/// BROKEN: eight stages "to keep more bytes in flight", with the ring still starting at byte
/// 1024: stage 7 lies at bytes 8192..9216, past the 8 KiB window, and the eighth tile's copy
/// writes there.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_kahan_bad_ring_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    const DEEP: u32 = 8;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<DEEP>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<DEEP>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<DEEP>::producer_start();
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
        let mut st = PipelineState::<DEEP>::new();
        let mut sum = 0.0f32;
        let mut comp = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                let y = *stage.add(r * COLUMNS + c) - comp;
                let s = sum + y;
                comp = (s - sum) - y;
                sum = s;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = sum;
    }
}
