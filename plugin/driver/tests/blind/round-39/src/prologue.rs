//! Style `prologue`: the software-pipelined mainloop of a multistage GEMM, ported. The block's
//! work is a count of k-tiles (`k_tile_count`); the producer is written as a prologue that primes
//! the stages, a steady-state mainloop and a drain; slots may be named by the k-tile ordinal
//! (`k % STAGES`, as `smem_pipe_write` is in cp.async code); consumers count down their k-tiles
//! and may software-pipeline their own shared loads into registers.
//!
//! Every kernel: 64 threads; thread 32 produces, threads 0..31 consume (consumer `c` owns column
//! `c`); ring at window byte 0, barriers right after it.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

/// k-tiles of block `b`: tiles `b, b + g, …` below `tiles`.
#[inline(always)]
fn k_tile_count(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

/// Global address of the block's k-th k-tile.
#[inline(always)]
unsafe fn k_tile(input: *const f32, k: u32) -> *const u8 {
    let (b, g) = (block_idx_x(), grid_dim_x());
    unsafe { input.add((b + k * g) as usize * TILE).cast() }
}

#[inline(always)]
fn make_pipeline<const S: u32>() -> Pipeline<S> {
    let bars = dynamic_shared_window_address() + S * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    Pipeline::<S>::attach(bars)
}

/// One k-tile into the stage `write` points at; the stage must be free (`producer_acquire`).
#[inline(always)]
unsafe fn issue<const S: u32>(pipe: &Pipeline<S>, write: &mut PipelineState<S>, src: *const u8) {
    pipe.producer_expect_tx(write, TILE_BYTES);
    let dst = dynamic_shared_window_address() + write.index() * TILE_BYTES;
    bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(write));
    write.advance();
}

#[inline(always)]
unsafe fn column(stage: *const f32, c: usize) -> f32 {
    let mut sum = 0.0;
    for r in 0..ROWS {
        sum += unsafe { *stage.add(c + COLS * r) };
    }
    sum
}

/// The consumers' mainloop: wait, add the column, release, for `k_tile_count` k-tiles.
#[inline(always)]
unsafe fn consume_all<const S: u32>(pipe: &Pipeline<S>, mut k_tile_count: u32, c: usize) -> f32 {
    let ring = dynamic_shared_base::<f32>();
    let mut read = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    while k_tile_count > 0 {
        pipe.consumer_wait(&read);
        acc += unsafe { column(ring.add(read.index() as usize * TILE), c) };
        pipe.consumer_release(&read);
        read.advance();
        k_tile_count -= 1;
    }
    acc
}

/// Four stages: a prologue fills `min(STAGES, k_tiles)` stages, the mainloop issues the rest.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_prologue_fill_steady(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = make_pipeline::<STAGES>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let k_tiles = k_tile_count(tiles, b, g);

    if tid == PRODUCER {
        let mut write = PipelineState::<STAGES>::producer_start();
        let prologue = k_tiles.min(STAGES);
        let mut k = 0;
        while k < prologue {
            pipe.producer_acquire(&write);
            issue(&pipe, &mut write, k_tile(input, k));
            k += 1;
        }
        while k < k_tiles {
            pipe.producer_acquire(&write);
            issue(&pipe, &mut write, k_tile(input, k));
            k += 1;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let acc = consume_all(&pipe, k_tiles, tid as usize);
        *out.add(b as usize * COLS + tid as usize) = acc;
    }
}

/// Three stages: the warm-up issues the first stages without `producer_acquire` (every stage is
/// empty at the start); only the mainloop waits for stages to come back.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_prologue_warm_without_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = make_pipeline::<STAGES>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let k_tiles = k_tile_count(tiles, b, g);

    if tid == PRODUCER {
        let mut write = PipelineState::<STAGES>::producer_start();
        let warm = k_tiles.min(STAGES);
        for k in 0..warm {
            issue(&pipe, &mut write, k_tile(input, k));
        }
        for k in warm..k_tiles {
            pipe.producer_acquire(&write);
            issue(&pipe, &mut write, k_tile(input, k));
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let acc = consume_all(&pipe, k_tiles, tid as usize);
        *out.add(b as usize * COLS + tid as usize) = acc;
    }
}

/// Four stages, slots named by the k-tile ordinal: the copy of k-tile `k` goes to slot
/// `k % STAGES` and the consumers read slot `k % STAGES`; the pipeline states keep the barriers'
/// index and phase in step with `k`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_prologue_modulo_slot(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = make_pipeline::<STAGES>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let k_tiles = k_tile_count(tiles, b, g);
    let smem = dynamic_shared_window_address();

    if tid == PRODUCER {
        let mut write = PipelineState::<STAGES>::producer_start();
        for k in 0..k_tiles {
            let smem_pipe_write = k % STAGES;
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, TILE_BYTES);
            bulk_copy_global_to_shared(smem + smem_pipe_write * TILE_BYTES, k_tile(input, k), TILE_BYTES, pipe.producer_barrier(&write));
            write.advance();
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let ring = dynamic_shared_base::<f32>();
        let c = tid as usize;
        let mut read = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for k in 0..k_tiles {
            let smem_pipe_read = k % STAGES;
            pipe.consumer_wait(&read);
            acc += column(ring.add(smem_pipe_read as usize * TILE), c);
            pipe.consumer_release(&read);
            read.advance();
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// Four stages; consumers software-pipeline their registers: each k-tile's column is loaded into
/// a fragment and the stage released at once, and the previous fragment is added while the next
/// stage is awaited. The producer drains by hand: one acquire per stage after its mainloop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_prologue_register_fragments(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = make_pipeline::<STAGES>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let k_tiles = k_tile_count(tiles, b, g);

    if tid == PRODUCER {
        let mut write = PipelineState::<STAGES>::producer_start();
        for k in 0..k_tiles {
            pipe.producer_acquire(&write);
            issue(&pipe, &mut write, k_tile(input, k));
        }
        // Drain: every stage must come back before the block may exit.
        for _ in 0..STAGES {
            pipe.producer_acquire(&write);
            write.advance();
        }
    } else if tid < CONSUMERS {
        let ring = dynamic_shared_base::<f32>();
        let c = tid as usize;
        let mut read = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        if k_tiles > 0 {
            let mut frag = [0.0f32; ROWS];
            pipe.consumer_wait(&read);
            let stage = ring.add(read.index() as usize * TILE);
            for (r, v) in frag.iter_mut().enumerate() {
                *v = *stage.add(c + COLS * r);
            }
            pipe.consumer_release(&read);
            read.advance();
            for _ in 1..k_tiles {
                let mut next = [0.0f32; ROWS];
                pipe.consumer_wait(&read);
                let stage = ring.add(read.index() as usize * TILE);
                for (r, v) in next.iter_mut().enumerate() {
                    *v = *stage.add(c + COLS * r);
                }
                pipe.consumer_release(&read);
                read.advance();
                acc += frag.iter().sum::<f32>();
                frag = next;
            }
            acc += frag.iter().sum::<f32>();
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// k-tiles of block `b` as the producer counts them.
#[inline(always)]
fn k_tiles_floor(tiles: u32, b: u32, g: u32) -> u32 {
    (tiles - b) / g
}

/// BROKEN: the producer counts its k-tiles with a floor division, `(tiles - b) / g`, the
/// consumers walk `t = b, b + g, … < tiles`: for every block but block 0 the producer issues one
/// k-tile fewer (7 of 8), and the consumers wait for the eighth forever: the launch hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_prologue_bad_floor_count(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = make_pipeline::<STAGES>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let k_tiles = if b < tiles { k_tiles_floor(tiles, b, g) } else { 0 };
        let mut write = PipelineState::<STAGES>::producer_start();
        let prologue = k_tiles.min(STAGES);
        let mut k = 0;
        while k < prologue {
            pipe.producer_acquire(&write);
            issue(&pipe, &mut write, k_tile(input, k));
            k += 1;
        }
        while k < k_tiles {
            pipe.producer_acquire(&write);
            issue(&pipe, &mut write, k_tile(input, k));
            k += 1;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let ring = dynamic_shared_base::<f32>();
        let c = tid as usize;
        let mut read = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            acc += column(ring.add(read.index() as usize * TILE), c);
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// BROKEN: the hand-written drain runs `0..=STAGES`, one acquire too many: the last one waits
/// for a release of a stage no consumer will ever hold again, and the producer thread never
/// finishes: the launch hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_prologue_bad_drain_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = make_pipeline::<STAGES>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let k_tiles = k_tile_count(tiles, b, g);

    if tid == PRODUCER {
        let mut write = PipelineState::<STAGES>::producer_start();
        for k in 0..k_tiles {
            pipe.producer_acquire(&write);
            issue(&pipe, &mut write, k_tile(input, k));
        }
        for _ in 0..=STAGES {
            pipe.producer_acquire(&write);
            write.advance();
        }
    } else if tid < CONSUMERS {
        let acc = consume_all(&pipe, k_tiles, tid as usize);
        *out.add(b as usize * COLS + tid as usize) = acc;
    }
}

/// BROKEN: to hide the shared-load latency the consumers load the next k-tile's fragment before
/// waiting for its stage: the loads read the stage before its copy has landed (the previous
/// occupant of the slot, or nothing yet): wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_prologue_bad_fragment_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = make_pipeline::<STAGES>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let k_tiles = k_tile_count(tiles, b, g);

    if tid == PRODUCER {
        let mut write = PipelineState::<STAGES>::producer_start();
        for k in 0..k_tiles {
            pipe.producer_acquire(&write);
            issue(&pipe, &mut write, k_tile(input, k));
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let ring = dynamic_shared_base::<f32>();
        let c = tid as usize;
        let mut read = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        if k_tiles > 0 {
            let mut frag = [0.0f32; ROWS];
            pipe.consumer_wait(&read);
            let stage = ring.add(read.index() as usize * TILE);
            for (r, v) in frag.iter_mut().enumerate() {
                *v = *stage.add(c + COLS * r);
            }
            pipe.consumer_release(&read);
            read.advance();
            for _ in 1..k_tiles {
                // Issue the next fragment's loads first, then wait: the loads overlap the wait.
                let mut next = [0.0f32; ROWS];
                let stage = ring.add(read.index() as usize * TILE);
                for (r, v) in next.iter_mut().enumerate() {
                    *v = *stage.add(c + COLS * r);
                }
                pipe.consumer_wait(&read);
                pipe.consumer_release(&read);
                read.advance();
                acc += frag.iter().sum::<f32>();
                frag = next;
            }
            acc += frag.iter().sum::<f32>();
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// BROKEN: the producer names its slot with a mask, `k & (STAGES - 1)`, which is `k % STAGES`
/// only for a power of two; with three stages it sends the k-tiles to slots 0, 0, 2, 2, 0, …
/// while each completes the barrier of stage `k % 3`. Consumers read slot 1, never written, and
/// slots overwritten by other k-tiles: wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_prologue_bad_mask_slot(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = make_pipeline::<STAGES>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let k_tiles = k_tile_count(tiles, b, g);
    let smem = dynamic_shared_window_address();

    if tid == PRODUCER {
        let mut write = PipelineState::<STAGES>::producer_start();
        for k in 0..k_tiles {
            let smem_pipe_write = k & (STAGES - 1);
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, TILE_BYTES);
            bulk_copy_global_to_shared(smem + smem_pipe_write * TILE_BYTES, k_tile(input, k), TILE_BYTES, pipe.producer_barrier(&write));
            write.advance();
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let acc = consume_all(&pipe, k_tiles, tid as usize);
        *out.add(b as usize * COLS + tid as usize) = acc;
    }
}
