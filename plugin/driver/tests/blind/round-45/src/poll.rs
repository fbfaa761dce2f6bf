//! Manual async style: each role is a hand-written future-like struct with
//! `poll(&mut self) -> Poll<()>` that does one tile of work per poll, and a tiny executor loop
//! polls the role it is given until it is ready.
use core::task::Poll;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: u32 = 256;
const TILE_BYTES: u32 = 1024;
const LANES: u32 = 32;

/// The executor: polls until ready (a GPU thread has nothing else to run meanwhile).
#[inline(always)]
fn block_on(mut poll: impl FnMut() -> Poll<()>) {
    while poll().is_pending() {}
}

struct Fetch<const S: u32> { pipe: Pipeline<S>, st: PipelineState<S>, ring: u32, input: *const f32, next: u32, end: u32, step: u32 }

impl<const S: u32> Fetch<S> {
    #[inline(always)]
    fn new(pipe: Pipeline<S>, ring: u32, input: *const f32, tiles: u32) -> Self {
        Fetch { pipe, st: PipelineState::producer_start(), ring, input, next: block_idx_x(), end: tiles, step: grid_dim_x() }
    }
    #[inline(always)]
    unsafe fn poll(&mut self) -> Poll<()> {
        if self.next >= self.end {
            self.pipe.producer_tail(self.st);
            return Poll::Ready(());
        }
        self.pipe.producer_acquire(&self.st);
        self.pipe.producer_expect_tx(&self.st, TILE_BYTES);
        bulk_copy_global_to_shared(self.ring + self.st.index() * TILE_BYTES, self.input.add((self.next * TILE) as usize) as *const u8, TILE_BYTES, self.pipe.producer_barrier(&self.st));
        self.st.advance();
        self.next += self.step;
        Poll::Pending
    }
}

struct Sum<const S: u32> { pipe: Pipeline<S>, st: PipelineState<S>, ring: *const f32, lane: u32, acc: f32, next: u32, end: u32, step: u32 }

impl<const S: u32> Sum<S> {
    #[inline(always)]
    fn new(pipe: Pipeline<S>, ring: *const f32, lane: u32, tiles: u32) -> Self {
        Sum { pipe, st: PipelineState::new(), ring, lane, acc: 0.0, next: block_idx_x(), end: tiles, step: grid_dim_x() }
    }
    #[inline(always)]
    unsafe fn poll(&mut self) -> Poll<()> {
        if self.next >= self.end { return Poll::Ready(()); }
        self.pipe.consumer_wait(&self.st);
        let stage = self.ring.add((self.st.index() * TILE) as usize);
        for r in 0..8u32 { self.acc += *stage.add((r * LANES + self.lane) as usize); }
        self.pipe.consumer_release(&self.st);
        self.st.advance();
        self.next += self.step;
        Poll::Pending
    }
}

#[inline(always)]
unsafe fn spawn_pipe<const S: u32>(bars: u32, releasers: u32) -> Pipeline<S> {
    if thread_idx_x() == 0 { Pipeline::<S>::init(bars, releasers); }
    barrier();
    Pipeline::<S>::attach(bars)
}

// Two futures, one executor loop per role.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_poll_executor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = spawn_pipe::<4>(win + 4 * TILE_BYTES, LANES);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut f = Fetch::new(pipe, win, input, tiles);
        block_on(|| f.poll());
    } else if tid < LANES {
        let mut s = Sum::new(pipe, dynamic_shared_base::<f32>(), tid, tiles);
        block_on(|| s.poll());
        *out.add((block_idx_x() * LANES + tid) as usize) = s.acc;
    }
}

#[derive(Clone, Copy, PartialEq)]
enum FetchStep { Acquire, Fill, Done }

/// A fetch future whose every poll makes one step of a state machine.
struct FetchMachine<const S: u32> { pipe: Pipeline<S>, st: PipelineState<S>, ring: u32, input: *const f32, next: u32, end: u32, step: FetchStep }

impl<const S: u32> FetchMachine<S> {
    #[inline(always)]
    unsafe fn poll(&mut self) -> Poll<()> {
        match self.step {
            FetchStep::Acquire => {
                if self.next >= self.end {
                    self.pipe.producer_tail(self.st);
                    self.step = FetchStep::Done;
                    return Poll::Ready(());
                }
                self.pipe.producer_acquire(&self.st);
                self.step = FetchStep::Fill;
                Poll::Pending
            }
            FetchStep::Fill => {
                self.pipe.producer_expect_tx(&self.st, TILE_BYTES);
                bulk_copy_global_to_shared(self.ring + self.st.index() * TILE_BYTES, self.input.add((self.next * TILE) as usize) as *const u8, TILE_BYTES, self.pipe.producer_barrier(&self.st));
                self.st.advance();
                self.next += grid_dim_x();
                self.step = FetchStep::Acquire;
                Poll::Pending
            }
            FetchStep::Done => Poll::Ready(()),
        }
    }
}

// The producer future is a two-step machine; three stages, producer on the last thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_poll_step_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = spawn_pipe::<3>(win + 3 * TILE_BYTES, LANES);
    let tid = thread_idx_x();
    if tid == 63 {
        let mut f = FetchMachine { pipe, st: PipelineState::producer_start(), ring: win, input, next: block_idx_x(), end: tiles, step: FetchStep::Acquire };
        block_on(|| f.poll());
    } else if tid < LANES {
        let mut s = Sum::new(pipe, dynamic_shared_base::<f32>(), tid, tiles);
        block_on(|| s.poll());
        *out.add((block_idx_x() * LANES + tid) as usize) = s.acc;
    }
}

/// A join of the block: every poll stages one tile and reduces it (block barriers inside).
struct PlainJoin { s: *mut f32, input: *const f32, tid: u32, acc: f32, next: u32, end: u32 }

impl PlainJoin {
    #[inline(always)]
    unsafe fn poll(&mut self) -> Poll<()> {
        if self.next >= self.end { return Poll::Ready(()); }
        let mut i = self.tid;
        while i < TILE { *self.s.add(i as usize) = *self.input.add((self.next * TILE + i) as usize); i += 64; }
        barrier();
        if self.tid < LANES { for r in 0..8u32 { self.acc += *self.s.add((r * LANES + self.tid) as usize); } }
        barrier();
        self.next += grid_dim_x();
        Poll::Pending
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_poll_plain_join(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let mut j = PlainJoin { s: dynamic_shared_base::<f32>(), input, tid, acc: 0.0, next: block_idx_x(), end: tiles };
    block_on(|| j.poll());
    if tid < LANES { *out.add((block_idx_x() * LANES + tid) as usize) = j.acc; }
}

// Each fetch poll fills its stage with four quarter-tile copies from a counted loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_poll_quarter_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = spawn_pipe::<4>(win + 4 * TILE_BYTES, LANES);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut next = block_idx_x();
        block_on(|| {
            if next >= tiles { pipe.producer_tail(st); return Poll::Ready(()); }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            for q in 0..4u32 {
                bulk_copy_global_to_shared(win + st.index() * TILE_BYTES + q * 256, input.add((next * TILE + q * 64) as usize) as *const u8, 256, pipe.producer_barrier(&st));
            }
            st.advance();
            next += grid_dim_x();
            Poll::Pending
        });
    } else if tid < LANES {
        let mut s = Sum::new(pipe, dynamic_shared_base::<f32>(), tid, tiles);
        block_on(|| s.poll());
        *out.add((block_idx_x() * LANES + tid) as usize) = s.acc;
    }
}

/// A sum future that reports ready as soon as no further tile follows the one it holds.
struct SumLookahead<const S: u32> { inner: Sum<S> }
impl<const S: u32> SumLookahead<S> {
    #[inline(always)]
    unsafe fn poll(&mut self) -> Poll<()> {
        if self.inner.next + self.inner.step >= self.inner.end { return Poll::Ready(()); }
        self.inner.poll()
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_poll_bad_lookahead_ready(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = spawn_pipe::<4>(win + 4 * TILE_BYTES, LANES);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut f = Fetch::new(pipe, win, input, tiles);
        block_on(|| f.poll());
    } else if tid < LANES {
        let mut s = SumLookahead { inner: Sum::new(pipe, dynamic_shared_base::<f32>(), tid, tiles) };
        block_on(|| s.poll());
        *out.add((block_idx_x() * LANES + tid) as usize) = s.inner.acc;
    }
}

// Both futures are built by one constructor that starts their ring position ready to go.
#[inline(always)]
fn fresh_state<const S: u32>() -> PipelineState<S> { PipelineState::producer_start() }

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_poll_bad_fresh_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = spawn_pipe::<4>(win + 4 * TILE_BYTES, LANES);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut f = Fetch::new(pipe, win, input, tiles);
        f.st = fresh_state();
        block_on(|| f.poll());
    } else if tid < LANES {
        let mut s = Sum::new(pipe, dynamic_shared_base::<f32>(), tid, tiles);
        s.st = fresh_state();
        block_on(|| s.poll());
        *out.add((block_idx_x() * LANES + tid) as usize) = s.acc;
    }
}

/// A fetch future that only fills a stage when another tile will follow it (prefetch guard).
struct Prefetch<const S: u32> { f: Fetch<S> }
impl<const S: u32> Prefetch<S> {
    #[inline(always)]
    unsafe fn poll(&mut self) -> Poll<()> {
        let f = &mut self.f;
        if f.next >= f.end {
            f.pipe.producer_tail(f.st);
            return Poll::Ready(());
        }
        f.pipe.producer_acquire(&f.st);
        f.pipe.producer_expect_tx(&f.st, TILE_BYTES);
        if f.next + f.step < f.end {
            bulk_copy_global_to_shared(f.ring + f.st.index() * TILE_BYTES, f.input.add((f.next * TILE) as usize) as *const u8, TILE_BYTES, f.pipe.producer_barrier(&f.st));
        }
        f.st.advance();
        f.next += f.step;
        Poll::Pending
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_poll_bad_prefetch_guard(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = spawn_pipe::<4>(win + 4 * TILE_BYTES, LANES);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut f = Prefetch { f: Fetch::new(pipe, win, input, tiles) };
        block_on(|| f.poll());
    } else if tid < LANES {
        let mut s = Sum::new(pipe, dynamic_shared_base::<f32>(), tid, tiles);
        block_on(|| s.poll());
        *out.add((block_idx_x() * LANES + tid) as usize) = s.acc;
    }
}

/// A sum future whose wake-up (the release) is sent once per warp, by its first lane.
struct WarpWake<const S: u32> { inner: Sum<S> }
impl<const S: u32> WarpWake<S> {
    #[inline(always)]
    unsafe fn poll(&mut self) -> Poll<()> {
        let s = &mut self.inner;
        if s.next >= s.end { return Poll::Ready(()); }
        s.pipe.consumer_wait(&s.st);
        let stage = s.ring.add((s.st.index() * TILE) as usize);
        for r in 0..8u32 { s.acc += *stage.add((r * LANES + s.lane) as usize); }
        if s.lane == 0 { s.pipe.consumer_release(&s.st); }
        s.st.advance();
        s.next += s.step;
        Poll::Pending
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_poll_bad_warp_wake(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = spawn_pipe::<4>(win + 4 * TILE_BYTES, LANES);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut f = Fetch::new(pipe, win, input, tiles);
        block_on(|| f.poll());
    } else if tid < LANES {
        let mut s = WarpWake { inner: Sum::new(pipe, dynamic_shared_base::<f32>(), tid, tiles) };
        block_on(|| s.poll());
        *out.add((block_idx_x() * LANES + tid) as usize) = s.inner.acc;
    }
}
