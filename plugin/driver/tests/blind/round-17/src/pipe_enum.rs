//! Pipeline kernels that pick roles, or walk a consumer's steps, with enums and `match`.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x, warp_id,
};

const STAGES: u32 = 4;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

enum Role {
    Consumer(usize),
    Producer,
    Idle,
}

#[inline(always)]
fn role_of(tid: u32) -> Role {
    if tid < WARP {
        Role::Consumer(tid as usize)
    } else if tid == WARP {
        Role::Producer
    } else {
        Role::Idle
    }
}

/// The producer loop of this family.
#[inline(always)]
unsafe fn load_all(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<STAGES>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + state.index() * TILE_BYTES,
            unsafe { input.add(tile as usize * TILE_FLOATS) } as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        tile += grid_dim_x();
    }
    pipe.producer_tail(state);
}

/// Roles from `role_of(tid)`, run by a `match`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_enum_role_match(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    match role_of(tid) {
        Role::Consumer(column) => unsafe {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + column);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add(block as usize * COLS + column) = acc;
        },
        Role::Producer => unsafe { load_all(&pipe, window, input, tiles) },
        Role::Idle => {}
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Step {
    Wait,
    Read,
    Release,
    Done,
}

/// The consumer as a small state machine: wait, read, release, until the tiles run out.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_enum_step_machine(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == WARP {
        unsafe { load_all(&pipe, window, input, tiles) };
    } else if tid < WARP {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = block;
        let mut step = if tile < tiles { Step::Wait } else { Step::Done };
        while step != Step::Done {
            match step {
                Step::Wait => {
                    pipe.consumer_wait(&state);
                    step = Step::Read;
                }
                Step::Read => {
                    let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
                    for row in 0..ROWS {
                        acc += unsafe { *stage.add(row * COLS + tid as usize) };
                    }
                    step = Step::Release;
                }
                Step::Release => {
                    pipe.consumer_release(&state);
                    state.advance();
                    tile += grid;
                    step = if tile < tiles { Step::Wait } else { Step::Done };
                }
                Step::Done => {}
            }
        }
        unsafe { *out.add((block * WARP + tid) as usize) = acc };
    }
}

enum Duty {
    Sum,
    Load,
}

#[inline(always)]
fn duty_of_warp(warp: u32) -> Duty {
    if warp == 0 { Duty::Sum } else { Duty::Load }
}

/// Warp 0 sums, warp 1 loads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_enum_warp_duties(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    match duty_of_warp(warp_id()) {
        Duty::Sum => unsafe {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        },
        Duty::Load => unsafe { load_all(&pipe, window, input, tiles) },
    }
}

/// The state machine again, its end-of-tiles test moved into the read step.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_enum_step_done_early(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == WARP {
        unsafe { load_all(&pipe, window, input, tiles) };
    } else if tid < WARP {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut tile = block;
        let mut step = if tile < tiles { Step::Wait } else { Step::Done };
        while step != Step::Done {
            match step {
                Step::Wait => {
                    pipe.consumer_wait(&state);
                    step = Step::Read;
                }
                Step::Read => {
                    let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
                    for row in 0..ROWS {
                        acc += unsafe { *stage.add(row * COLS + tid as usize) };
                    }
                    tile += grid;
                    step = if tile < tiles { Step::Release } else { Step::Done };
                }
                Step::Release => {
                    pipe.consumer_release(&state);
                    state.advance();
                    step = Step::Wait;
                }
                Step::Done => {}
            }
        }
        unsafe { *out.add((block * WARP + tid) as usize) = acc };
    }
}
