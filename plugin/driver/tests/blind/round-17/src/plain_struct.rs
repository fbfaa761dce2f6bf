//! Plain shared-memory kernels organised around structs, traits and closures.

use crate::common::*;
use crate::device::launch;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x};

/// A staged tile and a one-row area for warp 1's sums.
struct TileStage {
    tile: *mut f32,
    partial: *mut f32,
}

impl TileStage {
    #[inline(always)]
    unsafe fn fill(&self, source: *const f32, tid: usize) {
        let mut i = tid;
        while i < TILE_FLOATS {
            unsafe { *self.tile.add(i) = *source.add(i) };
            i += BLOCK as usize;
        }
    }

    #[inline(always)]
    unsafe fn rows(&self, column: usize, first: usize, count: usize) -> f32 {
        let mut sum = 0.0f32;
        for row in first..first + count {
            sum += unsafe { *self.tile.add(row * COLS + column) };
        }
        sum
    }
}

/// The per-tile body shared by the two struct kernels: warp 1 sums rows 4-7 into the
/// partial row, warp 0 rows 0-3 and then adds warp 1's.
#[inline(always)]
unsafe fn struct_body(stage: &TileStage, input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = (tid % WARP) as usize;
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            stage.fill(input.add(tile as usize * TILE_FLOATS), tid as usize);
            barrier();
            let mine = if tid < WARP { stage.rows(column, 0, ROWS / 2) } else { stage.rows(column, ROWS / 2, ROWS / 2) };
            if tid >= WARP {
                *stage.partial.add(column) = mine;
            }
            barrier();
            if tid < WARP {
                acc += mine + *stage.partial.add(column);
            }
            barrier();
            tile += grid;
        }
        if tid < WARP {
            *out.add(block as usize * COLS + column) = acc;
        }
    }
}

/// The partial row right after the tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_struct_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let base = dynamic_shared_base::<f32>();
    let stage = TileStage { tile: base, partial: base.wrapping_add(TILE_FLOATS) };
    unsafe { struct_body(&stage, input, tiles, out) }
}

/// The partial row placed one tile further, counted in bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_struct_partial_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let base = dynamic_shared_base::<f32>();
    let partial = (base as *mut u8).wrapping_add(TILE_FLOATS) as *mut f32;
    let stage = TileStage { tile: base, partial };
    unsafe { struct_body(&stage, input, tiles, out) }
}

/// How to add up one column of a staged tile.
trait ColumnSum {
    unsafe fn column(tile: *const f32, column: usize) -> f32;
}

/// Rows paired as `(r, r + 4)`, then the pairs added in a tree.
struct Pairwise;

impl ColumnSum for Pairwise {
    #[inline(always)]
    unsafe fn column(tile: *const f32, column: usize) -> f32 {
        let at = |row: usize| unsafe { *tile.add(row * COLS + column) };
        let pairs = [at(0) + at(4), at(1) + at(5), at(2) + at(6), at(3) + at(7)];
        (pairs[0] + pairs[1]) + (pairs[2] + pairs[3])
    }
}

#[inline(always)]
unsafe fn staged_columns<R: ColumnSum>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut tile = block;
    unsafe {
        while tile < tiles {
            let source = input.add(tile as usize * TILE_FLOATS);
            for k in 0..TILE_FLOATS / BLOCK as usize {
                *staged.add(tid + k * BLOCK as usize) = *source.add(tid + k * BLOCK as usize);
            }
            barrier();
            if tid < COLS {
                acc += R::column(staged, tid);
            }
            barrier();
            tile += grid;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// A generic body over a `ColumnSum`, instantiated pairwise.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_trait_pairwise(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    unsafe { staged_columns::<Pairwise>(input, tiles, out) }
}

/// Where element (row, column) of a staged tile sits.
trait Layout {
    const ROW_STRIDE: usize;
}

struct Dense;
struct Padded;

impl Layout for Dense {
    const ROW_STRIDE: usize = COLS;
}

impl Layout for Padded {
    const ROW_STRIDE: usize = COLS + 1;
}

/// Two tiles staged at a time, tile `j` at `j * TILE_FLOATS`, laid out by `L`; warp 0 sums
/// both.
#[inline(always)]
unsafe fn pairs_of_tiles<L: Layout>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    let staged = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut k = 0;
    unsafe {
        while k < count {
            let n = if k + 1 < count { 2 } else { 1 };
            let mut i = tid;
            while i < n * TILE_FLOATS {
                let (j, e) = (i / TILE_FLOATS, i % TILE_FLOATS);
                let source = input.add((block + (k + j as u32) * grid) as usize * TILE_FLOATS);
                *staged.add(j * TILE_FLOATS + (e / COLS) * L::ROW_STRIDE + e % COLS) = *source.add(e);
                i += BLOCK as usize;
            }
            barrier();
            if tid < COLS {
                for j in 0..n {
                    for row in 0..ROWS {
                        acc += *staged.add(j * TILE_FLOATS + row * L::ROW_STRIDE + tid);
                    }
                }
            }
            barrier();
            k += n as u32;
        }
        if tid < COLS {
            *out.add(block as usize * COLS + tid) = acc;
        }
    }
}

/// Pairs of tiles, dense rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_layout_dense_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    unsafe { pairs_of_tiles::<Dense>(input, tiles, out) }
}

/// Pairs of tiles, rows padded to 33 floats against bank conflicts.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_layout_padded_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    unsafe { pairs_of_tiles::<Padded>(input, tiles, out) }
}

/// Staging and summing written as closures over the shared pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_closure_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let stage_tile = |tile: u32| {
        let source = unsafe { input.add(tile as usize * TILE_FLOATS) };
        for k in 0..TILE_FLOATS / BLOCK as usize {
            let i = k * BLOCK as usize + tid;
            unsafe { *staged.add(i) = *source.add(i) };
        }
    };
    let column_sum = |column: usize| -> f32 {
        let mut sum = 0.0f32;
        for row in 0..ROWS {
            sum += unsafe { *staged.add(row * COLS + column) };
        }
        sum
    };
    let mut acc = 0.0f32;
    let mut tile = block;
    while tile < tiles {
        stage_tile(tile);
        barrier();
        if tid < COLS {
            acc += column_sum(tid);
        }
        barrier();
        tile += grid;
    }
    if tid < COLS {
        unsafe { *out.add(block as usize * COLS + tid) = acc };
    }
}

/// The closure kernel with the staging index built from the lane.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_plain_closure_lane_index(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let lane = lane_id() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let staged = dynamic_shared_base::<f32>();
    let index = |k: usize| k * BLOCK as usize + lane;
    let stage_tile = |tile: u32| {
        let source = unsafe { input.add(tile as usize * TILE_FLOATS) };
        for k in 0..TILE_FLOATS / BLOCK as usize {
            unsafe { *staged.add(index(k)) = *source.add(index(k)) };
        }
    };
    let column_sum = |column: usize| -> f32 {
        let mut sum = 0.0f32;
        for row in 0..ROWS {
            sum += unsafe { *staged.add(row * COLS + column) };
        }
        sum
    };
    let mut acc = 0.0f32;
    let mut tile = block;
    while tile < tiles {
        stage_tile(tile);
        barrier();
        if tid < COLS {
            acc += column_sum(tid);
        }
        barrier();
        tile += grid;
    }
    if tid < COLS {
        unsafe { *out.add(block as usize * COLS + tid) = acc };
    }
}
