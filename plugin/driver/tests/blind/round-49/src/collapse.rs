//! Style: collapsed loop nests (OpenMP's `collapse`). Every nest of loops is written as one loop
//! over a flat index that is decoded by division and remainder: (tile, row) pairs of the block's
//! work, elements of two staged tiles, the rows of every tile a consumer reads, the row copies of
//! every tile a producer issues. Where the nest's inner boundary matters (a new tile starts, a
//! tile ends), the decoded remainder says so.

use crate::device::geometry::{WARP_SIZE, block_idx_x, grid_dim_x, lane_id, thread_idx_x, warp_id};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

const THREADS: usize = 64;
const SHARED_BYTES: u32 = 8192;
const ROW: usize = 32;
const ROWS: usize = 8;
const ROW_BYTES: u32 = 128;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const STAGES: u32 = 4;
/// The mbarriers at the start of the window, the ring from 1 KiB on.
const RING: u32 = 1024;

/// The number of tiles block `block` of `grid` owns.
fn owned_tiles(block: u32, grid: u32, tiles: u32) -> u32 {
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

/// Plain: the block's work is the flat space of (tile, row) pairs; thread `(w, c)` takes every
/// second pair from `w` on and adds row `f % 8` of tile `f / 8` of column `c`, straight from
/// global memory. The two warps (even and odd rows) meet through shared memory at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_collapse_flat_work(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (parity, column) = (tid / ROW, tid % ROW);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let work = owned_tiles(block, grid, tiles) as usize * ROWS;

    let mut sum = 0.0f32;
    for f in (parity..work).step_by(2) {
        let (k, r) = (f / ROWS, f % ROWS);
        let tile = block as usize + k * grid as usize;
        sum += *input.add(tile * TILE_FLOATS + r * ROW + column);
    }

    let exchange = dynamic_shared_base::<f32>();
    if parity == 1 {
        *exchange.add(column) = sum;
    }
    barrier();
    if parity == 0 {
        *out.add(block as usize * ROW + column) = sum + *exchange.add(column);
    }
}

/// Pipeline whose consumers run one flat loop over (tile, row): at row 0 of a tile they wait for
/// its stage, at row 7 they release it and advance. The producer is an ordinary tile loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_collapse_flat_consumer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = owned_tiles(block, grid, tiles);

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..mine {
            let tile = block + k * grid;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sum = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        for f in 0..mine as usize * ROWS {
            let r = f % ROWS;
            if r == 0 {
                pipe.consumer_wait(&state);
            }
            sum += *ring.add(state.index() as usize * TILE_FLOATS + r * ROW + column);
            if r == ROWS - 1 {
                pipe.consumer_release(&state);
                state.advance();
            }
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// Plain: two of the block's tiles are staged per round by one flat loop over their 512 floats
/// (tile `e / 256`, element `e % 256`; a tile past the end staged as zeros). The two staged
/// tiles are 16 consecutive rows, so thread `(h, c)` reads rows `8h..8h + 8` of the pair as one
/// flat run. The halves meet at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_collapse_flat_two_tile_staging(input: *const f32, tiles: u32, out: *mut f32) {
    const PAIR: usize = 2 * TILE_FLOATS;
    const PARTIALS: usize = 4096;
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / ROW, tid % ROW);
    let (block, grid) = (block_idx_x() as usize, grid_dim_x() as usize);
    let tiles = tiles as usize;
    let staged = dynamic_shared_base::<f32>();
    let partials = staged.byte_add(PARTIALS);

    let mut sum = 0.0f32;
    let mut first = block;
    while first < tiles {
        let mut e = tid;
        while e < PAIR {
            let (k, x) = (e / TILE_FLOATS, e % TILE_FLOATS);
            let tile = first + k * grid;
            *staged.add(e) = if tile < tiles { *input.add(tile * TILE_FLOATS + x) } else { 0.0 };
            e += THREADS;
        }
        barrier();
        for f in half * ROWS..(half + 1) * ROWS {
            sum += *staged.add(f * ROW + column);
        }
        barrier();
        first += 2 * grid;
    }
    if half == 1 {
        *partials.add(column) = sum;
    }
    barrier();
    if half == 0 {
        *out.add(block * ROW + column) = sum + *partials.add(column);
    }
}

/// Pipeline whose producer issues row copies (128 bytes each) in one flat loop over (tile, row):
/// at row 0 it acquires the stage and announces the tile's bytes, every pass copies one row into
/// its place in the stage, and at row 7 it advances. Consumers read their column as a flat run of
/// the stage's elements `c, c + 32, …`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_collapse_flat_producer_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = owned_tiles(block, grid, tiles);

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for j in 0..mine as usize * ROWS {
            let (k, r) = (j / ROWS, j % ROWS);
            if r == 0 {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
            }
            let tile = block as usize + k * grid as usize;
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES + r as u32 * ROW_BYTES,
                input.add(tile * TILE_FLOATS + r * ROW) as *const u8,
                ROW_BYTES,
                pipe.producer_barrier(&state),
            );
            if r == ROWS - 1 {
                state.advance();
            }
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sum = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for e in (column..TILE_FLOATS).step_by(ROW) {
                sum += *stage.add(e);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// BROKEN: `r49_collapse_flat_two_tile_staging` without the barrier between the flat staging loop
/// and the reads: warp 0 reads rows that warp 1 is still staging, and the other way round (a race
/// between the warps).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_collapse_bad_flat_no_staging_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    const PAIR: usize = 2 * TILE_FLOATS;
    const PARTIALS: usize = 4096;
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / ROW, tid % ROW);
    let (block, grid) = (block_idx_x() as usize, grid_dim_x() as usize);
    let tiles = tiles as usize;
    let staged = dynamic_shared_base::<f32>();
    let partials = staged.byte_add(PARTIALS);

    let mut sum = 0.0f32;
    let mut first = block;
    while first < tiles {
        let mut e = tid;
        while e < PAIR {
            let (k, x) = (e / TILE_FLOATS, e % TILE_FLOATS);
            let tile = first + k * grid;
            *staged.add(e) = if tile < tiles { *input.add(tile * TILE_FLOATS + x) } else { 0.0 };
            e += THREADS;
        }
        for f in half * ROWS..(half + 1) * ROWS {
            sum += *staged.add(f * ROW + column);
        }
        barrier();
        first += 2 * grid;
    }
    if half == 1 {
        *partials.add(column) = sum;
    }
    barrier();
    if half == 0 {
        *out.add(block * ROW + column) = sum + *partials.add(column);
    }
}

/// BROKEN: `r49_collapse_flat_consumer` with the flat loop stopped at the last flat index instead
/// of one past it (`0..mine * 8 - 1`): the last row of the last tile is never read, and that
/// tile's stage is never released, so the producer's tail waits forever (a hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_collapse_bad_flat_consumer_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = owned_tiles(block, grid, tiles);

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..mine {
            let tile = block + k * grid;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sum = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        let last = (mine as usize * ROWS).saturating_sub(1);
        for f in 0..last {
            let r = f % ROWS;
            if r == 0 {
                pipe.consumer_wait(&state);
            }
            sum += *ring.add(state.index() as usize * TILE_FLOATS + r * ROW + column);
            if r == ROWS - 1 {
                pipe.consumer_release(&state);
                state.advance();
            }
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// BROKEN: `r49_collapse_flat_producer_rows` with the end-of-tile test decoded wrongly
/// (`(j + 1) % 8 == 1`, true after row 0 rather than after row 7): the producer advances after
/// the first row copy, so stage 0 receives 128 of the 1024 bytes announced and the rest land in
/// the next stage, whose barrier nobody armed yet (the consumers wait on stage 0 forever).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_collapse_bad_flat_producer_early_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = owned_tiles(block, grid, tiles);

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for j in 0..mine as usize * ROWS {
            let (k, r) = (j / ROWS, j % ROWS);
            if r == 0 {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
            }
            let tile = block as usize + k * grid as usize;
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES + r as u32 * ROW_BYTES,
                input.add(tile * TILE_FLOATS + r * ROW) as *const u8,
                ROW_BYTES,
                pipe.producer_barrier(&state),
            );
            if (j + 1) % ROWS == 1 {
                state.advance();
            }
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sum = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for e in (column..TILE_FLOATS).step_by(ROW) {
                sum += *stage.add(e);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// BROKEN: `r49_collapse_flat_two_tile_staging` with the pair staged at the top of the window
/// (bytes 6144..8192) and the flat staging loop bounded inclusively (`e <= 512`): thread 0 stores
/// a 513th float, at byte 8192 (a fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_collapse_bad_inclusive_flat_bound(input: *const f32, tiles: u32, out: *mut f32) {
    const PAIR: usize = 2 * TILE_FLOATS;
    const STAGED: usize = SHARED_BYTES as usize - 2 * TILE_BYTES as usize;
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / ROW, tid % ROW);
    let (block, grid) = (block_idx_x() as usize, grid_dim_x() as usize);
    let tiles = tiles as usize;
    let partials = dynamic_shared_base::<f32>();
    let staged = partials.byte_add(STAGED);

    let mut sum = 0.0f32;
    let mut first = block;
    while first < tiles {
        let mut e = tid;
        while e <= PAIR {
            let (k, x) = (e / TILE_FLOATS, e % TILE_FLOATS);
            let tile = first + k * grid;
            *staged.add(e) = if tile < tiles { *input.add(tile * TILE_FLOATS + x) } else { 0.0 };
            e += THREADS;
        }
        barrier();
        for f in half * ROWS..(half + 1) * ROWS {
            sum += *staged.add(f * ROW + column);
        }
        barrier();
        first += 2 * grid;
    }
    if half == 1 {
        *partials.add(column) = sum;
    }
    barrier();
    if half == 0 {
        *out.add(block * ROW + column) = sum + *partials.add(column);
    }
}
