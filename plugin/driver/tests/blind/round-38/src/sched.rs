//! Style: a tile *scheduler*. A small value type hands out the tile indices this block owns
//! (`b, b + g, b + 2g, …` below `tiles`), and both roles drive their loops by asking it for
//! the next claim: `while let Some(t) = sched.claim()`, a `for` over the scheduler as an
//! `Iterator`, or a count it reports up front. The pipeline itself is a plain four-stage ring:
//! barriers at window byte 0, stages of one tile from window byte 1024.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = TILE_FLOATS * 4;
const ROWS: u32 = 8;
const COLUMNS: u32 = 32;
const RING_BYTE: u32 = 1024;
const CONSUMERS: u32 = 32;

/// The tiles of this block, handed out one claim at a time.
#[derive(Clone, Copy)]
struct TileScheduler {
    next: u32,
    stride: u32,
    end: u32,
}

impl TileScheduler {
    #[inline(always)]
    fn for_block(tiles: u32) -> Self {
        TileScheduler { next: block_idx_x(), stride: grid_dim_x(), end: tiles }
    }

    /// The next tile of this block, if any.
    #[inline(always)]
    fn claim(&mut self) -> Option<u32> {
        if self.next < self.end {
            let tile = self.next;
            self.next += self.stride;
            Some(tile)
        } else {
            None
        }
    }

    /// How many tiles are left to claim.
    #[inline(always)]
    fn remaining(&self) -> u32 {
        if self.next < self.end { (self.end - self.next).div_ceil(self.stride) } else { 0 }
    }
}

impl Iterator for TileScheduler {
    type Item = u32;

    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        self.claim()
    }
}

/// A claim with its place in the block's sequence of claims.
#[derive(Clone, Copy)]
struct Claim {
    tile: u32,
    bytes: u32,
    seq: u32,
}

/// A scheduler that also numbers its claims and says how many bytes each one moves.
struct CountingScheduler {
    inner: TileScheduler,
    issued: u32,
    floats_per_tile: u32,
    bytes_per_float: u32,
}

impl CountingScheduler {
    #[inline(always)]
    fn for_block(tiles: u32) -> Self {
        CountingScheduler { inner: TileScheduler::for_block(tiles), issued: 0, floats_per_tile: TILE_FLOATS, bytes_per_float: 4 }
    }

    #[inline(always)]
    fn claim(&mut self) -> Option<Claim> {
        let tile = self.inner.claim()?;
        let seq = self.issued;
        self.issued += 1;
        Some(Claim { tile, bytes: self.floats_per_tile * self.bytes_per_float, seq })
    }
}

#[inline(always)]
unsafe fn source_of(input: *const f32, tile: u32) -> *const u8 {
    input.add((tile * TILE_FLOATS) as usize) as *const u8
}

#[inline(always)]
unsafe fn column_of(stage: *const f32, column: u32) -> f32 {
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += *stage.add((row * COLUMNS + column) as usize);
    }
    sum
}

#[inline(always)]
fn setup(window: u32) -> Pipeline<STAGES> {
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS);
    }
    barrier();
    Pipeline::<STAGES>::attach(window)
}

/// Claims drive both loops through `while let Some(t) = sched.claim()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_sched_claim_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    if tid == 0 {
        let mut sched = TileScheduler::for_block(tiles);
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(tile) = sched.claim() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut sched = TileScheduler::for_block(tiles);
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        while let Some(_tile) = sched.claim() {
            pipe.consumer_wait(&state);
            acc += column_of(ring.add((state.index() * TILE_FLOATS) as usize), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

/// The scheduler is an `Iterator`; each role runs a `for` over its own copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_sched_for_over_scheduler(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    let sched = TileScheduler::for_block(tiles);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in sched {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let destination = window + RING_BYTE + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(destination, source_of(input, tile), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in sched {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            acc += column_of(stage, column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

/// The producer claims tile by tile; the consumers ask the scheduler once how many tiles there
/// are and count them down. Producer is thread 32, consumers warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_sched_remaining_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 32 {
        Pipeline::<STAGES>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    if tid == 32 {
        let mut sched = TileScheduler::for_block(tiles);
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(tile) = sched.claim() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut left = TileScheduler::for_block(tiles).remaining();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        while left > 0 {
            pipe.consumer_wait(&state);
            acc += column_of(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add((block_idx_x() * COLUMNS + tid) as usize) = acc;
    }
}

/// The counting scheduler's claims carry their byte count, which the producer announces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_sched_claim_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    if tid == 0 {
        let mut sched = CountingScheduler::for_block(tiles);
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(claim) = sched.claim() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, claim.tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut sched = CountingScheduler::for_block(tiles);
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        while let Some(_claim) = sched.claim() {
            pipe.consumer_wait(&state);
            acc += column_of(ring.add((state.index() * TILE_FLOATS) as usize), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

impl TileScheduler {
    /// Moves on, then hands out the tile it moved to (BROKEN use below: it skips the first).
    #[inline(always)]
    fn claim_next(&mut self) -> Option<u32> {
        self.next += self.stride;
        if self.next < self.end { Some(self.next) } else { None }
    }
}

/// BROKEN: the consumers claim with `claim_next`, which steps before it hands out a tile, so
/// they run one tile fewer than the producer copies; the last stage is never released and the
/// producer's tail waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_sched_bad_consumer_claims_ahead(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    if tid == 0 {
        let mut sched = TileScheduler::for_block(tiles);
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(tile) = sched.claim() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut sched = TileScheduler::for_block(tiles);
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        while let Some(_tile) = sched.claim_next() {
            pipe.consumer_wait(&state);
            acc += column_of(ring.add((state.index() * TILE_FLOATS) as usize), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

/// Consumer bookkeeping: retires a claim (gives the stage back) and folds its column in.
struct Retirer {
    column: u32,
    acc: f32,
}

impl Retirer {
    #[inline(always)]
    unsafe fn retire(&mut self, pipe: &Pipeline<STAGES>, state: &PipelineState<STAGES>, stage: *const f32) {
        pipe.consumer_release(state);
        self.acc += column_of(stage, self.column);
    }
}

/// BROKEN: `Retirer::retire` releases the stage before it sums the column, so the producer may
/// already be refilling the stage while the consumers read it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_sched_bad_retire_reads_late(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in TileScheduler::for_block(tiles) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let mut retirer = Retirer { column: tid - 32, acc: 0.0 };
        let mut state = PipelineState::<STAGES>::new();
        for _ in TileScheduler::for_block(tiles) {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            retirer.retire(&pipe, &state, stage);
            state.advance();
        }
        *out.add((block_idx_x() * COLUMNS + retirer.column) as usize) = retirer.acc;
    }
}

/// BROKEN: the claim's byte count is announced, but the scheduler was built for 16-bit tiles
/// (two bytes a float): `expect_tx` announces 512 bytes while the copy delivers 1024, so the
/// full barrier completes early and its transaction count runs negative.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_sched_bad_claim_bytes_half(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    if tid == 0 {
        let mut sched = CountingScheduler::for_block(tiles);
        sched.bytes_per_float = 2;
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(claim) = sched.claim() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, claim.bytes);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, claim.tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut sched = TileScheduler::for_block(tiles);
        while let Some(_tile) = sched.claim() {
            pipe.consumer_wait(&state);
            acc += column_of(ring.add((state.index() * TILE_FLOATS) as usize), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

/// BROKEN: the producer places each copy by the claim's sequence number plus one (the
/// scheduler's numbering is read as one-based), so tile `k` lands in stage `(k + 1) % 4` while
/// its bytes complete stage `k % 4`'s barrier: consumers read the wrong tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_sched_bad_slot_from_sequence(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    if tid == 0 {
        let mut sched = CountingScheduler::for_block(tiles);
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(claim) = sched.claim() {
            let slot = (claim.seq + 1) % STAGES;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + slot * TILE_BYTES,
                source_of(input, claim.tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut sched = TileScheduler::for_block(tiles);
        while let Some(_tile) = sched.claim() {
            pipe.consumer_wait(&state);
            acc += column_of(ring.add((state.index() * TILE_FLOATS) as usize), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}
