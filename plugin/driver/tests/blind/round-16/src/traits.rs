//! Roles as implementations of a trait whose default methods own the tile loop: an
//! implementation supplies the per-tile work (and may override the count or the stage view).
//!
//! Layout: four 1 KiB stages from window byte 0, barriers at byte 4096. Thread 0 produces,
//! warp 1 consumes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

/// The block's share of the tiles, and what to do with each.
trait TileWork {
    fn span(&self) -> (u32, u32, u32);

    fn on_tile(&mut self, tile: u32);

    /// How many tiles `first, first + step, …` lie below `end`.
    fn count(&self) -> u32 {
        let (first, step, end) = self.span();
        if end > first { (end - first + step - 1) / step } else { 0 }
    }

    fn run(&mut self) {
        let (first, step, _) = self.span();
        let n = self.count();
        let mut k = 0;
        while k < n {
            self.on_tile(first + k * step);
            k += 1;
        }
    }
}

/// Where a consumer finds a stage.
trait StageView {
    const STAGE_FLOATS: usize;
    fn ring(&self) -> *const f32;
    fn stage(&self, index: u32) -> *const f32 {
        self.ring().wrapping_add(index as usize * Self::STAGE_FLOATS)
    }
}

struct Producer<'p> {
    pipe: &'p Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    ring: u32,
    input: *const f32,
    span: (u32, u32, u32),
}

impl TileWork for Producer<'_> {
    fn span(&self) -> (u32, u32, u32) {
        self.span
    }

    fn on_tile(&mut self, tile: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let source = self.input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
        let destination = self.ring + self.state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(destination, source, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }
}

struct Consumer<'p> {
    pipe: &'p Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    ring: *const f32,
    col: usize,
    acc: f32,
    span: (u32, u32, u32),
}

impl StageView for Consumer<'_> {
    const STAGE_FLOATS: usize = TILE_FLOATS;
    fn ring(&self) -> *const f32 {
        self.ring
    }
}

impl TileWork for Consumer<'_> {
    fn span(&self) -> (u32, u32, u32) {
        self.span
    }

    fn on_tile(&mut self, _tile: u32) {
        self.pipe.consumer_wait(&self.state);
        let stage = self.stage(self.state.index());
        for row in 0..ROWS {
            self.acc += unsafe { *stage.add(self.col + row * COLS) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_trait_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let span = (block_idx_x(), grid_dim_x(), tiles);

    if tid == 0 {
        let mut producer = Producer { pipe: &pipe, state: PipelineState::producer_start(), ring: window, input, span };
        producer.run();
        pipe.producer_tail(producer.state);
    } else if tid >= 32 {
        let mut consumer = Consumer {
            pipe: &pipe,
            state: PipelineState::new(),
            ring: dynamic_shared_base::<f32>(),
            col: (tid - 32) as usize,
            acc: 0.0,
            span,
        };
        consumer.run();
        unsafe { *out.add(span.0 as usize * COLS + consumer.col) = consumer.acc };
    }
}

/// A consumer that counts its tiles its own way.
struct CountingConsumer<'p> {
    inner: Consumer<'p>,
}

impl TileWork for CountingConsumer<'_> {
    fn span(&self) -> (u32, u32, u32) {
        self.inner.span
    }

    /// BROKEN: `(end - first) / step + 1` is one too many whenever `end - first` is a multiple
    /// of `step` (block 0 with 64 tiles in 8 blocks).
    fn count(&self) -> u32 {
        let (first, step, end) = self.span();
        (end - first) / step + 1
    }

    fn on_tile(&mut self, tile: u32) {
        self.inner.on_tile(tile);
    }
}

/// BROKEN: the consumers' overridden `count` takes a ninth tile in block 0, whose wait on a
/// stage nobody fills again never returns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_trait_count_override(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let span = (block_idx_x(), grid_dim_x(), tiles);

    if tid == 0 {
        let mut producer = Producer { pipe: &pipe, state: PipelineState::producer_start(), ring: window, input, span };
        producer.run();
        pipe.producer_tail(producer.state);
    } else if tid >= 32 && span.0 < tiles {
        let mut consumer = CountingConsumer {
            inner: Consumer {
                pipe: &pipe,
                state: PipelineState::new(),
                ring: dynamic_shared_base::<f32>(),
                col: (tid - 32) as usize,
                acc: 0.0,
                span,
            },
        };
        consumer.run();
        unsafe { *out.add(span.0 as usize * COLS + consumer.inner.col) = consumer.inner.acc };
    }
}

/// A consumer whose view of the ring was written for stages of `TILE_BYTES / 8` floats.
struct HalfViewConsumer<'p> {
    pipe: &'p Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    ring: *const f32,
    col: usize,
    acc: f32,
    span: (u32, u32, u32),
}

impl StageView for HalfViewConsumer<'_> {
    // BROKEN: bytes divided by 8 instead of by size_of::<f32>(): stage `s` is looked for at
    // byte 512·s, half-way into the stage before it.
    const STAGE_FLOATS: usize = TILE_BYTES as usize / 8;
    fn ring(&self) -> *const f32 {
        self.ring
    }
}

impl TileWork for HalfViewConsumer<'_> {
    fn span(&self) -> (u32, u32, u32) {
        self.span
    }

    fn on_tile(&mut self, _tile: u32) {
        self.pipe.consumer_wait(&self.state);
        let stage = self.stage(self.state.index());
        for row in 0..ROWS {
            self.acc += unsafe { *stage.add(self.col + row * COLS) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// BROKEN: the consumers read stage `s` at float offset `128·s` (a stride of half a tile),
/// so from stage 1 on they sum the second half of the previous stage and the first half of
/// their own.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_trait_half_stride_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    barrier();
    let span = (block_idx_x(), grid_dim_x(), tiles);

    if tid == 0 {
        let mut producer = Producer { pipe: &pipe, state: PipelineState::producer_start(), ring: window, input, span };
        producer.run();
        pipe.producer_tail(producer.state);
    } else if tid >= 32 {
        let mut consumer = HalfViewConsumer {
            pipe: &pipe,
            state: PipelineState::new(),
            ring: dynamic_shared_base::<f32>(),
            col: (tid - 32) as usize,
            acc: 0.0,
            span,
        };
        consumer.run();
        unsafe { *out.add(span.0 as usize * COLS + consumer.col) = consumer.acc };
    }
}
