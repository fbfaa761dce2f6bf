//! The newcomer: patterns copied from the device API's docs, with small variations.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;
const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const RING_BYTES: u32 = STAGES * TILE_BYTES;
const CONSUMERS: u32 = 32;

/// The docs' shape: barriers after the ring, thread 32 produces, warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_newcomer_basic(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
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

/// Barriers first (window + 0), the ring 1 KiB further; two stages; `init` or `attach` chosen
/// per thread into one variable.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_newcomer_init_or_attach(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    const RING_OFFSET: u32 = 1024;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<S>::init(window, CONSUMERS) } else { Pipeline::<S>::attach(window) };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_OFFSET + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    }
    if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((RING_OFFSET + state.index() * TILE_BYTES) as usize).cast::<f32>();
            let mut k = 0;
            while k < 8 {
                acc += stage.add(tid as usize + 32 * k).read();
                k += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        out.add(block_idx_x() as usize * 32 + tid as usize).write(acc);
    }
}

/// Thread 0 produces, warp 1 (threads 32..64) consumes; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_newcomer_producer_thread0(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + state.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(col + 32 * k);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// Both loops as `for` over a stepped range.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_newcomer_step_by_loops(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (block_idx_x()..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _t in (block_idx_x()..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(tid as usize + 32 * k);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// BROKEN: releases the stage, then reads it ("the release just marks it, I can still read").
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_newcomer_release_before_read(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            pipe.consumer_release(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(tid as usize + 32 * k);
            }
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// BROKEN: announces two tiles' bytes for a one-tile copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_newcomer_expect_double(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
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

/// BROKEN: thread 0 initialises the barriers, but no block barrier follows before use.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_newcomer_no_barrier_after_init(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, CONSUMERS) } else { Pipeline::<STAGES>::attach(bars) };
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
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

/// BROKEN: the producer starts from `PipelineState::new()` (parity 0), so its first acquire
/// waits for a release that needs the copy it has not issued yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_newcomer_producer_uses_new(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
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
