//! Blind round 44, style `julia`: ports of CUDA.jl kernels.
//!
//! The ports keep CUDA.jl's conventions: 1-based `threadIdx().x`, `blockIdx().x`, `blockDim().x`
//! and `gridDim().x`; inclusive ranges (`for j in 1:8` is `1..=8`); `@inbounds` indexing as
//! unchecked 1-based helpers (`unsafe_load`, `unsafe_store!`, `getindex`); a tile seen as a
//! column-major `32×8` `CuDeviceMatrix{Float32}` (element `c + 32r` of the tile is `A[c+1, r+1]`,
//! so output column `c` is row `c+1` of the matrix, summed along its 8 columns); and small generic
//! functions dispatched on marker types (`Producer`/`Consumer`, `Top`/`Bottom`).
//!
//! Launch of every kernel: `@cuda threads=64 blocks=8 shmem=8192`.

#![allow(non_snake_case)]

use core::ops::Range;

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

/// CUDA.jl's `(x = …,)` index tuples.
#[derive(Clone, Copy)]
struct Idx {
    x: u32,
}

#[inline(always)]
fn threadIdx() -> Idx {
    Idx { x: device::thread_idx_x() + 1 }
}

#[inline(always)]
fn blockIdx() -> Idx {
    Idx { x: device::block_idx_x() + 1 }
}

#[inline(always)]
fn blockDim() -> Idx {
    Idx { x: device::block_dim_x() }
}

#[inline(always)]
fn gridDim() -> Idx {
    Idx { x: device::grid_dim_x() }
}

#[inline(always)]
fn sync_threads() {
    device::barrier();
}

/// `@cuda threads=64 blocks=8 shmem=8192`.
#[inline(always)]
fn launch_config() {
    block_threads(64);
    dynamic_shared_bytes(8192);
}

const TILE_LEN: usize = 256;
const TILE_BYTES: u32 = 1024;
/// A tile is a column-major `NROWS × NCOLS` matrix.
const NROWS: usize = 32;
const NCOLS: usize = 8;
/// `length(33:64)`: the consumer threads.
const NCONSUMERS: u32 = 32;

/// `unsafe_load(p, i)`: 1-based, unchecked.
#[inline(always)]
unsafe fn unsafe_load(p: *const f32, i: usize) -> f32 {
    *p.add(i - 1)
}

/// `unsafe_store!(p, v, i)`: 1-based, unchecked.
#[inline(always)]
unsafe fn unsafe_store(p: *mut f32, v: f32, i: usize) {
    *p.add(i - 1) = v;
}

/// `pointer(A, i)`: the address of 1-based element `i`.
#[inline(always)]
fn pointer(p: *const f32, i: usize) -> *const f32 {
    p.wrapping_add(i - 1)
}

/// A column-major matrix over device memory, indexed `@inbounds A[i, j]`.
#[derive(Clone, Copy)]
struct CuDeviceMatrix {
    ptr: *const f32,
    nrows: usize,
}

impl CuDeviceMatrix {
    #[inline(always)]
    unsafe fn getindex(&self, i: usize, j: usize) -> f32 {
        *self.ptr.add((i - 1) + (j - 1) * self.nrows)
    }
}

/// `sum(@view A[i, :])`.
#[inline(always)]
unsafe fn rowsum(A: &CuDeviceMatrix, i: usize) -> f32 {
    let mut s = 0.0f32;
    for j in 1..=NCOLS {
        s += A.getindex(i, j);
    }
    s
}

/// `A[i, :]` copied into registers.
#[inline(always)]
unsafe fn rowvalues(A: &CuDeviceMatrix, i: usize) -> [f32; NCOLS] {
    let mut v = [0.0f32; NCOLS];
    for j in 1..=NCOLS {
        v[j - 1] = A.getindex(i, j);
    }
    v
}

/// The stage a state points at, as a tile matrix.
#[inline(always)]
fn stage_matrix<const N: u32>(ring: *const f32, st: &PipelineState<N>) -> CuDeviceMatrix {
    CuDeviceMatrix { ptr: ring.wrapping_add(st.index() as usize * TILE_LEN), nrows: NROWS }
}

/// The shared-memory ring: its window address (for the copies) and its pointer (for reads).
#[derive(Clone, Copy)]
struct Ring {
    addr: u32,
    ptr: *const f32,
}

#[inline(always)]
fn ring_at(byte_offset: u32) -> Ring {
    Ring {
        addr: device::dynamic_shared_window_address() + byte_offset,
        ptr: device::dynamic_shared_base::<f32>().wrapping_add(byte_offset as usize / 4) as *const f32,
    }
}

/// The producer's loop: `for t in blockIdx().x:gridDim().x:tiles` one tile per stage.
#[inline(always)]
unsafe fn produce<const N: u32>(pipe: &Pipeline<N>, ring: Ring, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<N>::producer_start();
    let mut t = blockIdx().x;
    while t <= tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        let src = pointer(input, (t as usize - 1) * TILE_LEN + 1);
        bulk_copy_global_to_shared(ring.addr + st.index() * TILE_BYTES, src as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += gridDim().x;
    }
    pipe.producer_tail(st);
}

/// The consumer's loop: row `i` of every tile matrix, then `out[i, blockIdx().x]`.
#[inline(always)]
unsafe fn consume<const N: u32>(pipe: &Pipeline<N>, ring: Ring, i: usize, tiles: u32, out: *mut f32) {
    let mut acc = 0.0f32;
    let mut st = PipelineState::<N>::new();
    let mut t = blockIdx().x;
    while t <= tiles {
        pipe.consumer_wait(&st);
        let A = stage_matrix(ring.ptr, &st);
        acc += rowsum(&A, i);
        pipe.consumer_release(&st);
        st.advance();
        t += gridDim().x;
    }
    unsafe_store(out, acc, (blockIdx().x as usize - 1) * NROWS + i);
}

const RING4: u32 = 4;

/// Four-stage ring; thread 1 copies, threads `33:64` each sum one row of the column-major tile
/// (barriers at byte 0, ring from byte 1024).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_julia_colmajor_sum(input: *const f32, tiles: u32, out: *mut f32) {
    launch_config();
    let bars = device::dynamic_shared_window_address();
    let ring = ring_at(1024);
    if threadIdx().x == 1 {
        Pipeline::<RING4>::init(bars, NCONSUMERS);
    }
    sync_threads();
    let pipe = Pipeline::<RING4>::attach(bars);
    let i = threadIdx().x;
    if i == 1 {
        produce(&pipe, ring, input, tiles);
    } else if (33..=64).contains(&i) {
        consume(&pipe, ring, (i - 32) as usize, tiles, out);
    }
}

/// The two halves of a tile matrix: columns `1:4` and `5:8`.
struct Top;
struct Bottom;

trait HalfTile {
    const FIRST_COL: usize;
}

impl HalfTile for Top {
    const FIRST_COL: usize = 1;
}

impl HalfTile for Bottom {
    const FIRST_COL: usize = 5;
}

const HALF_BYTES: u32 = TILE_BYTES / 2;

/// `copy_half!(::H, stage, tile, full)`: columns `H.FIRST_COL:H.FIRST_COL+3` of the tile.
#[inline(always)]
unsafe fn copy_half<H: HalfTile>(_: H, stage: u32, tile: *const f32, full: u32) {
    let first = (H::FIRST_COL - 1) * NROWS;
    bulk_copy_global_to_shared(
        stage + (first * 4) as u32,
        pointer(tile, first + 1) as *const u8,
        HALF_BYTES,
        full,
    );
}

const RING2: u32 = 2;

/// Two stages, each filled by two half-tile copies (`Top`, `Bottom`) under one `expect_tx` of
/// the whole tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_julia_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    launch_config();
    let bars = device::dynamic_shared_window_address();
    let ring = ring_at(1024);
    if threadIdx().x == 1 {
        Pipeline::<RING2>::init(bars, NCONSUMERS);
    }
    sync_threads();
    let pipe = Pipeline::<RING2>::attach(bars);
    let i = threadIdx().x;
    if i == 1 {
        let mut st = PipelineState::<RING2>::producer_start();
        let mut t = blockIdx().x;
        while t <= tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 2 * HALF_BYTES);
            let tile = pointer(input, (t as usize - 1) * TILE_LEN + 1);
            let stage = ring.addr + st.index() * TILE_BYTES;
            copy_half(Top, stage, tile, pipe.producer_barrier(&st));
            copy_half(Bottom, stage, tile, pipe.producer_barrier(&st));
            st.advance();
            t += gridDim().x;
        }
        pipe.producer_tail(st);
    } else if (33..=64).contains(&i) {
        consume(&pipe, ring, (i - 32) as usize, tiles, out);
    }
}

/// Role markers: `run!(::Producer, …)` and `run!(::Consumer, …)`.
struct Producer;
struct Consumer;

#[derive(Clone, Copy)]
struct Args {
    input: *const f32,
    tiles: u32,
    out: *mut f32,
}

trait Role {
    unsafe fn run<const N: u32>(self, pipe: &Pipeline<N>, ring: Ring, args: Args);
}

impl Role for Producer {
    #[inline(always)]
    unsafe fn run<const N: u32>(self, pipe: &Pipeline<N>, ring: Ring, args: Args) {
        produce(pipe, ring, args.input, args.tiles);
    }
}

impl Role for Consumer {
    #[inline(always)]
    unsafe fn run<const N: u32>(self, pipe: &Pipeline<N>, ring: Ring, args: Args) {
        consume(pipe, ring, (threadIdx().x - 32) as usize, args.tiles, args.out);
    }
}

#[inline(always)]
unsafe fn run<R: Role, const N: u32>(role: R, pipe: &Pipeline<N>, ring: Ring, args: Args) {
    role.run(pipe, ring, args);
}

const RING3: u32 = 3;

/// Three stages at the start of shared memory, barriers after them (byte 3072); the roles are
/// dispatched on marker types.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_julia_dispatch_markers(input: *const f32, tiles: u32, out: *mut f32) {
    launch_config();
    let ring = ring_at(0);
    let bars = ring.addr + RING3 * TILE_BYTES;
    if threadIdx().x == 1 {
        Pipeline::<RING3>::init(bars, NCONSUMERS);
    }
    sync_threads();
    let pipe = Pipeline::<RING3>::attach(bars);
    let args = Args { input, tiles, out };
    let i = threadIdx().x;
    if i == 1 {
        run(Producer, &pipe, ring, args);
    } else if 33 <= i && i <= 64 {
        run(Consumer, &pipe, ring, args);
    }
}

/// Plain shared memory (`CuDynamicSharedArray(Float32, 256)`): the block stages a tile with a
/// `for k in threadIdx().x:blockDim().x:256` loop, `sync_threads()`, threads `1:32` sum their
/// row of the matrix, `sync_threads()` before the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_julia_shmem_mapreduce(input: *const f32, tiles: u32, out: *mut f32) {
    launch_config();
    let sh = device::dynamic_shared_base::<f32>();
    let i = threadIdx().x;
    let mut acc = 0.0f32;
    let mut t = blockIdx().x;
    while t <= tiles {
        let first = (t as usize - 1) * TILE_LEN;
        let mut k = i as usize;
        while k <= TILE_LEN {
            unsafe_store(sh, unsafe_load(input, first + k), k);
            k += blockDim().x as usize;
        }
        sync_threads();
        if i <= 32 {
            let A = CuDeviceMatrix { ptr: sh, nrows: NROWS };
            acc += rowsum(&A, i as usize);
        }
        sync_threads();
        t += gridDim().x;
    }
    if i <= 32 {
        unsafe_store(out, acc, (blockIdx().x as usize - 1) * NROWS + i as usize);
    }
}

/// Barrier setup as in the CUDA C++ example this was ported from: one thread initialises, then
/// the block syncs.
#[inline(always)]
fn init_barriers<const N: u32>(bars: u32, nconsumers: u32) {
    if threadIdx().x == 0 {
        Pipeline::<N>::init(bars, nconsumers);
    }
    sync_threads();
}

/// BROKEN.
/// Four-stage ring set up by `init_barriers`; thread 1 copies, threads `33:64` each sum one row
/// of the column-major tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_julia_bad_zero_based_leader(input: *const f32, tiles: u32, out: *mut f32) {
    launch_config();
    let bars = device::dynamic_shared_window_address();
    let ring = ring_at(1024);
    init_barriers::<RING4>(bars, NCONSUMERS);
    let pipe = Pipeline::<RING4>::attach(bars);
    let i = threadIdx().x;
    if i == 1 {
        produce(&pipe, ring, input, tiles);
    } else if (33..=64).contains(&i) {
        consume(&pipe, ring, (i - 32) as usize, tiles, out);
    }
}

/// The consumer threads, `33:64` in the Julia source.
const CONSUMERS: Range<u32> = 33..64;

/// BROKEN.
/// Four-stage ring; thread 1 copies, the threads of `CONSUMERS` each sum one row of the
/// column-major tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_julia_bad_exclusive_range(input: *const f32, tiles: u32, out: *mut f32) {
    launch_config();
    let bars = device::dynamic_shared_window_address();
    let ring = ring_at(1024);
    if threadIdx().x == 1 {
        Pipeline::<RING4>::init(bars, NCONSUMERS);
    }
    sync_threads();
    let pipe = Pipeline::<RING4>::attach(bars);
    let i = threadIdx().x;
    if i == 1 {
        produce(&pipe, ring, input, tiles);
    } else if CONSUMERS.contains(&i) {
        consume(&pipe, ring, (i - 32) as usize, tiles, out);
    }
}

/// BROKEN.
/// Four-stage ring; each consumer gathers its row of the stage into registers (`rowvalues`)
/// and sums them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_julia_bad_prefetch_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    launch_config();
    let bars = device::dynamic_shared_window_address();
    let ring = ring_at(1024);
    if threadIdx().x == 1 {
        Pipeline::<RING4>::init(bars, NCONSUMERS);
    }
    sync_threads();
    let pipe = Pipeline::<RING4>::attach(bars);
    let i = threadIdx().x;
    if i == 1 {
        produce(&pipe, ring, input, tiles);
    } else if (33..=64).contains(&i) {
        let row = (i - 32) as usize;
        let mut acc = 0.0f32;
        let mut st = PipelineState::<RING4>::new();
        let mut t = blockIdx().x;
        while t <= tiles {
            let A = stage_matrix(ring.ptr, &st);
            let vals = rowvalues(&A, row);
            pipe.consumer_wait(&st);
            for v in vals {
                acc += v;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += gridDim().x;
        }
        unsafe_store(out, acc, (blockIdx().x as usize - 1) * NROWS + row);
    }
}

/// Tiles of the block staged at once: all of shared memory.
const MAX_TILES: usize = 8;

/// BROKEN.
/// Plain shared memory: the block stages up to eight of its tiles at once (the whole 8 KiB),
/// `sync_threads()`, threads `1:32` sum their row of each, `sync_threads()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_julia_bad_one_based_store(input: *const f32, tiles: u32, out: *mut f32) {
    launch_config();
    let sh = device::dynamic_shared_base::<f32>();
    let i = threadIdx().x;
    let g = gridDim().x as usize;
    let mut acc = 0.0f32;
    let mut first = blockIdx().x as usize;
    while first <= tiles as usize {
        let mut n = 0usize;
        while n < MAX_TILES && first + n * g <= tiles as usize {
            n += 1;
        }
        let mut k = i as usize;
        while k <= n * TILE_LEN {
            let tt = (k - 1) / TILE_LEN;
            let e = (k - 1) % TILE_LEN + 1;
            let src = (first - 1 + tt * g) * TILE_LEN + e;
            *sh.add(k) = unsafe_load(input, src);
            k += 64;
        }
        sync_threads();
        if i <= 32 {
            for tt in 1..=n {
                let A = CuDeviceMatrix { ptr: sh.add((tt - 1) * TILE_LEN), nrows: NROWS };
                acc += rowsum(&A, i as usize);
            }
        }
        sync_threads();
        first += MAX_TILES * g;
    }
    if i <= 32 {
        unsafe_store(out, acc, (blockIdx().x as usize - 1) * NROWS + i as usize);
    }
}
