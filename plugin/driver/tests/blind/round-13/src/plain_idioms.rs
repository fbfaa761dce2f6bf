//! Plain shared-memory staging, written the way a kernel author reaches for first: stage a tile,
//! barrier, sum the columns, barrier. Every kernel here is meant to be correct.

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;

/// Each thread moves one 16-byte quad of the tile; warp 0 sums the columns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_stage_float4_column_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let quads = dynamic_shared_base::<[f32; 4]>();
    let floats = dynamic_shared_base::<f32>();
    let source = input as *const [f32; 4];
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe {
            *quads.add(tid) = *source.add(t as usize * (TILE / 4) + tid);
        }
        barrier();
        if tid < COLS {
            unrolled!(K < ROWS => {
                acc += unsafe { *floats.add(tid + K * COLS) };
            });
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Both warps sum: warp `w` takes rows `4w..4w + 4` of its column. The two halves meet once,
/// after the last tile, in a scratch area past the tile buffer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_split_rows_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let smem = dynamic_shared_base::<f32>();
    unsafe {
        let scratch = smem.add(TILE);
        let mut partial = 0.0f32;
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            let tile = input.add(t as usize * TILE);
            for i in (tid..TILE).step_by(THREADS) {
                *smem.add(i) = *tile.add(i);
            }
            barrier();
            for k in half * 4..half * 4 + 4 {
                partial += *smem.add(col + k * COLS);
            }
            barrier();
        }
        *scratch.add(tid) = partial;
        barrier();
        if half == 0 {
            *out.add(block_idx_x() as usize * COLS + col) = *scratch.add(col) + *scratch.add(col + COLS);
        }
    }
}

/// The tile is stored transposed (column-major), so that a column is eight contiguous floats
/// and warp 0 sums it as a slice.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_transpose_then_slice_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    let step = grid_dim_x() as usize;
    while t < tiles as usize {
        unsafe {
            let tile = input.add(t * TILE);
            for j in 0..TILE / THREADS {
                let e = tid + THREADS * j;
                let (row, col) = (e / COLS, e % COLS);
                *smem.add(col * ROWS + row) = *tile.add(e);
            }
        }
        barrier();
        if tid < COLS {
            let column = unsafe { slice::from_raw_parts(smem.add(tid * ROWS) as *const f32, ROWS) };
            acc += column.iter().sum::<f32>();
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Up to four tiles of the block are staged together (4 KiB), then summed in one pass.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_batched_four_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: u32 = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if tiles > b { (tiles - b).div_ceil(g) } else { 0 };
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut first = 0u32;
    while first < mine {
        let n = (mine - first).min(BATCH);
        for j in 0..n as usize {
            let t = b + g * (first + j as u32);
            unsafe {
                let src = input.add(t as usize * TILE);
                let slot = smem.add(j * TILE);
                let mut i = tid;
                while i < TILE {
                    *slot.add(i) = *src.add(i);
                    i += THREADS;
                }
            }
        }
        barrier();
        if tid < COLS {
            for j in 0..n as usize {
                for k in 0..ROWS {
                    acc += unsafe { *smem.add(j * TILE + k * COLS + tid) };
                }
            }
        }
        barrier();
        first += n;
    }
    if tid < COLS {
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Two tile buffers used in turn: one barrier per tile is enough, because a buffer is written
/// again only two tiles later, after a barrier every reader of it has passed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_double_buffer_one_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let lane = lane_id() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut parity = 0usize;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe {
            let buf = smem.add(parity * TILE);
            let src = input.add(t as usize * TILE);
            for r in 0..TILE / THREADS {
                let i = r * THREADS + tid;
                *buf.add(i) = *src.add(i);
            }
            barrier();
            if warp_id() == 0 {
                for k in 0..ROWS {
                    acc += *buf.add(lane + k * COLS);
                }
            }
        }
        parity ^= 1;
        t += grid_dim_x();
    }
    if warp_id() == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = acc };
    }
}

/// Indexing through closures: one places an element, one stages a tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_closure_indexing(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    unsafe {
        let at = |row: usize, col: usize| smem.add(row * COLS + col);
        let load_tile = |t: u32| {
            let src = input.add(t as usize * TILE);
            (0..TILE / THREADS).map(|j| tid + THREADS * j).for_each(|i| *smem.add(i) = *src.add(i));
        };
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            load_tile(t);
            barrier();
            if tid < COLS {
                acc = (0..ROWS).map(|r| *at(r, tid)).fold(acc, |a, x| a + x);
            }
            barrier();
            t += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// Slices over the tile: staging zips the global tile with the shared one (every 64th pair
/// belongs to this thread), and the columns are read through `chunks_exact` rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_chunks_rows_zip(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        {
            let src = unsafe { slice::from_raw_parts(input.add(t * TILE), TILE) };
            let dst = unsafe { slice::from_raw_parts_mut(smem, TILE) };
            for (d, s) in dst.iter_mut().zip(src.iter()).skip(tid).step_by(THREADS) {
                *d = *s;
            }
        }
        barrier();
        if tid < COLS {
            let rows = unsafe { slice::from_raw_parts(smem as *const f32, TILE) };
            acc += rows.chunks_exact(COLS).map(|row| row[tid]).sum::<f32>();
        }
        barrier();
        t += grid_dim_x() as usize;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Signed arithmetic throughout: the block walks its tiles from the last one down, each thread
/// stages from the end of the tile, and the rows are summed bottom-up.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_signed_offsets_rev(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let b = block_idx_x() as i32;
    let g = grid_dim_x() as i32;
    let total = tiles as i32;
    let count = if total > b { (total - b - 1) / g + 1 } else { 0 };
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut left = count;
    while left > 0 {
        left -= 1;
        let t = b + left * g;
        unsafe {
            let src = input.offset((t * TILE as i32) as isize);
            let mut i = TILE as i32 - 1 - tid;
            while i >= 0 {
                *smem.offset(i as isize) = *src.offset(i as isize);
                i -= THREADS as i32;
            }
        }
        barrier();
        if tid < COLS as i32 {
            for k in (0..ROWS as i32).rev() {
                acc += unsafe { *smem.offset((k * COLS as i32 + tid) as isize) };
            }
        }
        barrier();
    }
    if tid < COLS as i32 {
        unsafe { *out.offset((b * COLS as i32 + tid) as isize) = acc };
    }
}
