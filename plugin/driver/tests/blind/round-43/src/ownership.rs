//! Style 4 (`ownership`): stage access modelled with owned values.
//!
//! A [`RingBuilder`] sets the pipeline up and hands out its pieces; each step of the protocol is a
//! method that consumes one token and returns the next: a [`Producer`] is `acquire`d into an
//! [`Armed`] stage that must be `fill`ed (which gives the producer back, advanced), a [`Consumer`]
//! `wait`s into a [`Full`] stage that is read and then `release`d (which gives the consumer back,
//! advanced). No `Drop` impls: every release is an explicit call that takes `self`. Byte and
//! float counts are newtypes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const THREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
const ROWS: u32 = 8;
const COLS: u32 = 32;

/// A count of `f32` elements.
#[derive(Clone, Copy)]
struct Floats(u32);

/// A count of bytes.
#[derive(Clone, Copy)]
struct Bytes(u32);

impl Floats {
    const fn bytes(self) -> Bytes {
        Bytes(self.0 * 4)
    }
}

/// A byte offset into the dynamic shared-memory window.
#[derive(Clone, Copy)]
struct Offset(u32);

const TILE: Floats = Floats(ROWS * COLS);
const TILE_BYTES: Bytes = TILE.bytes();

/// The configuration of a ring; `build` turns it into a [`Ring`].
struct RingBuilder<const S: u32> {
    ring: Offset,
    barriers: Offset,
    consumers: u32,
}

impl<const S: u32> RingBuilder<S> {
    /// Ring from byte 0, barriers right after it, one warp of consumers.
    const fn new() -> Self {
        RingBuilder { ring: Offset(0), barriers: Offset(S * TILE_BYTES.0), consumers: COLS }
    }

    const fn ring_at(self, ring: Offset) -> Self {
        RingBuilder { ring, ..self }
    }

    const fn barriers_at(self, barriers: Offset) -> Self {
        RingBuilder { barriers, ..self }
    }

    /// `leader` initialises the barriers; every thread of the block must call this (it syncs).
    #[inline(always)]
    unsafe fn build(self, leader: bool) -> Ring<S> {
        let window = dynamic_shared_window_address();
        if leader {
            Pipeline::<S>::init(window + self.barriers.0, self.consumers);
        }
        barrier();
        Ring {
            pipe: Pipeline::<S>::attach(window + self.barriers.0),
            bars_addr: window + self.barriers.0,
            ring_addr: window + self.ring.0,
            ring: dynamic_shared_base::<f32>().add((self.ring.0 / 4) as usize),
        }
    }
}

/// A built pipeline: where its barriers and stages are.
struct Ring<const S: u32> {
    pipe: Pipeline<S>,
    bars_addr: u32,
    ring_addr: u32,
    ring: *const f32,
}

/// Which side of the ring a thread takes.
enum Role<const S: u32> {
    Producer(Producer<S>),
    Consumer(Consumer<S>, u32),
    Idle,
}

impl<const S: u32> Ring<S> {
    #[inline(always)]
    fn producer(&self) -> Producer<S> {
        Producer { pipe: self.pipe, state: PipelineState::<S>::producer_start(), ring_addr: self.ring_addr }
    }

    #[inline(always)]
    fn consumer(&self) -> Consumer<S> {
        Consumer { pipe: self.pipe, state: PipelineState::<S>::new(), ring: self.ring }
    }

    /// A consumer of the same barriers seen as a ring of `T` stages.
    #[inline(always)]
    fn consumer_view<const T: u32>(&self) -> Consumer<T> {
        Consumer { pipe: Pipeline::<T>::attach(self.bars_addr), state: PipelineState::<T>::new(), ring: self.ring }
    }

    /// Thread 0 produces, the second warp consumes (column `tx - 32`), the rest idle.
    #[inline(always)]
    fn role(&self, tx: u32) -> Role<S> {
        match tx {
            0 => Role::Producer(self.producer()),
            32..=63 => Role::Consumer(self.consumer(), tx - 32),
            _ => Role::Idle,
        }
    }
}

/// The right to fill the next stage.
struct Producer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring_addr: u32,
}

/// A stage the producer acquired and announced a whole tile for: it must be filled.
struct Armed<const S: u32> {
    producer: Producer<S>,
    dst: u32,
}

impl<const S: u32> Producer<S> {
    #[inline(always)]
    fn acquire(self) -> Armed<S> {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES.0);
        let dst = self.ring_addr + self.state.index() * TILE_BYTES.0;
        Armed { producer: self, dst }
    }

    /// After the last tile: wait until every stage has been handed back.
    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

impl<const S: u32> Armed<S> {
    /// Copies `len` bytes from `src` into the stage; gives the producer back, moved on.
    #[inline(always)]
    fn fill(self, src: *const f32, len: Bytes) -> Producer<S> {
        let mut p = self.producer;
        bulk_copy_global_to_shared(self.dst, src as *const u8, len.0, p.pipe.producer_barrier(&p.state));
        p.state.advance();
        p
    }
}

/// The right to read the next stage.
struct Consumer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
}

/// A stage whose data has landed: readable until released.
struct Full<const S: u32> {
    consumer: Consumer<S>,
    stage: *const f32,
}

/// A stage still held after its consumer moved on (released later, CUTLASS-style).
struct Held<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
}

impl<const S: u32> Consumer<S> {
    #[inline(always)]
    unsafe fn wait(self) -> Full<S> {
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.add((self.state.index() * TILE.0) as usize);
        Full { consumer: self, stage }
    }
}

impl<const S: u32> Full<S> {
    #[inline(always)]
    unsafe fn column(&self, c: u32) -> f32 {
        let mut s = 0.0f32;
        for r in 0..ROWS {
            s += *self.stage.add((r * COLS + c) as usize);
        }
        s
    }

    /// Hands the stage back; gives the consumer back, moved on.
    #[inline(always)]
    fn release(self) -> Consumer<S> {
        let mut c = self.consumer;
        c.pipe.consumer_release(&c.state);
        c.state.advance();
        c
    }

    /// Moves the consumer on but keeps this stage, to be released later through the [`Held`].
    #[inline(always)]
    fn keep(self) -> (Consumer<S>, Held<S>) {
        let mut c = self.consumer;
        let held = Held { pipe: c.pipe, state: c.state };
        c.state.advance();
        (c, held)
    }

    /// Finishes with the stage of the last tile: the consumer is given back as it is.
    #[inline(always)]
    fn done(self) -> Consumer<S> {
        self.consumer
    }
}

impl<const S: u32> Held<S> {
    #[inline(always)]
    fn release(self) {
        self.pipe.consumer_release(&self.state);
    }
}

/// The tiles of this block: `block_idx_x(), + grid_dim_x(), … < tiles`.
struct Tiles {
    next: u32,
    step: u32,
    end: u32,
}

impl Tiles {
    #[inline(always)]
    fn of_block(tiles: u32) -> Tiles {
        Tiles { next: block_idx_x(), step: grid_dim_x(), end: tiles }
    }

    #[inline(always)]
    fn take(&mut self) -> Option<u32> {
        if self.next < self.end {
            let t = self.next;
            self.next += self.step;
            Some(t)
        } else {
            None
        }
    }

    #[inline(always)]
    fn count(tiles: u32) -> u32 {
        let mut it = Tiles::of_block(tiles);
        let mut n = 0;
        while it.take().is_some() {
            n += 1;
        }
        n
    }
}

/// A copyable consumer handle whose `wait` borrows it (see `r43_ownership_bad_copied_handle`).
#[derive(Clone, Copy)]
struct CopyConsumer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
}

struct CopyFull<const S: u32> {
    handle: CopyConsumer<S>,
    stage: *const f32,
}

impl<const S: u32> CopyConsumer<S> {
    #[inline(always)]
    unsafe fn wait(&self) -> CopyFull<S> {
        self.pipe.consumer_wait(&self.state);
        CopyFull { handle: *self, stage: self.ring.add((self.state.index() * TILE.0) as usize) }
    }
}

impl<const S: u32> CopyFull<S> {
    #[inline(always)]
    unsafe fn column(&self, c: u32) -> f32 {
        let mut s = 0.0f32;
        for r in 0..ROWS {
            s += *self.stage.add((r * COLS + c) as usize);
        }
        s
    }

    #[inline(always)]
    fn release(self) -> CopyConsumer<S> {
        let mut h = self.handle;
        h.pipe.consumer_release(&h.state);
        h.state.advance();
        h
    }
}

/// Plain shared memory: the staging buffer while the block writes it.
struct Filling {
    buf: *mut f32,
}

/// The buffer after the block barrier: readable until retired.
struct Published {
    buf: *const f32,
}

impl Filling {
    /// Thread `tx` stores elements `tx, tx + 64, tx + 128, tx + 192` of the tile at `src`.
    #[inline(always)]
    unsafe fn stage(self, src: *const f32, tx: u32) -> Filling {
        for e in 0..4u32 {
            let i = (e * THREADS + tx) as usize;
            *self.buf.add(i) = *src.add(i);
        }
        self
    }

    #[inline(always)]
    fn publish(self) -> Published {
        barrier();
        Published { buf: self.buf }
    }
}

impl Published {
    #[inline(always)]
    unsafe fn column(&self, c: u32) -> f32 {
        let mut s = 0.0f32;
        for r in 0..ROWS {
            s += *self.buf.add((r * COLS + c) as usize);
        }
        s
    }

    #[inline(always)]
    fn retire(self) -> Filling {
        barrier();
        Filling { buf: self.buf as *mut f32 }
    }
}

// ================================================================ correct kernels

/// Correct. Tokens moved by value: thread 32 turns its `Producer` into an `Armed` stage and
/// back with `fill`, threads 0..32 turn their `Consumer` into a `Full` stage and back with
/// `release`. Four stages from byte 0, barriers after them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_ownership_moved_tokens(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let ring = RingBuilder::<4>::new().build(tx == 0);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tx == COLS {
        let mut producer = ring.producer();
        let mut t = b;
        while t < tiles {
            let armed = producer.acquire();
            producer = armed.fill(input.add((t * TILE.0) as usize), TILE_BYTES);
            t += g;
        }
        producer.finish();
    } else if tx < COLS {
        let mut consumer = ring.consumer();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let full = consumer.wait();
            acc += full.column(tx);
            consumer = full.release();
            t += g;
        }
        *out.add((b * COLS + tx) as usize) = acc;
    }
}

/// Correct, written outside the usual order on purpose (CUTLASS's consumer order): each tile's
/// stage is kept (`Full::keep`) while the consumer moves on, and released only after the next
/// stage has been waited for and read (`held.take()`); the last one after the loop. Three stages;
/// tiles from the `Tiles` cursor.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_ownership_hold_previous(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let ring = RingBuilder::<3>::new().build(tx == 0);
    if tx == COLS {
        let mut producer = ring.producer();
        let mut cursor = Tiles::of_block(tiles);
        while let Some(t) = cursor.take() {
            producer = producer.acquire().fill(input.add((t * TILE.0) as usize), TILE_BYTES);
        }
        producer.finish();
    } else if tx < COLS {
        let mut consumer = ring.consumer();
        let mut held: Option<Held<3>> = None;
        let mut acc = 0.0f32;
        let mut cursor = Tiles::of_block(tiles);
        while cursor.take().is_some() {
            let full = consumer.wait();
            acc += full.column(tx);
            if let Some(previous) = held.take() {
                previous.release();
            }
            let (next, kept) = full.keep();
            held = Some(kept);
            consumer = next;
        }
        if let Some(previous) = held.take() {
            previous.release();
        }
        *out.add((block_idx_x() * COLS + tx) as usize) = acc;
    }
}

/// Correct. The builder places the barriers at byte 0 and the ring at byte 1024 and hands each
/// thread its `Role`: thread 0 the producer, the second warp the consumers (column `tx - 32`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_ownership_builder_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let ring = RingBuilder::<4>::new().ring_at(Offset(1024)).barriers_at(Offset(0)).build(tx == 0);
    let b = block_idx_x();
    let g = grid_dim_x();
    match ring.role(tx) {
        Role::Producer(mut producer) => {
            let mut t = b;
            while t < tiles {
                producer = producer.acquire().fill(input.add((t * TILE.0) as usize), TILE_BYTES);
                t += g;
            }
            producer.finish();
        }
        Role::Consumer(mut consumer, col) => {
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                let full = consumer.wait();
                acc += full.column(col);
                consumer = full.release();
                t += g;
            }
            *out.add((b * COLS + col) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// Correct. Plain shared memory with the same discipline: a `Filling` buffer is staged by all 64
/// threads and turned into a `Published` one by the block barrier (`publish`); threads 0..32 read
/// it, and `retire` (a second barrier) gives the `Filling` buffer back for the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_ownership_plain_published(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut filling = Filling { buf: dynamic_shared_base::<f32>() };
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let published = filling.stage(input.add((t * TILE.0) as usize), tx).publish();
        if tx < COLS {
            acc += published.column(tx);
        }
        filling = published.retire();
        t += g;
    }
    if tx < COLS {
        *out.add((b * COLS + tx) as usize) = acc;
    }
}

// ================================================================ broken kernels

/// BROKEN (consumer-order): the last tile's stage is finished with `Full::done`, which gives the
/// consumer back without releasing the stage ("nothing is loaded after it"). The producer's
/// `finish` (`producer_tail`) waits for that release forever (hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_ownership_bad_last_token_kept(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let ring = RingBuilder::<4>::new().build(tx == 0);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tx == COLS {
        let mut producer = ring.producer();
        let mut t = b;
        while t < tiles {
            producer = producer.acquire().fill(input.add((t * TILE.0) as usize), TILE_BYTES);
            t += g;
        }
        producer.finish();
    } else if tx < COLS {
        let mut consumer = ring.consumer();
        let mut acc = 0.0f32;
        let mut left = Tiles::count(tiles);
        while left > 1 {
            let full = consumer.wait();
            acc += full.column(tx);
            consumer = full.release();
            left -= 1;
        }
        if left == 1 {
            let full = consumer.wait();
            acc += full.column(tx);
            let _consumer = full.done();
        }
        *out.add((b * COLS + tx) as usize) = acc;
    }
}

/// BROKEN (state-provenance): the consumer handle is `Copy` and its `wait` borrows it; `release`
/// returns the advanced handle, but the result is dropped (`full.release();`), so the original
/// handle is used again at its old stage and phase: every tile waits on and releases stage 0.
/// Stages 1..3 are never released a first time, and the producer hangs on its sixth acquire.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_ownership_bad_copied_handle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let ring = RingBuilder::<4>::new().build(tx == 0);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tx == COLS {
        let mut producer = ring.producer();
        let mut t = b;
        while t < tiles {
            producer = producer.acquire().fill(input.add((t * TILE.0) as usize), TILE_BYTES);
            t += g;
        }
        producer.finish();
    } else if tx < COLS {
        let consumer = CopyConsumer { pipe: ring.pipe, state: PipelineState::<4>::new(), ring: ring.ring };
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let full = consumer.wait();
            acc += full.column(tx);
            full.release();
            t += g;
        }
        *out.add((b * COLS + tx) as usize) = acc;
    }
}

/// BROKEN (expect-tx-bytes): `acquire` announces the stage's `TILE_BYTES` (1024), but the copy's
/// length is built as `Bytes(TILE.0)`, the tile's float count unwrapped into the byte newtype:
/// 256 bytes per copy. The full barrier never reaches its transaction count (hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_ownership_bad_floats_as_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let ring = RingBuilder::<4>::new().build(tx == 0);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tx == COLS {
        let tile_len = Bytes(TILE.0);
        let mut producer = ring.producer();
        let mut t = b;
        while t < tiles {
            producer = producer.acquire().fill(input.add((t * TILE.0) as usize), tile_len);
            t += g;
        }
        producer.finish();
    } else if tx < COLS {
        let mut consumer = ring.consumer();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let full = consumer.wait();
            acc += full.column(tx);
            consumer = full.release();
            t += g;
        }
        *out.add((b * COLS + tx) as usize) = acc;
    }
}

/// The consumer type of the first, three-stage version of `r43_ownership_bad_stale_stage_alias`.
type SumConsumer = Consumer<3>;

/// BROKEN (pipeline-identity): the ring is built with four stages, but the consumers are taken
/// through `consumer_view` as `SumConsumer`, an alias left at `Consumer<3>` from a three-stage
/// version: they attach the same barriers as a three-stage pipeline, wrap at stage 3, and
/// release on what are the four-stage ring's `full[3]`, `empty[0]` and `empty[1]`: arrivals on a
/// barrier that expects one, stages never released (fault, or a hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_ownership_bad_stale_stage_alias(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let ring = RingBuilder::<4>::new().build(tx == 0);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tx == COLS {
        let mut producer = ring.producer();
        let mut t = b;
        while t < tiles {
            producer = producer.acquire().fill(input.add((t * TILE.0) as usize), TILE_BYTES);
            t += g;
        }
        producer.finish();
    } else if tx < COLS {
        let mut consumer: SumConsumer = ring.consumer_view();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let full = consumer.wait();
            acc += full.column(tx);
            consumer = full.release();
            t += g;
        }
        *out.add((b * COLS + tx) as usize) = acc;
    }
}
