//! Programmatic dependent launch (sm_90): a kernel launched with the host's
//! programmatic-stream-serialization attribute may start while the kernel before it in the
//! stream is still finishing, so its launch overlaps the other's tail instead of following it.
//!
//! Such a kernel must call [`wait_for_prior_grid`] before it touches memory the previous kernel
//! may write or read: the wait returns once that grid has completed and its writes are visible.
//! [`allow_dependent_launch`] tells the hardware that the next kernel may be launched now (it
//! still waits at its own [`wait_for_prior_grid`]); without it the next kernel launches as this
//! one's blocks exit. In a launch without the attribute both are no-ops, so a kernel written
//! this way runs unchanged in an ordinary launch.

use core::arch::asm;

/// Waits until the grid this one depends on (the previous kernel in the stream, when launched
/// with programmatic dependent launch) has completed and its memory operations are visible.
/// Call it before the first read or write of global memory another kernel may touch.
#[inline(always)]
pub fn wait_for_prior_grid() {
    // SAFETY: `griddepcontrol.wait` only blocks; it is a no-op without a programmatic
    // dependency. No `nomem`: loads and stores must not move above it.
    unsafe { asm!("griddepcontrol.wait;", options(nostack)) }
}

/// Lets the next kernel in the stream launch (when it was launched with programmatic dependent
/// launch) before this grid completes; its own [`wait_for_prior_grid`] still waits for the end
/// of this grid, so where this is called changes only when the next grid's blocks arrive.
#[inline(always)]
pub fn allow_dependent_launch() {
    // SAFETY: `griddepcontrol.launch_dependents` is a scheduling hint with no memory effect.
    unsafe { asm!("griddepcontrol.launch_dependents;", options(nostack)) }
}
