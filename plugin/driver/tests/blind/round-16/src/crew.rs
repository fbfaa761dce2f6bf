//! Roles as small structs: a `Feeder` owning the pipeline handle, its ring position and its
//! tile cursor, and a `Reader` keeping its position, accumulator and remaining count in fields.
//!
//! Layout: four 1 KiB stages from window byte 0, barriers at byte 4096. Thread 0 feeds,
//! warp 1 reads.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

struct Feeder {
    pipe: Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    ring: u32,
    input: *const f32,
    next: u32,
    step: u32,
    end: u32,
}

impl Feeder {
    fn new(pipe: Pipeline<STAGES>, ring: u32, input: *const f32, first: u32, step: u32, end: u32) -> Self {
        Feeder { pipe, state: PipelineState::producer_start(), ring, input, next: first, step, end }
    }

    /// Issues the next tile; false once the block's tiles are all issued.
    fn pump(&mut self) -> bool {
        if self.next >= self.end {
            return false;
        }
        let source = self.input.wrapping_add(self.next as usize * TILE_FLOATS) as *const u8;
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let destination = self.ring + self.state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(destination, source, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
        self.next += self.step;
        true
    }

    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct Reader {
    state: PipelineState<STAGES>,
    ring: *const f32,
    col: usize,
    acc: f32,
    left: u32,
}

impl Reader {
    unsafe fn take(&mut self, pipe: &Pipeline<STAGES>) {
        pipe.consumer_wait(&self.state);
        let stage = unsafe { self.ring.add(self.state.index() as usize * TILE_FLOATS) };
        for row in 0..ROWS {
            self.acc += unsafe { *stage.add(self.col + row * COLS) };
        }
        pipe.consumer_release(&self.state);
        self.state.advance();
        self.left -= 1;
    }
}

/// Tiles `first, first + step, …` below `end`.
fn tiles_of_block(first: u32, step: u32, end: u32) -> u32 {
    if end > first { (end - first).div_ceil(step) } else { 0 }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_crew_structs(input: *const f32, tiles: u32, out: *mut f32) {
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
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut feeder = Feeder::new(pipe, window, input, first, step, tiles);
        while feeder.pump() {}
        feeder.finish();
    } else if tid >= 32 {
        let mut reader = Reader {
            state: PipelineState::new(),
            ring: dynamic_shared_base::<f32>(),
            col: (tid - 32) as usize,
            acc: 0.0,
            left: tiles_of_block(first, step, tiles),
        };
        while reader.left > 0 {
            unsafe { reader.take(&pipe) };
        }
        unsafe { *out.add(first as usize * COLS + reader.col) = reader.acc };
    }
}

/// BROKEN: the reader's count is `(tiles - first) / step`, rounded down: every block but
/// block 0 reads one tile fewer than the feeder issues, its last stage is never released and
/// the feeder's tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_crew_floor_count(input: *const f32, tiles: u32, out: *mut f32) {
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
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut feeder = Feeder::new(pipe, window, input, first, step, tiles);
        while feeder.pump() {}
        feeder.finish();
    } else if tid >= 32 && first < tiles {
        let mut reader = Reader {
            state: PipelineState::new(),
            ring: dynamic_shared_base::<f32>(),
            col: (tid - 32) as usize,
            acc: 0.0,
            left: (tiles - first) / step,
        };
        while reader.left > 0 {
            unsafe { reader.take(&pipe) };
        }
        unsafe { *out.add(first as usize * COLS + reader.col) = reader.acc };
    }
}

/// A reader made `Copy` whose step takes `self` by value: each step works on a copy.
#[derive(Clone, Copy)]
struct QuickReader {
    state: PipelineState<STAGES>,
    ring: *const f32,
    col: usize,
}

impl QuickReader {
    unsafe fn step(mut self, pipe: &Pipeline<STAGES>) -> f32 {
        pipe.consumer_wait(&self.state);
        let stage = unsafe { self.ring.add(self.state.index() as usize * TILE_FLOATS + self.col) };
        let mut sum = 0.0;
        for row in 0..ROWS {
            sum += unsafe { *stage.add(row * COLS) };
        }
        pipe.consumer_release(&self.state);
        self.state.advance();
        sum
    }
}

/// BROKEN: `QuickReader::step` takes `self` by value, so the advance happens on a copy and
/// the caller's reader stays at stage 0: stage 1 is never released and the feeder hangs on
/// its second pass over the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_crew_copy_self_step(input: *const f32, tiles: u32, out: *mut f32) {
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
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 0 {
        let mut feeder = Feeder::new(pipe, window, input, first, step, tiles);
        while feeder.pump() {}
        feeder.finish();
    } else if tid >= 32 {
        let reader = QuickReader { state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), col: (tid - 32) as usize };
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            acc += unsafe { reader.step(&pipe) };
            tile += step;
        }
        unsafe { *out.add(first as usize * COLS + reader.col) = acc };
    }
}
