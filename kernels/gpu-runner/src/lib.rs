//! The GPU runner: runs every kernel of `kernels.ptx` on an NVIDIA GPU, checks each output
//! against its host reference (`kernels-reference`) within a tolerance stated per kernel, times
//! it with CUDA events around graphs of back-to-back launches ([`timing`]), and judges the time against the measured copy bandwidth and PyTorch.
//!
//! Data flow: [`cases`] lists, per kernel (one module per kernel family, behind
//! [`cases::Family`]), the correctness cases (edge sizes) and the timing cases (large shapes),
//! makes random inputs and computes the expected output and tolerance;
//! [`gpu`] uploads the inputs with poisoned guards, launches and times; [`compare`] finds the
//! worst error, unwritten elements and writes past the end; [`peer`] asks
//! `peer/peer_timings.py` to time PyTorch on the same shapes; [`report`] prints a table per
//! kernel and a summary against the targets. With `--compare OLD NEW`, every case runs
//! on both modules and [`module_compare`] judges them side by side (correctness of both, the
//! median of interleaved `new / old` time ratios, kernels more than 3 % slower).
//!
//! The wgmma GEMM's entries go through the same flow; [`gemm_wgmma`] holds their launch
//! contract and [`gemm_wgmma_gpu`] the device operands [`gpu`] uploads for them (bf16 A and B,
//! tensor maps, bias; a bf16 C read back widened). [`gemm_dispatch`] picks the entry (the tile)
//! a product of a given shape runs on. [`gemm_sweep`] is the shape sweep against cuBLAS that
//! the main run adds to the timing cases of the bf16-output entries at both tiles, with the
//! dispatcher's pick and the verifier's verdict on each wgmma entry; [`report`] prints its
//! table and minimum.
//!
//! Only [`gpu`] needs a GPU: everything else is plain Rust that CI tests without one.

pub mod cases;
pub mod compare;
pub mod gemm_dispatch;
pub mod gemm_sweep;
pub mod gemm_wgmma;
pub mod gemm_wgmma_gpu;
pub mod gpu;
pub mod module_compare;
pub mod peer;
pub mod ptx_entries;
pub mod report;
pub mod timing;
