//! Style `seg`: warp-cooperative vector reads and segmented shuffle reductions.
//!
//! Instead of one thread per column walking a strided column of the tile, each consumer lane
//! reads a contiguous run of a row with 16-byte vector loads (`Quad`, `ld.v4`), accumulates the
//! run elementwise over its tiles, and the lanes that hold the same columns of different rows
//! are combined with shuffles at the end (`device::reduce::segment_sum` over aligned segments
//! of eight lanes, or a hand-written butterfly where the lanes to combine are strided). The
//! lanes that own a segment's row 0 write its columns. The producer is a plain free function.

use core::arch::asm;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
/// Floats of a row one lane reads (two quads).
const SPAN: usize = 8;
const BLOCK: u32 = 64;
const SMEM: u32 = 8192;

/// Four floats moved by one 16-byte load.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct Quad(pub [f32; 4]);

/// The eight floats of row `row` starting at column `first` (a multiple of 4) of a tile.
#[inline(always)]
unsafe fn span8(tile: *const f32, row: usize, first: usize) -> [f32; SPAN] {
    let q = tile.add(row * COLUMNS + first) as *const Quad;
    let lo = *q;
    let hi = *q.add(1);
    [lo.0[0], lo.0[1], lo.0[2], lo.0[3], hi.0[0], hi.0[1], hi.0[2], hi.0[3]]
}

/// Butterfly shuffle over the whole warp (all lanes take part).
#[inline(always)]
fn butterfly(value: f32, lane_mask: u32) -> f32 {
    let result: f32;
    // SAFETY: a register-only shuffle; every lane of the warp executes it.
    unsafe {
        asm!(
            "shfl.sync.bfly.b32 {result}, {value}, {mask}, 0x1f, 0xffffffff;",
            result = out(reg32) result,
            value = in(reg32) value,
            mask = in(reg32) lane_mask,
            options(nomem, nostack),
        );
    }
    result
}

/// The producer's whole loop: the block's tiles `b, b + g, …` into the ring at `ring`.
#[inline(always)]
unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, ring: u32, input: *const f32, tiles: u32) {
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut state = PipelineState::<S>::producer_start();
    let mut t = b;
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring + state.index() * TILE_BYTES,
            input.add(t as usize * TILE_FLOATS) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        t += g;
    }
    pipe.producer_tail(state);
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Four stages, barriers at 0, ring at 1024; producer thread 32. Lane `l` of warp 0 reads row
/// `l % 8`, columns `8·(l / 8) .. +8`; the eight row-lanes of a segment are summed once, after
/// the tile loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_seg_spans_after_loop(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        produce(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let b = block_idx_x();
        let g = grid_dim_x();
        let lane = tid as usize;
        let row = lane % ROWS;
        let first = (lane / ROWS) * SPAN;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut acc = [0.0f32; SPAN];
        let mut state = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let tile = ring.add(state.index() as usize * TILE_FLOATS);
            let run = span8(tile, row, first);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..SPAN {
                acc[j] += run[j];
            }
            t += g;
        }
        for j in 0..SPAN {
            acc[j] = segment_sum(acc[j], ROWS as u32);
        }
        if row == 0 {
            for j in 0..SPAN {
                *out.add(b as usize * COLUMNS + first + j) = acc[j];
            }
        }
    }
}

/// Three stages, ring at 0, barriers at 3072; producer thread 0, consumers warp 1. The
/// segments are summed on every tile, after the stage is released (the run is in registers).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_seg_reduce_each_tile(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING: u32 = 0;
    const BARS: u32 = 3072;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 0 {
        produce(&pipe, window + RING, input, tiles);
    } else if tid >= 32 {
        let b = block_idx_x();
        let g = grid_dim_x();
        let lane = (tid - 32) as usize;
        let row = lane % ROWS;
        let first = (lane / ROWS) * SPAN;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut totals = [0.0f32; SPAN];
        let mut state = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let run = span8(ring.add(state.index() as usize * TILE_FLOATS), row, first);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..SPAN {
                totals[j] += segment_sum(run[j], ROWS as u32);
            }
            t += g;
        }
        if row == 0 {
            for j in 0..SPAN {
                *out.add(b as usize * COLUMNS + first + j) = totals[j];
            }
        }
    }
}

/// Two stages, barriers at 0, ring at 1024; producer thread 32. Lane `l` reads row `l / 4`,
/// columns `8·(l % 4) .. +8`: the lanes holding the same columns are four apart, so they are
/// combined by butterflies over lane masks 4, 8 and 16; lanes 0..4 write.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_seg_xor_rows(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        produce(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let b = block_idx_x();
        let g = grid_dim_x();
        let lane = tid as usize;
        let row = lane / 4;
        let first = (lane % 4) * SPAN;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut acc = [0.0f32; SPAN];
        let mut state = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let run = span8(ring.add(state.index() as usize * TILE_FLOATS), row, first);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..SPAN {
                acc[j] += run[j];
            }
            t += g;
        }
        for j in 0..SPAN {
            let mut v = acc[j];
            v += butterfly(v, 4);
            v += butterfly(v, 8);
            v += butterfly(v, 16);
            acc[j] = v;
        }
        if row == 0 {
            for j in 0..SPAN {
                *out.add(b as usize * COLUMNS + first + j) = acc[j];
            }
        }
    }
}

/// Six stages, ring at 0 (0..6144), barriers at 6144; producer thread 32; sixteen consumers
/// (lanes 0..16 of warp 0), lane `l` reading row `l % 8`, columns `16·(l / 8) .. +16` as four
/// quads. The whole warp then takes part in the segment sums, lanes 16..32 adding zeros.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_seg_half_warp_wide(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 6;
    const RING: u32 = 0;
    const BARS: u32 = 6144;
    const CONSUMERS: u32 = 16;
    const WIDE: usize = 16;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        produce(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let b = block_idx_x();
        let g = grid_dim_x();
        let lane = tid as usize;
        let row = lane % ROWS;
        let first = (lane / ROWS) * WIDE;
        let mut acc = [0.0f32; WIDE];
        if tid < CONSUMERS {
            let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
            let mut state = PipelineState::<STAGES>::new();
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&state);
                let tile = ring.add(state.index() as usize * TILE_FLOATS);
                let left = span8(tile, row, first);
                let right = span8(tile, row, first + SPAN);
                pipe.consumer_release(&state);
                state.advance();
                for j in 0..SPAN {
                    acc[j] += left[j];
                    acc[SPAN + j] += right[j];
                }
                t += g;
            }
        }
        for j in 0..WIDE {
            acc[j] = segment_sum(acc[j], ROWS as u32);
        }
        if tid < CONSUMERS && row == 0 {
            for j in 0..WIDE {
                *out.add(b as usize * COLUMNS + first + j) = acc[j];
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// BROKEN: the run's address is computed on a `*const Quad`, the column offset converted to
/// quads but the row offset left in floats (`row * 32` quads = four rows per row): rows 1..8
/// read 512-byte steps into the next stages and the free bytes after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_seg_bad_quad_units(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        produce(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let b = block_idx_x();
        let g = grid_dim_x();
        let lane = tid as usize;
        let row = lane % ROWS;
        let first = (lane / ROWS) * SPAN;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut acc = [0.0f32; SPAN];
        let mut state = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let quads = ring.add(state.index() as usize * TILE_FLOATS) as *const Quad;
            let q = quads.add(row * COLUMNS + first / 4);
            let lo = *q;
            let hi = *q.add(1);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..4 {
                acc[j] += lo.0[j];
                acc[4 + j] += hi.0[j];
            }
            t += g;
        }
        for j in 0..SPAN {
            acc[j] = segment_sum(acc[j], ROWS as u32);
        }
        if row == 0 {
            for j in 0..SPAN {
                *out.add(b as usize * COLUMNS + first + j) = acc[j];
            }
        }
    }
}

/// BROKEN: a "prefetch" of the run issued before `consumer_wait` to hide shared-memory latency:
/// the loads read the stage before its copy has landed (the previous tile of that stage, or
/// bytes being written).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_seg_bad_load_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        produce(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let b = block_idx_x();
        let g = grid_dim_x();
        let lane = tid as usize;
        let row = lane % ROWS;
        let first = (lane / ROWS) * SPAN;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut acc = [0.0f32; SPAN];
        let mut state = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            let run = span8(ring.add(state.index() as usize * TILE_FLOATS), row, first);
            pipe.consumer_wait(&state);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..SPAN {
                acc[j] += run[j];
            }
            t += g;
        }
        for j in 0..SPAN {
            acc[j] = segment_sum(acc[j], ROWS as u32);
        }
        if row == 0 {
            for j in 0..SPAN {
                *out.add(b as usize * COLUMNS + first + j) = acc[j];
            }
        }
    }
}

/// BROKEN: only the segment leaders (lanes whose row is 0, four of them) release the stage,
/// "on behalf of their segment", but the pipeline was initialised for 32 releasing threads:
/// no *empty* barrier completes and the producer stalls once the ring is full.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_seg_bad_leader_release(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        produce(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let b = block_idx_x();
        let g = grid_dim_x();
        let lane = tid as usize;
        let row = lane % ROWS;
        let first = (lane / ROWS) * SPAN;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut totals = [0.0f32; SPAN];
        let mut state = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let run = span8(ring.add(state.index() as usize * TILE_FLOATS), row, first);
            for j in 0..SPAN {
                totals[j] += segment_sum(run[j], ROWS as u32);
            }
            if row == 0 {
                pipe.consumer_release(&state);
            }
            state.advance();
            t += g;
        }
        if row == 0 {
            for j in 0..SPAN {
                *out.add(b as usize * COLUMNS + first + j) = totals[j];
            }
        }
    }
}

/// BROKEN: the producer announces `STAGE_BYTES`, a constant left from the version of the kernel
/// that packed two tiles per stage, but copies one tile: every *full* barrier waits for 1024
/// bytes that never come.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_seg_bad_expect_two_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, STAGE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let lane = tid as usize;
        let row = lane % ROWS;
        let first = (lane / ROWS) * SPAN;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut acc = [0.0f32; SPAN];
        let mut state = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let run = span8(ring.add(state.index() as usize * TILE_FLOATS), row, first);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..SPAN {
                acc[j] += run[j];
            }
            t += g;
        }
        for j in 0..SPAN {
            acc[j] = segment_sum(acc[j], ROWS as u32);
        }
        if row == 0 {
            for j in 0..SPAN {
                *out.add(b as usize * COLUMNS + first + j) = acc[j];
            }
        }
    }
}
