//! The mbarrier pipeline behind abstractions: helpers taking the state by `&mut`, structs that
//! own a role's state, closures capturing it, an enum of roles with a trait for the consumer's
//! work, a const-generic ring.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const CONSUMERS: u32 = 32;

#[inline(always)]
fn tile_source(input: *const f32, t: u32) -> *const u8 {
    input.wrapping_add(t as usize * TILE_FLOATS) as *const u8
}

#[inline(never)]
fn push_tile(pipe: &Pipeline<4>, state: &mut PipelineState<4>, ring: u32, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(
        ring + state.index() * TILE_BYTES,
        src,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
    state.advance();
}

#[inline(never)]
unsafe fn pop_column(pipe: &Pipeline<4>, state: &mut PipelineState<4>, ring: *const f32, lane: usize) -> f32 {
    pipe.consumer_wait(state);
    let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
    let mut sum = 0.0f32;
    let mut row = 0;
    while row < ROWS {
        sum += unsafe { *stage.add(lane + COLUMNS * row) };
        row += 1;
    }
    pipe.consumer_release(state);
    state.advance();
    sum
}

/// Each role's step is an `#[inline(never)]` helper that takes the state by `&mut`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_helpers_by_mut(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = first;
        while t < tiles {
            push_tile(&pipe, &mut state, window + RING, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += unsafe { pop_column(&pipe, &mut state, ring, tid as usize) };
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

struct Feeder<'p> {
    pipe: &'p Pipeline<3>,
    state: PipelineState<3>,
    ring: u32,
}

impl<'p> Feeder<'p> {
    #[inline(always)]
    fn new(pipe: &'p Pipeline<3>, ring: u32) -> Self {
        Feeder { pipe, state: PipelineState::producer_start(), ring }
    }

    #[inline(always)]
    fn feed(&mut self, src: *const u8) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let dst = self.ring + self.state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(dst, src, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }

    #[inline(always)]
    fn close(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct Drain<'p> {
    pipe: &'p Pipeline<3>,
    state: PipelineState<3>,
    ring: *const f32,
    lane: usize,
    total: f32,
}

impl Drain<'_> {
    #[inline(always)]
    unsafe fn take(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = unsafe { self.ring.add(self.state.index() as usize * TILE_FLOATS) };
        for row in 0..ROWS {
            self.total += unsafe { *stage.add(self.lane + COLUMNS * row) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// Each role is a struct holding the pipeline, its state and the ring; barriers at byte 128,
/// three stages from byte 2048.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_struct_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const BARS: u32 = 128;
    const RING: u32 = 2048;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 32 {
        Pipeline::<3>::init(window + BARS, CONSUMERS)
    } else {
        Pipeline::<3>::attach(window + BARS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut feeder = Feeder::new(&pipe, window + RING);
        let mut t = first;
        while t < tiles {
            feeder.feed(tile_source(input, t));
            t += step;
        }
        feeder.close();
    } else if tid < 32 {
        let mut drain = Drain {
            pipe: &pipe,
            state: PipelineState::new(),
            ring: unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) },
            lane: tid as usize,
            total: 0.0,
        };
        let mut t = first;
        while t < tiles {
            unsafe { drain.take() };
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + drain.lane) = drain.total };
    }
}

/// Each role's step is a closure capturing the pipeline and the state.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_closure_steps(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut push = |t: u32| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        };
        let mut t = first;
        while t < tiles {
            push(t);
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let lane = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut pop = || -> f32 {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            let sum = (0..ROWS).fold(0.0f32, |s, row| s + unsafe { *stage.add(lane + COLUMNS * row) });
            pipe.consumer_release(&state);
            state.advance();
            sum
        };
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += pop();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + lane) = acc };
    }
}

enum Role {
    Producer,
    Consumer(usize),
    Idle,
}

#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        0..=31 => Role::Consumer(tid as usize),
        40 => Role::Producer,
        _ => Role::Idle,
    }
}

trait Accumulate {
    unsafe fn take(&mut self, stage: *const f32);
    fn result(&self) -> f32;
}

struct ColumnSum {
    lane: usize,
    sum: f32,
}

impl Accumulate for ColumnSum {
    #[inline(always)]
    unsafe fn take(&mut self, stage: *const f32) {
        for row in 0..ROWS {
            self.sum += unsafe { *stage.add(self.lane + COLUMNS * row) };
        }
    }

    #[inline(always)]
    fn result(&self) -> f32 {
        self.sum
    }
}

/// Roles from an enum and `match`; the consumer's work behind a trait. Barriers at byte 0, four
/// stages in the upper half of the window; thread 40 initialises and produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_enum_roles_trait(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 40 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<4>::producer_start();
            let mut t = first;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING + state.index() * TILE_BYTES,
                    tile_source(input, t),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer(lane) => {
            let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
            let mut column = ColumnSum { lane, sum: 0.0 };
            let mut state = PipelineState::<4>::new();
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                unsafe { column.take(ring.add(state.index() as usize * TILE_FLOATS)) };
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            unsafe { *out.add(first as usize * COLUMNS + lane) = column.result() };
        }
        Role::Idle => {}
    }
}

#[inline(always)]
unsafe fn run_ring<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    // Barriers from byte 0 (16 * S bytes), the ring from byte 1024: S is at most 7.
    let ring_offset: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<S>::init(window, CONSUMERS) } else { Pipeline::<S>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_offset + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(ring_offset as usize / 4) };
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// A const-generic body instantiated with three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_const_generic_three(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { run_ring::<3>(input, tiles, out) };
}

#[inline(always)]
fn finish_stage(pipe: &Pipeline<4>, mut state: PipelineState<4>) {
    pipe.consumer_release(&state);
    state.advance();
}

/// The consumer's release and advance live in a small helper.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_helper_finish_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = first;
        while t < tiles {
            push_tile(&pipe, &mut state, window + RING, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            finish_stage(&pipe, state);
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// The consumers stop as soon as they have read their last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_last_tile_break(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = first;
        while t < tiles {
            push_tile(&pipe, &mut state, window + RING, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            if t + step >= tiles {
                break;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

#[derive(Default)]
struct Cursor {
    state: PipelineState<4>,
    tile: u32,
}

/// Each role keeps its state and its next tile in a `Cursor`, built with struct-update syntax.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_cursor_default(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut cursor = Cursor { tile: first, ..Default::default() };
        while cursor.tile < tiles {
            pipe.producer_acquire(&cursor.state);
            pipe.producer_expect_tx(&cursor.state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + cursor.state.index() * TILE_BYTES,
                tile_source(input, cursor.tile),
                TILE_BYTES,
                pipe.producer_barrier(&cursor.state),
            );
            cursor.state.advance();
            cursor.tile += step;
        }
        pipe.producer_tail(cursor.state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut cursor = Cursor { tile: first, ..Default::default() };
        let mut acc = 0.0f32;
        while cursor.tile < tiles {
            pipe.consumer_wait(&cursor.state);
            let stage = unsafe { ring.add(cursor.state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&cursor.state);
            cursor.state.advance();
            cursor.tile += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Every thread starts at the ring's first stage.
#[inline(always)]
fn ring_start<const S: u32>() -> PipelineState<S> {
    PipelineState::producer_start()
}

/// Both roles take their starting state from one helper.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_shared_start_helper(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = ring_start::<4>();
        let mut t = first;
        while t < tiles {
            push_tile(&pipe, &mut state, window + RING, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = ring_start::<4>();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += unsafe { pop_column(&pipe, &mut state, ring, tid as usize) };
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Thread 0 initialises the barriers inside the consumers' branch; the producer attaches.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_init_in_consumer_branch(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let pipe = Pipeline::<4>::attach(window);
        let mut state = PipelineState::<4>::producer_start();
        let mut t = first;
        while t < tiles {
            push_tile(&pipe, &mut state, window + RING, tile_source(input, t));
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let pipe =
            if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += unsafe { pop_column(&pipe, &mut state, ring, tid as usize) };
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}
