//! Plain shared-memory kernels that lean on warps: lanes combined with the device API's warp
//! shuffles (`segment_sum`, `warp_sum`), the next tile prefetched into registers, padded and
//! transposed staging, and per-warp partials.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::reduce::{segment_sum, warp_sum};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, launch, thread_idx_x, warp_id};
use crate::{COLS, ROWS, TILE};

#[inline(always)]
fn owned(tiles: u32, block: u32, grid: u32) -> u32 {
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

/// Four floats moved by one 16-byte access.
#[repr(C, align(16))]
#[derive(Clone, Copy, Default)]
struct F4([f32; 4]);

/// Row pitch of the padded transposed staging (a column of 8 rows plus one pad float).
const PITCH: usize = ROWS + 1;

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// Quads staged one per thread; lane `4q + r` of warp `w` reads a quad of row `4w + r` and
/// `segment_sum` over 4 lanes folds the warp's four rows, so lane `l` holds column `l`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_segment_quads(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let quads = s as *mut F4;
    let part = s.add(TILE);
    let tid = thread_idx_x() as usize;
    let (w, l) = (warp_id() as usize, lane_id() as usize);
    let (q, rr) = (l / 4, l % 4);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        *quads.add(tid) = *(input.add(t as usize * TILE) as *const F4).add(tid);
        barrier();
        let v = *quads.add((4 * w + rr) * (COLS / 4) + q);
        let mut picked = 0.0f32;
        for j in 0..4 {
            let total = segment_sum(v.0[j], 4);
            if j == rr {
                picked = total;
            }
        }
        acc += picked;
        barrier();
        t += grid;
    }
    if w == 1 {
        *part.add(l) = acc;
    }
    barrier();
    if w == 0 {
        *out.add(block as usize * COLS + l) = acc + *part.add(l);
    }
}

/// The next tile's four floats per thread are loaded into registers while warp 0 sums the
/// staged one; the registers are stored after the closing barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_register_prefetch(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    let load = |k: u32| -> [f32; 4] {
        let src = input.wrapping_add((block + k * grid) as usize * TILE + tid);
        unsafe { [*src, *src.add(64), *src.add(128), *src.add(192)] }
    };
    let mut regs = if n > 0 { load(0) } else { [0.0; 4] };
    let mut acc = 0.0f32;
    for k in 0..n {
        for (i, v) in regs.iter().enumerate() {
            *s.add(tid + 64 * i) = *v;
        }
        barrier();
        if k + 1 < n {
            regs = load(k + 1);
        }
        if tid < 32 {
            for r in 0..ROWS {
                acc += *s.add(r * COLS + tid);
            }
        }
        barrier();
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Up to eight tiles staged at once; for each of its 16 columns a warp gives every lane two of
/// the column's 64 elements and adds them with `warp_sum`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_warp_sum_columns(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (w, l) = (warp_id() as usize, lane_id() as usize);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n_owned = owned(tiles, block, grid);
    let mut acc = [0.0f32; 16];
    let mut first = 0u32;
    while first < n_owned {
        let n = (n_owned - first).min(8) as usize;
        for j in 0..n {
            let src = input.add((block + (first + j as u32) * grid) as usize * TILE);
            for k in 0..4 {
                *s.add(j * TILE + tid + 64 * k) = *src.add(tid + 64 * k);
            }
        }
        barrier();
        for (jc, a) in acc.iter_mut().enumerate() {
            let c = w * 16 + jc;
            let mut v = 0.0f32;
            for e in [l, l + 32] {
                let (slot, row) = (e / ROWS, e % ROWS);
                if slot < n {
                    v += *s.add(slot * TILE + row * COLS + c);
                }
            }
            *a += warp_sum(v);
        }
        barrier();
        first += 8;
    }
    for (jc, a) in acc.iter().enumerate() {
        if l == jc {
            *out.add(block as usize * COLS + w * 16 + jc) = *a;
        }
    }
}

/// Tiles staged transposed with a padded pitch of nine floats per column; warp `h` sums rows
/// `4h..4h + 4` of its column and warp 1's partials follow the padded tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_padded_transpose(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let part = s.add(COLS * PITCH);
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            let e = tid + 64 * k;
            *s.add((e % COLS) * PITCH + e / COLS) = *src.add(e);
        }
        barrier();
        let column = s.add(col * PITCH + 4 * half);
        acc += *column + *column.add(1) + *column.add(2) + *column.add(3);
        barrier();
        t += grid;
    }
    if half == 1 {
        *part.add(col) = acc;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * COLS + col) = acc + *part.add(col);
    }
}

/// Adjacent lanes share a column (`tid / 2`), each summing half its rows; one `segment_sum`
/// over lane pairs at the end gives the column, written by the even lane.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_lane_pairs_shuffle(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let (c, h) = (tid / 2, tid % 2);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        for r in 4 * h..4 * h + 4 {
            acc += *s.add(r * COLS + c);
        }
        barrier();
        t += grid;
    }
    let total = segment_sum(acc, 2);
    if h == 0 {
        *out.add(block as usize * COLS + c) = total;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// As `r19_pw_segment_quads`, but warp 0 reads warp 1's partials without the barrier after
/// they are stored.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_bad_segment_no_exchange_sync(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let quads = s as *mut F4;
    let part = s.add(TILE);
    let tid = thread_idx_x() as usize;
    let (w, l) = (warp_id() as usize, lane_id() as usize);
    let (q, rr) = (l / 4, l % 4);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        *quads.add(tid) = *(input.add(t as usize * TILE) as *const F4).add(tid);
        barrier();
        let v = *quads.add((4 * w + rr) * (COLS / 4) + q);
        let mut picked = 0.0f32;
        for j in 0..4 {
            let total = segment_sum(v.0[j], 4);
            if j == rr {
                picked = total;
            }
        }
        acc += picked;
        barrier();
        t += grid;
    }
    if w == 1 {
        *part.add(l) = acc;
    } else {
        *out.add(block as usize * COLS + l) = acc + *part.add(l);
    }
}

/// The closing barrier after the sum was dropped ("the store is already behind a barrier"):
/// the prefetched registers of the next tile are stored while warp 0 still sums this one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_bad_prefetch_no_closing_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    let load = |k: u32| -> [f32; 4] {
        let src = input.wrapping_add((block + k * grid) as usize * TILE + tid);
        unsafe { [*src, *src.add(64), *src.add(128), *src.add(192)] }
    };
    let mut regs = if n > 0 { load(0) } else { [0.0; 4] };
    let mut acc = 0.0f32;
    for k in 0..n {
        for (i, v) in regs.iter().enumerate() {
            *s.add(tid + 64 * i) = *v;
        }
        barrier();
        if k + 1 < n {
            regs = load(k + 1);
        }
        if tid < 32 {
            for r in 0..ROWS {
                acc += *s.add(r * COLS + tid);
            }
        }
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Sixteen floats reserved at the front "for per-warp flags" push the eight staged tiles 64
/// bytes past the end of the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_bad_flags_header_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const HEADER: usize = 16;
    let s = dynamic_shared_base::<f32>().add(HEADER);
    let tid = thread_idx_x() as usize;
    let (w, l) = (warp_id() as usize, lane_id() as usize);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n_owned = owned(tiles, block, grid);
    let mut acc = [0.0f32; 16];
    let mut first = 0u32;
    while first < n_owned {
        let n = (n_owned - first).min(8) as usize;
        for j in 0..n {
            let src = input.add((block + (first + j as u32) * grid) as usize * TILE);
            for k in 0..4 {
                *s.add(j * TILE + tid + 64 * k) = *src.add(tid + 64 * k);
            }
        }
        barrier();
        for (jc, a) in acc.iter_mut().enumerate() {
            let c = w * 16 + jc;
            let mut v = 0.0f32;
            for e in [l, l + 32] {
                let (slot, row) = (e / ROWS, e % ROWS);
                if slot < n {
                    v += *s.add(slot * TILE + row * COLS + c);
                }
            }
            *a += warp_sum(v);
        }
        barrier();
        first += 8;
    }
    for (jc, a) in acc.iter().enumerate() {
        if l == jc {
            *out.add(block as usize * COLS + w * 16 + jc) = *a;
        }
    }
}

/// Padded staging swept over `ROWS * 33` slots with a barrier after each sweep: threads 0..8
/// make five sweeps and the others four, so the block's barriers no longer line up.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_bad_padded_sweep_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const ROW_PITCH: usize = COLS + 1;
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        let mut p = tid;
        while p < ROWS * ROW_PITCH {
            let (r, c) = (p / ROW_PITCH, p % ROW_PITCH);
            if c < COLS {
                *s.add(p) = *src.add(r * COLS + c);
            }
            p += 64;
            barrier();
        }
        if tid < 32 {
            for r in 0..ROWS {
                acc += *s.add(r * ROW_PITCH + tid);
            }
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// As `r19_pw_padded_transpose`, but both warps store their partial at the lane's index: two
/// threads write each of slots 0..32 in one interval, and slots 32..64 are never written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pw_bad_partial_slot_by_lane(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let part = s.add(COLS * PITCH);
    let tid = thread_idx_x() as usize;
    let lane = lane_id() as usize;
    let (col, half) = (tid % COLS, tid / COLS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            let e = tid + 64 * k;
            *s.add((e % COLS) * PITCH + e / COLS) = *src.add(e);
        }
        barrier();
        let column = s.add(col * PITCH + 4 * half);
        acc += *column + *column.add(1) + *column.add(2) + *column.add(3);
        barrier();
        t += grid;
    }
    *part.add(lane) = acc;
    barrier();
    if half == 0 {
        *out.add(block as usize * COLS + col) = *part.add(lane) + *part.add(lane + 32);
    }
}
