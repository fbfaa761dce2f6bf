//! Style `raii`: the pipeline's obligations are tied to the lifetime of values. A consumer holds a
//! stage through a guard whose `Drop` releases it and moves the state on; the producer is a
//! `Feeder` whose `Drop` runs the tail, so the block cannot leave with copies in flight; the
//! result is flushed by a guard too. The loops only say what to read, never when to give back.
//!
//! Every kernel: 64 threads, ring at window byte 0 (one 1 KiB tile per stage), the barriers right
//! after it; thread 32 produces, threads 0..31 consume, consumer `c` owns column `c`.

use core::mem::size_of;
use core::ops::Deref;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
const TILE: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

type Tile = [f32; TILE];
const TILE_BYTES: u32 = size_of::<Tile>() as u32;

/// A stage a consumer is reading. Dropping it hands the stage back and moves on to the next one.
struct Held<'a, const S: u32> {
    pipe: &'a Pipeline<S>,
    state: &'a mut PipelineState<S>,
    tile: *const Tile,
}

impl<'a, const S: u32> Held<'a, S> {
    #[inline(always)]
    fn wait(pipe: &'a Pipeline<S>, state: &'a mut PipelineState<S>, ring: *const Tile) -> Self {
        pipe.consumer_wait(state);
        // SAFETY: the ring holds S tiles and the index is below S.
        let tile = unsafe { ring.add(state.index() as usize) };
        Held { pipe, state, tile }
    }

    #[inline(always)]
    fn column(&self, c: usize) -> f32 {
        let mut sum = 0.0;
        for r in 0..ROWS {
            sum += self[c + COLS * r];
        }
        sum
    }
}

impl<const S: u32> Deref for Held<'_, S> {
    type Target = Tile;
    #[inline(always)]
    fn deref(&self) -> &Tile {
        // SAFETY: the stage's copy has landed (waited in `wait`) and is not released before drop.
        unsafe { &*self.tile }
    }
}

impl<const S: u32> Drop for Held<'_, S> {
    #[inline(always)]
    fn drop(&mut self) {
        self.pipe.consumer_release(self.state);
        self.state.advance();
    }
}

/// The producer. `push` fills the next stage; dropping it waits until every stage is released.
struct Feeder<'a, const S: u32> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: u32,
}

impl<'a, const S: u32> Feeder<'a, S> {
    #[inline(always)]
    fn new(pipe: &'a Pipeline<S>, ring: u32) -> Self {
        Feeder { pipe, state: PipelineState::producer_start(), ring }
    }

    #[inline(always)]
    fn push(&mut self, src: *const Tile) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let dst = self.ring + self.state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(dst, src.cast(), TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }
}

impl<const S: u32> Drop for Feeder<'_, S> {
    #[inline(always)]
    fn drop(&mut self) {
        self.pipe.producer_tail(self.state);
    }
}

/// A running column sum that lands in `out` when it goes out of scope.
struct ColumnSum {
    slot: *mut f32,
    acc: f32,
}

impl Drop for ColumnSum {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: `slot` is this thread's element of `out`.
        unsafe { *self.slot = self.acc };
    }
}

/// Consumers' view of the ring: one `Held` at a time, `left` of them in all.
struct Reader<'a, const S: u32> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: *const Tile,
    left: u32,
}

impl<'a, const S: u32> Reader<'a, S> {
    #[inline(always)]
    fn next(&mut self) -> Option<Held<'_, S>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(Held::wait(self.pipe, &mut self.state, self.ring))
    }
}

#[inline(always)]
fn tiles_of_block(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

#[inline(always)]
unsafe fn tile_at(input: *const f32, t: u32) -> *const Tile {
    unsafe { input.add(t as usize * TILE).cast() }
}

/// Sets up an `S`-stage pipeline with its barriers right after the ring; every thread gets it.
#[inline(always)]
fn setup<const S: u32>() -> Pipeline<S> {
    let bars = dynamic_shared_window_address() + S * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    Pipeline::<S>::attach(bars)
}

/// Four stages; consumers hold each tile through a `Held` and index it like an array.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_raii_stage_guard(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = setup::<4>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == PRODUCER {
        let mut feeder = Feeder::new(&pipe, dynamic_shared_window_address());
        let mut t = b;
        while t < tiles {
            feeder.push(tile_at(input, t));
            t += g;
        }
    } else if tid < CONSUMERS {
        let ring = dynamic_shared_base::<Tile>();
        let c = tid as usize;
        let mut state = PipelineState::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let tile = Held::wait(&pipe, &mut state, ring);
            for r in 0..ROWS {
                acc += tile[c + COLS * r];
            }
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// Three stages; the result is a `ColumnSum` that writes itself out when the consumer branch ends.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_raii_flush_on_drop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = setup::<3>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid < CONSUMERS {
        let c = tid as usize;
        let mut sum = ColumnSum { slot: out.add(b as usize * COLS + c), acc: 0.0 };
        let ring = dynamic_shared_base::<Tile>();
        let mut state = PipelineState::new();
        let mut t = b;
        while t < tiles {
            sum.acc += Held::wait(&pipe, &mut state, ring).column(c);
            t += g;
        }
    } else if tid == PRODUCER {
        let mut feeder = Feeder::new(&pipe, dynamic_shared_window_address());
        let mut t = b;
        while t < tiles {
            feeder.push(tile_at(input, t));
            t += g;
        }
    }
}

/// Two stages; consumers pull guards from a `Reader` with `while let`, like a lending iterator.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_raii_while_let_reader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = setup::<2>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = tiles_of_block(tiles, b, g);
    if tid == PRODUCER {
        let mut feeder = Feeder::new(&pipe, dynamic_shared_window_address());
        for k in 0..mine {
            feeder.push(tile_at(input, b + k * g));
        }
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut reader = Reader { pipe: &pipe, state: PipelineState::new(), ring: dynamic_shared_base::<Tile>(), left: mine };
        let mut acc = 0.0f32;
        while let Some(tile) = reader.next() {
            acc += tile.column(c);
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// Five stages; each consumer copies its column out of the stage and drops the guard by hand,
/// so the stage goes back to the producer before the adds.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_raii_early_drop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = setup::<5>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == PRODUCER {
        let mut feeder = Feeder::new(&pipe, dynamic_shared_window_address());
        let mut t = b;
        while t < tiles {
            feeder.push(tile_at(input, t));
            t += g;
        }
        drop(feeder);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let ring = dynamic_shared_base::<Tile>();
        let mut state = PipelineState::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let tile = Held::wait(&pipe, &mut state, ring);
            let mut column = [0.0f32; ROWS];
            for (r, v) in column.iter_mut().enumerate() {
                *v = tile[c + COLS * r];
            }
            drop(tile);
            acc += column.iter().sum::<f32>();
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// BROKEN: the consumers `mem::forget` the guard of their last tile ("nothing comes after it, no
/// need to release or advance"), so the last stage is never released and the producer's tail, run
/// by the `Feeder`'s drop, waits for it forever: the block hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_raii_bad_forget_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = setup::<4>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = tiles_of_block(tiles, b, g);
    if tid == PRODUCER {
        let mut feeder = Feeder::new(&pipe, dynamic_shared_window_address());
        for k in 0..mine {
            feeder.push(tile_at(input, b + k * g));
        }
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let ring = dynamic_shared_base::<Tile>();
        let mut state = PipelineState::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            let tile = Held::wait(&pipe, &mut state, ring);
            acc += tile.column(c);
            left -= 1;
            if left == 0 {
                // The last tile: the state will not be used again, skip the release.
                core::mem::forget(tile);
            }
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// A stage lease that only releases: unlike `Held` it does not give access to the tile.
struct Lease<'a, const S: u32> {
    pipe: &'a Pipeline<S>,
    state: &'a mut PipelineState<S>,
}

impl<'a, const S: u32> Lease<'a, S> {
    #[inline(always)]
    fn wait(pipe: &'a Pipeline<S>, state: &'a mut PipelineState<S>) -> Self {
        pipe.consumer_wait(state);
        Lease { pipe, state }
    }
}

impl<const S: u32> Drop for Lease<'_, S> {
    #[inline(always)]
    fn drop(&mut self) {
        self.pipe.consumer_release(self.state);
        self.state.advance();
    }
}

/// BROKEN: `let _ = Lease::wait(..)` (written so because `let _lease` kept `state` borrowed)
/// drops the lease at once: the stage is released and the state advanced before the read, so each
/// tile is read from the *next* stage, which nobody waited for (stale or in-flight data, and the
/// first tile is never read): wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_raii_bad_let_underscore(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = setup::<4>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == PRODUCER {
        let mut feeder = Feeder::new(&pipe, dynamic_shared_window_address());
        let mut t = b;
        while t < tiles {
            feeder.push(tile_at(input, t));
            t += g;
        }
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let _ = Lease::wait(&pipe, &mut state);
            let stage = ring.add(state.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(c + COLS * r);
            }
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// A lease that owns its state (a `PipelineState` is `Copy`).
struct OwnedLease<'a, const S: u32> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
}

impl<const S: u32> Drop for OwnedLease<'_, S> {
    #[inline(always)]
    fn drop(&mut self) {
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// BROKEN: the lease takes the `PipelineState` by value; it is `Copy`, so the lease advances its
/// own copy and the loop's state stays on stage 0 phase 0. Every tile re-reads stage 0 and
/// releases it again; stages 1..3 are never released, the producer blocks acquiring stage 1 for
/// its fifth tile and never reaches its tail: the block hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_raii_bad_copied_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = setup::<4>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == PRODUCER {
        let mut feeder = Feeder::new(&pipe, dynamic_shared_window_address());
        let mut t = b;
        while t < tiles {
            feeder.push(tile_at(input, t));
            t += g;
        }
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        let state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let lease = OwnedLease { pipe: &pipe, state };
            let stage = ring.add(lease.state.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(c + COLS * r);
            }
            drop(lease);
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// A feeder whose copy size is spelled in the tile's length.
struct CountingFeeder<'a, const S: u32> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: u32,
}

impl<const S: u32> CountingFeeder<'_, S> {
    #[inline(always)]
    fn push(&mut self, src: *const f32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let dst = self.ring + self.state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(dst, src.cast(), TILE as u32, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }
}

impl<const S: u32> Drop for CountingFeeder<'_, S> {
    #[inline(always)]
    fn drop(&mut self) {
        self.pipe.producer_tail(self.state);
    }
}

/// BROKEN: the feeder copies `TILE as u32` bytes, the tile's length in floats (256), while the
/// stage expects `TILE_BYTES` (1024): no full barrier ever completes, the consumers wait on the
/// first stage forever and the producer blocks on its fifth tile: the block hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_raii_bad_tile_units(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let pipe = setup::<4>();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == PRODUCER {
        let mut feeder = CountingFeeder { pipe: &pipe, state: PipelineState::producer_start(), ring: dynamic_shared_window_address() };
        let mut t = b;
        while t < tiles {
            feeder.push(input.add(t as usize * TILE));
            t += g;
        }
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let ring = dynamic_shared_base::<Tile>();
        let mut state = PipelineState::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += Held::wait(&pipe, &mut state, ring).column(c);
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}
