//! Pipeline kernels about how states are held and stepped: early returns per role, copies of a
//! state taken before advancing, `mem::replace`, states inside tuples, and the order of the
//! producer's steps around them.
#![allow(unsafe_op_in_unsafe_fn)]

use core::mem;

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch,
    thread_idx_x,
};
use crate::{COLS, ROWS, TILE, TILE_BYTES};

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// Idle threads and the producer leave with `return`; what remains of the function is the
/// consumers' code.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_state_early_returns(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    if tid > 32 {
        return;
    }
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
        return;
    }
    let ring = dynamic_shared_base::<f32>();
    let mut st = PipelineState::<S>::new();
    let mut sum = 0.0f32;
    let mut tile = block;
    while tile < tiles {
        pipe.consumer_wait(&st);
        let stage = ring.add(st.index() as usize * TILE);
        for r in 0..ROWS {
            sum += *stage.add(r * COLS + tid as usize);
        }
        pipe.consumer_release(&st);
        st.advance();
        tile += grid;
    }
    *out.add(block as usize * COLS + tid as usize) = sum;
}

/// Both roles copy their state into `slot`, advance the state at once and work on the copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_state_copy_then_advance(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            let slot = state;
            state.advance();
            pipe.producer_acquire(&slot);
            pipe.producer_expect_tx(&slot, TILE_BYTES);
            bulk_copy_global_to_shared(window + slot.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&slot));
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            let slot = state;
            state.advance();
            pipe.consumer_wait(&slot);
            let stage = ring.add(slot.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&slot);
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// The producer computes the next state first and swaps it in with `mem::replace`, working on
/// the value it took out.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_state_mem_replace(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 63 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            let mut next = state;
            next.advance();
            let cur = mem::replace(&mut state, next);
            pipe.producer_acquire(&cur);
            pipe.producer_expect_tx(&cur, TILE_BYTES);
            bulk_copy_global_to_shared(window + cur.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&cur));
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}

/// Each role keeps its state with its tile counter (and the consumers their sum) in a tuple.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_state_tuple_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut cur = (PipelineState::<S>::producer_start(), block);
        while cur.1 < tiles {
            pipe.producer_acquire(&cur.0);
            pipe.producer_expect_tx(&cur.0, TILE_BYTES);
            bulk_copy_global_to_shared(window + cur.0.index() * TILE_BYTES, input.add(cur.1 as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&cur.0));
            cur.0.advance();
            cur.1 += grid;
        }
        pipe.producer_tail(cur.0);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut cur = (PipelineState::<S>::new(), block, 0.0f32);
        while cur.1 < tiles {
            pipe.consumer_wait(&cur.0);
            let stage = ring.add(cur.0.index() as usize * TILE);
            for r in 0..ROWS {
                cur.2 += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&cur.0);
            cur.0.advance();
            cur.1 += grid;
        }
        *out.add(block as usize * COLS + c) = cur.2;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// The producer moved its acquire after the copy ("overlap the wait with the copy"): every
/// refill is written before the consumers have released the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_state_bad_acquire_after_copy(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            pipe.producer_acquire(&st);
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// The producer advances right after `expect_tx` and issues the copy from the advanced state:
/// the bytes go to the next stage's barrier and the announced stage never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_state_bad_advance_before_copy(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            st.advance();
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}

/// Thread 0 is the producer and also one of warp 0's consumers: it runs its whole producer loop
/// first, and with eight tiles on four stages waits for a release only it would make.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_state_bad_producer_also_consumes(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    }
    if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}

/// The consumers declare their state inside the tile loop, so every tile waits on stage 0 with
/// phase 0 again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_state_bad_fresh_state_each_tile(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            let mut st = PipelineState::<S>::new();
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}
