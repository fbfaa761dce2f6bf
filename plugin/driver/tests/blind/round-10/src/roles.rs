//! Style "role": the pipeline protocol behind abstractions: a struct that owns the ring, closures
//! for each role, const generics over the stage count and size, helpers that move states in and
//! out, copies of state values, roles chosen through helpers and `block_dim_x()`, and consumers
//! that combine columns with warp shuffles.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::unrolled::unrolled;
use crate::device::{
    barrier, block_dim_x, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    launch, thread_idx_x, warp_id,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
/// The barriers sit at byte 0 of the window, the ring at byte 256.
const RING: u32 = 256;

/// A ring of `S` tile stages and the pipeline that guards it.
struct Ring<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    floats: *const f32,
}

impl<const S: u32> Ring<S> {
    fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        unsafe { self.floats.add(((RING + state.index() * TILE_BYTES) / 4) as usize) }
    }

    /// One producer step: acquire, announce, copy tile `t`, advance.
    unsafe fn produce(&self, state: &mut PipelineState<S>, input: *const f32, t: u32) {
        self.pipe.producer_acquire(state);
        self.pipe.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.window + RING + state.index() * TILE_BYTES,
            unsafe { input.add(t as usize * TILE_FLOATS) as *const u8 },
            TILE_BYTES,
            self.pipe.producer_barrier(state),
        );
        state.advance();
    }

    /// One consumer step: wait, sum column `c`, release, advance.
    unsafe fn consume(&self, state: &mut PipelineState<S>, c: usize) -> f32 {
        self.pipe.consumer_wait(state);
        let stage = self.stage(state);
        let mut sum = 0.0f32;
        for r in 0..8 {
            sum += unsafe { *stage.add(r * COLS + c) };
        }
        self.pipe.consumer_release(state);
        state.advance();
        sum
    }
}

/// Correct: three stages owned by a `Ring` struct whose methods do one protocol step each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_struct_ring(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    let ring = Ring { pipe, window, floats: dynamic_shared_base::<f32>() };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            unsafe { ring.produce(&mut state, input, t) };
            t += grid;
        }
        ring.pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += unsafe { ring.consume(&mut state, tid as usize) };
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: each role's step is a closure capturing the pipeline by reference; the state is
/// passed in as `&mut`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_closures(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let produce = |state: &mut PipelineState<2>, t: u32| {
        pipe.producer_acquire(state);
        pipe.producer_expect_tx(state, TILE_BYTES);
        let src = unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8;
        bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
        state.advance();
    };
    let consume = |state: &mut PipelineState<2>, c: usize| -> f32 {
        pipe.consumer_wait(state);
        let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
        let mut sum = 0.0f32;
        for r in 0..8 {
            sum += unsafe { *stage.add(r * COLS + c) };
        }
        pipe.consumer_release(state);
        state.advance();
        sum
    };
    let grid = grid_dim_x();
    let mut t = block_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        while t < tiles {
            produce(&mut state, t);
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        while t < tiles {
            acc += consume(&mut state, tid as usize);
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// The whole kernel for `STAGES` stages of `STAGE_BYTES` bytes (at least a tile).
#[inline(always)]
unsafe fn staged_sum<const STAGES: u32, const STAGE_BYTES: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window, 32)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let grid = grid_dim_x();
    let mut t = block_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * STAGE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * STAGE_BYTES) as usize) } as *const f32;
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: `staged_sum` with three stages of one tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_const_generic(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe { staged_sum::<3, TILE_BYTES>(input, tiles, out) };
}

/// Broken: `staged_sum` instantiated with 512-byte stages ("two stages of half a tile") while
/// every copy still moves a whole 1 KiB tile: the copy into stage 0 also overwrites stage 1,
/// which may hold the next tile or be under the consumers' reads (copy larger than its stage).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_const_generic_small_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe { staged_sum::<2, 512>(input, tiles, out) };
}

/// Correct: consumers read the stage as 8 rows × 4 column groups (lane `l`: row `l % 8`, group
/// `l / 8`) into eight accumulators, written out with `unrolled!`; after the loop,
/// `segment_sum(·, 8)` folds the rows and lane `l` writes column `8 * group + row`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_shuffle_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window, 32)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let grid = grid_dim_x();
    if warp_id() == 0 {
        let lane = lane_id() as usize;
        let row = lane % 8;
        let group = lane / 8;
        let mut acc = [0.0f32; 8];
        let mut state = PipelineState::<STAGES>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
            let first = unsafe { stage.add(row * COLS + group * 8) };
            unrolled!(I < 8 => {
                acc[I] += unsafe { *first.add(I) };
            });
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        let mut mine = 0.0f32;
        unrolled!(I < 8 => {
            let total = segment_sum(acc[I], 8);
            if I == row {
                mine = total;
            }
        });
        unsafe { *out.add(block_idx_x() as usize * COLS + group * 8 + row) = mine };
    } else if lane_id() == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    }
}

/// Correct: no launch declaration; the producer is the block's last thread
/// (`block_dim_x() - 1`, 63 in the run) and the consumers are the first 32 threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_last_thread_produces(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let last = block_dim_x() - 1;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == last {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: the consumer sums its column with an iterator over a slice of the stage
/// (`iter().skip(c).step_by(32).sum()`), between its wait and its release; it works on a copy
/// of the current state (`let here = state`) and advances the original afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_iter_sum_state_copy(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let here = state;
            pipe.consumer_wait(&here);
            let stage = unsafe {
                core::slice::from_raw_parts(smem.add(((RING + here.index() * TILE_BYTES) / 4) as usize), TILE_FLOATS)
            };
            acc += stage.iter().skip(tid as usize).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&here);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// The state after `state`.
#[inline(never)]
fn next_state(state: PipelineState<2>) -> PipelineState<2> {
    let mut next = state;
    next.advance();
    next
}

/// Broken: the consumer moves on with `next_state(state);` and drops the result (the producer
/// uses `state = next_state(state)`). The consumer's state never moves: it rereads stage 0 and
/// never releases stage 1, and the producer hangs on stage 1's *empty* barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_dropped_next_state(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state = next_state(state);
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            next_state(state);
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: two pipelines (one per half of the ring's barriers) where the consumer's closure
/// releases on the *other* pipeline: pipeline A's *empty* barriers never complete and its
/// producer hangs at the third tile (B's releases go to barriers nobody waits on).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_release_other_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (a, b) = if tid == 0 {
        (Pipeline::<2>::init(window, 32), Pipeline::<2>::init(window + 64, 32))
    } else {
        (Pipeline::<2>::attach(window), Pipeline::<2>::attach(window + 64))
    };
    barrier();
    let consume = |state: &mut PipelineState<2>, c: usize| -> f32 {
        a.consumer_wait(state);
        let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
        let mut sum = 0.0f32;
        for r in 0..8 {
            sum += unsafe { *stage.add(r * COLS + c) };
        }
        b.consumer_release(state);
        state.advance();
        sum
    };
    let grid = grid_dim_x();
    let mut t = block_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        while t < tiles {
            a.producer_acquire(&state);
            a.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                a.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        a.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        while t < tiles {
            acc += consume(&mut state, tid as usize);
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: the consumer's state is made with `producer_start()` (phase 1) by copy and paste:
/// its first wait on a fresh *full* barrier returns at once, so every read is one phase early
/// (stale or torn data, wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_consumer_producer_start(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    let ring = Ring { pipe, window, floats: dynamic_shared_base::<f32>() };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            unsafe { ring.produce(&mut state, input, t) };
            t += grid;
        }
        ring.pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += unsafe { ring.consume(&mut state, tid as usize) };
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Is this thread one of the producers? Lanes 0 and 16 of warp 1, each copying half a tile.
fn producer_half(tid: u32) -> Option<u32> {
    match tid {
        32 => Some(0),
        48 => Some(1),
        _ => None,
    }
}

/// Broken: two producer threads per pipeline, each running the whole protocol for its half of
/// the tile (acquire, `expect_tx(512)`, a 512-byte copy, advance). *full* is initialised for
/// one arrival: the first half completes the phase with half the bytes, the second arrival
/// lands in the next phase (consumers read half-filled stages; the phases drift apart).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_role_two_producer_halves(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if let Some(half) = producer_half(tid) {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES / 2);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES + half * (TILE_BYTES / 2),
                unsafe { input.add(t as usize * TILE_FLOATS + half as usize * (TILE_FLOATS / 2)) } as *const u8,
                TILE_BYTES / 2,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}
