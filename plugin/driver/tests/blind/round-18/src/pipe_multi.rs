//! Pipelines with more than one moving part: two rings fed alternately, stages filled by
//! several smaller copies, peeled iterations, a consumer written as an enum state machine, and
//! a release count that is not one warp.

#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

const S: u32 = 4;
const RING: u32 = 64;
const HALF: u32 = TILE_BYTES / 2;
const QUARTER: u32 = TILE_BYTES / 4;

/// Two-stage rings A and B: barriers at 0 and 32, stages at 64 and 64 + 2 KiB.
const BARS_A: u32 = 0;
const BARS_B: u32 = 32;
const RING_A: u32 = 64;
const RING_B: u32 = RING_A + 2 * TILE_BYTES;

#[inline(always)]
unsafe fn consume_into(pipe: &Pipeline<2>, st: &mut PipelineState<2>, ring: *const f32, lane: usize, acc: &mut f32) {
    pipe.consumer_wait(st);
    *acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), lane);
    pipe.consumer_release(st);
    st.advance();
}

/// Even-numbered owned tiles go through ring A, odd ones through ring B, each with its own
/// producer thread; the consumer warp alternates.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_two_rings(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<2>::init(win + BARS_A, 32);
        Pipeline::<2>::init(win + BARS_B, 32);
    }
    barrier();
    let a = Pipeline::<2>::attach(win + BARS_A);
    let b = Pipeline::<2>::attach(win + BARS_B);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0;
        while k < n {
            a.producer_acquire(&st);
            a.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING_A + st.index() * TILE_BYTES, tile_source(input, owned_tile(k)), TILE_BYTES, a.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        a.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 1;
        while k < n {
            b.producer_acquire(&st);
            b.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING_B + st.index() * TILE_BYTES, tile_source(input, owned_tile(k)), TILE_BYTES, b.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        b.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let ring_a = base.add(RING_A as usize / 4) as *const f32;
        let ring_b = base.add(RING_B as usize / 4) as *const f32;
        let mut sa = PipelineState::<2>::new();
        let mut sb = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < n {
            consume_into(&a, &mut sa, ring_a, tid as usize, &mut acc);
            k += 1;
            if k < n {
                consume_into(&b, &mut sb, ring_b, tid as usize, &mut acc);
                k += 1;
            }
        }
        store_column(out, tid, acc);
    }
}

#[inline(always)]
fn pipe_here() -> (Pipeline<S>, u32) {
    let win = dynamic_shared_window_address();
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    (Pipeline::<S>::attach(win), win)
}

/// The plain consumer warp of this module's single-ring kernels.
#[inline(always)]
unsafe fn consumer_warp(pipe: &Pipeline<S>, tiles: u32, out: *mut f32) {
    let lane = thread_idx_x();
    let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
    let mut st = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), lane as usize);
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    store_column(out, lane, acc);
}

/// Each stage is filled by two 512-byte copies, announced together.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = pipe_here();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = win + RING + st.index() * TILE_BYTES;
            let src = tile_source(input, t);
            for half in 0..2u32 {
                bulk_copy_global_to_shared(dst + half * HALF, src.wrapping_add((half * HALF) as usize), HALF, pipe.producer_barrier(&st));
            }
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consumer_warp(&pipe, tiles, out);
    }
}

/// Each stage is filled by four 256-byte copies in a byte-offset loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_quarter_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = pipe_here();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let mut off = 0u32;
            while off < TILE_BYTES {
                bulk_copy_global_to_shared(
                    win + RING + st.index() * TILE_BYTES + off,
                    tile_source(input, t).wrapping_add(off as usize),
                    QUARTER,
                    pipe.producer_barrier(&st),
                );
                off += QUARTER;
            }
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consumer_warp(&pipe, tiles, out);
    }
}

#[inline(always)]
fn producer_thread(pipe: &Pipeline<S>, win: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

/// The consumer's first tile is peeled out of its loop (it initialises the sum).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_peeled_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = pipe_here();
    if tid == 32 {
        producer_thread(&pipe, win, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let n = owned_tiles(tiles);
        let mut acc = 0.0f32;
        if n > 0 {
            pipe.consumer_wait(&st);
            acc = column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            let mut k = 1;
            while k < n {
                pipe.consumer_wait(&st);
                acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
                pipe.consumer_release(&st);
                st.advance();
                k += 1;
            }
        }
        store_column(out, tid, acc);
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Step {
    Wait,
    Read,
    Release,
    Next,
    Done,
}

/// The consumer as a state machine over `Step`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_enum_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = pipe_here();
    if tid == 32 {
        producer_thread(&pipe, win, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        let mut step = if t < tiles { Step::Wait } else { Step::Done };
        while step != Step::Done {
            step = match step {
                Step::Wait => {
                    pipe.consumer_wait(&st);
                    Step::Read
                }
                Step::Read => {
                    acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
                    Step::Release
                }
                Step::Release => {
                    pipe.consumer_release(&st);
                    Step::Next
                }
                Step::Next => {
                    st.advance();
                    t += grid_dim_x();
                    if t < tiles { Step::Wait } else { Step::Done }
                }
                Step::Done => Step::Done,
            };
        }
        store_column(out, tid, acc);
    }
}

/// 63 consumers: every thread but the producer (thread 0) waits and releases; warp 1 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_sixty_three(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const CONSUMERS: u32 = THREADS - 1;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 0 {
        producer_thread(&pipe, win, input, tiles);
    } else {
        let summing = warp_id() == 1;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            if summing {
                acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), lane_id() as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        if summing {
            store_column(out, lane_id(), acc);
        }
    }
}

/// Broken: the quarter loop stops one quarter early (`off + QUARTER < TILE_BYTES`); the *full*
/// barrier is owed 256 bytes on every stage and never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_bad_three_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = pipe_here();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let mut off = 0u32;
            while off + QUARTER < TILE_BYTES {
                bulk_copy_global_to_shared(
                    win + RING + st.index() * TILE_BYTES + off,
                    tile_source(input, t).wrapping_add(off as usize),
                    QUARTER,
                    pipe.producer_barrier(&st),
                );
                off += QUARTER;
            }
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consumer_warp(&pipe, tiles, out);
    }
}

/// Broken: the ring-B half of the consumer was pasted from the ring-A half and still releases
/// on pipeline A; B's stages are never freed and its producer hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_bad_cross_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<2>::init(win + BARS_A, 32);
        Pipeline::<2>::init(win + BARS_B, 32);
    }
    barrier();
    let a = Pipeline::<2>::attach(win + BARS_A);
    let b = Pipeline::<2>::attach(win + BARS_B);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0;
        while k < n {
            a.producer_acquire(&st);
            a.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING_A + st.index() * TILE_BYTES, tile_source(input, owned_tile(k)), TILE_BYTES, a.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        a.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 1;
        while k < n {
            b.producer_acquire(&st);
            b.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING_B + st.index() * TILE_BYTES, tile_source(input, owned_tile(k)), TILE_BYTES, b.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        b.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let ring_a = base.add(RING_A as usize / 4);
        let ring_b = base.add(RING_B as usize / 4);
        let mut sa = PipelineState::<2>::new();
        let mut sb = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < n {
            a.consumer_wait(&sa);
            acc += column_sum(ring_a.add(sa.index() as usize * TILE_FLOATS), tid as usize);
            a.consumer_release(&sa);
            sa.advance();
            k += 1;
            if k < n {
                b.consumer_wait(&sb);
                acc += column_sum(ring_b.add(sb.index() as usize * TILE_FLOATS), tid as usize);
                a.consumer_release(&sb);
                sb.advance();
                k += 1;
            }
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the peeled first tile is read without waiting for its copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_bad_peeled_no_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = pipe_here();
    if tid == 32 {
        producer_thread(&pipe, win, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let n = owned_tiles(tiles);
        let mut acc = 0.0f32;
        if n > 0 {
            acc = column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            let mut k = 1;
            while k < n {
                pipe.consumer_wait(&st);
                acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
                pipe.consumer_release(&st);
                st.advance();
                k += 1;
            }
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the state machine goes straight from `Read` to `Done` on the last tile, skipping its
/// release; the producer's tail waits for that stage forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_bad_machine_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = pipe_here();
    if tid == 32 {
        producer_thread(&pipe, win, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        let mut step = if t < tiles { Step::Wait } else { Step::Done };
        while step != Step::Done {
            step = match step {
                Step::Wait => {
                    pipe.consumer_wait(&st);
                    Step::Read
                }
                Step::Read => {
                    acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
                    if t + grid_dim_x() >= tiles { Step::Done } else { Step::Release }
                }
                Step::Release => {
                    pipe.consumer_release(&st);
                    Step::Next
                }
                Step::Next => {
                    st.advance();
                    t += grid_dim_x();
                    Step::Wait
                }
                Step::Done => Step::Done,
            };
        }
        store_column(out, tid, acc);
    }
}

/// Broken: ring B is placed one tile after ring A's start instead of two, so B's stage 0 is
/// A's stage 1 and the two producers overwrite each other's tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_bad_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_B_SHORT: u32 = RING_A + TILE_BYTES;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<2>::init(win + BARS_A, 32);
        Pipeline::<2>::init(win + BARS_B, 32);
    }
    barrier();
    let a = Pipeline::<2>::attach(win + BARS_A);
    let b = Pipeline::<2>::attach(win + BARS_B);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0;
        while k < n {
            a.producer_acquire(&st);
            a.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING_A + st.index() * TILE_BYTES, tile_source(input, owned_tile(k)), TILE_BYTES, a.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        a.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 1;
        while k < n {
            b.producer_acquire(&st);
            b.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING_B_SHORT + st.index() * TILE_BYTES, tile_source(input, owned_tile(k)), TILE_BYTES, b.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        b.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let ring_a = base.add(RING_A as usize / 4) as *const f32;
        let ring_b = base.add(RING_B_SHORT as usize / 4) as *const f32;
        let mut sa = PipelineState::<2>::new();
        let mut sb = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < n {
            consume_into(&a, &mut sa, ring_a, tid as usize, &mut acc);
            k += 1;
            if k < n {
                consume_into(&b, &mut sb, ring_b, tid as usize, &mut acc);
                k += 1;
            }
        }
        store_column(out, tid, acc);
    }
}

/// Broken: "lane 0 of warp 1 produces" was written as a range of lanes, so lanes 0 and 1 both
/// run the producer loop: two arrivals and two copies per stage on barriers made for one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_bad_two_producer_lanes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, win) = pipe_here();
    if warp_id() == 1 && lane_id() < 2 {
        producer_thread(&pipe, win, input, tiles);
    } else if warp_id() == 0 {
        consumer_warp(&pipe, tiles, out);
    }
}

/// Broken: the producer skips `producer_acquire` while the ring is "still filling", but the
/// test is `k > S`: at `k == S` it rewrites stage 0 without waiting for its release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pm_bad_acquire_late(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = pipe_here();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let n = owned_tiles(tiles);
        let mut k = 0;
        while k < n {
            if k > S {
                pipe.producer_acquire(&st);
            }
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, owned_tile(k)), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            k += 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        consumer_warp(&pipe, tiles, out);
    }
}
