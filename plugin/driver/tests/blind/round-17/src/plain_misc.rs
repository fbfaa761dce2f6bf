//! Plain shared-memory kernels in other shapes: an enum phase machine, the device API's block
//! reduction, a transposed staging with padding, and macro-made batch kernels.

use crate::common::*;
use crate::device::launch;
use crate::device::reduce::block_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x, warp_id, lane_id};

#[derive(Clone, Copy)]
enum Phase {
    Stage(u32),
    Sum(u32),
    Finish,
}

/// The tile loop as a machine: stage a tile, sum it, move on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_enum_phases(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut phase = if block < tiles { Phase::Stage(block) } else { Phase::Finish };
    unsafe {
        loop {
            match phase {
                Phase::Stage(tile) => {
                    let source = input.add(tile as usize * TILE_FLOATS);
                    for k in 0..TILE_FLOATS / BLOCK as usize {
                        *staged.add(k * BLOCK as usize + tid) = *source.add(k * BLOCK as usize + tid);
                    }
                    barrier();
                    phase = Phase::Sum(tile);
                }
                Phase::Sum(tile) => {
                    if tid < COLS {
                        for row in 0..ROWS {
                            acc += *staged.add(row * COLS + tid);
                        }
                    }
                    barrier();
                    let next = tile + grid;
                    phase = if next < tiles { Phase::Stage(next) } else { Phase::Finish };
                }
                Phase::Finish => break,
            }
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// The phase machine, the barrier kept only where the tile is staged.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_enum_phase_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut phase = if block < tiles { Phase::Stage(block) } else { Phase::Finish };
    unsafe {
        loop {
            match phase {
                Phase::Stage(tile) => {
                    let source = input.add(tile as usize * TILE_FLOATS);
                    for k in 0..TILE_FLOATS / BLOCK as usize {
                        *staged.add(k * BLOCK as usize + tid) = *source.add(k * BLOCK as usize + tid);
                    }
                    barrier();
                    phase = Phase::Sum(tile);
                }
                Phase::Sum(tile) => {
                    if tid < COLS {
                        for row in 0..ROWS {
                            acc += *staged.add(row * COLS + tid);
                        }
                    }
                    let next = tile + grid;
                    phase = if next < tiles { Phase::Stage(next) } else { Phase::Finish };
                }
                Phase::Finish => break,
            }
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// One `block_sum` per column: thread `t` holds element `t` of the column's `8 · tiles`
/// (tile-major, then row), more in steps of 64 when the block owns more than eight tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_block_sum_columns(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid) as usize;
    let scratch = dynamic_shared_base::<f32>();
    for column in 0..COLS {
        let mut value = 0.0f32;
        let mut i = tid;
        while i < count * ROWS {
            let (k, row) = (i / ROWS, i % ROWS);
            let tile = block as usize + k * grid as usize;
            value += unsafe { *input.add(tile * TILE_FLOATS + row * COLS + column) };
            i += BLOCK as usize;
        }
        let total = block_sum(value, scratch);
        if tid == 0 {
            unsafe { *out.add(block as usize * COLS + column) = total };
        }
    }
}

/// Warp 0 alone sums the columns: each lane takes every 32nd element of a column, and the
/// lanes' values are reduced with `block_sum`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_block_sum_one_warp(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let lane = lane_id() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid) as usize;
    let scratch = dynamic_shared_base::<f32>();
    if warp_id() == 0 {
        for column in 0..COLS {
            let mut value = 0.0f32;
            let mut i = lane;
            while i < count * ROWS {
                let (k, row) = (i / ROWS, i % ROWS);
                let tile = block as usize + k * grid as usize;
                value += unsafe { *input.add(tile * TILE_FLOATS + row * COLS + column) };
                i += WARP as usize;
            }
            let total = block_sum(value, scratch);
            if lane == 0 {
                unsafe { *out.add(block as usize * COLS + column) = total };
            }
        }
    }
}

/// Padded transposed row stride: column `c` of a tile sits at `c * 9 .. c * 9 + 8`.
const TRANSPOSED_STRIDE: usize = ROWS + 1;

/// Each tile staged transposed (column-major, padded), so that thread `c` sums 8 consecutive
/// floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_transpose_padded(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            let source = input.add(tile as usize * TILE_FLOATS);
            let mut i = tid;
            while i < TILE_FLOATS {
                *staged.add((i % COLS) * TRANSPOSED_STRIDE + i / COLS) = *source.add(i);
                i += BLOCK as usize;
            }
            barrier();
            if tid < COLS {
                let column = staged.add(tid * TRANSPOSED_STRIDE);
                for row in 0..ROWS {
                    acc += *column.add(row);
                }
            }
            barrier();
            tile += grid;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// The transposed staging, each thread reading its column as soon as it has stored.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_transpose_early_read(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            let source = input.add(tile as usize * TILE_FLOATS);
            let mut i = tid;
            while i < TILE_FLOATS {
                *staged.add((i % COLS) * TRANSPOSED_STRIDE + i / COLS) = *source.add(i);
                i += BLOCK as usize;
            }
            if tid < COLS {
                let column = staged.add(tid * TRANSPOSED_STRIDE);
                for row in 0..ROWS {
                    acc += *column.add(row);
                }
            }
            barrier();
            tile += grid;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// A kernel staging `$batch` tiles per round behind a 128-byte area for warp 1's sums; each
/// warp sums half of the rows of every staged tile.
macro_rules! batch_kernel {
    ($(#[$meta:meta])* $name:ident, batch = $batch:expr) => {
        $(#[$meta])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            const BATCH: u32 = $batch;
            const PARTIAL_FLOATS: usize = COLS;
            launch::block_threads(BLOCK);
            launch::dynamic_shared_bytes(SHARED_BYTES);
            let tid = thread_idx_x() as usize;
            let block = block_idx_x();
            let grid = grid_dim_x();
            let column = tid % COLS;
            let half = tid / COLS;
            let count = owned_tiles(tiles, block, grid);
            let partials = dynamic_shared_base::<f32>();
            let staged = partials.wrapping_add(PARTIAL_FLOATS);
            let mut acc = 0.0f32;
            let mut first = 0;
            unsafe {
                while first < count {
                    let n = BATCH.min(count - first);
                    for j in 0..n as usize {
                        let source = input.add((block + (first + j as u32) * grid) as usize * TILE_FLOATS);
                        for i in (tid..TILE_FLOATS).step_by(BLOCK as usize) {
                            *staged.add(j * TILE_FLOATS + i) = *source.add(i);
                        }
                    }
                    barrier();
                    for j in 0..n as usize {
                        for row in half * ROWS / 2..(half + 1) * ROWS / 2 {
                            acc += *staged.add(j * TILE_FLOATS + row * COLS + column);
                        }
                    }
                    barrier();
                    first += n;
                }
                if half == 1 {
                    *partials.add(column) = acc;
                }
                barrier();
                if half == 0 {
                    *out.add(block as usize * COLS + column) = acc + *partials.add(column);
                }
            }
        }
    };
}

batch_kernel!(
    /// Three tiles per round.
    r17_plain_macro_b3, batch = 3
);
batch_kernel!(
    /// Eight tiles per round: one round for the contract's eight tiles per block.
    r17_plain_macro_b8, batch = 8
);
