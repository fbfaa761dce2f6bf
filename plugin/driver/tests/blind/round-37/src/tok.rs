//! Style `tok`: move-only typestate tokens.
//!
//! Each step of the protocol consumes the token of the previous step and returns the next one,
//! so that the compiler refuses a copy issued before the stage was claimed or a read after the
//! stage was given back (as far as the token's own methods go):
//! - producer: `Producer` →`claim`→ `Claimed` →`issue(source)`→ `Issued` →`next`→ `Producer`,
//!   and `Producer::finish` (the tail) at the end;
//! - consumer: `Consumer` →`wait`→ `Held` (read through it) →`release`→ `Spent` →`next`→
//!   `Consumer`.
//! The tokens carry the device API's `PipelineState` by value; none of them is `Copy`.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x, warp_id,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const BLOCK: u32 = 64;
const SMEM: u32 = 8192;

// ----- producer tokens -----------------------------------------------------------------------

#[must_use]
pub struct Producer<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    ring: u32,
    state: PipelineState<S>,
}

#[must_use]
pub struct Claimed<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    ring: u32,
    state: PipelineState<S>,
}

#[must_use]
pub struct Issued<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    ring: u32,
    state: PipelineState<S>,
}

impl<'p, const S: u32> Producer<'p, S> {
    #[inline(always)]
    pub fn start(pipe: &'p Pipeline<S>, ring: u32) -> Self {
        Producer { pipe, ring, state: PipelineState::producer_start() }
    }

    #[inline(always)]
    pub fn claim(self) -> Claimed<'p, S> {
        self.pipe.producer_acquire(&self.state);
        Claimed { pipe: self.pipe, ring: self.ring, state: self.state }
    }

    #[inline(always)]
    pub fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

impl<'p, const S: u32> Claimed<'p, S> {
    #[inline(always)]
    pub fn issue(self, source: *const f32) -> Issued<'p, S> {
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ring + self.state.index() * TILE_BYTES,
            source as *const u8,
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        Issued { pipe: self.pipe, ring: self.ring, state: self.state }
    }

    /// Written for the two-buffer version of the kernel ("load into the other buffer while
    /// this one is read"), and kept for two-stage rings.
    #[inline(always)]
    pub fn issue_other_buffer(self, source: *const f32) -> Issued<'p, S> {
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ring + (self.state.index() ^ 1) * TILE_BYTES,
            source as *const u8,
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        Issued { pipe: self.pipe, ring: self.ring, state: self.state }
    }
}

impl<'p, const S: u32> Issued<'p, S> {
    #[inline(always)]
    pub fn next(self) -> Producer<'p, S> {
        let mut state = self.state;
        state.advance();
        Producer { pipe: self.pipe, ring: self.ring, state }
    }
}

// ----- consumer tokens -----------------------------------------------------------------------

#[must_use]
pub struct Consumer<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    ring: *const f32,
    state: PipelineState<S>,
}

#[must_use]
pub struct Held<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    ring: *const f32,
    state: PipelineState<S>,
}

#[must_use]
pub struct Spent<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    ring: *const f32,
    state: PipelineState<S>,
}

impl<'p, const S: u32> Consumer<'p, S> {
    #[inline(always)]
    pub fn start(pipe: &'p Pipeline<S>, ring: *const f32) -> Self {
        Consumer { pipe, ring, state: PipelineState::new() }
    }

    #[inline(always)]
    pub fn wait(self) -> Held<'p, S> {
        self.pipe.consumer_wait(&self.state);
        Held { pipe: self.pipe, ring: self.ring, state: self.state }
    }
}

impl<'p, const S: u32> Held<'p, S> {
    /// The held stage's first float.
    #[inline(always)]
    pub fn tile(&self) -> *const f32 {
        // SAFETY: the stage lies inside the ring.
        unsafe { self.ring.add(self.state.index() as usize * TILE_FLOATS) }
    }

    /// Sum of the first `R` rows of column `c` of the held stage.
    #[inline(always)]
    pub fn rows<const R: usize>(&self, c: usize) -> f32 {
        let tile = self.tile();
        let mut sum = 0.0f32;
        let mut r = 0;
        while r < R {
            // SAFETY: `R <= 8` rows of 32 floats.
            sum += unsafe { *tile.add(r * COLUMNS + c) };
            r += 1;
        }
        sum
    }

    #[inline(always)]
    pub fn column(&self, c: usize) -> f32 {
        self.rows::<ROWS>(c)
    }

    #[inline(always)]
    pub fn release(self) -> Spent<'p, S> {
        self.pipe.consumer_release(&self.state);
        Spent { pipe: self.pipe, ring: self.ring, state: self.state }
    }

    /// Shortcut: release and go straight to the next stage.
    #[inline(always)]
    pub fn release_and_continue(self) -> Consumer<'p, S> {
        self.pipe.consumer_release(&self.state);
        Consumer { pipe: self.pipe, ring: self.ring, state: self.state }
    }
}

impl<'p, const S: u32> Spent<'p, S> {
    #[inline(always)]
    pub fn next(self) -> Consumer<'p, S> {
        let mut state = self.state;
        state.advance();
        Consumer { pipe: self.pipe, ring: self.ring, state }
    }
}

#[inline(always)]
fn column_plain(tile: *const f32, c: usize) -> f32 {
    let mut sum = 0.0f32;
    for r in 0..ROWS {
        // SAFETY: inside the tile.
        sum += unsafe { *tile.add(r * COLUMNS + c) };
    }
    sum
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Four stages, barriers at 0, ring at 1024; producer thread 32 chains its tokens in one
/// expression per tile; consumers warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_tok_chain(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut producer = Producer::start(&pipe, window + RING);
        let mut t = b;
        while t < tiles {
            producer = producer.claim().issue(input.add(t as usize * TILE_FLOATS)).next();
            t += g;
        }
        producer.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut consumer = Consumer::start(&pipe, ring);
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let held = consumer.wait();
            acc += held.column(tid as usize);
            consumer = held.release().next();
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// Five stages, ring at 0 (0..5120), barriers after it; producer thread 0 binds every token to
/// a name; consumers warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_tok_stepwise(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    const RING: u32 = 0;
    const BARS: u32 = RING + STAGES * TILE_BYTES;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 0 {
        let mut producer = Producer::start(&pipe, window + RING);
        let mut t = b;
        while t < tiles {
            let claimed = producer.claim();
            let issued = claimed.issue(input.add(t as usize * TILE_FLOATS));
            producer = issued.next();
            t += g;
        }
        producer.finish();
    } else if warp_id() == 1 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let c = (tid - 32) as usize;
        let mut consumer = Consumer::start(&pipe, ring);
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let held = consumer.wait();
            let sum = column_plain(held.tile(), c);
            let spent = held.release();
            acc += sum;
            consumer = spent.next();
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// Two stages, barriers at 0, ring at 4096; the consumers read the held stage in two halves of
/// four rows through the const-generic `rows::<R>` (the second half as column `c + 4 · 32`,
/// four rows further down); producer thread 63.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_tok_rows_generic(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BARS: u32 = 0;
    const RING: u32 = 4096;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 63 {
        let mut producer = Producer::start(&pipe, window + RING);
        let mut t = b;
        while t < tiles {
            producer = producer.claim().issue(input.add(t as usize * TILE_FLOATS)).next();
            t += g;
        }
        producer.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let c = tid as usize;
        let mut consumer = Consumer::start(&pipe, ring);
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let held = consumer.wait();
            let top = held.rows::<4>(c);
            let bottom = held.rows::<4>(c + 4 * COLUMNS);
            acc += top + bottom;
            consumer = held.release().next();
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// Three stages, ring at 1024 (1024..4096), barriers at 7168; both roles count down the
/// block's tiles, and the producer walks its source pointer by a grid of tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_tok_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING: u32 = 1024;
    const BARS: u32 = 7168;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };

    if tid == 32 {
        let mut producer = Producer::start(&pipe, window + RING);
        let mut source = input.wrapping_add(b as usize * TILE_FLOATS);
        let mut left = mine;
        while left > 0 {
            producer = producer.claim().issue(source).next();
            source = source.wrapping_add(g as usize * TILE_FLOATS);
            left -= 1;
        }
        producer.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut consumer = Consumer::start(&pipe, ring);
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            let held = consumer.wait();
            acc += held.column(tid as usize);
            consumer = held.release().next();
            left -= 1;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// BROKEN: the tile pointer is taken out of the token before the release (a raw pointer does
/// not borrow the token), and the column is summed after the stage was given back.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_tok_bad_pointer_outlives_token(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut producer = Producer::start(&pipe, window + RING);
        let mut t = b;
        while t < tiles {
            producer = producer.claim().issue(input.add(t as usize * TILE_FLOATS)).next();
            t += g;
        }
        producer.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut consumer = Consumer::start(&pipe, ring);
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let held = consumer.wait();
            let tile = held.tile();
            consumer = held.release().next();
            acc += column_plain(tile, tid as usize);
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// BROKEN: the consumers use the `release_and_continue` shortcut, which releases but never
/// advances: every tile waits on stage 0's completed phase again, reads stage 0, and releases
/// stage 0 again; stages 1.. are never released and the producer waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_tok_bad_shortcut_no_advance(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut producer = Producer::start(&pipe, window + RING);
        let mut t = b;
        while t < tiles {
            producer = producer.claim().issue(input.add(t as usize * TILE_FLOATS)).next();
            t += g;
        }
        producer.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut consumer = Consumer::start(&pipe, ring);
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let held = consumer.wait();
            acc += held.column(tid as usize);
            consumer = held.release_and_continue();
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// BROKEN: a two-stage ring filled through `issue_other_buffer`, the double-buffer habit of
/// loading "the other" buffer: tile k lands in stage `k ^ 1` while `full[k % 2]` receives its
/// bytes, so consumers read the previous tile (or one being overwritten).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_tok_bad_other_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut producer = Producer::start(&pipe, window + RING);
        let mut t = b;
        while t < tiles {
            producer = producer
                .claim()
                .issue_other_buffer(input.add(t as usize * TILE_FLOATS))
                .next();
            t += g;
        }
        producer.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut consumer = Consumer::start(&pipe, ring);
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let held = consumer.wait();
            acc += held.column(tid as usize);
            consumer = held.release().next();
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// BROKEN: the producer role is given to the whole of warp 1 (warp specialisation without
/// electing one lane): 32 threads each claim, announce and copy every tile, arriving 32 times
/// on *full* barriers initialised for one arrival.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_tok_bad_producer_warp(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if warp_id() == 1 {
        let mut producer = Producer::start(&pipe, window + RING);
        let mut t = b;
        while t < tiles {
            producer = producer.claim().issue(input.add(t as usize * TILE_FLOATS)).next();
            t += g;
        }
        producer.finish();
    } else {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut consumer = Consumer::start(&pipe, ring);
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let held = consumer.wait();
            acc += held.column(tid as usize);
            consumer = held.release().next();
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}
