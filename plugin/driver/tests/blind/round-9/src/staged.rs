//! Ordinary shared memory only, no pipeline: batches of tiles staged at once, pairwise folds,
//! transposes with partial sums, ping-pong partial buffers and helpers that take the shared
//! pointer, all ordered by block barriers.

use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, launch, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;
/// Tiles that fit in the 8 KiB window at once.
const BATCH: usize = 8;
/// Row pitch of a transposed tile (one float of padding).
const PITCH: usize = ROWS + 1;

/// Copies this thread's share of a tile (`tid, tid + 64, ...`) from `src` to `dst`.
#[inline(always)]
unsafe fn stage(dst: *mut f32, src: *const f32, tid: usize) {
    unsafe {
        let mut i = tid;
        while i < TILE {
            *dst.add(i) = *src.add(i);
            i += THREADS;
        }
    }
}

/// Stages up to eight tiles at once (the whole window), then each thread sums half a column
/// of every staged tile; after the batch loop the 64 partials meet in the same shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_batch_of_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let s = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let col = tid % COLS;
        let rows = (tid / COLS) * 4..(tid / COLS) * 4 + 4;
        let step = grid_dim_x();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let mut n = 0;
            while n < BATCH && tile < tiles {
                stage(s.add(n * TILE), input.add(tile as usize * TILE), tid);
                n += 1;
                tile += step;
            }
            barrier();
            for j in 0..n {
                for r in rows.clone() {
                    acc += *s.add(j * TILE + r * COLS + col);
                }
            }
            barrier();
        }
        *s.add(tid) = acc;
        barrier();
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = *s.add(tid) + *s.add(tid + COLS);
        }
    }
}

/// The batched kernel with its barrier moved to the top of the batch loop: the reuse between
/// batches is covered, but after the last batch each thread writes its partial into `s[tid]`
/// at once, over row 1 of the first staged tile that warp 0 may still be summing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_batch_partials_early(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let s = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let col = tid % COLS;
        let rows = (tid / COLS) * 4..(tid / COLS) * 4 + 4;
        let step = grid_dim_x();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            barrier();
            let mut n = 0;
            while n < BATCH && tile < tiles {
                stage(s.add(n * TILE), input.add(tile as usize * TILE), tid);
                n += 1;
                tile += step;
            }
            barrier();
            for j in 0..n {
                for r in rows.clone() {
                    acc += *s.add(j * TILE + r * COLS + col);
                }
            }
        }
        *s.add(tid) = acc;
        barrier();
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = *s.add(tid) + *s.add(tid + COLS);
        }
    }
}

/// Adds `s[i + width]` into `s[i]` for every `i < width`, the block's threads striding by 64.
#[inline(always)]
unsafe fn fold(s: *mut f32, width: usize, tid: usize) {
    unsafe {
        let mut i = tid;
        while i < width {
            *s.add(i) += *s.add(i + width);
            i += THREADS;
        }
    }
}

/// Two tiles staged side by side (the second zero-filled when the block has none), then folded
/// pairwise 512 -> 256 -> 128 -> 64 -> 32 with a barrier after each level.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_row_fold(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let s = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let step = grid_dim_x();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            stage(s, input.add(tile as usize * TILE), tid);
            let second = tile + step;
            if second < tiles {
                stage(s.add(TILE), input.add(second as usize * TILE), tid);
            } else {
                let mut i = tid;
                while i < TILE {
                    *s.add(TILE + i) = 0.0;
                    i += THREADS;
                }
            }
            barrier();
            for width in [256usize, 128, 64, 32] {
                fold(s, width, tid);
                barrier();
            }
            if tid < COLS {
                acc += *s.add(tid);
            }
            barrier();
            tile += 2 * step;
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// A fold that first lets each thread add its own four staged elements, then halves 64 -> 32
/// under `if tid <= COLS`: thread 32 also runs, writing `s[32]` while thread 0 reads it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_fold_inclusive_guard(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let s = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            stage(s, input.add(tile as usize * TILE), tid);
            *s.add(tid) = *s.add(tid) + *s.add(tid + 64) + *s.add(tid + 128) + *s.add(tid + 192);
            barrier();
            if tid <= COLS {
                *s.add(tid) += *s.add(tid + COLS);
            }
            barrier();
            if tid < COLS {
                acc += *s.add(tid);
            }
            barrier();
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// Transposes each tile into a padded 32 x 9 array; all 64 threads then sum half of a
/// transposed row into a partials area after it, and warp 0 adds the two halves. Two barriers
/// per tile suffice: each one separates a buffer's readers from its next writers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_transpose_half_columns(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let t = dynamic_shared_base::<f32>();
        let partials = t.add(COLS * PITCH);
        let tid = thread_idx_x() as usize;
        let col = tid % COLS;
        let first_row = (tid / COLS) * 4;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let src = input.add(tile as usize * TILE);
            let mut i = tid;
            while i < TILE {
                let (r, c) = (i / COLS, i % COLS);
                *t.add(c * PITCH + r) = *src.add(i);
                i += THREADS;
            }
            barrier();
            let row = t.add(col * PITCH + first_row);
            *partials.add(tid) = *row + *row.add(1) + *row.add(2) + *row.add(3);
            barrier();
            if tid < COLS {
                acc += *partials.add(tid) + *partials.add(tid + COLS);
            }
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// The transpose with its two indices computed from the wrong dimension (`i / ROWS`, `i % ROWS`):
/// the 256 stores land on 95 slots, several threads storing to the same slot, and the readers
/// sum slots that were never written this tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_transpose_swapped_dims(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let t = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let src = input.add(tile as usize * TILE);
            let mut i = tid;
            while i < TILE {
                let (r, c) = (i / ROWS, i % ROWS);
                *t.add(c * PITCH + r) = *src.add(i);
                i += THREADS;
            }
            barrier();
            if tid < COLS {
                let row = t.add(tid * PITCH);
                for r in 0..ROWS {
                    acc += *row.add(r);
                }
            }
            barrier();
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// Stores a thread's partial into its slot of the shared scratch.
#[inline(never)]
unsafe fn publish(scratch: *mut f32, slot: usize, value: f32) {
    unsafe { *scratch.add(slot) = value }
}

/// The two halves of column `col` from the shared scratch.
#[inline(never)]
unsafe fn gather(scratch: *const f32, col: usize) -> f32 {
    unsafe { *scratch.add(col) + *scratch.add(col + COLS) }
}

/// Each thread sums half a column over all the block's tiles straight from global memory;
/// out-of-line helpers publish the partials to shared memory and gather them after a barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_warp_partials_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let scratch = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let col = tid % COLS;
        let first_row = (tid / COLS) * 4;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let src = input.add(tile as usize * TILE + first_row * COLS + col);
            for r in 0..4 {
                acc += *src.add(r * COLS);
            }
            tile += grid_dim_x();
        }
        publish(scratch, tid, acc);
        barrier();
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = gather(scratch, tid);
        }
    }
}

/// Column sum with the barriers "built in": one before reading, one after.
#[inline(never)]
unsafe fn synced_column(s: *const f32, col: usize) -> f32 {
    unsafe {
        barrier();
        let mut sum = 0.0f32;
        for r in 0..ROWS {
            sum += *s.add(r * COLS + col);
        }
        barrier();
        sum
    }
}

/// A helper that carries its own barriers, called only by the 32 threads that have a column:
/// warp 1 never reaches a barrier, stages the following tiles while warp 0 sums, and leaves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_helper_barrier_in_branch(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    unsafe {
        let s = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            stage(s, input.add(tile as usize * TILE), tid);
            if tid < COLS {
                acc += synced_column(s, tid);
            }
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// No staging: each thread sums half a column of the tile from global memory and the halves
/// meet in one of two 64-float partial buffers, alternating per tile, so one barrier per tile
/// is enough.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_ping_pong_partials(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let partials = dynamic_shared_base::<[f32; THREADS]>();
        let tid = thread_idx_x() as usize;
        let col = tid % COLS;
        let first_row = (tid / COLS) * 4;
        let mut acc = 0.0f32;
        let mut parity = 0usize;
        let mut tile = block_idx_x();
        while tile < tiles {
            let src = input.add(tile as usize * TILE);
            let mut part = 0.0f32;
            for r in first_row..first_row + 4 {
                part += *src.add(r * COLS + col);
            }
            let buf = partials.add(parity) as *mut f32;
            *buf.add(tid) = part;
            barrier();
            if tid < COLS {
                acc += *buf.add(tid) + *buf.add(tid + COLS);
            }
            parity ^= 1;
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// The tree fold written as `while width >= 32 && tid < width { fold; barrier; width /= 2 }`:
/// threads 32..63 leave the loop one level early, so per tile warp 1 reaches one barrier fewer
/// than warp 0, the barriers pair up out of step, and warp 1 stages later tiles while warp 0 is
/// still folding.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_staged_fold_loop_exit(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let s = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            stage(s, input.add(tile as usize * TILE), tid);
            barrier();
            let mut width = TILE / 2;
            while width >= COLS && tid < width {
                fold(s, width, tid);
                barrier();
                width /= 2;
            }
            if tid < COLS {
                acc += *s.add(tid);
            }
            barrier();
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}
