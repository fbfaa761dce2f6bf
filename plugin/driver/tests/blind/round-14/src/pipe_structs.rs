//! Pipelines wrapped in structs, methods, traits and generic helpers: a ring object with `fill`
//! and `drain`, a sink trait, quads of four floats, a tile type with named rows, a feeder that
//! keeps its state in a field.

use core::mem::size_of;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const ROWS: usize = 8;

/// A ring of `S` one-tile stages and the pipeline guarding it.
struct Ring<const S: u32> {
    pipe: Pipeline<S>,
    /// Shared-window address of stage 0.
    window: u32,
    /// Generic address of stage 0.
    floats: *const f32,
}

impl<const S: u32> Ring<S> {
    /// Producer: one tile from `source` into the stage `state` points at.
    #[inline(always)]
    fn fill(&self, state: &mut PipelineState<S>, source: *const f32) {
        self.pipe.producer_acquire(state);
        self.pipe.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.window + state.index() * TILE_BYTES,
            source.cast::<u8>(),
            TILE_BYTES,
            self.pipe.producer_barrier(state),
        );
        state.advance();
    }

    /// Consumer: the column `column` of the next stage, summed.
    ///
    /// # Safety
    /// `floats` points at the ring's stage 0 in shared memory.
    #[inline(always)]
    unsafe fn drain(&self, state: &mut PipelineState<S>, column: usize) -> f32 {
        self.pipe.consumer_wait(state);
        // SAFETY: the stage `index` of the ring.
        let stage = unsafe { self.floats.add(state.index() as usize * TILE_FLOATS) };
        let mut s = 0.0f32;
        for r in 0..ROWS {
            // SAFETY: row `r`, column `column < 32` of the waited stage.
            s += unsafe { *stage.add(r * COLUMNS + column) };
        }
        self.pipe.consumer_release(state);
        state.advance();
        s
    }
}

/// A ring object: barriers at byte 256, three stages from byte 1024; the loader (thread 32)
/// initialises.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_struct_ring_methods(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + 256, 32) } else { Pipeline::<S>::attach(win + 256) };
    barrier();
    // SAFETY: byte 1024 of the window.
    let floats = unsafe { dynamic_shared_base::<f32>().add(256) as *const f32 };
    let ring = Ring { pipe, window: win + 1024, floats };
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            ring.fill(&mut st, input.wrapping_add(t as usize * TILE_FLOATS));
            t += g;
        }
        ring.pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            // SAFETY: `floats` is the ring's stage 0.
            acc += unsafe { ring.drain(&mut st, tid as usize) };
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Something that takes one stage at a time.
trait Absorb {
    /// # Safety
    /// `stage` points at a full 1 KiB stage the caller waited for.
    unsafe fn absorb(&mut self, stage: *const f32);
}

struct ColumnTotal {
    column: usize,
    total: f32,
}

impl Absorb for ColumnTotal {
    #[inline(always)]
    unsafe fn absorb(&mut self, stage: *const f32) {
        for r in 0..ROWS {
            // SAFETY: the caller's contract; `column < 32`.
            self.total += unsafe { *stage.add(r * COLUMNS + self.column) };
        }
    }
}

#[inline(always)]
fn produce_all<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, first: u32, step: u32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut t = first;
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        let src = input.wrapping_add(t as usize * TILE_FLOATS).cast::<u8>();
        bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += step;
    }
    pipe.producer_tail(st);
}

/// # Safety
/// `ring` is the generic address of the ring `pipe` guards.
#[inline(always)]
unsafe fn consume_all<A: Absorb, const S: u32>(pipe: &Pipeline<S>, ring: *const f32, count: u32, sink: &mut A) {
    let mut st = PipelineState::<S>::new();
    for _ in 0..count {
        pipe.consumer_wait(&st);
        // SAFETY: the waited stage.
        unsafe { sink.absorb(ring.wrapping_add(st.index() as usize * TILE_FLOATS)) };
        pipe.consumer_release(&st);
        st.advance();
    }
}

/// Generic helpers: the producer loop and a consumer loop over any `Absorb`; six stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_struct_trait_sink(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 6;
    const BARS: u32 = S * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 33 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 33 {
        produce_all(&pipe, win, input, b, g, tiles);
    } else if tid < 32 {
        let count = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
        let mut sink = ColumnTotal { column: tid as usize, total: 0.0 };
        // SAFETY: the ring starts at the window's byte 0.
        unsafe { consume_all(&pipe, dynamic_shared_base::<f32>(), count, &mut sink) };
        // SAFETY: `column < 32`.
        unsafe { *out.add(b as usize * COLUMNS + sink.column) = sink.total };
    }
}

/// Four floats moved as one.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad([f32; 4]);

/// Eight consumer threads, each summing four adjacent columns as `Quad`s; the pipeline is
/// initialised for those eight releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_struct_quad_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const CONSUMERS: u32 = 8;
    const QUADS_PER_ROW: usize = COLUMNS / 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<S>::init(win + S * TILE_BYTES, CONSUMERS)
    } else {
        Pipeline::<S>::attach(win + S * TILE_BYTES)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE_FLOATS).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let q = tid as usize;
        let quads = dynamic_shared_base::<Quad>();
        let mut acc = [0.0f32; 4];
        let mut st = PipelineState::<S>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = st.index() as usize * (TILE_FLOATS / 4);
            for r in 0..ROWS {
                // SAFETY: quad `q` of row `r` of the waited stage, 16-byte aligned.
                let v = unsafe { *quads.add(stage + r * QUADS_PER_ROW + q) };
                for k in 0..4 {
                    acc[k] += v.0[k];
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        for (k, value) in acc.iter().enumerate() {
            // SAFETY: columns `4q..4q + 4` of this block's 32 outputs.
            unsafe { *out.add(b as usize * COLUMNS + 4 * q + k) = *value };
        }
    }
}

/// A tile with named rows.
#[repr(C)]
struct TileRows {
    rows: [[f32; COLUMNS]; ROWS],
}

/// The loader as an object: its state, the next tile and the bounds live in fields.
struct Feeder<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    input: *const f32,
    state: PipelineState<S>,
    next: u32,
    step: u32,
    end: u32,
}

impl<const S: u32> Feeder<S> {
    /// Copies the next tile; false when there is none.
    #[inline(always)]
    fn pump(&mut self) -> bool {
        if self.next >= self.end {
            return false;
        }
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.window + self.state.index() * TILE_BYTES,
            self.input.wrapping_add(self.next as usize * TILE_FLOATS).cast::<u8>(),
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
        self.next += self.step;
        true
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

/// Stages typed as `TileRows`; the loader is a `Feeder`; consumers fold over the rows of a
/// reference to the waited stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_struct_tile_repr(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    const BARS: u32 = 3072;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut feeder = Feeder {
            pipe,
            window: win,
            input,
            state: PipelineState::<S>::producer_start(),
            next: b,
            step: g,
            end: tiles,
        };
        while feeder.pump() {}
        feeder.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<TileRows>();
        let col = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            // SAFETY: the waited stage, 1 KiB-aligned, holds a whole tile; not used past the release.
            let tile: &TileRows = unsafe { &*ring.add(st.index() as usize) };
            acc += tile.rows.iter().fold(0.0f32, |a, row| a + row[col]);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `col < 32`.
        unsafe { *out.add(b as usize * COLUMNS + col) = acc };
    }
}

/// Room for two tiles, the unit a stage was sized in.
#[repr(C)]
struct PairStage {
    _tiles: [[f32; TILE_FLOATS]; 2],
}

/// Stages sized as `PairStage`s, one tile copied into each. BROKEN: the producer announces the
/// stage's size (2048 bytes) while its copy delivers 1024, so no *full* barrier completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_struct_expect_stage_size(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    const STAGE_BYTES: u32 = size_of::<PairStage>() as u32;
    const BARS: u32 = S * STAGE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, STAGE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * STAGE_BYTES,
                input.wrapping_add(t as usize * TILE_FLOATS).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<PairStage>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            // SAFETY: the first tile of the waited stage.
            let first = unsafe { ring.add(st.index() as usize) }.cast::<f32>();
            for r in 0..ROWS {
                // SAFETY: inside that tile.
                acc += unsafe { *first.add(r * COLUMNS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}

/// A consumer helper object.
struct Reader<const S: u32> {
    pipe: Pipeline<S>,
    ring: *const f32,
}

impl<const S: u32> Reader<S> {
    /// Sums column `column` of the stage `state` names and moves on.
    ///
    /// # Safety
    /// `ring` is the generic address of the ring.
    #[inline(always)]
    unsafe fn take(&self, mut state: PipelineState<S>, column: usize) -> f32 {
        self.pipe.consumer_wait(&state);
        let stage = self.ring.wrapping_add(state.index() as usize * TILE_FLOATS);
        let mut s = 0.0f32;
        for r in 0..ROWS {
            // SAFETY: inside the waited stage.
            s += unsafe { *stage.add(r * COLUMNS + column) };
        }
        self.pipe.consumer_release(&state);
        state.advance();
        s
    }
}

/// BROKEN: `Reader::take` receives the consumer state by value, so the advance happens on a copy
/// and the caller's state stays at stage 0 phase 0: consumers reread and re-release stage 0,
/// stage 1 is never released, and the producer hangs at its sixth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_struct_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE_FLOATS).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let reader = Reader { pipe, ring: dynamic_shared_base::<f32>() as *const f32 };
        let st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            // SAFETY: the ring starts at byte 0.
            acc += unsafe { reader.take(st, tid as usize) };
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}

/// A loader object that skips the wait for a free stage while the ring is being filled the first
/// time. BROKEN: the test is `filled > S` instead of `filled >= S`, so the first refill of stage
/// 0 (tile `S`) is copied without `producer_acquire`, over a stage the consumers may still read.
struct EagerFeeder<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    state: PipelineState<S>,
    filled: u32,
}

impl<const S: u32> EagerFeeder<S> {
    #[inline(always)]
    fn push(&mut self, source: *const f32) {
        if self.filled > S {
            self.pipe.producer_acquire(&self.state);
        }
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.window + self.state.index() * TILE_BYTES,
            source.cast::<u8>(),
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
        self.filled += 1;
    }
}

/// See `EagerFeeder`. BROKEN: one tile is copied into a stage that was not acquired.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_struct_eager_first_round(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    const BARS: u32 = 2048;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut feeder = EagerFeeder { pipe, window: win, state: PipelineState::<S>::producer_start(), filled: 0 };
        let mut t = b;
        while t < tiles {
            feeder.push(input.wrapping_add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(feeder.state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *ring.add(st.index() as usize * TILE_FLOATS + r * COLUMNS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}

/// One side of the pipeline: a thread's place in the ring.
struct Side<const S: u32> {
    at: PipelineState<S>,
}

/// Both roles start "at stage 0, first pass". BROKEN: the helper hands out `producer_start()`
/// (parity 1) to the consumers too, so their first wait returns at once, before any copy landed,
/// and they stay a phase behind the data for the whole kernel.
#[inline(always)]
fn side<const S: u32>() -> Side<S> {
    Side { at: PipelineState::<S>::producer_start() }
}

/// See `side`. BROKEN: consumers wait on the wrong parity.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_struct_consumer_producer_start(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut me = side::<S>();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&me.at);
            pipe.producer_expect_tx(&me.at, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + me.at.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE_FLOATS).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&me.at),
            );
            me.at.advance();
            t += g;
        }
        pipe.producer_tail(me.at);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut me = side::<S>();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&me.at);
            for r in 0..ROWS {
                // SAFETY: inside the stage.
                acc += unsafe { *ring.add(me.at.index() as usize * TILE_FLOATS + r * COLUMNS + tid as usize) };
            }
            pipe.consumer_release(&me.at);
            me.at.advance();
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}
