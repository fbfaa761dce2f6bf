//! ThunderKittens-style tiles: a shared tile type `St<R, C>` that knows its own bytes, a global
//! layout `Gl` that hands out tile sources, `tma::expect`/`tma::load_async` that take the tile
//! type, a warp-group `load` into a tile, `col_sum` on a tile, subtiles, and a bump
//! `SharedAllocator` that carves the window the way TK's `shared_allocator` does.
//!
//! Launch: 64 threads (warp 0 is the producer warp or a worker warp, warp 1 the consumer warp),
//! 8 blocks, 8192 bytes of dynamic shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

const THREADS: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const CONSUMER_THREADS: u32 = 32;
const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;

/// A shared tile of `R` rows by `C` floats, row-major, at a byte offset of the window.
#[derive(Clone, Copy)]
struct St<const R: usize, const C: usize> {
    ptr: *mut f32,
    addr: u32,
}

impl<const R: usize, const C: usize> St<R, C> {
    const FLOATS: usize = R * C;
    const BYTES: u32 = (R * C * 4) as u32;

    #[inline(always)]
    fn at(byte: u32) -> Self {
        // SAFETY: the caller keeps `byte + BYTES` inside the window it declares.
        let ptr = unsafe { dynamic_shared_base::<u8>().add(byte as usize) } as *mut f32;
        St { ptr, addr: dynamic_shared_window_address() + byte }
    }

    /// The `k`-th band of `H` rows (TK's `subtile_inplace`).
    #[inline(always)]
    fn subtile<const H: usize>(&self, k: usize) -> St<H, C> {
        // SAFETY: `(k + 1) * H <= R` at every call.
        St { ptr: unsafe { self.ptr.add(k * H * C) }, addr: self.addr + (k * H * C * 4) as u32 }
    }

    #[inline(always)]
    unsafe fn get(&self, r: usize, c: usize) -> f32 {
        *self.ptr.add(r * C + c)
    }

    /// Sum of column `c` over the tile's `R` rows.
    #[inline(always)]
    unsafe fn col_sum(&self, c: usize) -> f32 {
        let mut sum = 0.0;
        for r in 0..R {
            sum += self.get(r, c);
        }
        sum
    }
}

/// The input as a global layout of 256-float tiles (TK's `gl<float, ...>`).
#[derive(Clone, Copy)]
struct Gl {
    base: *const f32,
}

impl Gl {
    #[inline(always)]
    fn tile(&self, t: u32) -> *const f32 {
        // SAFETY: `t < tiles`, and the input holds `tiles * 256` floats.
        unsafe { self.base.add(t as usize * TILE_FLOATS) }
    }
}

/// A shared vector of `N` floats (TK's `sv_fl<N>`).
#[derive(Clone, Copy)]
struct Sv<const N: usize> {
    ptr: *mut f32,
}

/// Bump allocator over the dynamic window, aligned like TK's (to 16 bytes here).
struct SharedAllocator {
    next: u32,
}

impl SharedAllocator {
    #[inline(always)]
    fn new() -> Self {
        SharedAllocator { next: 0 }
    }

    #[inline(always)]
    fn tile<const R: usize, const C: usize>(&mut self) -> St<R, C> {
        let tile = St::<R, C>::at(self.next);
        self.next += St::<R, C>::BYTES;
        tile
    }

    #[inline(always)]
    fn vec<const N: usize>(&mut self) -> Sv<N> {
        // SAFETY: as for `St::at`.
        let ptr = unsafe { dynamic_shared_base::<u8>().add(self.next as usize) } as *mut f32;
        self.next += (N * 4) as u32;
        Sv { ptr }
    }
}

/// The bulk-copy half of TK's `tma` namespace.
mod tma {
    use super::{Gl, St};
    use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

    /// Announces the bytes of one `St<R, C>` on the stage's full barrier.
    #[inline(always)]
    pub(super) fn expect<const R: usize, const C: usize, const S: u32>(
        pipe: &Pipeline<S>,
        state: &PipelineState<S>,
    ) {
        pipe.producer_expect_tx(state, St::<R, C>::BYTES);
    }

    /// Copies tile `t` of `src` into `dst`, completing on the stage's full barrier.
    #[inline(always)]
    pub(super) fn load_async<const R: usize, const C: usize, const S: u32>(
        dst: &St<R, C>,
        src: &Gl,
        t: u32,
        pipe: &Pipeline<S>,
        state: &PipelineState<S>,
    ) {
        bulk_copy_global_to_shared(dst.addr, src.tile(t) as *const u8, St::<R, C>::BYTES, pipe.producer_barrier(state));
    }
}

/// Ring slot `index` of a ring of `St<8, 32>` at the window's start.
#[inline(always)]
fn ring_slot(index: u32) -> St<8, 32> {
    St::<8, 32>::at(index * St::<8, 32>::BYTES)
}

const RING_BYTES: u32 = STAGES * St::<8, 32>::BYTES;

/// Warp-group load: every thread of the block moves one quad of the tile into `dst`.
#[inline(always)]
unsafe fn group_load(dst: &St<8, 32>, src: *const f32, tid: u32) {
    let q = tid as usize;
    *(dst.ptr.add(4 * q) as *mut [f32; 4]) = *(src.add(4 * q) as *const [f32; 4]);
}

/// A TMA ring of four `St<8, 32>` tiles: lane 0 of warp 0 loads with `tma::expect` and
/// `tma::load_async`, warp 1 takes `col_sum` of each tile it waits for.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_kittens_tma_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let gl = Gl { base: input };
    let bars = dynamic_shared_window_address() + RING_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMER_THREADS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if warp_id() == 0 {
        if lane_id() == 0 {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&state);
                tma::expect::<8, 32, STAGES>(&pipe, &state);
                tma::load_async(&ring_slot(state.index()), &gl, t, &pipe, &state);
                state.advance();
                t += g;
            }
            pipe.producer_tail(state);
        }
    } else {
        let c = lane_id() as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += ring_slot(state.index()).col_sum(c);
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Each stage is two `St<4, 32>` half tiles, loaded by two `load_async` calls under one
/// `expect` of the whole `St<8, 32>`; consumers sum both halves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_kittens_half_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let bars = dynamic_shared_window_address() + RING_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMER_THREADS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if thread_idx_x() == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            tma::expect::<8, 32, STAGES>(&pipe, &state);
            let whole = ring_slot(state.index());
            let top = whole.subtile::<4>(0);
            let bottom = whole.subtile::<4>(1);
            let src = Gl { base: input }.tile(t);
            bulk_copy_global_to_shared(top.addr, src as *const u8, St::<4, 32>::BYTES, pipe.producer_barrier(&state));
            bulk_copy_global_to_shared(
                bottom.addr,
                src.add(St::<4, 32>::FLOATS) as *const u8,
                St::<4, 32>::BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let c = lane_id() as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let whole = ring_slot(state.index());
            acc += whole.subtile::<4>(0).col_sum(c) + whole.subtile::<4>(1).col_sum(c);
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Plain shared memory: the whole block loads each tile into one `St<8, 32>` (a quad per
/// thread), a block barrier, warp 0 takes `col_sum`, a block barrier before the next load.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_kittens_group_load(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let gl = Gl { base: input };
    let tile = St::<8, 32>::at(0);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        group_load(&tile, gl.tile(t), tid);
        barrier();
        if tid < 32 {
            acc += tile.col_sum(tid as usize);
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid as usize) = acc;
    }
}

/// Plain shared memory, both warps working: warp `w` sums rows `4w..4w+4` (a `St<4, 32>`
/// subtile) across the block's tiles; the two partial rows meet in an `Sv<64>` the allocator
/// placed after the tile, and warp 0 adds them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_kittens_warp_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let gl = Gl { base: input };
    let mut alloc = SharedAllocator::new();
    let tile = alloc.tile::<8, 32>();
    let partial = alloc.vec::<64>();
    let tid = thread_idx_x();
    let w = warp_id() as usize;
    let c = lane_id() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        group_load(&tile, gl.tile(t), tid);
        barrier();
        acc += tile.subtile::<4>(w).col_sum(c);
        barrier();
        t += g;
    }
    *partial.ptr.add(w * 32 + c) = acc;
    barrier();
    if w == 0 {
        *out.add(b as usize * 32 + c) = *partial.ptr.add(c) + *partial.ptr.add(32 + c);
    }
}

/// BROKEN: the producer announces the bytes of a `St<8, 64>` (2048) while `load_async` copies
/// an `St<8, 32>` (1024): the full barrier waits for bytes that never come.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_kittens_bad_expect_wide_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let gl = Gl { base: input };
    let bars = dynamic_shared_window_address() + RING_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMER_THREADS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if warp_id() == 0 {
        if lane_id() == 0 {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&state);
                tma::expect::<8, 64, STAGES>(&pipe, &state);
                tma::load_async(&ring_slot(state.index()), &gl, t, &pipe, &state);
                state.advance();
                t += g;
            }
            pipe.producer_tail(state);
        }
    } else {
        let c = lane_id() as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += ring_slot(state.index()).col_sum(c);
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// BROKEN: TK's "phasebit starts at 0" carried over to the producer: its state is built with
/// `PipelineState::new()` (phase 0), so its first `producer_acquire` waits for a release of an
/// empty stage that no consumer will ever make (consumers wait for the first fill).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_kittens_bad_phasebit_zero(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let gl = Gl { base: input };
    let bars = dynamic_shared_window_address() + RING_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMER_THREADS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if warp_id() == 0 {
        if lane_id() == 0 {
            let mut state = PipelineState::<STAGES>::new();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&state);
                tma::expect::<8, 32, STAGES>(&pipe, &state);
                tma::load_async(&ring_slot(state.index()), &gl, t, &pipe, &state);
                state.advance();
                t += g;
            }
            pipe.producer_tail(state);
        }
    } else {
        let c = lane_id() as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += ring_slot(state.index()).col_sum(c);
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// BROKEN: the barrier that should separate the group load from `col_sum` sits after the sum:
/// warp 0 reads rows 4..7, which warp 1 stores, before warp 1 has stored them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_kittens_bad_colsum_before_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let gl = Gl { base: input };
    let tile = St::<8, 32>::at(0);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        group_load(&tile, gl.tile(t), tid);
        if tid < 32 {
            acc += tile.col_sum(tid as usize);
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid as usize) = acc;
    }
}

/// BROKEN: keeps every tile of the block resident in one `St<64, 32>` (8 KiB) from the bump
/// allocator, then allocates the `Sv<64>` of partial rows after it: at byte 8192, past the
/// window, so the partial stores fault.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_kittens_bad_allocator_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let gl = Gl { base: input };
    let mut alloc = SharedAllocator::new();
    let resident = alloc.tile::<64, 32>();
    let partial = alloc.vec::<64>();
    let tid = thread_idx_x();
    let w = warp_id() as usize;
    let c = lane_id() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut k = 0usize;
    let mut t = b;
    while t < tiles {
        let slot = resident.subtile::<8>(k & 7);
        group_load(&slot, gl.tile(t), tid);
        k += 1;
        t += g;
    }
    barrier();
    let mut acc = 0.0f32;
    let mut j = 0usize;
    while j < k && j < 8 {
        acc += resident.subtile::<8>(j).subtile::<4>(w).col_sum(c);
        j += 1;
    }
    *partial.ptr.add(w * 32 + c) = acc;
    barrier();
    if w == 0 {
        *out.add(b as usize * 32 + c) = *partial.ptr.add(c) + *partial.ptr.add(32 + c);
    }
}
