//! The device API shared by every kernel: thread geometry, dynamic shared memory, barriers,
//! warp, block and cluster reductions, fast math, strided loops with batched loads, loops written out, rows held in registers,
//! the mbarrier pipeline protocol, programmatic dependent launch, and the launch contract a kernel declares for the verifier.
//!
//! Kernels call these functions instead of writing `asm!` themselves, so that the instructions a
//! kernel depends on live in one place and the compiler-pass plugin can recognise the calls that
//! carry meaning (barriers, the shared-memory base, the pipeline protocol) by their path.
//! Everything here is `#[inline(always)]` except where a call boundary is the point.

pub mod cluster;
pub mod dependent;
pub mod geometry;
pub mod launch;
pub mod math;
pub mod mma;
pub mod pipeline;
pub mod reduce;
pub mod row;
pub mod shared;
pub mod strided;
pub mod unrolled;
pub mod wgmma;

pub use geometry::*;
pub use shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};
