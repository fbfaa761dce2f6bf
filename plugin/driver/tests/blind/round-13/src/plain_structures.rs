//! Plain shared-memory kernels built from small abstractions: traits, const generics, structs
//! with methods, a tile cursor, role matches and warp segment sums. All meant to be correct.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;

/// How one thread moves its share of a tile from global to shared memory.
trait Stager {
    unsafe fn stage(&self, dst: *mut f32, src: *const f32, tid: usize);
}

/// One 16-byte quad per thread.
struct QuadStager;

impl Stager for QuadStager {
    #[inline(always)]
    unsafe fn stage(&self, dst: *mut f32, src: *const f32, tid: usize) {
        unsafe { *(dst as *mut [f32; 4]).add(tid) = *(src as *const [f32; 4]).add(tid) };
    }
}

/// How a column of a staged tile is summed.
trait ColumnSum {
    unsafe fn column(&self, tile: *const f32, col: usize) -> f32;
}

struct Straight;

impl ColumnSum for Straight {
    #[inline(always)]
    unsafe fn column(&self, tile: *const f32, col: usize) -> f32 {
        let mut s = 0.0;
        for k in 0..ROWS {
            s += unsafe { *tile.add(k * COLS + col) };
        }
        s
    }
}

#[inline(always)]
unsafe fn column_kernel<S: Stager, C: ColumnSum>(stager: S, summer: C, input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { stager.stage(smem, input.add(t as usize * TILE), tid) };
        barrier();
        if tid < COLS {
            acc += unsafe { summer.column(smem, tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// A generic staging-and-summing body, instantiated with a quad stager and a straight sum.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_trait_stager(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { column_kernel(QuadStager, Straight, input, tiles, out) };
}

/// Each thread sums `ROWS / PARTS` rows of its column; the `PARTS` partials of a column meet in
/// a scratch area after every tile. `PARTS * COLS` must be the block size.
#[inline(always)]
unsafe fn split_sum<const PARTS: usize>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let (part, col) = (tid / COLS, tid % COLS);
    let rows_each = ROWS / PARTS;
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.wrapping_add(TILE);
    let mut total = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        unsafe {
            let src = input.add(t * TILE);
            let mut i = tid;
            while i < TILE {
                *smem.add(i) = *src.add(i);
                i += THREADS;
            }
            barrier();
            let mut partial = 0.0f32;
            for k in part * rows_each..(part + 1) * rows_each {
                partial += *smem.add(k * COLS + col);
            }
            *scratch.add(part * COLS + col) = partial;
            barrier();
            if part == 0 {
                total += (0..PARTS).map(|p| *scratch.add(p * COLS + col)).sum::<f32>();
            }
        }
        t += grid_dim_x() as usize;
    }
    if part == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = total };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_const_generic_parts(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { split_sum::<{ THREADS / COLS }>(input, tiles, out) };
}

/// A view of the staged tile with out-of-line methods.
#[derive(Clone, Copy)]
struct SharedTile {
    base: *mut f32,
}

impl SharedTile {
    #[inline(never)]
    unsafe fn fill(&self, src: *const f32, tid: usize) {
        for j in 0..TILE / THREADS {
            let i = j * THREADS + tid;
            unsafe { *self.base.add(i) = *src.add(i) };
        }
    }

    #[inline(never)]
    unsafe fn column(&self, col: usize) -> f32 {
        let mut s = 0.0;
        let mut p = self.base.wrapping_add(col) as *const f32;
        for _ in 0..ROWS {
            s += unsafe { *p };
            p = p.wrapping_add(COLS);
        }
        s
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_struct_tile_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile = SharedTile { base: dynamic_shared_base() };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { tile.fill(input.add(t as usize * TILE), tid) };
        barrier();
        if tid < COLS {
            acc += unsafe { tile.column(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// The tiles of a block as a cursor handing out `Option<u32>`.
struct TileCursor {
    next: u32,
    step: u32,
    end: u32,
}

impl TileCursor {
    fn for_this_block(end: u32) -> Self {
        TileCursor { next: block_idx_x(), step: grid_dim_x(), end }
    }

    fn advance(&mut self) -> Option<u32> {
        if self.next < self.end {
            let t = self.next;
            self.next += self.step;
            Some(t)
        } else {
            None
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_option_tile_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut cursor = TileCursor::for_this_block(tiles);
    let mut acc: Option<f32> = None;
    while let Some(t) = cursor.advance() {
        unsafe {
            let src = input.add(t as usize * TILE);
            *smem.add(tid) = *src.add(tid);
            *smem.add(tid + 64) = *src.add(tid + 64);
            *smem.add(tid + 128) = *src.add(tid + 128);
            *smem.add(tid + 192) = *src.add(tid + 192);
        }
        barrier();
        if tid < COLS {
            let s: f32 = (0..ROWS).map(|k| unsafe { *smem.add(k * COLS + tid) }).sum();
            acc = Some(acc.unwrap_or(0.0) + s);
        }
        barrier();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc.unwrap_or(0.0) };
    }
}

/// Warp 1 loads, warp 0 sums, with two buffers: at step `i` warp 1 fills the buffer of tile
/// `i + 1` while warp 0 sums the buffer of tile `i`; one barrier per step hands them over.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_match_warp_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let lane = lane_id() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if tiles > b { (tiles - b).div_ceil(g) } else { 0 };
    let smem = dynamic_shared_base::<f32>();
    let load = |i: u32| {
        let t = b + i * g;
        let buf = smem.wrapping_add((i as usize % 2) * TILE);
        let src = input.wrapping_add(t as usize * TILE);
        for r in 0..TILE / COLS {
            unsafe { *buf.add(r * COLS + lane) = *src.add(r * COLS + lane) };
        }
    };
    if mine > 0 && warp_id() == 1 {
        load(0);
    }
    barrier();
    let mut acc = 0.0f32;
    for i in 0..mine {
        match warp_id() {
            0 => {
                let buf = smem.wrapping_add((i as usize % 2) * TILE);
                for k in 0..ROWS {
                    acc += unsafe { *buf.add(k * COLS + lane) };
                }
            }
            1 => {
                if i + 1 < mine {
                    load(i + 1);
                }
            }
            _ => {}
        }
        barrier();
    }
    if warp_id() == 0 {
        unsafe { *out.add(b as usize * COLS + lane) = acc };
    }
}

/// Thread `t` reads row `t % 8`, columns `4 (t / 8) .. + 4` of every tile as one quad and keeps
/// four running sums; the eight rows of a column group are eight consecutive lanes, so a
/// segment sum of 8 lanes finishes each column at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_segment_sum_groups(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (group, row) = (tid / ROWS, tid % ROWS);
    let quads = dynamic_shared_base::<[f32; 4]>();
    let mut acc = [0.0f32; 4];
    let mut t = block_idx_x();
    while t < tiles {
        unsafe {
            *quads.add(tid) = *(input as *const [f32; 4]).add(t as usize * (TILE / 4) + tid);
            barrier();
            let v = *quads.add(row * (COLS / 4) + group);
            for (a, x) in acc.iter_mut().zip(v) {
                *a += x;
            }
            barrier();
        }
        t += grid_dim_x();
    }
    let totals = acc.map(|a| segment_sum(a, ROWS as u32));
    if row == 0 {
        let base = block_idx_x() as usize * COLS + 4 * group;
        for (j, total) in totals.into_iter().enumerate() {
            unsafe { *out.add(base + j) = total };
        }
    }
}

/// All eight KiB hold eight tile slots; the two warps sum alternate slots, and after the last
/// batch warp 1 hands its sums to warp 0 through slot 0, once every read of the slots is done.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_full_window_reuse_slot(input: *const f32, tiles: u32, out: *mut f32) {
    const SLOTS: u32 = 8;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let (col, parity) = (tid % COLS, tid / COLS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if tiles > b { (tiles - b).div_ceil(g) } else { 0 };
    let quads = dynamic_shared_base::<[f32; 4]>();
    let floats = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut done = 0u32;
    while done < mine {
        let n = (mine - done).min(SLOTS) as usize;
        for slot in 0..n {
            let t = b + g * (done + slot as u32);
            unsafe {
                *quads.add(slot * (TILE / 4) + tid) = *(input as *const [f32; 4]).add(t as usize * (TILE / 4) + tid);
            }
        }
        barrier();
        for slot in (parity..n).step_by(2) {
            for k in 0..ROWS {
                acc += unsafe { *floats.add(slot * TILE + k * COLS + col) };
            }
        }
        barrier();
        done += n as u32;
    }
    if parity == 1 {
        unsafe { *floats.add(col) = acc };
    }
    barrier();
    if parity == 0 {
        unsafe { *out.add(b as usize * COLS + col) = acc + *floats.add(col) };
    }
}

/// Staging in four passes given by the windows of a table of bounds; the column is folded.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_windows_bounds_fold(input: *const f32, tiles: u32, out: *mut f32) {
    const BOUNDS: [usize; 5] = [0, 64, 128, 192, 256];
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        for w in BOUNDS.windows(2) {
            let i = w[0] + tid;
            if i < w[1] {
                unsafe { *smem.add(i) = *src.add(i) };
            }
        }
        barrier();
        if tid < COLS {
            acc = (0..ROWS).fold(acc, |a, r| a + unsafe { *smem.add(r * COLS + tid) });
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// The staged tile's rows are folded in place, halving each level (rows `r + half` into rows
/// `r`), with a barrier after every level; row 0 then holds the tile's column sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_row_tree_in_place(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe {
            let src = input.add(t as usize * TILE);
            for i in [tid, tid + 64, tid + 128, tid + 192] {
                *smem.add(i) = *src.add(i);
            }
        }
        barrier();
        for half in [4usize, 2, 1] {
            let width = half * COLS;
            let mut i = tid;
            while i < width {
                unsafe { *smem.add(i) += *smem.add(i + width) };
                i += THREADS;
            }
            barrier();
        }
        if tid < COLS {
            acc += unsafe { *smem.add(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}
