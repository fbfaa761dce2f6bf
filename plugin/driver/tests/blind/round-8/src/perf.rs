//! Kernels by a performance engineer: deep rings, warp specialisation, loops written out,
//! several copies per stage, every thread of the block consuming, two rings in flight.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;

#[inline(always)]
fn tile_ptr(input: *const f32, tile: u32) -> *const u8 {
    unsafe { input.add((tile * TILE_FLOATS) as usize) as *const u8 }
}

// ---------------------------------------------------------------------------------------------
// Six stages, warp 1's lane 0 produces, warp 0 consumes with the row loop written out.

const SIX: u32 = 6;
const SIX_BARRIERS: u32 = SIX * TILE_BYTES;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_perf_six_stage_ws(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if thread_idx_x() == 0 { Pipeline::<SIX>::init(smem + SIX_BARRIERS, 32) } else { Pipeline::<SIX>::attach(smem + SIX_BARRIERS) };
    barrier();

    let warp = warp_id();
    let lane = lane_id();
    if warp == 1 && lane == 0 {
        let mut st = PipelineState::<SIX>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(smem + st.index() * TILE_BYTES, tile_ptr(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if warp == 0 {
        let mut st = PipelineState::<SIX>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE_FLOATS) as usize) };
            unrolled!(ROW < ROWS => {
                acc += unsafe { *stage.add(ROW * 32 + lane as usize) };
            });
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + lane) as usize) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// All 64 threads consume: thread `t` owns column `t / 2` and every other row, lane pairs meet
// through a shuffle. Thread 0 also produces, interleaved: it fills the ring once, then refills
// each stage right after its own release of it.

const FOUR: u32 = 4;
const FOUR_BARRIERS: u32 = FOUR * TILE_BYTES;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_perf_interleaved_64(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<FOUR>::init(smem + FOUR_BARRIERS, 64) } else { Pipeline::<FOUR>::attach(smem + FOUR_BARRIERS) };
    barrier();

    let step = grid_dim_x();
    let column = (tid >> 1) as usize;
    let parity = (tid & 1) as usize;

    let mut fill = PipelineState::<FOUR>::producer_start();
    let mut next_fill = block_idx_x();
    if tid == 0 {
        let mut primed = 0;
        while primed < FOUR && next_fill < tiles {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(smem + fill.index() * TILE_BYTES, tile_ptr(input, next_fill), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
            next_fill += step;
            primed += 1;
        }
    }

    let mut read = PipelineState::<FOUR>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&read);
        let stage = unsafe { ring.add((read.index() * TILE_FLOATS) as usize) };
        unrolled!(K < 4 => {
            acc += unsafe { *stage.add((2 * K + parity) * 32 + column) };
        });
        pipe.consumer_release(&read);
        read.advance();
        if tid == 0 && next_fill < tiles {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(smem + fill.index() * TILE_BYTES, tile_ptr(input, next_fill), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
            next_fill += step;
        }
        t += step;
    }
    if tid == 0 {
        pipe.producer_tail(fill);
    }
    let total = segment_sum(acc, 2);
    if parity == 0 {
        unsafe { *out.add(block_idx_x() as usize * 32 + column) = total };
    }
}

/// The same interleaving, but the priming loop runs `<= FOUR`: the fifth fill waits for a
/// release that thread 0 itself would give only after priming.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_perf_prologue_overrun(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<FOUR>::init(smem + FOUR_BARRIERS, 64) } else { Pipeline::<FOUR>::attach(smem + FOUR_BARRIERS) };
    barrier();

    let step = grid_dim_x();
    let column = (tid >> 1) as usize;
    let parity = (tid & 1) as usize;

    let mut fill = PipelineState::<FOUR>::producer_start();
    let mut next_fill = block_idx_x();
    if tid == 0 {
        let mut primed = 0;
        while primed <= FOUR && next_fill < tiles {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(smem + fill.index() * TILE_BYTES, tile_ptr(input, next_fill), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
            next_fill += step;
            primed += 1;
        }
    }

    let mut read = PipelineState::<FOUR>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&read);
        let stage = unsafe { ring.add((read.index() * TILE_FLOATS) as usize) };
        unrolled!(K < 4 => {
            acc += unsafe { *stage.add((2 * K + parity) * 32 + column) };
        });
        pipe.consumer_release(&read);
        read.advance();
        if tid == 0 && next_fill < tiles {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(smem + fill.index() * TILE_BYTES, tile_ptr(input, next_fill), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
            next_fill += step;
        }
        t += step;
    }
    if tid == 0 {
        pipe.producer_tail(fill);
    }
    let total = segment_sum(acc, 2);
    if parity == 0 {
        unsafe { *out.add(block_idx_x() as usize * 32 + column) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// Two tiles per stage (2 KiB stages, three of them): half the barrier traffic. A lone last
// tile gets a stage of its own with one copy and its own byte count.

const PAIR: u32 = 3;
const PAIR_STAGE_BYTES: u32 = 2 * TILE_BYTES;
const PAIR_BARRIERS: u32 = PAIR * PAIR_STAGE_BYTES;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_perf_two_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<PAIR>::init(smem + PAIR_BARRIERS, 32) } else { Pipeline::<PAIR>::attach(smem + PAIR_BARRIERS) };
    barrier();

    let step = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<PAIR>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            let destination = smem + st.index() * PAIR_STAGE_BYTES;
            if t + step < tiles {
                pipe.producer_expect_tx(&st, 2 * TILE_BYTES);
                bulk_copy_global_to_shared(destination, tile_ptr(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                bulk_copy_global_to_shared(destination + TILE_BYTES, tile_ptr(input, t + step), TILE_BYTES, pipe.producer_barrier(&st));
            } else {
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(destination, tile_ptr(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            }
            st.advance();
            t += 2 * step;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut st = PipelineState::<PAIR>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * 2 * TILE_FLOATS) as usize) };
            let rows = if t + step < tiles { 2 * ROWS } else { ROWS };
            let mut row = 0;
            while row < rows {
                acc += unsafe { *stage.add(row * 32 + lane) };
                row += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += 2 * step;
        }
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = acc };
    }
}

/// Two tiles per stage, but the byte count is still the single tile's: the full barrier
/// completes after the first kilobyte, and the second copy's bytes spill into the next phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_perf_two_tiles_expect_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<PAIR>::init(smem + PAIR_BARRIERS, 32) } else { Pipeline::<PAIR>::attach(smem + PAIR_BARRIERS) };
    barrier();

    let step = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<PAIR>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let destination = smem + st.index() * PAIR_STAGE_BYTES;
            bulk_copy_global_to_shared(destination, tile_ptr(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(destination + TILE_BYTES, tile_ptr(input, t + step), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += 2 * step;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut st = PipelineState::<PAIR>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * 2 * TILE_FLOATS) as usize) };
            unrolled!(ROW < 16 => {
                acc += unsafe { *stage.add(ROW * 32 + lane) };
            });
            pipe.consumer_release(&st);
            st.advance();
            t += 2 * step;
        }
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// Five stages, eight independent accumulators per consumer (no dependent adds in the row loop).

const FIVE: u32 = 5;
const FIVE_BARRIERS: u32 = FIVE * TILE_BYTES;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_perf_unrolled_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<FIVE>::init(smem + FIVE_BARRIERS, 32) } else { Pipeline::<FIVE>::attach(smem + FIVE_BARRIERS) };
    barrier();

    if tid == 63 {
        let mut st = PipelineState::<FIVE>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(smem + st.index() * TILE_BYTES, tile_ptr(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut partial = [0.0f32; ROWS];
        let mut st = PipelineState::<FIVE>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE_FLOATS) as usize) };
            unrolled!(ROW < ROWS => {
                partial[ROW] += unsafe { *stage.add(ROW * 32 + lane) };
            });
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + ((partial[4] + partial[5]) + (partial[6] + partial[7]));
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = total };
    }
}

/// "One arrive per warp is enough": only lane 0 releases, but the empty barriers still expect
/// all 32 consumer threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_perf_leader_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<FIVE>::init(smem + FIVE_BARRIERS, 32) } else { Pipeline::<FIVE>::attach(smem + FIVE_BARRIERS) };
    barrier();

    if tid == 63 {
        let mut st = PipelineState::<FIVE>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(smem + st.index() * TILE_BYTES, tile_ptr(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut partial = [0.0f32; ROWS];
        let mut st = PipelineState::<FIVE>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE_FLOATS) as usize) };
            unrolled!(ROW < ROWS => {
                partial[ROW] += unsafe { *stage.add(ROW * 32 + lane) };
            });
            if lane == 0 {
                pipe.consumer_release(&st);
            }
            st.advance();
            t += grid_dim_x();
        }
        let total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + ((partial[4] + partial[5]) + (partial[6] + partial[7]));
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// Two rings in flight: even tiles of the block through ring A (thread 32 fills it), odd tiles
// through ring B (thread 33). Layout: A's ring 0..2048, B's 2048..4096, A's barriers at 4096,
// B's at 4128.

const HALF: u32 = 2;
const RING_A: u32 = 0;
const RING_B: u32 = HALF * TILE_BYTES;
const BARS_A: u32 = 2 * HALF * TILE_BYTES;
const BARS_B: u32 = BARS_A + 16 * HALF;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_perf_two_pipes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let (even, odd) = if tid == 0 {
        (Pipeline::<HALF>::init(smem + BARS_A, 32), Pipeline::<HALF>::init(smem + BARS_B, 32))
    } else {
        (Pipeline::<HALF>::attach(smem + BARS_A), Pipeline::<HALF>::attach(smem + BARS_B))
    };
    barrier();

    let step = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<HALF>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            even.producer_acquire(&st);
            even.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(smem + RING_A + st.index() * TILE_BYTES, tile_ptr(input, t), TILE_BYTES, even.producer_barrier(&st));
            st.advance();
            t += 2 * step;
        }
        even.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<HALF>::producer_start();
        let mut t = block_idx_x() + step;
        while t < tiles {
            odd.producer_acquire(&st);
            odd.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(smem + RING_B + st.index() * TILE_BYTES, tile_ptr(input, t), TILE_BYTES, odd.producer_barrier(&st));
            st.advance();
            t += 2 * step;
        }
        odd.producer_tail(st);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut sa = PipelineState::<HALF>::new();
        let mut sb = PipelineState::<HALF>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            even.consumer_wait(&sa);
            let stage = unsafe { base.add(((RING_A + sa.index() * TILE_BYTES) / 4) as usize) };
            unrolled!(ROW < ROWS => {
                acc += unsafe { *stage.add(ROW * 32 + lane) };
            });
            even.consumer_release(&sa);
            sa.advance();
            if t + step < tiles {
                odd.consumer_wait(&sb);
                let stage = unsafe { base.add(((RING_B + sb.index() * TILE_BYTES) / 4) as usize) };
                unrolled!(ROW < ROWS => {
                    acc += unsafe { *stage.add(ROW * 32 + lane) };
                });
                odd.consumer_release(&sb);
                sb.advance();
            }
            t += 2 * step;
        }
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = acc };
    }
}

/// Two rings, but the odd tile's release was copy-pasted from the even one: ring B is never
/// released and ring A is released twice per pair.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_perf_two_pipes_crossed_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let (even, odd) = if tid == 0 {
        (Pipeline::<HALF>::init(smem + BARS_A, 32), Pipeline::<HALF>::init(smem + BARS_B, 32))
    } else {
        (Pipeline::<HALF>::attach(smem + BARS_A), Pipeline::<HALF>::attach(smem + BARS_B))
    };
    barrier();

    let step = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<HALF>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            even.producer_acquire(&st);
            even.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(smem + RING_A + st.index() * TILE_BYTES, tile_ptr(input, t), TILE_BYTES, even.producer_barrier(&st));
            st.advance();
            t += 2 * step;
        }
        even.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<HALF>::producer_start();
        let mut t = block_idx_x() + step;
        while t < tiles {
            odd.producer_acquire(&st);
            odd.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(smem + RING_B + st.index() * TILE_BYTES, tile_ptr(input, t), TILE_BYTES, odd.producer_barrier(&st));
            st.advance();
            t += 2 * step;
        }
        odd.producer_tail(st);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut sa = PipelineState::<HALF>::new();
        let mut sb = PipelineState::<HALF>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            even.consumer_wait(&sa);
            let stage = unsafe { base.add(((RING_A + sa.index() * TILE_BYTES) / 4) as usize) };
            unrolled!(ROW < ROWS => {
                acc += unsafe { *stage.add(ROW * 32 + lane) };
            });
            even.consumer_release(&sa);
            sa.advance();
            if t + step < tiles {
                odd.consumer_wait(&sb);
                let stage = unsafe { base.add(((RING_B + sb.index() * TILE_BYTES) / 4) as usize) };
                unrolled!(ROW < ROWS => {
                    acc += unsafe { *stage.add(ROW * 32 + lane) };
                });
                even.consumer_release(&sb);
                sb.advance();
            }
            t += 2 * step;
        }
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = acc };
    }
}
