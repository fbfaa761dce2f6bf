//! Rust idioms: slices made from raw parts, iterator chains (`skip`, `step_by`, `zip`, `cycle`,
//! `sum`), `for` loops over ranges and closures that hold the pipeline steps.

use core::slice;

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch,
    thread_idx_x,
};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

/// The block's tiles, as an iterator.
#[inline(always)]
fn my_tiles(tiles: u32) -> impl Iterator<Item = u32> {
    (block_idx_x()..tiles).step_by(grid_dim_x() as usize)
}

/// Column `col` of a 256-float tile: elements `col, col + 32, ..., col + 224`.
#[inline(always)]
fn column(tile: &[f32], col: usize) -> f32 {
    tile.iter().skip(col).step_by(COLS).sum()
}

/// Staging through slices: each thread copies its 4-float chunk with `copy_from_slice`, and after
/// the barrier warp 0 sums its column with an iterator chain over a fresh read-only view.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_idiom_shared_column_iter(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let smem = dynamic_shared_base::<f32>();
        let mut acc = 0.0f32;
        for tile in my_tiles(tiles) {
            {
                let src = slice::from_raw_parts(input.add(tile as usize * TILE), TILE);
                let staged = slice::from_raw_parts_mut(smem, TILE);
                let mine = tid * 4..tid * 4 + 4;
                staged[mine.clone()].copy_from_slice(&src[mine]);
            }
            barrier();
            if tid < COLS {
                let staged = slice::from_raw_parts(smem as *const f32, TILE);
                acc += column(staged, tid);
            }
            barrier();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// Both warps sum half of each column (`take(4)` rows) and add their part into a shared
/// `totals[col]` slice element with `+=`: threads `c` and `c + 32` read-modify-write the same
/// float with no ordering between them, so updates are lost.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_idiom_shared_slice_accumulate(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let smem = dynamic_shared_base::<f32>();
        let col = tid % COLS;
        let half = tid / COLS;
        if tid < COLS {
            *smem.add(tid) = 0.0;
        }
        barrier();
        for tile in my_tiles(tiles) {
            let src = slice::from_raw_parts(input.add(tile as usize * TILE), TILE);
            let part: f32 = src.iter().skip(half * 128 + col).step_by(COLS).take(4).sum();
            let totals = slice::from_raw_parts_mut(smem, COLS);
            totals[col] += part;
        }
        barrier();
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = *smem.add(tid);
        }
    }
}

/// Pipeline whose consumers view the waited stage as a `&[f32]` of 256 floats and sum their
/// column through `iter().skip(c).step_by(32).sum()` before releasing it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_idiom_slice_iter_consumer(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE).cast::<u8>(),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < CONSUMERS {
            let mut state = PipelineState::<STAGES>::default();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = slice::from_raw_parts(smem.add(state.index() as usize * TILE) as *const f32, TILE);
                acc += stage.iter().skip(tid as usize).step_by(COLS).sum::<f32>();
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// The producer's per-tile steps and the consumers' per-tile read are closures; the state is
/// handed to them by reference.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_idiom_closure_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        let issue = |state: &mut PipelineState<STAGES>, tile: u32| {
            pipe.producer_acquire(state);
            pipe.producer_expect_tx(state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(state),
            );
            state.advance();
        };
        let take = |state: &mut PipelineState<STAGES>, col: usize| -> f32 {
            pipe.consumer_wait(state);
            let stage = smem.add(state.index() as usize * TILE);
            let mut part = 0.0f32;
            for r in 0..8 {
                part += *stage.add(r * COLS + col);
            }
            pipe.consumer_release(state);
            state.advance();
            part
        };
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                issue(&mut state, tile);
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < CONSUMERS {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                acc += take(&mut state, tid as usize);
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// Both roles walk the block's tiles with `for` over `step_by`; the consumers zip the tiles with
/// `(0..STAGES).cycle()` and read the slot that counter names, which is always the stage their
/// state points at (both start at 0 and move by one per tile, wrapping at `STAGES`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_idiom_stage_counter_zip(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            for tile in my_tiles(tiles) {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            pipe.producer_tail(state);
        } else if tid < CONSUMERS {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for (_tile, slot) in my_tiles(tiles).zip((0..STAGES).cycle()) {
                pipe.consumer_wait(&state);
                let stage = smem.add(slot as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// The zipped slot counter written `(0..=STAGES).cycle()`: it counts five slots for a ring of
/// four, so the fifth tile is read from "slot 4" (the barriers and the unused memory after the
/// ring) and every later tile from the stage before the one that holds it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_idiom_stage_counter_inclusive(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            for tile in my_tiles(tiles) {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            pipe.producer_tail(state);
        } else if tid < CONSUMERS {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for (_tile, slot) in my_tiles(tiles).zip((0..=STAGES).cycle()) {
                pipe.consumer_wait(&state);
                let stage = slice::from_raw_parts(smem.add(slot as usize * TILE) as *const f32, TILE);
                acc += column(stage, tid as usize);
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// The consumers' stage view is built once before the loop from the state's index (then 0) and
/// reused for every tile: after the first tile they wait for and release the right stage but
/// read stage 0, which holds the first tile or the fifth.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_idiom_hoisted_stage_view(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, CONSUMERS);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            for tile in my_tiles(tiles) {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            pipe.producer_tail(state);
        } else if tid < CONSUMERS {
            let mut state = PipelineState::<STAGES>::new();
            let ring = slice::from_raw_parts(smem as *const f32, STAGES as usize * TILE);
            let stage = &ring[state.index() as usize * TILE..][..TILE];
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += column(stage, tid as usize);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}
