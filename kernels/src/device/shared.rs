//! Dynamic shared memory and the CTA barrier.
//!
//! Dynamic shared memory is one `.extern .shared` array whose size the launch sets. It has two
//! addresses: the *generic* one (for ordinary Rust loads and stores through a raw pointer) and
//! the 32-bit *shared-window* one that `mbarrier.*` and `cp.async.bulk` operands want.

use core::arch::{asm, global_asm, nvptx};

global_asm!(".extern .shared .align 16 .b8 DYNAMIC_SHARED[];");

/// Generic pointer to the start of this block's dynamic shared memory (16-byte aligned).
///
/// The launch must provide as many bytes as the kernel documents; nothing here can check it.
#[inline(always)]
pub fn dynamic_shared_base<T>() -> *mut T {
    let address: u64;
    // SAFETY: converts the address of a declared shared symbol; reads and writes nothing.
    unsafe {
        asm!(
            "cvta.shared.u64 {address}, DYNAMIC_SHARED;",
            address = out(reg64) address,
            options(pure, nomem, nostack),
        );
    }
    address as *mut T
}

/// Address of the start of dynamic shared memory in the 32-bit shared window.
#[inline(always)]
pub fn dynamic_shared_window_address() -> u32 {
    let address: u32;
    // SAFETY: as above.
    unsafe {
        asm!(
            "mov.u32 {address}, DYNAMIC_SHARED;",
            address = out(reg32) address,
            options(pure, nomem, nostack),
        );
    }
    address
}

/// Block-wide barrier (`bar.sync 0`): every thread of the block must reach it.
#[inline(always)]
pub fn barrier() {
    // SAFETY: the caller keeps the barrier in uniform control flow, as CUDA's __syncthreads.
    unsafe { nvptx::_syncthreads() }
}
