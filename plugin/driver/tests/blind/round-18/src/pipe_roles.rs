//! Pipelines whose roles are structs with methods: a `Ring` that knows the layout, a
//! `Producer` that pushes tiles and a `Consumer` that takes them, built from a context that
//! holds the kernel's pointers.

#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

const S: u32 = 3;
const RING: u32 = 48;

/// Where the barriers and stages of the ring live.
#[derive(Clone, Copy)]
struct Ring {
    window: u32,
    base: *mut f32,
}

impl Ring {
    #[inline(always)]
    fn here() -> Ring {
        Ring { window: dynamic_shared_window_address(), base: dynamic_shared_base::<f32>() }
    }

    #[inline(always)]
    fn barriers(&self) -> u32 {
        self.window
    }

    #[inline(always)]
    fn slot_window(&self, stage: u32) -> u32 {
        self.window + RING + stage * TILE_BYTES
    }

    #[inline(always)]
    unsafe fn slot(&self, stage: u32) -> *const f32 {
        self.base.add(RING as usize / 4 + stage as usize * TILE_FLOATS)
    }
}

struct Producer<'a> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: Ring,
    input: *const f32,
}

impl<'a> Producer<'a> {
    #[inline(always)]
    fn new(pipe: &'a Pipeline<S>, ring: Ring, input: *const f32) -> Self {
        Producer { pipe, state: PipelineState::producer_start(), ring, input }
    }

    #[inline(always)]
    fn push(&mut self, t: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ring.slot_window(self.state.index()),
            tile_source(self.input, t),
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct Consumer<'a> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: Ring,
    lane: usize,
    acc: f32,
}

impl<'a> Consumer<'a> {
    #[inline(always)]
    fn new(pipe: &'a Pipeline<S>, ring: Ring, lane: u32) -> Self {
        Consumer { pipe, state: PipelineState::new(), ring, lane: lane as usize, acc: 0.0 }
    }

    #[inline(always)]
    unsafe fn take(&mut self) {
        self.pipe.consumer_wait(&self.state);
        self.acc += column_sum(self.ring.slot(self.state.index()), self.lane);
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }

    #[inline(always)]
    unsafe fn drain(mut self, count: u32) -> f32 {
        let mut k = 0;
        while k < count {
            self.take();
            k += 1;
        }
        self.acc
    }
}

/// The roles as structs, driven by the kernel's own loops.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_struct_methods(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::here();
    if tid == 0 {
        Pipeline::<S>::init(ring.barriers(), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(ring.barriers());
    if tid == 32 {
        let mut producer = Producer::new(&pipe, ring, input);
        let mut t = block_idx_x();
        while t < tiles {
            producer.push(t);
            t += grid_dim_x();
        }
        producer.finish();
    } else if tid < 32 {
        let mut consumer = Consumer::new(&pipe, ring, tid);
        let mut t = block_idx_x();
        while t < tiles {
            consumer.take();
            t += grid_dim_x();
        }
        store_column(out, tid, consumer.acc);
    }
}

/// The consumer drains a counted number of tiles in a method that consumes it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_consumer_drain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::here();
    let pipe = if tid == 0 { Pipeline::<S>::init(ring.barriers(), 32) } else { Pipeline::<S>::attach(ring.barriers()) };
    barrier();
    let count = owned_tiles(tiles);
    if tid < 32 {
        let total = Consumer::new(&pipe, ring, tid).drain(count);
        store_column(out, tid, total);
    } else if tid == 63 {
        let mut producer = Producer::new(&pipe, ring, input);
        let mut k = 0;
        while k < count {
            producer.push(owned_tile(k));
            k += 1;
        }
        producer.finish();
    }
}

/// What a kernel launch hands every role.
#[derive(Clone, Copy)]
struct Ctx {
    input: *const f32,
    out: *mut f32,
    tiles: u32,
    first: u32,
    step: u32,
}

impl Ctx {
    #[inline(always)]
    fn new(input: *const f32, tiles: u32, out: *mut f32) -> Ctx {
        Ctx { input, out, tiles, first: block_idx_x(), step: grid_dim_x() }
    }

    #[inline(always)]
    fn has(&self, t: u32) -> bool {
        t < self.tiles
    }
}

/// Pointers and bounds travel in a context struct and are copied into locals by each role.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_ctx_fields(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ctx = Ctx::new(input, tiles, out);
    let tid = thread_idx_x();
    let ring = Ring::here();
    if tid == 0 {
        Pipeline::<S>::init(ring.barriers(), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(ring.barriers());
    if tid == 44 {
        let src = ctx.input;
        let mut producer = Producer::new(&pipe, ring, src);
        let mut t = ctx.first;
        while ctx.has(t) {
            producer.push(t);
            t += ctx.step;
        }
        producer.finish();
    } else if tid < 32 {
        let local = ctx;
        let mut consumer = Consumer::new(&pipe, ring, tid);
        let mut t = local.first;
        while local.has(t) {
            consumer.take();
            t += local.step;
        }
        let dst = local.out;
        store_column(dst, tid, consumer.acc);
    }
}

/// Roles picked by a `match` on the warp, the producer by the lane inside warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_match_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::here();
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(ring.barriers(), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(ring.barriers());
    match warp_id() {
        0 => {
            let mut consumer = Consumer::new(&pipe, ring, lane_id());
            let mut t = block_idx_x();
            while t < tiles {
                consumer.take();
                t += grid_dim_x();
            }
            store_column(out, lane_id(), consumer.acc);
        }
        1 => {
            if lane_id() == 0 {
                let mut producer = Producer::new(&pipe, ring, input);
                let mut t = block_idx_x();
                while t < tiles {
                    producer.push(t);
                    t += grid_dim_x();
                }
                producer.finish();
            }
        }
        _ => {}
    }
}

enum Role<'a> {
    Produce(Producer<'a>),
    Consume(Consumer<'a>),
    Idle,
}

impl<'a> Role<'a> {
    #[inline(always)]
    fn of(tid: u32, pipe: &'a Pipeline<S>, ring: Ring, input: *const f32) -> Role<'a> {
        if tid < 32 {
            Role::Consume(Consumer::new(pipe, ring, tid))
        } else if tid == 32 {
            Role::Produce(Producer::new(pipe, ring, input))
        } else {
            Role::Idle
        }
    }
}

/// Each thread's role is an enum value built once and matched once.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_role_enum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::here();
    if tid == 0 {
        Pipeline::<S>::init(ring.barriers(), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(ring.barriers());
    match Role::of(tid, &pipe, ring, input) {
        Role::Produce(mut p) => {
            let mut t = block_idx_x();
            while t < tiles {
                p.push(t);
                t += grid_dim_x();
            }
            p.finish();
        }
        Role::Consume(mut c) => {
            let mut t = block_idx_x();
            while t < tiles {
                c.take();
                t += grid_dim_x();
            }
            store_column(out, tid, c.acc);
        }
        Role::Idle => {}
    }
}

/// A producer with its own tile cursor; `commit` ends a tile.
struct CursorProducer<'a> {
    pipe: &'a Pipeline<4>,
    state: PipelineState<4>,
    tile: u32,
}

impl CursorProducer<'_> {
    #[inline(always)]
    fn step(&mut self) {
        self.state.advance();
        self.tile += grid_dim_x();
    }

    #[inline(always)]
    fn push(&mut self, input: *const f32, window: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + 64 + self.state.index() * TILE_BYTES,
            tile_source(input, self.tile),
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
    }
}

/// Broken: `push` advances the state and the loop's `step` advances it again, so the producer
/// fills stages 0, 2, 0, 2, … while the consumers wait on stage 1 forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_bad_push_then_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    if tid == 32 {
        let mut p = CursorProducer { pipe: &pipe, state: PipelineState::producer_start(), tile: block_idx_x() };
        while p.tile < tiles {
            p.push(input, window);
            p.step();
        }
        pipe.producer_tail(p.state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(16);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// A consumer that releases each stage one tile late, while it already holds the next one.
struct LaggingConsumer<'a> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    held: Option<PipelineState<S>>,
    ring: Ring,
    acc: f32,
}

impl LaggingConsumer<'_> {
    #[inline(always)]
    unsafe fn take(&mut self, lane: usize) {
        self.pipe.consumer_wait(&self.state);
        self.acc += column_sum(self.ring.slot(self.state.index()), lane);
        if let Some(previous) = self.held.take() {
            self.pipe.consumer_release(&previous);
        }
        self.held = Some(self.state);
        self.state.advance();
    }
}

/// Broken: the consumer releases each stage one tile late and nothing releases the stage it
/// still holds after the last tile; the producer's tail waits for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_bad_deferred_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::here();
    if tid == 0 {
        Pipeline::<S>::init(ring.barriers(), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(ring.barriers());
    if tid == 32 {
        let mut producer = Producer::new(&pipe, ring, input);
        let mut t = block_idx_x();
        while t < tiles {
            producer.push(t);
            t += grid_dim_x();
        }
        producer.finish();
    } else if tid < 32 {
        let mut c = LaggingConsumer { pipe: &pipe, state: PipelineState::new(), held: None, ring, acc: 0.0 };
        let mut t = block_idx_x();
        while t < tiles {
            c.take(tid as usize);
            t += grid_dim_x();
        }
        store_column(out, tid, c.acc);
    }
}

/// A consumer that is `Copy` and takes a tile by value.
#[derive(Clone, Copy)]
struct TileTaker<'a> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: Ring,
}

impl TileTaker<'_> {
    #[inline(always)]
    unsafe fn take(mut self, lane: usize) -> f32 {
        self.pipe.consumer_wait(&self.state);
        let v = column_sum(self.ring.slot(self.state.index()), lane);
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        v
    }
}

/// Broken: `take` works on a copy of the consumer, so the caller's state never advances; the
/// warp reads stage 0 again and again and the producer waits for stage 1 to be released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_bad_taker_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::here();
    if tid == 0 {
        Pipeline::<S>::init(ring.barriers(), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(ring.barriers());
    if tid == 32 {
        let mut producer = Producer::new(&pipe, ring, input);
        let mut t = block_idx_x();
        while t < tiles {
            producer.push(t);
            t += grid_dim_x();
        }
        producer.finish();
    } else if tid < 32 {
        let taker = TileTaker { pipe: &pipe, state: PipelineState::new(), ring };
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += taker.take(tid as usize);
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the consumers' ring view forgets the barrier area in front of the stages, so every
/// read lands 48 bytes before the tile the copy wrote.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_bad_view_base(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::here();
    if tid == 0 {
        Pipeline::<S>::init(ring.barriers(), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(ring.barriers());
    if tid == 32 {
        let mut producer = Producer::new(&pipe, ring, input);
        let mut t = block_idx_x();
        while t < tiles {
            producer.push(t);
            t += grid_dim_x();
        }
        producer.finish();
    } else if tid < 32 {
        let view = ring.base as *const f32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(view.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// A producer that guards its global read against running past the input.
struct GuardedProducer<'a> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: Ring,
    input: *const f32,
    tiles: u32,
}

impl GuardedProducer<'_> {
    #[inline(always)]
    fn push(&mut self, t: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        if t + grid_dim_x() <= self.tiles {
            bulk_copy_global_to_shared(
                self.ring.slot_window(self.state.index()),
                tile_source(self.input, t),
                TILE_BYTES,
                self.pipe.producer_barrier(&self.state),
            );
        }
        self.state.advance();
    }
}

/// Broken: the guard in `push` is one grid step too strict, so the last tile of blocks 1..7 is
/// announced but never copied; its *full* barrier never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pr_bad_guarded_copy(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::here();
    if tid == 0 {
        Pipeline::<S>::init(ring.barriers(), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(ring.barriers());
    if tid == 32 {
        let mut p = GuardedProducer { pipe: &pipe, state: PipelineState::producer_start(), ring, input, tiles };
        let mut t = block_idx_x();
        while t < tiles {
            p.push(t);
            t += grid_dim_x();
        }
        pipe.producer_tail(p.state);
    } else if tid < 32 {
        let mut consumer = Consumer::new(&pipe, ring, tid);
        let mut t = block_idx_x();
        while t < tiles {
            consumer.take();
            t += grid_dim_x();
        }
        store_column(out, tid, consumer.acc);
    }
}
