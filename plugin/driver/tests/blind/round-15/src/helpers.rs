//! Small helpers shared by several files of this round: tile arithmetic, a producer step and a
//! column reader for the pipeline kernels, and a cooperative staging loop for the plain ones.
//! They take the pipeline state by `&mut` and the stage by raw pointer, the way a helper module
//! of a real kernel crate would.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

/// Floats in one tile.
pub const TILE_FLOATS: usize = 256;
/// Bytes in one tile.
pub const TILE_BYTES: u32 = 1024;
/// Columns of a tile (and outputs per block).
pub const COLS: usize = 32;
/// Rows of a tile.
pub const ROWS: usize = 8;
/// Threads of the launch's block.
pub const BLOCK: usize = 64;

/// How many tiles `first, first + step, …` below `tiles` there are.
#[inline(always)]
pub fn tiles_of_block(first: u32, step: u32, tiles: u32) -> u32 {
    if first >= tiles { 0 } else { (tiles - first).div_ceil(step) }
}

/// The `local`-th tile of the block that starts at `first` with stride `step`.
#[inline(always)]
pub fn global_tile(input: *const f32, first: u32, step: u32, local: u32) -> *const f32 {
    input.wrapping_add((first + local * step) as usize * TILE_FLOATS)
}

/// One producer step: acquire the stage, announce a tile, copy it, move on.
///
/// # Safety
/// `ring` is the shared-window address of stage 0 of a ring of `S` one-tile stages, `tile` a
/// readable tile in global memory.
#[inline(always)]
pub unsafe fn fill_stage<const S: u32>(
    pipe: &Pipeline<S>,
    state: &mut PipelineState<S>,
    ring: u32,
    tile: *const f32,
) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(
        ring + state.index() * TILE_BYTES,
        tile as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
    state.advance();
}

/// Sum of column `lane` of the tile at `stage`.
///
/// # Safety
/// `stage` points to 256 readable floats.
#[inline(always)]
pub unsafe fn column_of(stage: *const f32, lane: usize) -> f32 {
    let mut sum = 0.0f32;
    let mut row = 0;
    while row < ROWS {
        sum += unsafe { *stage.add(row * COLS + lane) };
        row += 1;
    }
    sum
}

/// Every thread of the 64-thread block copies its four floats of `src` into `dst`.
///
/// # Safety
/// `src` is a readable tile, `dst` 256 writable floats of shared memory; `tid < 64`.
#[inline(always)]
pub unsafe fn stage_tile(src: *const f32, dst: *mut f32, tid: usize) {
    let mut k = tid;
    while k < TILE_FLOATS {
        unsafe { *dst.add(k) = *src.add(k) };
        k += BLOCK;
    }
}
