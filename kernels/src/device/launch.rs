//! The kernel's launch contract, declared where the verifier can read it.
//!
//! `block_threads(N)` with a constant `N` states that the kernel is launched with
//! one-dimensional blocks of `N` threads. It emits no instruction; the compiler-pass plugin
//! reads the call (by its path) and, knowing the block, counts the threads each branch on
//! `thread_idx_x()` selects: exactly one producer thread per pipeline, and as many releasing
//! threads as `Pipeline::init` announced (`plugin/MODEL.md`, rules `producer-threads` and
//! `release-count`). A kernel without the declaration has its roles reported as not checked.
//! `dynamic_shared_bytes(N)` states the bytes of dynamic shared memory the launch provides, so
//! that the shared-memory layout is checked against them; a pipeline kernel without it is never
//! reported verified (the end of its layout is not checked).

/// Declares that the kernel runs in one-dimensional blocks of `threads` threads (a constant).
/// Free in the generated code.
#[inline(always)]
pub fn block_threads(threads: u32) {
    let _ = threads;
}

/// Declares that the kernel is launched with `bytes` bytes of dynamic shared memory (a
/// constant). Free in the generated code. The verifier then checks that every barrier area,
/// ring and stage the kernel addresses lies inside them (`plugin/MODEL.md`, rule
/// `shared-layout`); without it a pipeline kernel is unverified, since nothing bounds its layout.
#[inline(always)]
pub fn dynamic_shared_bytes(bytes: u32) {
    let _ = bytes;
}
