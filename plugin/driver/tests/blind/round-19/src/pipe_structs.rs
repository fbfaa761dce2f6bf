//! Pipeline kernels whose roles are structs holding the pipeline, their state and their
//! pointers, driven through methods, a trait with a generic driver, a layout struct and a
//! user `Iterator` of tiles.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch,
    thread_idx_x,
};
use crate::{COLS, ROWS, TILE, TILE_BYTES};

// ------------------------------------------------------------------------------------------
// Role structs
// ------------------------------------------------------------------------------------------

/// The producer: its pipeline, its state, the ring's window address and the input.
struct Feeder<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: u32,
    src: *const f32,
}

impl<const S: u32> Feeder<S> {
    fn new(pipe: Pipeline<S>, ring: u32, src: *const f32) -> Self {
        Feeder { pipe, state: PipelineState::producer_start(), ring, src }
    }

    unsafe fn push(&mut self, tile: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ring + self.state.index() * TILE_BYTES,
            self.src.add(tile as usize * TILE) as *const u8,
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
    }

    fn close(self) {
        self.pipe.producer_tail(self.state);
    }
}

/// A consumer: its pipeline, its state, the ring's float pointer, its column and its sum.
struct Reader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    column: usize,
    total: f32,
}

impl<const S: u32> Reader<S> {
    fn new(pipe: Pipeline<S>, ring: *const f32, column: usize) -> Self {
        Reader { pipe, state: PipelineState::new(), ring, column, total: 0.0 }
    }

    unsafe fn pull(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.add(self.state.index() as usize * TILE);
        for r in 0..ROWS {
            self.total += *stage.add(r * COLS + self.column);
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// Producer and consumers are `Feeder` and `Reader` values driven by their methods.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_feeder_reader(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut feeder = Feeder::new(pipe, window, input);
        let mut tile = block;
        while tile < tiles {
            feeder.push(tile);
            tile += grid;
        }
        feeder.close();
    } else if tid >= 32 {
        let mut reader = Reader::new(pipe, dynamic_shared_base::<f32>(), tid as usize - 32);
        let mut tile = block;
        while tile < tiles {
            reader.pull();
            tile += grid;
        }
        *out.add(block as usize * COLS + reader.column) = reader.total;
    }
}

/// One step of a role per tile, and what it does once its tiles are done.
trait Role {
    unsafe fn step(&mut self, tile: u32);
    unsafe fn finish(self, out: *mut f32);
}

impl<const S: u32> Role for Feeder<S> {
    unsafe fn step(&mut self, tile: u32) {
        self.push(tile);
    }
    unsafe fn finish(self, _out: *mut f32) {
        self.close();
    }
}

impl<const S: u32> Role for Reader<S> {
    unsafe fn step(&mut self, _tile: u32) {
        self.pull();
    }
    unsafe fn finish(self, out: *mut f32) {
        *out.add(self.column) = self.total;
    }
}

/// Runs a role over the block's tiles.
unsafe fn drive<R: Role>(mut role: R, first: u32, tiles: u32, step: u32, out: *mut f32) {
    let mut tile = first;
    while tile < tiles {
        role.step(tile);
        tile += step;
    }
    role.finish(out);
}

/// Both roles implement a `Role` trait and run through one generic driver.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_role_trait_driver(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let row_out = out.add(block as usize * COLS);
    if tid == 32 {
        drive(Feeder::new(pipe, window, input), block, tiles, grid, row_out);
    } else if tid < 32 {
        drive(Reader::new(pipe, dynamic_shared_base::<f32>(), tid as usize), block, tiles, grid, row_out);
    }
}

/// The ring's addresses in one struct: barriers after `S` stages.
struct Ring<const S: u32> {
    window: u32,
    floats: *mut f32,
}

impl<const S: u32> Ring<S> {
    const BARS: u32 = S * TILE_BYTES;

    fn here() -> Self {
        Ring { window: dynamic_shared_window_address(), floats: dynamic_shared_base::<f32>() }
    }
    fn barriers(&self) -> u32 {
        self.window + Self::BARS
    }
    fn slot_addr(&self, state: &PipelineState<S>) -> u32 {
        self.window + state.index() * TILE_BYTES
    }
    fn slot(&self, state: &PipelineState<S>) -> *const f32 {
        self.floats.wrapping_add(state.index() as usize * TILE)
    }
}

/// A `Ring` struct answers the barrier address, each stage's window address and its pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_ring_layout_struct(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let ring = Ring::<5>::here();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<5>::init(ring.barriers(), 32) } else { Pipeline::<5>::attach(ring.barriers()) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<5>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.slot_addr(&st), input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<5>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let slot = ring.slot(&st);
            for r in 0..ROWS {
                sum += *slot.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// A consumer keeping one partial per row, folded in by a method taking the stage.
struct RowPartials {
    rows: [f32; ROWS],
    column: usize,
}

impl RowPartials {
    unsafe fn absorb(&mut self, stage: *const f32) {
        for (r, slot) in self.rows.iter_mut().enumerate() {
            *slot += *stage.add(r * COLS + self.column);
        }
    }
    fn total(&self) -> f32 {
        self.rows.iter().sum()
    }
}

/// Consumers hand each waited stage to a `RowPartials` method between wait and release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_row_partials_method(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 63 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 63 {
        let mut feeder = Feeder::new(pipe, window, input);
        let mut tile = block;
        while tile < tiles {
            feeder.push(tile);
            tile += grid;
        }
        feeder.close();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut acc = RowPartials { rows: [0.0; ROWS], column: tid as usize };
        let mut state = PipelineState::<S>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            acc.absorb(ring.add(state.index() as usize * TILE));
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + acc.column) = acc.total();
    }
}

/// The block's tiles as a user iterator.
#[derive(Clone, Copy)]
struct Tiles {
    next: u32,
    end: u32,
    step: u32,
}

impl Iterator for Tiles {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.next < self.end {
            let t = self.next;
            self.next += self.step;
            Some(t)
        } else {
            None
        }
    }
}

/// Both roles iterate a user `Iterator` of the block's tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_tile_iterator(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let mine = Tiles { next: block, end: tiles, step: grid_dim_x() };
    if tid == 0 {
        let mut feeder = Feeder::new(pipe, window, input);
        for t in mine {
            feeder.push(t);
        }
        feeder.close();
    } else if tid >= 32 {
        let mut reader = Reader::new(pipe, dynamic_shared_base::<f32>(), tid as usize - 32);
        for _ in mine {
            reader.pull();
        }
        *out.add(block as usize * COLS + reader.column) = reader.total;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// A reader whose step borrows itself immutably and advances a local copy of its state.
struct PeekReader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    column: usize,
}

impl<const S: u32> PeekReader<S> {
    unsafe fn column_sum(&self) -> f32 {
        let mut st = self.state;
        self.pipe.consumer_wait(&st);
        let stage = self.ring.add(st.index() as usize * TILE);
        let mut s = 0.0f32;
        for r in 0..ROWS {
            s += *stage.add(r * COLS + self.column);
        }
        self.pipe.consumer_release(&st);
        st.advance();
        s
    }
}

/// The consumer method takes `&self` and advances a copy of the state, so the reader's own
/// state stays on stage 0 for every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_bad_reader_ref_self(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut feeder = Feeder::new(pipe, window, input);
        let mut tile = block;
        while tile < tiles {
            feeder.push(tile);
            tile += grid;
        }
        feeder.close();
    } else if tid >= 32 {
        let reader = PeekReader { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), column: tid as usize - 32 };
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            sum += reader.column_sum();
            tile += grid;
        }
        *out.add(block as usize * COLS + reader.column) = sum;
    }
}

/// A reader split into "view" (wait, return the stage) and "done" (release, advance).
struct SplitReader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
}

impl<const S: u32> SplitReader<S> {
    fn view(&mut self) -> *const f32 {
        self.pipe.consumer_wait(&self.state);
        self.ring.wrapping_add(self.state.index() as usize * TILE)
    }
    fn done(&mut self) {
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

unsafe fn column_of(stage: *const f32, column: usize) -> f32 {
    let mut s = 0.0f32;
    for r in 0..ROWS {
        s += *stage.add(r * COLS + column);
    }
    s
}

/// The caller takes the stage's view, calls `done` (release) and only then sums the view: the
/// stage is read after its release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_bad_view_after_done(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut feeder = Feeder::new(pipe, window, input);
        let mut tile = block;
        while tile < tiles {
            feeder.push(tile);
            tile += grid;
        }
        feeder.close();
    } else if tid < 32 {
        let mut reader = SplitReader { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>() };
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            let view = reader.view();
            reader.done();
            sum += column_of(view, tid as usize);
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}

/// Layout with a 4-byte tile counter slot after the ring and the barriers right after it.
struct CountedLayout;

impl CountedLayout {
    const STAGES: u32 = 4;
    const COUNTER: u32 = Self::STAGES * TILE_BYTES;
    const BARS: u32 = Self::COUNTER + 4;
}

/// The barriers follow a 4-byte counter slot, so they start at byte 4100: not 8-byte aligned.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_bad_layout_counter_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = CountedLayout::STAGES;
    let window = dynamic_shared_window_address();
    let bars = window + CountedLayout::BARS;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut feeder = Feeder::new(pipe, window, input);
        let mut tile = block;
        while tile < tiles {
            feeder.push(tile);
            tile += grid;
        }
        feeder.close();
    } else if tid >= 32 {
        let mut reader = Reader::new(pipe, dynamic_shared_base::<f32>(), tid as usize - 32);
        let mut tile = block;
        while tile < tiles {
            reader.pull();
            tile += grid;
        }
        *out.add(block as usize * COLS + reader.column) = reader.total;
    }
}

/// A reader that assumes rows padded to 33 floats (against bank conflicts) in a dense stage.
struct PaddedReader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    column: usize,
    total: f32,
}

impl<const S: u32> PaddedReader<S> {
    const PITCH: usize = COLS + 1;

    unsafe fn pull(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.add(self.state.index() as usize * TILE);
        for r in 0..ROWS {
            self.total += *stage.add(r * Self::PITCH + self.column);
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// Consumers read with a padded row pitch of 33 floats from dense 32-float rows: wrong elements,
/// and the last rows reach into the next stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_bad_padded_pitch(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut feeder = Feeder::new(pipe, window, input);
        let mut tile = block;
        while tile < tiles {
            feeder.push(tile);
            tile += grid;
        }
        feeder.close();
    } else if tid >= 32 {
        let mut reader = PaddedReader { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), column: tid as usize - 32, total: 0.0 };
        let mut tile = block;
        while tile < tiles {
            reader.pull();
            tile += grid;
        }
        *out.add(block as usize * COLS + reader.column) = reader.total;
    }
}

/// A producer whose `push` announces and copies but never acquires the stage.
struct EagerFeeder<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: u32,
    src: *const f32,
}

impl<const S: u32> EagerFeeder<S> {
    unsafe fn push(&mut self, tile: u32) {
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ring + self.state.index() * TILE_BYTES,
            self.src.add(tile as usize * TILE) as *const u8,
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
    }
    fn close(self) {
        self.pipe.producer_tail(self.state);
    }
}

/// The producer never waits for a stage to be released before refilling it: with eight tiles on
/// four stages the second round overwrites stages the consumers may still be reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_obj_bad_feeder_no_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut feeder = EagerFeeder { pipe, state: PipelineState::producer_start(), ring: window, src: input };
        let mut tile = block;
        while tile < tiles {
            feeder.push(tile);
            tile += grid;
        }
        feeder.close();
    } else if tid >= 32 {
        let mut reader = Reader::new(pipe, dynamic_shared_base::<f32>(), tid as usize - 32);
        let mut tile = block;
        while tile < tiles {
            reader.pull();
            tile += grid;
        }
        *out.add(block as usize * COLS + reader.column) = reader.total;
    }
}
