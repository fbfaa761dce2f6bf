//! The systems person: small `#[inline(always)]` helpers and newtypes around every address.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const S: u32 = 4;
const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const CONSUMERS: u32 = 32;
const BLOCK: u32 = 64;

type State = PipelineState<S>;
type Pipe = Pipeline<S>;

/// A 32-bit shared-window address.
#[derive(Clone, Copy)]
struct Window(u32);

/// The tiles of the input, by tile number.
#[derive(Clone, Copy)]
struct Tiles(*const f32);

impl Tiles {
    #[inline(always)]
    unsafe fn source(self, tile: u32) -> *const u8 {
        self.0.add(tile as usize * TILE_FLOATS).cast::<u8>()
    }
}

/// The ring of stages: its window address and its generic base.
#[derive(Clone, Copy)]
struct Ring {
    window: Window,
    base: *const f32,
}

impl Ring {
    #[inline(always)]
    fn stage_address(self, state: &State) -> u32 {
        self.window.0 + state.index() * TILE_BYTES
    }

    #[inline(always)]
    unsafe fn stage(self, state: &State) -> *const f32 {
        self.base.add(state.index() as usize * TILE_FLOATS)
    }
}

#[inline(always)]
unsafe fn column_sum(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0f32;
    for k in 0..8 {
        s += *stage.add(col + 32 * k);
    }
    s
}

#[inline(always)]
unsafe fn store_result(out: *mut f32, col: usize, value: f32) {
    *out.add(block_idx_x() as usize * 32 + col) = value;
}

/// Newtypes for the window, the ring and the input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_systems_newtype_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = Window(dynamic_shared_window_address());
    let ring = Ring { window, base: dynamic_shared_base::<f32>() };
    let bars = Window(window.0 + S * TILE_BYTES);
    let src = Tiles(input);
    if tid == 0 {
        Pipe::init(bars.0, CONSUMERS);
    }
    barrier();
    let pipe = Pipe::attach(bars.0);
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(ring.stage_address(&state), src.source(t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = State::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(ring.stage(&state), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        store_result(out, tid as usize, acc);
    }
}

#[inline(always)]
unsafe fn produce_tile(pipe: &Pipe, state: &mut State, window: u32, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

#[inline(always)]
unsafe fn consume_tile(pipe: &Pipe, state: &mut State, base: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(state);
    let s = column_sum(base.add(state.index() as usize * TILE_FLOATS), col);
    pipe.consumer_release(state);
    state.advance();
    s
}

/// One helper per tile and role, the state handed by `&mut`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_systems_tile_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipe::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipe::attach(bars);
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            produce_tile(&pipe, &mut state, window, Tiles(input).source(t));
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = State::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += consume_tile(&pipe, &mut state, base, tid as usize);
            t += grid_dim_x();
        }
        store_result(out, tid as usize, acc);
    }
}

/// The layout as associated constants: barriers at the start, the ring after them.
struct Layout;

impl Layout {
    const STAGES: u32 = 5;
    const BARRIERS: u32 = 0;
    const RING: u32 = 128;
    const END: u32 = Self::RING + Self::STAGES * TILE_BYTES;
}

const _: () = assert!(Layout::BARRIERS + pipeline_barrier_bytes(Layout::STAGES) <= Layout::RING);
const _: () = assert!(Layout::END <= 8192);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_systems_layout_barriers_first(input: *const f32, tiles: u32, out: *mut f32) {
    const N: u32 = Layout::STAGES;
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bytes = dynamic_shared_base::<u8>();
    if tid == 0 {
        Pipeline::<N>::init(window + Layout::BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(window + Layout::BARRIERS);
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + Layout::RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, Tiles(input).source(t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = bytes.add((Layout::RING + state.index() * TILE_BYTES) as usize).cast::<f32>();
            acc += column_sum(stage, tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        store_result(out, tid as usize, acc);
    }
}

enum Role {
    Producer,
    Consumer { column: u32 },
    Idle,
}

#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        0..=31 => Role::Consumer { column: tid },
        32 => Role::Producer,
        _ => Role::Idle,
    }
}

/// Roles from a helper returning an enum.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_systems_role_enum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = Ring { window: Window(window), base: dynamic_shared_base::<f32>() };
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipe::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipe::attach(bars);
    match role_of(tid) {
        Role::Producer => {
            let mut state = State::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(ring.stage_address(&state), Tiles(input).source(t), TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let mut state = State::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                acc += column_sum(ring.stage(&state), column as usize);
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
            store_result(out, column as usize, acc);
        }
        Role::Idle => {}
    }
}

#[inline(always)]
unsafe fn consume_by_value(pipe: &Pipe, mut state: State, base: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(&state);
    let s = column_sum(base.add(state.index() as usize * TILE_FLOATS), col);
    pipe.consumer_release(&state);
    state.advance();
    s
}

/// BROKEN: the consumer helper takes the state by value; its advance is lost, so every tile
/// waits on stage 0's first phase again (stale data, stage 0 over-released, producer stuck).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_systems_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipe::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipe::attach(bars);
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            produce_tile(&pipe, &mut state, window, Tiles(input).source(t));
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let state = State::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += consume_by_value(&pipe, state, base, tid as usize);
            t += grid_dim_x();
        }
        store_result(out, tid as usize, acc);
    }
}

struct TightLayout;

impl TightLayout {
    const RING: u32 = 0;
    /// Wrong: the barriers were meant to follow the ring but sit in its last stage.
    const BARRIERS: u32 = S * TILE_BYTES - pipeline_barrier_bytes(S);
}

/// BROKEN: the barriers lie inside the last stage; its copy overwrites them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_systems_barriers_in_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = Ring { window: Window(window + TightLayout::RING), base: dynamic_shared_base::<f32>() };
    let bars = window + TightLayout::BARRIERS;
    if tid == 0 {
        Pipe::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipe::attach(bars);
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(ring.stage_address(&state), Tiles(input).source(t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = State::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(ring.stage(&state), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        store_result(out, tid as usize, acc);
    }
}

/// Wrong: believes the *empty* barriers come first, so this is `empty[index]`.
#[inline(always)]
fn full_barrier_of(bars: u32, state: &State) -> u32 {
    bars + 8 * (S + state.index())
}

/// BROKEN: the copy completes on a hand-computed barrier that is the stage's *empty* barrier;
/// the *full* barrier the consumers wait on never receives its bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_systems_copy_on_empty_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = Ring { window: Window(window), base: dynamic_shared_base::<f32>() };
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipe::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipe::attach(bars);
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(ring.stage_address(&state), Tiles(input).source(t), TILE_BYTES, full_barrier_of(bars, &state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = State::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(ring.stage(&state), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        store_result(out, tid as usize, acc);
    }
}

#[inline(always)]
fn is_consumer(tid: u32) -> bool {
    tid <= CONSUMERS
}

/// BROKEN: producer is the last thread; `is_consumer` is off by one (`<=`), so 33 threads
/// release an *empty* barrier initialised for 32: the extra arrival completes the next phase
/// early and the producer refills a stage still being read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_systems_one_extra_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = Ring { window: Window(window), base: dynamic_shared_base::<f32>() };
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipe::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipe::attach(bars);
    if tid == BLOCK - 1 {
        let mut state = State::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(ring.stage_address(&state), Tiles(input).source(t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if is_consumer(tid) {
        let col = (tid & 31) as usize;
        let mut state = State::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(ring.stage(&state), col);
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        if tid < 32 {
            store_result(out, col, acc);
        }
    }
}
