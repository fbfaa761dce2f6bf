//! Ruby / Rails habits: blocks handed to iteration helpers (`times`, `each_tile`, `inject`),
//! mixins with default methods included into a worker, convention over configuration (one
//! `Config` with defaults that everything reads), predicate-style methods (`producer?` as
//! `is_producer`), and short, cheerful method names.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

/// The one place the numbers live.
struct Config;

impl Config {
    const THREADS: u32 = 64;
    const SHARED: u32 = 8192;
    const TILE: usize = 256;
    const TILE_BYTES: u32 = 1024;
    const COLUMNS: usize = 32;
    const ROWS: usize = 8;
    const READERS: u32 = 32;
    const DEFAULT_STAGES: u32 = 8;
}

/// `tiles.each { |t| ... }` for the block's own tiles.
#[inline(always)]
fn each_tile(tiles: u32, mut block: impl FnMut(u32)) {
    let mut t = block_idx_x();
    while t < tiles {
        block(t);
        t += grid_dim_x();
    }
}

#[inline(always)]
unsafe fn column_total(stage: *const f32, column: usize) -> f32 {
    (0..Config::ROWS).fold(0.0, |memo, row| memo + *stage.add(row * Config::COLUMNS + column))
}

#[inline(always)]
unsafe fn source(input: *const f32, t: u32) -> *const u8 {
    input.add(t as usize * Config::TILE) as *const u8
}

#[inline(always)]
unsafe fn publish(out: *mut f32, column: usize, total: f32) {
    *out.add(block_idx_x() as usize * Config::COLUMNS + column) = total;
}

#[inline(always)]
fn setup<const S: u32>(me: u32, readers: u32) -> Pipeline<S> {
    let bars = dynamic_shared_window_address() + S * Config::TILE_BYTES;
    let pipe = if me == 0 { Pipeline::<S>::init(bars, readers) } else { Pipeline::<S>::attach(bars) };
    barrier();
    pipe
}

/// Both roles written as blocks handed to `each_tile`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_ruby_each_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Config::THREADS);
    dynamic_shared_bytes(Config::SHARED);
    let me = thread_idx_x();
    let pipe = setup::<4>(me, Config::READERS);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if me == 32 {
        let mut st = PipelineState::<4>::producer_start();
        each_tile(tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, Config::TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * Config::TILE_BYTES, source(input, t), Config::TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if me < Config::READERS {
        let column = me as usize;
        let mut st = PipelineState::<4>::new();
        let mut total = 0.0f32;
        each_tile(tiles, |_| {
            pipe.consumer_wait(&st);
            total += column_total(ring.add(st.index() as usize * Config::TILE), column);
            pipe.consumer_release(&st);
            st.advance();
        });
        publish(out, column, total);
    }
}

/// `inject` over the rows; three stages; the producer is thread 48, mid-way through warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_ruby_inject_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Config::THREADS);
    dynamic_shared_bytes(Config::SHARED);
    let me = thread_idx_x();
    let pipe = setup::<3>(me, Config::READERS);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if me == 48 {
        let mut st = PipelineState::<3>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, Config::TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * Config::TILE_BYTES, source(input, t), Config::TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if me < Config::READERS {
        let column = me as usize;
        let mut st = PipelineState::<3>::new();
        let mut total = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * Config::TILE);
            total = (0..Config::ROWS).map(|row| *stage.add(row * Config::COLUMNS + column)).fold(total, |memo, x| memo + x);
            pipe.consumer_release(&st);
            st.advance();
        }
        publish(out, column, total);
    }
}

/// The `Streams` mixin: what a producer does, with default methods.
trait Streams<const S: u32> {
    fn pipe(&self) -> &Pipeline<S>;

    #[inline(always)]
    unsafe fn stream(&self, st: &mut PipelineState<S>, input: *const f32, t: u32) {
        let window = dynamic_shared_window_address();
        self.pipe().producer_acquire(st);
        self.pipe().producer_expect_tx(st, Config::TILE_BYTES);
        bulk_copy_global_to_shared(window + st.index() * Config::TILE_BYTES, source(input, t), Config::TILE_BYTES, self.pipe().producer_barrier(st));
        st.advance();
    }
}

/// The `Sums` mixin: what a consumer does, with default methods.
trait Sums<const S: u32> {
    fn pipe(&self) -> &Pipeline<S>;

    #[inline(always)]
    unsafe fn absorb(&self, st: &mut PipelineState<S>, column: usize) -> f32 {
        let ring = dynamic_shared_base::<f32>();
        self.pipe().consumer_wait(st);
        let total = column_total(ring.add(st.index() as usize * Config::TILE), column);
        self.pipe().consumer_release(st);
        st.advance();
        total
    }
}

/// A worker that includes both mixins.
struct Worker<const S: u32> {
    pipe: Pipeline<S>,
}

impl<const S: u32> Streams<S> for Worker<S> {
    #[inline(always)]
    fn pipe(&self) -> &Pipeline<S> {
        &self.pipe
    }
}

impl<const S: u32> Sums<S> for Worker<S> {
    #[inline(always)]
    fn pipe(&self) -> &Pipeline<S> {
        &self.pipe
    }
}

impl<const S: u32> Worker<S> {
    #[inline(always)]
    fn is_producer(&self, me: u32) -> bool {
        me == 32
    }
    #[inline(always)]
    fn is_reader(&self, me: u32) -> bool {
        me < Config::READERS
    }
}

/// Mixins included into a `Worker`; a double buffer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_ruby_mixin_worker(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Config::THREADS);
    dynamic_shared_bytes(Config::SHARED);
    let me = thread_idx_x();
    let worker = Worker { pipe: setup::<2>(me, Config::READERS) };
    if worker.is_producer(me) {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            Streams::stream(&worker, &mut st, input, t);
            t += grid_dim_x();
        }
        worker.pipe.producer_tail(st);
    } else if worker.is_reader(me) {
        let column = me as usize;
        let mut st = PipelineState::<2>::new();
        let mut total = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            total += worker.absorb(&mut st, column);
            t += grid_dim_x();
        }
        publish(out, column, total);
    }
}

/// Seven stages: as much ring as the launch's shared memory holds beside its barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_ruby_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Config::THREADS);
    dynamic_shared_bytes(Config::SHARED);
    let me = thread_idx_x();
    let pipe = setup::<7>(me, Config::READERS);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if me == 32 {
        let mut st = PipelineState::<7>::producer_start();
        each_tile(tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, Config::TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * Config::TILE_BYTES, source(input, t), Config::TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if me < Config::READERS {
        let column = me as usize;
        let mut st = PipelineState::<7>::new();
        let mut total = 0.0f32;
        each_tile(tiles, |_| {
            pipe.consumer_wait(&st);
            total += column_total(ring.add(st.index() as usize * Config::TILE), column);
            pipe.consumer_release(&st);
            st.advance();
        });
        publish(out, column, total);
    }
}

/// Readers walking `b..tiles` the way the range literal reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_ruby_range_literal(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Config::THREADS);
    dynamic_shared_bytes(Config::SHARED);
    let me = thread_idx_x();
    let pipe = setup::<3>(me, Config::READERS);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if me == 32 {
        let mut st = PipelineState::<3>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, Config::TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * Config::TILE_BYTES, source(input, t), Config::TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if me < Config::READERS {
        let column = me as usize;
        let mut st = PipelineState::<3>::new();
        let mut total = 0.0f32;
        for _ in (block_idx_x()..=tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&st);
            total += column_total(ring.add(st.index() as usize * Config::TILE), column);
            pipe.consumer_release(&st);
            st.advance();
        }
        publish(out, column, total);
    }
}

/// The `Streams` mixin, reworked to stream straight into the slot it is pointed at.
trait QuickStreams<const S: u32> {
    fn pipe(&self) -> &Pipeline<S>;

    #[inline(always)]
    unsafe fn stream(&self, st: &mut PipelineState<S>, input: *const f32, t: u32) {
        let window = dynamic_shared_window_address();
        self.pipe().producer_expect_tx(st, Config::TILE_BYTES);
        bulk_copy_global_to_shared(window + st.index() * Config::TILE_BYTES, source(input, t), Config::TILE_BYTES, self.pipe().producer_barrier(st));
        st.advance();
    }
}

impl<const S: u32> QuickStreams<S> for Worker<S> {
    #[inline(always)]
    fn pipe(&self) -> &Pipeline<S> {
        &self.pipe
    }
}

/// Mixin worker with the quick streaming mixin.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_ruby_quick_worker(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Config::THREADS);
    dynamic_shared_bytes(Config::SHARED);
    let me = thread_idx_x();
    let worker = Worker { pipe: setup::<2>(me, Config::READERS) };
    if worker.is_producer(me) {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            QuickStreams::stream(&worker, &mut st, input, t);
            t += grid_dim_x();
        }
        worker.pipe.producer_tail(st);
    } else if worker.is_reader(me) {
        let column = me as usize;
        let mut st = PipelineState::<2>::new();
        let mut total = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            total += worker.absorb(&mut st, column);
            t += grid_dim_x();
        }
        publish(out, column, total);
    }
}

/// Seven stages, the barriers placed where the configuration's default ring ends.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_ruby_default_ring_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Config::THREADS);
    dynamic_shared_bytes(Config::SHARED);
    let me = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + Config::DEFAULT_STAGES * Config::TILE_BYTES;
    let pipe = if me == 0 { Pipeline::<7>::init(bars, Config::READERS) } else { Pipeline::<7>::attach(bars) };
    barrier();
    if me == 32 {
        let mut st = PipelineState::<7>::producer_start();
        each_tile(tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, Config::TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * Config::TILE_BYTES, source(input, t), Config::TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if me < Config::READERS {
        let column = me as usize;
        let mut st = PipelineState::<7>::new();
        let mut total = 0.0f32;
        each_tile(tiles, |_| {
            pipe.consumer_wait(&st);
            total += column_total(ring.add(st.index() as usize * Config::TILE), column);
            pipe.consumer_release(&st);
            st.advance();
        });
        publish(out, column, total);
    }
}

/// `each_tile` readers whose cursor is built with the same constructor as the streamer's.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_ruby_shared_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Config::THREADS);
    dynamic_shared_bytes(Config::SHARED);
    let me = thread_idx_x();
    let pipe = setup::<4>(me, Config::READERS);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let cursor = PipelineState::<4>::producer_start;
    if me == 32 {
        let mut st = cursor();
        each_tile(tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, Config::TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * Config::TILE_BYTES, source(input, t), Config::TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if me < Config::READERS {
        let column = me as usize;
        let mut st = cursor();
        let mut total = 0.0f32;
        each_tile(tiles, |_| {
            pipe.consumer_wait(&st);
            total += column_total(ring.add(st.index() as usize * Config::TILE), column);
            pipe.consumer_release(&st);
            st.advance();
        });
        publish(out, column, total);
    }
}
