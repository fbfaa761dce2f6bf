//! A device helper in a second crate, so that `kernels-oxide` exercises a call across the crate
//! boundary under the cuda-oxide backend.
//!
//! The helper is an ordinary `#[inline(never)]` function, not a `#[device]` one: it uses no
//! thread intrinsic, and the backend collects every function reachable from a kernel, in any
//! `no_std` crate, from the MIR that `-Zalways-encode-mir` stores in this crate's rlib. It
//! receives a `*const f32` that, at the call in `kernels_oxide::shared_helper`, points into
//! dynamic shared memory declared with another element type (`u32`). The backend passes it a
//! generic (`addrspacecast`) pointer and keeps it out of line (`noinline`, the project's patch
//! `0002` on cuda-oxide): a `.func` in the PTX, whose loads `opt` turns into `ld.shared` once
//! it has propagated the one address every call passes (see that module).
#![no_std]

/// Three-point average of `tile` around `index`, clamped at both ends of the tile, times
/// `scale`: `(l + c + r) · (1/3) · scale`, added and multiplied left to right.
///
/// # Safety
/// `tile` points to `len` readable, initialised `f32`s (in any state space), `len > 0` and
/// `index < len`. The helper only reads.
#[inline(never)]
pub unsafe fn blur3_clamped(tile: *const f32, len: usize, index: usize, scale: f32) -> f32 {
    let left = if index == 0 { 0 } else { index - 1 };
    let right = if index + 1 == len { index } else { index + 1 };
    // SAFETY: the caller guarantees `index < len` readable elements; `left` and `right` are
    // clamped into `0..len`.
    let (l, c, r) = unsafe { (*tile.add(left), *tile.add(index), *tile.add(right)) };
    (l + c + r) * (1.0 / 3.0) * scale
}
