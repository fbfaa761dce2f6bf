//! Style `carve`: the 8 KiB window is carved into named sub-buffers by byte-offset constants
//! (ring, barriers, scratch, partial sums), each placed relative to its neighbour, and the
//! results leave through scratch after a block barrier or through warp reductions after the
//! pipeline. One kernel pair stages through plain shared memory only.
//!
//! Thread 32 produces; warp 0 consumes; warp 1 often writes the block's results out.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::reduce::warp_sum;
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

// The usual carving: ring, then barriers, then scratch.
const RING_AT: u32 = 0;
const BARS_AT: u32 = RING_AT + STAGES * TILE_BYTES;
const SCRATCH_AT: u32 = BARS_AT + pipeline_barrier_bytes(STAGES);

#[inline(always)]
fn contract() {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
}

/// Generic pointer to the sub-buffer at byte `at` of the window.
#[inline(always)]
fn region<T>(at: u32) -> *mut T {
    unsafe { dynamic_shared_base::<u8>().add(at as usize) as *mut T }
}

#[inline(always)]
fn open(tid: u32, bars_at: u32) -> Pipeline<STAGES> {
    let bars = dynamic_shared_window_address() + bars_at;
    let pipe = if tid == 0 { Pipeline::init(bars, CONSUMERS) } else { Pipeline::attach(bars) };
    barrier();
    pipe
}

/// The producer for a ring at window byte `ring_at`.
#[inline(always)]
unsafe fn produce(pipe: &Pipeline<STAGES>, ring_at: u32, input: *const f32, tiles: u32) {
    let ring = dynamic_shared_window_address() + ring_at;
    let mut st = PipelineState::<STAGES>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring + st.index() * TILE_BYTES,
            input.add(t as usize * TILE_FLOATS) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&st),
        );
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

/// Column `col` of every tile of the block, summed, from a ring at window byte `ring_at`.
#[inline(always)]
unsafe fn consume_column(pipe: &Pipeline<STAGES>, ring_at: u32, tiles: u32, col: usize) -> f32 {
    let ring = region::<f32>(ring_at);
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring.add(st.index() as usize * TILE_FLOATS);
        for r in 0..ROWS {
            acc += *stage.add(r * COLS + col);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    acc
}

/// Lane `l` reads row `l / 4`, columns `8 (l % 4)..+8` of every tile (8 consecutive floats).
#[inline(always)]
unsafe fn consume_row_slices(pipe: &Pipeline<STAGES>, ring_at: u32, tiles: u32, lane: usize) -> [f32; 8] {
    let ring = region::<f32>(ring_at);
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = [0.0f32; 8];
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let slice = ring.add(st.index() as usize * TILE_FLOATS + lane * 8);
        for j in 0..8 {
            acc[j] += *slice.add(j);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    acc
}

// ---------------------------------------------------------------- correct

/// Consumers park their column sums in scratch after the barriers; warp 1 writes them out
/// after a block barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_scratch_publish(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, BARS_AT);
    let partials = region::<f32>(SCRATCH_AT);
    if tid == PRODUCER {
        produce(&pipe, RING_AT, input, tiles);
    } else if tid < CONSUMERS {
        let acc = consume_column(&pipe, RING_AT, tiles, tid as usize);
        *partials.add(tid as usize) = acc;
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        *out.add(block_idx_x() as usize * COLS + c) = *partials.add(c);
    }
}

/// Lanes read row slices; their 8 × 32 partials go to scratch as a tile, and warp 1 sums
/// that tile's columns after a block barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_row_partials(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, BARS_AT);
    let rows = region::<f32>(SCRATCH_AT);
    if tid == PRODUCER {
        produce(&pipe, RING_AT, input, tiles);
    } else if tid < CONSUMERS {
        let acc = consume_row_slices(&pipe, RING_AT, tiles, tid as usize);
        for j in 0..8 {
            *rows.add(tid as usize * 8 + j) = acc[j];
        }
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut total = 0.0f32;
        for r in 0..ROWS {
            total += *rows.add(r * COLS + c);
        }
        *out.add(block_idx_x() as usize * COLS + c) = total;
    }
}

// Barriers first, the ring from the next kilobyte.
const FRONT_BARS_AT: u32 = 0;
const BACK_RING_AT: u32 = 1024;

/// Barriers at byte 0, ring at 1024; lanes read row slices and the columns are combined by
/// warp sums after the pipeline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_bars_first(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, FRONT_BARS_AT);
    if tid == PRODUCER {
        produce(&pipe, BACK_RING_AT, input, tiles);
    } else if tid < CONSUMERS {
        let lane = tid as usize;
        let acc = consume_row_slices(&pipe, BACK_RING_AT, tiles, lane);
        for c in 0..COLS {
            let mine = if lane % 4 == c / 8 { acc[c % 8] } else { 0.0 };
            let total = warp_sum(mine);
            if lane == c {
                *out.add(block_idx_x() as usize * COLS + c) = total;
            }
        }
    }
}

// Plain staging: one tile buffer, then the partial sums.
const STAGE_AT: u32 = 0;
const SUMS_AT: u32 = STAGE_AT + TILE_BYTES;

/// No pipeline: the block stages each tile (four floats a thread), warp 0 adds its column to
/// the partial sums, and a second barrier frees the buffer for the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_plain_staging(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x() as usize;
    let stage = region::<f32>(STAGE_AT);
    let sums = region::<f32>(SUMS_AT);
    if tid < COLS {
        *sums.add(tid) = 0.0;
    }
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        for k in 0..4 {
            *stage.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < COLS {
            let mut col = 0.0f32;
            for r in 0..ROWS {
                col += *stage.add(r * COLS + tid);
            }
            *sums.add(tid) += col;
        }
        barrier();
        t += grid_dim_x();
    }
    // A block with no tile still orders warp 0's zeroing before warp 1's read.
    barrier();
    if tid >= 32 {
        let c = tid - 32;
        *out.add(block_idx_x() as usize * COLS + c) = *sums.add(c);
    }
}

/// Each consumer keeps its running sum in its own scratch slot after the barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_shared_accumulators(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, BARS_AT);
    if tid == PRODUCER {
        produce(&pipe, RING_AT, input, tiles);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let acc = region::<f32>(SCRATCH_AT).add(c);
        *acc = 0.0;
        let ring = region::<f32>(RING_AT);
        let mut st = PipelineState::<STAGES>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                *acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = *acc;
    }
}

// ---------------------------------------------------------------- broken

// Accumulators carved "just below the barriers", which sit right after the ring.
const ACC_BYTES: u32 = COLS as u32 * 4;
const LOW_ACC_AT: u32 = BARS_AT - ACC_BYTES;

/// BROKEN: the accumulators are carved just below the barriers, which is the last row of
/// stage 3: the copies of tiles into stage 3 overwrite the running sums, and the sums'
/// updates corrupt row 7 of those tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_bad_acc_in_ring(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, BARS_AT);
    if tid == PRODUCER {
        produce(&pipe, RING_AT, input, tiles);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let acc = region::<f32>(LOW_ACC_AT).add(c);
        *acc = 0.0;
        let ring = region::<f32>(RING_AT);
        let mut st = PipelineState::<STAGES>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                *acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = *acc;
    }
}

/// BROKEN: the block barrier comes before the consumers store their sums into scratch, so
/// warp 1 reads the scratch while warp 0 is still writing it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_bad_publish_early(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, BARS_AT);
    let partials = region::<f32>(SCRATCH_AT);
    let mut acc = 0.0f32;
    if tid == PRODUCER {
        produce(&pipe, RING_AT, input, tiles);
    } else if tid < CONSUMERS {
        acc = consume_column(&pipe, RING_AT, tiles, tid as usize);
    }
    barrier();
    if tid < CONSUMERS {
        *partials.add(tid as usize) = acc;
    } else {
        let c = (tid - 32) as usize;
        *out.add(block_idx_x() as usize * COLS + c) = *partials.add(c);
    }
}

// Scratch of 32 sums plus a tile count, carved between the ring and the barriers.
const COUNTED_AT: u32 = RING_AT + STAGES * TILE_BYTES;
const COUNTED_BARS_AT: u32 = COUNTED_AT + (COLS as u32 + 1) * 4;

/// BROKEN: the scratch of 32 sums and a count (132 bytes) pushes the barriers to byte 4228,
/// which is not 8-byte aligned: the mbarrier operations fault.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_bad_counted_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, COUNTED_BARS_AT);
    let scratch = region::<f32>(COUNTED_AT);
    let count = region::<u32>(COUNTED_AT + COLS as u32 * 4);
    if tid == PRODUCER {
        produce(&pipe, RING_AT, input, tiles);
        *count = if block_idx_x() < tiles { (tiles - block_idx_x()).div_ceil(grid_dim_x()) } else { 0 };
    } else if tid < CONSUMERS {
        *scratch.add(tid as usize) = consume_column(&pipe, RING_AT, tiles, tid as usize);
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        let total = if *count > 0 { *scratch.add(c) } else { 0.0 };
        *out.add(block_idx_x() as usize * COLS + c) = total;
    }
}

/// BROKEN: the row-slice consumers release once per row (lane `% 4 == 0`): 8 arrivals on an
/// empty barrier initialised for 32, so no stage is ever freed for its second tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_bad_row_release(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid, BARS_AT);
    let rows = region::<f32>(SCRATCH_AT);
    if tid == PRODUCER {
        produce(&pipe, RING_AT, input, tiles);
    } else if tid < CONSUMERS {
        let lane = tid as usize;
        let ring = region::<f32>(RING_AT);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = [0.0f32; 8];
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let slice = ring.add(st.index() as usize * TILE_FLOATS + lane * 8);
            for j in 0..8 {
                acc[j] += *slice.add(j);
            }
            // The four lanes of a row share it: the row's first lane gives it back.
            if lane % 4 == 0 {
                pipe.consumer_release(&st);
            }
            st.advance();
            t += grid_dim_x();
        }
        for j in 0..8 {
            *rows.add(lane * 8 + j) = acc[j];
        }
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut total = 0.0f32;
        for r in 0..ROWS {
            total += *rows.add(r * COLS + c);
        }
        *out.add(block_idx_x() as usize * COLS + c) = total;
    }
}

/// BROKEN: plain staging without the barrier after the sums: warp 1 stages the next tile into
/// the buffer while warp 0 is still summing the current one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_carve_bad_plain_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x() as usize;
    let stage = region::<f32>(STAGE_AT);
    let sums = region::<f32>(SUMS_AT);
    if tid < COLS {
        *sums.add(tid) = 0.0;
    }
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        for k in 0..4 {
            *stage.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < COLS {
            let mut col = 0.0f32;
            for r in 0..ROWS {
                col += *stage.add(r * COLS + tid);
            }
            *sums.add(tid) += col;
        }
        t += grid_dim_x();
    }
    barrier();
    if tid >= 32 {
        let c = tid - 32;
        *out.add(block_idx_x() as usize * COLS + c) = *sums.add(c);
    }
}
