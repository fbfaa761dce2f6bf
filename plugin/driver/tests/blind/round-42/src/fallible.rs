//! Style `fallible`: control flow by `Option` and `Result`, as a Rust programmer used to error
//! handling writes it. A thread's role is a `Result<Role, Idle>`, the block's tiles come from a
//! cursor whose `next_tile()` returns `Option<u32>`, a tile's global source is checked by a
//! helper returning `Result<_, OutOfRange>`, column indices are validated once into a `Col`
//! (`Option`), and helpers return early with `?` or `let … else`.
//!
//! Layout: the barriers of a four-stage pipeline at window byte 0, the ring at byte 256.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const BARS: u32 = 0;
const RING: u32 = 256;
const PRODUCER: u32 = 0;
const FIRST_CONSUMER: u32 = 32;
const CONSUMERS: u32 = 32;

/// A tile index past the input.
#[derive(Clone, Copy, Debug)]
struct OutOfRange;

/// A thread with no role.
#[derive(Clone, Copy, Debug)]
struct Idle;

#[derive(Clone, Copy)]
enum Role {
    Producer,
    Consumer(u32),
}

fn role_of(tid: u32) -> Result<Role, Idle> {
    if tid == PRODUCER {
        return Ok(Role::Producer);
    }
    let lane = tid.checked_sub(FIRST_CONSUMER).ok_or(Idle)?;
    if lane < CONSUMERS { Ok(Role::Consumer(lane)) } else { Err(Idle) }
}

/// A validated column index.
#[derive(Clone, Copy)]
struct Col(usize);

impl Col {
    fn new(col: u32) -> Option<Col> {
        let col = col as usize;
        (col < COLS).then_some(Col(col))
    }
}

/// This block's tiles, `b, b + g, …` below `end`.
struct Tiles {
    next: u32,
    end: u32,
    step: u32,
}

impl Tiles {
    #[inline(always)]
    fn of_block(end: u32) -> Tiles {
        Tiles { next: block_idx_x(), end, step: grid_dim_x() }
    }

    #[inline(always)]
    fn next_tile(&mut self) -> Option<u32> {
        if self.next >= self.end {
            return None;
        }
        let tile = self.next;
        self.next += self.step;
        Some(tile)
    }
}

/// The global address of tile `tile`, or `OutOfRange` past the input's `tiles` tiles.
#[inline(always)]
unsafe fn tile_source(input: *const f32, tile: u32, tiles: u32) -> Result<*const u8, OutOfRange> {
    if tile >= tiles {
        return Err(OutOfRange);
    }
    Ok(input.add(tile as usize * TILE_FLOATS) as *const u8)
}

#[inline(always)]
unsafe fn column(stage: *const f32, col: Col) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += *stage.add(row * COLS + col.0);
    }
    sum
}

#[inline(always)]
fn launch() {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
}

/// Initialises (in `PRODUCER`) and publishes the pipeline.
#[inline(always)]
fn pipeline(window: u32) -> Pipeline<STAGES> {
    let pipe = if thread_idx_x() == PRODUCER {
        Pipeline::<STAGES>::init(window + BARS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARS)
    };
    barrier();
    pipe
}

/// The producer: a tile whose source is out of range ends the loop before its stage is
/// acquired, so the tail always runs with no stage held.
#[inline(always)]
unsafe fn produce(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) {
    let mut cursor = Tiles::of_block(tiles);
    let mut state = PipelineState::<STAGES>::producer_start();
    while let Some(tile) = cursor.next_tile() {
        let Ok(source) = tile_source(input, tile, tiles) else { break };
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let destination = window + RING + state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
    }
    pipe.producer_tail(state);
}

/// A consumer: column `col` of each of this block's tiles.
#[inline(always)]
unsafe fn consume(pipe: &Pipeline<STAGES>, tiles: u32, col: Col) -> f32 {
    let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
    let mut cursor = Tiles::of_block(tiles);
    let mut state = PipelineState::<STAGES>::new();
    let mut total = 0.0f32;
    while let Some(_tile) = cursor.next_tile() {
        pipe.consumer_wait(&state);
        total += column(ring.add(state.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(&state);
        state.advance();
    }
    total
}

/// Both roles over the `Option` cursor; roles by plain comparisons.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fallible_cursor_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    let pipe = pipeline(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        produce(&pipe, window, input, tiles);
    } else if tid >= FIRST_CONSUMER {
        let Some(col) = Col::new(tid - FIRST_CONSUMER) else { return };
        let total = consume(&pipe, tiles, col);
        *out.add(block_idx_x() as usize * COLS + col.0) = total;
    }
}

/// Roles from `role_of`, a `Result`; idle threads leave with `let … else` after the barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fallible_result_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    let pipe = pipeline(window);
    let Ok(role) = role_of(thread_idx_x()) else { return };
    match role {
        Role::Producer => produce(&pipe, window, input, tiles),
        Role::Consumer(lane) => {
            let Some(col) = Col::new(lane) else { return };
            let total = consume(&pipe, tiles, col);
            *out.add(block_idx_x() as usize * COLS + col.0) = total;
        }
    }
}

/// The consumers' loop lives in a helper returning `Option<f32>` that validates its column with
/// `?` before it touches the pipeline; the kernel stores the total with `if let`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fallible_checked_consumer(input: *const f32, tiles: u32, out: *mut f32) {
    #[inline(always)]
    unsafe fn try_consume(pipe: &Pipeline<STAGES>, tiles: u32, lane: u32) -> Option<f32> {
        let col = Col::new(lane)?;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        let step = grid_dim_x();
        while tile < tiles {
            pipe.consumer_wait(&state);
            total += column(ring.add(state.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        Some(total)
    }
    launch();
    let window = dynamic_shared_window_address();
    let pipe = pipeline(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        let step = grid_dim_x();
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.add(tile as usize * TILE_FLOATS) as *const u8;
            let destination = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= FIRST_CONSUMER {
        let lane = tid - FIRST_CONSUMER;
        if let Some(total) = try_consume(&pipe, tiles, lane) {
            *out.add(block_idx_x() as usize * COLS + lane as usize) = total;
        }
    }
}

/// Plain shared memory: `stage_tile` returns `Err(OutOfRange)` past the input (the same answer
/// in every thread, so the whole block leaves the loop together); warp 0 sums between barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fallible_plain_staging(input: *const f32, tiles: u32, out: *mut f32) {
    #[inline(always)]
    unsafe fn stage_tile(smem: *mut f32, input: *const f32, tile: u32, tiles: u32, tid: usize) -> Result<(), OutOfRange> {
        let source = tile_source(input, tile, tiles)? as *const f32;
        let mut k = 0;
        while k < TILE_FLOATS / BLOCK_THREADS as usize {
            let i = tid + k * BLOCK_THREADS as usize;
            *smem.add(i) = *source.add(i);
            k += 1;
        }
        Ok(())
    }
    launch();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let col = Col::new(thread_idx_x());
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    let step = grid_dim_x();
    while tile < tiles {
        if stage_tile(smem, input, tile, tiles, tid).is_err() {
            break;
        }
        barrier();
        if let Some(col) = col {
            total += column(smem, col);
        }
        barrier();
        tile += step;
    }
    if let Some(col) = col {
        *out.add(block_idx_x() as usize * COLS + col.0) = total;
    }
}

/// Bytes of the header the copy skips ("tiles start with a 16-byte header").
const HEADER_BYTES: u32 = 16;

/// BROKEN: the copy skips a 16-byte "header" the input does not have, moving
/// `TILE_BYTES.checked_sub(HEADER_BYTES)` = 1008 bytes, while the `expect_tx` announces the whole
/// 1024-byte stage: each full barrier stays 16 bytes short and the consumers wait forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fallible_bad_header_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    let pipe = pipeline(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let Some(payload) = TILE_BYTES.checked_sub(HEADER_BYTES) else { return };
        let mut cursor = Tiles::of_block(tiles);
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(tile) = cursor.next_tile() {
            let Ok(source) = tile_source(input, tile, tiles) else { break };
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let destination = window + RING + state.index() * TILE_BYTES + HEADER_BYTES;
            bulk_copy_global_to_shared(
                destination,
                source.add(HEADER_BYTES as usize),
                payload,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= FIRST_CONSUMER {
        let Some(col) = Col::new(tid - FIRST_CONSUMER) else { return };
        let total = consume(&pipe, tiles, col);
        *out.add(block_idx_x() as usize * COLS + col.0) = total;
    }
}

/// The thread that sets up the barriers: "the block's last thread".
fn setup_thread(tid: u32) -> Option<u32> {
    (tid == BLOCK_THREADS).then_some(tid)
}

/// BROKEN: `setup_thread` compares with `BLOCK_THREADS` instead of `BLOCK_THREADS - 1`, so no
/// thread of the 64 runs `Pipeline::init`: every thread attaches to mbarriers nobody initialised.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fallible_bad_init_nobody(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if setup_thread(tid).is_some() {
        Pipeline::<STAGES>::init(window + BARS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let Ok(role) = role_of(tid) else { return };
    match role {
        Role::Producer => produce(&pipe, window, input, tiles),
        Role::Consumer(lane) => {
            let Some(col) = Col::new(lane) else { return };
            let total = consume(&pipe, tiles, col);
            *out.add(block_idx_x() as usize * COLS + col.0) = total;
        }
    }
}

/// The full barrier of the stage a tile goes to, "tile modulo the stage count".
fn full_barrier_of(window: u32, tile: u32) -> Option<u32> {
    let slot = tile.checked_rem(STAGES)?;
    window.checked_add(BARS + 8 * slot)
}

/// BROKEN: the producer names the copy's barrier by `full_barrier_of(window, tile)`, the global
/// tile index modulo 4, not by its state: this block's tiles are `b, b + 8, …`, all the same
/// modulo 4, so every copy completes on one full barrier and the other stages' full barriers
/// never receive their bytes (the consumers hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fallible_bad_barrier_from_tile(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    let pipe = pipeline(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut cursor = Tiles::of_block(tiles);
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(tile) = cursor.next_tile() {
            let Ok(source) = tile_source(input, tile, tiles) else { break };
            let Some(full) = full_barrier_of(window, tile) else { break };
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let destination = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(destination, source, TILE_BYTES, full);
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= FIRST_CONSUMER {
        let Some(col) = Col::new(tid - FIRST_CONSUMER) else { return };
        let total = consume(&pipe, tiles, col);
        *out.add(block_idx_x() as usize * COLS + col.0) = total;
    }
}

/// The source of `tile`, checked "so that a vectorised read of the next tile stays inside".
#[inline(always)]
unsafe fn checked_source(input: *const f32, tile: u32, tiles: u32) -> Result<*const u8, OutOfRange> {
    if tile + 1 < tiles { Ok(input.add(tile as usize * TILE_FLOATS) as *const u8) } else { Err(OutOfRange) }
}

/// BROKEN: the source is checked after the `expect_tx` with an off-by-one bound (`tile + 1 <
/// tiles`), and on `Err` the producer skips the copy but still advances: tile 63 (block 7's
/// last) is announced and never copied, so its full barrier never completes and block 7's
/// consumers hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fallible_bad_source_check(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    let pipe = pipeline(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut cursor = Tiles::of_block(tiles);
        let mut state = PipelineState::<STAGES>::producer_start();
        while let Some(tile) = cursor.next_tile() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            if let Ok(source) = checked_source(input, tile, tiles) {
                let destination = window + RING + state.index() * TILE_BYTES;
                bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipe.producer_barrier(&state));
            }
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= FIRST_CONSUMER {
        let Some(col) = Col::new(tid - FIRST_CONSUMER) else { return };
        let total = consume(&pipe, tiles, col);
        *out.add(block_idx_x() as usize * COLS + col.0) = total;
    }
}
