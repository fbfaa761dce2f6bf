//! Style `dual`: everything comes in twos. A tile's top and bottom halves travel through two
//! pipelines (one producer thread each, or one thread feeding both), or whole tiles alternate
//! between two rings of different depths, or plain shared memory is a ping-pong pair of
//! buffers. Consumers (warp 0) hold one state per pipeline.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF_FLOATS: usize = 128;
const HALF_BYTES: u32 = 512;
const HALF_ROWS: usize = 4;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const PRODUCER_A: u32 = 32;
const PRODUCER_B: u32 = 33;

// Halves: two rings of half tiles, then both barrier areas.
const DEPTH: u32 = 4;
const RING_A: u32 = 0;
const RING_B: u32 = RING_A + DEPTH * HALF_BYTES;
const BARS_A: u32 = RING_B + DEPTH * HALF_BYTES;
const BARS_B: u32 = BARS_A + pipeline_barrier_bytes(DEPTH);

#[inline(always)]
fn contract() {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
}

#[inline(always)]
fn floats_at(at: u32) -> *const f32 {
    unsafe { dynamic_shared_base::<u8>().add(at as usize) as *const f32 }
}

/// One pipeline of half tiles: half 0 is rows 0..4 of each tile, half 1 rows 4..8.
#[inline(always)]
unsafe fn produce_half<const N: u32>(pipe: &Pipeline<N>, ring_at: u32, half: usize, input: *const f32, tiles: u32) {
    let ring = dynamic_shared_window_address() + ring_at;
    let mut st = PipelineState::<N>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, HALF_BYTES);
        let src = input.add(t as usize * TILE_FLOATS + half * HALF_FLOATS) as *const u8;
        bulk_copy_global_to_shared(ring + st.index() * HALF_BYTES, src, HALF_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

/// Column `c` of both halves of every tile: wait on both pipelines, read, release both.
#[inline(always)]
unsafe fn consume_halves<const NA: u32, const NB: u32>(
    a: &Pipeline<NA>,
    b: &Pipeline<NB>,
    (ring_a, ring_b): (u32, u32),
    tiles: u32,
    c: usize,
) -> f32 {
    let (mut sa, mut sb) = (PipelineState::<NA>::new(), PipelineState::<NB>::new());
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        a.consumer_wait(&sa);
        b.consumer_wait(&sb);
        let top = floats_at(ring_a).add(sa.index() as usize * HALF_FLOATS);
        let bottom = floats_at(ring_b).add(sb.index() as usize * HALF_FLOATS);
        for r in 0..HALF_ROWS {
            acc += *top.add(r * COLS + c) + *bottom.add(r * COLS + c);
        }
        a.consumer_release(&sa);
        b.consumer_release(&sb);
        sa.advance();
        sb.advance();
        t += grid_dim_x();
    }
    acc
}

/// Thread 0 sets up both pipelines; everyone attaches.
#[inline(always)]
fn open_pair<const NA: u32, const NB: u32>(tid: u32, bars_a: u32, bars_b: u32) -> (Pipeline<NA>, Pipeline<NB>) {
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<NA>::init(window + bars_a, CONSUMERS);
        Pipeline::<NB>::init(window + bars_b, CONSUMERS);
    }
    barrier();
    (Pipeline::attach(window + bars_a), Pipeline::attach(window + bars_b))
}

// ---------------------------------------------------------------- correct

/// Top halves through pipeline A (thread 32), bottom halves through B (thread 33).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_halves(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (a, b) = open_pair::<DEPTH, DEPTH>(tid, BARS_A, BARS_B);
    if tid == PRODUCER_A {
        produce_half(&a, RING_A, 0, input, tiles);
    } else if tid == PRODUCER_B {
        produce_half(&b, RING_B, 1, input, tiles);
    } else if tid < CONSUMERS {
        let acc = consume_halves(&a, &b, (RING_A, RING_B), tiles, tid as usize);
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

/// One producer thread feeds both halves of each tile, A then B.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_one_feeder(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (a, b) = open_pair::<DEPTH, DEPTH>(tid, BARS_A, BARS_B);
    if tid == PRODUCER_A {
        let window = dynamic_shared_window_address();
        let (mut sa, mut sb) = (PipelineState::<DEPTH>::producer_start(), PipelineState::<DEPTH>::producer_start());
        let mut t = block_idx_x();
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            a.producer_acquire(&sa);
            a.producer_expect_tx(&sa, HALF_BYTES);
            bulk_copy_global_to_shared(window + RING_A + sa.index() * HALF_BYTES, src as *const u8, HALF_BYTES, a.producer_barrier(&sa));
            sa.advance();
            b.producer_acquire(&sb);
            b.producer_expect_tx(&sb, HALF_BYTES);
            let lower = src.add(HALF_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + RING_B + sb.index() * HALF_BYTES, lower, HALF_BYTES, b.producer_barrier(&sb));
            sb.advance();
            t += grid_dim_x();
        }
        a.producer_tail(sa);
        b.producer_tail(sb);
    } else if tid < CONSUMERS {
        let acc = consume_halves(&a, &b, (RING_A, RING_B), tiles, tid as usize);
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

// Depths: four stages of top halves, two of bottom halves.
const DEPTH_A: u32 = 4;
const DEPTH_B: u32 = 2;
const DEEP_RING_A: u32 = 0;
const DEEP_RING_B: u32 = DEEP_RING_A + DEPTH_A * HALF_BYTES;
const DEEP_BARS_A: u32 = DEEP_RING_B + DEPTH_B * HALF_BYTES;
const DEEP_BARS_B: u32 = DEEP_BARS_A + pipeline_barrier_bytes(DEPTH_A);

/// Two pipelines of different depths (4 and 2 stages), one producer thread each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_depths(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (a, b) = open_pair::<DEPTH_A, DEPTH_B>(tid, DEEP_BARS_A, DEEP_BARS_B);
    if tid == PRODUCER_A {
        produce_half(&a, DEEP_RING_A, 0, input, tiles);
    } else if tid == PRODUCER_B {
        produce_half(&b, DEEP_RING_B, 1, input, tiles);
    } else if tid < CONSUMERS {
        let acc = consume_halves(&a, &b, (DEEP_RING_A, DEEP_RING_B), tiles, tid as usize);
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

// Alternating whole tiles: ring A of four tiles, ring B of three, then both barrier areas.
const ALT_A: u32 = 4;
const ALT_B: u32 = 3;
const ALT_RING_A: u32 = 0;
const ALT_RING_B: u32 = ALT_RING_A + ALT_A * TILE_BYTES;
const ALT_BARS_A: u32 = ALT_RING_B + ALT_B * TILE_BYTES;
const ALT_BARS_B: u32 = ALT_BARS_A + pipeline_barrier_bytes(ALT_A);

#[inline(always)]
unsafe fn column(stage: *const f32, c: usize) -> f32 {
    let mut sum = 0.0f32;
    for r in 0..2 * HALF_ROWS {
        sum += *stage.add(r * COLS + c);
    }
    sum
}

/// The block's even tiles (by its own count `k`) go through ring A, odd ones through ring B;
/// one producer thread feeds both in tile order.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_alternating(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (a, b) = open_pair::<ALT_A, ALT_B>(tid, ALT_BARS_A, ALT_BARS_B);
    if tid == PRODUCER_A {
        let window = dynamic_shared_window_address();
        let (mut sa, mut sb) = (PipelineState::<ALT_A>::producer_start(), PipelineState::<ALT_B>::producer_start());
        let (mut t, mut k) = (block_idx_x(), 0u32);
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            if k % 2 == 0 {
                a.producer_acquire(&sa);
                a.producer_expect_tx(&sa, TILE_BYTES);
                bulk_copy_global_to_shared(window + ALT_RING_A + sa.index() * TILE_BYTES, src, TILE_BYTES, a.producer_barrier(&sa));
                sa.advance();
            } else {
                b.producer_acquire(&sb);
                b.producer_expect_tx(&sb, TILE_BYTES);
                bulk_copy_global_to_shared(window + ALT_RING_B + sb.index() * TILE_BYTES, src, TILE_BYTES, b.producer_barrier(&sb));
                sb.advance();
            }
            t += grid_dim_x();
            k += 1;
        }
        a.producer_tail(sa);
        b.producer_tail(sb);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let (mut sa, mut sb) = (PipelineState::<ALT_A>::new(), PipelineState::<ALT_B>::new());
        let mut acc = 0.0f32;
        let (mut t, mut k) = (block_idx_x(), 0u32);
        while t < tiles {
            if k % 2 == 0 {
                a.consumer_wait(&sa);
                acc += column(floats_at(ALT_RING_A).add(sa.index() as usize * TILE_FLOATS), c);
                a.consumer_release(&sa);
                sa.advance();
            } else {
                b.consumer_wait(&sb);
                acc += column(floats_at(ALT_RING_B).add(sb.index() as usize * TILE_FLOATS), c);
                b.consumer_release(&sb);
                sb.advance();
            }
            t += grid_dim_x();
            k += 1;
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Stages tile `t` into `buffer` with the whole block, four floats a thread.
#[inline(always)]
unsafe fn stage_tile(buffer: *mut f32, input: *const f32, t: u32, tid: usize) {
    let src = input.add(t as usize * TILE_FLOATS);
    for k in 0..4 {
        *buffer.add(tid + 64 * k) = *src.add(tid + 64 * k);
    }
}

/// No pipeline: two plain buffers in ping-pong. The block stages the next tile into one while
/// warp 0 sums the other; one barrier per tile separates the roles of the two buffers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_ping_pong(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x() as usize;
    let bufs = [dynamic_shared_base::<f32>(), dynamic_shared_base::<f32>().wrapping_add(TILE_FLOATS)];
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if mine > 0 {
        stage_tile(bufs[0], input, b, tid);
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..mine {
        if k + 1 < mine {
            stage_tile(bufs[((k + 1) % 2) as usize], input, b + (k + 1) * g, tid);
        }
        if tid < COLS {
            acc += column(bufs[(k % 2) as usize], tid);
        }
        barrier();
    }
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = acc;
    }
}

// ---------------------------------------------------------------- broken

#[inline(always)]
fn give_back(pipe: &Pipeline<DEPTH>, st: &PipelineState<DEPTH>) {
    pipe.consumer_release(st);
}

/// BROKEN: both releases go to pipeline A (`give_back(&a, &sb)`): A's empty barriers get 64
/// arrivals per tile and B's none, so B's producer stops after four tiles and all wait.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_bad_release_to_a(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (a, b) = open_pair::<DEPTH, DEPTH>(tid, BARS_A, BARS_B);
    if tid == PRODUCER_A {
        produce_half(&a, RING_A, 0, input, tiles);
    } else if tid == PRODUCER_B {
        produce_half(&b, RING_B, 1, input, tiles);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let (mut sa, mut sb) = (PipelineState::<DEPTH>::new(), PipelineState::<DEPTH>::new());
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            a.consumer_wait(&sa);
            b.consumer_wait(&sb);
            let top = floats_at(RING_A).add(sa.index() as usize * HALF_FLOATS);
            let bottom = floats_at(RING_B).add(sb.index() as usize * HALF_FLOATS);
            for r in 0..HALF_ROWS {
                acc += *top.add(r * COLS + c) + *bottom.add(r * COLS + c);
            }
            give_back(&a, &sa);
            give_back(&a, &sb);
            sa.advance();
            sb.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

// Depths again, ring B placed after "DEPTH_B" half tiles of ring A.
const SHORT_RING_B: u32 = DEEP_RING_A + DEPTH_B * HALF_BYTES;

/// BROKEN: ring B is placed after `DEPTH_B` (2) half tiles of ring A instead of `DEPTH_A` (4):
/// B's stages are A's stages 2 and 3, so the two producers overwrite each other's halves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_bad_ring_b_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (a, b) = open_pair::<DEPTH_A, DEPTH_B>(tid, DEEP_BARS_A, DEEP_BARS_B);
    if tid == PRODUCER_A {
        produce_half(&a, DEEP_RING_A, 0, input, tiles);
    } else if tid == PRODUCER_B {
        produce_half(&b, SHORT_RING_B, 1, input, tiles);
    } else if tid < CONSUMERS {
        let acc = consume_halves(&a, &b, (DEEP_RING_A, SHORT_RING_B), tiles, tid as usize);
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

/// BROKEN: the setup copies A's line for B and initialises B's barriers as a `DEPTH_A` (4)
/// stage pipeline, while every thread attaches B as `DEPTH_B` (2) stages: B's releases land on
/// the barriers `init` made as full barriers 2 and 3 (one arrival each), whose phases flip 32
/// times per release round, so B's producer waits for a parity it almost never sees.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_bad_init_depth(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<DEPTH_A>::init(window + DEEP_BARS_A, CONSUMERS);
        Pipeline::<DEPTH_A>::init(window + DEEP_BARS_B, CONSUMERS);
    }
    barrier();
    let a = Pipeline::<DEPTH_A>::attach(window + DEEP_BARS_A);
    let b = Pipeline::<DEPTH_B>::attach(window + DEEP_BARS_B);
    if tid == PRODUCER_A {
        produce_half(&a, DEEP_RING_A, 0, input, tiles);
    } else if tid == PRODUCER_B {
        produce_half(&b, DEEP_RING_B, 1, input, tiles);
    } else if tid < CONSUMERS {
        let acc = consume_halves(&a, &b, (DEEP_RING_A, DEEP_RING_B), tiles, tid as usize);
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

/// BROKEN: ping-pong with the barrier moved before the sum: after it, the block goes on to
/// stage the tile after next into the buffer warp 0 is still summing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_bad_ping_pong_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x() as usize;
    let bufs = [dynamic_shared_base::<f32>(), dynamic_shared_base::<f32>().wrapping_add(TILE_FLOATS)];
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if mine > 0 {
        stage_tile(bufs[0], input, b, tid);
    }
    let mut acc = 0.0f32;
    for k in 0..mine {
        if k + 1 < mine {
            stage_tile(bufs[((k + 1) % 2) as usize], input, b + (k + 1) * g, tid);
        }
        barrier();
        if tid < COLS {
            acc += column(bufs[(k % 2) as usize], tid);
        }
    }
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = acc;
    }
}

/// BROKEN: the producer alternates by the global tile index (`t % 2`) while the consumers
/// alternate by their own count `k`: with an even grid every tile of a block goes to the same
/// ring, and the consumers wait on the other one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_dual_bad_global_parity(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (a, b) = open_pair::<ALT_A, ALT_B>(tid, ALT_BARS_A, ALT_BARS_B);
    if tid == PRODUCER_A {
        let window = dynamic_shared_window_address();
        let (mut sa, mut sb) = (PipelineState::<ALT_A>::producer_start(), PipelineState::<ALT_B>::producer_start());
        let mut t = block_idx_x();
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            if t % 2 == 0 {
                a.producer_acquire(&sa);
                a.producer_expect_tx(&sa, TILE_BYTES);
                bulk_copy_global_to_shared(window + ALT_RING_A + sa.index() * TILE_BYTES, src, TILE_BYTES, a.producer_barrier(&sa));
                sa.advance();
            } else {
                b.producer_acquire(&sb);
                b.producer_expect_tx(&sb, TILE_BYTES);
                bulk_copy_global_to_shared(window + ALT_RING_B + sb.index() * TILE_BYTES, src, TILE_BYTES, b.producer_barrier(&sb));
                sb.advance();
            }
            t += grid_dim_x();
        }
        a.producer_tail(sa);
        b.producer_tail(sb);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let (mut sa, mut sb) = (PipelineState::<ALT_A>::new(), PipelineState::<ALT_B>::new());
        let mut acc = 0.0f32;
        let (mut t, mut k) = (block_idx_x(), 0u32);
        while t < tiles {
            if k % 2 == 0 {
                a.consumer_wait(&sa);
                acc += column(floats_at(ALT_RING_A).add(sa.index() as usize * TILE_FLOATS), c);
                a.consumer_release(&sa);
                sa.advance();
            } else {
                b.consumer_wait(&sb);
                acc += column(floats_at(ALT_RING_B).add(sb.index() as usize * TILE_FLOATS), c);
                b.consumer_release(&sb);
                sb.advance();
            }
            t += grid_dim_x();
            k += 1;
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}
