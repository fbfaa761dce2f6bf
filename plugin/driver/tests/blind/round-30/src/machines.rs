//! State machines in enums: a role's per-tile protocol written as explicit steps, advanced by a
//! `loop { match step { … } }`, with data-carrying variants, a pipeline state kept inside the
//! variants, a pure transition function, and roles themselves as an enum.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x, warp_id};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF_BYTES: u32 = TILE_BYTES / 2;

#[inline(always)]
unsafe fn column_of(stage: *const f32, column: usize) -> f32 {
    let mut sum = 0.0;
    for row in 0..8 {
        sum += *stage.add(row * 32 + column);
    }
    sum
}

#[inline(always)]
unsafe fn tile_source(input: *const f32, tile: u32) -> *const u8 {
    input.add(tile as usize * TILE_FLOATS) as *const u8
}

/// Declares the launch, initialises the barriers at `bars` from thread `init_by`, syncs.
#[inline(always)]
unsafe fn open<const S: u32>(bars: u32, init_by: u32) -> Pipeline<S> {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let at = dynamic_shared_window_address() + bars;
    let pipe = if thread_idx_x() == init_by { Pipeline::<S>::init(at, 32) } else { Pipeline::<S>::attach(at) };
    barrier();
    pipe
}

#[derive(Clone, Copy)]
enum Fill {
    Acquire,
    Announce,
    Copy,
    Advance,
    Tail,
}

#[derive(Clone, Copy)]
enum Read {
    Wait,
    Sum,
    Release,
    Advance,
    Finished,
}

// ---- correct ----

/// The producer as a five-step machine; the consumers as a plain loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_producer_steps(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<4>(0, 0);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block;
        let mut step = if t < tiles { Fill::Acquire } else { Fill::Tail };
        loop {
            match step {
                Fill::Acquire => {
                    pipe.producer_acquire(&state);
                    step = Fill::Announce;
                }
                Fill::Announce => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    step = Fill::Copy;
                }
                Fill::Copy => {
                    let destination = window + 1024 + state.index() * TILE_BYTES;
                    bulk_copy_global_to_shared(destination, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
                    step = Fill::Advance;
                }
                Fill::Advance => {
                    state.advance();
                    t += grid;
                    step = if t < tiles { Fill::Acquire } else { Fill::Tail };
                }
                Fill::Tail => {
                    pipe.producer_tail(state);
                    break;
                }
            }
        }
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(256 + state.index() as usize * TILE_FLOATS), column);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

/// The consumers as a machine of wait, sum, release and advance; thread 32 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_consumer_steps(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<3>(3072, 32);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<3>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        let mut t = block;
        let mut step = if t < tiles { Read::Wait } else { Read::Finished };
        loop {
            match step {
                Read::Wait => {
                    pipe.consumer_wait(&state);
                    step = Read::Sum;
                }
                Read::Sum => {
                    sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), column);
                    step = Read::Release;
                }
                Read::Release => {
                    pipe.consumer_release(&state);
                    step = Read::Advance;
                }
                Read::Advance => {
                    state.advance();
                    t += grid;
                    step = if t < tiles { Read::Wait } else { Read::Finished };
                }
                Read::Finished => {
                    *out.add(block as usize * 32 + column) = sum;
                    break;
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Role {
    Producer,
    Consumer { column: usize },
    Idle,
}

impl Role {
    fn of(tid: u32) -> Role {
        match tid {
            63 => Role::Producer,
            0..=31 => Role::Consumer { column: tid as usize },
            _ => Role::Idle,
        }
    }
}

/// Roles as an enum matched once; five stages at the top of the window, barriers at byte 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_role_enum(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<5>(0, 63);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (block, grid) = (block_idx_x(), grid_dim_x());
    match Role::of(thread_idx_x()) {
        Role::Producer => {
            let mut state = PipelineState::<5>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + 3072 + state.index() * TILE_BYTES,
                    tile_source(input, t),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let mut state = PipelineState::<5>::new();
            let mut sum = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                sum += column_of(smem.add(768 + state.index() as usize * TILE_FLOATS), column);
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            *out.add(block as usize * 32 + column) = sum;
        }
        Role::Idle => {}
    }
}

/// A producer job whose variants carry the tile, filling each stage with two half copies.
#[derive(Clone, Copy)]
enum Job {
    Start { tile: u32 },
    Announced { tile: u32 },
    HalfDone { tile: u32 },
    Copied { tile: u32 },
    Draining,
}

/// A consumer's sip: waiting for a tile, or summing a stage it holds.
#[derive(Clone, Copy)]
enum Sip {
    Await(u32),
    Summing(u32, *const f32),
    Out,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_both_machines(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<2>(0, 0);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let ring = window + 6144;
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut state = PipelineState::<2>::producer_start();
        let mut job = Job::Start { tile: block };
        loop {
            match job {
                Job::Start { tile } if tile >= tiles => job = Job::Draining,
                Job::Start { tile } => {
                    pipe.producer_acquire(&state);
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    job = Job::Announced { tile };
                }
                Job::Announced { tile } => {
                    let to = ring + state.index() * TILE_BYTES;
                    bulk_copy_global_to_shared(to, tile_source(input, tile), HALF_BYTES, pipe.producer_barrier(&state));
                    job = Job::HalfDone { tile };
                }
                Job::HalfDone { tile } => {
                    let to = ring + state.index() * TILE_BYTES + HALF_BYTES;
                    let from = tile_source(input, tile).add(HALF_BYTES as usize);
                    bulk_copy_global_to_shared(to, from, HALF_BYTES, pipe.producer_barrier(&state));
                    job = Job::Copied { tile };
                }
                Job::Copied { tile } => {
                    state.advance();
                    job = Job::Start { tile: tile + grid };
                }
                Job::Draining => {
                    pipe.producer_tail(state);
                    break;
                }
            }
        }
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0f32;
        let mut sip = Sip::Await(block);
        loop {
            match sip {
                Sip::Await(tile) if tile < tiles => {
                    pipe.consumer_wait(&state);
                    sip = Sip::Summing(tile, smem.add(1536 + state.index() as usize * TILE_FLOATS));
                }
                Sip::Await(_) => sip = Sip::Out,
                Sip::Summing(tile, stage) => {
                    sum += column_of(stage, column);
                    pipe.consumer_release(&state);
                    state.advance();
                    sip = Sip::Await(tile + grid);
                }
                Sip::Out => {
                    *out.add(block as usize * 32 + column) = sum;
                    break;
                }
            }
        }
    }
}

/// A consumer slot that owns its pipeline state in every live variant.
enum Slot<const S: u32> {
    Empty(PipelineState<S>),
    Held(PipelineState<S>, *const f32),
    Closed,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_state_in_variant(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<4>(4096, 40);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 40 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut left = (block..tiles).step_by(grid as usize).count();
        let mut sum = 0.0f32;
        let mut slot = Slot::Empty(PipelineState::<4>::new());
        loop {
            slot = match slot {
                Slot::Empty(_) if left == 0 => Slot::Closed,
                Slot::Empty(state) => {
                    pipe.consumer_wait(&state);
                    let stage = smem.add(state.index() as usize * TILE_FLOATS);
                    Slot::Held(state, stage)
                }
                Slot::Held(mut state, stage) => {
                    sum += column_of(stage, tid as usize);
                    pipe.consumer_release(&state);
                    state.advance();
                    left -= 1;
                    Slot::Empty(state)
                }
                Slot::Closed => break,
            };
        }
        *out.add(block as usize * 32 + tid as usize) = sum;
    }
}

/// A producer duty with a pure transition function; the side effects live in the loop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Duty {
    Acquire,
    Fill,
    Step,
    Drain,
    Stop,
}

impl Duty {
    const fn next(self, more: bool) -> Duty {
        match self {
            Duty::Acquire => Duty::Fill,
            Duty::Fill => Duty::Step,
            Duty::Step if more => Duty::Acquire,
            Duty::Step => Duty::Drain,
            Duty::Drain | Duty::Stop => Duty::Stop,
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_transition_fn(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<6>(6144, 17);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 17 {
        let mut state = PipelineState::<6>::producer_start();
        let mut t = block;
        let mut duty = if t < tiles { Duty::Acquire } else { Duty::Drain };
        while duty != Duty::Stop {
            match duty {
                Duty::Acquire => pipe.producer_acquire(&state),
                Duty::Fill => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    let to = window + state.index() * TILE_BYTES;
                    bulk_copy_global_to_shared(to, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
                }
                Duty::Step => {
                    state.advance();
                    t += grid;
                }
                Duty::Drain => pipe.producer_tail(state),
                Duty::Stop => {}
            }
            duty = duty.next(t < tiles);
        }
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<6>::new();
        let mut sum = 0.0f32;
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_bad_sum_then_advance(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<3>(3072, 32);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<3>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        let mut t = block;
        let mut step = if t < tiles { Read::Wait } else { Read::Finished };
        loop {
            match step {
                Read::Wait => {
                    pipe.consumer_wait(&state);
                    step = Read::Sum;
                }
                Read::Sum => {
                    sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), column);
                    step = Read::Advance;
                }
                Read::Release => {
                    pipe.consumer_release(&state);
                    step = Read::Advance;
                }
                Read::Advance => {
                    state.advance();
                    t += grid;
                    step = if t < tiles { Read::Wait } else { Read::Finished };
                }
                Read::Finished => {
                    *out.add(block as usize * 32 + column) = sum;
                    break;
                }
            }
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_bad_producer_looks_ahead(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<4>(0, 0);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block;
        let mut step = if t < tiles { Fill::Acquire } else { Fill::Tail };
        loop {
            match step {
                Fill::Acquire => {
                    pipe.producer_acquire(&state);
                    step = Fill::Announce;
                }
                Fill::Announce => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    step = Fill::Copy;
                }
                Fill::Copy => {
                    let destination = window + 1024 + state.index() * TILE_BYTES;
                    bulk_copy_global_to_shared(destination, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
                    step = Fill::Advance;
                }
                Fill::Advance => {
                    state.advance();
                    t += grid;
                    step = if t + grid < tiles { Fill::Acquire } else { Fill::Tail };
                }
                Fill::Tail => {
                    pipe.producer_tail(state);
                    break;
                }
            }
        }
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(256 + state.index() as usize * TILE_FLOATS), column);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_bad_sum_in_advance(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<2>(2048, 32);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0f32;
        let mut stage = smem as *const f32;
        let mut t = block;
        let mut step = if t < tiles { Read::Wait } else { Read::Finished };
        loop {
            match step {
                Read::Wait => {
                    pipe.consumer_wait(&state);
                    stage = smem.add(state.index() as usize * TILE_FLOATS);
                    step = Read::Release;
                }
                Read::Sum | Read::Release => {
                    pipe.consumer_release(&state);
                    step = Read::Advance;
                }
                Read::Advance => {
                    sum += column_of(stage, column);
                    state.advance();
                    t += grid;
                    step = if t < tiles { Read::Wait } else { Read::Finished };
                }
                Read::Finished => {
                    *out.add(block as usize * 32 + column) = sum;
                    break;
                }
            }
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_bad_half_skipped(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<2>(0, 0);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let ring = window + 6144;
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut state = PipelineState::<2>::producer_start();
        let mut job = Job::Start { tile: block };
        loop {
            match job {
                Job::Start { tile } if tile >= tiles => job = Job::Draining,
                Job::Start { tile } => {
                    pipe.producer_acquire(&state);
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    job = Job::Announced { tile };
                }
                Job::Announced { tile } => {
                    let to = ring + state.index() * TILE_BYTES;
                    bulk_copy_global_to_shared(to, tile_source(input, tile), HALF_BYTES, pipe.producer_barrier(&state));
                    job = Job::Copied { tile };
                }
                Job::HalfDone { tile } => {
                    let to = ring + state.index() * TILE_BYTES + HALF_BYTES;
                    let from = tile_source(input, tile).add(HALF_BYTES as usize);
                    bulk_copy_global_to_shared(to, from, HALF_BYTES, pipe.producer_barrier(&state));
                    job = Job::Copied { tile };
                }
                Job::Copied { tile } => {
                    state.advance();
                    job = Job::Start { tile: tile + grid };
                }
                Job::Draining => {
                    pipe.producer_tail(state);
                    break;
                }
            }
        }
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0f32;
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(1536 + state.index() as usize * TILE_FLOATS), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

#[derive(Clone, Copy)]
enum Turn {
    Start,
    Wait,
    Sum,
    Done,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_bad_start_resets(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<4>(4096, 0);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block;
        let mut turn = if t < tiles { Turn::Start } else { Turn::Done };
        loop {
            match turn {
                Turn::Start => {
                    state = PipelineState::new();
                    turn = Turn::Wait;
                }
                Turn::Wait => {
                    pipe.consumer_wait(&state);
                    turn = Turn::Sum;
                }
                Turn::Sum => {
                    sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), column);
                    pipe.consumer_release(&state);
                    state.advance();
                    t += grid;
                    turn = if t < tiles { Turn::Start } else { Turn::Done };
                }
                Turn::Done => {
                    *out.add(block as usize * 32 + column) = sum;
                    break;
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Crew {
    Loader,
    Summer { column: usize },
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_sm_bad_loader_warp(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = open::<4>(4096, 0);
    let (window, smem) = (dynamic_shared_window_address(), dynamic_shared_base::<f32>());
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let crew = match warp_id() {
        0 => Crew::Loader,
        _ => Crew::Summer { column: (thread_idx_x() - 32) as usize },
    };
    match crew {
        Crew::Loader => {
            let mut state = PipelineState::<4>::producer_start();
            for t in (block..tiles).step_by(grid as usize) {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
            }
            pipe.producer_tail(state);
        }
        Crew::Summer { column } => {
            let mut state = PipelineState::<4>::new();
            let mut sum = 0.0f32;
            for _ in (block..tiles).step_by(grid as usize) {
                pipe.consumer_wait(&state);
                sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), column);
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add(block as usize * 32 + column) = sum;
        }
    }
}
