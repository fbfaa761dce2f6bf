//! Style `opt`: roles, tiles and held stages are `Option`s. A thread's producer or consumer
//! state exists only as `Some` for the threads of that role (`bool::then`), the block's tiles
//! are walked as an `Option<u32>` chain or an `Option` source, `let … else` picks a column, and
//! a consumer may keep the stage it still owes a release in an `Option`.
//!
//! Layout: four 1 KiB stages from byte 0, barriers at 4096. Thread 32 produces, warp 0 consumes.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

#[inline(always)]
fn contract() {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
}

#[inline(always)]
fn open(tid: u32) -> Pipeline<STAGES> {
    let bars = dynamic_shared_window_address() + STAGES * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::init(bars, CONSUMERS) } else { Pipeline::attach(bars) };
    barrier();
    pipe
}

#[inline(always)]
fn ring() -> *const f32 {
    dynamic_shared_base::<f32>()
}

/// The source of tile `t`, if the input has it.
#[inline(always)]
fn source(input: *const f32, t: u32, tiles: u32) -> Option<*const u8> {
    (t < tiles).then(|| input.wrapping_add(t as usize * TILE_FLOATS) as *const u8)
}

/// The block's first tile, if it has one.
#[inline(always)]
fn first_tile(tiles: u32) -> Option<u32> {
    Some(block_idx_x()).filter(|&t| t < tiles)
}

/// The block's tile after `t`, if there is one.
#[inline(always)]
fn next_tile(t: u32, tiles: u32) -> Option<u32> {
    let n = t + grid_dim_x();
    (n < tiles).then_some(n)
}

#[inline(always)]
unsafe fn column(stage: *const f32, c: usize) -> f32 {
    let mut sum = 0.0f32;
    for r in 0..ROWS {
        sum += *stage.add(r * COLS + c);
    }
    sum
}

/// The producer, walking the tiles by `source`.
#[inline(always)]
unsafe fn produce(pipe: &Pipeline<STAGES>, input: *const f32, tiles: u32) {
    let window = dynamic_shared_window_address();
    let mut st = PipelineState::<STAGES>::producer_start();
    let mut t = block_idx_x();
    while let Some(src) = source(input, t, tiles) {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

// ---------------------------------------------------------------- correct

/// Each role's state is `Some` only in that role's threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_role_states(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    let producer = (tid == PRODUCER).then(PipelineState::<STAGES>::producer_start);
    let consumer = (tid < CONSUMERS).then(PipelineState::<STAGES>::new);
    let (first, step) = (block_idx_x(), grid_dim_x());
    if let Some(mut st) = producer {
        let window = dynamic_shared_window_address();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    }
    if let Some(mut st) = consumer {
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(ring().add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        *out.add(first as usize * COLS + tid as usize) = acc;
    }
}

/// Both roles walk the block's tiles as an `Option<u32>` chain.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_tile_chain(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        let window = dynamic_shared_window_address();
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut cur = first_tile(tiles);
        while let Some(t) = cur {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            cur = next_tile(t, tiles);
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut cur = first_tile(tiles);
        while let Some(t) = cur {
            pipe.consumer_wait(&st);
            acc += column(ring().add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            cur = next_tile(t, tiles);
        }
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

/// A consumer's column, if the thread consumes.
#[inline(always)]
fn column_of(tid: u32) -> Option<usize> {
    (tid < CONSUMERS).then_some(tid as usize)
}

/// The producer returns early; `let … else` sends the threads without a column home.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_let_else(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
        return;
    }
    let Some(col) = column_of(tid) else {
        return;
    };
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        acc += column(ring().add(st.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    *out.add(block_idx_x() as usize * COLS + col) = acc;
}

/// The consumer releases each stage one tile late, keeping the stage it owes in an `Option`,
/// and gives the last one back after its loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_release_previous(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let mut st = PipelineState::<STAGES>::new();
        let mut owed: Option<PipelineState<STAGES>> = None;
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(ring().add(st.index() as usize * TILE_FLOATS), tid as usize);
            if let Some(prev) = owed.take() {
                pipe.consumer_release(&prev);
            }
            owed = Some(st);
            st.advance();
            t += grid_dim_x();
        }
        if let Some(prev) = owed {
            pipe.consumer_release(&prev);
        }
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

/// The column's sum over the block's tiles, or `None` for a block without tiles.
#[inline(always)]
unsafe fn consume(pipe: &Pipeline<STAGES>, tiles: u32, col: usize) -> Option<f32> {
    let first = first_tile(tiles)?;
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        pipe.consumer_wait(&st);
        acc += column(ring().add(st.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    Some(acc)
}

/// The consumer's helper answers `None` for a block without tiles; the kernel writes 0 then.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_sum_or_zero(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if let Some(col) = column_of(tid) {
        let total = consume(&pipe, tiles, col).unwrap_or(0.0);
        *out.add(block_idx_x() as usize * COLS + col) = total;
    }
}

// ---------------------------------------------------------------- broken

/// BROKEN: both roles' states come from `PipelineState::default`, which is the consumer's
/// start: the producer waits on parity 0 of an empty barrier nobody has released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_bad_default_producer(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    let producer = (tid == PRODUCER).then(PipelineState::<STAGES>::default);
    let consumer = (tid < CONSUMERS).then(PipelineState::<STAGES>::default);
    let (first, step) = (block_idx_x(), grid_dim_x());
    if let Some(mut st) = producer {
        let window = dynamic_shared_window_address();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    }
    if let Some(mut st) = consumer {
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(ring().add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        *out.add(first as usize * COLS + tid as usize) = acc;
    }
}

/// BROKEN: the stage pointer is memoised in an `Option` with `get_or_insert_with`, so it is
/// computed on the first tile only and every tile is read from stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_bad_memo_stage(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let mut st = PipelineState::<STAGES>::new();
        let mut stage: Option<*const f32> = None;
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = *stage.get_or_insert_with(|| ring().add(st.index() as usize * TILE_FLOATS));
            acc += column(s, tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

/// BROKEN: the consumer takes the stage as `Some(pointer)`, releases it, and only then sums
/// through the `Option`: the producer may already be refilling the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_bad_map_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let staged = Some(ring().add(st.index() as usize * TILE_FLOATS));
            pipe.consumer_release(&st);
            acc += staged.map_or(0.0, |s| column(s, tid as usize));
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

/// The block's tile after `t`, if there is one (written with `<=`).
#[inline(always)]
fn next_tile_inclusive(t: u32, tiles: u32) -> Option<u32> {
    let n = t + grid_dim_x();
    (n <= tiles).then_some(n)
}

/// BROKEN: the consumers' tile chain tests `n <= tiles`: block 0 (whose last tile is
/// `tiles - grid`) takes a ninth tile `tiles` the producer never copies, and waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_bad_chain_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut cur = first_tile(tiles);
        while let Some(t) = cur {
            pipe.consumer_wait(&st);
            acc += column(ring().add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            cur = next_tile_inclusive(t, tiles);
        }
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}

/// BROKEN: releasing one tile late, but the stage still owed after the loop is never given
/// back: the producer's tail waits for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_opt_bad_owed_kept(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let mut st = PipelineState::<STAGES>::new();
        let mut owed: Option<PipelineState<STAGES>> = None;
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(ring().add(st.index() as usize * TILE_FLOATS), tid as usize);
            if let Some(prev) = owed.replace(st) {
                pipe.consumer_release(&prev);
            }
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
    }
}
