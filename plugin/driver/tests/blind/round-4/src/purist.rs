//! Written by someone who prefers iterators, traits, generics and small types to index loops.
#![allow(unsafe_op_in_unsafe_fn)]

use core::mem;
use core::slice;

use crate::common::{COLUMNS, TILE_BYTES, TILE_FLOATS};
use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x,
    warp_id,
};

type Tile = [f32; TILE_FLOATS];

/// The tiles of this block, as global tile numbers.
#[inline(always)]
fn my_tiles(tiles: u32) -> impl Iterator<Item = u32> {
    (block_idx_x()..tiles).step_by(grid_dim_x() as usize)
}

#[inline(always)]
unsafe fn source(input: *const f32, tile: u32) -> *const u8 {
    input.add(tile as usize * TILE_FLOATS).cast()
}

/// Iterators all the way: the tile is a `&[f32; 256]`, a column is `skip(c).step_by(32)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_iter_sum(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let ring = dynamic_shared_base::<Tile>();
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, COLUMNS as u32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);

    match thread_idx_x() {
        32 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            for tile in my_tiles(tiles) {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    source(input, tile),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            pipe.producer_tail(state);
        }
        column @ 0..32 => {
            let column = column as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut total = 0.0f32;
            for _ in my_tiles(tiles) {
                pipe.consumer_wait(&state);
                let tile: &Tile = &*ring.add(state.index() as usize);
                total += tile.iter().skip(column).step_by(COLUMNS).sum::<f32>();
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add(block_idx_x() as usize * COLUMNS + column) = total;
        }
        _ => {}
    }
}

/// What every role sees.
struct Shared<const S: u32> {
    pipe: Pipeline<S>,
    ring: *const f32,
    window: u32,
    input: *const f32,
    tiles: u32,
    out: *mut f32,
}

trait Role<const S: u32> {
    unsafe fn play(self, shared: &Shared<S>);
}

struct Producer;
struct Consumer {
    column: usize,
}

impl<const S: u32> Role<S> for Producer {
    unsafe fn play(self, shared: &Shared<S>) {
        let mut state = PipelineState::<S>::producer_start();
        for tile in my_tiles(shared.tiles) {
            shared.pipe.producer_acquire(&state);
            shared.pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                shared.window + state.index() * TILE_BYTES,
                source(shared.input, tile),
                TILE_BYTES,
                shared.pipe.producer_barrier(&state),
            );
            state.advance();
        }
        shared.pipe.producer_tail(state);
    }
}

impl<const S: u32> Role<S> for Consumer {
    unsafe fn play(self, shared: &Shared<S>) {
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        for _ in my_tiles(shared.tiles) {
            shared.pipe.consumer_wait(&state);
            let tile = shared.ring.add(state.index() as usize * TILE_FLOATS + self.column);
            total += (0..TILE_FLOATS).step_by(COLUMNS).map(|offset| *tile.add(offset)).sum::<f32>();
            shared.pipe.consumer_release(&state);
            state.advance();
        }
        *shared.out.add(block_idx_x() as usize * COLUMNS + self.column) = total;
    }
}

#[inline(never)]
unsafe fn perform<const S: u32, R: Role<S>>(role: R, shared: &Shared<S>) {
    role.play(shared)
}

/// Roles as types: a `Role` trait with a producer and a consumer implementation.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_trait_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(64);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let shared = Shared {
        pipe: Pipeline::<STAGES>::attach(barriers),
        ring: dynamic_shared_base::<f32>(),
        window,
        input,
        tiles,
        out,
    };
    let tid = thread_idx_x();
    if tid < 32 {
        perform(Consumer { column: tid as usize }, &shared);
    } else if tid == 32 {
        perform(Producer, &shared);
    }
}

/// A consumer's view of the ring: one state and a scoped borrow of the current tile.
struct Cursor<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    state: PipelineState<S>,
    ring: *const Tile,
}

impl<'p, const S: u32> Cursor<'p, S> {
    fn new(pipe: &'p Pipeline<S>, ring: *const Tile) -> Self {
        Cursor { pipe, state: PipelineState::new(), ring }
    }

    /// Waits for the next tile, lends it to `f`, then gives the stage back.
    #[inline(always)]
    unsafe fn with_tile<R>(&mut self, f: impl FnOnce(&Tile) -> R) -> R {
        self.pipe.consumer_wait(&self.state);
        let result = f(&*self.ring.add(self.state.index() as usize));
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        result
    }
}

/// The producer's side of the ring.
struct Feeder<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    state: PipelineState<S>,
    window: u32,
}

impl<'p, const S: u32> Feeder<'p, S> {
    #[inline(always)]
    unsafe fn push(&mut self, src: *const u8) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.window + self.state.index() * TILE_BYTES,
            src,
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

/// Cursor structs with methods; the consumer reads through a closure lent the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_cursor_struct(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    block_threads(64);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    if warp_id() == 0 {
        let column = lane_id() as usize;
        let mut cursor = Cursor::new(&pipe, dynamic_shared_base::<Tile>());
        let mut total = 0.0f32;
        for _ in my_tiles(tiles) {
            total += cursor.with_tile(|tile| tile[column..].iter().step_by(COLUMNS).sum::<f32>());
        }
        *out.add(block_idx_x() as usize * COLUMNS + column) = total;
    } else if lane_id() == 0 {
        let mut feeder = Feeder { pipe: &pipe, state: PipelineState::producer_start(), window };
        for tile in my_tiles(tiles) {
            feeder.push(source(input, tile));
        }
        feeder.finish();
    }
}

#[inline(always)]
unsafe fn run_generic<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(barriers, COLUMNS as u32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let tid = thread_idx_x();
    if tid == 63 {
        let mut state = PipelineState::<S>::producer_start();
        for tile in my_tiles(tiles) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < COLUMNS as u32 {
        let column = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&state);
            let tile = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            total += tile.chunks_exact(COLUMNS).map(|row| row[column]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * COLUMNS + column) = total;
    }
}

/// The whole kernel generic over the stage count, instantiated with three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_const_generic(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    run_generic::<3>(input, tiles, out);
}

/// Each role keeps its state in an `Option`, set up front and used through `if let`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_option_state(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let ring = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut slot: Option<PipelineState<STAGES>> = Some(PipelineState::producer_start());
        for tile in my_tiles(tiles) {
            if let Some(state) = &mut slot {
                pipe.producer_acquire(state);
                pipe.producer_expect_tx(state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    source(input, tile),
                    TILE_BYTES,
                    pipe.producer_barrier(state),
                );
                state.advance();
            }
        }
        if let Some(state) = slot {
            pipe.producer_tail(state);
        }
    } else if tid < 32 {
        let column = tid as usize;
        let mut slot: Option<PipelineState<STAGES>> = Some(PipelineState::new());
        let mut total = 0.0f32;
        for _ in my_tiles(tiles) {
            if let Some(state) = &mut slot {
                pipe.consumer_wait(state);
                let tile = ring.add(state.index() as usize * TILE_FLOATS);
                total += (0..8).map(|row| *tile.add(row * COLUMNS + column)).sum::<f32>();
                pipe.consumer_release(state);
                state.advance();
            }
        }
        *out.add(block_idx_x() as usize * COLUMNS + column) = total;
    }
}

/// The ring walked one round at a time; a labeled `break` leaves both loops after the last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_labeled_rounds(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let ring = dynamic_shared_base::<f32>();
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tid = thread_idx_x();
    if tid == 40 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        'rounds: loop {
            for _ in 0..STAGES {
                if tile >= tiles {
                    break 'rounds;
                }
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    source(input, tile),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut tile = block;
        'rounds: loop {
            for _ in 0..STAGES {
                if tile >= tiles {
                    break 'rounds;
                }
                pipe.consumer_wait(&state);
                let view = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
                total += view.iter().skip(column).step_by(COLUMNS).sum::<f32>();
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
        }
        *out.add(block as usize * COLUMNS + column) = total;
    }
}

/// The consumers count their tiles and fold over that many.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_floor_count(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let ring = dynamic_shared_base::<Tile>();
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in my_tiles(tiles) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let count = (tiles - block_idx_x()) / grid_dim_x();
        let mut state = PipelineState::<STAGES>::new();
        let total: f32 = (0..count)
            .map(|_| {
                pipe.consumer_wait(&state);
                let tile = &*ring.add(state.index() as usize);
                let column_sum = tile.iter().skip(column).step_by(COLUMNS).sum::<f32>();
                pipe.consumer_release(&state);
                state.advance();
                column_sum
            })
            .sum();
        *out.add(block_idx_x() as usize * COLUMNS + column) = total;
    }
}

/// The column is described once as an iterator over the tile, then summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_lazy_column(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let ring = dynamic_shared_base::<Tile>();
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in my_tiles(tiles) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&state);
            let tile: &Tile = &*ring.add(state.index() as usize);
            let values = tile.iter().skip(column).step_by(COLUMNS).copied();
            pipe.consumer_release(&state);
            total += values.sum::<f32>();
            state.advance();
        }
        *out.add(block_idx_x() as usize * COLUMNS + column) = total;
    }
}

/// The producer borrows each source tile as a slice and announces its size.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_size_of_val(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let ring = dynamic_shared_base::<Tile>();
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in my_tiles(tiles) {
            let src: &[f32] = slice::from_raw_parts(input.add(tile as usize * TILE_FLOATS), TILE_FLOATS);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, mem::size_of_val(&src) as u32);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                src.as_ptr().cast(),
                (src.len() * mem::size_of::<f32>()) as u32,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&state);
            let tile: &Tile = &*ring.add(state.index() as usize);
            total += tile.iter().skip(column).step_by(COLUMNS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * COLUMNS + column) = total;
    }
}

/// A column reader that owns its place in the ring.
struct ColumnReader<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    column: usize,
}

impl<const S: u32> ColumnReader<'_, S> {
    #[inline(always)]
    unsafe fn next_sum(&mut self) -> f32 {
        let current = mem::take(&mut self.state);
        self.pipe.consumer_wait(&current);
        let tile = self.ring.add(current.index() as usize * TILE_FLOATS + self.column);
        let sum = (0..TILE_FLOATS).step_by(COLUMNS).map(|offset| *tile.add(offset)).sum::<f32>();
        self.pipe.consumer_release(&current);
        self.state.advance();
        sum
    }
}

/// The consumer's state is a field taken out with `mem::take` for each tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_take_state(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in my_tiles(tiles) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                source(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut reader = ColumnReader {
            pipe: &pipe,
            state: PipelineState::new(),
            ring: dynamic_shared_base::<f32>(),
            column: tid as usize,
        };
        let total = my_tiles(tiles).fold(0.0f32, |acc, _| acc + reader.next_sum());
        *out.add(block_idx_x() as usize * COLUMNS + tid as usize) = total;
    }
}

/// Roles by pattern: lane 0 of warp 1 produces, every other thread reads its lane's column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn pure_match_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let ring = dynamic_shared_base::<Tile>();
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, COLUMNS as u32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    match (warp_id(), lane_id()) {
        (1, 0) => {
            let mut state = PipelineState::<STAGES>::producer_start();
            for tile in my_tiles(tiles) {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    source(input, tile),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            pipe.producer_tail(state);
        }
        (_, lane) => {
            let column = lane as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut total = 0.0f32;
            for _ in my_tiles(tiles) {
                pipe.consumer_wait(&state);
                let tile: &Tile = &*ring.add(state.index() as usize);
                total += tile.iter().skip(column).step_by(COLUMNS).sum::<f32>();
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add(block_idx_x() as usize * COLUMNS + column) = total;
        }
    }
}
