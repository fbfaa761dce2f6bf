//! The kernel's launch contract, declared where the verifier can read it.
//!
//! `block_threads(N)` with a constant `N` states that the kernel is launched with
//! one-dimensional blocks of `N` threads. It emits no instruction; the compiler-pass plugin
//! reads the call (by its path) and, knowing the block, counts the threads each branch on
//! `thread_idx_x()` selects: exactly one producer thread per pipeline, and as many releasing
//! threads as `Pipeline::init` announced (`plugin/MODEL.md`, rules `producer-threads` and
//! `release-count`). A kernel without the declaration has its roles reported as not checked.
//! `block_threads_2d(X, Y)` declares a two-dimensional block of `X × Y` threads instead.
//! `block_threads_at_most(N)` states only a bound, for a kernel that takes several block sizes:
//! the verifier's race check then enumerates the threads below `N` instead of the hardware's
//! 1024 (fewer threads to compare, and a slot such as `s[tid % N]` is one thread's), while the
//! sizes stay unknown, so roles are not counted. `block_threads_power_of_two(N)` states that the
//! block is any power of two up to `N`: the race check is run once for each of those sizes.
//! `dynamic_shared_bytes(N)` states the bytes of dynamic shared memory the launch provides, so
//! that the shared-memory layout is checked against them; a pipeline kernel without it is never
//! reported verified (the end of its layout is not checked).

/// Declares that the kernel runs in one-dimensional blocks of `threads` threads (a constant).
/// Free in the generated code.
#[inline(always)]
pub fn block_threads(threads: u32) {
    let _ = threads;
}

/// Declares that the kernel runs in two-dimensional blocks of `x × y` threads (constants, at most
/// 1024 threads in all): `blockDim = (x, y, 1)`. Free in the generated code. The verifier then
/// enumerates the block's threads by their linear index `threadIdx.x + x · threadIdx.y` (as the
/// hardware forms warps), so `thread_idx_y()` is known per thread; without a declaration a kernel
/// reading it is not judged by the race check.
#[inline(always)]
pub fn block_threads_2d(x: u32, y: u32) {
    let _ = (x, y);
}

/// Declares that the kernel runs in one-dimensional blocks of at most `threads` threads (a
/// constant, at most 1024), of a size the kernel does not fix. Free in the generated code: the
/// launch is held to it by the host (the GPU runner's launch contracts refuse a larger block).
/// The verifier enumerates the threads `0..threads` and leaves `block_dim_x()` unknown; a launch
/// with a larger block is outside the model, as any launch outside the declared contract.
#[inline(always)]
pub fn block_threads_at_most(threads: u32) {
    let _ = threads;
}

/// Declares that the kernel runs in one-dimensional blocks whose size is a power of two, at
/// most `threads` (a constant power of two, at most 1024). Free in the generated code: the launch
/// is held to it by the host. The verifier's race check judges each of those sizes on its own,
/// `block_dim_x()` a constant in each (a tree reduction whose first stride is half the block has
/// one stride a level); the other rules read it as the bound `block_threads_at_most(threads)`.
#[inline(always)]
pub fn block_threads_power_of_two(threads: u32) {
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
