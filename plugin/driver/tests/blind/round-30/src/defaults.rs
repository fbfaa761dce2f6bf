//! A small trait with default methods: `Plan<S>` gives the whole kernel (layout, roles, the
//! producer's fill, the consumers' column sum) as defaults, and each kernel's unit struct
//! overrides only what differs.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;

trait Plan<const S: u32> {
    /// Window byte of stage 0.
    fn ring(&self) -> u32;

    /// Window byte of the barriers: right after the ring unless overridden.
    fn bars(&self) -> u32 {
        self.ring() + S * TILE_BYTES
    }

    fn producer(&self) -> u32 {
        0
    }

    /// Threads that release each stage (the *empty* barriers' count).
    fn consumers(&self) -> u32 {
        32
    }

    /// By default the warp without the producer consumes.
    fn is_consumer(&self, tid: u32) -> bool {
        tid / 32 != self.producer() / 32
    }

    /// Tiles this block owns.
    fn count(&self, tiles: u32) -> u32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        if block < tiles { (tiles - block + grid - 1) / grid } else { 0 }
    }

    fn stage_byte(&self, state: &PipelineState<S>) -> u32 {
        self.ring() + state.index() * TILE_BYTES
    }

    unsafe fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        dynamic_shared_base::<f32>().add((self.stage_byte(state) / 4) as usize)
    }

    unsafe fn open(&self) -> Pipeline<S> {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let at = dynamic_shared_window_address() + self.bars();
        if thread_idx_x() == self.producer() {
            Pipeline::<S>::init(at, self.consumers());
        }
        barrier();
        Pipeline::<S>::attach(at)
    }

    /// Starts the copies that fill the stage `state` holds with the tile at `from`.
    unsafe fn fill(&self, pipe: &Pipeline<S>, state: &PipelineState<S>, from: *const u8) {
        let to = dynamic_shared_window_address() + self.stage_byte(state);
        bulk_copy_global_to_shared(to, from, TILE_BYTES, pipe.producer_barrier(state));
    }

    unsafe fn column_sum(&self, stage: *const f32, column: usize) -> f32 {
        let mut sum = 0.0;
        for row in 0..8 {
            sum += *stage.add(row * 32 + column);
        }
        sum
    }

    fn drain(&self, pipe: &Pipeline<S>, state: PipelineState<S>) {
        pipe.producer_tail(state);
    }

    unsafe fn produce(&self, pipe: &Pipeline<S>, input: *const f32, tiles: u32) {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            self.fill(pipe, &state, input.add(t as usize * TILE_FLOATS) as *const u8);
            state.advance();
            t += grid_dim_x();
        }
        self.drain(pipe, state);
    }

    unsafe fn consume(&self, pipe: &Pipeline<S>, tiles: u32, out: *mut f32) {
        let column = (thread_idx_x() % 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        for _ in 0..self.count(tiles) {
            pipe.consumer_wait(&state);
            sum += self.column_sum(self.stage(&state), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }

    unsafe fn run(&self, input: *const f32, tiles: u32, out: *mut f32) {
        let pipe = self.open();
        let tid = thread_idx_x();
        if tid == self.producer() {
            self.produce(&pipe, input, tiles);
        } else if self.is_consumer(tid) {
            self.consume(&pipe, tiles, out);
        }
    }
}

/// Sums columns `lane` and `lane + 16` for sixteen consumers from thread 32.
#[inline(always)]
unsafe fn consume_pairs<const S: u32, P: Plan<S>>(plan: &P, pipe: &Pipeline<S>, tiles: u32, out: *mut f32) {
    let lane = (thread_idx_x() - 32) as usize;
    let mut state = PipelineState::<S>::new();
    let (mut low, mut high) = (0.0f32, 0.0f32);
    for _ in 0..plan.count(tiles) {
        pipe.consumer_wait(&state);
        let stage = plan.stage(&state);
        low += plan.column_sum(stage, lane);
        high += plan.column_sum(stage, lane + 16);
        pipe.consumer_release(&state);
        state.advance();
    }
    let row = out.add(block_idx_x() as usize * 32);
    *row.add(lane) = low;
    *row.add(lane + 16) = high;
}

// ---- correct ----

struct Plain;

impl Plan<4> for Plain {
    fn ring(&self) -> u32 {
        0
    }
}

/// Every default: four stages from byte 0, barriers after them, thread 0 for warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_all_defaults(input: *const f32, tiles: u32, out: *mut f32) {
    Plain.run(input, tiles, out)
}

struct Top;

impl Plan<3> for Top {
    fn ring(&self) -> u32 {
        8192 - 3 * TILE_BYTES
    }
    fn bars(&self) -> u32 {
        0
    }
    fn producer(&self) -> u32 {
        63
    }
}

/// Three stages ending at the window's top, barriers at byte 0, thread 63 for warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_top_ring(input: *const f32, tiles: u32, out: *mut f32) {
    Top.run(input, tiles, out)
}

struct Halves;

impl Plan<2> for Halves {
    fn ring(&self) -> u32 {
        1024
    }
    fn bars(&self) -> u32 {
        0
    }
    unsafe fn fill(&self, pipe: &Pipeline<2>, state: &PipelineState<2>, from: *const u8) {
        let to = dynamic_shared_window_address() + self.stage_byte(state);
        let half = TILE_BYTES / 2;
        bulk_copy_global_to_shared(to, from, half, pipe.producer_barrier(state));
        bulk_copy_global_to_shared(to + half, from.add(half as usize), half, pipe.producer_barrier(state));
    }
}

/// The fill overridden to two half copies; two stages at byte 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_half_fill(input: *const f32, tiles: u32, out: *mut f32) {
    Halves.run(input, tiles, out)
}

struct Pairs;

impl Plan<5> for Pairs {
    fn ring(&self) -> u32 {
        0
    }
    fn consumers(&self) -> u32 {
        16
    }
    fn is_consumer(&self, tid: u32) -> bool {
        (32..48).contains(&tid)
    }
    unsafe fn consume(&self, pipe: &Pipeline<5>, tiles: u32, out: *mut f32) {
        consume_pairs(self, pipe, tiles, out)
    }
}

/// Sixteen consumers (the count and the set both overridden), two columns each; five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    Pairs.run(input, tiles, out)
}

struct Reverse;

impl Plan<6> for Reverse {
    fn ring(&self) -> u32 {
        2048
    }
    fn bars(&self) -> u32 {
        0
    }
    fn producer(&self) -> u32 {
        20
    }
    unsafe fn column_sum(&self, stage: *const f32, column: usize) -> f32 {
        (0..8).rev().map(|row| *stage.add(row * 32 + column)).sum()
    }
}

/// The column sum overridden to walk rows bottom-up; six stages at byte 2048, thread 20.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_rev_sum(input: *const f32, tiles: u32, out: *mut f32) {
    Reverse.run(input, tiles, out)
}

struct Deep;

impl Plan<7> for Deep {
    fn ring(&self) -> u32 {
        0
    }
    fn bars(&self) -> u32 {
        8192 - 16 * 7
    }
    fn producer(&self) -> u32 {
        31
    }
}

/// Seven stages from byte 0, barriers in the window's last 112 bytes, thread 31 for warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_deep_end(input: *const f32, tiles: u32, out: *mut f32) {
    Deep.run(input, tiles, out)
}

// ---- broken ----

struct HalfWarp;

impl Plan<4> for HalfWarp {
    fn ring(&self) -> u32 {
        0
    }
    fn is_consumer(&self, tid: u32) -> bool {
        (32..48).contains(&tid)
    }
    unsafe fn consume(&self, pipe: &Pipeline<4>, tiles: u32, out: *mut f32) {
        consume_pairs(self, pipe, tiles, out)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_bad_half_warp(input: *const f32, tiles: u32, out: *mut f32) {
    HalfWarp.run(input, tiles, out)
}

struct Upper;

impl Plan<4> for Upper {
    fn ring(&self) -> u32 {
        4096
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_bad_upper_ring(input: *const f32, tiles: u32, out: *mut f32) {
    Upper.run(input, tiles, out)
}

struct SameHalf;

impl Plan<2> for SameHalf {
    fn ring(&self) -> u32 {
        1024
    }
    fn bars(&self) -> u32 {
        0
    }
    unsafe fn fill(&self, pipe: &Pipeline<2>, state: &PipelineState<2>, from: *const u8) {
        let to = dynamic_shared_window_address() + self.stage_byte(state);
        let half = TILE_BYTES / 2;
        bulk_copy_global_to_shared(to, from, half, pipe.producer_barrier(state));
        bulk_copy_global_to_shared(to, from.add(half as usize), half, pipe.producer_barrier(state));
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_bad_same_half(input: *const f32, tiles: u32, out: *mut f32) {
    SameHalf.run(input, tiles, out)
}

struct Guarded;

impl Plan<3> for Guarded {
    fn ring(&self) -> u32 {
        0
    }
    unsafe fn open(&self) -> Pipeline<3> {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let at = dynamic_shared_window_address() + self.bars();
        if thread_idx_x() == self.producer() {
            Pipeline::<3>::init(at, self.consumers());
            barrier();
        }
        Pipeline::<3>::attach(at)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_bad_guarded_open(input: *const f32, tiles: u32, out: *mut f32) {
    Guarded.run(input, tiles, out)
}

struct Reattached;

impl Plan<4> for Reattached {
    fn ring(&self) -> u32 {
        0
    }
    unsafe fn consume(&self, _pipe: &Pipeline<4>, tiles: u32, out: *mut f32) {
        let pipe = Pipeline::<3>::attach(dynamic_shared_window_address() + self.bars());
        let column = (thread_idx_x() % 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        for _ in 0..self.count(tiles) {
            pipe.consumer_wait(&state);
            sum += self.column_sum(ring.add(state.index() as usize * TILE_FLOATS), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_bad_reattached(input: *const f32, tiles: u32, out: *mut f32) {
    Reattached.run(input, tiles, out)
}

struct Inclusive;

impl Plan<4> for Inclusive {
    fn ring(&self) -> u32 {
        0
    }
    fn count(&self, tiles: u32) -> u32 {
        (tiles - block_idx_x()) / grid_dim_x() + 1
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_def_bad_inclusive_count(input: *const f32, tiles: u32, out: *mut f32) {
    Inclusive.run(input, tiles, out)
}
