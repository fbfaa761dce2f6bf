//! Constants and small helpers shared by every round 18 module.
//!
//! A tile is 256 floats (8 rows of 32 columns, 1 KiB); block `b` owns the tiles
//! `b, b + gridDim.x, …` below `tiles` and writes the 32 column sums of them.

use crate::device::{block_idx_x, grid_dim_x};

/// Floats in one tile.
pub const TILE_FLOATS: usize = 256;
/// Bytes in one tile (one bulk copy).
pub const TILE_BYTES: u32 = 1024;
/// Columns of a tile: one output per column.
pub const COLS: usize = 32;
/// Rows of a tile.
pub const ROWS: usize = 8;
/// Threads of a block under the launch contract.
pub const THREADS: u32 = 64;
/// Dynamic shared memory of the launch, in bytes.
pub const WINDOW_BYTES: u32 = 8192;

/// Global address of tile `t`, as the byte pointer a bulk copy reads.
#[inline(always)]
pub fn tile_source(input: *const f32, t: u32) -> *const u8 {
    input.wrapping_add(t as usize * TILE_FLOATS) as *const u8
}

/// Global address of the first float of tile `t`.
#[inline(always)]
pub fn tile_floats(input: *const f32, t: u32) -> *const f32 {
    input.wrapping_add(t as usize * TILE_FLOATS)
}

/// Number of tiles this block owns.
#[inline(always)]
pub fn owned_tiles(tiles: u32) -> u32 {
    let first = block_idx_x();
    if first < tiles { (tiles - first).div_ceil(grid_dim_x()) } else { 0 }
}

/// The `k`-th tile this block owns.
#[inline(always)]
pub fn owned_tile(k: u32) -> u32 {
    block_idx_x() + k * grid_dim_x()
}

/// Writes this block's sum of column `column`.
///
/// # Safety
/// `out` holds `gridDim.x * 32` floats and `column < 32`.
#[inline(always)]
pub unsafe fn store_column(out: *mut f32, column: u32, value: f32) {
    unsafe { *out.add(block_idx_x() as usize * COLS + column as usize) = value };
}

/// Sum of column `column` of the tile at `tile` (global or shared memory).
///
/// # Safety
/// `tile` points to 256 readable floats and `column < 32`.
#[inline(always)]
pub unsafe fn column_sum(tile: *const f32, column: usize) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += unsafe { *tile.add(column + row * COLS) };
    }
    sum
}
