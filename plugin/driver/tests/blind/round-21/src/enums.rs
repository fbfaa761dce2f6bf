//! Pipeline kernels using enums and `Option`: roles as an enum, a producer written as a state
//! machine, tile walks handing out `Option<u32>`, placements chosen by an enum.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use crate::{CONSUMERS, TILE_BYTES, TILE_FLOATS, column_sum, store_column, tile_source};

#[derive(Clone, Copy)]
enum Role {
    Producer,
    Consumer { col: usize },
    Idle,
}

#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        0..=31 => Role::Consumer { col: tid as usize },
        32 => Role::Producer,
        _ => Role::Idle,
    }
}

/// Four stages; each thread's role is an enum matched once.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_role_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<4>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { col } => {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<4>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            store_column(out, col, sum);
        }
        Role::Idle => {}
    }
}

// ------------------------------------------------------------------------------------------
// Tile walks handing out `Option<u32>`.
// ------------------------------------------------------------------------------------------

struct TileWalk {
    next: u32,
    step: u32,
    end: u32,
}

impl TileWalk {
    #[inline(always)]
    fn of_block(tiles: u32) -> Self {
        TileWalk { next: block_idx_x(), step: grid_dim_x(), end: tiles }
    }

    #[inline(always)]
    fn next_tile(&mut self) -> Option<u32> {
        if self.next < self.end {
            let t = self.next;
            self.next += self.step;
            Some(t)
        } else {
            None
        }
    }
}

/// Three stages; both roles run `while let Some(t) = walk.next_tile()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_while_let_walk(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let mut walk = TileWalk::of_block(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(t) = walk.next_tile() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        while walk.next_tile().is_some() {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// The producer as a state machine.
// ------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Acquire,
    Announce,
    Copy,
    Advance,
    Done,
}

/// Four stages; the producer is a `match` over a `Step` enum inside a `loop`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_producer_state_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        let mut next = if t < tiles { Step::Acquire } else { Step::Done };
        loop {
            match next {
                Step::Acquire => {
                    pipe.producer_acquire(&state);
                    next = Step::Announce;
                }
                Step::Announce => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    next = Step::Copy;
                }
                Step::Copy => {
                    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
                    next = Step::Advance;
                }
                Step::Advance => {
                    state.advance();
                    t += step;
                    next = if t < tiles { Step::Acquire } else { Step::Done };
                }
                Step::Done => break,
            }
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// `Option` of a column.
// ------------------------------------------------------------------------------------------

/// Five stages behind the barriers (ring at 128); consumers are the threads whose
/// `Option<usize>` column is `Some`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_option_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 5;
    const RING: u32 = 128;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, CONSUMERS) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let column = (tid < 32).then_some(tid as usize);
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    }
    if let Some(col) = column {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, col, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Placements chosen by an enum.
// ------------------------------------------------------------------------------------------

#[allow(dead_code)]
enum Placement {
    RingFirst,
    BarriersFirst,
}

impl Placement {
    const fn ring(&self, stages: u32) -> u32 {
        match self {
            Placement::RingFirst => 0,
            Placement::BarriersFirst => pipeline_barrier_bytes(stages).next_multiple_of(16),
        }
    }

    const fn barriers(&self, stages: u32) -> u32 {
        match self {
            Placement::RingFirst => stages * TILE_BYTES,
            Placement::BarriersFirst => 0,
        }
    }
}

/// Six stages, barriers first (96 bytes), ring right behind them at byte 96.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_placement(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 6;
    const PLACE: Placement = Placement::BarriersFirst;
    const RING: u32 = PLACE.ring(STAGES);
    const BARRIERS: u32 = PLACE.barriers(STAGES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS) } else { Pipeline::<STAGES>::attach(window + BARRIERS) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(RING as usize) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

#[inline(always)]
fn role_inclusive(tid: u32) -> Role {
    match tid {
        0..=32 => Role::Consumer { col: tid as usize },
        33 => Role::Producer,
        _ => Role::Idle,
    }
}

/// The consumer arm's range is `0..=32`: 33 threads release each stage of a pipeline built
/// for 32, and thread 32 reads and writes a column that is not its block's.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_bad_consumer_range_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    match role_inclusive(tid) {
        Role::Producer => {
            let mut state = PipelineState::<4>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { col } => {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<4>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            store_column(out, col, sum);
        }
        Role::Idle => {}
    }
}

/// The producer's state machine goes from `Advance` straight to `Announce`: after the first
/// lap it refills stages without acquiring them, while consumers still read them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_bad_machine_skips_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        let mut next = if t < tiles { Step::Acquire } else { Step::Done };
        loop {
            match next {
                Step::Acquire => {
                    pipe.producer_acquire(&state);
                    next = Step::Announce;
                }
                Step::Announce => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    next = Step::Copy;
                }
                Step::Copy => {
                    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
                    next = Step::Advance;
                }
                Step::Advance => {
                    state.advance();
                    t += step;
                    next = if t < tiles { Step::Announce } else { Step::Done };
                }
                Step::Done => break,
            }
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

/// The consumers keep their state in an `Option` and `take()` it each tile, but never put the
/// advanced state back: every tile restarts at stage 0, phase 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_bad_option_state_not_restored(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let mut walk = TileWalk::of_block(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(t) = walk.next_tile() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut slot: Option<PipelineState<STAGES>> = Some(PipelineState::new());
        let mut sum = 0.0f32;
        while walk.next_tile().is_some() {
            let mut state = slot.take().unwrap_or_default();
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

#[allow(dead_code)]
enum ShortPlacement {
    RingFirst,
    BarriersFirst,
}

impl ShortPlacement {
    /// Leaves room for the full barriers only (8 bytes per stage), not the empty ones.
    const fn ring(&self, stages: u32) -> u32 {
        match self {
            ShortPlacement::RingFirst => 0,
            ShortPlacement::BarriersFirst => 8 * stages,
        }
    }
}

/// The placement enum reserves 8 bytes per stage for the barriers, forgetting the empty
/// barriers: the ring starts at byte 32 and stage 0's copy overwrites them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_bad_placement_forgets_empty_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    const RING: u32 = ShortPlacement::BarriersFirst.ring(STAGES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, CONSUMERS) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(RING as usize) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

#[inline(always)]
fn role_after_producer(tid: u32) -> Role {
    match tid {
        0 => Role::Producer,
        1..=31 => Role::Consumer { col: tid as usize },
        _ => Role::Idle,
    }
}

/// Thread 0 produces and the rest of warp 0 consumes: 31 releasing threads for a pipeline
/// built for 32 (and column 0 is never written).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_enum_bad_producer_takes_lane_zero(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    match role_after_producer(tid) {
        Role::Producer => {
            let mut state = PipelineState::<4>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { col } => {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<4>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            store_column(out, col, sum);
        }
        Role::Idle => {}
    }
}
