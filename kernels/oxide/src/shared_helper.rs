//! A dynamic-shared-memory pointer crossing an ordinary call, to a helper in this crate and to
//! one in `kernels-oxide-helpers`, with a change of element type at the call.
//!
//! Both kernels stage a tile of the input in dynamic shared memory as `u32` (each float stored
//! as its bits, through a cast of the byte tile `DynamicSharedArray::<u8>`) and pass the tile
//! to an `#[inline(never)]` helper as a plain `*const f32`. cuda-oxide types
//! `DynamicSharedArray::get` as an `addrspace(3)` (shared) pointer; the helper's parameter is
//! generic, so the call is an address-space adaptation (shared → generic) together with a
//! pointee change (`u32` → `f32`).
//!
//! How the backend lowers it: the call site passes an `addrspacecast` of
//! `@__dynamic_smem_<function>` to a generic pointer, and the helper is a separate `noinline`
//! function (patch `0002` of `compiler-patches/cuda-oxide`: upstream dropped `#[inline(never)]`
//! and `opt -O2` inlined the helper into the kernel). In the PTX each helper is a `.func`
//! reached by `call.uni`, here and across the crate boundary alike. Its tile parameter is
//! gone: every call passes the same address, so `opt`'s interprocedural constant propagation
//! moves the (internal) helper onto the shared symbol itself, and its three loads are
//! `ld.shared.b32`. The symbol is named after `stage_tile`, the function that calls
//! `DynamicSharedArray::get`; every `.extern .shared` array of unknown size starts at the
//! block's dynamic shared memory, so it is the kernel's tile all the same. On the H200 the
//! call costs 10 % against the inlined helper (`kernels/gpu-runner/results/
//! h200-cuda-oxide-inline-never-before-after.txt`), which is what `#[inline(never)]` asks.
//!
//! `stage_tile` returns the tile inside a tuple beside its length: upstream refuses that in
//! its own verifier (the tuple's field is a generic pointer, the value an `addrspace(3)` one;
//! patch `0003` casts it as struct fields already are).
//!
//! The two kernels are spelled out rather than sharing a body generic over the helper, so
//! that each makes its call directly.

use cuda_device::{DynamicSharedArray, kernel};

use crate::device::{barrier, block_dim_x, global_thread_index, thread_x};

/// Three-point average of `tile` around `index`, clamped at the tile's ends, times `scale`:
/// `(l + c + r) · (1/3) · scale`, left to right.
///
/// # Safety
/// `tile` points to `len > 0` readable floats (here: dynamic shared memory, reached through a
/// generic pointer), `index < len`. Reads only.
#[inline(never)]
unsafe fn blur3_clamped_local(tile: *const f32, len: usize, index: usize, scale: f32) -> f32 {
    let left = index.saturating_sub(1);
    let right = if index + 1 == len { index } else { index + 1 };
    // SAFETY: the contract above; `left` and `right` are clamped into `0..len`.
    let (l, c, r) = unsafe { (*tile.add(left), *tile.add(index), *tile.add(right)) };
    (l + c + r) * (1.0 / 3.0) * scale
}

/// Takes this block's tile of dynamic shared memory, stores the block's share of `input` into
/// it as `u32` bits, waits for the block, and returns the tile (as bytes), its length and this
/// thread's index in it (`None` for threads past `n`).
///
/// The tile is taken as bytes and given each element type by a cast (`u32` for the stores
/// here, `f32` at the helper's call): the project's verifier reads a byte view as the type a
/// cast gives it, while a `u32` view handed to an `f32` parameter would be a helper reading
/// shared memory as another type (rule `pointer-adaptation`, `plugin/MODEL.md`). The backend
/// lowers both forms alike (every cast is of the same `addrspace(3)` address).
#[inline(always)]
fn stage_tile(input: *const f32, n: usize) -> (*mut u8, usize, Option<usize>) {
    let tile = DynamicSharedArray::<u8>::get();
    let bits = tile as *mut u32;
    let block = block_dim_x() as usize;
    let index = thread_x() as usize;
    let i = global_thread_index();
    let first = i - index;
    let len = if first >= n { 0 } else { (n - first).min(block) };
    if i < n {
        // SAFETY: `i < n`; `index < blockDim.x`, the tile's size in elements.
        unsafe { *bits.add(index) = (*input.add(i)).to_bits() };
    }
    barrier();
    (tile, len, if i < n { Some(index) } else { None })
}

/// `output[i]` = the clamped three-point average of `input` around `i` within `i`'s tile of
/// `blockDim.x` elements, times `scale`; computed by a **local** `#[inline(never)]` helper that
/// receives the `u32` dynamic-shared tile as a `*const f32`: the default backend's
/// `shared_memory_helper_local`.
///
/// Special values: IEEE arithmetic in the order `(l + c + r) · (1/3) · scale`, so an infinity
/// or NaN reaches its neighbours' outputs, and sums beyond `f32::MAX` overflow to ±inf before
/// the division by 3. Any `n` and `f32`-aligned pointers.
///
/// Launch: one-dimensional, one tile per block, `gridDim.x * blockDim.x >= n`; dynamic shared
/// memory `blockDim.x * 4` bytes. PTX: `.entry shared_memory_helper_local(.param .u64 input,
/// .param .u64 output, .param .u64 n, .param .f32 scale)`.
///
/// # Safety
/// `input` and `output` point to `n` floats of device memory and do not overlap.
#[kernel]
#[kernel_verifier::unverified(
    reason = "the helper reads its neighbours at an index that arrives through an `Option` and is clamped by `saturating_sub` and a runtime length, which the race check does not evaluate per thread, so those reads are not shown inside the window: not proven by the current model"
)]
pub unsafe fn shared_memory_helper_local(input: *const f32, output: *mut f32, n: usize, scale: f32) {
    let (tile, len, index) = stage_tile(input, n);
    if let Some(index) = index {
        // SAFETY: the tile holds `len` staged floats (as their bits) and `index < len`.
        let value = unsafe { blur3_clamped_local(tile as *const f32, len, index, scale) };
        // SAFETY: `index` is `Some` only for threads with a global index below `n`.
        unsafe { *output.add(global_thread_index()) = value };
    }
}

/// The same computation as [`shared_memory_helper_local`], but the helper that receives the
/// tile is `kernels_oxide_helpers::blur3_clamped`, `#[inline(never)]` in **another crate**.
///
/// Launch and special values: as [`shared_memory_helper_local`]. PTX:
/// `.entry shared_memory_helper_cross_crate(.param .u64 input, .param .u64 output,
/// .param .u64 n, .param .f32 scale)`.
///
/// # Safety
/// As [`shared_memory_helper_local`].
#[kernel]
#[kernel_verifier::unverified(
    reason = "the helper reads its neighbours at an index that arrives through an `Option` and is clamped by a runtime length, which the race check does not evaluate per thread, so those reads are not shown inside the window: not proven by the current model"
)]
pub unsafe fn shared_memory_helper_cross_crate(input: *const f32, output: *mut f32, n: usize, scale: f32) {
    let (tile, len, index) = stage_tile(input, n);
    if let Some(index) = index {
        // SAFETY: as in `shared_memory_helper_local`.
        let value = unsafe { kernels_oxide_helpers::blur3_clamped(tile as *const f32, len, index, scale) };
        // SAFETY: as in `shared_memory_helper_local`.
        unsafe { *output.add(global_thread_index()) = value };
    }
}
