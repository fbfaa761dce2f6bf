//! Pipeline kernels organised around structs: a ring with methods, role structs holding the
//! pipeline and their state, a cursor pairing a state with its tile, layouts as constants, a
//! `#[repr(C)]` tile type.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use crate::{BLOCK_THREADS, COLS, CONSUMERS, ROWS, SHARED_BYTES, TILE_BYTES, TILE_FLOATS, column_sum, owned_tiles, store_column, tile_source};

// ------------------------------------------------------------------------------------------
// A ring with methods.
// ------------------------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct Ring<const S: u32> {
    base: *mut f32,
    window: u32,
}

impl<const S: u32> Ring<S> {
    #[inline(always)]
    fn at(offset: u32) -> Self {
        Ring {
            base: dynamic_shared_base::<u8>().wrapping_add(offset as usize) as *mut f32,
            window: dynamic_shared_window_address() + offset,
        }
    }

    #[inline(always)]
    fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        self.base.wrapping_add(state.index() as usize * TILE_FLOATS)
    }

    #[inline(always)]
    fn destination(&self, state: &PipelineState<S>) -> u32 {
        self.window + state.index() * TILE_BYTES
    }

    #[inline(always)]
    fn end(&self) -> u32 {
        self.window + S * TILE_BYTES
    }
}

/// Four stages at byte 0, barriers at the ring's end, addresses from `Ring`'s methods.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_ring_methods(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::at(0);
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(ring.end(), CONSUMERS) } else { Pipeline::<4>::attach(ring.end()) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(ring.destination(&state), tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.stage(&state), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Role structs.
// ------------------------------------------------------------------------------------------

struct Producer<'a, const S: u32> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring_window: u32,
    input: *const f32,
    next: u32,
    step: u32,
    end: u32,
}

impl<'a, const S: u32> Producer<'a, S> {
    #[inline(always)]
    fn new(pipe: &'a Pipeline<S>, ring_window: u32, input: *const f32, tiles: u32) -> Self {
        Producer { pipe, state: PipelineState::producer_start(), ring_window, input, next: block_idx_x(), step: grid_dim_x(), end: tiles }
    }

    #[inline(always)]
    unsafe fn run(mut self) {
        while self.next < self.end {
            self.pipe.producer_acquire(&self.state);
            self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
            bulk_copy_global_to_shared(
                self.ring_window + self.state.index() * TILE_BYTES,
                tile_source(self.input, self.next),
                TILE_BYTES,
                self.pipe.producer_barrier(&self.state),
            );
            self.state.advance();
            self.next += self.step;
        }
        self.pipe.producer_tail(self.state);
    }
}

struct Consumer<'a, const S: u32> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    col: usize,
    sum: f32,
}

impl<'a, const S: u32> Consumer<'a, S> {
    #[inline(always)]
    fn new(pipe: &'a Pipeline<S>, ring: *const f32, col: usize) -> Self {
        Consumer { pipe, state: PipelineState::new(), ring, col, sum: 0.0 }
    }

    #[inline(always)]
    unsafe fn take(&mut self) {
        self.pipe.consumer_wait(&self.state);
        self.sum += column_sum(self.ring.add(self.state.index() as usize * TILE_FLOATS), self.col);
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }

    #[inline(always)]
    unsafe fn finish(self, out: *mut f32) {
        store_column(out, self.col, self.sum);
    }
}

/// Three stages; a `Producer` struct runs its loop in `run(self)`, a `Consumer` struct takes
/// one tile per `take(&mut self)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_role_structs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + 7 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    if tid == 32 {
        Producer::new(&pipe, window, input, tiles).run();
    } else if tid < 32 {
        let mut consumer = Consumer::new(&pipe, dynamic_shared_base::<f32>(), tid as usize);
        for _ in 0..owned_tiles(tiles) {
            consumer.take();
        }
        consumer.finish(out);
    }
}

// ------------------------------------------------------------------------------------------
// A cursor: state and tile together.
// ------------------------------------------------------------------------------------------

#[derive(Default)]
struct Cursor<const S: u32> {
    state: PipelineState<S>,
    tile: u32,
    step: u32,
}

impl<const S: u32> Cursor<S> {
    #[inline(always)]
    fn producer(first: u32, step: u32) -> Self {
        Cursor { state: PipelineState::producer_start(), tile: first, step }
    }

    #[inline(always)]
    fn consumer(first: u32, step: u32) -> Self {
        Cursor { state: PipelineState::new(), tile: first, step }
    }

    #[inline(always)]
    fn live(&self, tiles: u32) -> bool {
        self.tile < tiles
    }

    #[inline(always)]
    fn advance(&mut self) {
        self.state.advance();
        self.tile += self.step;
    }
}

/// Six stages; each role walks a `Cursor` that advances its state and its tile together.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 6;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    if tid == 32 {
        let mut cursor = Cursor::<STAGES>::producer(block_idx_x(), grid_dim_x());
        while cursor.live(tiles) {
            pipe.producer_acquire(&cursor.state);
            pipe.producer_expect_tx(&cursor.state, TILE_BYTES);
            bulk_copy_global_to_shared(window + cursor.state.index() * TILE_BYTES, tile_source(input, cursor.tile), TILE_BYTES, pipe.producer_barrier(&cursor.state));
            cursor.advance();
        }
        pipe.producer_tail(cursor.state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut cursor = Cursor::<STAGES>::consumer(block_idx_x(), grid_dim_x());
        let mut sum = 0.0f32;
        while cursor.live(tiles) {
            pipe.consumer_wait(&cursor.state);
            sum += column_sum(ring.add(cursor.state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&cursor.state);
            cursor.advance();
        }
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Layouts as constants.
// ------------------------------------------------------------------------------------------

struct Layout {
    barriers: u32,
    ring: u32,
}

const BARRIERS_THEN_RING: Layout = Layout { barriers: 0, ring: 512 };

/// Four stages with the layout in a constant struct: barriers at 0, ring at 512.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_layout_constant(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const L: Layout = BARRIERS_THEN_RING;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + L.barriers, CONSUMERS) } else { Pipeline::<4>::attach(window + L.barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + L.ring + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(L.ring as usize / 4);
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
// An accumulator struct.
// ------------------------------------------------------------------------------------------

struct ColumnTotal {
    col: usize,
    total: f32,
    seen: u32,
}

impl ColumnTotal {
    #[inline(always)]
    unsafe fn absorb(&mut self, stage: *const f32) {
        for row in 0..ROWS {
            self.total += *stage.add(row * COLS + self.col);
        }
        self.seen += 1;
    }
}

/// Two stages; the consumers fold each stage into a `ColumnTotal` by a `&mut self` method.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_column_total(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<2>::init(barriers, CONSUMERS) } else { Pipeline::<2>::attach(barriers) };
    barrier();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        for k in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, block_idx_x() + k * grid_dim_x()), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut total = ColumnTotal { col: tid as usize, total: 0.0, seen: 0 };
        let mut state = PipelineState::<2>::new();
        while total.seen < n {
            pipe.consumer_wait(&state);
            total.absorb(ring.add(state.index() as usize * TILE_FLOATS));
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(out, total.col, total.total);
    }
}

// ------------------------------------------------------------------------------------------
// A `#[repr(C)]` tile type.
// ------------------------------------------------------------------------------------------

#[repr(C)]
struct Tile {
    rows: [[f32; COLS]; ROWS],
}

/// Five stages typed as `Tile`s; consumers read `tile.rows[r][col]` through a reference.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_repr_c_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 5;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * core::mem::size_of::<Tile>() as u32;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<Tile>();
        let col = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let tile: &Tile = &*ring.add(state.index() as usize);
            for row in tile.rows.iter() {
                sum += row[col];
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        store_column(out, col, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct CopyConsumer<'a> {
    pipe: &'a Pipeline<4>,
    state: PipelineState<4>,
    ring: *const f32,
    col: usize,
}

impl CopyConsumer<'_> {
    /// Takes `self` by value: the advance happens on a copy.
    #[inline(always)]
    unsafe fn take(mut self) -> f32 {
        self.pipe.consumer_wait(&self.state);
        let s = column_sum(self.ring.add(self.state.index() as usize * TILE_FLOATS), self.col);
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        s
    }
}

/// The consumer struct is `Copy` and its `take` takes `self` by value, so each call advances
/// a copy and the consumers read stage 0 every time; stage 1 is never released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_bad_consumer_advances_a_copy(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::at(0);
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(ring.end(), CONSUMERS) } else { Pipeline::<4>::attach(ring.end()) };
    barrier();
    if tid == 32 {
        Producer::new(&pipe, ring.window, input, tiles).run();
    } else if tid < 32 {
        let consumer = CopyConsumer { pipe: &pipe, state: PipelineState::new(), ring: ring.base, col: tid as usize };
        let mut sum = 0.0f32;
        for _ in 0..owned_tiles(tiles) {
            sum += consumer.take();
        }
        store_column(out, tid as usize, sum);
    }
}

const END_BARRIERS: Layout = Layout { barriers: SHARED_BYTES - pipeline_barrier_bytes(8), ring: 0 };

/// Eight stages with the barriers placed in the window's last 128 bytes, which are also the
/// end of stage 7: its copy overwrites them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_bad_barriers_at_window_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const L: Layout = END_BARRIERS;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<8>::init(window + L.barriers, CONSUMERS) } else { Pipeline::<8>::attach(window + L.barriers) };
    barrier();
    if tid == 32 {
        Producer::new(&pipe, window + L.ring, input, tiles).run();
    } else if tid < 32 {
        let mut consumer = Consumer::new(&pipe, dynamic_shared_base::<f32>(), tid as usize);
        for _ in 0..owned_tiles(tiles) {
            consumer.take();
        }
        consumer.finish(out);
    }
}

struct HoistedConsumer<'a> {
    pipe: &'a Pipeline<4>,
    state: PipelineState<4>,
    stage: *const f32,
    col: usize,
    sum: f32,
}

impl<'a> HoistedConsumer<'a> {
    #[inline(always)]
    fn new(pipe: &'a Pipeline<4>, ring: *const f32, col: usize) -> Self {
        let state = PipelineState::new();
        let stage = ring.wrapping_add(state.index() as usize * TILE_FLOATS);
        HoistedConsumer { pipe, state, stage, col, sum: 0.0 }
    }

    #[inline(always)]
    unsafe fn take(&mut self) {
        self.pipe.consumer_wait(&self.state);
        self.sum += column_sum(self.stage, self.col);
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// The consumer struct computes its stage pointer once, in `new`, from the fresh state: every
/// tile is read from stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_bad_stage_pointer_in_constructor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::at(0);
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(ring.end(), CONSUMERS) } else { Pipeline::<4>::attach(ring.end()) };
    barrier();
    if tid == 32 {
        Producer::new(&pipe, ring.window, input, tiles).run();
    } else if tid < 32 {
        let mut consumer = HoistedConsumer::new(&pipe, ring.base, tid as usize);
        let mut t = block_idx_x();
        while t < tiles {
            consumer.take();
            t += grid_dim_x();
        }
        store_column(out, consumer.col, consumer.sum);
    }
}

struct DefaultProducer<'a> {
    pipe: &'a Pipeline<3>,
    state: PipelineState<3>,
}

impl<'a> DefaultProducer<'a> {
    #[inline(always)]
    fn new(pipe: &'a Pipeline<3>) -> Self {
        DefaultProducer { pipe, state: PipelineState::default() }
    }

    #[inline(always)]
    unsafe fn put(&mut self, ring_window: u32, source: *const u8) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(ring_window + self.state.index() * TILE_BYTES, source, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }
}

/// The producer struct builds its state with `Default` (the consumers' start, phase 0): its
/// first acquire waits for a release that can never come.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_bad_producer_default_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 3 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<3>::init(barriers, CONSUMERS) } else { Pipeline::<3>::attach(barriers) };
    barrier();
    if tid == 32 {
        let mut producer = DefaultProducer::new(&pipe);
        let mut t = block_idx_x();
        while t < tiles {
            producer.put(window, tile_source(input, t));
            t += grid_dim_x();
        }
        pipe.producer_tail(producer.state);
    } else if tid < 32 {
        let mut consumer = Consumer::new(&pipe, dynamic_shared_base::<f32>(), tid as usize);
        for _ in 0..owned_tiles(tiles) {
            consumer.take();
        }
        consumer.finish(out);
    }
}

struct Roles {
    producer: u32,
    consumers: u32,
}

const ROLES: Roles = Roles { producer: 32, consumers: BLOCK_THREADS };

/// The roles constant gives the pipeline every thread of the block as releasing consumers
/// (64), but only warp 0 consumes: the empty barriers never complete.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_bad_release_count_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let ring = Ring::<4>::at(1024);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, ROLES.consumers) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == ROLES.producer {
        Producer::new(&pipe, ring.window, input, tiles).run();
    } else if tid < 32 {
        let mut consumer = Consumer::new(&pipe, ring.base, tid as usize);
        for _ in 0..owned_tiles(tiles) {
            consumer.take();
        }
        consumer.finish(out);
    }
}

/// The consumers' cursor is built with `..Default::default()` and so has a step of 0: it
/// never leaves the loop and waits for tiles nobody copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_struct_bad_cursor_default_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 6;
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(barriers, CONSUMERS) } else { Pipeline::<STAGES>::attach(barriers) };
    barrier();
    if tid == 32 {
        let mut cursor = Cursor::<STAGES>::producer(block_idx_x(), grid_dim_x());
        while cursor.live(tiles) {
            pipe.producer_acquire(&cursor.state);
            pipe.producer_expect_tx(&cursor.state, TILE_BYTES);
            bulk_copy_global_to_shared(window + cursor.state.index() * TILE_BYTES, tile_source(input, cursor.tile), TILE_BYTES, pipe.producer_barrier(&cursor.state));
            cursor.advance();
        }
        pipe.producer_tail(cursor.state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut cursor = Cursor::<STAGES> { tile: block_idx_x(), ..Default::default() };
        let mut sum = 0.0f32;
        while cursor.live(tiles) {
            pipe.consumer_wait(&cursor.state);
            sum += column_sum(ring.add(cursor.state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&cursor.state);
            cursor.advance();
        }
        store_column(out, tid as usize, sum);
    }
}
