//! Constants and small helpers the round's kernels share. Nothing here touches a pipeline.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::*;

/// Floats in one tile.
pub const TILE_FLOATS: usize = 256;
/// Bytes in one tile.
pub const TILE_BYTES: u32 = 1024;
/// Output columns per block (and floats per row of a tile).
pub const COLUMNS: u32 = 32;
/// Rows of a tile: a column's elements are `c, c + 32, …, c + 224`.
pub const ROWS: usize = 8;
/// Threads in a block (the launch contract).
pub const BLOCK_THREADS: u32 = 64;
/// Threads that read and release each stage in the usual split (one warp).
pub const CONSUMERS: u32 = 32;

/// Global address of tile `tile` of the input, as the bulk copy wants it.
#[inline(always)]
pub unsafe fn tile_source(input: *const f32, tile: u32) -> *const u8 {
    input.add(tile as usize * TILE_FLOATS).cast()
}

/// Stores this block's sum for `column`.
#[inline(always)]
pub unsafe fn write_column(out: *mut f32, column: u32, value: f32) {
    *out.add((block_idx_x() * COLUMNS + column) as usize) = value;
}
