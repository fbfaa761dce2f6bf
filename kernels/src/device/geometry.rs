//! Thread, block and grid indices (the `%tid`, `%ctaid`, `%ntid`, `%nctaid` special registers).

use core::arch::nvptx;

/// Threads in a warp on every NVIDIA GPU this crate targets.
pub const WARP_SIZE: u32 = 32;

#[inline(always)]
pub fn thread_idx_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_x() }
}

#[inline(always)]
pub fn thread_idx_y() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_thread_idx_y() }
}

#[inline(always)]
pub fn block_idx_x() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_idx_x() }
}

#[inline(always)]
pub fn block_idx_y() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_idx_y() }
}

#[inline(always)]
pub fn block_dim_x() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_dim_x() }
}

#[inline(always)]
pub fn grid_dim_x() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_grid_dim_x() }
}

/// This thread's index in a one-dimensional grid.
#[inline(always)]
pub fn global_thread_index() -> usize {
    block_idx_x() as usize * block_dim_x() as usize + thread_idx_x() as usize
}

/// Number of threads in a one-dimensional grid: the step of a grid-stride loop.
#[inline(always)]
pub fn grid_thread_count() -> usize {
    grid_dim_x() as usize * block_dim_x() as usize
}

/// Index of this thread within its warp.
#[inline(always)]
pub fn lane_id() -> u32 {
    thread_idx_x() % WARP_SIZE
}

/// Index of this thread's warp within its (one-dimensional) block.
#[inline(always)]
pub fn warp_id() -> u32 {
    thread_idx_x() / WARP_SIZE
}
