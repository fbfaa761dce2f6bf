//! GPU kernels of a Rust inference engine, built for `nvptx64-nvidia-cuda` (sm_90, PTX ISA 8.6)
//! into one `kernels.ptx`.
//!
//! Data flow: `cargo xtask kernels` (or `just kernels`) builds this crate with `core` from
//! source; the bitcode of this crate and of `kernel-helpers` is linked into
//! `kernels/target/nvptx64-nvidia-cuda/release/kernels.ptx`. Every `extern "ptx-kernel"` function
//! below becomes a `.entry` there; the regression suite (`regress/`) snapshots each entry, and
//! `kernels/reference` holds the host-side definition of what each one must compute.
//!
//! Each kernel documents its launch contract (grid, block, dynamic shared memory) beside its
//! parameters. Kernels take raw pointers to device memory and element counts; they never read
//! or write outside `0..count` of a buffer.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, core_float_math, register_tool)]
// `#[kernel_verifier::unverified(reason = "…")]`: a kernel that accepts an unproven scope
// (plugin/MODEL.md, "Verdicts").
#![register_tool(kernel_verifier)]

pub mod device;

mod elementwise;
mod gemm;
mod gemm_decode;
mod gemm_wgmma;
mod gemv;
mod pipeline_sum;
mod reduction;
mod rms_norm;
mod shared_helper;
mod softmax;

/// A panic on the device (an out-of-range index in debug arithmetic, say) traps the kernel,
/// which the host sees as a launch failure.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; nothing runs after it.
    unsafe { core::arch::nvptx::trap() }
}
