//! Pipeline kernels organised around structs with methods: a `Ring` that owns the pipeline and
//! its stages, role structs holding their state, a tile cursor implementing `Iterator`, and a
//! compile-time layout.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;

/// A ring of `S` one-tile stages at the start of the window, barriers after it.
#[derive(Clone, Copy)]
struct Ring<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    base: *mut f32,
}

impl<const S: u32> Ring<S> {
    /// Made by every thread; thread `init_thread` initialises the barriers. Contains the block
    /// barrier, so every thread must call it.
    #[inline(always)]
    fn new(init_thread: u32, consumers: u32) -> Self {
        let window = dynamic_shared_window_address();
        let bars = window + S * TILE_BYTES;
        if thread_idx_x() == init_thread {
            Pipeline::<S>::init(bars, consumers);
        }
        barrier();
        Ring { pipe: Pipeline::<S>::attach(bars), window, base: dynamic_shared_base::<f32>() }
    }

    #[inline(always)]
    fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        self.base.wrapping_add((state.index() * TILE_FLOATS) as usize)
    }

    #[inline(always)]
    unsafe fn push(&self, state: &mut PipelineState<S>, src: *const f32) {
        self.pipe.producer_acquire(state);
        self.pipe.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.window + state.index() * TILE_BYTES,
            src as *const u8,
            TILE_BYTES,
            self.pipe.producer_barrier(state),
        );
        state.advance();
    }

    #[inline(always)]
    unsafe fn pop_column(&self, state: &mut PipelineState<S>, col: u32) -> f32 {
        self.pipe.consumer_wait(state);
        let stage = self.stage(state);
        let mut sum = 0.0;
        for r in 0..ROWS {
            sum += *stage.add((r * COLS + col) as usize);
        }
        self.pipe.consumer_release(state);
        state.advance();
        sum
    }
}

/// A ring with push/pop methods; producer thread 32, consumers warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_ring_push_pop(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let ring = Ring::<4>::new(0, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = first;
        while t < tiles {
            ring.push(&mut state, input.add((t * TILE_FLOATS) as usize));
            t += step;
        }
        ring.pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += ring.pop_column(&mut state, tid);
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// The producer's side: its state and the tiles it still has to copy.
struct Producer<const S: u32> {
    state: PipelineState<S>,
    next: u32,
    step: u32,
    end: u32,
}

impl<const S: u32> Producer<S> {
    fn new(end: u32) -> Self {
        Producer { state: PipelineState::producer_start(), next: block_idx_x(), step: grid_dim_x(), end }
    }

    /// Copies the next tile; false once there is none.
    #[inline(always)]
    unsafe fn step(&mut self, ring: &Ring<S>, input: *const f32) -> bool {
        if self.next >= self.end {
            return false;
        }
        ring.push(&mut self.state, input.add((self.next * TILE_FLOATS) as usize));
        self.next += self.step;
        true
    }

    #[inline(always)]
    fn finish(self, ring: &Ring<S>) {
        ring.pipe.producer_tail(self.state);
    }
}

/// The consumer's side: its state, its column and its running sum.
struct Consumer<const S: u32> {
    state: PipelineState<S>,
    col: u32,
    acc: f32,
}

impl<const S: u32> Consumer<S> {
    fn new(col: u32) -> Self {
        Consumer { state: PipelineState::new(), col, acc: 0.0 }
    }

    #[inline(always)]
    unsafe fn take(&mut self, ring: &Ring<S>) {
        self.acc += ring.pop_column(&mut self.state, self.col);
    }

    #[inline(always)]
    unsafe fn write(self, out: *mut f32) {
        *out.add((block_idx_x() * COLS + self.col) as usize) = self.acc;
    }
}

/// Role structs with methods; three stages, producer thread 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let ring = Ring::<3>::new(0, COLS);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut producer = Producer::<3>::new(tiles);
        while producer.step(&ring, input) {}
        producer.finish(&ring);
    } else if tid < COLS {
        let mut consumer = Consumer::<3>::new(tid);
        let mut t = block_idx_x();
        while t < tiles {
            consumer.take(&ring);
            t += grid_dim_x();
        }
        consumer.write(out);
    }
}

/// The tiles a block owns, as an iterator.
#[derive(Clone, Copy)]
struct TileCursor {
    next: u32,
    step: u32,
    end: u32,
}

impl TileCursor {
    fn for_block(end: u32) -> Self {
        TileCursor { next: block_idx_x(), step: grid_dim_x(), end }
    }
}

impl Iterator for TileCursor {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.next < self.end {
            let t = self.next;
            self.next += self.step;
            Some(t)
        } else {
            None
        }
    }
}

/// Both roles walk their tiles with a `TileCursor`; four stages, producer thread 48.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_tile_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let ring = Ring::<4>::new(0, COLS);
    let tid = thread_idx_x();
    if tid == 48 {
        let mut state = PipelineState::<4>::producer_start();
        for t in TileCursor::for_block(tiles) {
            ring.push(&mut state, input.add((t * TILE_FLOATS) as usize));
        }
        ring.pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in TileCursor::for_block(tiles) {
            acc += ring.pop_column(&mut state, tid);
        }
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// Where a pipeline of `S` stages lives, computed at compile time.
struct Layout<const S: u32>;

impl<const S: u32> Layout<S> {
    const RING: u32 = 0;
    const BARS: u32 = Self::RING + S * TILE_BYTES;
    const END: u32 = Self::BARS + pipeline_barrier_bytes(S);
    const FITS: () = assert!(Self::END <= 8192);
}

/// Six stages placed by a const `Layout`, producer thread 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_const_layout(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 6;
    type L = Layout<S>;
    let () = L::FITS;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((L::RING / 4) as usize);
    if tid == 0 {
        Pipeline::<S>::init(window + L::BARS, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + L::BARS);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + L::RING + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Each role keeps its own copy of the (Copy) pipeline handle in its struct.
struct Worker<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
}

impl<const S: u32> Worker<S> {
    #[inline(always)]
    unsafe fn produce(&mut self, window: u32, src: *const u8) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(window + self.state.index() * TILE_BYTES, src, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }

    #[inline(always)]
    unsafe fn consume(&mut self, ring: *const f32, col: u32) -> f32 {
        self.pipe.consumer_wait(&self.state);
        let stage = ring.add((self.state.index() * TILE_FLOATS) as usize);
        let mut s = 0.0;
        for r in 0..ROWS {
            s += *stage.add((r * COLS + col) as usize);
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        s
    }
}

/// Two stages; the producer and consumer workers each hold the pipeline by value.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_worker_copies(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut w = Worker { pipe: Pipeline::<S>::attach(bars), state: PipelineState::producer_start() };
        let mut t = first;
        while t < tiles {
            w.produce(window, input.add((t * TILE_FLOATS) as usize) as *const u8);
            t += step;
        }
        w.pipe.producer_tail(w.state);
    } else if tid < COLS {
        let mut w = Worker { pipe: Pipeline::<S>::attach(bars), state: PipelineState::new() };
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += w.consume(ring, tid);
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// A ring whose stage pointer is scaled by the tile's bytes on an `f32` pointer.
struct ByteRing<const S: u32> {
    inner: Ring<S>,
}

impl<const S: u32> ByteRing<S> {
    #[inline(always)]
    fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        self.inner.base.wrapping_add((state.index() * TILE_BYTES) as usize)
    }
}

/// BROKEN: `ByteRing::stage` offsets an `f32` pointer by `index * 1024`, four tiles per stage:
/// stage 1 is read at byte 4096, past the two-stage ring and its barriers, where nothing is
/// copied.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_bad_stage_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let ring = ByteRing { inner: Ring::<2>::new(0, COLS) };
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = first;
        while t < tiles {
            ring.inner.push(&mut state, input.add((t * TILE_FLOATS) as usize));
            t += step;
        }
        ring.inner.pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            ring.inner.pipe.consumer_wait(&state);
            let stage = ring.stage(&state);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            ring.inner.pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// A producer that "looks ahead" to decide whether a tile is worth copying.
struct EagerProducer<const S: u32> {
    state: PipelineState<S>,
    next: u32,
    step: u32,
    end: u32,
}

impl<const S: u32> EagerProducer<S> {
    #[inline(always)]
    fn has_more(&self) -> bool {
        self.next + self.step < self.end
    }

    #[inline(always)]
    unsafe fn step(&mut self, ring: &Ring<S>, input: *const f32) {
        ring.push(&mut self.state, input.add((self.next * TILE_FLOATS) as usize));
        self.next += self.step;
    }
}

/// BROKEN: `has_more` tests the tile after the next one, so the producer stops one tile short
/// (seven of eight); the consumers wait for the eighth forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_bad_producer_stops_early(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let ring = Ring::<4>::new(0, COLS);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut p = EagerProducer::<4> {
            state: PipelineState::producer_start(),
            next: block_idx_x(),
            step: grid_dim_x(),
            end: tiles,
        };
        while p.has_more() {
            p.step(&ring, input);
        }
        ring.pipe.producer_tail(p.state);
    } else if tid < COLS {
        let mut consumer = Consumer::<4>::new(tid);
        let mut t = block_idx_x();
        while t < tiles {
            consumer.take(&ring);
            t += grid_dim_x();
        }
        consumer.write(out);
    }
}

/// A cursor whose `next` steps before it hands out the tile.
struct SteppingCursor {
    at: u32,
    step: u32,
    end: u32,
}

impl Iterator for SteppingCursor {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        self.at += self.step;
        if self.at < self.end { Some(self.at) } else { None }
    }
}

/// BROKEN: the consumers count tiles with a cursor that steps before yielding, so they take
/// seven tiles where the producer copies eight; the producer's tail waits for the eighth
/// release forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_bad_cursor_steps_first(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let ring = Ring::<4>::new(0, COLS);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        for t in TileCursor::for_block(tiles) {
            ring.push(&mut state, input.add((t * TILE_FLOATS) as usize));
        }
        ring.pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let cursor = SteppingCursor { at: block_idx_x(), step: grid_dim_x(), end: tiles };
        for _ in cursor {
            acc += ring.pop_column(&mut state, tid);
        }
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// A consumer whose read method was split from its wait method.
struct SplitConsumer<const S: u32> {
    state: PipelineState<S>,
    col: u32,
}

impl<const S: u32> SplitConsumer<S> {
    #[inline(always)]
    unsafe fn peek(&self, ring: &Ring<S>) -> f32 {
        let stage = ring.stage(&self.state);
        let mut s = 0.0;
        for r in 0..ROWS {
            s += *stage.add((r * COLS + self.col) as usize);
        }
        s
    }

    #[inline(always)]
    fn ready(&self, ring: &Ring<S>) {
        ring.pipe.consumer_wait(&self.state);
    }

    #[inline(always)]
    fn done(&mut self, ring: &Ring<S>) {
        ring.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// BROKEN: the consumer calls `peek` before `ready`, reading each stage before its copy has
/// landed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_bad_peek_before_ready(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let ring = Ring::<4>::new(0, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = first;
        while t < tiles {
            ring.push(&mut state, input.add((t * TILE_FLOATS) as usize));
            t += step;
        }
        ring.pipe.producer_tail(state);
    } else if tid < COLS {
        let mut c = SplitConsumer::<4> { state: PipelineState::new(), col: tid };
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            let v = c.peek(&ring);
            c.ready(&ring);
            acc += v;
            c.done(&ring);
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// A consumer whose step borrows itself immutably and advances a copy of its state.
struct ShyConsumer<const S: u32> {
    state: PipelineState<S>,
    col: u32,
}

impl<const S: u32> ShyConsumer<S> {
    #[inline(always)]
    unsafe fn take(&self, ring: &Ring<S>) -> f32 {
        let mut state = self.state;
        ring.pipe.consumer_wait(&state);
        let stage = ring.stage(&state);
        let mut s = 0.0;
        for r in 0..ROWS {
            s += *stage.add((r * COLS + self.col) as usize);
        }
        ring.pipe.consumer_release(&state);
        state.advance();
        s
    }
}

/// BROKEN: `ShyConsumer::take` advances a copy of the state, so every tile waits on and
/// releases stage 0: stage 1 is never released and the producer hangs once the ring wraps.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_struct_bad_consumer_by_ref(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let ring = Ring::<3>::new(0, COLS);
    let tid = thread_idx_x();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<3>::producer_start();
        let mut t = first;
        while t < tiles {
            ring.push(&mut state, input.add((t * TILE_FLOATS) as usize));
            t += step;
        }
        ring.pipe.producer_tail(state);
    } else if tid < COLS {
        let c = ShyConsumer::<3> { state: PipelineState::new(), col: tid };
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += c.take(&ring);
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}
