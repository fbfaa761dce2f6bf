//! Persona: the numerics author. Signed counters counting down, `usize`/`u64` offsets cast
//! down to window addresses, `core::cmp::min`, an `Option` around a state, tiles visited in
//! reverse.

use core::cmp::min;

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;

/// The block's tile count as a signed number (0 for a block past the last tile).
#[inline(always)]
fn tiles_of_block(tiles: u32, block: u32, grid: u32) -> i32 {
    let remaining = tiles as i32 - block as i32;
    if remaining <= 0 { 0 } else { (remaining + grid as i32 - 1) / grid as i32 }
}

/// Both roles count a signed `remaining` down to zero; the tile index is rebuilt from it.
/// Thread 0 produces, warp 1 consumes, four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_nu_signed_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let total = tiles_of_block(tiles, block, grid);
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut remaining = total;
        while remaining > 0 {
            let t = block as i64 + (total - remaining) as i64 * grid as i64;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_offset(t as isize * TILE_FLOATS as isize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            remaining -= 1;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid as i32 - 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut remaining = total;
        while remaining > 0 {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            for row in 0..8usize {
                // SAFETY: after the wait; inside the stage.
                acc += unsafe { *stage.add(row * 32 + column) };
            }
            pipe.consumer_release(&state);
            state.advance();
            remaining -= 1;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}

/// The consumer's state lives in an `Option` taken at the end; warp 0 consumes, thread 63
/// produces; three stages at offset 1024, barriers at 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_nu_option_state(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    const RING: u32 = 1024;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().wrapping_add(RING as usize / 4);
    if tid == 63 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut slot: Option<PipelineState<S>> = Some(PipelineState::new());
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            if let Some(state) = &mut slot {
                pipe.consumer_wait(state);
                let stage = ring.wrapping_add(state.index() as usize * TILE_FLOATS);
                for row in 0..8usize {
                    // SAFETY: after the wait; inside the stage.
                    acc += unsafe { *stage.add(row * 32 + tid as usize) };
                }
                pipe.consumer_release(state);
                state.advance();
            }
            t += grid;
        }
        let _ = slot.take();
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + tid as usize) = acc };
    }
}

/// Offsets computed in `u64`/`usize` and cast down to 32-bit window addresses; the producer
/// fills `min(stages, count)` stages in a prologue, then refills one per consumed tile. Thread 0
/// produces only, warp 1 consumes. Five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_nu_wide_offsets_min_prologue(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 5;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address() as u64;
    let smem = dynamic_shared_base::<f32>();
    let barriers = (window + S as u64 * TILE_BYTES as u64) as u32;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x() as usize;
    let grid = grid_dim_x() as usize;
    let count = if block < tiles as usize { (tiles as usize - block).div_ceil(grid) } else { 0 };
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let prologue = min(S as usize, count);
        let issue = |state: &mut PipelineState<S>, i: usize| {
            let t = block + i * grid;
            pipe.producer_acquire(state);
            pipe.producer_expect_tx(state, TILE_BYTES);
            let dst = (window + state.index() as u64 * TILE_BYTES as u64) as u32;
            bulk_copy_global_to_shared(dst, input.wrapping_add(t * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(state));
            state.advance();
        };
        for i in 0..prologue {
            issue(&mut state, i);
        }
        for i in prologue..count {
            issue(&mut state, i);
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..count {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            for row in 0..8usize {
                // SAFETY: after the wait; inside the stage.
                acc += unsafe { *stage.add(row * 32 + column) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block * 32 + column) = acc };
    }
}

/// The block's tiles visited last first (`(0..count).rev()`) by both roles; two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_nu_reverse_order(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = tiles_of_block(tiles, block, grid) as u32;
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        for i in (0..count).rev() {
            let t = (block + i * grid) as usize;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add(t * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (0..count).rev() {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            for row in 0..8usize {
                // SAFETY: after the wait; inside the stage.
                acc += unsafe { *stage.add(row * 32 + column) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}

/// BROKEN: the consumers start from `producer_start()` (phase 1): their first wait on each
/// fresh full barrier returns at once, so they read stages before the copies land, and their
/// phases stay one behind the producer's.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_nu_consumer_producer_phase(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let total = tiles_of_block(tiles, block, grid);
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut remaining = total;
        while remaining > 0 {
            let t = block as usize + (total - remaining) as usize * grid as usize;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add(t * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            remaining -= 1;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let mut state = PipelineState::<S>::producer_start();
        let mut acc = 0.0f32;
        let mut remaining = total;
        while remaining > 0 {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            for row in 0..8usize {
                // SAFETY: inside the stage.
                acc += unsafe { *stage.add(row * 32 + column) };
            }
            pipe.consumer_release(&state);
            state.advance();
            remaining -= 1;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}

/// BROKEN: the producer starts from `PipelineState::new()` (phase 0): its first acquire waits
/// for a completion of the fresh empty barrier that only a release could bring, and no tile has
/// been filled to release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_nu_producer_new_state(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = tiles_of_block(tiles, block, grid) as u32;
    if tid == 0 {
        let mut state = PipelineState::<S>::new();
        for i in 0..count {
            let t = (block + i * grid) as usize;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add(t * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..count {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            for row in 0..8usize {
                // SAFETY: after the wait; inside the stage.
                acc += unsafe { *stage.add(row * 32 + column) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}

/// BROKEN: the producer's countdown runs while `remaining >= 0` (one tile more than the
/// consumers' `> 0`): it copies a tile past the block's share (past the input's end for the last
/// blocks) into a stage nobody consumes, and its tail waits for a release that never comes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_nu_countdown_extra_tile(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let total = tiles_of_block(tiles, block, grid);
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut remaining = total;
        while remaining >= 0 {
            let t = block as usize + (total - remaining) as usize * grid as usize;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add(t * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            remaining -= 1;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut remaining = total;
        while remaining > 0 {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            for row in 0..8usize {
                // SAFETY: after the wait; inside the stage.
                acc += unsafe { *stage.add(row * 32 + column) };
            }
            pipe.consumer_release(&state);
            state.advance();
            remaining -= 1;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}
