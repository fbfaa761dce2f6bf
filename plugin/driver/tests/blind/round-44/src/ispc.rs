//! Blind round 44, style `ispc`: SPMD gang kernels in the manner of ISPC.
//!
//! A warp is a *gang* of `programCount` (32) program instances, `programIndex` its lane, and a
//! block holds `gangCount` (2) gangs. Values are `uniform` (one per gang) or `varying` (one per
//! program instance); the aliases below only document which is meant, as ISPC's qualifiers do.
//! `foreach` runs a closure over a gang's share of an index range, `foreach_block` over the
//! whole block's, and `cif` is a coherent `if`.
//!
//! Launch of every kernel: 64 threads (two gangs), 8 blocks, 8 KiB of dynamic shared memory.

#![allow(non_upper_case_globals, non_snake_case, non_camel_case_types)]

use core::mem::size_of;
use core::ops::Range;
use core::sync::atomic::{Ordering, compiler_fence};

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

type uniform<T> = T;
type varying<T> = T;

const programCount: uniform<u32> = 32;
const gangCount: uniform<u32> = 2;

const TILE_FLOATS: uniform<u32> = 256;
const TILE_BYTES: uniform<u32> = TILE_FLOATS * 4;
const COLS: uniform<u32> = 32;
const ROWS: uniform<u32> = TILE_FLOATS / COLS;

#[inline(always)]
fn programIndex() -> varying<u32> {
    device::lane_id()
}

#[inline(always)]
fn gangIndex() -> uniform<u32> {
    device::warp_id()
}

#[inline(always)]
fn launch_contract() {
    block_threads(gangCount * programCount);
    dynamic_shared_bytes(8192);
}

/// `foreach (i = start ... end)`: the gang's program instances take the indices in turn.
#[inline(always)]
fn foreach(range: Range<u32>, mut body: impl FnMut(u32)) {
    let mut i = range.start + programIndex();
    while i < range.end {
        body(i);
        i += programCount;
    }
}

/// `foreach` over every program instance of the block (both gangs).
#[inline(always)]
fn foreach_block(range: Range<u32>, mut body: impl FnMut(u32)) {
    let mut i = range.start + gangIndex() * programCount + programIndex();
    while i < range.end {
        body(i);
        i += gangCount * programCount;
    }
}

/// `cif (test) { … }`: an `if` whose test is coherent across the gang.
#[inline(always)]
fn cif(test: bool, body: impl FnOnce()) {
    if test {
        body();
    }
}

/// ISPC's `memory_barrier()`: orders this program instance's memory operations.
#[inline(always)]
fn memory_barrier() {
    compiler_fence(Ordering::SeqCst);
}

/// The producer: one program instance of one gang copies every tile of the block.
#[inline(always)]
unsafe fn produce<const N: u32>(pipe: &Pipeline<N>, ring: uniform<u32>, input: *const f32, tiles: uniform<u32>) {
    let mut st: uniform<PipelineState<N>> = PipelineState::producer_start();
    let mut t: uniform<u32> = device::block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring + st.index() * TILE_BYTES,
            input.add((t * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&st),
        );
        st.advance();
        t += device::grid_dim_x();
    }
    pipe.producer_tail(st);
}

/// The consumer gang: `foreach (c = 0 ... COLS)` gives each program instance one column.
#[inline(always)]
unsafe fn consume<const N: u32>(pipe: &Pipeline<N>, ring: *const f32, tiles: uniform<u32>, out: *mut f32) {
    let mut acc: varying<f32> = 0.0;
    let mut st: uniform<PipelineState<N>> = PipelineState::new();
    let mut t: uniform<u32> = device::block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring.add((st.index() * TILE_FLOATS) as usize);
        foreach(0..COLS, |c| {
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + c) as usize);
            }
        });
        pipe.consumer_release(&st);
        st.advance();
        t += device::grid_dim_x();
    }
    let base: uniform<u32> = device::block_idx_x() * COLS;
    foreach(0..COLS, |c| *out.add((base + c) as usize) = acc);
}

const STAGES4: uniform<u32> = 4;

/// Gang 0's program instance 0 copies into a four-stage ring (barriers at byte 0, ring from
/// byte 1024); gang 1 reduces, one column per program instance.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_ispc_gang_columns(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let window: uniform<u32> = device::dynamic_shared_window_address();
    let bars = window;
    let ring = window + 1024;
    let ring_ptr = device::dynamic_shared_base::<f32>().wrapping_add(256) as *const f32;
    let gang = gangIndex();
    cif(gang == 0 && programIndex() == 0, || {
        Pipeline::<STAGES4>::init(bars, programCount);
    });
    device::barrier();
    let pipe = Pipeline::<STAGES4>::attach(bars);
    if gang == 0 {
        cif(programIndex() == 0, || produce(&pipe, ring, input, tiles));
    } else {
        consume(&pipe, ring_ptr, tiles, out);
    }
}

const STAGES2: uniform<u32> = 2;

/// The last program instance of the last gang (thread 63) copies; gang 0 reduces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_ispc_last_lane_producer(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let window: uniform<u32> = device::dynamic_shared_window_address();
    let bars = window;
    let ring = window + 1024;
    let ring_ptr = device::dynamic_shared_base::<f32>().wrapping_add(256) as *const f32;
    let gang = gangIndex();
    let is_copier = gang == gangCount - 1 && programIndex() == programCount - 1;
    cif(is_copier, || {
        Pipeline::<STAGES2>::init(bars, programCount);
    });
    device::barrier();
    let pipe = Pipeline::<STAGES2>::attach(bars);
    if gang == 0 {
        consume(&pipe, ring_ptr, tiles, out);
    } else {
        cif(is_copier, || produce(&pipe, ring, input, tiles));
    }
}

const STAGES5: uniform<u32> = 5;

/// A five-stage ring at the start of shared memory, its barriers after it (byte 5120).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_ispc_odd_ring_after(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let window: uniform<u32> = device::dynamic_shared_window_address();
    let ring = window;
    let bars = window + STAGES5 * TILE_BYTES;
    let ring_ptr = device::dynamic_shared_base::<f32>() as *const f32;
    let gang = gangIndex();
    cif(gang == 0 && programIndex() == 0, || {
        Pipeline::<STAGES5>::init(bars, programCount);
    });
    device::barrier();
    let pipe = Pipeline::<STAGES5>::attach(bars);
    if gang == 0 {
        cif(programIndex() == 0, || produce(&pipe, ring, input, tiles));
    } else {
        consume(&pipe, ring_ptr, tiles, out);
    }
}

/// Plain shared memory: `foreach_block` stages a tile with both gangs, a block barrier, gang 0
/// reduces its columns, a block barrier before the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_ispc_plain_gang_reduce(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let tile = device::dynamic_shared_base::<f32>();
    let mut acc: varying<f32> = 0.0;
    let mut t: uniform<u32> = device::block_idx_x();
    while t < tiles {
        let src = input.add((t * TILE_FLOATS) as usize);
        foreach_block(0..TILE_FLOATS, |i| *tile.add(i as usize) = *src.add(i as usize));
        device::barrier();
        if gangIndex() == 0 {
            foreach(0..COLS, |c| {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + c) as usize);
                }
            });
        }
        device::barrier();
        t += device::grid_dim_x();
    }
    if gangIndex() == 0 {
        let base: uniform<u32> = device::block_idx_x() * COLS;
        foreach(0..COLS, |c| *out.add((base + c) as usize) = acc);
    }
}

/// A gang's place in the tile loop: its pipeline state and its next tile.
#[derive(Clone, Copy)]
struct Cursor<const N: u32> {
    st: uniform<PipelineState<N>>,
    tile: uniform<u32>,
}

impl<const N: u32> Cursor<N> {
    #[inline(always)]
    fn at_block() -> Self {
        Cursor { st: Default::default(), tile: device::block_idx_x() }
    }

    #[inline(always)]
    fn more(&self, tiles: uniform<u32>) -> bool {
        self.tile < tiles
    }

    #[inline(always)]
    fn step(&mut self) {
        self.st.advance();
        self.tile += device::grid_dim_x();
    }
}

/// BROKEN.
/// Both gangs walk the tiles with a `Cursor` (state and tile index in one struct).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_ispc_bad_default_state(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let window: uniform<u32> = device::dynamic_shared_window_address();
    let bars = window;
    let ring = window + 1024;
    let ring_ptr = device::dynamic_shared_base::<f32>().wrapping_add(256) as *const f32;
    let gang = gangIndex();
    cif(gang == 0 && programIndex() == 0, || {
        Pipeline::<STAGES4>::init(bars, programCount);
    });
    device::barrier();
    let pipe = Pipeline::<STAGES4>::attach(bars);
    if gang == 0 {
        cif(programIndex() == 0, || {
            let mut cur = Cursor::<STAGES4>::at_block();
            while cur.more(tiles) {
                pipe.producer_acquire(&cur.st);
                pipe.producer_expect_tx(&cur.st, TILE_BYTES);
                bulk_copy_global_to_shared(
                    ring + cur.st.index() * TILE_BYTES,
                    input.add((cur.tile * TILE_FLOATS) as usize) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&cur.st),
                );
                cur.step();
            }
            pipe.producer_tail(cur.st);
        });
    } else {
        let mut acc: varying<f32> = 0.0;
        let mut cur = Cursor::<STAGES4>::at_block();
        while cur.more(tiles) {
            pipe.consumer_wait(&cur.st);
            let stage = ring_ptr.add((cur.st.index() * TILE_FLOATS) as usize);
            foreach(0..COLS, |c| {
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + c) as usize);
                }
            });
            pipe.consumer_release(&cur.st);
            cur.step();
        }
        let base: uniform<u32> = device::block_idx_x() * COLS;
        foreach(0..COLS, |c| *out.add((base + c) as usize) = acc);
    }
}

/// BROKEN.
/// Four-stage ring; gang 0 copies the block's tiles, gang 1 reduces with `foreach`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_ispc_bad_uniform_producer(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let window: uniform<u32> = device::dynamic_shared_window_address();
    let bars = window;
    let ring = window + 1024;
    let ring_ptr = device::dynamic_shared_base::<f32>().wrapping_add(256) as *const f32;
    let gang = gangIndex();
    cif(gang == 0 && programIndex() == 0, || {
        Pipeline::<STAGES4>::init(bars, programCount);
    });
    device::barrier();
    let pipe = Pipeline::<STAGES4>::attach(bars);
    if gang == 0 {
        let mut st: uniform<PipelineState<STAGES4>> = PipelineState::producer_start();
        let mut t: uniform<u32> = device::block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring + st.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += device::grid_dim_x();
        }
        pipe.producer_tail(st);
    } else {
        consume(&pipe, ring_ptr, tiles, out);
    }
}

/// The block's shared header: `uniform int32 ntiles`, then the pipeline's barriers.
const HEADER_NTILES: uniform<u32> = 0;
const HEADER_BARRIERS: uniform<u32> = HEADER_NTILES + size_of::<i32>() as u32;
const RING_OFFSET: uniform<u32> = 1024;

/// BROKEN.
/// Program instance 0 writes the block's tile count into a shared header word that the
/// consumer gang reads as its loop bound; the pipeline's barriers follow the header.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_ispc_bad_misaligned_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let window: uniform<u32> = device::dynamic_shared_window_address();
    let header = device::dynamic_shared_base::<u32>();
    let bars = window + HEADER_BARRIERS;
    let ring = window + RING_OFFSET;
    let ring_ptr = device::dynamic_shared_base::<f32>().wrapping_add((RING_OFFSET / 4) as usize) as *const f32;
    let gang = gangIndex();
    cif(gang == 0 && programIndex() == 0, || {
        let b = device::block_idx_x();
        let g = device::grid_dim_x();
        let ntiles = if b < tiles { (tiles - b + g - 1).checked_div(g).unwrap_or(0) } else { 0 };
        *header.add((HEADER_NTILES / 4) as usize) = ntiles;
        Pipeline::<STAGES4>::init(bars, programCount);
    });
    device::barrier();
    let pipe = Pipeline::<STAGES4>::attach(bars);
    if gang == 0 {
        cif(programIndex() == 0, || produce(&pipe, ring, input, tiles));
    } else {
        let ntiles: uniform<u32> = *header.add((HEADER_NTILES / 4) as usize);
        let mut acc: varying<f32> = 0.0;
        let mut st: uniform<PipelineState<STAGES4>> = PipelineState::new();
        for _ in 0..ntiles {
            pipe.consumer_wait(&st);
            let stage = ring_ptr.add((st.index() * TILE_FLOATS) as usize);
            foreach(0..COLS, |c| {
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + c) as usize);
                }
            });
            pipe.consumer_release(&st);
            st.advance();
        }
        let base: uniform<u32> = device::block_idx_x() * COLS;
        foreach(0..COLS, |c| *out.add((base + c) as usize) = acc);
    }
}

/// BROKEN.
/// Plain shared memory split by gang: gang 1 stages the tile with `foreach`, gang 0 reduces
/// it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_ispc_bad_gang_only_sync(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let tile = device::dynamic_shared_base::<f32>();
    let mut acc: varying<f32> = 0.0;
    let mut t: uniform<u32> = device::block_idx_x();
    while t < tiles {
        let src = input.add((t * TILE_FLOATS) as usize);
        if gangIndex() == 1 {
            foreach(0..TILE_FLOATS, |i| *tile.add(i as usize) = *src.add(i as usize));
        }
        memory_barrier();
        if gangIndex() == 0 {
            foreach(0..COLS, |c| {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + c) as usize);
                }
            });
        }
        device::barrier();
        t += device::grid_dim_x();
    }
    if gangIndex() == 0 {
        let base: uniform<u32> = device::block_idx_x() * COLS;
        foreach(0..COLS, |c| *out.add((base + c) as usize) = acc);
    }
}
