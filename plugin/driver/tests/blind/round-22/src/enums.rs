//! Pipeline kernels with enums: roles chosen by a `match` on the thread index, a state kept in
//! an `Option`, a producer written as a state machine, and tiles handed out as `Work` values.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;

enum Role {
    Producer,
    Consumer { col: u32 },
    Idle,
}

#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        0..=31 => Role::Consumer { col: tid },
        32 => Role::Producer,
        _ => Role::Idle,
    }
}

#[inline(always)]
unsafe fn init_ring<const S: u32>(bars: u32) -> Pipeline<S> {
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    Pipeline::<S>::attach(bars)
}

#[inline(always)]
unsafe fn copy_tile<const S: u32>(pipe: &Pipeline<S>, state: &PipelineState<S>, window: u32, input: *const f32, t: u32) {
    bulk_copy_global_to_shared(
        window + state.index() * TILE_BYTES,
        input.add((t * TILE_FLOATS) as usize) as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
}

#[inline(always)]
unsafe fn column(stage: *const f32, col: u32) -> f32 {
    let mut s = 0.0f32;
    for r in 0..ROWS {
        s += *stage.add((r * COLS + col) as usize);
    }
    s
}

/// Roles from a `match` on the thread index; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_enum_role_match(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = init_ring::<S>(window + S * TILE_BYTES);
    let first = block_idx_x();
    let step = grid_dim_x();
    match role_of(thread_idx_x()) {
        Role::Producer => {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = first;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                copy_tile(&pipe, &state, window, input, t);
                state.advance();
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { col } => {
            let mut state = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                acc += column(ring.add((state.index() * TILE_FLOATS) as usize), col);
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            *out.add((first * COLS + col) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// The consumer's state lives in an `Option`, present only in consumer threads; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_enum_option_state(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = init_ring::<S>(window + S * TILE_BYTES);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 40 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    }
    let mut slot: Option<PipelineState<S>> = if tid < COLS { Some(PipelineState::new()) } else { None };
    if let Some(state) = slot.as_mut() {
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Acquire,
    Fill,
    Next,
    Done,
}

/// The producer as a state machine over `Step`; five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_enum_state_machine(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = init_ring::<S>(window + S * TILE_BYTES);
    let first = block_idx_x();
    let stride = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        let mut step = if t < tiles { Step::Acquire } else { Step::Done };
        loop {
            match step {
                Step::Acquire => {
                    pipe.producer_acquire(&state);
                    step = Step::Fill;
                }
                Step::Fill => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    copy_tile(&pipe, &state, window, input, t);
                    step = Step::Next;
                }
                Step::Next => {
                    state.advance();
                    t += stride;
                    step = if t < tiles { Step::Acquire } else { Step::Done };
                }
                Step::Done => break,
            }
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += stride;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// A unit of work for one role.
enum Work {
    Tile(u32),
    Finished,
}

#[inline(always)]
fn work_at(t: u32, tiles: u32) -> Work {
    if t < tiles { Work::Tile(t) } else { Work::Finished }
}

/// Both roles loop `while let Work::Tile(t) = work_at(..)`; two stages, warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_enum_work_items(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = init_ring::<S>(window + S * TILE_BYTES);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut next = first;
        while let Work::Tile(t) = work_at(next, tiles) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            next = t + step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut next = first;
        while let Work::Tile(t) = work_at(next, tiles) {
            pipe.consumer_wait(&state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), col);
            pipe.consumer_release(&state);
            state.advance();
            next = t + step;
        }
        *out.add((first * COLS + col) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

#[inline(always)]
fn role_of_inclusive(tid: u32) -> Role {
    match tid {
        0..=31 => Role::Consumer { col: tid },
        32..=33 => Role::Producer,
        _ => Role::Idle,
    }
}

/// BROKEN: `role_of_inclusive` gives the producer role to threads 32 and 33, so two threads
/// arrive and copy every tile on full barriers that expect one arrival.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_enum_bad_two_producers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = init_ring::<S>(window + S * TILE_BYTES);
    let first = block_idx_x();
    let step = grid_dim_x();
    match role_of_inclusive(thread_idx_x()) {
        Role::Producer => {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = first;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                copy_tile(&pipe, &state, window, input, t);
                state.advance();
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { col } => {
            let mut state = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                acc += column(ring.add((state.index() * TILE_FLOATS) as usize), col);
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            *out.add((first * COLS + col) as usize) = acc;
        }
        Role::Idle => {}
    }
}

#[inline(always)]
fn role_of_exclusive(tid: u32) -> Role {
    match tid {
        0..31 => Role::Consumer { col: tid },
        32 => Role::Producer,
        _ => Role::Idle,
    }
}

/// BROKEN: `role_of_exclusive` makes threads 0..31 consumers, 31 of them, where the barriers
/// count 32 releases: no stage is ever released and the producer's second round hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_enum_bad_consumer_range(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = init_ring::<S>(window + S * TILE_BYTES);
    let first = block_idx_x();
    let step = grid_dim_x();
    match role_of_exclusive(thread_idx_x()) {
        Role::Producer => {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = first;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                copy_tile(&pipe, &state, window, input, t);
                state.advance();
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { col } => {
            let mut state = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                acc += column(ring.add((state.index() * TILE_FLOATS) as usize), col);
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            *out.add((first * COLS + col) as usize) = acc;
        }
        Role::Idle => {}
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Acquire,
    Announce,
    Copy,
    Next,
    Done,
}

/// BROKEN: the state machine starts in `Copy` ("the ring is empty at first, nothing to acquire
/// or announce"), so stage 0's first copy is never announced: its full barrier waits for an
/// arrival that never comes and the consumers hang on tile 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_enum_bad_machine_starts_copying(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = init_ring::<S>(window + S * TILE_BYTES);
    let first = block_idx_x();
    let stride = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        let mut phase = if t < tiles { Phase::Copy } else { Phase::Done };
        loop {
            match phase {
                Phase::Acquire => {
                    pipe.producer_acquire(&state);
                    phase = Phase::Announce;
                }
                Phase::Announce => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    phase = Phase::Copy;
                }
                Phase::Copy => {
                    copy_tile(&pipe, &state, window, input, t);
                    phase = Phase::Next;
                }
                Phase::Next => {
                    state.advance();
                    t += stride;
                    phase = if t < tiles { Phase::Acquire } else { Phase::Done };
                }
                Phase::Done => break,
            }
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += stride;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: `if let Some(mut state) = slot` binds a copy of the (Copy) state, so the advance is
/// lost and every tile waits on and releases stage 0; stage 1 is never released and the
/// producer hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_enum_bad_if_let_copy(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = init_ring::<S>(window + S * TILE_BYTES);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let slot: Option<PipelineState<S>> = Some(PipelineState::new());
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            if let Some(mut state) = slot {
                pipe.consumer_wait(&state);
                acc += column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
                pipe.consumer_release(&state);
                state.advance();
            }
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}
