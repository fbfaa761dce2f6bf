//! The Rust enthusiast: `Option`, `match`, `let else`, iterator adaptors and closures.
#![allow(unsafe_op_in_unsafe_fn)]

use core::slice;

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const S: u32 = 4;
const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const RING_BYTES: u32 = S * TILE_BYTES;

/// The column sum as an iterator over a slice view of the stage; roles by `match`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_rustacean_iter_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    match tid {
        32 => {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(t as usize * TILE_FLOATS).cast(),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(state);
        }
        col @ 0..=31 => {
            let mut state = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let tile = slice::from_raw_parts(smem.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
                acc += tile.iter().skip(col as usize).step_by(32).sum::<f32>();
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * 32 + col as usize) = acc;
        }
        _ => {}
    }
}

/// Each role's tile step is a closure.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_rustacean_closures(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let produce = |state: &mut PipelineState<S>, t: u32| {
        pipe.producer_acquire(state);
        pipe.producer_expect_tx(state, TILE_BYTES);
        let src = unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8;
        bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
        state.advance();
    };
    let consume = |state: &mut PipelineState<S>, col: usize| -> f32 {
        pipe.consumer_wait(state);
        let stage = unsafe { smem.add(state.index() as usize * TILE_FLOATS) };
        let s = (0..8).map(|k| unsafe { *stage.add(col + 32 * k) }).sum::<f32>();
        pipe.consumer_release(state);
        state.advance();
        s
    };
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            produce(&mut state, t);
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += consume(&mut state, tid as usize);
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// Thread 0 produces and returns; `let else` turns the rest into warp 1's columns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_rustacean_let_else_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS).cast::<u8>();
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
        return;
    }
    let Some(col) = tid.checked_sub(32) else {
        return;
    };
    let col = col as usize;
    let mut state = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        let tile = slice::from_raw_parts(smem.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
        for chunk in tile.chunks_exact(32) {
            acc += chunk[col];
        }
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    *out.add(block_idx_x() as usize * 32 + col) = acc;
}

/// Tile loops as `for_each` / `fold` over a stepped range; the state captured by the closure.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_rustacean_fold_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let mine = || (block_idx_x()..tiles).step_by(grid_dim_x() as usize);
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        mine().for_each(|t| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = unsafe { input.add(t as usize * TILE_FLOATS) }.cast::<u8>();
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid < 32 {
        let col = tid as usize;
        let mut state = PipelineState::<S>::new();
        let acc = mine().fold(0.0f32, |acc, _t| {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(state.index() as usize * TILE_FLOATS) };
            let mut s = 0.0f32;
            for k in 0..8 {
                s += unsafe { *stage.add(col + 32 * k) };
            }
            pipe.consumer_release(&state);
            state.advance();
            acc + s
        });
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// BROKEN: a lazy iterator over the stage is built, the stage released, then the iterator
/// summed: the reads happen after the release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_rustacean_lazy_iter_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    match tid {
        32 => {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let src = input.add(t as usize * TILE_FLOATS).cast::<u8>();
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(state);
        }
        col @ 0..=31 => {
            let mut state = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let tile = slice::from_raw_parts(smem.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
                let column = tile.iter().skip(col as usize).step_by(32);
                pipe.consumer_release(&state);
                acc += column.sum::<f32>();
                state.advance();
                t += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * 32 + col as usize) = acc;
        }
        _ => {}
    }
}

/// BROKEN: "states are cheap `Copy` values": the consumer takes a fresh `default()` state per
/// tile, so it always waits on stage 0's first phase and releases only stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_rustacean_default_each_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS).cast::<u8>();
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let col = tid as usize;
        let acc: f32 = (block_idx_x()..tiles)
            .step_by(grid_dim_x() as usize)
            .map(|_| {
                let state = PipelineState::<S>::default();
                pipe.consumer_wait(&state);
                let stage = unsafe { smem.add(state.index() as usize * TILE_FLOATS) };
                let s = (0..8).map(|k| unsafe { *stage.add(col + 32 * k) }).sum::<f32>();
                pipe.consumer_release(&state);
                s
            })
            .sum();
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// BROKEN: on the last tile the `let else` breaks out after reading but before the release:
/// the last stage is never released and the producer's tail waits for ever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_rustacean_let_else_break_unreleased(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let stride = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS).cast::<u8>();
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += stride;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let col = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            acc += (0..8).map(|k| *stage.add(col + 32 * k)).sum::<f32>();
            let Some(next) = t.checked_add(stride).filter(|&n| n < tiles) else {
                break;
            };
            pipe.consumer_release(&state);
            state.advance();
            t = next;
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// BROKEN: the producer side is "warp 1" (`(32..64).contains`), so 32 threads each arrive
/// with `expect_tx` on a *full* barrier initialised for one arrival and copy every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_rustacean_producer_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if (32..64).contains(&tid) {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS).cast::<u8>();
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else {
        let col = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let tile = slice::from_raw_parts(smem.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            acc += tile.iter().skip(col).step_by(32).copied().sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}
