//! Generic kernels, monomorphised per entry: a `Staging` trait chooses how a plain kernel moves a
//! tile into shared memory, and a const-generic pipeline body takes its stage count (and a
//! `StageUnit` for how its consumers step between stages).

use core::marker::PhantomData;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;

/// How the 64 threads move one tile from global to shared memory.
trait Staging {
    /// # Safety
    /// `src` a readable tile, `dst` 256 writable floats of shared memory, `tid < 64`.
    unsafe fn stage(src: *const f32, dst: *mut f32, tid: usize);
}

/// Four floats per thread, 64 apart.
struct Scalars;
/// One 16-byte quad per thread (64 quads make a tile).
struct Quads;
/// Meant as one quad per thread too, but the destination is offset in floats, not quads.
struct QuadsAtFloatOffsets;

impl Staging for Scalars {
    #[inline(always)]
    unsafe fn stage(src: *const f32, dst: *mut f32, tid: usize) {
        for k in 0..4 {
            unsafe { *dst.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
    }
}

impl Staging for Quads {
    #[inline(always)]
    unsafe fn stage(src: *const f32, dst: *mut f32, tid: usize) {
        let from = src as *const [f32; 4];
        let to = dst as *mut [f32; 4];
        unsafe { *to.add(tid) = *from.add(tid) };
    }
}

impl Staging for QuadsAtFloatOffsets {
    #[inline(always)]
    unsafe fn stage(src: *const f32, dst: *mut f32, tid: usize) {
        let from = src as *const [f32; 4];
        unsafe { *(dst.add(tid) as *mut [f32; 4]) = *from.add(tid) };
    }
}

/// The plain kernel: stage with `T`, barrier, warp 0 sums its column, barrier.
#[inline(always)]
unsafe fn plain_columns<T: Staging>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { T::stage(input.add(t as usize * TILE_FLOATS), tile, tid) };
        barrier();
        if tid < COLUMNS {
            let mut r = 0;
            while r < 8 {
                acc += unsafe { *tile.add(r * COLUMNS + tid) };
                r += 1;
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// `plain_columns::<Scalars>`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_gen_plain_scalars(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { plain_columns::<Scalars>(input, tiles, out) };
}

/// `plain_columns::<Quads>`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_gen_plain_quads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { plain_columns::<Quads>(input, tiles, out) };
}

/// BROKEN: `plain_columns::<QuadsAtFloatOffsets>`: thread `t` stores floats `t..t + 4`, so
/// neighbouring threads overwrite each other and floats 67..255 are never staged.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_gen_plain_quads_float_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { plain_columns::<QuadsAtFloatOffsets>(input, tiles, out) };
}

/// How far apart a pipeline's stages are, in floats, for the consumers' pointer.
trait StageUnit {
    const FLOATS_PER_STAGE: usize;
}
/// A stage is 256 floats.
struct InFloats;
/// A stage is 1024 "units": its size in bytes, wrongly used as a float count.
struct InBytes;
impl StageUnit for InFloats {
    const FLOATS_PER_STAGE: usize = TILE_FLOATS;
}
impl StageUnit for InBytes {
    const FLOATS_PER_STAGE: usize = TILE_BYTES as usize;
}

/// The pipeline description: `S` stages from window byte 0, barriers right after them.
struct Layout<const S: u32, U: StageUnit>(PhantomData<U>);

impl<const S: u32, U: StageUnit> Layout<S, U> {
    const BARRIERS: u32 = S * TILE_BYTES;

    #[inline(always)]
    unsafe fn stage(base: *const f32, state: &PipelineState<S>) -> *const f32 {
        unsafe { base.add(state.index() as usize * U::FLOATS_PER_STAGE) }
    }
}

#[inline(always)]
unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, ring: u32, src: *const f32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

#[inline(always)]
unsafe fn consume<const S: u32, U: StageUnit>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, base: *const f32, lane: usize) -> f32 {
    pipe.consumer_wait(state);
    let stage = unsafe { Layout::<S, U>::stage(base, state) };
    let mut sum = 0.0f32;
    for r in 0..8 {
        sum += unsafe { *stage.add(r * COLUMNS + lane) };
    }
    pipe.consumer_release(state);
    state.advance();
    sum
}

/// The pipeline kernel body for `S` stages; thread 0 produces, warp 1 consumes.
#[inline(always)]
unsafe fn pipelined<const S: u32, U: StageUnit>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let bars = window + Layout::<S, U>::BARRIERS;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (first, step) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            unsafe { produce(&pipe, &mut state, window, input.add(t as usize * TILE_FLOATS)) };
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let base = dynamic_shared_base::<f32>() as *const f32;
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            sum += unsafe { consume::<S, U>(&pipe, &mut state, base, lane) };
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + lane) = sum };
    }
}

/// `pipelined::<3, InFloats>`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_gen_pipe_three(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { pipelined::<3, InFloats>(input, tiles, out) };
}

/// `pipelined::<5, InFloats>`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_gen_pipe_five(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { pipelined::<5, InFloats>(input, tiles, out) };
}

/// `pipelined::<7, InFloats>`: 7 KiB of stages, the barriers in the last kilobyte.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_gen_pipe_seven(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { pipelined::<7, InFloats>(input, tiles, out) };
}

/// BROKEN: `pipelined::<8, InFloats>`: eight one-kilobyte stages fill the window and their
/// barriers land at byte 8192, past it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_gen_pipe_eight(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { pipelined::<8, InFloats>(input, tiles, out) };
}

/// BROKEN: `pipelined::<2, InBytes>`: the consumers step 1024 floats per stage, so stage 1 is
/// read at byte 4096 (never filled) instead of 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_gen_pipe_stage_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { pipelined::<2, InBytes>(input, tiles, out) };
}
