//! Blind round 52 kernels: each entry computes the same thing under one launch contract, so that a
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
#![allow(unsafe_op_in_unsafe_fn)]

#[path = "../../../../../../kernels/src/device/mod.rs"]
#[allow(dead_code)]
pub mod device;

// One `pub mod <style>;` line per module of this round goes here.
pub mod linux;
pub mod haskell;
pub mod unreal;
pub mod aten;
pub mod ruby;
pub mod spring;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // A failed bounds check stops the launch.
    unsafe { core::arch::nvptx::trap() }
}
