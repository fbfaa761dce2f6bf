//! Host-side reference implementations of the GPU kernels in `kernels/src`, in plain Rust.
//!
//! Each function here states what the kernel of the same name must compute, as the plain
//! definition of the operation, without mirroring the kernel's thread layout or its order of
//! operations. The GPU runner feeds the same inputs to a kernel and to its reference and
//! compares the outputs within a tolerance stated per kernel; the differences it allows come
//! from summation order and from the kernels' approximate `exp`/`rsqrt`.
//!
//! Where a kernel's output depends on its launch (one partial sum per block), the reference
//! takes the grid and block sizes as arguments.

mod elementwise;
mod linear_algebra;
mod reductions;
mod rows;
mod stencil;

pub use elementwise::{saxpy, silu, silu_mul, vector_add};
pub use linear_algebra::{gemm, gemv_f16, gemv_f16_batched};
pub use reductions::{PIPELINE_TILE_FLOATS, block_partial_sums, pipeline_partial_sums};
pub use rows::{rms_norm, softmax_rows};
pub use stencil::blur3_tiles;
