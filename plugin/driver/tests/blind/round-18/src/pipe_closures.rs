//! Pipelines driven through closures and traits: a generic tile driver that calls a closure
//! per owned tile, a trait whose default method runs a role, folds, and a reader closure handed
//! the stage by a helper that waits and releases around it.

#![allow(unsafe_op_in_unsafe_fn)]

use core::ops::ControlFlow;

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const S: u32 = 4;
const RING: u32 = 64;

/// Calls `body` with every tile this block owns, in order.
#[inline(always)]
fn each_owned(tiles: u32, mut body: impl FnMut(u32)) {
    let mut t = block_idx_x();
    while t < tiles {
        body(t);
        t += grid_dim_x();
    }
}

/// Calls `body` with the state and every tile this block owns, then `next` to step the state.
#[inline(always)]
fn drive_state(
    tiles: u32,
    st: &mut PipelineState<S>,
    mut body: impl FnMut(&mut PipelineState<S>, u32),
    mut next: impl FnMut(&mut PipelineState<S>),
) {
    let mut t = block_idx_x();
    while t < tiles {
        body(st, t);
        next(st);
        t += grid_dim_x();
    }
}

#[inline(always)]
fn set_up() -> (Pipeline<S>, u32) {
    let win = dynamic_shared_window_address();
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    (Pipeline::<S>::attach(win), win)
}

/// Both roles hand their per-tile work to `each_owned` as closures that borrow their state.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_closure_driver(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        each_owned(tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        each_owned(tiles, |_| {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        });
        store_column(out, tid, acc);
    }
}

/// A role: what it does with one tile and when it is done; `run` walks the owned tiles.
trait TileRole: Sized {
    unsafe fn on_tile(&mut self, t: u32);
    unsafe fn done(self);

    #[inline(always)]
    unsafe fn run(mut self, tiles: u32) {
        let mut t = block_idx_x();
        while t < tiles {
            self.on_tile(t);
            t += grid_dim_x();
        }
        self.done();
    }
}

struct Filler<'a> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    win: u32,
    input: *const f32,
}

impl TileRole for Filler<'_> {
    #[inline(always)]
    unsafe fn on_tile(&mut self, t: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.win + RING + self.state.index() * TILE_BYTES,
            tile_source(self.input, t),
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
    }

    #[inline(always)]
    unsafe fn done(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct Summer<'a> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    lane: u32,
    acc: f32,
    out: *mut f32,
}

impl TileRole for Summer<'_> {
    #[inline(always)]
    unsafe fn on_tile(&mut self, _t: u32) {
        self.pipe.consumer_wait(&self.state);
        self.acc += column_sum(self.ring.add(self.state.index() as usize * TILE_FLOATS), self.lane as usize);
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }

    #[inline(always)]
    unsafe fn done(self) {
        store_column(self.out, self.lane, self.acc);
    }
}

/// Roles implement a trait whose default method runs the tile loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_trait_run(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = set_up();
    if tid == 32 {
        Filler { pipe: &pipe, state: PipelineState::producer_start(), win, input }.run(tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        Summer { pipe: &pipe, state: PipelineState::new(), ring, lane: tid, acc: 0.0, out }.run(tiles);
    }
}

/// The consumer folds its tiles into the sum; the producer runs `for_each` over a range.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_fold_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = set_up();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        (0..n).for_each(|k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, owned_tile(k)), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let total = (0..n).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let s = column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            acc + s
        });
        store_column(out, tid, total);
    }
}

/// Waits for the stage, hands it to `read`, releases it and moves on.
#[inline(always)]
unsafe fn with_stage<R>(pipe: &Pipeline<S>, st: &mut PipelineState<S>, ring: *const f32, read: impl FnOnce(*const f32) -> R) -> R {
    pipe.consumer_wait(st);
    let r = read(ring.add(st.index() as usize * TILE_FLOATS));
    pipe.consumer_release(st);
    st.advance();
    r
}

/// The consumer reads each stage inside a closure that `with_stage` brackets with the wait and
/// the release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_reader_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = set_up();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let lane = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += with_stage(&pipe, &mut st, ring, |stage| column_sum(stage, lane));
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Producer step generic over where a tile's bytes come from.
#[inline(always)]
fn fill_from<F: Fn(u32) -> *const u8>(pipe: &Pipeline<S>, st: &mut PipelineState<S>, win: u32, source: &F, t: u32) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, source(t), TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

/// The producer's source address is a closure handed to a generic step.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_generic_source(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = set_up();
    if tid == 32 {
        let source = |t: u32| tile_source(input, t);
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            fill_from(&pipe, &mut st, win, &source, t);
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
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

/// `with_stage` for callers that keep their state in a `Copy` struct: takes the state by value.
#[inline(always)]
unsafe fn with_stage_copy<R>(pipe: &Pipeline<S>, mut st: PipelineState<S>, ring: *const f32, read: impl FnOnce(*const f32) -> R) -> R {
    pipe.consumer_wait(&st);
    let r = read(ring.add(st.index() as usize * TILE_FLOATS));
    pipe.consumer_release(&st);
    st.advance();
    r
}

/// Broken: `with_stage_copy` advances its own copy of the state; the caller's state stays at
/// stage 0, parity 0, so the warp rereads stage 0 and the producer waits for stage 1 forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_bad_stage_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = set_up();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        each_owned(tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let lane = tid as usize;
        let st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += with_stage_copy(&pipe, st, ring, |stage| column_sum(stage, lane));
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the consumer's fold starts at 1 (as if the first tile were peeled), but nothing
/// peels it: the consumers take one tile fewer and the producer's tail waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_bad_fold_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = set_up();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        (0..n).for_each(|k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, owned_tile(k)), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let total = (1..n).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let s = column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            acc + s
        });
        store_column(out, tid, total);
    }
}

/// A consumer protocol written as a trait: the default `consume_one` strings the steps.
trait StageReader {
    unsafe fn read(&mut self);
    fn wait(&mut self);
    fn release_and_advance(&mut self);

    #[inline(always)]
    unsafe fn consume_one(&mut self) {
        self.read();
        self.wait();
        self.release_and_advance();
    }
}

struct LaneReader<'a> {
    pipe: &'a Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    lane: usize,
    acc: f32,
}

impl StageReader for LaneReader<'_> {
    #[inline(always)]
    unsafe fn read(&mut self) {
        self.acc += column_sum(self.ring.add(self.state.index() as usize * TILE_FLOATS), self.lane);
    }

    #[inline(always)]
    fn wait(&mut self) {
        self.pipe.consumer_wait(&self.state);
    }

    #[inline(always)]
    fn release_and_advance(&mut self) {
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// Broken: the trait's default method reads the stage before it waits for it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_bad_trait_order(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = set_up();
    if tid == 32 {
        Filler { pipe: &pipe, state: PipelineState::producer_start(), win, input }.run(tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut reader = LaneReader { pipe: &pipe, state: PipelineState::new(), ring, lane: tid as usize, acc: 0.0 };
        each_owned(tiles, |_| reader.consume_one());
        store_column(out, tid, reader.acc);
    }
}

/// Broken: `drive_state` steps the state after each tile, and the consumer's tile closure
/// (written for `each_owned`) advances it too; the warp skips every other stage and waits on
/// one that is never filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_bad_driver_steps_too(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = set_up();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        drive_state(
            tiles,
            &mut st,
            |st, t| {
                pipe.producer_acquire(st);
                pipe.producer_expect_tx(st, TILE_BYTES);
                bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(st));
            },
            |st| st.advance(),
        );
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        drive_state(
            tiles,
            &mut st,
            |st, _t| {
                pipe.consumer_wait(st);
                acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
                pipe.consumer_release(st);
                st.advance();
            },
            |st| st.advance(),
        );
        store_column(out, tid, acc);
    }
}

/// Broken: the consumers stop before the block's last tile (`try_for_each` breaks when the
/// next tile would be past the end), leaving its stage unreleased for the producer's tail.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pc_bad_try_stop_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (pipe, win) = set_up();
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut k = 0;
        while k < n {
            fill_from(&pipe, &mut st, win, &|t| tile_source(input, t), owned_tile(k));
            k += 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let _ = (0..n).try_for_each(|k| {
            if owned_tile(k) + grid_dim_x() >= tiles {
                return ControlFlow::Break(());
            }
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            ControlFlow::Continue(())
        });
        store_column(out, tid, acc);
    }
}
