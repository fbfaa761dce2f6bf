//! Control flow through `Option` and `Result`: a user iterator over the block's tiles, a
//! consumer step that reports exhaustion as an error, a checked stage accessor used with `?`.
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

/// The block's tiles: `first, first + step, …` below `end`.
struct BlockTiles {
    next: u32,
    step: u32,
    end: u32,
}

impl BlockTiles {
    fn of_this_block(end: u32) -> Self {
        BlockTiles { next: block_idx_x(), step: grid_dim_x(), end }
    }
}

impl Iterator for BlockTiles {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.next < self.end {
            let tile = self.next;
            self.next += self.step;
            Some(tile)
        } else {
            None
        }
    }
}

#[inline(always)]
fn setup() -> (u32, Pipeline<STAGES>) {
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window + BARRIER_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIER_OFFSET)
    };
    (window, pipe)
}

#[inline(always)]
fn produce(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<STAGES>::producer_start();
    let mut block_tiles = BlockTiles::of_this_block(tiles);
    while let Some(tile) = block_tiles.next() {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let source = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
        bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
    }
    pipe.producer_tail(state);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_opt_tile_iter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (window, pipe) = setup();
    barrier();

    if tid == 0 {
        produce(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _tile in BlockTiles::of_this_block(tiles) {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS + col) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// The block has no tiles left.
struct Exhausted;

struct Column<'p> {
    pipe: &'p Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    ring: *const f32,
    col: usize,
    tiles: BlockTiles,
}

impl Column<'_> {
    /// The next tile's column sum, or `Exhausted` once the block's tiles are done.
    fn step(&mut self) -> Result<f32, Exhausted> {
        self.tiles.next().ok_or(Exhausted)?;
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.wrapping_add(self.state.index() as usize * TILE_FLOATS + self.col);
        let mut sum = 0.0;
        for row in 0..ROWS {
            sum += unsafe { *stage.add(row * COLS) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        Ok(sum)
    }

    /// BROKEN variant: waits for the stage first, then checks whether a tile was left.
    fn step_wait_first(&mut self) -> Result<f32, Exhausted> {
        self.pipe.consumer_wait(&self.state);
        self.tiles.next().ok_or(Exhausted)?;
        let stage = self.ring.wrapping_add(self.state.index() as usize * TILE_FLOATS + self.col);
        let mut sum = 0.0;
        for row in 0..ROWS {
            sum += unsafe { *stage.add(row * COLS) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        Ok(sum)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_opt_result_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (window, pipe) = setup();
    barrier();

    if tid == 0 {
        produce(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let mut column = Column {
            pipe: &pipe,
            state: PipelineState::new(),
            ring: dynamic_shared_base::<f32>(),
            col: (tid - 32) as usize,
            tiles: BlockTiles::of_this_block(tiles),
        };
        let mut acc = 0.0f32;
        loop {
            match column.step() {
                Ok(sum) => acc += sum,
                Err(Exhausted) => break,
            }
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + column.col) = acc };
    }
}

/// BROKEN: the consumer step waits for the next stage before it checks that a tile is left:
/// after the block's last tile it waits on a stage nobody will fill, and the block hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_opt_wait_before_exhausted(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (window, pipe) = setup();
    barrier();

    if tid == 0 {
        produce(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let mut column = Column {
            pipe: &pipe,
            state: PipelineState::new(),
            ring: dynamic_shared_base::<f32>(),
            col: (tid - 32) as usize,
            tiles: BlockTiles::of_this_block(tiles),
        };
        let mut acc = 0.0f32;
        while let Ok(sum) = column.step_wait_first() {
            acc += sum;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + column.col) = acc };
    }
}

/// A stage pointer, checked against the ring's size.
#[inline(always)]
fn checked_stage(ring: *const f32, index: u32) -> Option<*const f32> {
    // BROKEN: `STAGES - 1` excludes the last stage.
    if index < STAGES - 1 { Some(ring.wrapping_add(index as usize * TILE_FLOATS)) } else { None }
}

fn read_tile(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, ring: *const f32, col: usize) -> Option<f32> {
    pipe.consumer_wait(state);
    let stage = checked_stage(ring, state.index())?;
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += unsafe { *stage.add(row * COLS + col) };
    }
    pipe.consumer_release(state);
    state.advance();
    Some(sum)
}

/// BROKEN: the checked stage accessor rejects stage 3, and `?` leaves the read before its
/// release and advance: the consumers stick at stage 3 for the rest of the block's tiles, and
/// the producer waits forever for stage 3 to be released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r16_opt_checked_stage_off_by_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (window, pipe) = setup();
    barrier();

    if tid == 0 {
        produce(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _tile in BlockTiles::of_this_block(tiles) {
            if let Some(sum) = read_tile(&pipe, &mut state, ring, col) {
                acc += sum;
            }
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}
