//! Persona: "all hands on deck". Every thread of the block consumes (the producer thread too),
//! each takes part of every tile, and the two warps' partial sums meet in a scratch area of
//! shared memory after the ring.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const STAGES: u32 = 4;
const RING_BYTES: u32 = STAGES * TILE_BYTES;
/// Scratch for 64 partial sums, past the ring and the barriers (16-byte aligned).
const SCRATCH_OFFSET: u32 = 4608;

/// Thread 0 produces tile `i` then everyone consumes it; thread `t` sums rows `4·(t / 32)`..+4 of
/// column `t % 32`; warp 1's partials go through scratch to warp 0, which writes the result.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ah_half_rows_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.add((SCRATCH_OFFSET / 4) as usize);
    let barriers = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % 32;
    let first_row = 4 * (tid / 32);

    let mut produced = PipelineState::<STAGES>::producer_start();
    let mut consumed = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + produced.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&produced),
            );
            produced.advance();
        }
        pipe.consumer_wait(&consumed);
        let stage = smem.add((consumed.index() * TILE_FLOATS) as usize);
        for r in first_row..first_row + 4 {
            acc += *stage.add((r * 32 + column) as usize);
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        t += grid;
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    *scratch.add(tid as usize) = acc;
    barrier();
    if tid < 32 {
        *out.add((block * 32 + tid) as usize) = *scratch.add(tid as usize) + *scratch.add(tid as usize + 32);
    }
}

/// Three stages; thread 0 fills the ring in a prologue and refills a stage right after it has
/// consumed it. Thread `t` sums the elements `t, t + 64, t + 128, t + 192` of every tile (all in
/// column `t % 32`); the halves meet in scratch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ah_prefetch_prologue(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + DEPTH * TILE_BYTES;
    let scratch = smem.add(((DEPTH * TILE_BYTES + pipeline_barrier_bytes(DEPTH) + 64) / 4) as usize);
    if tid == 0 {
        Pipeline::<DEPTH>::init(barriers, 64);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = if block < tiles { (tiles - block).div_ceil(grid) } else { 0 };

    let mut produced = PipelineState::<DEPTH>::producer_start();
    let mut next_fill = 0u32;
    if tid == 0 {
        while next_fill < count && next_fill < DEPTH {
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            let t = block + next_fill * grid;
            bulk_copy_global_to_shared(
                window + produced.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&produced),
            );
            produced.advance();
            next_fill += 1;
        }
    }
    let mut consumed = PipelineState::<DEPTH>::new();
    let mut acc = 0.0f32;
    for _ in 0..count {
        pipe.consumer_wait(&consumed);
        let stage = smem.add((consumed.index() * TILE_FLOATS) as usize);
        let mut e = tid;
        while e < TILE_FLOATS {
            acc += *stage.add(e as usize);
            e += 64;
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        if tid == 0 && next_fill < count {
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            let t = block + next_fill * grid;
            bulk_copy_global_to_shared(
                window + produced.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&produced),
            );
            produced.advance();
            next_fill += 1;
        }
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    *scratch.add(tid as usize) = acc;
    barrier();
    if tid < 32 {
        let total = *scratch.add(tid as usize) + *scratch.add(tid as usize + 32);
        *out.add((block * 32 + tid) as usize) = total;
    }
}

/// BROKEN: as `r5_ah_half_rows_scratch` but without the block barrier between writing the
/// partials and reading them: warp 0 may read warp 1's slot before it is written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ah_scratch_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.add((SCRATCH_OFFSET / 4) as usize);
    let barriers = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % 32;
    let first_row = 4 * (tid / 32);

    let mut produced = PipelineState::<STAGES>::producer_start();
    let mut consumed = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + produced.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&produced),
            );
            produced.advance();
        }
        pipe.consumer_wait(&consumed);
        let stage = smem.add((consumed.index() * TILE_FLOATS) as usize);
        for r in first_row..first_row + 4 {
            acc += *stage.add((r * 32 + column) as usize);
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        t += grid;
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    *scratch.add(tid as usize) = acc;
    if tid < 32 {
        *out.add((block * 32 + tid) as usize) = *scratch.add(tid as usize) + *scratch.add(tid as usize + 32);
    }
}

/// BROKEN: every thread consumes and releases, but the empty barriers are initialised for one
/// warp (32): each phase completes after half the block released, so the producer refills a
/// stage the other warp still reads, and the extra arrivals spill into the next phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ah_init_counts_one_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.add((SCRATCH_OFFSET / 4) as usize);
    let barriers = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % 32;
    let first_row = 4 * (tid / 32);

    let mut produced = PipelineState::<STAGES>::producer_start();
    let mut consumed = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + produced.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&produced),
            );
            produced.advance();
        }
        pipe.consumer_wait(&consumed);
        let stage = smem.add((consumed.index() * TILE_FLOATS) as usize);
        for r in first_row..first_row + 4 {
            acc += *stage.add((r * 32 + column) as usize);
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        t += grid;
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    *scratch.add(tid as usize) = acc;
    barrier();
    if tid < 32 {
        *out.add((block * 32 + tid) as usize) = *scratch.add(tid as usize) + *scratch.add(tid as usize + 32);
    }
}

/// BROKEN: the scratch offset is computed as "right after the ring", forgetting the barriers
/// live there: threads that finish early write their partials over the mbarriers while thread 0
/// is still waiting on them in `producer_tail`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ah_scratch_on_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.add((RING_BYTES / 4) as usize);
    let barriers = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % 32;
    let first_row = 4 * (tid / 32);

    let mut produced = PipelineState::<STAGES>::producer_start();
    let mut consumed = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + produced.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&produced),
            );
            produced.advance();
        }
        pipe.consumer_wait(&consumed);
        let stage = smem.add((consumed.index() * TILE_FLOATS) as usize);
        for r in first_row..first_row + 4 {
            acc += *stage.add((r * 32 + column) as usize);
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        t += grid;
    }
    *scratch.add(tid as usize) = acc;
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    barrier();
    if tid < 32 {
        *out.add((block * 32 + tid) as usize) = *scratch.add(tid as usize) + *scratch.add(tid as usize + 32);
    }
}
