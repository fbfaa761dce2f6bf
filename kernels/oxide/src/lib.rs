//! The project's GPU kernels written for NVlabs' cuda-oxide backend (`vendor/cuda-oxide`), built
//! into one `kernels_oxide.ptx` for sm_90a: vector add, RMSNorm, row softmax, the bulk-copy +
//! mbarrier pipeline sum, and the dynamic-shared-memory helper (local and cross-crate).
//!
//! What it is for: each kernel here computes what the default backend's kernel of the same
//! name in `kernels/` computes (rustc's nvptx target, `kernels.ptx`), with the same launch
//! contract and the same parameter list (raw pointers, counts, scalars), so one host harness
//! launches either backend's entry alike and compares them.
//!
//! Build (what the project's xtask runs; from a clean `kernels/oxide/target`, about 10 s),
//! from the repository root:
//!
//! ```text
//! env -u CARGO -u RUSTC -u RUSTUP_TOOLCHAIN \
//!   RUSTFLAGS="-Zcodegen-backend=<librustc_codegen_cuda.so> -Copt-level=3 -Cdebug-assertions=off \
//!              -Zmir-enable-passes=-JumpThreading -Zalways-encode-mir -Csymbol-mangling-version=v0" \
//!   CUDA_OXIDE_PTX_DIR=$PWD/kernels/oxide/target/ptx CUDA_OXIDE_TARGET=sm_90a CUDA_OXIDE_NO_FMA=1 \
//!   cargo +nightly-2026-04-03 build --release --manifest-path kernels/oxide/Cargo.toml \
//!   --target x86_64-unknown-linux-gnu
//! ```
//!
//! - From the repository root, because cargo reads `.cargo/config.toml` from the current
//!   directory up: inside `kernels/` it also reads `kernels/.cargo/config.toml`, whose
//!   `unstable.build-std = ["core"]` then builds `core` from source through the backend
//!   (`cd kernels/oxide && cargo … build --release` works too, about 40 s, and needs the
//!   standard library's dependencies in the cargo cache). `kernels/oxide/.cargo/config.toml`
//!   only sets the host target over that file's nvptx one, for that case.
//! - `--target` (the host triple) keeps `RUSTFLAGS`, hence the backend, off the proc macros
//!   (`cuda-macros`, `syn`), which then build as ordinary host code (78 s without it).
//! - The backend (the vendored snapshot built on `nightly-2026-04-03`, which
//!   `rust-toolchain.toml` pins) hands host code to rustc's LLVM backend; from each `#[kernel]`
//!   it walks the MIR call graph (this crate, `kernels-oxide-helpers`, `cuda-device`, `core`),
//!   lowers it through pliron to LLVM IR (`kernels_oxide.ll`), runs `opt -O2` and `llc` from
//!   the toolchain's llvm-tools (LLVM 22), and writes `$CUDA_OXIDE_PTX_DIR/kernels_oxide.ptx`
//!   (PTX ISA 8.0); the PTX is also embedded in the rlib, which nothing here uses.
//! - `CUDA_OXIDE_TARGET=sm_90a` fixes the target (bulk copies, mbarrier transaction counts,
//!   clusters and `griddepcontrol` need sm_90). `CUDA_OXIDE_NO_FMA=1` stops `llc` from
//!   contracting `a * b + c` into `fma` (its default, as nvcc's `--fmad=true`): rustc's nvptx
//!   backend never contracts, and these kernels must round as the default backend's do.
//! - Every PTX file must assemble with the pinned `ptxas -arch=sm_90a`.
//!
//! Names: `#[kernel]` renames the function to a reserved `cuda_oxide_codegen_v1_…_<name>`
//! symbol for the collector, and the backend strips that prefix again, so the PTX `.entry` of
//! a non-generic kernel is its Rust name (`vector_add`, `rms_norm`, `softmax_rows`,
//! `pipeline_sum`, `shared_memory_helper_local`, `shared_memory_helper_cross_crate`: the
//! default backend's names, with the same parameter lists). Generic kernels would get a
//! `_TID_<hash>` suffix and need the host crate, so there are none. Each kernel's dynamic
//! shared memory is its own `.extern .shared .align 16 .b8 __dynamic_smem_<kernel>[]`. Other
//! functions are named `<crate>__<module>__<name>` (v0-mangled when generic); `opt` inlines
//! them all but the two `#[inline(never)]` helpers of `shared_helper`, which stay `.func`s
//! (upstream emitted no `noinline`; this project's patch `0002` does).
//!
//! Data flow: the host allocates device buffers and launches an entry with raw device
//! pointers and element counts (`usize` is `.u64`, `u32` `.u32`, `f32` `.f32`); a kernel reads
//! only `0..count` of its inputs and writes only `0..count` of its outputs; staging, the
//! block reductions' scratch, the pipeline's ring and barriers live in the launch's dynamic
//! shared memory, whose size each kernel documents.
#![no_std]
// The project's verifier (`kernels-rustc`, run by `cargo xtask kernels-oxide` in a check build
// beside cuda-oxide's) reads `#[kernel_verifier::unverified(reason = "…")]`: a kernel that
// accepts an unproven scope says why. The tool attribute is nothing to cuda-oxide's backend.
#![feature(register_tool)]
#![register_tool(kernel_verifier)]

mod device;
mod elementwise;
mod pipeline_sum;
mod rms_norm;
mod shared_helper;
mod softmax;
