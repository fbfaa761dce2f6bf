//! Shared-memory pointers crossing calls, and the core pointer methods.
//!
//! These kernels use no pipeline: every thread of the block stages 4 floats of each of the
//! block's tiles into shared memory with plain stores, a block barrier follows, and each
//! consumer sums its elements through a helper that receives the shared tile in some shape. A
//! helper that reads the `f32` tile as `u32` adds bit patterns: the result is wrong.

use crate::device::{WARP_SIZE, barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};
use crate::{BLOCK_THREADS, CONSUMERS, TILE_FLOATS, is_consumer, write_partial};

/// A staging kernel: `$sum` is evaluated by each consumer with the shared tile `$tile`
/// (`*mut f32`) loaded and `$tid` its thread index; it must evaluate to the consumer's sum of
/// the tile.
macro_rules! staged_kernel {
    ($(#[$doc:meta])* fn $name:ident($tile:ident, $tid:ident) $sum:block) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            let $tid = thread_idx_x();
            let $tile = dynamic_shared_base::<f32>();
            let mut partial = 0.0f32;
            let mut tile_index = block_idx_x();
            while tile_index < tiles {
                let mut i = $tid as usize;
                while i < TILE_FLOATS as usize {
                    // SAFETY: `i < TILE_FLOATS`; `input` holds `tiles * TILE_FLOATS` floats.
                    unsafe { *$tile.add(i) = *input.add((tile_index * TILE_FLOATS) as usize + i) };
                    i += BLOCK_THREADS as usize;
                }
                barrier();
                if is_consumer($tid) {
                    partial += $sum;
                }
                barrier();
                tile_index += grid_dim_x();
            }
            write_partial(out, $tid, partial);
        }
    };
}

/// The consumer's first element and stride in a tile.
#[inline(always)]
fn first(tid: u32) -> usize {
    (tid - WARP_SIZE) as usize
}

#[inline(never)]
fn sum_f32(tile: *const f32, tid: u32) -> f32 {
    let mut sum = 0.0;
    let mut k = first(tid);
    while k < TILE_FLOATS as usize {
        // SAFETY: inside the tile.
        sum += unsafe { *tile.add(k) };
        k += CONSUMERS as usize;
    }
    sum
}

#[inline(never)]
fn sum_u32(tile: *const u32, tid: u32) -> f32 {
    let mut sum = 0u32;
    let mut k = first(tid);
    while k < TILE_FLOATS as usize {
        // SAFETY: inside the tile.
        sum = sum.wrapping_add(unsafe { *tile.add(k) });
        k += CONSUMERS as usize;
    }
    sum as f32
}

#[inline(never)]
fn sum_ref_f32(tile: &[f32; TILE_FLOATS as usize], tid: u32) -> f32 {
    tile.iter().skip(first(tid)).step_by(CONSUMERS as usize).sum()
}

#[inline(never)]
fn sum_ref_u32(tile: &[u32; TILE_FLOATS as usize], tid: u32) -> f32 {
    tile.iter().skip(first(tid)).step_by(CONSUMERS as usize).fold(0u32, |a, b| a.wrapping_add(*b)) as f32
}

#[inline(never)]
fn sum_slice_f32(tile: &[f32], tid: u32) -> f32 {
    tile.iter().skip(first(tid)).step_by(CONSUMERS as usize).sum()
}

#[inline(never)]
fn sum_slice_u32(tile: &[u32], tid: u32) -> f32 {
    tile.iter().skip(first(tid)).step_by(CONSUMERS as usize).fold(0u32, |a, b| a.wrapping_add(*b)) as f32
}

/// A tile pointer inside a struct argument.
#[derive(Clone, Copy)]
struct View<T> {
    ptr: *const T,
}

#[inline(never)]
fn sum_view_f32(view: View<f32>, tid: u32) -> f32 {
    sum_f32(view.ptr, tid)
}

#[inline(never)]
fn sum_view_u32(view: View<u32>, tid: u32) -> f32 {
    sum_u32(view.ptr, tid)
}

staged_kernel! {
    /// CORRECT: the shared tile passed as `*const f32` to a helper taking `*const f32`.
    fn helper_same_pointee(tile, tid) {
        sum_f32(tile, tid)
    }
}

staged_kernel! {
    /// BROKEN: the `f32` tile passed to a helper taking `*const u32`.
    fn helper_pointee_u32(tile, tid) {
        sum_u32(tile as *const u32, tid)
    }
}

staged_kernel! {
    /// BROKEN: the `u32` view hidden behind an integer round trip (`tile as usize as *const u32`).
    fn int_round_trip_u32(tile, tid) {
        sum_u32(tile as usize as *const u32, tid)
    }
}

staged_kernel! {
    /// CORRECT: an integer round trip back to the same pointee type.
    fn int_round_trip_f32(tile, tid) {
        sum_f32(tile as usize as *const f32, tid)
    }
}

staged_kernel! {
    /// BROKEN: the tile as `&[u32; 256]`.
    fn reference_u32(tile, tid) {
        // SAFETY: the tile holds 256 initialised 4-byte values.
        sum_ref_u32(unsafe { &*(tile as *const [u32; TILE_FLOATS as usize]) }, tid)
    }
}

staged_kernel! {
    /// CORRECT: the tile as `&[f32; 256]`.
    fn reference_f32(tile, tid) {
        // SAFETY: the tile holds 256 floats.
        sum_ref_f32(unsafe { &*(tile as *const [f32; TILE_FLOATS as usize]) }, tid)
    }
}

staged_kernel! {
    /// BROKEN: the tile as a `u32` slice.
    fn slice_u32(tile, tid) {
        // SAFETY: the tile holds 256 initialised 4-byte values.
        sum_slice_u32(unsafe { core::slice::from_raw_parts(tile as *const u32, TILE_FLOATS as usize) }, tid)
    }
}

staged_kernel! {
    /// CORRECT: the tile as an `f32` slice.
    fn slice_f32(tile, tid) {
        // SAFETY: the tile holds 256 floats.
        sum_slice_f32(unsafe { core::slice::from_raw_parts(tile, TILE_FLOATS as usize) }, tid)
    }
}

staged_kernel! {
    /// BROKEN: a `u32` pointer to the tile inside a struct argument.
    fn struct_argument_u32(tile, tid) {
        sum_view_u32(View { ptr: tile as *const u32 }, tid)
    }
}

staged_kernel! {
    /// CORRECT: an `f32` pointer to the tile inside a struct argument.
    fn struct_argument_f32(tile, tid) {
        sum_view_f32(View { ptr: tile }, tid)
    }
}

staged_kernel! {
    /// BROKEN: the `u32` helper called through a function pointer.
    fn fn_pointer_u32(tile, tid) {
        let sum: fn(*const u32, u32) -> f32 = sum_u32;
        sum(tile as *const u32, tid)
    }
}

staged_kernel! {
    /// CORRECT: the `f32` helper called through a function pointer.
    fn fn_pointer_f32(tile, tid) {
        let sum: fn(*const f32, u32) -> f32 = sum_f32;
        sum(tile, tid)
    }
}

staged_kernel! {
    /// BROKEN: a closure taking `*const u32`, given the tile.
    fn closure_u32(tile, tid) {
        let sum = |words: *const u32| {
            let mut total = 0u32;
            let mut k = first(tid);
            while k < TILE_FLOATS as usize {
                // SAFETY: inside the tile.
                total = total.wrapping_add(unsafe { *words.add(k) });
                k += CONSUMERS as usize;
            }
            total as f32
        };
        sum(tile as *const u32)
    }
}

staged_kernel! {
    /// CORRECT: a closure taking `*const f32`, given the tile.
    fn closure_f32(tile, tid) {
        let sum = |floats: *const f32| sum_f32(floats, tid);
        sum(tile)
    }
}

staged_kernel! {
    /// CORRECT: a byte view of the shared base turned back into floats with `cast`.
    fn cast_method(tile, tid) {
        let bytes = tile as *mut u8;
        sum_f32(bytes.cast::<f32>(), tid)
    }
}

staged_kernel! {
    /// CORRECT: `cast_const` before the call.
    fn cast_const_method(tile, tid) {
        sum_f32(tile.cast_const(), tid)
    }
}

staged_kernel! {
    /// CORRECT: `wrapping_sub` back to the tile's start.
    fn wrapping_sub_back(tile, tid) {
        let end = tile.wrapping_add(TILE_FLOATS as usize);
        sum_f32(end.wrapping_sub(TILE_FLOATS as usize), tid)
    }
}

staged_kernel! {
    /// CORRECT: reads through a reborrow `&mut *p` of the tile's first element (then restores it).
    fn reborrow_mut(tile, tid) {
        // SAFETY: the tile's first element; only this thread touches it between the barriers,
        // and it writes back the value it read.
        let slot = unsafe { &mut *tile };
        let sum = sum_f32(tile, tid);
        if tid == WARP_SIZE {
            *slot = *slot + 0.0;
        }
        sum
    }
}
