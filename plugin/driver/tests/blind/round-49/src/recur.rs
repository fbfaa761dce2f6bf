//! Style: divide and conquer by structural recursion. Loops are written as recursive functions
//! over the work that is left (a tile index and the bound, a count of stages to drain, a range of
//! rows or tiles cut in two): a column of a tile is the sum of its upper and lower halves, a
//! block's tiles are a pre-order walk of a bisection tree, a tile is folded in shared memory by
//! halving it until one row is left. The recursion depth is small (at most the block's tiles).

use crate::device::geometry::{WARP_SIZE, block_idx_x, grid_dim_x, thread_idx_x};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::row::FourFloats;
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

const THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const ROW: usize = 32;
const ROWS: usize = 8;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const STAGES: u32 = 4;
/// The mbarriers at the start of the window, the ring from 1 KiB on.
const RING: u32 = 1024;

/// Rows `lo..hi` (at least one) of column `column` of the row-major tile at `tile`, summed by
/// bisection: the pairwise order keeps the rounding error of each half apart.
unsafe fn rows_sum(tile: *const f32, column: usize, lo: usize, hi: usize) -> f32 {
    if hi - lo == 1 {
        return *tile.add(lo * ROW + column);
    }
    let mid = lo + (hi - lo) / 2;
    rows_sum(tile, column, lo, mid) + rows_sum(tile, column, mid, hi)
}

/// The producer's walk over the tiles `tile, tile + step, …` below `tiles`, one copy per call.
unsafe fn produce(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    window: u32,
    input: *const f32,
    tile: u32,
    tiles: u32,
    step: u32,
) {
    if tile >= tiles {
        return;
    }
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(
        window + RING + state.index() * TILE_BYTES,
        input.add(tile as usize * TILE_FLOATS) as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
    state.advance();
    produce(pipe, state, window, input, tile + step, tiles, step)
}

/// A consumer's column over the same walk: this stage's column plus the rest of the walk.
unsafe fn consume(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    ring: *const f32,
    column: usize,
    tile: u32,
    tiles: u32,
    step: u32,
) -> f32 {
    if tile >= tiles {
        return 0.0;
    }
    pipe.consumer_wait(state);
    let here = rows_sum(ring.add(state.index() as usize * TILE_FLOATS), column, 0, ROWS);
    pipe.consumer_release(state);
    state.advance();
    here + consume(pipe, state, ring, column, tile + step, tiles, step)
}

/// Pipeline; both roles are recursive walks over the block's tiles (`produce`, `consume`),
/// thread 0 copying and threads 32..63 summing one column each, each stage's column by bisection.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_recur_tail_recursive_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        produce(&pipe, &mut state, window, input, block, tiles, grid);
        pipe.producer_tail(state);
    } else if tid >= WARP_SIZE {
        let column = (tid - WARP_SIZE) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let total = consume(&pipe, &mut state, ring, column, block, tiles, grid);
        *out.add(block as usize * ROW + column) = total;
    }
}

/// Folds the `rows` rows of the tile at `tile` into its first row, halving each level: the upper
/// half is added onto the lower half by the whole block, a barrier, and the lower half is folded.
/// Every thread of the block calls it with the same `rows`.
unsafe fn fold_rows(tile: *mut f32, rows: usize, tid: usize) {
    if rows == 1 {
        return;
    }
    let half = rows / 2;
    let mut e = tid;
    while e < half * ROW {
        *tile.add(e) += *tile.add(e + half * ROW);
        e += THREADS as usize;
    }
    barrier();
    fold_rows(tile, half, tid);
}

/// Plain: each tile is staged (one 16-byte quad per thread), folded onto its first row by
/// `fold_rows`, and the first row is added to the column sums of warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_recur_folding_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tile = dynamic_shared_base::<f32>();

    let mut column = 0.0f32;
    let mut t = block;
    while t < tiles {
        *(tile.add(4 * tid) as *mut FourFloats) = *(input.add(t as usize * TILE_FLOATS + 4 * tid) as *const FourFloats);
        barrier();
        fold_rows(tile, ROWS, tid);
        if tid < ROW {
            column += *tile.add(tid);
        }
        barrier();
        t += grid;
    }
    if tid < ROW {
        *out.add(block as usize * ROW + tid) = column;
    }
}

/// Pre-order walk of the bisection tree over the block's tile numbers `lo..hi`: the middle tile
/// first, then the lower half, then the upper half.
#[allow(clippy::too_many_arguments)]
unsafe fn produce_preorder(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    window: u32,
    input: *const f32,
    block: u32,
    grid: u32,
    lo: u32,
    hi: u32,
) {
    if lo >= hi {
        return;
    }
    let mid = lo + (hi - lo) / 2;
    let tile = block + mid * grid;
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(
        window + RING + state.index() * TILE_BYTES,
        input.add(tile as usize * TILE_FLOATS) as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
    state.advance();
    produce_preorder(pipe, state, window, input, block, grid, lo, mid);
    produce_preorder(pipe, state, window, input, block, grid, mid + 1, hi);
}

/// A consumer's column over the next `left` stages, whatever tiles they hold.
unsafe fn drain(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, ring: *const f32, column: usize, left: u32) -> f32 {
    if left == 0 {
        return 0.0;
    }
    pipe.consumer_wait(state);
    let here = rows_sum(ring.add(state.index() as usize * TILE_FLOATS), column, 0, ROWS);
    pipe.consumer_release(state);
    state.advance();
    here + drain(pipe, state, ring, column, left - 1)
}

/// Pipeline whose producer copies the block's tiles in the pre-order of a bisection tree over
/// their numbers (for eight tiles: 4, 2, 1, 0, 3, 6, 5, 7); the consumers drain as many stages as
/// the block has tiles and never need to know which tile a stage holds.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_recur_preorder_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = if block < tiles { (tiles - block).div_ceil(grid) } else { 0 };

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        produce_preorder(&pipe, &mut state, window, input, block, grid, 0, mine);
        pipe.producer_tail(state);
    } else if tid >= WARP_SIZE {
        let column = (tid - WARP_SIZE) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let total = drain(&pipe, &mut state, ring, column, mine);
        *out.add(block as usize * ROW + column) = total;
    }
}

/// Pairwise sum, over the block's tile numbers `lo..hi`, of rows `first_row..first_row + 4` of
/// column `column`, read straight from global memory.
#[allow(clippy::too_many_arguments)]
unsafe fn pairwise_tiles(input: *const f32, block: u32, grid: u32, column: usize, first_row: usize, lo: u32, hi: u32) -> f32 {
    if lo >= hi {
        return 0.0;
    }
    if hi - lo == 1 {
        let tile = input.add((block + lo * grid) as usize * TILE_FLOATS);
        return rows_sum(tile, column, first_row, first_row + ROWS / 2);
    }
    let mid = lo + (hi - lo) / 2;
    pairwise_tiles(input, block, grid, column, first_row, lo, mid)
        + pairwise_tiles(input, block, grid, column, first_row, mid, hi)
}

/// Plain: thread `(w, c)` sums rows `4w..4w + 4` of column `c` over the block's tiles by pairwise
/// recursion from global memory; warp 1 hands its partials to warp 0 through shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_recur_pairwise_partials(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / ROW, tid % ROW);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = if block < tiles { (tiles - block).div_ceil(grid) } else { 0 };

    let partial = pairwise_tiles(input, block, grid, column, half * (ROWS / 2), 0, mine);
    let exchange = dynamic_shared_base::<f32>();
    if half == 1 {
        *exchange.add(column) = partial;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * ROW + column) = partial + *exchange.add(column);
    }
}

/// The consumer walk of `r49_recur_bad_base_case_past_end`: its base case tests `tile > tiles`.
unsafe fn consume_through(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    ring: *const f32,
    column: usize,
    tile: u32,
    tiles: u32,
    step: u32,
) -> f32 {
    if tile > tiles {
        return 0.0;
    }
    pipe.consumer_wait(state);
    let here = rows_sum(ring.add(state.index() as usize * TILE_FLOATS), column, 0, ROWS);
    pipe.consumer_release(state);
    state.advance();
    here + consume_through(pipe, state, ring, column, tile + step, tiles, step)
}

/// BROKEN: `r49_recur_tail_recursive_roles` whose consumer walk stops at `tile > tiles` instead
/// of `tile >= tiles`: where the walk lands exactly on `tiles` (block 0: 0, 8, …, 64) the
/// consumers wait for a ninth stage the producer never fills (a hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_recur_bad_base_case_past_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        produce(&pipe, &mut state, window, input, block, tiles, grid);
        pipe.producer_tail(state);
    } else if tid >= WARP_SIZE {
        let column = (tid - WARP_SIZE) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let total = consume_through(&pipe, &mut state, ring, column, block, tiles, grid);
        *out.add(block as usize * ROW + column) = total;
    }
}

/// The fold of `r49_recur_bad_fold_barrier_once`: no barrier between its levels.
unsafe fn fold_rows_unsynchronised(tile: *mut f32, rows: usize, tid: usize) {
    if rows == 1 {
        return;
    }
    let half = rows / 2;
    let mut e = tid;
    while e < half * ROW {
        *tile.add(e) += *tile.add(e + half * ROW);
        e += THREADS as usize;
    }
    fold_rows_unsynchronised(tile, half, tid);
}

/// BROKEN: `r49_recur_folding_rows` with one barrier after the whole fold instead of one per
/// level: at the last level warp 0 adds row 1, which warp 1 is still writing at the level before
/// (a race between the warps).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_recur_bad_fold_barrier_once(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tile = dynamic_shared_base::<f32>();

    let mut column = 0.0f32;
    let mut t = block;
    while t < tiles {
        *(tile.add(4 * tid) as *mut FourFloats) = *(input.add(t as usize * TILE_FLOATS + 4 * tid) as *const FourFloats);
        barrier();
        fold_rows_unsynchronised(tile, ROWS, tid);
        barrier();
        if tid < ROW {
            column += *tile.add(tid);
        }
        barrier();
        t += grid;
    }
    if tid < ROW {
        *out.add(block as usize * ROW + tid) = column;
    }
}

/// The consumer walk of `r49_recur_bad_release_on_unwind`: it releases each stage when the rest
/// of the walk has returned.
unsafe fn consume_then_release(
    pipe: &Pipeline<STAGES>,
    state: &mut PipelineState<STAGES>,
    ring: *const f32,
    column: usize,
    tile: u32,
    tiles: u32,
    step: u32,
) -> f32 {
    if tile >= tiles {
        return 0.0;
    }
    pipe.consumer_wait(state);
    let here = rows_sum(ring.add(state.index() as usize * TILE_FLOATS), column, 0, ROWS);
    let held = *state;
    state.advance();
    let rest = consume_then_release(pipe, state, ring, column, tile + step, tiles, step);
    pipe.consumer_release(&held);
    here + rest
}

/// BROKEN: the consumers release each stage on the way back up the recursion, after the rest of
/// the walk: with eight tiles and four stages they wait for the fifth tile while still holding
/// the four stages the producer needs to copy it (a hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_recur_bad_release_on_unwind(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        produce(&pipe, &mut state, window, input, block, tiles, grid);
        pipe.producer_tail(state);
    } else if tid >= WARP_SIZE {
        let column = (tid - WARP_SIZE) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let total = consume_then_release(&pipe, &mut state, ring, column, block, tiles, grid);
        *out.add(block as usize * ROW + column) = total;
    }
}

/// Rows `lo..=hi` of column `column`, both ends included, by bisection.
unsafe fn rows_sum_inclusive(tile: *const f32, column: usize, lo: usize, hi: usize) -> f32 {
    if lo == hi {
        return *tile.add(lo * ROW + column);
    }
    let mid = lo + (hi - lo) / 2;
    rows_sum_inclusive(tile, column, lo, mid) + rows_sum_inclusive(tile, column, mid + 1, hi)
}

/// BROKEN: a plain kernel keeping its tile at the top of the window (bytes 7168..8192) and summing
/// columns with the inclusive bisection `rows_sum_inclusive` called as `(0, ROWS)`, the exclusive
/// convention: it reads a ninth row, at byte 8192 and past (a fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_recur_bad_inclusive_bisection(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tile = dynamic_shared_base::<f32>().byte_add(SHARED_BYTES as usize - TILE_BYTES as usize);

    let mut column = 0.0f32;
    let mut t = block;
    while t < tiles {
        *(tile.add(4 * tid) as *mut FourFloats) = *(input.add(t as usize * TILE_FLOATS + 4 * tid) as *const FourFloats);
        barrier();
        if tid < ROW {
            column += rows_sum_inclusive(tile, tid, 0, ROWS);
        }
        barrier();
        t += grid;
    }
    if tid < ROW {
        *out.add(block as usize * ROW + tid) = column;
    }
}
