//! Style `constfn`: every size and offset is a `const` computed at compile time. `const fn
//! layout(..)` places the barriers and the ring of a given stage count; `const` items are derived
//! from other `const`s; the kernel body is one generic function over `const STAGES`, `const
//! BARS` and `const RING`; the column sum is generic over `const ROWS` and `const COLS`.
//!
//! Roles: thread 0 produces, the threads from `FIRST_CONSUMER` on consume, one column each.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{
    Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes,
};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const BLOCK_THREADS: u32 = 64;
const WARP: u32 = 32;
const SHARED_BYTES: u32 = 8192;
const ROWS: usize = 8;
const COLS: usize = 32;
const TILE_FLOATS: usize = ROWS * COLS;
const TILE_BYTES: u32 = (TILE_FLOATS * core::mem::size_of::<f32>()) as u32;
const CONSUMERS: u32 = BLOCK_THREADS - WARP;
const FIRST_CONSUMER: u32 = BLOCK_THREADS - CONSUMERS;
const ELEMENTS_PER_THREAD: usize = TILE_FLOATS / BLOCK_THREADS as usize;

const fn align_up(x: u32, to: u32) -> u32 {
    x.div_ceil(to) * to
}

/// Where a ring of `stages` tiles and its barriers sit in the window, in bytes.
#[derive(Clone, Copy)]
struct Layout {
    stages: u32,
    bars: u32,
    ring: u32,
    end: u32,
}

/// Barriers first, then the ring from the next tile boundary.
const fn bars_then_ring(stages: u32) -> Layout {
    let bars = 0;
    let ring = align_up(bars + pipeline_barrier_bytes(stages), TILE_BYTES);
    Layout { stages, bars, ring, end: ring + stages * TILE_BYTES }
}

/// Byte offset of stage `s` of a ring that starts at `ring`.
const fn stage_offset(ring: u32, s: u32) -> u32 {
    ring + s * TILE_BYTES
}

/// The ring first, from byte 0, then its barriers right after its last stage.
const fn ring_then_bars(stages: u32) -> Layout {
    let ring = 0;
    let bars = stage_offset(ring, stages);
    Layout { stages, bars, ring, end: bars + pipeline_barrier_bytes(stages) }
}

const FOUR: Layout = bars_then_ring(4);
const THREE_TAIL: Layout = ring_then_bars(3);
const _: () = assert!(FOUR.end <= SHARED_BYTES && FOUR.stages == 4);
const _: () = assert!(THREE_TAIL.end <= SHARED_BYTES && THREE_TAIL.stages == 3);

/// Sum of column `col` over the first `R` rows of a tile `C` floats wide.
#[inline(always)]
unsafe fn column<const R: usize, const C: usize>(tile: *const f32, col: usize) -> f32 {
    let mut sum = 0.0f32;
    let mut row = 0;
    while row < R {
        sum += *tile.add(row * C + col);
        row += 1;
    }
    sum
}

/// The whole kernel for a ring of `STAGES` tiles at window byte `RING`, barriers at `BARS`.
#[inline(always)]
unsafe fn ring_sum<const STAGES: u32, const BARS: u32, const RING: u32>(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            total += column::<ROWS, COLS>(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        *out.add(first as usize * COLS + col) = total;
    }
}

/// Four stages, barriers first, ring at the next tile boundary (`bars_then_ring(4)`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_constfn_ring_four(input: *const f32, tiles: u32, out: *mut f32) {
    ring_sum::<{ FOUR.stages }, { FOUR.bars }, { FOUR.ring }>(input, tiles, out);
}

/// Three stages from byte 0, barriers after the ring (`ring_then_bars(3)`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_constfn_ring_three_tail(input: *const f32, tiles: u32, out: *mut f32) {
    ring_sum::<{ THREE_TAIL.stages }, { THREE_TAIL.bars }, { THREE_TAIL.ring }>(input, tiles, out);
}

/// The consumers keep the previous stage (CUTLASS's order): the first tile is waited for before
/// the loop, and each pass waits for the next stage, sums it, and only then releases the stage
/// before it; the last stage is released after the loop. At most two stages of the four are held.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_constfn_previous_stage_held(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = FOUR.stages;
    const RING_FLOATS: usize = (FOUR.ring / 4) as usize;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + FOUR.bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + FOUR.bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
            let dst = window + FOUR.ring + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let smem = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut tile = first;
        if tile < tiles {
            pipe.consumer_wait(&state);
            total += column::<ROWS, COLS>(smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS), col);
            let mut prev = state;
            state.advance();
            tile += step;
            while tile < tiles {
                pipe.consumer_wait(&state);
                total += column::<ROWS, COLS>(smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS), col);
                pipe.consumer_release(&prev);
                prev = state;
                state.advance();
                tile += step;
            }
            pipe.consumer_release(&prev);
        }
        *out.add(first as usize * COLS + col) = total;
    }
}

/// Plain shared memory: a staged tile at byte 0 and 64 floats of partial sums at `PARTIALS`.
/// Thread `t` sums column `t % 32` over rows `4 · (t / 32) .. + 4` of each tile; after the tile
/// loop warp 0 adds the two halves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_constfn_plain_halves(input: *const f32, tiles: u32, out: *mut f32) {
    const HALF_ROWS: usize = ROWS / 2;
    const PARTIALS: usize = TILE_FLOATS;
    const _: () = assert!((PARTIALS + BLOCK_THREADS as usize) * 4 <= SHARED_BYTES as usize);
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut partial = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        let src = input.add(tile as usize * TILE_FLOATS);
        let mut k = 0;
        while k < ELEMENTS_PER_THREAD {
            let i = tid + k * BLOCK_THREADS as usize;
            *smem.add(i) = *src.add(i);
            k += 1;
        }
        barrier();
        partial += column::<HALF_ROWS, COLS>(smem.add(half * HALF_ROWS * COLS), col);
        barrier();
        tile += step;
    }
    *smem.add(PARTIALS + tid) = partial;
    barrier();
    if tid < COLS {
        let total = *smem.add(PARTIALS + tid) + *smem.add(PARTIALS + COLS + tid);
        *out.add(first as usize * COLS + tid) = total;
    }
}

/// The ring first and its barriers "after the last stage", but placed with
/// `stage_offset(ring, stages - 1)`: the offset OF the last stage, not past it.
const FOUR_TAIL_OFF_BY_ONE: Layout = {
    let ring = 0;
    let stages = 4;
    let bars = stage_offset(ring, stages - 1);
    Layout { stages, bars, ring, end: stage_offset(ring, stages) }
};

/// BROKEN: `FOUR_TAIL_OFF_BY_ONE` puts the barriers at the start of stage 3, so the copy of every
/// fourth tile overwrites all eight mbarriers with tile data; waits then never see their phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_constfn_bad_barriers_in_last_stage(input: *const f32, tiles: u32, out: *mut f32) {
    ring_sum::<{ FOUR_TAIL_OFF_BY_ONE.stages }, { FOUR_TAIL_OFF_BY_ONE.bars }, { FOUR_TAIL_OFF_BY_ONE.ring }>(
        input, tiles, out,
    );
}

/// Eight stages to hide more latency; its layout has no `assert!` beside it like `FOUR`'s.
const EIGHT: Layout = bars_then_ring(8);

/// BROKEN: `bars_then_ring(8)` starts the ring at byte 1024 and ends it at byte 9216, past the
/// 8192 bytes the launch provides: stage 7 lies wholly outside the window (copies and reads
/// there fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_constfn_bad_eight_stages(input: *const f32, tiles: u32, out: *mut f32) {
    ring_sum::<{ EIGHT.stages }, { EIGHT.bars }, { EIGHT.ring }>(input, tiles, out);
}

/// BROKEN: the consumer role is tested with `tid > FIRST_CONSUMER`, so threads 33..63 (31 of
/// them) release while `init` announced `CONSUMERS` = 32: the empty barriers never complete and
/// the producer hangs at its fifth acquire (column 0 is never written either).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_constfn_bad_consumer_count(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = FOUR.stages;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + FOUR.bars, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + FOUR.bars)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
            let dst = window + FOUR.ring + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid > FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let ring = dynamic_shared_base::<f32>().add(FOUR.ring as usize / 4);
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            total += column::<ROWS, COLS>(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        *out.add(first as usize * COLS + col) = total;
    }
}

/// Tiles the producer may have in flight before it must wait for a release: the ring's stages
/// "plus the one the copy engine is still writing".
const fn tiles_in_flight(stages: u32) -> u32 {
    stages + 1
}

/// BROKEN: the producer skips `producer_acquire` for its first `tiles_in_flight(4)` = 5 tiles;
/// the fifth reuses stage 0 without waiting for its release: its `expect_tx` arrives a second
/// time on `full[0]` (possibly in the phase tile 0 has not completed) and its copy overwrites
/// the stage the consumers wait on or read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_constfn_bad_prefill_one_extra(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = FOUR.stages;
    const PREFILL: u32 = tiles_in_flight(STAGES);
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + FOUR.bars, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + FOUR.bars)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first;
        let mut issued = 0u32;
        while tile < tiles {
            if issued >= PREFILL {
                pipe.producer_acquire(&state);
            }
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
            let dst = window + FOUR.ring + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            issued += 1;
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let ring = dynamic_shared_base::<f32>().add(FOUR.ring as usize / 4);
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            total += column::<ROWS, COLS>(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        *out.add(first as usize * COLS + col) = total;
    }
}
