//! Pipeline kernels written with traits: generic reducers and tile sources, roles as trait
//! implementations run generically or through `dyn`, a `dyn` combiner of plain numbers.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use crate::{COLS, CONSUMERS, ROWS, TILE_BYTES, TILE_FLOATS, column_sum, owned_tiles, store_column, tile_source};

// ------------------------------------------------------------------------------------------
// Generic reducers.
// ------------------------------------------------------------------------------------------

trait Reducer {
    fn absorb(&mut self, x: f32);
    fn result(&self) -> f32;
}

struct Kahan {
    sum: f32,
    carry: f32,
}

impl Reducer for Kahan {
    #[inline(always)]
    fn absorb(&mut self, x: f32) {
        let y = x - self.carry;
        let t = self.sum + y;
        self.carry = (t - self.sum) - y;
        self.sum = t;
    }

    #[inline(always)]
    fn result(&self) -> f32 {
        self.sum
    }
}

#[inline(always)]
unsafe fn consume_into<R: Reducer>(pipe: &Pipeline<4>, ring: *const f32, tiles: u32, col: usize, reducer: &mut R) {
    let mut state = PipelineState::<4>::new();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        let stage = ring.add(state.index() as usize * TILE_FLOATS);
        for row in 0..ROWS {
            reducer.absorb(*stage.add(row * COLS + col));
        }
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
}

#[inline(always)]
unsafe fn produce_plain(pipe: &Pipeline<4>, ring_window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<4>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(ring_window + state.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(state);
}

/// Four stages; the consumers fold every element into a generic `Reducer` (compensated sum).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_generic_reducer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    if tid == 32 {
        produce_plain(&pipe, window, input, tiles);
    } else if tid < 32 {
        let mut kahan = Kahan { sum: 0.0, carry: 0.0 };
        consume_into(&pipe, dynamic_shared_base::<f32>(), tiles, tid as usize, &mut kahan);
        store_column(out, tid as usize, kahan.result());
    }
}

// ------------------------------------------------------------------------------------------
// Generic tile sources.
// ------------------------------------------------------------------------------------------

trait TileSource {
    fn first(&self) -> u32;
    fn step(&self) -> u32;
    fn end(&self) -> u32;
    unsafe fn tile(&self, t: u32) -> *const u8;
}

struct BlockTiles {
    input: *const f32,
    tiles: u32,
}

impl TileSource for BlockTiles {
    #[inline(always)]
    fn first(&self) -> u32 {
        block_idx_x()
    }
    #[inline(always)]
    fn step(&self) -> u32 {
        grid_dim_x()
    }
    #[inline(always)]
    fn end(&self) -> u32 {
        self.tiles
    }
    #[inline(always)]
    unsafe fn tile(&self, t: u32) -> *const u8 {
        tile_source(self.input, t)
    }
}

#[inline(always)]
unsafe fn produce_from<T: TileSource, const S: u32>(pipe: &Pipeline<S>, ring_window: u32, source: &T) {
    let mut state = PipelineState::<S>::producer_start();
    let mut t = source.first();
    while t < source.end() {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(ring_window + state.index() * TILE_BYTES, source.tile(t), TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
        t += source.step();
    }
    pipe.producer_tail(state);
}

/// Three stages; the producer is generic over a `TileSource`, the consumers walk the same
/// source's tile range.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_tile_source(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 3 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<3>::init(barriers, CONSUMERS) } else { Pipeline::<3>::attach(barriers) };
    barrier();
    let source = BlockTiles { input, tiles };
    if tid == 32 {
        produce_from(&pipe, window, &source);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        let mut t = source.first();
        while t < source.end() {
            pipe.consumer_wait(&state);
            sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += source.step();
        }
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// A `dyn` combiner of numbers.
// ------------------------------------------------------------------------------------------

trait Combine {
    fn combine(&self, a: f32, b: f32) -> f32;
}

struct Add;

impl Combine for Add {
    fn combine(&self, a: f32, b: f32) -> f32 {
        a + b
    }
}

/// Four stages; the consumers add each column sum through a `&dyn Combine` (numbers only).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_dyn_combiner(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let op: &dyn Combine = &Add;
    if tid == 32 {
        produce_plain(&pipe, window, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in 0..owned_tiles(tiles) {
            pipe.consumer_wait(&state);
            let s = column_sum(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            sum = op.combine(sum, s);
        }
        store_column(out, tid as usize, sum);
    }
}

// ------------------------------------------------------------------------------------------
// Roles as trait implementations.
// ------------------------------------------------------------------------------------------

trait Role {
    unsafe fn run(&mut self, pipe: &Pipeline<4>, tiles: u32);
}

struct ProducerRole {
    ring_window: u32,
    input: *const f32,
}

impl Role for ProducerRole {
    #[inline(always)]
    unsafe fn run(&mut self, pipe: &Pipeline<4>, tiles: u32) {
        let mut state = PipelineState::<4>::producer_start();
        for k in 0..owned_tiles(tiles) {
            let t = block_idx_x() + k * grid_dim_x();
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(self.ring_window + state.index() * TILE_BYTES, tile_source(self.input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    }
}

struct ConsumerRole {
    ring: *const f32,
    col: usize,
    out: *mut f32,
}

impl Role for ConsumerRole {
    #[inline(always)]
    unsafe fn run(&mut self, pipe: &Pipeline<4>, tiles: u32) {
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in 0..owned_tiles(tiles) {
            pipe.consumer_wait(&state);
            sum += column_sum(self.ring.add(state.index() as usize * TILE_FLOATS), self.col);
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(self.out, self.col, sum);
    }
}

#[inline(always)]
unsafe fn play<R: Role>(role: &mut R, pipe: &Pipeline<4>, tiles: u32) {
    role.run(pipe, tiles);
}

/// Four stages at 2 KiB; each role is a `Role` implementation run by a generic `play`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_generic_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 2048;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        play(&mut ProducerRole { ring_window: window + RING, input }, &pipe, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        play(&mut ConsumerRole { ring, col: tid as usize, out }, &pipe, tiles);
    }
}

/// The same roles chosen at run time as `&mut dyn Role`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_dyn_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 2048;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid <= 32 {
        let mut producer = ProducerRole { ring_window: window + RING, input };
        let mut consumer = ConsumerRole { ring: dynamic_shared_base::<f32>().add(RING as usize / 4), col: tid as usize, out };
        let role: &mut dyn Role = if tid == 32 { &mut producer } else { &mut consumer };
        role.run(&pipe, tiles);
    }
}

// ------------------------------------------------------------------------------------------
// Broken.
// ------------------------------------------------------------------------------------------

trait Span {
    fn count(&self, tiles: u32) -> u32;
}

struct ProducerSpan;
struct ConsumerSpan;

impl Span for ProducerSpan {
    #[inline(always)]
    fn count(&self, tiles: u32) -> u32 {
        owned_tiles(tiles)
    }
}

impl Span for ConsumerSpan {
    /// Rounds up by `n / d + 1`, which is one too many when the tiles divide evenly.
    #[inline(always)]
    fn count(&self, tiles: u32) -> u32 {
        (tiles - block_idx_x()) / grid_dim_x() + 1
    }
}

#[inline(always)]
unsafe fn consume_span<P: Span>(span: &P, pipe: &Pipeline<4>, ring: *const f32, tiles: u32, col: usize) -> f32 {
    let mut state = PipelineState::<4>::new();
    let mut sum = 0.0f32;
    for _ in 0..span.count(tiles) {
        pipe.consumer_wait(&state);
        sum += column_sum(ring.add(state.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(&state);
        state.advance();
    }
    sum
}

#[inline(always)]
unsafe fn produce_span<P: Span>(span: &P, pipe: &Pipeline<4>, ring_window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<4>::producer_start();
    for k in 0..span.count(tiles) {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(ring_window + state.index() * TILE_BYTES, tile_source(input, block_idx_x() + k * grid_dim_x()), TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
    }
    pipe.producer_tail(state);
}

/// The consumers' `Span` implementation counts `tiles / grid + 1` tiles where the producer's
/// counts exactly: with 64 tiles the consumers wait for a ninth tile nobody copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_bad_span_one_more(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    if tid == 32 {
        produce_span(&ProducerSpan, &pipe, window, input, tiles);
    } else if tid < 32 {
        let sum = consume_span(&ConsumerSpan, &pipe, dynamic_shared_base::<f32>(), tiles, tid as usize);
        store_column(out, tid as usize, sum);
    }
}

struct CopiedConsumerRole {
    ring: *const f32,
    col: usize,
    out: *mut f32,
}

impl Role for CopiedConsumerRole {
    #[inline(always)]
    unsafe fn run(&mut self, pipe: &Pipeline<4>, tiles: u32) {
        // Copied from the producer role: starts at phase 1, so the first waits return at once.
        let mut state = PipelineState::<4>::producer_start();
        let mut sum = 0.0f32;
        for _ in 0..owned_tiles(tiles) {
            pipe.consumer_wait(&state);
            sum += column_sum(self.ring.add(state.index() as usize * TILE_FLOATS), self.col);
            pipe.consumer_release(&state);
            state.advance();
        }
        store_column(self.out, self.col, sum);
    }
}

/// The `dyn` consumer role starts its state with `producer_start()`: its first waits return
/// on stages no copy has filled, and it reads the ring one lap behind.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_bad_dyn_consumer_producer_start(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 2048;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid <= 32 {
        let mut producer = ProducerRole { ring_window: window + RING, input };
        let mut consumer = CopiedConsumerRole { ring: dynamic_shared_base::<f32>().add(RING as usize / 4), col: tid as usize, out };
        let role: &mut dyn Role = if tid == 32 { &mut producer } else { &mut consumer };
        role.run(&pipe, tiles);
    }
}

trait Staging {
    /// Bytes between consecutive stages.
    const STAGE_BYTES: u32;
    fn destination(&self, ring_window: u32, stage: u32) -> u32 {
        ring_window + stage * Self::STAGE_BYTES
    }
}

struct HalfStaging;

impl Staging for HalfStaging {
    // Two bytes per element, as for an f16 tile: half of what an f32 tile takes.
    const STAGE_BYTES: u32 = TILE_FLOATS as u32 * 2;
}

/// The producer places stages through a `Staging` implementation whose stride is 512 bytes
/// (an f16 tile's): each 1 KiB copy overlaps the next stage, and consumers reading at 1 KiB
/// strides see the wrong data.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_bad_staging_half_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    let staging = HalfStaging;
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(staging.destination(window, state.index()), tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut kahan = Kahan { sum: 0.0, carry: 0.0 };
        consume_into(&pipe, dynamic_shared_base::<f32>(), tiles, tid as usize, &mut kahan);
        store_column(out, tid as usize, kahan.result());
    }
}

#[inline(always)]
unsafe fn consume_reading_first<R: Reducer>(pipe: &Pipeline<4>, ring: *const f32, tiles: u32, col: usize, reducer: &mut R) {
    let mut state = PipelineState::<4>::new();
    let mut t = block_idx_x();
    while t < tiles {
        let stage = ring.add(state.index() as usize * TILE_FLOATS);
        for row in 0..ROWS {
            reducer.absorb(*stage.add(row * COLS + col));
        }
        pipe.consumer_wait(&state);
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
}

/// The generic consumer feeds the reducer from the stage before its `consumer_wait`: it reads
/// each stage before the copy has landed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_bad_reducer_reads_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let barriers = window + 4 * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(barriers, CONSUMERS) } else { Pipeline::<4>::attach(barriers) };
    barrier();
    if tid == 32 {
        produce_plain(&pipe, window, input, tiles);
    } else if tid < 32 {
        let mut kahan = Kahan { sum: 0.0, carry: 0.0 };
        consume_reading_first(&pipe, dynamic_shared_base::<f32>(), tiles, tid as usize, &mut kahan);
        store_column(out, tid as usize, kahan.result());
    }
}

/// The producer role is played by every thread of warp 1 (`tid >= 32`): 32 threads arrive
/// on full barriers that expect one arrival and copy every tile 32 times.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r21_trait_bad_producer_warp_plays(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 2048;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid >= 32 {
        play(&mut ProducerRole { ring_window: window + RING, input }, &pipe, tiles);
    } else {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        play(&mut ConsumerRole { ring, col: tid as usize, out }, &pipe, tiles);
    }
}
