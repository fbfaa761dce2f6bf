//! Pipeline kernels written with iterators: `step_by` tile loops, `map`/`sum` over rows, a
//! stage viewed as an array of rows or as a slice cut into rows, `fold` carrying the state, an
//! array of stage pointers.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;

type Rows = [[f32; COLS as usize]; ROWS as usize];

/// Thread 0 initialises `S` stages' barriers right after the ring; every thread attaches.
#[inline(always)]
fn open<const S: u32>() -> (Pipeline<S>, u32, *mut f32) {
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    (Pipeline::<S>::attach(bars), window, dynamic_shared_base::<f32>())
}

/// The producer loop over `(first..tiles).step_by(step)`.
#[inline(always)]
unsafe fn produce_step_by<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + state.index() * TILE_BYTES,
            input.add((t * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
    }
    pipe.producer_tail(state);
}

/// `step_by` loops on both sides; the column is `(0..ROWS).map(..).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_step_by_map(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    if tid == 32 {
        produce_step_by(&pipe, window, input, tiles);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (first..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            acc += (0..ROWS).map(|r| *stage.add((r * COLS + tid) as usize)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Each stage viewed as an array of rows, summed with `iter().map(|row| row[col])`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_rows_array(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    if tid == 32 {
        produce_step_by(&pipe, window, input, tiles);
    } else if tid < COLS {
        let col = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (first..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let rows = &*(ring.add((state.index() * TILE_FLOATS) as usize) as *const Rows);
            acc += rows.iter().map(|row| row[col]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Each stage as a slice cut into rows with `chunks_exact`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_chunks_exact(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    if tid == 32 {
        produce_step_by(&pipe, window, input, tiles);
    } else if tid < COLS {
        let col = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let tile = core::slice::from_raw_parts(ring.add((state.index() * TILE_FLOATS) as usize), TILE_FLOATS as usize);
            acc += tile.chunks_exact(COLS as usize).map(|row| row[col]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Both roles `fold` over their tiles with the state in the accumulator.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_fold_state(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let last = (first..tiles).step_by(step).fold(PipelineState::<S>::producer_start(), |mut state, t| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            state
        });
        pipe.producer_tail(last);
    } else if tid < COLS {
        let (_, acc) = (first..tiles).step_by(step).fold((PipelineState::<S>::new(), 0.0f32), |(mut state, acc), _| {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            let mut s = 0.0f32;
            for r in 0..ROWS {
                s += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            (state, acc + s)
        });
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// The consumer picks its stage from an array of stage pointers built with `array::from_fn`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_stage_table(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    if tid == 32 {
        produce_step_by(&pipe, window, input, tiles);
    } else if tid < COLS {
        let stages: [*const f32; S as usize] = core::array::from_fn(|s| ring.wrapping_add(s * TILE_FLOATS as usize) as *const f32);
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = stages[state.index() as usize];
            for r in 0..ROWS as usize {
                acc += *stage.add(r * COLS as usize + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// BROKEN: the consumers' range ends at `tiles - 1` (an inclusive end written as exclusive), so
/// block 7 consumes tiles 7..55 and never tile 63, which its producer copies: the producer's
/// tail waits for that release forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_bad_range_end_minus_one(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    if tid == 32 {
        produce_step_by(&pipe, window, input, tiles);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (first..tiles - 1).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            acc += (0..ROWS).map(|r| *stage.add((r * COLS + tid) as usize)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

type ColumnIter<'a> = core::iter::StepBy<core::iter::Skip<core::slice::Iter<'a, f32>>>;

/// BROKEN: one stage; each tile's column iterator is built before the release but summed only
/// after the next tile's wait, when the stage already holds the next tile: tile 0 is never
/// summed and the last tile twice.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_bad_deferred_sum(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 1;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    if tid == 32 {
        produce_step_by(&pipe, window, input, tiles);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut pending: Option<ColumnIter<'_>> = None;
        for _ in (first..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            if let Some(previous) = pending.take() {
                acc += previous.sum::<f32>();
            }
            let tile = core::slice::from_raw_parts(ring.add((state.index() * TILE_FLOATS) as usize), TILE_FLOATS as usize);
            pending = Some(tile.iter().skip(tid as usize).step_by(COLS as usize));
            pipe.consumer_release(&state);
            state.advance();
        }
        if let Some(previous) = pending {
            acc += previous.sum::<f32>();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the stage's slice is made 264 floats long ("a row of slack"), so the column walk of
/// columns 0 to 7 picks up a ninth element from the next stage (or the barriers).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_bad_slice_row_of_slack(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    if tid == 32 {
        produce_step_by(&pipe, window, input, tiles);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let tile = core::slice::from_raw_parts(
                ring.add((state.index() * TILE_FLOATS) as usize),
                (TILE_FLOATS + COLS / 4) as usize,
            );
            acc += tile.iter().skip(tid as usize).step_by(COLS as usize).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the rows are walked backwards as `(1..=ROWS).rev()`, rows 8 down to 1: row 0 is
/// never read and row 8 is the next stage's first row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_bad_rev_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    if tid == 32 {
        produce_step_by(&pipe, window, input, tiles);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (first..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            acc += (1..=ROWS).rev().map(|r| *stage.add((r * COLS + tid) as usize)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the producer enumerates its tiles and places tile `k` in stage `(k + 1) % S` while
/// completing the barrier of the state's stage `k % S`: consumers read a stage holding another
/// tile, and copies land in stages still being read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_iter_bad_enumerate_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let (pipe, window, ring) = open::<S>();
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        for (k, t) in (first..tiles).step_by(step).enumerate() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let slot = (k as u32 + 1) % S;
            bulk_copy_global_to_shared(
                window + slot * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (first..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            acc += (0..ROWS).map(|r| *stage.add((r * COLS + tid) as usize)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}
