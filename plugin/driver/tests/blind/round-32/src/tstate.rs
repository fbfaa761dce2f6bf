//! Typestate wrappers around the pipeline: every step of a role consumes the value that
//! stands for its place in the ring and returns the next one (`Vacant → Claimed → Vacant`
//! for the producer, `Awaiting → Holding → Awaiting` for a consumer), so that the order of
//! the protocol is what the types allow. The block's setup is a typestate too: `Unset`
//! becomes `Ready` once the barriers are initialised and published by a block barrier.
//!
//! Shared layout of every kernel here: the pipeline's barriers at window byte 0, the ring of
//! 1 KiB stages at `ring_at` (a multiple of 16 past the barriers). One producer thread,
//! 32 consumer threads, each consumer owning one column `c` of the 32-float rows.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const CONSUMERS: u32 = 32;

/// The block's shared window before its barriers exist.
struct Unset {
    window: u32,
}

/// The pipeline, initialised by one thread and published to the block.
struct Ready<const S: u32> {
    pipe: Pipeline<S>,
    ring_window: u32,
    ring: *const f32,
}

impl Unset {
    #[inline(always)]
    fn take() -> Unset {
        Unset { window: dynamic_shared_window_address() }
    }

    /// Every thread calls this; `leader` initialises, the block barrier publishes.
    #[inline(always)]
    fn publish<const S: u32>(self, leader: bool, consumers: u32, ring_at: u32) -> Ready<S> {
        let pipe = if leader { Pipeline::<S>::init(self.window, consumers) } else { Pipeline::<S>::attach(self.window) };
        barrier();
        let ring = unsafe { dynamic_shared_base::<f32>().add((ring_at / 4) as usize) as *const f32 };
        Ready { pipe, ring_window: self.window + ring_at, ring }
    }

    /// Setup where only the leader waits for the others after initialising.
    #[inline(always)]
    fn publish_from_leader<const S: u32>(self, leader: bool, consumers: u32, ring_at: u32) -> Ready<S> {
        let pipe = if leader {
            let pipe = Pipeline::<S>::init(self.window, consumers);
            barrier();
            pipe
        } else {
            Pipeline::<S>::attach(self.window)
        };
        let ring = unsafe { dynamic_shared_base::<f32>().add((ring_at / 4) as usize) as *const f32 };
        Ready { pipe, ring_window: self.window + ring_at, ring }
    }
}

/// Producer: a stage that must be claimed before it is filled.
struct Vacant<const S: u32>(PipelineState<S>);

/// Producer: a claimed (empty) stage, ready for its copy.
struct Claimed<const S: u32>(PipelineState<S>);

impl<const S: u32> Vacant<S> {
    #[inline(always)]
    fn first() -> Self {
        Vacant(PipelineState::producer_start())
    }

    #[inline(always)]
    fn from_default() -> Self {
        Vacant(PipelineState::default())
    }

    #[inline(always)]
    fn claim(self, ready: &Ready<S>) -> Claimed<S> {
        ready.pipe.producer_acquire(&self.0);
        Claimed(self.0)
    }

    #[inline(always)]
    fn close(self, ready: &Ready<S>) {
        ready.pipe.producer_tail(self.0);
    }
}

impl<const S: u32> Claimed<S> {
    /// Announces one tile and copies it whole into the claimed stage.
    #[inline(always)]
    fn load(self, ready: &Ready<S>, tile: *const f32) -> Vacant<S> {
        let state = self.0;
        ready.pipe.producer_expect_tx(&state, TILE_BYTES);
        let destination = ready.ring_window + state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(destination, tile.cast::<u8>(), TILE_BYTES, ready.pipe.producer_barrier(&state));
        let mut next = state;
        next.advance();
        Vacant(next)
    }

    /// Announces one tile and copies it as `halves` copies of half a tile each.
    #[inline(always)]
    fn load_in_halves(self, ready: &Ready<S>, tile: *const f32, halves: u32) -> Vacant<S> {
        let state = self.0;
        ready.pipe.producer_expect_tx(&state, TILE_BYTES);
        let destination = ready.ring_window + state.index() * TILE_BYTES;
        for h in 0..halves {
            let source = unsafe { tile.add((h * TILE_FLOATS / 2) as usize) };
            bulk_copy_global_to_shared(
                destination + h * (TILE_BYTES / 2),
                source.cast::<u8>(),
                TILE_BYTES / 2,
                ready.pipe.producer_barrier(&state),
            );
        }
        let mut next = state;
        next.advance();
        Vacant(next)
    }
}

/// Consumer: waiting for the next stage.
struct Awaiting<const S: u32>(PipelineState<S>);

/// Consumer: a stage that holds its tile, readable until it is given back.
struct Holding<const S: u32> {
    state: PipelineState<S>,
    stage: *const f32,
}

impl<const S: u32> Awaiting<S> {
    #[inline(always)]
    fn first() -> Self {
        Awaiting(PipelineState::new())
    }

    #[inline(always)]
    fn hold(self, ready: &Ready<S>) -> Holding<S> {
        ready.pipe.consumer_wait(&self.0);
        let stage = unsafe { ready.ring.add((self.0.index() * TILE_FLOATS) as usize) };
        Holding { state: self.0, stage }
    }
}

impl<const S: u32> Holding<S> {
    /// Sum of column `c` over the tile's eight rows.
    #[inline(always)]
    fn column(&self, c: u32) -> f32 {
        let mut sum = 0.0f32;
        for r in 0..ROWS {
            sum += unsafe { *self.stage.add((r * COLS + c) as usize) };
        }
        sum
    }

    /// The tile as eight rows of 32 floats.
    #[inline(always)]
    fn rows(&self) -> *const [[f32; 32]; 8] {
        self.stage as *const [[f32; 32]; 8]
    }

    /// The raw stage pointer, for readers written against plain pointers.
    #[inline(always)]
    fn stage(&self) -> *const f32 {
        self.stage
    }

    #[inline(always)]
    fn give_back(self, ready: &Ready<S>) -> Awaiting<S> {
        ready.pipe.consumer_release(&self.state);
        let mut next = self.state;
        next.advance();
        Awaiting(next)
    }
}

/// A consumer slot that can be copied freely (a convenience for loops).
#[derive(Clone, Copy)]
struct Cursor<const S: u32>(PipelineState<S>);

impl<const S: u32> Cursor<S> {
    #[inline(always)]
    fn first() -> Self {
        Cursor(PipelineState::new())
    }

    #[inline(always)]
    fn hold(self, ready: &Ready<S>) -> Holding<S> {
        Awaiting(self.0).hold(ready)
    }
}

/// A running column sum that moves through the tile loop.
struct Tally(f32);

impl Tally {
    #[inline(always)]
    fn zero() -> Tally {
        Tally(0.0)
    }

    #[inline(always)]
    fn plus(self, x: f32) -> Tally {
        Tally(self.0 + x)
    }

    #[inline(always)]
    unsafe fn store(self, out: *mut f32, block: u32, c: u32) {
        *out.add((block * COLS + c) as usize) = self.0;
    }
}

#[inline(always)]
unsafe fn tile_at(input: *const f32, t: u32) -> *const f32 {
    input.add((t * TILE_FLOATS) as usize)
}

/// Four stages; the producer's and the consumers' slots move through their typestates.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_move_chain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ready = Unset::take().publish::<4>(tid == 0, CONSUMERS, 1024);
    if tid == 0 {
        let mut slot = Vacant::first();
        let mut t = block_idx_x();
        while t < tiles {
            slot = slot.claim(&ready).load(&ready, tile_at(input, t));
            t += grid_dim_x();
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut slot = Awaiting::first();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = slot.hold(&ready);
            acc += held.column(c);
            slot = held.give_back(&ready);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// Three stages; consumers read the held tile through a view of its rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_row_view_guard(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ready = Unset::take().publish::<3>(tid == 0, CONSUMERS, 256);
    if tid == 0 {
        let mut slot = Vacant::first();
        let mut t = block_idx_x();
        while t < tiles {
            let claimed = slot.claim(&ready);
            slot = claimed.load(&ready, tile_at(input, t));
            t += grid_dim_x();
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut slot = Awaiting::first();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = slot.hold(&ready);
            let rows = held.rows();
            for r in 0..8 {
                acc += (*rows)[r][c];
            }
            slot = held.give_back(&ready);
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Two stages; the sum moves through the loop as a `Tally` that is consumed by its store.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_tally_moves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ready = Unset::take().publish::<2>(tid == 0, CONSUMERS, 512);
    if tid == 0 {
        let mut slot = Vacant::first();
        let mut t = block_idx_x();
        while t < tiles {
            slot = slot.claim(&ready).load(&ready, tile_at(input, t));
            t += grid_dim_x();
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut slot = Awaiting::first();
        let mut tally = Tally::zero();
        let mut t = block_idx_x();
        while t < tiles {
            let held = slot.hold(&ready);
            tally = tally.plus(held.column(c));
            slot = held.give_back(&ready);
            t += grid_dim_x();
        }
        tally.store(out, block_idx_x(), c);
    }
}

/// Six stages; warp 0 consumes and thread 32 (lane 0 of warp 1) initialises and produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_warp0_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ready = Unset::take().publish::<6>(tid == 32, CONSUMERS, 1024);
    if tid < 32 {
        let c = tid;
        let mut slot = Awaiting::first();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = slot.hold(&ready);
            acc += held.column(c);
            slot = held.give_back(&ready);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    } else if tid == 32 {
        let mut slot = Vacant::first();
        let mut t = block_idx_x();
        while t < tiles {
            slot = slot.claim(&ready).load(&ready, tile_at(input, t));
            t += grid_dim_x();
        }
        slot.close(&ready);
    }
}

/// Bytes in the shared window, kept apart from float counts by their types.
#[derive(Clone, Copy)]
struct WinAddr(u32);
#[derive(Clone, Copy)]
struct Bytes(u32);
#[derive(Clone, Copy)]
struct Floats(u32);

impl Bytes {
    #[inline(always)]
    const fn tiles(n: u32) -> Bytes {
        Bytes(n * TILE_BYTES)
    }

    #[inline(always)]
    const fn as_floats(self) -> Floats {
        Floats(self.0 / 4)
    }
}

impl WinAddr {
    #[inline(always)]
    fn plus(self, b: Bytes) -> WinAddr {
        WinAddr(self.0 + b.0)
    }
}

/// Four stages at byte 2048, addressed through unit newtypes for window bytes and floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_unit_newtypes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: Bytes = Bytes(2048);
    let tid = thread_idx_x();
    let window = WinAddr(dynamic_shared_window_address());
    let pipe = if tid == 0 { Pipeline::<4>::init(window.0, CONSUMERS) } else { Pipeline::<4>::attach(window.0) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, Bytes::tiles(1).0);
            let destination = window.plus(RING).plus(Bytes::tiles(state.index()));
            bulk_copy_global_to_shared(destination.0, tile_at(input, t).cast::<u8>(), Bytes::tiles(1).0, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let base = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let at: Floats = Floats(RING.as_floats().0 + Bytes::tiles(state.index()).as_floats().0);
            let stage = base.add(at.0 as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + c) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// Five stages; the per-block tile count is computed up front and both roles count down.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_counted_slots(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    let ready = Unset::take().publish::<5>(tid == 0, CONSUMERS, 128);
    if tid == 0 {
        let mut slot = Vacant::first();
        let mut left = mine;
        let mut t = b;
        while left > 0 {
            slot = slot.claim(&ready).load(&ready, tile_at(input, t));
            t += g;
            left -= 1;
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut slot = Awaiting::first();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            let held = slot.hold(&ready);
            acc += held.column(c);
            slot = held.give_back(&ready);
            left -= 1;
        }
        *out.add((b * COLS + c) as usize) = acc;
    }
}

/// Four stages; the producer fills each stage with what it takes for two half-tile copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_bad_single_half(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ready = Unset::take().publish::<4>(tid == 0, CONSUMERS, 1024);
    if tid == 0 {
        let mut slot = Vacant::first();
        let mut t = block_idx_x();
        while t < tiles {
            slot = slot.claim(&ready).load_in_halves(&ready, tile_at(input, t), 1);
            t += grid_dim_x();
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut slot = Awaiting::first();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = slot.hold(&ready);
            acc += held.column(c);
            slot = held.give_back(&ready);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// Four stages; consumers keep the stage pointer, give the stage back, then sum the column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_bad_escaped_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ready = Unset::take().publish::<4>(tid == 0, CONSUMERS, 1024);
    if tid == 0 {
        let mut slot = Vacant::first();
        let mut t = block_idx_x();
        while t < tiles {
            slot = slot.claim(&ready).load(&ready, tile_at(input, t));
            t += grid_dim_x();
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut slot = Awaiting::first();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = slot.hold(&ready);
            let stage = held.stage();
            slot = held.give_back(&ready);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + c) as usize);
            }
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// Four stages; consumers hold through a copyable cursor and drop what `give_back` returns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_bad_copyable_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ready = Unset::take().publish::<4>(tid == 0, CONSUMERS, 1024);
    if tid == 0 {
        let mut slot = Vacant::first();
        let mut t = block_idx_x();
        while t < tiles {
            slot = slot.claim(&ready).load(&ready, tile_at(input, t));
            t += grid_dim_x();
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = tid - 32;
        let cursor = Cursor::<4>::first();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = cursor.hold(&ready);
            acc += held.column(c);
            let _next = held.give_back(&ready);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// Four stages; the setup's block barrier sits in the initialising thread's branch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_bad_leader_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ready = Unset::take().publish_from_leader::<4>(tid == 0, CONSUMERS, 1024);
    if tid == 0 {
        let mut slot = Vacant::first();
        let mut t = block_idx_x();
        while t < tiles {
            slot = slot.claim(&ready).load(&ready, tile_at(input, t));
            t += grid_dim_x();
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut slot = Awaiting::first();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = slot.hold(&ready);
            acc += held.column(c);
            slot = held.give_back(&ready);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// Four stages; the producer's first slot is built from the state's `Default`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_bad_vacant_default(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ready = Unset::take().publish::<4>(tid == 0, CONSUMERS, 1024);
    if tid == 0 {
        let mut slot = Vacant::from_default();
        let mut t = block_idx_x();
        while t < tiles {
            slot = slot.claim(&ready).load(&ready, tile_at(input, t));
            t += grid_dim_x();
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut slot = Awaiting::first();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = slot.hold(&ready);
            acc += held.column(c);
            slot = held.give_back(&ready);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// Three stages; the setup announces a release from every thread of the block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ts_bad_block_release_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const BLOCK: u32 = 64;
    let tid = thread_idx_x();
    let ready = Unset::take().publish::<3>(tid == 0, BLOCK, 1024);
    if tid == 0 {
        let mut slot = Vacant::first();
        let mut t = block_idx_x();
        while t < tiles {
            slot = slot.claim(&ready).load(&ready, tile_at(input, t));
            t += grid_dim_x();
        }
        slot.close(&ready);
    } else if tid >= 32 {
        let c = tid - 32;
        let mut slot = Awaiting::first();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = slot.hold(&ready);
            acc += held.column(c);
            slot = held.give_back(&ready);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}
