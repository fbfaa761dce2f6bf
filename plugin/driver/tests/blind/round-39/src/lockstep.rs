//! Style `lockstep`: one loop for the whole block. Every thread walks the same sequence of ticks
//! and does, at each tick, whatever its role has to do then (the producer fills a stage, the
//! consumers drain one, the others only count along), the way a systolic schedule or a hardware
//! description is written; roles are flags tested inside the loop, not separate loops.
//!
//! Every kernel: 64 threads; thread 32 produces, threads 0..31 consume (consumer `c` owns
//! column `c`); ring at window byte 0, barriers right after it.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x, warp_id};

const THREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;

#[inline(always)]
fn my_tile_count(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

#[inline(always)]
fn pipeline_after_ring<const S: u32>() -> (u32, Pipeline<S>) {
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    (window, Pipeline::<S>::attach(bars))
}

/// Four stages; one `while` over the block's tiles, `producer` and `consumer` flags inside it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_lockstep_flags(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let (window, pipe) = pipeline_after_ring::<4>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let producer = tid == 32;
    let consumer = tid < CONSUMERS;
    let ring = dynamic_shared_base::<f32>();

    let mut wr = PipelineState::<4>::producer_start();
    let mut rd = PipelineState::<4>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        if producer {
            pipe.producer_acquire(&wr);
            pipe.producer_expect_tx(&wr, TILE_BYTES);
            let dst = window + wr.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&wr));
            wr.advance();
        }
        if consumer {
            pipe.consumer_wait(&rd);
            let stage = ring.add(rd.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(tid as usize + COLS * r);
            }
            pipe.consumer_release(&rd);
            rd.advance();
        }
        t += g;
    }
    if producer {
        pipe.producer_tail(wr);
    }
    if consumer {
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Three stages; a skewed schedule: tick `k` issues tile `k` and drains tile `k - LAG`, so the
/// loop runs `LAG` ticks past the block's tile count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_lockstep_skewed_ticks(input: *const f32, tiles: u32, out: *mut f32) {
    const LAG: u32 = 2;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let (window, pipe) = pipeline_after_ring::<3>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = my_tile_count(tiles, b, g);
    let producer = tid == 32;
    let consumer = tid < CONSUMERS;
    let ring = dynamic_shared_base::<f32>();

    let mut wr = PipelineState::<3>::producer_start();
    let mut rd = PipelineState::<3>::new();
    let mut acc = 0.0f32;
    for tick in 0..mine + LAG {
        if producer && tick < mine {
            let t = b + tick * g;
            pipe.producer_acquire(&wr);
            pipe.producer_expect_tx(&wr, TILE_BYTES);
            let dst = window + wr.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&wr));
            wr.advance();
        }
        if consumer && tick >= LAG {
            pipe.consumer_wait(&rd);
            let stage = ring.add(rd.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(tid as usize + COLS * r);
            }
            pipe.consumer_release(&rd);
            rd.advance();
        }
    }
    if producer {
        pipe.producer_tail(wr);
    }
    if consumer {
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// No pipeline: every tick the whole block stages one tile (a 16-byte quad per thread), meets at
/// a barrier, warp 0 adds its columns, and the block meets again before the buffer is reused.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_lockstep_plain_march(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let quads = dynamic_shared_base::<[f32; 4]>();
    let tile = quads as *const f32;
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const [f32; 4];
        *quads.add(tid as usize) = *src.add(tid as usize);
        barrier();
        if tid < 32 {
            for r in 0..ROWS {
                acc += *tile.add(tid as usize + COLS * r);
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Two stages; each thread keeps ticking until both of its counters (tiles still to issue, tiles
/// still to drain) reach zero; a thread's role is only which counter starts above zero.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_lockstep_until_both_done(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let (window, pipe) = pipeline_after_ring::<2>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = my_tile_count(tiles, b, g);
    let ring = dynamic_shared_base::<f32>();

    let mut to_issue = if tid == 32 { mine } else { 0 };
    let mut to_drain = if tid < CONSUMERS { mine } else { 0 };
    let mut next = b;
    let mut wr = PipelineState::<2>::producer_start();
    let mut rd = PipelineState::<2>::new();
    let mut acc = 0.0f32;
    while to_issue > 0 || to_drain > 0 {
        if to_issue > 0 {
            pipe.producer_acquire(&wr);
            pipe.producer_expect_tx(&wr, TILE_BYTES);
            let dst = window + wr.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(next as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&wr));
            wr.advance();
            next += g;
            to_issue -= 1;
            if to_issue == 0 {
                pipe.producer_tail(wr);
            }
        }
        if to_drain > 0 {
            pipe.consumer_wait(&rd);
            let stage = ring.add(rd.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(tid as usize + COLS * r);
            }
            pipe.consumer_release(&rd);
            rd.advance();
            to_drain -= 1;
        }
    }
    if tid < CONSUMERS {
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// BROKEN: the consumers' guard is `tick > LAG` instead of `tick >= LAG`, so they drain one tile
/// fewer than the producer issues: the last stage is never released and the producer's tail
/// waits for it forever (the block hangs; the last tile is also missing from the sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_lockstep_bad_skew_short(input: *const f32, tiles: u32, out: *mut f32) {
    const LAG: u32 = 2;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let (window, pipe) = pipeline_after_ring::<3>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = my_tile_count(tiles, b, g);
    let producer = tid == 32;
    let consumer = tid < CONSUMERS;
    let ring = dynamic_shared_base::<f32>();

    let mut wr = PipelineState::<3>::producer_start();
    let mut rd = PipelineState::<3>::new();
    let mut acc = 0.0f32;
    for tick in 0..mine + LAG {
        if producer && tick < mine {
            let t = b + tick * g;
            pipe.producer_acquire(&wr);
            pipe.producer_expect_tx(&wr, TILE_BYTES);
            let dst = window + wr.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&wr));
            wr.advance();
        }
        if consumer && tick > LAG {
            pipe.consumer_wait(&rd);
            let stage = ring.add(rd.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(tid as usize + COLS * r);
            }
            pipe.consumer_release(&rd);
            rd.advance();
        }
    }
    if producer {
        pipe.producer_tail(wr);
    }
    if consumer {
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// BROKEN: the producer flag is `warp_id() == 1`, the whole of warp 1, instead of one thread:
/// 32 threads each arrive with `expect_tx` on a full barrier initialised for one arrival and each
/// copies every tile into the same stage (invalid barrier: arrivals beyond the count; a fault or
/// a hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_lockstep_bad_warp_producer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let (window, pipe) = pipeline_after_ring::<4>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let producer = warp_id() == 1;
    let consumer = warp_id() == 0;
    let ring = dynamic_shared_base::<f32>();

    let mut wr = PipelineState::<4>::producer_start();
    let mut rd = PipelineState::<4>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        if producer {
            pipe.producer_acquire(&wr);
            pipe.producer_expect_tx(&wr, TILE_BYTES);
            let dst = window + wr.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&wr));
            wr.advance();
        }
        if consumer {
            pipe.consumer_wait(&rd);
            let stage = ring.add(rd.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(tid as usize + COLS * r);
            }
            pipe.consumer_release(&rd);
            rd.advance();
        }
        t += g;
    }
    if producer {
        pipe.producer_tail(wr);
    }
    if consumer {
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// BROKEN: in the shared loop body both states are in scope, and the consumers' stage pointer is
/// taken from the producer's state (`wr.index()`, a copy-paste slip) instead of their own: in a
/// consumer thread `wr` never advances, so every tile is read from stage 0 while the waits and
/// releases walk the ring correctly: tiles 1..3 are never read, stage 0 is read again: wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_lockstep_bad_reads_producer_index(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let (window, pipe) = pipeline_after_ring::<4>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let producer = tid == 32;
    let consumer = tid < CONSUMERS;
    let ring = dynamic_shared_base::<f32>();

    let mut wr = PipelineState::<4>::producer_start();
    let mut rd = PipelineState::<4>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        if producer {
            pipe.producer_acquire(&wr);
            pipe.producer_expect_tx(&wr, TILE_BYTES);
            let dst = window + wr.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&wr));
            wr.advance();
        }
        if consumer {
            pipe.consumer_wait(&rd);
            let stage = ring.add(wr.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(tid as usize + COLS * r);
            }
            pipe.consumer_release(&rd);
            rd.advance();
        }
        t += g;
    }
    if producer {
        pipe.producer_tail(wr);
    }
    if consumer {
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// BROKEN: the consumers step through the ring by `TILE_BYTES` floats instead of `TILE` floats:
/// stage 1 is read 4096 bytes in (the barriers and past the ring) and stage 2 at byte 8192, past
/// the 8192-byte window: the third tile's read faults.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_lockstep_bad_stage_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let (window, pipe) = pipeline_after_ring::<4>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let producer = tid == 32;
    let consumer = tid < CONSUMERS;
    let ring = dynamic_shared_base::<f32>();

    let mut wr = PipelineState::<4>::producer_start();
    let mut rd = PipelineState::<4>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        if producer {
            pipe.producer_acquire(&wr);
            pipe.producer_expect_tx(&wr, TILE_BYTES);
            let dst = window + wr.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&wr));
            wr.advance();
        }
        if consumer {
            pipe.consumer_wait(&rd);
            let stage = ring.add((rd.index() * TILE_BYTES) as usize);
            for r in 0..ROWS {
                acc += *stage.add(tid as usize + COLS * r);
            }
            pipe.consumer_release(&rd);
            rd.advance();
        }
        t += g;
    }
    if producer {
        pipe.producer_tail(wr);
    }
    if consumer {
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
