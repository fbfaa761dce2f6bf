//! Pipeline kernels that keep the state inside structs with methods.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const STAGES: u32 = 4;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

struct TileConsumer<'p> {
    pipe: &'p Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    ring: *const f32,
    column: usize,
    total: f32,
}

impl<'p> TileConsumer<'p> {
    fn new(pipe: &'p Pipeline<STAGES>, ring: *const f32, column: usize) -> Self {
        TileConsumer { pipe, state: PipelineState::new(), ring, column, total: 0.0 }
    }

    #[inline(always)]
    unsafe fn take(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = unsafe { self.ring.add(self.state.index() as usize * TILE_FLOATS) };
        for row in 0..ROWS {
            self.total += unsafe { *stage.add(row * COLS + self.column) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

struct TileProducer<'p> {
    pipe: &'p Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    ring_window: u32,
}

impl<'p> TileProducer<'p> {
    fn new(pipe: &'p Pipeline<STAGES>, ring_window: u32) -> Self {
        TileProducer { pipe, state: PipelineState::producer_start(), ring_window }
    }

    #[inline(always)]
    fn put(&mut self, source: *const f32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ring_window + self.state.index() * TILE_BYTES,
            source as *const u8,
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

/// Each role is a struct holding the pipeline, its state and its pointers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_struct_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    unsafe {
        if tid < WARP {
            let mut consumer = TileConsumer::new(&pipe, dynamic_shared_base::<f32>(), tid as usize);
            for _ in 0..count {
                consumer.take();
            }
            *out.add((block * WARP + tid) as usize) = consumer.total;
        } else if tid == WARP {
            let mut producer = TileProducer::new(&pipe, window);
            for k in 0..count {
                producer.put(input.add((block + k * grid) as usize * TILE_FLOATS));
            }
            producer.finish();
        }
    }
}

/// A position in the ring and in the block's tiles, stepped together.
struct Cursor {
    state: PipelineState<STAGES>,
    tile: u32,
    grid: u32,
    tiles: u32,
}

impl Cursor {
    fn current(&self) -> Option<u32> {
        if self.tile < self.tiles { Some(self.tile) } else { None }
    }

    fn step(&mut self) {
        self.state.advance();
        self.tile += self.grid;
    }
}

/// `while let Some(tile) = cursor.current()` in both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_struct_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP)
    } else {
        Pipeline::<STAGES>::attach(barriers)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid == WARP {
            let mut cursor = Cursor { state: PipelineState::producer_start(), tile: block, grid, tiles };
            while let Some(tile) = cursor.current() {
                pipe.producer_acquire(&cursor.state);
                pipe.producer_expect_tx(&cursor.state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + cursor.state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&cursor.state),
                );
                cursor.step();
            }
            pipe.producer_tail(cursor.state);
        } else if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut cursor = Cursor { state: PipelineState::new(), tile: block, grid, tiles };
            let mut acc = 0.0f32;
            while cursor.current().is_some() {
                pipe.consumer_wait(&cursor.state);
                let stage = ring.add(cursor.state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipe.consumer_release(&cursor.state);
                cursor.step();
            }
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}

/// Both roles' states, made together.
#[derive(Default)]
struct States {
    producer: PipelineState<STAGES>,
    consumer: PipelineState<STAGES>,
}

/// The states come from one `States::default()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_struct_default_states(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut states = States::default();
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&states.consumer);
                let stage = ring.add(states.consumer.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipe.consumer_release(&states.consumer);
                states.consumer.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&states.producer);
                pipe.producer_expect_tx(&states.producer, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + states.producer.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&states.producer),
                );
                states.producer.advance();
                tile += grid;
            }
            pipe.producer_tail(states.producer);
        }
    }
}

/// A consumer that is cheap to copy around.
#[derive(Clone, Copy)]
struct Reader {
    pipe: Pipeline<STAGES>,
    state: PipelineState<STAGES>,
    ring: *const f32,
    column: usize,
}

impl Reader {
    #[inline(always)]
    unsafe fn next_sum(mut self) -> f32 {
        self.pipe.consumer_wait(&self.state);
        let stage = unsafe { self.ring.add(self.state.index() as usize * TILE_FLOATS) };
        let mut sum = 0.0f32;
        for row in 0..ROWS {
            sum += unsafe { *stage.add(row * COLS + self.column) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        sum
    }
}

/// The consumer is a `Copy` reader whose step takes `self` by value.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_struct_copy_self(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid < WARP {
            let reader = Reader {
                pipe,
                state: PipelineState::new(),
                ring: dynamic_shared_base::<f32>(),
                column: tid as usize,
            };
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                acc += reader.next_sum();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut producer = TileProducer::new(&pipe, window);
            let mut tile = block;
            while tile < tiles {
                producer.put(input.add(tile as usize * TILE_FLOATS));
                tile += grid;
            }
            producer.finish();
        }
    }
}

/// The block's walk over its tiles: `block`, `block + grid`, ….
struct Walk {
    tile: u32,
    grid: u32,
    tiles: u32,
}

impl Walk {
    /// Moves to the next tile; false once past the last.
    fn advance(&mut self) -> bool {
        self.tile += self.grid;
        self.tile < self.tiles
    }
}

/// Both roles walk the tiles with `Walk::advance`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_struct_walk_advance(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if block >= tiles {
        if tid < WARP {
            unsafe { *out.add((block * WARP + tid) as usize) = 0.0 };
        }
        return;
    }
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut consumer = TileConsumer::new(&pipe, ring, tid as usize);
            let mut walk = Walk { tile: block, grid, tiles };
            while walk.advance() {
                consumer.take();
            }
            *out.add((block * WARP + tid) as usize) = consumer.total;
        } else if tid == WARP {
            let mut producer = TileProducer::new(&pipe, window);
            let mut walk = Walk { tile: block, grid, tiles };
            loop {
                producer.put(input.add(walk.tile as usize * TILE_FLOATS));
                if !walk.advance() {
                    break;
                }
            }
            producer.finish();
        }
    }
}
