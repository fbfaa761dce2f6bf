//! A dynamic-shared-memory pointer crossing an ordinary call, in a local helper and in a helper
//! of another crate.
//!
//! Both kernels stage a tile of the input in dynamic shared memory and let a non-inlined helper
//! read it through a plain `*const f32`. Inside the helper the pointer is *generic*: the
//! compiler no longer knows it points into shared memory, so the helper's loads are generic
//! (`ld.f32`), and the call itself is the address-space adaptation (shared → generic, same
//! pointee `f32`, same mutability, raw pointer on both sides) that the plugin's
//! pointer-provenance rule accepts.
//!
//! The two kernels are spelled out rather than sharing a body generic over the helper: each
//! must show its call to the helper as a direct call in MIR, where the plugin looks for it.

use crate::device::{barrier, block_dim_x, dynamic_shared_base, global_thread_index, thread_idx_x};

/// Three-point average of `tile` around `index`, clamped at the tile's ends, times `scale`.
///
/// # Safety
/// `tile` points to `len > 0` readable floats (here: dynamic shared memory, reached through
/// its generic address), `index < len`. Reads only.
#[inline(never)]
unsafe fn blur3_clamped_local(tile: *const f32, len: usize, index: usize, scale: f32) -> f32 {
    let left = index.saturating_sub(1);
    let right = if index + 1 == len { index } else { index + 1 };
    // SAFETY: the contract above; `left` and `right` are clamped into `0..len`.
    let (l, c, r) = unsafe { (*tile.add(left), *tile.add(index), *tile.add(right)) };
    (l + c + r) * (1.0 / 3.0) * scale
}

/// Loads this block's tile of `input` into dynamic shared memory and returns the tile's
/// generic pointer, its length and this thread's index in it (`None` for threads past `n`).
#[inline(always)]
fn stage_tile(input: *const f32, n: usize) -> (*mut f32, usize, Option<usize>) {
    let tile = dynamic_shared_base::<f32>();
    let block = block_dim_x() as usize;
    let first = global_thread_index() - thread_idx_x() as usize;
    let len = if first >= n { 0 } else { (n - first).min(block) };
    let index = thread_idx_x() as usize;
    let i = global_thread_index();
    if i < n {
        // SAFETY: `i < n`; `index < blockDim.x`, the tile's size in floats.
        unsafe { *tile.add(index) = *input.add(i) };
    }
    barrier();
    (tile, len, if i < n { Some(index) } else { None })
}

/// `output[i]` = the clamped three-point average of `input` around `i` within `i`'s tile of
/// `blockDim.x` elements, times `scale`; computed by a **local** `#[inline(never)]` helper
/// that receives the dynamic-shared-memory tile as an ordinary `*const f32`.
///
/// Special values: IEEE arithmetic in the reference's order, `(l + c + r) · (1/3) · scale`, so
/// an infinity or NaN reaches its neighbours' outputs (`inf + -inf` is NaN), and sums beyond
/// `f32::MAX` overflow to ±inf before the division by 3. Any `n` and `f32`-aligned pointers.
///
/// Launch: one-dimensional, one tile per block, `gridDim.x * blockDim.x >= n`; dynamic shared
/// memory `blockDim.x * 4` bytes.
///
/// # Safety
/// `input` and `output` point to `n` floats of device memory and do not overlap.
#[kernel_verifier::unverified(
    reason = "the helper reads its neighbours at an index that arrives through an `Option` and is clamped by `saturating_sub` and a runtime length, which the race check does not evaluate per thread, so those reads are not shown inside the window: not proven by the current model"
)]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shared_memory_helper_local(
    input: *const f32,
    output: *mut f32,
    n: usize,
    scale: f32,
) {
    let (tile, len, index) = stage_tile(input, n);
    if let Some(index) = index {
        // SAFETY: the tile holds `len` staged floats and `index < len`.
        let value = unsafe { blur3_clamped_local(tile, len, index, scale) };
        // SAFETY: `index` is `Some` only for threads with a global index below `n`.
        unsafe { *output.add(global_thread_index()) = value };
    }
}

/// The same computation as [`shared_memory_helper_local`], but the helper that receives the
/// shared tile is `kernel_helpers::blur3_clamped`, `#[inline(never)]` in **another crate**.
///
/// Launch and special values: as [`shared_memory_helper_local`].
///
/// # Safety
/// As [`shared_memory_helper_local`].
#[kernel_verifier::unverified(
    reason = "the helper reads its neighbours at an index that arrives through an `Option` and is clamped by `saturating_sub` and a runtime length, which the race check does not evaluate per thread, so those reads are not shown inside the window: not proven by the current model"
)]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shared_memory_helper_cross_crate(
    input: *const f32,
    output: *mut f32,
    n: usize,
    scale: f32,
) {
    let (tile, len, index) = stage_tile(input, n);
    if let Some(index) = index {
        // SAFETY: as in `shared_memory_helper_local`.
        let value = unsafe { kernel_helpers::blur3_clamped(tile, len, index, scale) };
        // SAFETY: as in `shared_memory_helper_local`.
        unsafe { *output.add(global_thread_index()) = value };
    }
}
