//! Style: permuted traversal orders from space-filling curves and bit tricks. Where the order of
//! a sum does not matter to its value (beyond rounding), the code chooses orders for locality or
//! load balance: tiles copied in bit-reversed order, rows visited in Gray-code order or in a
//! boustrophedon (snake) order that alternates direction each tile, and threads mapped onto a
//! tile's (row, quad) grid by Morton (Z-order) de-interleaving of their index. Plain kernels keep
//! their tile at the top of the window.

use crate::device::geometry::{WARP_SIZE, block_idx_x, grid_dim_x, lane_id, thread_idx_x, warp_id};
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
/// Plain kernels: the tile at the top of the window.
const TOP_TILE: usize = SHARED_BYTES as usize - TILE_BYTES as usize;

fn owned_tiles(block: u32, grid: u32, tiles: u32) -> u32 {
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

/// The `bits`-bit reversal of `i` (`i < 2^bits`).
fn bit_reversed(i: u32, bits: u32) -> u32 {
    if bits == 0 { 0 } else { i.reverse_bits() >> (32 - bits) }
}

/// The reflected binary Gray code of `i`.
fn gray(i: usize) -> usize {
    i ^ (i >> 1)
}

/// The bits 0, 2 and 4 of `v`, packed (Morton de-interleaving of a 6-bit index).
fn even_bits(v: u32) -> u32 {
    (v & 1) | ((v >> 1) & 2) | ((v >> 2) & 4)
}

/// Pipeline whose producer copies the block's tiles in bit-reversed order of their numbers (for
/// eight tiles: 0, 4, 2, 6, 1, 5, 3, 7), over the next power of two and skipping numbers past the
/// block's count; the consumers take as many stages as the block owns tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_curve_bit_reversed_producer(input: *const f32, tiles: u32, out: *mut f32) {
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
    let mine = owned_tiles(block, grid, tiles);

    if tid == 0 {
        let bits = 32 - (mine.max(1) - 1).leading_zeros();
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..1u32 << bits {
            let k = bit_reversed(i, bits);
            if k >= mine {
                continue;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8,
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
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                sum += *stage.add(r * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// Plain: all 64 threads stage the tile (one quad each) at the top of the window; warp 0 sums its
/// columns visiting the rows in Gray-code order (0, 1, 3, 2, 6, 7, 5, 4).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_curve_gray_code_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tile = dynamic_shared_base::<f32>().byte_add(TOP_TILE);

    let mut sum = 0.0f32;
    let mut t = block;
    while t < tiles {
        *(tile.add(4 * tid) as *mut FourFloats) = *(input.add(t as usize * TILE_FLOATS + 4 * tid) as *const FourFloats);
        barrier();
        if tid < ROW {
            for i in 0..ROWS {
                sum += *tile.add(gray(i) * ROW + tid);
            }
        }
        barrier();
        t += grid;
    }
    if tid < ROW {
        *out.add(block as usize * ROW + tid) = sum;
    }
}

/// Pipeline whose consumers read each stage in boustrophedon order: rows 0..8 on one tile, 7..0
/// on the next, the direction flipping every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_curve_boustrophedon_rows(input: *const f32, tiles: u32, out: *mut f32) {
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
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sum = 0.0f32;
        let mut forward = true;
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for i in 0..ROWS {
                let r = if forward { i } else { ROWS - 1 - i };
                sum += *stage.add(r * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
            forward = !forward;
            tile += grid;
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// Plain: thread `t` stages the quad at row `even_bits(t >> 1)`, quad `even_bits(t)` of each
/// tile: a Z-order walk, so each group of four threads covers a 2 × 2 block of quads. Warp 0
/// then sums the columns of the staged tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_curve_morton_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let (row, quad) = (even_bits(tid >> 1) as usize, even_bits(tid) as usize);
    let slot = row * ROW + 4 * quad;
    let lane = tid as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tile = dynamic_shared_base::<f32>().byte_add(TOP_TILE);

    let mut sum = 0.0f32;
    let mut t = block;
    while t < tiles {
        *(tile.add(slot) as *mut FourFloats) = *(input.add(t as usize * TILE_FLOATS + slot) as *const FourFloats);
        barrier();
        if lane < ROW {
            for r in 0..ROWS {
                sum += *tile.add(r * ROW + lane);
            }
        }
        barrier();
        t += grid;
    }
    if lane < ROW {
        *out.add(block as usize * ROW + lane) = sum;
    }
}

/// BROKEN: `r49_curve_bit_reversed_producer` with the reversal shifted by one bit too few
/// (`>> (31 - bits)`): every reversed number is doubled, half of them land past the block's
/// count and are skipped, so four of the eight tiles are copied and the consumers wait for the
/// fifth forever (a hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_curve_bad_reversal_shift(input: *const f32, tiles: u32, out: *mut f32) {
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
    let mine = owned_tiles(block, grid, tiles);

    if tid == 0 {
        let bits = 32 - (mine.max(1) - 1).leading_zeros();
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..1u32 << bits {
            let k = if bits == 0 { 0 } else { i.reverse_bits() >> (31 - bits) };
            if k >= mine {
                continue;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8,
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
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                sum += *stage.add(r * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// BROKEN: `r49_curve_gray_code_rows` with the Gray code written `i ^ (i << 1)`: the row numbers
/// run 0, 3, 6, 5, 12, 15, 10, 9, and rows 9 to 15 of a tile at the top of the window lie past
/// byte 8192 (a fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_curve_bad_gray_shift_left(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tile = dynamic_shared_base::<f32>().byte_add(TOP_TILE);

    let mut sum = 0.0f32;
    let mut t = block;
    while t < tiles {
        *(tile.add(4 * tid) as *mut FourFloats) = *(input.add(t as usize * TILE_FLOATS + 4 * tid) as *const FourFloats);
        barrier();
        if tid < ROW {
            for i in 0..ROWS {
                sum += *tile.add((i ^ (i << 1)) * ROW + tid);
            }
        }
        barrier();
        t += grid;
    }
    if tid < ROW {
        *out.add(block as usize * ROW + tid) = sum;
    }
}

/// BROKEN: the boustrophedon consumer written as a loop of sweeps (a forward tile, then a backward
/// one) that makes its pipeline state inside the sweep: every sweep starts again at stage 0,
/// phase 0, so stages 2 and 3 are never released and the producer waits for them forever, while
/// the later sweeps reread stale stages (a hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_curve_bad_state_per_sweep(input: *const f32, tiles: u32, out: *mut f32) {
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
    let mine = owned_tiles(block, grid, tiles);

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sum = 0.0f32;
        let mut sweep = 0;
        while sweep < mine {
            let mut state = PipelineState::<STAGES>::new();
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                sum += *stage.add(r * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
            if sweep + 1 < mine {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for r in (0..ROWS).rev() {
                    sum += *stage.add(r * ROW + column);
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            sweep += 2;
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// BROKEN: `r49_curve_morton_staging` with the row decoded from `tid >> 2` instead of `tid >> 1`:
/// the row takes bits 2 and 4 and the quad bits 0, 2 and 4, so threads that differ only in bits
/// 1, 3 or 5 store to the same slot, rows 4 to 7 are never staged, and warp 0 sums stale floats
/// (threads colliding on slots; wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_curve_bad_morton_decode(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let (row, quad) = (even_bits(tid >> 2) as usize, even_bits(tid) as usize);
    let slot = row * ROW + 4 * quad;
    let lane = tid as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tile = dynamic_shared_base::<f32>().byte_add(TOP_TILE);

    let mut sum = 0.0f32;
    let mut t = block;
    while t < tiles {
        *(tile.add(slot) as *mut FourFloats) = *(input.add(t as usize * TILE_FLOATS + slot) as *const FourFloats);
        barrier();
        if lane < ROW {
            for r in 0..ROWS {
                sum += *tile.add(r * ROW + lane);
            }
        }
        barrier();
        t += grid;
    }
    if lane < ROW {
        *out.add(block as usize * ROW + lane) = sum;
    }
}
