//! Style `numba`: kernels ported line by line from Numba CUDA Python. A `cuda` module stands in
//! for Numba's (`cuda::threadIdx_x()`, `cuda::grid1()`, `cuda::syncthreads()`), shared arrays are
//! carved from dynamic shared memory like `cuda.shared.array(shape, dtype)`, loops are the flat
//! `for t in range(bx, tiles, cuda.gridDim.x)` of the originals written as `while` loops, and the
//! pipelined variants call the device API's pipeline where the Python had a `syncthreads()`.

#![allow(non_snake_case)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

/// What the Python kernels used from `numba.cuda`.
mod cuda {
    #[inline(always)]
    pub fn threadIdx_x() -> u32 {
        crate::device::thread_idx_x()
    }
    #[inline(always)]
    pub fn blockIdx_x() -> u32 {
        crate::device::block_idx_x()
    }
    #[inline(always)]
    pub fn blockDim_x() -> u32 {
        crate::device::block_dim_x()
    }
    #[inline(always)]
    pub fn gridDim_x() -> u32 {
        crate::device::grid_dim_x()
    }
    /// `cuda.grid(1)`.
    #[inline(always)]
    pub fn grid1() -> u32 {
        blockIdx_x() * blockDim_x() + threadIdx_x()
    }
    /// `cuda.syncthreads()`.
    #[inline(always)]
    pub fn syncthreads() {
        crate::device::barrier()
    }
    /// `cuda.shared.array(n, float32)` placed at byte `offset` of dynamic shared memory.
    #[inline(always)]
    pub fn shared_array_f32(offset: usize) -> *mut f32 {
        crate::device::dynamic_shared_base::<f32>().wrapping_add(offset / 4)
    }
    /// The shared-window address of byte `offset` (what mbarriers and bulk copies take).
    #[inline(always)]
    pub fn shared_window(offset: u32) -> u32 {
        crate::device::dynamic_shared_window_address() + offset
    }
}

const NTHREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const NROWS: usize = 8;
const NCOLS: usize = 32;
const NCONSUMERS: u32 = 32;

#[inline(always)]
fn declare_launch() {
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
}

/// `def colsum(tile, c): s = 0.0; for r in range(8): s += tile[r * 32 + c]; return s`
#[inline(always)]
unsafe fn colsum(tile: *const f32, c: usize) -> f32 {
    let mut s = 0.0f32;
    let mut r = 0;
    while r < NROWS {
        s += *tile.add(r * NCOLS + c);
        r += 1;
    }
    s
}

/// Four stages: `bars` at byte 0, `ring = cuda.shared.array((4, 256), float32)` at byte 1024.
/// Thread 0 copies, threads 32..63 sum their column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_numba_grid_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    declare_launch();
    let tx = cuda::threadIdx_x();
    let bx = cuda::blockIdx_x();
    let bars = cuda::shared_window(0);
    let ring_addr = cuda::shared_window(1024);
    let ring = cuda::shared_array_f32(1024);
    if tx == 0 {
        Pipeline::<4>::init(bars, NCONSUMERS);
    }
    cuda::syncthreads();
    let pipe = Pipeline::<4>::attach(bars);
    if tx == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = bx;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_addr + st.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += cuda::gridDim_x();
        }
        pipe.producer_tail(st);
    } else if tx >= 32 {
        let c = (tx - 32) as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = bx;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += colsum(ring.add(st.index() as usize * TILE), c);
            pipe.consumer_release(&st);
            st.advance();
            t += cuda::gridDim_x();
        }
        out.add(bx as usize * NCOLS + c).write(acc);
    }
}

/// Plain double buffer, as the Python had it: `sm = cuda.shared.array((2, 256), float32)`;
/// tile `k + 1` is staged into buffer `(k + 1) % 2` while warp 0 sums buffer `k % 2`, one
/// `syncthreads()` per tile (plus one after the first staging).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_numba_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    declare_launch();
    let tx = cuda::threadIdx_x() as usize;
    let bx = cuda::blockIdx_x();
    let gx = cuda::gridDim_x();
    let sm = cuda::shared_array_f32(0);
    let mut acc = 0.0f32;
    let mut t = bx;
    if t < tiles {
        let mut i = tx;
        while i < TILE {
            *sm.add(i) = *input.add(t as usize * TILE + i);
            i += NTHREADS as usize;
        }
    }
    cuda::syncthreads();
    let mut k: u32 = 0;
    while t < tiles {
        let nxt = t + gx;
        if nxt < tiles {
            let dst = sm.add(((k + 1) % 2) as usize * TILE);
            let mut i = tx;
            while i < TILE {
                *dst.add(i) = *input.add(nxt as usize * TILE + i);
                i += NTHREADS as usize;
            }
        }
        if tx < NCOLS {
            acc += colsum(sm.add((k % 2) as usize * TILE), tx);
        }
        cuda::syncthreads();
        t = nxt;
        k += 1;
    }
    if tx < NCOLS {
        *out.add(bx as usize * NCOLS + tx) = acc;
    }
}

/// Two stages at the top of the window (`ring` at byte 6144), barriers at byte 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_numba_two_stage_top(input: *const f32, tiles: u32, out: *mut f32) {
    const RING_OFF: u32 = SMEM_BYTES - 2 * TILE_BYTES;
    declare_launch();
    let tx = cuda::threadIdx_x();
    let bx = cuda::blockIdx_x();
    let bars = cuda::shared_window(0);
    let pipe = if tx == 0 { Pipeline::<2>::init(bars, NCONSUMERS) } else { Pipeline::<2>::attach(bars) };
    cuda::syncthreads();
    if tx == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = bx;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = cuda::shared_window(RING_OFF) + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += cuda::gridDim_x();
        }
        pipe.producer_tail(st);
    } else if tx >= 32 {
        let ring = cuda::shared_array_f32(RING_OFF as usize);
        let c = (tx - 32) as usize;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = bx;
        while t < tiles {
            pipe.consumer_wait(&st);
            let base = st.index() as usize * TILE;
            for r in 0..NROWS {
                acc += *ring.add(base + r * NCOLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += cuda::gridDim_x();
        }
        *out.add(bx as usize * NCOLS + c) = acc;
    }
}

/// Plain, the simplest port: `i = cuda.grid(1)`; per tile stage with a block-stride loop,
/// `syncthreads()`, threads 0..31 sum, `syncthreads()`; `out[i - bx * 32] = acc`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_numba_plain_grid(input: *const f32, tiles: u32, out: *mut f32) {
    declare_launch();
    let i = cuda::grid1();
    let tx = cuda::threadIdx_x() as usize;
    let bx = cuda::blockIdx_x();
    let sm = cuda::shared_array_f32(0);
    let mut acc = 0.0f32;
    let mut t = bx;
    while t < tiles {
        let mut j = tx;
        while j < TILE {
            *sm.add(j) = *input.add(t as usize * TILE + j);
            j += NTHREADS as usize;
        }
        cuda::syncthreads();
        if tx < NCOLS {
            acc += colsum(sm, tx);
        }
        cuda::syncthreads();
        t += cuda::gridDim_x();
    }
    if tx < NCOLS {
        *out.add((i - bx * NCOLS as u32) as usize) = acc;
    }
}

/// `def colsum_i32(tile, c)`: the original summed an `int32` view of the tile.
#[inline(always)]
unsafe fn colsum_i32(tile: *const u32, c: usize) -> f32 {
    let mut s = 0.0f32;
    let mut r = 0;
    while r < NROWS {
        s += *tile.add(r * NCOLS + c) as f32;
        r += 1;
    }
    s
}

/// BROKEN: the stage is handed to `colsum_i32`, a helper ported from an `int32` version of the
/// kernel, through `as *const u32`: the shared `f32` tile is read as integers, and each bit
/// pattern converted to a float (sums near 10^9 instead of the tile's values).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_numba_bad_int32_view(input: *const f32, tiles: u32, out: *mut f32) {
    declare_launch();
    let tx = cuda::threadIdx_x();
    let bx = cuda::blockIdx_x();
    let bars = cuda::shared_window(0);
    let ring_addr = cuda::shared_window(1024);
    let ring = cuda::shared_array_f32(1024);
    if tx == 0 {
        Pipeline::<4>::init(bars, NCONSUMERS);
    }
    cuda::syncthreads();
    let pipe = Pipeline::<4>::attach(bars);
    if tx == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = bx;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_addr + st.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += cuda::gridDim_x();
        }
        pipe.producer_tail(st);
    } else if tx >= 32 {
        let c = (tx - 32) as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = bx;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += colsum_i32(ring.add(st.index() as usize * TILE) as *const u32, c);
            pipe.consumer_release(&st);
            st.advance();
            t += cuda::gridDim_x();
        }
        *out.add(bx as usize * NCOLS + c) = acc;
    }
}

/// BROKEN: the Python's producer test `if cuda.threadIdx.x % 32 == 0` ("lane 0") was kept, so
/// threads 0 and 32 both produce (two arrivals and two copies per stage on full barriers set up
/// for one) and only threads 33..63 consume: 31 releases against the 32 `init` announced, so the
/// empty barriers never complete and the producers hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_numba_bad_lane_zero_producer(input: *const f32, tiles: u32, out: *mut f32) {
    declare_launch();
    let tx = cuda::threadIdx_x();
    let bx = cuda::blockIdx_x();
    let bars = cuda::shared_window(0);
    let ring_addr = cuda::shared_window(1024);
    let ring = cuda::shared_array_f32(1024);
    if tx == 0 {
        Pipeline::<4>::init(bars, NCONSUMERS);
    }
    cuda::syncthreads();
    let pipe = Pipeline::<4>::attach(bars);
    if tx % 32 == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = bx;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_addr + st.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += cuda::gridDim_x();
        }
        pipe.producer_tail(st);
    } else if tx >= 32 {
        let c = (tx - 32) as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = bx;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += colsum(ring.add(st.index() as usize * TILE), c);
            pipe.consumer_release(&st);
            st.advance();
            t += cuda::gridDim_x();
        }
        *out.add(bx as usize * NCOLS + c) = acc;
    }
}

/// BROKEN: the Python read the tile and then called `cuda.syncthreads()`; the port put
/// `consumer_wait` where the `syncthreads()` was, after the read: every tile is summed before
/// its copy is known to have landed (the first tile certainly is not there yet).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_numba_bad_read_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    declare_launch();
    let tx = cuda::threadIdx_x();
    let bx = cuda::blockIdx_x();
    let bars = cuda::shared_window(0);
    let ring_addr = cuda::shared_window(1024);
    let ring = cuda::shared_array_f32(1024);
    if tx == 0 {
        Pipeline::<4>::init(bars, NCONSUMERS);
    }
    cuda::syncthreads();
    let pipe = Pipeline::<4>::attach(bars);
    if tx == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = bx;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_addr + st.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += cuda::gridDim_x();
        }
        pipe.producer_tail(st);
    } else if tx >= 32 {
        let c = (tx - 32) as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = bx;
        while t < tiles {
            acc += colsum(ring.add(st.index() as usize * TILE), c);
            pipe.consumer_wait(&st);
            pipe.consumer_release(&st);
            st.advance();
            t += cuda::gridDim_x();
        }
        *out.add(bx as usize * NCOLS + c) = acc;
    }
}

/// Carves shared arrays one after the other, like consecutive `cuda.shared.array` calls.
struct Carver {
    offset: u32,
}

impl Carver {
    /// `cuda.shared.array(n, int32)`.
    #[inline(always)]
    fn int32(&mut self, n: u32) -> u32 {
        let at = self.offset;
        self.offset += 4 * n;
        at
    }
    /// `cuda.shared.array(n, int64)` for mbarriers: "int64 words", no extra alignment.
    #[inline(always)]
    fn int64(&mut self, n: u32) -> u32 {
        let at = self.offset;
        self.offset += 8 * n;
        at
    }
    /// `cuda.shared.array((stages, 256), float32)`, aligned to a whole tile for the bulk copies.
    #[inline(always)]
    fn tiles(&mut self, stages: u32) -> u32 {
        let at = self.offset.next_multiple_of(TILE_BYTES);
        self.offset = at + stages * TILE_BYTES;
        at
    }
}

/// BROKEN: a one-word `int32` array (the block's tile count) is carved first and the eight
/// mbarriers right after it, at byte 4: mbarriers must be 8-byte aligned, and the first `init`
/// on a misaligned address faults.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_numba_bad_misaligned_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    declare_launch();
    let tx = cuda::threadIdx_x();
    let bx = cuda::blockIdx_x();
    let mut carve = Carver { offset: 0 };
    let count_off = carve.int32(1);
    let bars_off = carve.int64(2 * 4);
    let ring_off = carve.tiles(4);
    let count = cuda::shared_array_f32(count_off as usize) as *mut u32;
    let bars = cuda::shared_window(bars_off);
    let ring_addr = cuda::shared_window(ring_off);
    let ring = cuda::shared_array_f32(ring_off as usize);
    if tx == 0 {
        Pipeline::<4>::init(bars, NCONSUMERS);
        *count = if bx < tiles { (tiles - bx).div_ceil(cuda::gridDim_x().max(1)) } else { 0 };
    }
    cuda::syncthreads();
    let pipe = Pipeline::<4>::attach(bars);
    let n = *count;
    if tx == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut k = 0;
        while k < n {
            let t = bx + k * cuda::gridDim_x();
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_addr + st.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            k += 1;
        }
        pipe.producer_tail(st);
    } else if tx >= 32 {
        let c = (tx - 32) as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < n {
            pipe.consumer_wait(&st);
            acc += colsum(ring.add(st.index() as usize * TILE), c);
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        *out.add(bx as usize * NCOLS + c) = acc;
    }
}
