//! The launch contract and the tile layout, shared by every family of this round.

/// Threads per block (the launch contract).
pub const BLOCK: u32 = 64;
/// Bytes of dynamic shared memory the launch provides.
pub const SHARED_BYTES: u32 = 8192;
/// Threads per warp.
pub const WARP: u32 = 32;
/// Floats in a tile: 8 rows of 32 columns.
pub const TILE_FLOATS: usize = 256;
/// Bytes in a tile.
pub const TILE_BYTES: u32 = 1024;
/// Columns of a tile, and outputs per block.
pub const COLS: usize = 32;
/// Rows of a tile.
pub const ROWS: usize = 8;

/// How many of the `tiles` tiles block `block` of `grid` owns (`block`, `block + grid`, …).
#[inline(always)]
pub fn owned_tiles(tiles: u32, block: u32, grid: u32) -> u32 {
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}
