//! Blind round 20 kernels: each entry computes the same thing under one launch contract, so that a
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
// Shared vocabulary of the round: a tile is 8 rows of 32 floats; consumers sum columns.
// ---------------------------------------------------------------------------------------------

use core::mem;
use core::ops::ControlFlow;
use device::launch::{block_threads, dynamic_shared_bytes};
use device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const RING: u32 = 1024;
const CONSUMERS: u32 = 32;

#[inline(always)]
unsafe fn src(input: *const f32, t: u32) -> *const u8 {
    unsafe { input.add((t * TILE) as usize) as *const u8 }
}

#[inline(always)]
fn owned(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b >= tiles { 0 } else { (tiles - b + g - 1) / g }
}

#[inline(always)]
unsafe fn ring_base() -> *mut f32 {
    unsafe { dynamic_shared_base::<f32>().add((RING / 4) as usize) }
}

// The kernels, by group (each file one group of the round).
mod plain_ring;
mod for_loops;
mod helpers;
mod structs;
mod enums_and_options;
mod generics_and_traits;
mod closures;
mod several_copies;
mod several_pipelines;
mod roles;
mod exits;
mod plain_shared;
mod shuffles_clusters_dependent;
mod views;
mod pointer_tables;
mod more_shapes;

// Helpers of one group used by another.
#[allow(unused_imports)]
use plain_ring::*;
#[allow(unused_imports)]
use for_loops::*;
#[allow(unused_imports)]
use helpers::*;
#[allow(unused_imports)]
use structs::*;
#[allow(unused_imports)]
use enums_and_options::*;
#[allow(unused_imports)]
use generics_and_traits::*;
#[allow(unused_imports)]
use closures::*;
#[allow(unused_imports)]
use several_copies::*;
#[allow(unused_imports)]
use several_pipelines::*;
#[allow(unused_imports)]
use roles::*;
#[allow(unused_imports)]
use exits::*;
#[allow(unused_imports)]
use plain_shared::*;
#[allow(unused_imports)]
use shuffles_clusters_dependent::*;
#[allow(unused_imports)]
use views::*;
#[allow(unused_imports)]
use pointer_tables::*;
#[allow(unused_imports)]
use more_shapes::*;
