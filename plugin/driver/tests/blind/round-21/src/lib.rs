//! Blind round 21 kernels: each entry computes the same thing under one launch contract, so that a
//! kernel that hangs, faults or computes a wrong sum is caught on the GPU.
//!
//! The contract (the `[contract]` table of `../expected.toml`):
//! - signature `(input: *const f32, tiles: u32, out: *mut f32)`, `#[unsafe(no_mangle)] pub unsafe
//!   extern "ptx-kernel" fn`; `input` holds `tiles * 256` floats (a tile is 256 floats, 1 KiB),
//!   16-byte aligned; `tiles` is 64 in the GPU run;
//! - one-dimensional launch: 64 threads per block, 8 blocks, 8192 bytes of dynamic shared memory;
//! - the result: for every block `b` and every `c < 32`, `out[b * 32 + c]` is the sum, over the
//!   tiles `t` with `t % gridDim.x == b`, of the tile's elements `c, c + 32, c + 64, …, c + 224`.
//!   Every one of the 256 outputs must be written (they start as NaN); how the work is split
//!   between the threads of a block is the kernel's choice.
//!
//! Written blind: the author read only `plugin/MODEL.md` and the device API.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, core_float_math)]
#![allow(clippy::missing_safety_doc)]

#[path = "../../../../../../kernels/src/device/mod.rs"]
#[allow(dead_code)]
pub mod device;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; nothing runs after it.
    unsafe { core::arch::nvptx::trap() }
}


// ---------------------------------------------------------------------------------------------
// Shared vocabulary of round 21 (below the prepared header).
// ---------------------------------------------------------------------------------------------

pub mod basic;
pub mod enums;
pub mod helpers;
pub mod iters;
pub mod launch;
pub mod multi;
pub mod plain;
pub mod roles;
pub mod structs;
pub mod traits;

use device::geometry::{block_idx_x, grid_dim_x};

/// Threads per block the launch uses.
pub const BLOCK_THREADS: u32 = 64;
/// Bytes of dynamic shared memory the launch provides.
pub const SHARED_BYTES: u32 = 8192;
/// Floats in one tile.
pub const TILE_FLOATS: usize = 256;
/// Bytes in one tile (one bulk copy).
pub const TILE_BYTES: u32 = 1024;
/// Columns of a tile (and outputs per block).
pub const COLS: usize = 32;
/// Rows of a tile.
pub const ROWS: usize = 8;
/// Threads that read stages in the usual split (one warp).
pub const CONSUMERS: u32 = 32;

/// Global source of tile `t`, as the byte pointer a bulk copy wants.
#[inline(always)]
pub unsafe fn tile_source(input: *const f32, t: u32) -> *const u8 {
    unsafe { input.add(t as usize * TILE_FLOATS) as *const u8 }
}

/// How many tiles this block owns (`t % gridDim.x == blockIdx.x`, `t < tiles`).
#[inline(always)]
pub fn owned_tiles(tiles: u32) -> u32 {
    let block = block_idx_x();
    let grid = grid_dim_x();
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

/// Sum of column `col` of a tile staged at `tile`.
#[inline(always)]
pub unsafe fn column_sum(tile: *const f32, col: usize) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += unsafe { *tile.add(row * COLS + col) };
    }
    sum
}

/// Writes this block's result for column `col`.
#[inline(always)]
pub unsafe fn store_column(out: *mut f32, col: usize, value: f32) {
    unsafe { *out.add(block_idx_x() as usize * COLS + col) = value };
}
