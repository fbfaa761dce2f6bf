//! Plain shared memory written in different Rust styles: closures handed to a per-tile
//! driver, a trait with default methods, macros that write the loops out, a view struct over a
//! padded tile, slices and `chunks_exact`, a leader thread's `copy_nonoverlapping`.

#![allow(unsafe_op_in_unsafe_fn)]

use core::{ptr, slice};

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

/// Per owned tile: `stage`, barrier, `reduce`, barrier.
#[inline(always)]
fn per_tile(tiles: u32, mut stage: impl FnMut(u32), mut reduce: impl FnMut()) {
    let mut t = block_idx_x();
    while t < tiles {
        stage(t);
        barrier();
        reduce();
        barrier();
        t += grid_dim_x();
    }
}

/// Per owned tile: `stage`, barrier, `reduce` ("the next `stage` comes after a barrier anyway").
#[inline(always)]
fn per_tile_fast(tiles: u32, mut stage: impl FnMut(u32), mut reduce: impl FnMut()) {
    let mut t = block_idx_x();
    while t < tiles {
        stage(t);
        barrier();
        reduce();
        t += grid_dim_x();
    }
}

/// Staging and reduction are closures run by `per_tile`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_closure_phases(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    per_tile(
        tiles,
        |t| {
            let src = tile_floats(input, t);
            for q in 0..4 {
                *s.add(tid + 64 * q) = *src.add(tid + 64 * q);
            }
        },
        || {
            if tid < COLS {
                acc += column_sum(s, tid);
            }
        },
    );
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: `per_tile_fast` drops the barrier after `reduce`, so warp 1 stages the next tile
/// while warp 0 still reads this one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_bad_phases_fast(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    per_tile_fast(
        tiles,
        |t| {
            let src = tile_floats(input, t);
            for q in 0..4 {
                *s.add(tid + 64 * q) = *src.add(tid + 64 * q);
            }
        },
        || {
            if tid < COLS {
                acc += column_sum(s, tid);
            }
        },
    );
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Something that accumulates one column of staged tiles.
trait ColumnAccumulator {
    fn column(&self) -> usize;
    fn add(&mut self, v: f32);
    fn total(&self) -> f32;

    /// Adds this accumulator's column of the tile at `tile`.
    #[inline(always)]
    unsafe fn absorb(&mut self, tile: *const f32) {
        let mut v = 0.0f32;
        for r in 0..ROWS {
            v += *tile.add(self.column() + r * COLS);
        }
        self.add(v);
    }

    /// Waits for the block's staging, then absorbs.
    #[inline(always)]
    unsafe fn absorb_synced(&mut self, tile: *const f32) {
        barrier();
        self.absorb(tile);
    }
}

/// Compensated (Kahan) summation of one column.
struct Kahan {
    column: usize,
    sum: f32,
    carry: f32,
}

impl ColumnAccumulator for Kahan {
    fn column(&self) -> usize {
        self.column
    }

    fn add(&mut self, v: f32) {
        let y = v - self.carry;
        let t = self.sum + y;
        self.carry = (t - self.sum) - y;
        self.sum = t;
    }

    fn total(&self) -> f32 {
        self.sum
    }
}

/// The column sum is a trait object's (statically dispatched) default method.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_trait_accumulator(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = Kahan { column: tid % COLS, sum: 0.0, carry: 0.0 };
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        for q in 0..4 {
            *s.add(tid + 64 * q) = *src.add(tid + 64 * q);
        }
        barrier();
        if tid < COLS {
            acc.absorb(s);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc.total());
    }
}

/// Broken: warp 0 calls `absorb_synced`, whose barrier only warp 0 reaches; warp 1 meets it at
/// the loop's barrier instead and restages while warp 0 reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_bad_trait_sync_in_branch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = Kahan { column: tid % COLS, sum: 0.0, carry: 0.0 };
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        for q in 0..4 {
            *s.add(tid + 64 * q) = *src.add(tid + 64 * q);
        }
        if tid < COLS {
            acc.absorb_synced(s);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc.total());
    }
}

/// Copies quads `$q…` of a tile (64 floats each) from `$src` to `$dst` for thread `$tid`.
macro_rules! stage_quads {
    ($dst:expr, $src:expr, $tid:expr; $($q:literal)*) => {
        $( *$dst.add($tid + 64 * $q) = *$src.add($tid + 64 * $q); )*
    };
}

/// Sums rows `$r…` of column `$c` of the tile at `$tile`.
macro_rules! sum_rows {
    ($tile:expr, $c:expr; $($r:literal)*) => {
        0.0f32 $( + *$tile.add($c + COLS * $r) )*
    };
}

/// Staging and the row sum are written out by macros, in batches of up to four tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_macro_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const BATCH: u32 = 4;
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    let mut k0 = 0;
    while k0 < n {
        let m = (n - k0).min(BATCH);
        for j in 0..m {
            let dst = s.add(j as usize * TILE_FLOATS);
            let src = tile_floats(input, owned_tile(k0 + j));
            stage_quads!(dst, src, tid; 0 1 2 3);
        }
        barrier();
        if tid < COLS {
            for j in 0..m {
                let tile = s.add(j as usize * TILE_FLOATS);
                acc += sum_rows!(tile, tid; 0 1 2 3 4 5 6 7);
            }
        }
        barrier();
        k0 += BATCH;
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: a batch of eight tiles fills the window, and the staging macro was given one quad
/// too many (`0 1 2 3 4`); the last slot's fifth quad lands past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_bad_macro_extra_quad(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const BATCH: u32 = 8;
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let n = owned_tiles(tiles);
    let mut acc = 0.0f32;
    let mut k0 = 0;
    while k0 < n {
        let m = (n - k0).min(BATCH);
        for j in 0..m {
            let dst = s.add(j as usize * TILE_FLOATS);
            let src = tile_floats(input, owned_tile(k0 + j));
            stage_quads!(dst, src, tid; 0 1 2 3 4);
        }
        barrier();
        if tid < COLS {
            for j in 0..m {
                let tile = s.add(j as usize * TILE_FLOATS);
                acc += sum_rows!(tile, tid; 0 1 2 3 4 5 6 7);
            }
        }
        barrier();
        k0 += BATCH;
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// A tile in shared memory with rows padded to 33 floats.
#[derive(Clone, Copy)]
struct PaddedTile {
    base: *mut f32,
}

impl PaddedTile {
    const STRIDE: usize = COLS + 1;

    #[inline(always)]
    unsafe fn put(&self, r: usize, c: usize, v: f32) {
        *self.base.add(r * Self::STRIDE + c) = v;
    }

    #[inline(always)]
    unsafe fn get(&self, r: usize, c: usize) -> f32 {
        *self.base.add(r * Self::STRIDE + c)
    }
}

/// Staging through a view struct over a padded tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_view_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let view = PaddedTile { base: dynamic_shared_base::<f32>() };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        for q in 0..4 {
            let e = tid + 64 * q;
            view.put(e / COLS, e % COLS, *src.add(e));
        }
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += view.get(r, tid);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Two staging buffers; `swap` exchanges them.
struct Buffers {
    front: *mut f32,
    back: *mut f32,
}

impl Buffers {
    #[inline(always)]
    fn swap(&mut self) {
        core::mem::swap(&mut self.front, &mut self.back);
    }
}

/// Broken: with one barrier per tile the buffers must alternate in every thread, but only the
/// readers (warp 0) swap them; warp 1 keeps writing the buffer warp 0 may still be reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_bad_swap_readers_only(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let base = dynamic_shared_base::<f32>();
    let mut bufs = Buffers { front: base, back: base.add(TILE_FLOATS) };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = tile_floats(input, t);
        for q in 0..4 {
            *bufs.back.add(tid + 64 * q) = *src.add(tid + 64 * q);
        }
        barrier();
        if tid < COLS {
            acc += column_sum(bufs.back, tid);
            bufs.swap();
        }
        t += grid_dim_x();
    }
    let _ = bufs.front;
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// The block's last thread copies the whole tile with `copy_nonoverlapping`; warp 0 reads it as rows from
/// `chunks_exact`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_leader_copy_chunks(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == THREADS as usize - 1 {
            ptr::copy_nonoverlapping(tile_floats(input, t), s, TILE_FLOATS);
        }
        barrier();
        if tid < COLS {
            let tile = slice::from_raw_parts(s as *const f32, TILE_FLOATS);
            acc += tile.chunks_exact(COLS).map(|row| row[tid]).sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}

/// Broken: the leader (thread 63) copies the next tile right after the one barrier per tile, while lanes
/// of warp 0 are still reading the current one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_sty_bad_leader_copy_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == THREADS as usize - 1 {
            ptr::copy_nonoverlapping(tile_floats(input, t), s, TILE_FLOATS);
        }
        barrier();
        if tid < COLS {
            let tile = slice::from_raw_parts(s as *const f32, TILE_FLOATS);
            acc += tile.chunks_exact(COLS).map(|row| row[tid]).sum::<f32>();
        }
        t += grid_dim_x();
    }
    if tid < COLS {
        store_column(out, tid as u32, acc);
    }
}
