//! Round 35, module `lag`: consumers that hold more than one stage at a time, in the manner of
//! CUTLASS's mainloop (which keeps the previous stage until the next one has been waited for, so
//! that work still reading it can finish). The held stages are kept as values of the consumer's
//! `PipelineState`, moved around with `Option::replace`, `Option::take` and
//! `core::mem::replace`: release the previous stage after waiting for (and reading) the next,
//! hold two stages while summing a pair of tiles, and release two tiles behind.
//!
//! Layout (every kernel): the barriers at window byte 0, the ring packed right after them at
//! `pipeline_barrier_bytes(STAGES)`. The producer is one plain loop (`produce`), called by one
//! thread. Launch: 64 threads, 8192 bytes of dynamic shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{
    Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes,
};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const BARRIERS: u32 = 0;

/// Tiles of this block: `block, block + grid, …` below `tiles`.
#[inline(always)]
fn tiles_of_block(block: u32, grid: u32, tiles: u32) -> u32 {
    if block < tiles {
        (tiles - block).div_ceil(grid)
    } else {
        0
    }
}

/// The state one tile further on (the argument is a copy).
#[inline(always)]
fn advanced<const S: u32>(mut state: PipelineState<S>) -> PipelineState<S> {
    state.advance();
    state
}

/// The producer: the block's tiles, one per stage, into the ring at window byte `ring`.
#[inline(always)]
unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, ring: u32, input: *const f32, mine: u32) {
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut state = PipelineState::<S>::producer_start();
    for k in 0..mine {
        let tile = block + k * grid;
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring + state.index() * TILE_BYTES,
            input.add(tile as usize * TILE_FLOATS) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
    }
    pipe.producer_tail(state);
}

/// Column `column` of stage `index` of the ring at window byte `ring_offset`, summed over its rows.
#[inline(always)]
unsafe fn column_sum(ring_offset: u32, index: u32, column: usize) -> f32 {
    let stage = dynamic_shared_base::<f32>().add((ring_offset + index * TILE_BYTES) as usize / 4);
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += *stage.add(row * COLS + column);
    }
    sum
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Two stages. The consumers keep the previous tile's state in an `Option` and release it
/// (`held.replace(current)`) only after the current tile has been waited for and read; the
/// last held stage is released after the loop (`held.take()`). Warp 0 consumes, thread 32
/// produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lag_option_replace(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    const RING: u32 = BARRIERS + pipeline_barrier_bytes(STAGES);
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if tid == 32 {
        produce(&pipe, window + RING, input, mine);
    } else if tid < 32 {
        let column = tid as usize;
        let mut current = PipelineState::<STAGES>::new();
        let mut held: Option<PipelineState<STAGES>> = None;
        let mut sum = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&current);
            sum += column_sum(RING, current.index(), column);
            if let Some(previous) = held.replace(current) {
                pipe.consumer_release(&previous);
            }
            current.advance();
        }
        if let Some(previous) = held.take() {
            pipe.consumer_release(&previous);
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Four stages. The consumers take the tiles two at a time and hold both stages while they sum
/// them: `first = mem::replace(&mut state, next)` with `next = advanced(state)`, the same for
/// `second`, wait for both, read both, release both; an odd last tile is taken alone.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lag_pairs_held(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = BARRIERS + pipeline_barrier_bytes(STAGES);
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if tid == 32 {
        produce(&pipe, window + RING, input, mine);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut left = mine;
        while left >= 2 {
            let next = advanced(state);
            let first = core::mem::replace(&mut state, next);
            let next = advanced(state);
            let second = core::mem::replace(&mut state, next);
            pipe.consumer_wait(&first);
            pipe.consumer_wait(&second);
            sum +=
                column_sum(RING, first.index(), column) + column_sum(RING, second.index(), column);
            pipe.consumer_release(&first);
            pipe.consumer_release(&second);
            left -= 2;
        }
        if left == 1 {
            pipe.consumer_wait(&state);
            sum += column_sum(RING, state.index(), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Three stages. The first tile is read before the loop; from then on each pass waits for and
/// reads the current tile, releases the previous one, and moves on with
/// `previous = mem::replace(&mut current, next)`, `next = advanced(current)`. Warp 1 consumes,
/// thread 0 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lag_replace_chain(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 3;
    const RING: u32 = BARRIERS + pipeline_barrier_bytes(STAGES);
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if tid == 0 {
        produce(&pipe, window + RING, input, mine);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut current = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        if mine > 0 {
            pipe.consumer_wait(&current);
            sum += column_sum(RING, current.index(), column);
            let next = advanced(current);
            let mut previous = core::mem::replace(&mut current, next);
            for _ in 1..mine {
                pipe.consumer_wait(&current);
                sum += column_sum(RING, current.index(), column);
                pipe.consumer_release(&previous);
                let next = advanced(current);
                previous = core::mem::replace(&mut current, next);
            }
            pipe.consumer_release(&previous);
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Three stages, the consumers two tiles behind: the states of the last two tiles read are
/// kept in `newer` and `older`, shifted with nested `mem::replace` after each read, and the one
/// that falls out is released; the two still held are released after the loop. Holding three
/// stages at once needs three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lag_two_behind(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING: u32 = BARRIERS + pipeline_barrier_bytes(STAGES);
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if tid == 32 {
        produce(&pipe, window + RING, input, mine);
    } else if tid < 32 {
        let column = tid as usize;
        let mut current = PipelineState::<STAGES>::new();
        let mut newer: Option<PipelineState<STAGES>> = None;
        let mut older: Option<PipelineState<STAGES>> = None;
        let mut sum = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&current);
            sum += column_sum(RING, current.index(), column);
            let retired =
                core::mem::replace(&mut older, core::mem::replace(&mut newer, Some(current)));
            if let Some(done) = retired {
                pipe.consumer_release(&done);
            }
            current.advance();
        }
        if let Some(done) = older {
            pipe.consumer_release(&done);
        }
        if let Some(done) = newer {
            pipe.consumer_release(&done);
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// Broken: as `r35_lag_option_replace` with three stages, but the ring is packed after
/// `8 * STAGES` bytes of barriers (one mbarrier per stage counted, not two): the ring starts at
/// window byte 24, so every bulk copy's destination is misaligned (16 bytes required) and stage
/// 0 covers the empty barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lag_bad_ring_after_half_barriers(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 3;
    const RING: u32 = BARRIERS + 8 * STAGES;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if tid == 32 {
        produce(&pipe, window + RING, input, mine);
    } else if tid < 32 {
        let column = tid as usize;
        let mut current = PipelineState::<STAGES>::new();
        let mut held: Option<PipelineState<STAGES>> = None;
        let mut sum = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&current);
            sum += column_sum(RING, current.index(), column);
            if let Some(previous) = held.replace(current) {
                pipe.consumer_release(&previous);
            }
            current.advance();
        }
        if let Some(previous) = held.take() {
            pipe.consumer_release(&previous);
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Broken: a software-pipelined variant of `r35_lag_option_replace`: each tile is summed one
/// pass late, after the wait for the next tile (`pending.replace(current)` hands back the tile
/// to sum), but the release stayed where the plain loop had it, right after the wait. By the time
/// a tile is summed its stage has been released for a whole pass and the producer is refilling
/// it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lag_bad_deferred_read_after_release(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    const RING: u32 = BARRIERS + pipeline_barrier_bytes(STAGES);
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if tid == 32 {
        produce(&pipe, window + RING, input, mine);
    } else if tid < 32 {
        let column = tid as usize;
        let mut current = PipelineState::<STAGES>::new();
        let mut pending: Option<PipelineState<STAGES>> = None;
        let mut sum = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&current);
            if let Some(previous) = pending.replace(current) {
                sum += column_sum(RING, previous.index(), column);
            }
            pipe.consumer_release(&current);
            current.advance();
        }
        if let Some(previous) = pending.take() {
            sum += column_sum(RING, previous.index(), column);
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Broken: `r35_lag_two_behind` with two stages. A consumer two tiles behind holds three stages
/// when it waits for the third tile, whose stage is still the one it holds from the first: the
/// producer waits for that release and the consumers wait for that copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lag_bad_two_behind_two_stages(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    const RING: u32 = BARRIERS + pipeline_barrier_bytes(STAGES);
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if tid == 32 {
        produce(&pipe, window + RING, input, mine);
    } else if tid < 32 {
        let column = tid as usize;
        let mut current = PipelineState::<STAGES>::new();
        let mut newer: Option<PipelineState<STAGES>> = None;
        let mut older: Option<PipelineState<STAGES>> = None;
        let mut sum = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&current);
            sum += column_sum(RING, current.index(), column);
            let retired =
                core::mem::replace(&mut older, core::mem::replace(&mut newer, Some(current)));
            if let Some(done) = retired {
                pipe.consumer_release(&done);
            }
            current.advance();
        }
        if let Some(done) = older {
            pipe.consumer_release(&done);
        }
        if let Some(done) = newer {
            pipe.consumer_release(&done);
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Broken: as `r35_lag_option_replace`, but the consumers' current state is created with
/// `PipelineState::producer_start()` (phase 1): the first wait on each fresh full barrier
/// returns at once, before its copy landed, and from then on every wait is one phase early.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lag_bad_consumer_starts_at_producer_phase(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    const RING: u32 = BARRIERS + pipeline_barrier_bytes(STAGES);
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if tid == 32 {
        produce(&pipe, window + RING, input, mine);
    } else if tid < 32 {
        let column = tid as usize;
        let mut current = PipelineState::<STAGES>::producer_start();
        let mut held: Option<PipelineState<STAGES>> = None;
        let mut sum = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&current);
            sum += column_sum(RING, current.index(), column);
            if let Some(previous) = held.replace(current) {
                pipe.consumer_release(&previous);
            }
            current.advance();
        }
        if let Some(previous) = held.take() {
            pipe.consumer_release(&previous);
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}
