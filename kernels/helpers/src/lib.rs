//! Device helpers that live in a second crate, so that the kernels exercise a call across the
//! crate boundary.
//!
//! The one helper here receives a *generic* pointer that, at the call site in
//! `kernels::shared_helper`, points into dynamic shared memory. Because the helper is a separate,
//! non-inlined function in another crate, the compiler cannot see that the pointer is a shared
//! one: its loads are generic (`ld.f32`, not `ld.shared.f32`). That boundary is what the
//! compiler-pass plugin's pointer-provenance rule checks.
#![no_std]

/// Three-point average of `tile` around `index`, clamped at both ends of the tile, times `scale`.
///
/// # Safety
/// `tile` points to `len` readable, initialised `f32`s (in any state space), `len > 0` and
/// `index < len`. The helper only reads.
#[inline(never)]
pub unsafe fn blur3_clamped(tile: *const f32, len: usize, index: usize, scale: f32) -> f32 {
    let left = if index == 0 { 0 } else { index - 1 };
    let right = if index + 1 == len { index } else { index + 1 };
    // SAFETY: the caller guarantees `index < len` and `len` readable elements; `left` and
    // `right` are clamped into `0..len`.
    let (l, c, r) = unsafe { (*tile.add(left), *tile.add(index), *tile.add(right)) };
    (l + c + r) * (1.0 / 3.0) * scale
}
