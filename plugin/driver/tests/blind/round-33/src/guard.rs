//! Style `guard`: guard clauses and early returns. Threads that have nothing to do leave at
//! the top (`if … { return; }`), roles are `match` arms that `return`, loops are `loop` with a
//! guard that returns or breaks, and layouts are checked by `const` guards.
//!
//! Layout: four 1 KiB stages from byte 0, barriers at 4096 (or at the window's top where a
//! kernel says so). Thread 32 produces, warp 0 consumes.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{
    WARP_SIZE, barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address,
    grid_dim_x, thread_idx_x,
};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const RING_BYTES: u32 = STAGES * TILE_BYTES;
const SHARED_BYTES: u32 = 8192;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

#[inline(always)]
fn contract() {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(SHARED_BYTES);
}

#[inline(always)]
fn open(tid: u32, bars_at: u32) -> Pipeline<STAGES> {
    let bars = dynamic_shared_window_address() + bars_at;
    let pipe = if tid == 0 { Pipeline::init(bars, CONSUMERS) } else { Pipeline::attach(bars) };
    barrier();
    pipe
}

#[inline(always)]
unsafe fn column(stage: *const f32, c: usize) -> f32 {
    let mut sum = 0.0f32;
    for r in 0..ROWS {
        sum += *stage.add(r * COLS + c);
    }
    sum
}

#[inline(always)]
unsafe fn produce(pipe: &Pipeline<STAGES>, input: *const f32, tiles: u32) {
    let window = dynamic_shared_window_address();
    let mut st = PipelineState::<STAGES>::producer_start();
    let mut t = block_idx_x();
    loop {
        if t >= tiles {
            break;
        }
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + st.index() * TILE_BYTES,
            input.add(t as usize * TILE_FLOATS) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&st),
        );
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

/// A consumer loop whose guard returns the sum once the tiles run out.
#[inline(always)]
unsafe fn consume(pipe: &Pipeline<STAGES>, tiles: u32, col: usize) -> f32 {
    let ring = dynamic_shared_base::<f32>();
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    loop {
        if t >= tiles {
            return acc;
        }
        pipe.consumer_wait(&st);
        acc += column(ring.add(st.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
}

// ---------------------------------------------------------------- correct

/// Idle threads leave first, then the producer; what remains consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_early_returns(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, RING_BYTES);
    if tid > PRODUCER {
        return;
    }
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
        return;
    }
    let acc = consume(&pipe, tiles, tid as usize);
    *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
}

/// A block without tiles writes zeros and leaves before any setup; the others count their
/// tiles once and run `for` loops over that count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_empty_block(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if b >= tiles {
        if tid < CONSUMERS {
            *out.add(b as usize * COLS + tid as usize) = 0.0;
        }
        return;
    }
    let mine = (tiles - b).div_ceil(g);
    let pipe = open(tid, RING_BYTES);
    if tid == PRODUCER {
        let window = dynamic_shared_window_address();
        let mut st = PipelineState::<STAGES>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
        return;
    }
    if tid >= CONSUMERS {
        return;
    }
    let ring = dynamic_shared_base::<f32>();
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    for _ in 0..mine {
        pipe.consumer_wait(&st);
        acc += column(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
        pipe.consumer_release(&st);
        st.advance();
    }
    *out.add(b as usize * COLS + tid as usize) = acc;
}

/// Roles as `match` arms on the thread index; the idle arm returns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_match_arms(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, RING_BYTES);
    let col = match tid {
        0..=31 => tid as usize,
        32 => {
            produce(&pipe, input, tiles);
            return;
        }
        _ => return,
    };
    let acc = consume(&pipe, tiles, col);
    *out.add(block_idx_x() as usize * COLS + col) = acc;
}

// Barriers at the top of the window, guarded against the ring at compile time.
const TOP_BARS_AT: u32 = SHARED_BYTES - pipeline_barrier_bytes(STAGES);
const _: () = assert!(TOP_BARS_AT >= RING_BYTES && TOP_BARS_AT % 8 == 0);

/// Barriers at the window's top; both roles' loops are `loop`s whose guard `break`s.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_top_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, TOP_BARS_AT);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
        return;
    }
    if tid >= CONSUMERS {
        return;
    }
    let ring = dynamic_shared_base::<f32>();
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    loop {
        if t >= tiles {
            break;
        }
        pipe.consumer_wait(&st);
        acc += column(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
}

/// No pipeline: each thread stages with a guarded `loop` (`i += 64` until the tile ends),
/// warp 0 sums between two barriers, and the other warp leaves at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_plain_staging(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x() as usize;
    let stage = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        let mut i = tid;
        loop {
            if i >= TILE_FLOATS {
                break;
            }
            *stage.add(i) = *src.add(i);
            i += 64;
        }
        barrier();
        if tid < COLS {
            acc += column(stage, tid);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid >= COLS {
        return;
    }
    *out.add(block_idx_x() as usize * COLS + tid) = acc;
}

// ---------------------------------------------------------------- broken

/// BROKEN: the consumer's loop returns as soon as it has read the last tile, before the
/// release: the last stage is never given back and the producer's tail waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_bad_return_last_tile(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, RING_BYTES);
    if tid > PRODUCER {
        return;
    }
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
        return;
    }
    let ring = dynamic_shared_base::<f32>();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    let total = loop {
        if t >= tiles {
            break acc;
        }
        pipe.consumer_wait(&st);
        acc += column(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
        if t + g >= tiles {
            break acc;
        }
        pipe.consumer_release(&st);
        st.advance();
        t += g;
    };
    *out.add(b as usize * COLS + tid as usize) = total;
}

/// BROKEN: "the first pass through the ring needs no acquire", guarded with `k > STAGES`
/// instead of `k >= STAGES`: tile 4 is copied into stage 0 without waiting for its release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_bad_acquire_skip(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, RING_BYTES);
    if tid > PRODUCER {
        return;
    }
    if tid == PRODUCER {
        let window = dynamic_shared_window_address();
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        let mut k = 0u32;
        while t < tiles {
            if k > STAGES {
                pipe.producer_acquire(&st);
            }
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
            k += 1;
        }
        pipe.producer_tail(st);
        return;
    }
    let acc = consume(&pipe, tiles, tid as usize);
    *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
}

/// BROKEN: the producer's guard breaks when the *next* tile would be past the end
/// (`t + g >= tiles`), so it copies one tile fewer than the consumers wait for.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_bad_producer_stops_early(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, RING_BYTES);
    if tid > PRODUCER {
        return;
    }
    if tid == PRODUCER {
        let window = dynamic_shared_window_address();
        let mut st = PipelineState::<STAGES>::producer_start();
        let g = grid_dim_x();
        let mut t = block_idx_x();
        loop {
            if t + g >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
        return;
    }
    let acc = consume(&pipe, tiles, tid as usize);
    *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
}

/// BROKEN: the producer takes the stage's barrier, advances, and only then starts the copy, so
/// the tile lands in the *next* stage while the barrier of the stage it announced completes:
/// consumers read each stage one tile behind and race with copies into the stage after it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_bad_advance_before_copy(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, RING_BYTES);
    if tid > PRODUCER {
        return;
    }
    if tid == PRODUCER {
        let window = dynamic_shared_window_address();
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let full = pipe.producer_barrier(&st);
            st.advance();
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, TILE_BYTES, full);
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
        return;
    }
    let acc = consume(&pipe, tiles, tid as usize);
    *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
}

// Barriers at the top of the window, sized as one barrier per stage.
const TOP_BARS_SHORT_AT: u32 = SHARED_BYTES - 8 * STAGES;
const _: () = assert!(TOP_BARS_SHORT_AT >= RING_BYTES && TOP_BARS_SHORT_AT % 8 == 0);

/// BROKEN: the top-of-window barriers are sized `8 * STAGES` (one barrier per stage, not two):
/// the empty barriers land at bytes 8192..8224, past the 8 KiB window, and fault.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_guard_bad_top_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, TOP_BARS_SHORT_AT);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
        return;
    }
    if tid >= WARP_SIZE {
        return;
    }
    let acc = consume(&pipe, tiles, tid as usize);
    *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
}
