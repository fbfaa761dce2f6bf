//! Round 35, module `brk`: control flow written with `loop {}` and explicit exits. Tile loops
//! test their end at the top (`if tile >= tiles { break }`), leave two nested loops at once
//! with a labelled `break 'tiles`, or test at the bottom (a do-while) inside a guard; row loops
//! are `loop`s too; idle threads and finished roles leave with an early `return`.
//!
//! Layout (every kernel): the barriers at window byte 0, the ring at the end of the window
//! (`8192 - STAGES * 1024`), one tile per stage. Launch: 64 threads, 8192 bytes of dynamic
//! shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const BARRIERS: u32 = 0;

/// Window byte of stage 0: the ring ends where the window ends.
const fn ring_offset(stages: u32) -> u32 {
    SHARED_BYTES - stages * TILE_BYTES
}

/// Generic pointer to the first float of stage `index` of a ring of `stages` stages.
#[inline(always)]
unsafe fn stage_floats(stages: u32, index: u32) -> *const f32 {
    dynamic_shared_base::<f32>().add(((ring_offset(stages) + index * TILE_BYTES) / 4) as usize)
        as *const f32
}

/// Column `column` of a stage summed over its rows, in a `loop` that breaks after the last row.
#[inline(always)]
unsafe fn column_sum(stage: *const f32, column: usize) -> f32 {
    let mut sum = 0.0f32;
    let mut row = 0;
    loop {
        if row == ROWS {
            break;
        }
        sum += *stage.add(row * COLS + column);
        row += 1;
    }
    sum
}

/// Thread 0 initialises the barriers; everybody else attaches; the block meets.
#[inline(always)]
fn setup<const S: u32>(tid: u32, window: u32) -> Pipeline<S> {
    let pipe = if tid == 0 {
        Pipeline::<S>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<S>::attach(window + BARRIERS)
    };
    barrier();
    pipe
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Two stages; both roles `loop` over the block's tiles and `break` at the top once the tile
/// is past the end. Warp 0 consumes, thread 32 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_brk_test_at_top(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<STAGES>(tid, window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_offset(STAGES) + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            sum += column_sum(stage_floats(STAGES, state.index()), column);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Four stages; each role runs laps of `STAGES` tiles in an inner `for` and leaves both loops
/// with `break 'tiles` at the block's last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_brk_labelled_laps(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 4;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<STAGES>(tid, window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        'tiles: loop {
            for _ in 0..STAGES {
                if tile >= tiles {
                    break 'tiles;
                }
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + ring_offset(STAGES) + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        'tiles: loop {
            for _ in 0..STAGES {
                if tile >= tiles {
                    break 'tiles;
                }
                pipe.consumer_wait(&state);
                sum += column_sum(stage_floats(STAGES, state.index()), column);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Three stages; after the block barrier the idle lanes of warp 1 `return`, the producer (lane
/// 0 of warp 1) returns after its tail, and what is left of the kernel is warp 0's consumer loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_brk_idle_lanes_return(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 3;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<STAGES>(tid, window);
    if warp_id() == 1 && lane_id() != 0 {
        return;
    }
    let block = block_idx_x();
    let grid = grid_dim_x();
    if warp_id() == 1 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_offset(STAGES) + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
        return;
    }
    let column = lane_id() as usize;
    let mut state = PipelineState::<STAGES>::new();
    let mut sum = 0.0f32;
    let mut tile = block;
    loop {
        if tile >= tiles {
            break;
        }
        pipe.consumer_wait(&state);
        sum += column_sum(stage_floats(STAGES, state.index()), column);
        pipe.consumer_release(&state);
        state.advance();
        tile += grid;
    }
    *out.add(block as usize * COLS + column) = sum;
}

/// One stage; both roles test at the bottom of the pass (a do-while), inside a guard that the
/// block has a tile at all; a block without tiles writes zeros.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_brk_do_while_guarded(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 1;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<STAGES>(tid, window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        if block < tiles {
            let mut tile = block;
            loop {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + ring_offset(STAGES) + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
                if tile >= tiles {
                    break;
                }
            }
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        if block < tiles {
            let mut tile = block;
            loop {
                pipe.consumer_wait(&state);
                sum += column_sum(stage_floats(STAGES, state.index()), column);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
                if tile >= tiles {
                    break;
                }
            }
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// Broken: as `r35_brk_test_at_top`, but the producer breaks on `tile > tiles`: in a block
/// whose tiles reach `tiles` exactly (block 0 at 64 tiles) it copies one tile more, from past
/// the input, and its tail waits for a release the consumers never make.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_brk_bad_producer_breaks_past_end(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<STAGES>(tid, window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        loop {
            if tile > tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_offset(STAGES) + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            sum += column_sum(stage_floats(STAGES, state.index()), column);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Broken: as `r35_brk_test_at_top`, but the consumers compute their stage pointer once,
/// before the `loop`: every tile is read from stage 0 whichever stage was waited for, and the
/// odd tiles' reads meet the producer's refill of stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_brk_bad_stage_pointer_before_loop(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<STAGES>(tid, window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_offset(STAGES) + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let stage = stage_floats(STAGES, state.index());
        let mut sum = 0.0f32;
        let mut tile = block;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            sum += column_sum(stage, column);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Broken: as `r35_brk_idle_lanes_return`, but the results go out through the producer lane:
/// the consumers park their sums in 32 floats of scratch at window byte 1024 and return, and
/// the producer, taking its `producer_tail` for "every consumer is done", copies the scratch to
/// `out` with no block barrier. The tail returns once the last stages are released, which the
/// consumers do before they store their sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_brk_bad_tail_taken_for_barrier(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 3;
    const SCRATCH: usize = 1024;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<STAGES>(tid, window);
    if warp_id() == 1 && lane_id() != 0 {
        return;
    }
    let block = block_idx_x();
    let grid = grid_dim_x();
    let scratch = dynamic_shared_base::<f32>().add(SCRATCH / 4);
    if warp_id() == 1 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_offset(STAGES) + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
        let mut column = 0;
        loop {
            if column == COLS {
                break;
            }
            *out.add(block as usize * COLS + column) = *scratch.add(column);
            column += 1;
        }
        return;
    }
    let column = lane_id() as usize;
    let mut state = PipelineState::<STAGES>::new();
    let mut sum = 0.0f32;
    let mut tile = block;
    loop {
        if tile >= tiles {
            break;
        }
        pipe.consumer_wait(&state);
        sum += column_sum(stage_floats(STAGES, state.index()), column);
        pipe.consumer_release(&state);
        state.advance();
        tile += grid;
    }
    *scratch.add(column) = sum;
}

/// Broken: as `r35_brk_test_at_top`, but the consumers' row loop breaks on `row > ROWS`: it
/// reads nine rows, the ninth one past the stage: stage 0's ninth row is stage 1's first, and
/// stage 1's lies past the end of the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_brk_bad_row_loop_reads_nine(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<STAGES>(tid, window);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_offset(STAGES) + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        loop {
            if tile >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            let stage = stage_floats(STAGES, state.index());
            let mut row = 0;
            loop {
                if row > ROWS {
                    break;
                }
                sum += *stage.add(row * COLS + column);
                row += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}
