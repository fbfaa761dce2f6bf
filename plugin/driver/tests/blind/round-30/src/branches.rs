//! Control flow in the kernel body: `match` on the role (tuples, guards, ranges), early returns
//! for idle threads, `let … else`, labelled breaks out of a pass over the ring, shadowing, and
//! layouts handed around as tuples.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;

/// The launch declarations, the barriers at `bars` initialised by thread `by`, and the window's
/// two addresses.
#[inline(always)]
unsafe fn setup<const S: u32>(bars: u32, by: u32) -> (Pipeline<S>, u32, *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == by { Pipeline::<S>::init(window + bars, 32) } else { Pipeline::<S>::attach(window + bars) };
    barrier();
    (pipe, window, dynamic_shared_base::<f32>())
}

#[inline(always)]
unsafe fn feed<const S: u32>(pipe: &Pipeline<S>, ring: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let from = input.add(t as usize * TILE_FLOATS) as *const u8;
        bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(state);
}

// ---- correct ----

/// `match (warp_id(), lane_id())`: lane 0 of warp 1 produces, warp 0 consumes by lane.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_match_warp_lane(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<4>(0, 0);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    match (warp_id(), lane_id()) {
        (1, 0) => feed(&pipe, window + 1024, input, tiles),
        (0, lane) => {
            let column = lane as usize;
            let mut state = PipelineState::<4>::new();
            let mut sum = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(256 + state.index() as usize * TILE_FLOATS);
                for row in 0..8 {
                    sum += *stage.add(row * 32 + column);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            *out.add(block as usize * 32 + column) = sum;
        }
        _ => {}
    }
}

/// Idle threads return right after the setup barrier; the producer returns after its tail.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_early_returns(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<3>(3072, 0);
    let tid = thread_idx_x();
    if tid != 0 && tid < 32 {
        return;
    }
    if tid == 0 {
        feed(&pipe, window, input, tiles);
        return;
    }
    let column = (tid - 32) as usize;
    let mut state = PipelineState::<3>::new();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        let stage = smem.add(state.index() as usize * TILE_FLOATS);
        for row in 0..8 {
            sum += *stage.add(row * 32 + column);
        }
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    *out.add(block_idx_x() as usize * 32 + column) = sum;
}

/// The consumers walk the ring in passes of five stages and leave both loops with a labelled
/// `break` once the block's tiles are done.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_labelled_passes(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    let (pipe, window, smem) = setup::<STAGES>(0, 63);
    let tid = thread_idx_x();
    if tid == 63 {
        feed(&pipe, window + 3072, input, tiles);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        'tiles: loop {
            for _ in 0..STAGES {
                if t >= tiles {
                    break 'tiles;
                }
                pipe.consumer_wait(&state);
                let stage = smem.add(768 + state.index() as usize * TILE_FLOATS);
                for row in 0..8 {
                    sum += *stage.add(row * 32 + column);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// Names reused by shadowing as a value changes type or meaning.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_shadowing(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<2>(2048, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        feed(&pipe, window, input, tiles);
    } else if tid < 32 {
        let column = tid;
        let column = column as usize;
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = state.index() as usize;
            let stage = smem.add(stage * TILE_FLOATS) as *const [f32; 32];
            for row in 0..8 {
                let row = &*stage.add(row);
                sum += row[column];
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        let block = block_idx_x() as usize;
        *out.add(block * 32 + column) = sum;
    }
}

/// The consumers' column, for threads that consume.
fn consumer_column(tid: u32) -> Option<usize> {
    (tid < 32).then_some(tid as usize)
}

/// `let Some(column) = … else { … }`: non-consumers split off (producer or idle) and return.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_let_else(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<6>(6144, 40);
    let tid = thread_idx_x();
    let Some(column) = consumer_column(tid) else {
        if tid == 40 {
            feed(&pipe, window, input, tiles);
        }
        return;
    };
    let mut state = PipelineState::<6>::new();
    let mut sum = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        let stage = smem.add(state.index() as usize * TILE_FLOATS);
        for row in 0..8 {
            sum += *stage.add(row * 32 + column);
        }
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    *out.add(block_idx_x() as usize * 32 + column) = sum;
}

/// A `match` with a guard for the producer (thread 7) and a range for the consumers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_guard_and_range(input: *const f32, tiles: u32, out: *mut f32) {
    const PRODUCER: u32 = 7;
    let (pipe, window, smem) = setup::<7>(0, PRODUCER);
    match thread_idx_x() {
        p if p == PRODUCER => feed(&pipe, window + 1024, input, tiles),
        c @ 32..=63 => {
            let column = (c - 32) as usize;
            let mut state = PipelineState::<7>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(256 + state.index() as usize * TILE_FLOATS);
                for row in 0..8 {
                    sum += *stage.add(row * 32 + column);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * 32 + column) = sum;
        }
        _ => (),
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_bad_break_on_last(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    let (pipe, window, smem) = setup::<STAGES>(0, 63);
    let tid = thread_idx_x();
    if tid == 63 {
        feed(&pipe, window + 3072, input, tiles);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        'tiles: loop {
            for _ in 0..STAGES {
                if t >= tiles {
                    break 'tiles;
                }
                pipe.consumer_wait(&state);
                let stage = smem.add(768 + state.index() as usize * TILE_FLOATS);
                for row in 0..8 {
                    sum += *stage.add(row * 32 + column);
                }
                t += grid_dim_x();
                if t >= tiles {
                    break 'tiles;
                }
                pipe.consumer_release(&state);
                state.advance();
            }
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_bad_shadowed_stage(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<2>(2048, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        feed(&pipe, window, input, tiles);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            let stage = stage.add(column);
            for row in 0..8 {
                sum += *stage.add(row * 32 + column);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// Where the barriers and the ring go: `(barriers, ring)`, window bytes.
const fn layout(stages: u32) -> (u32, u32) {
    (8192 - 16 * stages, 0)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_bad_layout_tuple(input: *const f32, tiles: u32, out: *mut f32) {
    let (ring, bars) = layout(4);
    let (pipe, window, smem) = setup::<4>(bars, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        feed(&pipe, window + ring, input, tiles);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add((ring / 4) as usize + state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum += *stage.add(row * 32 + column);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_bad_shadowed_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<3>(3072, 0);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    // Tiles per block.
    let tiles = if block < tiles { (tiles - block).div_ceil(grid) } else { 0 };
    if tid == 0 {
        let mut state = PipelineState::<3>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let from = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        for _ in 0..tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum += *stage.add(row * 32 + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_bad_barrier_then_advance(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<4>(4096, 0);
    let tid = thread_idx_x();
    match tid {
        0 => {
            let mut state = PipelineState::<4>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let barrier = pipe.producer_barrier(&state);
                state.advance();
                let from = input.add(t as usize * TILE_FLOATS) as *const u8;
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, from, TILE_BYTES, barrier);
                t += grid_dim_x();
            }
            pipe.producer_tail(state);
        }
        32..=63 => {
            let column = (tid - 32) as usize;
            let mut state = PipelineState::<4>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(state.index() as usize * TILE_FLOATS);
                for row in 0..8 {
                    sum += *stage.add(row * 32 + column);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * 32 + column) = sum;
        }
        _ => {}
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_br_bad_rows_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<4>(0, 0);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    match (warp_id(), lane_id()) {
        (1, 0) => feed(&pipe, window + 1024, input, tiles),
        (0, lane) => {
            let column = lane as usize;
            let mut state = PipelineState::<4>::new();
            let mut sum = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(256 + state.index() as usize * TILE_FLOATS);
                for row in 1..8 {
                    sum += *stage.add(row * 32 + column);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            *out.add(block as usize * 32 + column) = sum;
        }
        _ => {}
    }
}
