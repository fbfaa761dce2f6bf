//! Style `tup`: the kernels carry their data in tuples. Setup hands back `(pipeline, window,
//! ring)`, a block's work is `(first, step)`, the consumer's loop threads a `(state, sum)`
//! carry through a helper, and copies are described by tables of `(offset, source, bytes)`.
//!
//! Layout (unless a kernel says otherwise): four 1 KiB stages from window byte 0, then the
//! pipeline's barriers at byte 4096. Thread 32 produces, warp 0 consumes (lane = column).

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const RING_BYTES: u32 = STAGES * TILE_BYTES;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

/// `(pipeline, the ring's window address, the ring's generic pointer)`.
type Ring = (Pipeline<STAGES>, u32, *const f32);
/// A consumer's running `(state, column sum)`.
type Carry = (PipelineState<STAGES>, f32);

#[inline(always)]
fn contract() {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
}

/// Ring from window byte 0, barriers after it; thread 0 initialises. Every thread calls it.
#[inline(always)]
fn open(tid: u32) -> Ring {
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(bars)
    };
    barrier();
    (pipe, window, dynamic_shared_base::<f32>() as *const f32)
}

/// This block's tiles: `(first, step)`.
#[inline(always)]
fn span() -> (u32, u32) {
    (block_idx_x(), grid_dim_x())
}

#[inline(always)]
unsafe fn tile_source(input: *const f32, t: u32) -> *const f32 {
    input.add(t as usize * TILE_FLOATS)
}

/// The whole producer: one copy of a tile per stage.
#[inline(always)]
unsafe fn produce((pipe, window, _): Ring, input: *const f32, (first, step): (u32, u32), tiles: u32) {
    let mut st = PipelineState::<STAGES>::producer_start();
    let mut t = first;
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        let dst = window + st.index() * TILE_BYTES;
        bulk_copy_global_to_shared(dst, tile_source(input, t) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += step;
    }
    pipe.producer_tail(st);
}

/// One tile for one column: wait, sum the column, release, advance. Returns the new carry.
#[inline(always)]
unsafe fn take_column((pipe, _, ring): Ring, carry: Carry, col: u32) -> Carry {
    let (mut st, acc) = carry;
    pipe.consumer_wait(&st);
    let stage = ring.add(st.index() as usize * TILE_FLOATS);
    let mut sum = 0.0f32;
    for r in 0..ROWS {
        sum += *stage.add(r * COLS + col as usize);
    }
    pipe.consumer_release(&st);
    st.advance();
    (st, acc + sum)
}

// ---------------------------------------------------------------- correct

/// Straight pipeline; the setup tuple destructured once.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_basic(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (pipe, window, ring) = open(tid);
    let (first, step) = span();
    if tid == PRODUCER {
        produce((pipe, window, ring), input, (first, step), tiles);
    } else if tid < CONSUMERS {
        let mut st = PipelineState::<STAGES>::new();
        let (mut t, mut acc) = (first, 0.0f32);
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        *out.add(first as usize * COLS + tid as usize) = acc;
    }
}

/// The consumer threads a `(state, sum)` carry through `take_column`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_carry(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let ring = open(tid);
    let work = span();
    if tid == PRODUCER {
        produce(ring, input, work, tiles);
    } else if tid < CONSUMERS {
        let mut carry: Carry = (PipelineState::new(), 0.0);
        let mut t = work.0;
        while t < tiles {
            carry = take_column(ring, carry, tid);
            t += work.1;
        }
        *out.add(work.0 as usize * COLS + tid as usize) = carry.1;
    }
}

/// Three stages; each tile's column summed as `(rows 0..4, rows 4..8)` pairs by a fold.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_row_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    const DEPTH: u32 = 3;
    let tid = thread_idx_x();
    let (window, ring) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let bars = window + DEPTH * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<DEPTH>::init(bars, CONSUMERS) } else { Pipeline::<DEPTH>::attach(bars) };
    barrier();
    let (first, step) = span();
    if tid == PRODUCER {
        let mut st = PipelineState::<DEPTH>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                tile_source(input, t) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut st = PipelineState::<DEPTH>::new();
        let mut sums = (0.0f32, 0.0f32);
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let (lo, hi) = (0..ROWS / 2).fold((0.0f32, 0.0f32), |(lo, hi), r| {
                (lo + *stage.add(r * COLS + c), hi + *stage.add((r + ROWS / 2) * COLS + c))
            });
            pipe.consumer_release(&st);
            st.advance();
            sums = (sums.0 + lo, sums.1 + hi);
            t += step;
        }
        *out.add(first as usize * COLS + c) = sums.0 + sums.1;
    }
}

/// A stage filled by three copies listed as `(stage offset, source floats, bytes)`.
const PARTS: [(u32, usize, u32); 3] = [(0, 0, 384), (384, 96, 384), (768, 192, 256)];

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_three_parts(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let ring = open(tid);
    let (pipe, window, _) = ring;
    let (first, step) = span();
    if tid == PRODUCER {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let (stage, src) = (window + st.index() * TILE_BYTES, tile_source(input, t));
            for &(offset, from, bytes) in PARTS.iter() {
                bulk_copy_global_to_shared(stage + offset, src.add(from) as *const u8, bytes, pipe.producer_barrier(&st));
            }
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let mut carry: Carry = (PipelineState::new(), 0.0);
        let mut t = first;
        while t < tiles {
            carry = take_column(ring, carry, tid);
            t += step;
        }
        *out.add(first as usize * COLS + tid as usize) = carry.1;
    }
}

/// A stage's `(destination, barrier)` pair for the producer.
#[inline(always)]
fn slot(pipe: &Pipeline<STAGES>, window: u32, st: &PipelineState<STAGES>) -> (u32, u32) {
    (window + st.index() * TILE_BYTES, pipe.producer_barrier(st))
}

/// The producer takes `(destination, barrier)` from `slot`; consumers hand back `(column, sum)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_slot_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (pipe, window, ring) = open(tid);
    let (first, step) = span();
    if tid == PRODUCER {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let (dst, bar) = slot(&pipe, window, &st);
            bulk_copy_global_to_shared(dst, tile_source(input, t) as *const u8, TILE_BYTES, bar);
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let mut st = PipelineState::<STAGES>::new();
        let mut result = (tid as usize, 0.0f32);
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                result.1 += *stage.add(r * COLS + result.0);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        let (col, total) = result;
        *out.add(first as usize * COLS + col) = total;
    }
}

// ---------------------------------------------------------------- broken

/// Splits the window: `(barriers, ring)`.
#[inline(always)]
fn carve(window: u32) -> (u32, u32) {
    (window + RING_BYTES, window)
}

/// BROKEN: `carve` returns `(barriers, ring)` and the caller unpacks `(ring, barriers)`: the
/// barriers go to byte 0 and the copies to byte 4096 on, while consumers read from byte 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_bad_carve_order(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (ring_at, bars_at) = carve(dynamic_shared_window_address());
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars_at, CONSUMERS) } else { Pipeline::<STAGES>::attach(bars_at) };
    barrier();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let (first, step) = span();
    if tid == PRODUCER {
        produce((pipe, ring_at, ring), input, (first, step), tiles);
    } else if tid < CONSUMERS {
        let mut carry: Carry = (PipelineState::new(), 0.0);
        let mut t = first;
        while t < tiles {
            carry = take_column((pipe, ring_at, ring), carry, tid);
            t += step;
        }
        *out.add(first as usize * COLS + tid as usize) = carry.1;
    }
}

/// Like `take_column`, but the state it hands back is the one it was given.
#[inline(always)]
unsafe fn take_column_kept((pipe, _, ring): Ring, carry: Carry, col: u32) -> Carry {
    let (st, acc) = carry;
    let mut cur = st;
    pipe.consumer_wait(&cur);
    let stage = ring.add(cur.index() as usize * TILE_FLOATS);
    let mut sum = 0.0f32;
    for r in 0..ROWS {
        sum += *stage.add(r * COLS + col as usize);
    }
    pipe.consumer_release(&cur);
    cur.advance();
    (st, acc + sum)
}

/// BROKEN: the carry helper advances its copy `cur` but returns the state it was handed, so the
/// consumers wait on stage 0 phase 0 for every tile and never release stages 1 to 3.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_bad_carry_stale(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let ring = open(tid);
    let work = span();
    if tid == PRODUCER {
        produce(ring, input, work, tiles);
    } else if tid < CONSUMERS {
        let mut carry: Carry = (PipelineState::new(), 0.0);
        let mut t = work.0;
        while t < tiles {
            carry = take_column_kept(ring, carry, tid);
            t += work.1;
        }
        *out.add(work.0 as usize * COLS + tid as usize) = carry.1;
    }
}

/// Three copies per stage, the last one's length mistyped: 384 + 384 + 192 = 960 bytes.
const PARTS_SHORT: [(u32, usize, u32); 3] = [(0, 0, 384), (384, 96, 384), (768, 192, 192)];

/// BROKEN: the stage announces 1024 bytes but its three copies deliver 960: the full barrier
/// never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_bad_three_parts(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let ring = open(tid);
    let (pipe, window, _) = ring;
    let (first, step) = span();
    if tid == PRODUCER {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let (stage, src) = (window + st.index() * TILE_BYTES, tile_source(input, t));
            for &(offset, from, bytes) in PARTS_SHORT.iter() {
                bulk_copy_global_to_shared(stage + offset, src.add(from) as *const u8, bytes, pipe.producer_barrier(&st));
            }
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let mut carry: Carry = (PipelineState::new(), 0.0);
        let mut t = first;
        while t < tiles {
            carry = take_column(ring, carry, tid);
            t += step;
        }
        *out.add(first as usize * COLS + tid as usize) = carry.1;
    }
}

/// `(produces, consumes)` for a thread: thread 32 produces, warp 0 consumes.
#[inline(always)]
fn roles(tid: u32) -> (bool, bool) {
    (tid == PRODUCER, tid <= CONSUMERS)
}

/// BROKEN: `roles` says `tid <= 32` for the consumers: thread 32 produces and then consumes
/// too, 33 threads release a barrier initialised for 32, and thread 32's late consumer waits on
/// a phase of the ring that already went by.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_bad_role_pair(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let ring = open(tid);
    let (first, step) = span();
    let (produces, consumes) = roles(tid);
    if produces {
        produce(ring, input, (first, step), tiles);
    }
    if consumes {
        let mut carry: Carry = (PipelineState::new(), 0.0);
        let mut t = first;
        while t < tiles {
            carry = take_column(ring, carry, tid);
            t += step;
        }
        *out.add(first as usize * COLS + tid as usize) = carry.1;
    }
}

/// Fresh states for `(producer, consumer)`.
#[inline(always)]
fn starts() -> (PipelineState<STAGES>, PipelineState<STAGES>) {
    (PipelineState::new(), PipelineState::producer_start())
}

/// BROKEN: `starts` builds the pair in the wrong order: the producer starts at parity 0 and
/// waits for a release of an empty stage, the consumers at parity 1 and read stages at once.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_tup_bad_swapped_starts(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let (pipe, window, ring) = open(tid);
    let (first, step) = span();
    let (producer_state, consumer_state) = starts();
    if tid == PRODUCER {
        let mut st = producer_state;
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let (dst, bar) = slot(&pipe, window, &st);
            bulk_copy_global_to_shared(dst, tile_source(input, t) as *const u8, TILE_BYTES, bar);
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let mut carry: Carry = (consumer_state, 0.0);
        let mut t = first;
        while t < tiles {
            carry = take_column((pipe, window, ring), carry, tid);
            t += step;
        }
        *out.add(first as usize * COLS + tid as usize) = carry.1;
    }
}
