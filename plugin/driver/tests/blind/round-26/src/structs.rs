//! Structs, methods and traits: a ring object, a work cursor, roles as trait impls (static and
//! `dyn`), states kept in arrays, enums as per-tile state machines, two pipelines in one kernel.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const S: u32 = 4;

struct Ring<const N: u32> {
    pipe: Pipeline<N>,
    window: u32,
    base: *const f32,
}

impl<const N: u32> Ring<N> {
    #[inline(always)]
    unsafe fn stage(&self, state: &PipelineState<N>) -> *const f32 {
        self.base.add(state.index() as usize * TILE_FLOATS)
    }

    #[inline(always)]
    unsafe fn push(&self, state: &mut PipelineState<N>, src: *const f32) {
        self.pipe.producer_acquire(state);
        self.pipe.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(self.window + state.index() * TILE_BYTES, src.cast(), TILE_BYTES, self.pipe.producer_barrier(state));
        state.advance();
    }

    #[inline(always)]
    unsafe fn pop(&self, state: &mut PipelineState<N>, col: usize) -> f32 {
        self.pipe.consumer_wait(state);
        let stage = self.stage(state);
        let mut s = 0.0f32;
        for r in 0..8usize {
            s += *stage.add(r * 32 + col);
        }
        self.pipe.consumer_release(state);
        state.advance();
        s
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_ring_methods(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let ring = Ring::<S> { pipe: Pipeline::attach(bars), window, base: dynamic_shared_base::<f32>() };
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            ring.push(&mut state, input.add(t as usize * TILE_FLOATS));
            t += grid;
        }
        ring.pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            acc += ring.pop(&mut state, tid as usize);
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

#[derive(Clone, Copy)]
struct Cursor {
    next: u32,
    step: u32,
    end: u32,
}

impl Cursor {
    #[inline(always)]
    fn of_block(tiles: u32) -> Self {
        Cursor { next: block_idx_x(), step: grid_dim_x(), end: tiles }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_cursor_struct(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut work = Cursor::of_block(tiles);
        let mut state = PipelineState::<S>::producer_start();
        while work.next < work.end {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(work.next as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            work.next += work.step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut work = Cursor::of_block(tiles);
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        while work.next < work.end {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            work.next += work.step;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

struct Ctx {
    pipe: Pipeline<S>,
    window: u32,
    ring: *const f32,
    input: *const f32,
    out: *mut f32,
    tiles: u32,
    block: u32,
    grid: u32,
}

trait Role {
    unsafe fn run(&self, cx: &Ctx);
}

struct Producer;
struct Consumer {
    col: u32,
}

impl Role for Producer {
    unsafe fn run(&self, cx: &Ctx) {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = cx.block;
        while t < cx.tiles {
            cx.pipe.producer_acquire(&state);
            cx.pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(cx.window + state.index() * TILE_BYTES, cx.input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, cx.pipe.producer_barrier(&state));
            state.advance();
            t += cx.grid;
        }
        cx.pipe.producer_tail(state);
    }
}

impl Role for Consumer {
    unsafe fn run(&self, cx: &Ctx) {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = cx.block;
        while t < cx.tiles {
            cx.pipe.consumer_wait(&state);
            let stage = cx.ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + self.col as usize);
            }
            cx.pipe.consumer_release(&state);
            state.advance();
            t += cx.grid;
        }
        *cx.out.add((cx.block * 32 + self.col) as usize) = acc;
    }
}

#[inline(always)]
unsafe fn dispatch<R: Role>(role: R, cx: &Ctx) {
    role.run(cx);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_trait_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let cx = Ctx {
        pipe: Pipeline::attach(bars),
        window,
        ring: dynamic_shared_base::<f32>(),
        input,
        out,
        tiles,
        block: block_idx_x(),
        grid: grid_dim_x(),
    };
    match tid {
        32 => dispatch(Producer, &cx),
        0..=31 => dispatch(Consumer { col: tid }, &cx),
        _ => {}
    }
}

trait TileSink {
    unsafe fn take(&mut self, stage: *const f32);
    fn total(&self) -> f32;
}

struct ColumnSink {
    col: usize,
    acc: f32,
}

impl TileSink for ColumnSink {
    unsafe fn take(&mut self, stage: *const f32) {
        for r in 0..8usize {
            self.acc += *stage.add(r * 32 + self.col);
        }
    }
    fn total(&self) -> f32 {
        self.acc
    }
}

/// The consumers hand each waited stage to a `&mut dyn TileSink`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_dyn_sink(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut column = ColumnSink { col: tid as usize, acc: 0.0 };
        let sink: &mut dyn TileSink = &mut column;
        let mut state = PipelineState::<S>::new();
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            sink.take(ring.add(state.index() as usize * TILE_FLOATS));
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = sink.total();
    }
}

const HALF_BYTES: u32 = 512;
const HALF_FLOATS: usize = 128;

/// Two pipelines: ring A (bytes 0..2048) carries rows 0-3 of each tile, ring B (2048..4096)
/// rows 4-7; barriers at 4096 and 4160. Each role keeps its two states in an array.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_two_pipes_state_array(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let ring_b_window = window + S * HALF_BYTES;
    let ring_b = base.add(S as usize * HALF_FLOATS);
    let bars_a = window + 4096;
    let bars_b = window + 4096 + 64;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars_a, 32);
        let _ = Pipeline::<S>::init(bars_b, 32);
    }
    barrier();
    let pa = Pipeline::<S>::attach(bars_a);
    let pb = Pipeline::<S>::attach(bars_b);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut states = [PipelineState::<S>::producer_start(); 2];
        let mut t = block;
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            pa.producer_acquire(&states[0]);
            pa.producer_expect_tx(&states[0], HALF_BYTES);
            bulk_copy_global_to_shared(window + states[0].index() * HALF_BYTES, src.cast(), HALF_BYTES, pa.producer_barrier(&states[0]));
            states[0].advance();
            pb.producer_acquire(&states[1]);
            pb.producer_expect_tx(&states[1], HALF_BYTES);
            bulk_copy_global_to_shared(ring_b_window + states[1].index() * HALF_BYTES, src.add(HALF_FLOATS).cast(), HALF_BYTES, pb.producer_barrier(&states[1]));
            states[1].advance();
            t += grid;
        }
        pa.producer_tail(states[0]);
        pb.producer_tail(states[1]);
    } else if tid < 32 {
        let c = tid as usize;
        let mut states = [PipelineState::<S>::new(); 2];
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pa.consumer_wait(&states[0]);
            let a = base.add(states[0].index() as usize * HALF_FLOATS);
            for r in 0..4usize {
                acc += *a.add(r * 32 + c);
            }
            pa.consumer_release(&states[0]);
            states[0].advance();
            pb.consumer_wait(&states[1]);
            let b = ring_b.add(states[1].index() as usize * HALF_FLOATS);
            for r in 0..4usize {
                acc += *b.add(r * 32 + c);
            }
            pb.consumer_release(&states[1]);
            states[1].advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

#[derive(Clone, Copy)]
enum Step {
    Wait,
    Read,
    Release,
}

/// Each consumer tile is a small `loop { match step { … } }` state machine.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_enum_machine(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            let mut step = Step::Wait;
            loop {
                match step {
                    Step::Wait => {
                        pipe.consumer_wait(&state);
                        step = Step::Read;
                    }
                    Step::Read => {
                        let stage = ring.add(state.index() as usize * TILE_FLOATS);
                        for r in 0..8usize {
                            acc += *stage.add(r * 32 + tid as usize);
                        }
                        step = Step::Release;
                    }
                    Step::Release => {
                        pipe.consumer_release(&state);
                        state.advance();
                        break;
                    }
                }
            }
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------- broken

struct HalfRing {
    pipe: Pipeline<S>,
    window: u32,
    base: *const f32,
}

impl HalfRing {
    #[inline(always)]
    unsafe fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        // Stage stride in floats taken as 128: half a tile.
        self.base.add(state.index() as usize * (TILE_FLOATS / 2))
    }
}

/// Broken: the ring's stage method strides by 128 floats while copies land 1024 bytes apart.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_bad_stage_method_half_stride(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let ring = HalfRing { pipe: Pipeline::attach(bars), window, base: dynamic_shared_base::<f32>() };
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            ring.pipe.producer_acquire(&state);
            ring.pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(ring.window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, ring.pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        ring.pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            ring.pipe.consumer_wait(&state);
            let stage = ring.stage(&state);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            ring.pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Broken: the consumers' cursor steps by 1 instead of the grid, taking every tile from `block`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_bad_cursor_step_one(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut work = Cursor::of_block(tiles);
        let mut state = PipelineState::<S>::producer_start();
        while work.next < work.end {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(work.next as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            work.next += work.step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut work = Cursor { step: 1, ..Cursor::of_block(tiles) };
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        while work.next < work.end {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            work.next += work.step;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Broken: the second half is waited on pipeline B and released on pipeline A.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_bad_two_pipes_release_crossed(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let ring_b_window = window + S * HALF_BYTES;
    let ring_b = base.add(S as usize * HALF_FLOATS);
    let bars_a = window + 4096;
    let bars_b = window + 4096 + 64;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars_a, 32);
        let _ = Pipeline::<S>::init(bars_b, 32);
    }
    barrier();
    let pa = Pipeline::<S>::attach(bars_a);
    let pb = Pipeline::<S>::attach(bars_b);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut states = [PipelineState::<S>::producer_start(); 2];
        let mut t = block;
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            pa.producer_acquire(&states[0]);
            pa.producer_expect_tx(&states[0], HALF_BYTES);
            bulk_copy_global_to_shared(window + states[0].index() * HALF_BYTES, src.cast(), HALF_BYTES, pa.producer_barrier(&states[0]));
            states[0].advance();
            pb.producer_acquire(&states[1]);
            pb.producer_expect_tx(&states[1], HALF_BYTES);
            bulk_copy_global_to_shared(ring_b_window + states[1].index() * HALF_BYTES, src.add(HALF_FLOATS).cast(), HALF_BYTES, pb.producer_barrier(&states[1]));
            states[1].advance();
            t += grid;
        }
        pa.producer_tail(states[0]);
        pb.producer_tail(states[1]);
    } else if tid < 32 {
        let c = tid as usize;
        let mut states = [PipelineState::<S>::new(); 2];
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pa.consumer_wait(&states[0]);
            let a = base.add(states[0].index() as usize * HALF_FLOATS);
            for r in 0..4usize {
                acc += *a.add(r * 32 + c);
            }
            pa.consumer_release(&states[0]);
            states[0].advance();
            pb.consumer_wait(&states[1]);
            let b = ring_b.add(states[1].index() as usize * HALF_FLOATS);
            for r in 0..4usize {
                acc += *b.add(r * 32 + c);
            }
            pa.consumer_release(&states[1]);
            states[1].advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: the B half's copy completes on pipeline A's full barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_bad_two_pipes_copy_on_a(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let ring_b_window = window + S * HALF_BYTES;
    let ring_b = base.add(S as usize * HALF_FLOATS);
    let bars_a = window + 4096;
    let bars_b = window + 4096 + 64;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars_a, 32);
        let _ = Pipeline::<S>::init(bars_b, 32);
    }
    barrier();
    let pa = Pipeline::<S>::attach(bars_a);
    let pb = Pipeline::<S>::attach(bars_b);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut sa = PipelineState::<S>::producer_start();
        let mut sb = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            pa.producer_acquire(&sa);
            pa.producer_expect_tx(&sa, HALF_BYTES);
            bulk_copy_global_to_shared(window + sa.index() * HALF_BYTES, src.cast(), HALF_BYTES, pa.producer_barrier(&sa));
            sa.advance();
            pb.producer_acquire(&sb);
            pb.producer_expect_tx(&sb, HALF_BYTES);
            bulk_copy_global_to_shared(ring_b_window + sb.index() * HALF_BYTES, src.add(HALF_FLOATS).cast(), HALF_BYTES, pa.producer_barrier(&sb));
            sb.advance();
            t += grid;
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid < 32 {
        let c = tid as usize;
        let mut sa = PipelineState::<S>::new();
        let mut sb = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pa.consumer_wait(&sa);
            let a = base.add(sa.index() as usize * HALF_FLOATS);
            for r in 0..4usize {
                acc += *a.add(r * 32 + c);
            }
            pa.consumer_release(&sa);
            sa.advance();
            pb.consumer_wait(&sb);
            let b = ring_b.add(sb.index() as usize * HALF_FLOATS);
            for r in 0..4usize {
                acc += *b.add(r * 32 + c);
            }
            pb.consumer_release(&sb);
            sb.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: the enum machine goes from `Read` straight to `Advance`, never releasing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_bad_enum_skips_release(input: *const f32, tiles: u32, out: *mut f32) {
    #[derive(Clone, Copy)]
    #[allow(dead_code)]
    enum Phase {
        Wait,
        Read,
        Release,
        Advance,
    }
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            let mut phase = Phase::Wait;
            loop {
                match phase {
                    Phase::Wait => {
                        pipe.consumer_wait(&state);
                        phase = Phase::Read;
                    }
                    Phase::Read => {
                        let stage = ring.add(state.index() as usize * TILE_FLOATS);
                        for r in 0..8usize {
                            acc += *stage.add(r * 32 + tid as usize);
                        }
                        phase = Phase::Advance;
                    }
                    Phase::Release => {
                        pipe.consumer_release(&state);
                        phase = Phase::Advance;
                    }
                    Phase::Advance => {
                        state.advance();
                        break;
                    }
                }
            }
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

trait Split {
    const PRODUCER: u32;
    const CONSUMERS: u32;
}

struct WarpZeroSplit;

impl Split for WarpZeroSplit {
    // The producer was meant to be thread 32; thread 31 is taken out of the consumers.
    const PRODUCER: u32 = 31;
    const CONSUMERS: u32 = 32;
}

/// Broken: the role split's producer is thread 31, which the `else if tid < CONSUMERS` chain
/// then excludes from the 32 consumers the barriers expect.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_st_bad_split_producer_in_warp(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    type P = WarpZeroSplit;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, <P as Split>::CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == <P as Split>::PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < <P as Split>::CONSUMERS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}
