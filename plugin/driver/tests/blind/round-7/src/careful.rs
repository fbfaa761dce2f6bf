//! The careful person: defensive checks, asserts, checked arithmetic and early returns.
#![allow(unsafe_op_in_unsafe_fn)]

use core::arch::nvptx::trap;

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_dim_x, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const S: u32 = 4;
const BLOCK: u32 = 64;
const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const RING_BYTES: u32 = S * TILE_BYTES;
const SHARED_BYTES: u32 = 8192;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

const _: () = assert!(RING_BYTES + pipeline_barrier_bytes(S) <= SHARED_BYTES);

/// Checks the launch geometry first (a uniform early return), counts its tiles up front and
/// runs a counted loop in both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_careful_checked_geometry(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    if block_dim_x() != BLOCK || grid_dim_x() == 0 {
        return;
    }
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let stride = grid_dim_x();
    let mine = if first < tiles { (tiles - first).div_ceil(stride) } else { 0 };
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        for i in 0..mine {
            let t = first + i * stride;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(tid as usize + 32 * k);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(first as usize * 32 + tid as usize) = acc;
    }
}

/// Checked arithmetic on every offset; a failed check traps.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_careful_checked_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let Some(bars) = window.checked_add(RING_BYTES) else {
        trap();
    };
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            let Some(offset) = (t as usize).checked_mul(TILE_FLOATS) else {
                trap();
            };
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(offset).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t = match t.checked_add(grid_dim_x()) {
                Some(next) => next,
                None => break,
            };
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(tid as usize + 32 * k);
            }
            pipe.consumer_release(&state);
            state.advance();
            t = match t.checked_add(grid_dim_x()) {
                Some(next) => next,
                None => break,
            };
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// Asserts on the stage index and the column inside the loops (a failed assert traps).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_careful_asserted_indices(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    assert!(tid < BLOCK);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            assert!(state.index() < S);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let col = tid as usize;
        assert!(col < 32);
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            assert!(state.index() < S);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                let i = col + 32 * k;
                assert!(i < TILE_FLOATS);
                acc += *stage.add(i);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// Threads without a role leave right after the block barrier; each role returns when done.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_careful_idle_return(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    if tid > PRODUCER {
        return;
    }
    let pipe = Pipeline::<S>::attach(bars);
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
        return;
    }
    let mut state = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        let stage = smem.add(state.index() as usize * TILE_FLOATS);
        for k in 0..8 {
            acc += *stage.add(tid as usize + 32 * k);
        }
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    out.add(block_idx_x() as usize * 32 + tid as usize).write(acc);
}

/// BROKEN: "release on every path": the release inside the check and the one after it both
/// run, so each consumer arrives twice per stage and the producer refills a stage early.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_careful_double_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            let mut s = 0.0f32;
            for k in 0..8 {
                s += *stage.add(tid as usize + 32 * k);
            }
            if s.is_finite() {
                acc += s;
                pipe.consumer_release(&state);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// BROKEN: the block barrier after `init` sits inside the consumers' branch only: warp 1
/// (with the producer) never reaches it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_careful_barrier_in_consumer_branch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    let pipe = Pipeline::<S>::attach(bars);
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        barrier();
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(tid as usize + 32 * k);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// BROKEN: the *empty* barriers are initialised for "every thread but the producer"
/// (`BLOCK - 1` = 63) while only the 32 threads of warp 0 release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_careful_release_count_63(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, BLOCK - 1);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(tid as usize + 32 * k);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// BROKEN: the consumers' bound is "defensively" `tiles.saturating_sub(grid_dim_x())`, so they
/// stop one tile short of the producer: the last stage is never released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_careful_consumer_bound_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let last = tiles.saturating_sub(grid_dim_x());
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < last {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(tid as usize + 32 * k);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}
