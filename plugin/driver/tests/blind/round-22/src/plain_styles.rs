//! Plain shared memory (no pipeline) written in other styles: a staging struct with methods,
//! the device API's batched `strided` loop, a scratch area typed as an array of rows, and the
//! `RowLayout` register rows used to stage a tile.

use crate::device::launch;
use crate::device::row::{FourFloats, RowLayout};
use crate::device::strided::strided;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;
const BLOCK: usize = 64;

/// A tile-sized staging buffer in shared memory and the thread that uses it.
struct Stager {
    buf: *mut f32,
    tid: usize,
}

impl Stager {
    /// This thread's four floats of the tile at `src`.
    #[inline(always)]
    unsafe fn load(&self, src: *const f32) {
        for j in 0..TILE / BLOCK {
            let i = self.tid + j * BLOCK;
            *self.buf.add(i) = *src.add(i);
        }
    }

    #[inline(always)]
    unsafe fn column(&self, c: usize) -> f32 {
        let mut s = 0.0f32;
        for r in 0..ROWS {
            s += *self.buf.add(r * COLS + c);
        }
        s
    }
}

/// A `Stager` struct does the loads and the column reads; the kernel places the barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_ps_struct_stager(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let stager = Stager { buf: dynamic_shared_base::<f32>(), tid };
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        stager.load(input.add(t as usize * TILE));
        barrier();
        if tid < COLS {
            acc += stager.column(tid);
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

/// The tile is staged with the device API's `strided` loop (batched loads), and warp 0 reads
/// its column through a slice.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_ps_strided_loads(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add(t as usize * TILE);
        strided(tid, TILE, BLOCK, |i| unsafe { *src.add(i) }, |i, v: f32| unsafe { *buf.add(i) = v });
        barrier();
        if tid < COLS {
            let tile = core::slice::from_raw_parts(buf as *const f32, TILE);
            acc += tile.iter().skip(tid).step_by(COLS).sum::<f32>();
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

type Halves = [[f32; COLS]; 2];

/// No staging of tiles: each thread sums half a column from global memory; the halves meet in
/// a scratch area typed `[[f32; 32]; 2]`, read back with an iterator.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_ps_halves_array(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let halves = dynamic_shared_base::<Halves>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add(t as usize * TILE + half * (ROWS / 2) * COLS + col);
        for r in 0..ROWS / 2 {
            acc += *src.add(r * COLS);
        }
        t += step;
    }
    (*halves)[half][col] = acc;
    barrier();
    if half == 0 {
        let total: f32 = (*halves).iter().map(|h| h[col]).sum();
        *out.add(first as usize * COLS + col) = total;
    }
}

/// Stages a tile through `RowLayout` (one 16-byte chunk per thread) when the layout fits, or
/// float by float otherwise.
#[inline(always)]
unsafe fn stage_tile(buf: *mut f32, src: *const f32, layout: Option<RowLayout>, tid: usize) {
    match layout {
        Some(layout) => {
            let values = layout.load(src, 0.0);
            let first = 4 * tid;
            if first < TILE {
                *(buf.add(first) as *mut FourFloats) = FourFloats(values[0]);
            }
        }
        None => {
            let mut i = tid;
            while i < TILE {
                *buf.add(i) = *src.add(i);
                i += BLOCK;
            }
        }
    }
}

/// The tile goes through registers with `RowLayout` (row of 256 floats, 64 threads), then to
/// shared memory; warp 0 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_ps_row_layout(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let layout = RowLayout::new(TILE, &[input as usize]);
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        stage_tile(buf, input.add(t as usize * TILE), layout, tid);
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += *buf.add(r * COLS + tid);
            }
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// A stager that believed its buffer to be 128 floats and wraps its index.
struct WrappingStager {
    buf: *mut f32,
    tid: usize,
}

impl WrappingStager {
    const CAPACITY: usize = 128;

    /// This thread's four consecutive floats, `4 tid .. 4 tid + 4`.
    #[inline(always)]
    unsafe fn load(&self, src: *const f32) {
        for j in 0..TILE / BLOCK {
            let i = 4 * self.tid + j;
            *self.buf.add(i % Self::CAPACITY) = *src.add(i);
        }
    }
}

/// BROKEN: `WrappingStager` stores element `i` at `i % 128`: threads `t` and `t + 32` store
/// into the same four slots (rows 0-3 hold whichever came last), and rows 4-7 of the buffer are
/// never written (warp 0 sums stale memory there).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_ps_bad_stager_wraps(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let stager = WrappingStager { buf, tid };
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        stager.load(input.add(t as usize * TILE));
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += *buf.add(r * COLS + tid);
            }
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

/// Reads warp 0's columns and then synchronises "so that the buffer can be reused".
#[inline(always)]
unsafe fn read_then_sync(stager: &Stager) -> f32 {
    let v = if stager.tid < COLS { stager.column(stager.tid) } else { 0.0 };
    barrier();
    v
}

/// BROKEN: the only barrier per tile is the one inside `read_then_sync`, after the reads: warp
/// 0 sums rows that warp 1 may not have stored yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_ps_bad_read_then_sync(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let stager = Stager { buf: dynamic_shared_base::<f32>(), tid };
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        stager.load(input.add(t as usize * TILE));
        acc += read_then_sync(&stager);
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}

/// BROKEN: as `r22_ps_halves_array` without the barrier between the halves' stores and warp 0's
/// reads of warp 1's row of the scratch array.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_ps_bad_halves_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let halves = dynamic_shared_base::<Halves>();
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        let src = input.add(t as usize * TILE + half * (ROWS / 2) * COLS + col);
        for r in 0..ROWS / 2 {
            acc += *src.add(r * COLS);
        }
        t += step;
    }
    (*halves)[half][col] = acc;
    if half == 0 {
        let total: f32 = (*halves).iter().map(|h| h[col]).sum();
        *out.add(first as usize * COLS + col) = total;
    }
}

/// BROKEN: the staging buffer is placed "one tile before the window's end" as `8192 - TILE`
/// bytes, with `TILE` in floats: it starts at byte 7936 and the tile's last 768 bytes fall
/// past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_ps_bad_row_buffer_near_end(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const WINDOW: usize = 8192;
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<u8>().add(WINDOW - TILE) as *mut f32;
    let layout = RowLayout::new(TILE, &[input as usize]);
    let first = block_idx_x();
    let step = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        stage_tile(buf, input.add(t as usize * TILE), layout, tid);
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += *buf.add(r * COLS + tid);
            }
        }
        barrier();
        t += step;
    }
    if tid < COLS {
        *out.add(first as usize * COLS + tid) = acc;
    }
}
