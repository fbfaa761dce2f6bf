//! Style 5 (`hip`): ports of HIP/ROCm kernels.
//!
//! The originals think in wavefronts: `WAVE_SIZE`, `__lane_id()`, `__wave_id()`, lane masks,
//! `__syncthreads()`, `hipThreadIdx_x` and friends. The port keeps those names as thin shims over
//! the device API, with `WAVE_SIZE` set to NVIDIA's 32-wide warp; LDS is the dynamic shared
//! memory window.
#![allow(non_snake_case)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::row::FourFloats;
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

/// Lanes per wave on the target (`warpSize`).
const WAVE_SIZE: u32 = 32;
/// `hipBlockDim_x` of every launch: two waves.
const BLOCK_SIZE: u32 = 64;
/// LDS bytes of every launch.
const LDS_BYTES: u32 = 8192;
const TILE_ROWS: u32 = 8;
const TILE_COLS: u32 = 32;
const TILE_FLOATS: u32 = TILE_ROWS * TILE_COLS;
const TILE_BYTES: u32 = TILE_FLOATS * 4;

#[inline(always)]
fn hipThreadIdx_x() -> u32 {
    thread_idx_x()
}

#[inline(always)]
fn hipBlockIdx_x() -> u32 {
    block_idx_x()
}

#[inline(always)]
fn hipGridDim_x() -> u32 {
    grid_dim_x()
}

#[inline(always)]
fn __syncthreads() {
    barrier()
}

#[inline(always)]
fn __lane_id() -> u32 {
    hipThreadIdx_x() & (WAVE_SIZE - 1)
}

#[inline(always)]
fn __wave_id() -> u32 {
    hipThreadIdx_x() / WAVE_SIZE
}

/// `warpSize` as the ROCm headers of the original spelled it (a wave64 device).
#[inline(always)]
fn hip_wavefront_size() -> u32 {
    64
}

/// Bulk copy of one tile into LDS at `lds_addr` (the port's stand-in for the original's
/// `global_load_lds` loop), completing on `bar`.
#[inline(always)]
unsafe fn lds_load_tile(lds_addr: u32, src: *const f32, bar: u32) {
    bulk_copy_global_to_shared(lds_addr, src as *const u8, TILE_BYTES, bar);
}

/// `sum_{r} lds[stage + r * 32 + lane]`.
#[inline(always)]
unsafe fn lds_column(stage: *const f32, lane: u32) -> f32 {
    let mut s = 0.0f32;
    let mut r = 0u32;
    while r < TILE_ROWS {
        s += *stage.add((r * TILE_COLS + lane) as usize);
        r += 1;
    }
    s
}

// ================================================================ correct kernels

/// Correct. Wave roles: lane 0 of wave 0 is the producer, wave 1 the consumer wave (column =
/// `__lane_id()`); four stages at LDS byte 0, barriers after them, initialised by thread 0 before
/// a `__syncthreads()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_hip_wave_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(LDS_BYTES);
    let lds = dynamic_shared_window_address();
    let bars = lds + STAGES * TILE_BYTES;
    if hipThreadIdx_x() == 0 {
        Pipeline::<STAGES>::init(bars, WAVE_SIZE);
    }
    __syncthreads();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let bid = hipBlockIdx_x();
    let nblocks = hipGridDim_x();

    if __wave_id() == 0 {
        if __lane_id() == 0 {
            let mut st = PipelineState::<STAGES>::producer_start();
            let mut t = bid;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                lds_load_tile(lds + st.index() * TILE_BYTES, input.add((t * TILE_FLOATS) as usize), pipe.producer_barrier(&st));
                st.advance();
                t += nblocks;
            }
            pipe.producer_tail(st);
        }
    } else {
        let lane = __lane_id();
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += lds_column(ring.add((st.index() * TILE_FLOATS) as usize), lane);
            pipe.consumer_release(&st);
            st.advance();
            t += nblocks;
        }
        *out.add((bid * TILE_COLS + lane) as usize) = acc;
    }
}

/// Correct. Plain LDS, no pipeline: each wave reads half of the rows of every tile straight from
/// global memory (wave `w` rows `4w..4w + 4` of column `__lane_id()`), parks its partial sums in
/// LDS, one `__syncthreads()`, and wave 0 adds the two halves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_hip_lds_partials(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(LDS_BYTES);
    let lane = __lane_id();
    let wave = __wave_id();
    let bid = hipBlockIdx_x();
    let nblocks = hipGridDim_x();
    let partials = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = bid;
    while t < tiles {
        let tile = input.add((t * TILE_FLOATS) as usize);
        let mut r = wave * (TILE_ROWS / 2);
        while r < (wave + 1) * (TILE_ROWS / 2) {
            acc += *tile.add((r * TILE_COLS + lane) as usize);
            r += 1;
        }
        t += nblocks;
    }
    *partials.add((wave * WAVE_SIZE + lane) as usize) = acc;
    __syncthreads();
    if wave == 0 {
        *out.add((bid * TILE_COLS + lane) as usize) = *partials.add(lane as usize) + *partials.add((WAVE_SIZE + lane) as usize);
    }
}

/// Correct. Roles from a 64-bit lane mask, as the wave64 original wrote them: the consumers are
/// the threads whose bit is set in `CONSUMER_LANES` (the low 32), the pipeline is initialised for
/// `CONSUMER_LANES.count_ones()` releases, and the producer is the block's last thread (63).
/// Two stages; barriers at LDS byte 0, the ring from byte 256.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_hip_lane_mask_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const CONSUMER_LANES: u64 = 0x0000_0000_FFFF_FFFF;
    const RING: u32 = 256;
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(LDS_BYTES);
    let tid = hipThreadIdx_x();
    let lds = dynamic_shared_window_address();
    if tid == BLOCK_SIZE - 1 {
        Pipeline::<STAGES>::init(lds, CONSUMER_LANES.count_ones());
    }
    __syncthreads();
    let pipe = Pipeline::<STAGES>::attach(lds);
    let bid = hipBlockIdx_x();
    let nblocks = hipGridDim_x();
    let is_consumer = (CONSUMER_LANES >> tid) & 1 != 0;

    if tid == BLOCK_SIZE - 1 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            lds_load_tile(lds + RING + st.index() * TILE_BYTES, input.add((t * TILE_FLOATS) as usize), pipe.producer_barrier(&st));
            st.advance();
            t += nblocks;
        }
        pipe.producer_tail(st);
    } else if is_consumer {
        let lane = __lane_id();
        let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += lds_column(ring.add((st.index() * TILE_FLOATS) as usize), lane);
            pipe.consumer_release(&st);
            st.advance();
            t += nblocks;
        }
        *out.add((bid * TILE_COLS + lane) as usize) = acc;
    }
}

/// Correct. Vectorised LDS reads as the original's `float4` loop: wave 1 consumes, lane `l`
/// reads rows `2(l % 4)` and `2(l % 4) + 1` of columns `4(l / 4)..+4` as two 16-byte loads,
/// and after the tile loop the four lanes of each column group combine with a segment butterfly
/// (`segment_sum(.., 4)`); lane `l` stores column `4(l / 4) + l % 4`. Five stages at byte 0,
/// barriers after them, thread 0 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_hip_float4_segments(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(LDS_BYTES);
    let lds = dynamic_shared_window_address();
    let bars = lds + STAGES * TILE_BYTES;
    if hipThreadIdx_x() == 0 {
        Pipeline::<STAGES>::init(bars, WAVE_SIZE);
    }
    __syncthreads();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let bid = hipBlockIdx_x();
    let nblocks = hipGridDim_x();

    if hipThreadIdx_x() == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            lds_load_tile(lds + st.index() * TILE_BYTES, input.add((t * TILE_FLOATS) as usize), pipe.producer_barrier(&st));
            st.advance();
            t += nblocks;
        }
        pipe.producer_tail(st);
    } else if __wave_id() == 1 {
        let lane = __lane_id();
        let group = lane >> 2;
        let pair = lane & 3;
        let ring = dynamic_shared_base::<f32>();
        let mut acc = [0.0f32; 4];
        let mut st = PipelineState::<STAGES>::new();
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE_FLOATS) as usize);
            let lo = *(stage.add(((2 * pair) * TILE_COLS + 4 * group) as usize) as *const FourFloats);
            let hi = *(stage.add(((2 * pair + 1) * TILE_COLS + 4 * group) as usize) as *const FourFloats);
            pipe.consumer_release(&st);
            acc[0] += lo.0[0] + hi.0[0];
            acc[1] += lo.0[1] + hi.0[1];
            acc[2] += lo.0[2] + hi.0[2];
            acc[3] += lo.0[3] + hi.0[3];
            st.advance();
            t += nblocks;
        }
        let s0 = segment_sum(acc[0], 4);
        let s1 = segment_sum(acc[1], 4);
        let s2 = segment_sum(acc[2], 4);
        let s3 = segment_sum(acc[3], 4);
        let mine = match pair {
            0 => s0,
            1 => s1,
            2 => s2,
            _ => s3,
        };
        *out.add((bid * TILE_COLS + 4 * group + pair) as usize) = mine;
    }
}

// ================================================================ broken kernels

/// BROKEN (producer-threads, release-count): the wave64 original chose its producer as
/// `__lane_id() == 0` (unique in one 64-lane wave); with 32-wide waves that is threads 0 and 32.
/// Two producers arrive on each full barrier (initialised for one arrival) and copy every tile
/// twice, and thread 32 is taken from the consumer wave, which then has 31 releasing threads
/// for an empty barrier initialised for 32 (hang, or an unspecified launch failure).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_hip_bad_lane_zero_producer(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(LDS_BYTES);
    let lds = dynamic_shared_window_address();
    let bars = lds + STAGES * TILE_BYTES;
    if hipThreadIdx_x() == 0 {
        Pipeline::<STAGES>::init(bars, WAVE_SIZE);
    }
    __syncthreads();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let bid = hipBlockIdx_x();
    let nblocks = hipGridDim_x();

    if __lane_id() == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            lds_load_tile(lds + st.index() * TILE_BYTES, input.add((t * TILE_FLOATS) as usize), pipe.producer_barrier(&st));
            st.advance();
            t += nblocks;
        }
        pipe.producer_tail(st);
    } else if __wave_id() == 1 {
        let lane = __lane_id();
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += lds_column(ring.add((st.index() * TILE_FLOATS) as usize), lane);
            pipe.consumer_release(&st);
            st.advance();
            t += nblocks;
        }
        *out.add((bid * TILE_COLS + lane) as usize) = acc;
    }
}

/// BROKEN (consumer-order): the original prefetched its first `STAGES` tiles before the
/// `__syncthreads()`, so the port's consumer wave only waits once the ring has wrapped
/// (`if k >= STAGES`). The first four tiles are read before their bulk copies land: wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_hip_bad_prefetch_no_wait(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(LDS_BYTES);
    let lds = dynamic_shared_window_address();
    let bars = lds + STAGES * TILE_BYTES;
    if hipThreadIdx_x() == 0 {
        Pipeline::<STAGES>::init(bars, WAVE_SIZE);
    }
    __syncthreads();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let bid = hipBlockIdx_x();
    let nblocks = hipGridDim_x();

    if hipThreadIdx_x() == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            lds_load_tile(lds + st.index() * TILE_BYTES, input.add((t * TILE_FLOATS) as usize), pipe.producer_barrier(&st));
            st.advance();
            t += nblocks;
        }
        pipe.producer_tail(st);
    } else if __wave_id() == 1 {
        let lane = __lane_id();
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut k = 0u32;
        let mut t = bid;
        while t < tiles {
            if k >= STAGES {
                pipe.consumer_wait(&st);
            }
            acc += lds_column(ring.add((st.index() * TILE_FLOATS) as usize), lane);
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
            t += nblocks;
        }
        *out.add((bid * TILE_COLS + lane) as usize) = acc;
    }
}

/// BROKEN (release-count): the empty barriers are initialised for `hip_wavefront_size()`
/// releases, the ROCm original's 64-lane wavefront, but the consumer wave has 32 lanes: no empty
/// barrier ever completes and the producer hangs on its fifth acquire.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_hip_bad_wave64_arrivals(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(LDS_BYTES);
    let lds = dynamic_shared_window_address();
    let bars = lds + STAGES * TILE_BYTES;
    if hipThreadIdx_x() == 0 {
        Pipeline::<STAGES>::init(bars, hip_wavefront_size());
    }
    __syncthreads();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let bid = hipBlockIdx_x();
    let nblocks = hipGridDim_x();

    if __wave_id() == 0 {
        if __lane_id() == 0 {
            let mut st = PipelineState::<STAGES>::producer_start();
            let mut t = bid;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                lds_load_tile(lds + st.index() * TILE_BYTES, input.add((t * TILE_FLOATS) as usize), pipe.producer_barrier(&st));
                st.advance();
                t += nblocks;
            }
            pipe.producer_tail(st);
        }
    } else {
        let lane = __lane_id();
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += lds_column(ring.add((st.index() * TILE_FLOATS) as usize), lane);
            pipe.consumer_release(&st);
            st.advance();
            t += nblocks;
        }
        *out.add((bid * TILE_COLS + lane) as usize) = acc;
    }
}

/// BROKEN (shared-layout): the original's LDS header kept a 32-bit work counter right after the
/// ring, and the port places the mbarriers after it at `RING_BYTES + 4`: 8-byte mbarriers on a
/// 4-byte boundary. Their initialisation and every arrive and wait are misaligned (fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_hip_bad_lds_counter_misaligns(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING_BYTES: u32 = STAGES * TILE_BYTES;
    const LDS_COUNTER: u32 = RING_BYTES;
    const LDS_BARRIERS: u32 = LDS_COUNTER + 4;
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(LDS_BYTES);
    let lds = dynamic_shared_window_address();
    let bars = lds + LDS_BARRIERS;
    if hipThreadIdx_x() == 0 {
        Pipeline::<STAGES>::init(bars, WAVE_SIZE);
    }
    __syncthreads();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let bid = hipBlockIdx_x();
    let nblocks = hipGridDim_x();

    if __wave_id() == 0 {
        if __lane_id() == 0 {
            let mut st = PipelineState::<STAGES>::producer_start();
            let mut t = bid;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                lds_load_tile(lds + st.index() * TILE_BYTES, input.add((t * TILE_FLOATS) as usize), pipe.producer_barrier(&st));
                st.advance();
                t += nblocks;
            }
            pipe.producer_tail(st);
        }
    } else {
        let lane = __lane_id();
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += lds_column(ring.add((st.index() * TILE_FLOATS) as usize), lane);
            pipe.consumer_release(&st);
            st.advance();
            t += nblocks;
        }
        *out.add((bid * TILE_COLS + lane) as usize) = acc;
    }
}
