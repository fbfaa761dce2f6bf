//! Role objects stepped through `&mut self` methods: a `Feeder` that copies one tile per
//! `step`, a `Summer` that sums one stage per `step`, chained methods returning `&mut Self`, and
//! a constructor handing both roles back as a tuple.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROW_BYTES: u32 = 128;

#[inline(always)]
unsafe fn begin<const S: u32>(bars: u32, consumers: u32, init_by: u32) -> Pipeline<S> {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let at = dynamic_shared_window_address() + bars;
    if thread_idx_x() == init_by {
        Pipeline::<S>::init(at, consumers);
    }
    barrier();
    Pipeline::<S>::attach(at)
}

/// The block's share of `tiles`: how many it owns.
#[inline(always)]
fn share(tiles: u32) -> u32 {
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

/// Copies this block's tiles into the ring at window address `ring`, one per `step`.
struct Feeder<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: u32,
    input: *const f32,
    next: u32,
    end: u32,
    stride: u32,
}

impl<const S: u32> Feeder<S> {
    fn new(pipe: Pipeline<S>, ring: u32, input: *const f32, tiles: u32) -> Self {
        Feeder {
            pipe,
            state: PipelineState::producer_start(),
            ring,
            input,
            next: block_idx_x(),
            end: tiles,
            stride: grid_dim_x(),
        }
    }

    fn has_next(&self) -> bool {
        self.next < self.end
    }

    unsafe fn step(&mut self) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let from = self.input.add(self.next as usize * TILE_FLOATS) as *const u8;
        let to = self.ring + self.state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(to, from, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
        self.next += self.stride;
    }

    /// The same step with the tile delivered as eight row copies.
    unsafe fn step_rows(&mut self) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let from = self.input.add(self.next as usize * TILE_FLOATS) as *const u8;
        let to = self.ring + self.state.index() * TILE_BYTES;
        for row in 0..8 {
            let at = row * ROW_BYTES;
            bulk_copy_global_to_shared(to + at, from.add(at as usize), ROW_BYTES, self.pipe.producer_barrier(&self.state));
        }
        self.state.advance();
        self.next += self.stride;
    }

    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

/// Sums one column of this block's tiles from the ring at `ring`, one stage per `step`.
struct Summer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    column: usize,
    left: u32,
    sum: f32,
}

impl<const S: u32> Summer<S> {
    fn new(pipe: Pipeline<S>, ring: *const f32, column: usize, tiles: u32) -> Self {
        Summer { pipe, state: PipelineState::new(), ring, column, left: share(tiles), sum: 0.0 }
    }

    unsafe fn stage_sum(&self) -> f32 {
        let stage = self.ring.add(self.state.index() as usize * TILE_FLOATS);
        let mut sum = 0.0;
        for row in 0..8 {
            sum += *stage.add(row * 32 + self.column);
        }
        sum
    }

    /// Sums the next stage; `false` once the block's tiles are done.
    unsafe fn step(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.pipe.consumer_wait(&self.state);
        self.sum += self.stage_sum();
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        self.left -= 1;
        true
    }

    unsafe fn store(&self, out: *mut f32) {
        *out.add(block_idx_x() as usize * 32 + self.column) = self.sum;
    }
}

// ---- correct ----

/// `while feeder.has_next() { feeder.step() }` against `while summer.step() {}`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_feeder_summer(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<4>(4096, 32, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address(), input, tiles);
        while feeder.has_next() {
            feeder.step();
        }
        feeder.finish();
    } else if tid >= 32 {
        let mut summer = Summer::new(pipe, dynamic_shared_base::<f32>(), (tid - 32) as usize, tiles);
        while summer.step() {}
        summer.store(out);
    }
}

impl<const S: u32> Summer<S> {
    /// Two stages per call while at least two tiles are left, else one.
    unsafe fn step_pair(&mut self) -> bool {
        if self.left < 2 {
            return self.step();
        }
        for _ in 0..2 {
            self.pipe.consumer_wait(&self.state);
            self.sum += self.stage_sum();
            self.pipe.consumer_release(&self.state);
            self.state.advance();
        }
        self.left -= 2;
        true
    }
}

/// The consumers step two stages at a time; four stages at byte 4096, thread 32 feeds.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_pairs_of_stages(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<4>(0, 32, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address() + 4096, input, tiles);
        while feeder.has_next() {
            feeder.step();
        }
        feeder.finish();
    } else if tid < 32 {
        let mut summer = Summer::new(pipe, dynamic_shared_base::<f32>().add(1024), tid as usize, tiles);
        while summer.step_pair() {}
        summer.store(out);
    }
}

/// Eight consumers summing four neighbouring columns each, one quad per row.
struct QuadSummer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    first: usize,
    left: u32,
    sums: [f32; 4],
}

impl<const S: u32> QuadSummer<S> {
    unsafe fn step(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.add(self.state.index() as usize * TILE_FLOATS);
        for row in 0..8 {
            let quad = *(stage.add(row * 32 + self.first) as *const [f32; 4]);
            for (sum, value) in self.sums.iter_mut().zip(quad) {
                *sum += value;
            }
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        self.left -= 1;
        true
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_quad_summer(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<3>(512, 8, 63);
    let tid = thread_idx_x();
    if tid == 63 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address() + 1024, input, tiles);
        while feeder.has_next() {
            feeder.step();
        }
        feeder.finish();
    } else if tid < 8 {
        let first = tid as usize * 4;
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut summer = QuadSummer { pipe, state: PipelineState::new(), ring, first, left: share(tiles), sums: [0.0; 4] };
        while summer.step() {}
        let dst = out.add(block_idx_x() as usize * 32 + first);
        for (k, sum) in summer.sums.into_iter().enumerate() {
            *dst.add(k) = sum;
        }
    }
}

/// The feeder's row-copy step: eight 128-byte copies per tile; two stages from byte 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_row_feeder(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<2>(2048, 32, 16);
    let tid = thread_idx_x();
    if tid == 16 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address(), input, tiles);
        while feeder.has_next() {
            feeder.step_rows();
        }
        feeder.finish();
    } else if tid >= 32 {
        let mut summer = Summer::new(pipe, dynamic_shared_base::<f32>(), (tid - 32) as usize, tiles);
        while summer.step() {}
        summer.store(out);
    }
}

/// Both role objects made by one constructor and handed back as a tuple.
#[inline(always)]
fn roles<const S: u32>(pipe: Pipeline<S>, ring: u32, input: *const f32, tiles: u32, column: usize) -> (Feeder<S>, Summer<S>) {
    let ring_ptr = dynamic_shared_base::<f32>().wrapping_add((ring / 4) as usize);
    let window = dynamic_shared_window_address();
    (Feeder::new(pipe, window + ring, input, tiles), Summer::new(pipe, ring_ptr, column, tiles))
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_tuple_roles(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<6>(0, 32, 0);
    let tid = thread_idx_x();
    let (mut feeder, mut summer) = roles(pipe, 1024, input, tiles, (tid % 32) as usize);
    if tid == 0 {
        while feeder.has_next() {
            feeder.step();
        }
        feeder.finish();
    } else if tid >= 32 {
        while summer.step() {}
        summer.store(out);
    }
}

/// A consumer whose protocol steps return `&mut Self`, so a tile reads as one chain.
struct Chain<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    column: usize,
    sum: f32,
}

impl<const S: u32> Chain<S> {
    fn wait(&mut self) -> &mut Self {
        self.pipe.consumer_wait(&self.state);
        self
    }

    unsafe fn accumulate(&mut self) -> &mut Self {
        let stage = self.ring.add(self.state.index() as usize * TILE_FLOATS);
        for row in 0..8 {
            self.sum += *stage.add(row * 32 + self.column);
        }
        self
    }

    fn release(&mut self) -> &mut Self {
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        self
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_chained_calls(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<5>(6144, 32, 45);
    let tid = thread_idx_x();
    if tid == 45 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address(), input, tiles);
        while feeder.has_next() {
            feeder.step();
        }
        feeder.finish();
    } else if tid < 32 {
        let mut chain = Chain { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), column: tid as usize, sum: 0.0 };
        for _ in 0..share(tiles) {
            chain.wait().accumulate().release();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = chain.sum;
    }
}

// ---- broken ----

impl<const S: u32> Summer<S> {
    /// A variant of `step`.
    unsafe fn step_keep_last(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.pipe.consumer_wait(&self.state);
        self.sum += self.stage_sum();
        if self.left > 1 {
            self.pipe.consumer_release(&self.state);
            self.state.advance();
        }
        self.left -= 1;
        true
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_bad_keep_last(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<4>(4096, 32, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address(), input, tiles);
        while feeder.has_next() {
            feeder.step();
        }
        feeder.finish();
    } else if tid >= 32 {
        let mut summer = Summer::new(pipe, dynamic_shared_base::<f32>(), (tid - 32) as usize, tiles);
        while summer.step_keep_last() {}
        summer.store(out);
    }
}

impl<const S: u32> Feeder<S> {
    /// The next tile to copy, moving past it.
    fn take_next(&mut self) -> Option<u32> {
        let tile = self.next;
        self.next += self.stride;
        (tile < self.end).then_some(tile)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_bad_take_then_step(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<4>(0, 32, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address() + 4096, input, tiles);
        while feeder.take_next().is_some() {
            feeder.step();
        }
        feeder.finish();
    } else if tid < 32 {
        let mut summer = Summer::new(pipe, dynamic_shared_base::<f32>().add(1024), tid as usize, tiles);
        while summer.step() {}
        summer.store(out);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_bad_chain_order(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<5>(6144, 32, 45);
    let tid = thread_idx_x();
    if tid == 45 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address(), input, tiles);
        while feeder.has_next() {
            feeder.step();
        }
        feeder.finish();
    } else if tid < 32 {
        let mut chain = Chain { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), column: tid as usize, sum: 0.0 };
        for _ in 0..share(tiles) {
            chain.wait().release().accumulate();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = chain.sum;
    }
}

/// A feeder whose copy size is kept as a field.
struct SizedFeeder<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: u32,
    input: *const f32,
    next: u32,
    chunk: u32,
}

impl<const S: u32> SizedFeeder<S> {
    unsafe fn step(&mut self) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let from = self.input.add(self.next as usize * TILE_FLOATS) as *const u8;
        let to = self.ring + self.state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(to, from, self.chunk, self.pipe.producer_barrier(&self.state));
        self.state.advance();
        self.next += grid_dim_x();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_bad_chunk_field(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<3>(3072, 32, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut feeder = SizedFeeder {
            pipe,
            state: PipelineState::<3>::producer_start(),
            ring: dynamic_shared_window_address(),
            input,
            next: block_idx_x(),
            chunk: TILE_FLOATS as u32,
        };
        while feeder.next < tiles {
            feeder.step();
        }
        pipe.producer_tail(feeder.state);
    } else if tid >= 32 {
        let mut summer = Summer::new(pipe, dynamic_shared_base::<f32>(), (tid - 32) as usize, tiles);
        while summer.step() {}
        summer.store(out);
    }
}

/// A consumer kept as a small `Copy` value; `step` hands back the sum of the stage it read.
#[derive(Clone, Copy)]
struct Ticket<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    column: usize,
}

impl<const S: u32> Ticket<S> {
    unsafe fn step(mut self) -> f32 {
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.add(self.state.index() as usize * TILE_FLOATS);
        let sum = (0..8).map(|row| *stage.add(row * 32 + self.column)).sum::<f32>();
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        sum
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_bad_ticket_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<4>(4096, 32, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address(), input, tiles);
        while feeder.has_next() {
            feeder.step();
        }
        feeder.finish();
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let ticket = Ticket { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), column };
        let mut sum = 0.0f32;
        for _ in 0..share(tiles) {
            sum += ticket.step();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

impl<const S: u32> Feeder<S> {
    /// A step that places each tile by its number in the ring.
    unsafe fn step_by_tile(&mut self) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let from = self.input.add(self.next as usize * TILE_FLOATS) as *const u8;
        let to = self.ring + (self.next % S) * TILE_BYTES;
        bulk_copy_global_to_shared(to, from, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
        self.next += self.stride;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_step_bad_slot_by_tile(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = begin::<4>(4096, 32, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut feeder = Feeder::new(pipe, dynamic_shared_window_address(), input, tiles);
        while feeder.has_next() {
            feeder.step_by_tile();
        }
        feeder.finish();
    } else if tid >= 32 {
        let mut summer = Summer::new(pipe, dynamic_shared_base::<f32>(), (tid - 32) as usize, tiles);
        while summer.step() {}
        summer.store(out);
    }
}
