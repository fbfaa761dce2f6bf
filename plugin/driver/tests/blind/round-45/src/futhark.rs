//! Futhark-style kernels, as its compiler would lower them: the bodies are built from small
//! higher-order combinators over index ranges (`map_n`, `reduce_n`, `stream_seq`, `segred`), and
//! no mutation is visible in a kernel body except through those combinators.
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const N: u32 = 256;
const SEG: u32 = 32;
const SEGS: u32 = N / SEG;
const F32_BYTES: u32 = 4;
const TILE_BYTES: u32 = N * F32_BYTES;

/// `reduce (+) 0 (map f (iota n))`.
#[inline(always)]
fn reduce_n(n: u32, f: impl Fn(u32) -> f32) -> f32 {
    let mut acc = 0.0f32;
    let mut i = 0;
    while i < n { acc += f(i); i += 1; }
    acc
}

/// `map f (iota n)` for its effects, strided over the block (`i = first, first + step, …`).
#[inline(always)]
fn map_n(first: u32, n: u32, step: u32, mut f: impl FnMut(u32)) {
    let mut i = first;
    while i < n { f(i); i += step; }
}

/// A sequential stream over this block's chunk of `iota tiles`, threading an accumulator.
#[inline(always)]
fn stream_seq<A>(tiles: u32, init: A, mut f: impl FnMut(A, u32) -> A) -> A {
    let (mut acc, mut t) = (init, block_idx_x());
    while t < tiles { acc = f(acc, t); t += grid_dim_x(); }
    acc
}

/// Segment `seg` of a flat tile: element `seg + SEG * r` for each of the `SEGS` rows.
#[inline(always)]
unsafe fn segred(tile: *const f32, seg: u32) -> f32 {
    reduce_n(SEGS, |r| *tile.add((r * SEG + seg) as usize))
}

#[inline(always)]
unsafe fn pipe_at<const S: u32>(bars: u32, consumers: u32) -> Pipeline<S> {
    if thread_idx_x() == 0 { Pipeline::<S>::init(bars, consumers); }
    barrier();
    Pipeline::<S>::attach(bars)
}

#[inline(always)]
unsafe fn producer_stream<const S: u32>(pipe: &Pipeline<S>, win: u32, input: *const f32, tiles: u32, bytes: u32) {
    let st = stream_seq(tiles, PipelineState::<S>::producer_start(), |mut st, t| {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(win + st.index() * TILE_BYTES, input.add((t * N) as usize) as *const u8, bytes, pipe.producer_barrier(&st));
        st.advance();
        st
    });
    pipe.producer_tail(st);
}

#[inline(always)]
unsafe fn consumer_stream<const S: u32>(pipe: &Pipeline<S>, ring: *const f32, tiles: u32, seg: u32) -> f32 {
    let (_, acc) = stream_seq(tiles, (PipelineState::<S>::new(), 0.0f32), |(mut st, acc), _t| {
        pipe.consumer_wait(&st);
        let part = segred(ring.add((st.index() * N) as usize), seg);
        pipe.consumer_release(&st);
        st.advance();
        (st, acc + part)
    });
    acc
}

// segred over a four-stage stream: thread 32 streams tiles in, threads 0..32 reduce segments.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_futhark_segred(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = pipe_at::<4>(win + 4 * TILE_BYTES, SEG);
    let tid = thread_idx_x();
    if tid == 32 {
        producer_stream(&pipe, win, input, tiles, TILE_BYTES);
    } else if tid < SEG {
        let acc = consumer_stream(&pipe, dynamic_shared_base::<f32>(), tiles, tid);
        *out.add((block_idx_x() * SEG + tid) as usize) = acc;
    }
}

// No pipeline: the tile is copied into local memory by a block-strided map, then segred.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_futhark_plain_segred(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let acc = stream_seq(tiles, 0.0f32, |acc, t| {
        map_n(tid, N, 64, |i| *s.add(i as usize) = *input.add((t * N + i) as usize));
        barrier();
        let part = if tid < SEG { segred(s, tid) } else { 0.0 };
        barrier();
        acc + part
    });
    if tid < SEG { *out.add((block_idx_x() * SEG + tid) as usize) = acc; }
}

// The stream written as a count-down over the block's chunk length; thread 0 produces and the
// second warp reduces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_futhark_countdown_chunk(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = pipe_at::<3>(win + 3 * TILE_BYTES, SEG);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let chunk = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut left = chunk;
        while left > 0 {
            let t = b + (chunk - left) * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + st.index() * TILE_BYTES, input.add((t * N) as usize) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let seg = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut left = chunk;
        while left > 0 {
            pipe.consumer_wait(&st);
            acc += segred(ring.add((st.index() * N) as usize), seg);
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add((b * SEG + seg) as usize) = acc;
    }
}

// Two stages, consumers are the second warp, the producer the first warp's lane 5.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_futhark_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = pipe_at::<2>(win + 2 * TILE_BYTES, SEG);
    let tid = thread_idx_x();
    if tid == 5 {
        producer_stream(&pipe, win, input, tiles, TILE_BYTES);
    } else if tid >= 32 {
        let acc = consumer_stream(&pipe, dynamic_shared_base::<f32>(), tiles, tid - 32);
        *out.add((block_idx_x() * SEG + tid - 32) as usize) = acc;
    }
}

/// Bytes of one tile of the input array's element type (the input is lowered from `[]f16`).
const ELEM_BYTES: u32 = 2;

// The stream's copy is sized from the element type of the source array.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_futhark_bad_elem_size(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = pipe_at::<4>(win + 4 * TILE_BYTES, SEG);
    let tid = thread_idx_x();
    if tid == 32 {
        producer_stream(&pipe, win, input, tiles, N * ELEM_BYTES);
    } else if tid < SEG {
        let acc = consumer_stream(&pipe, dynamic_shared_base::<f32>(), tiles, tid);
        *out.add((block_idx_x() * SEG + tid) as usize) = acc;
    }
}

/// `map` over tiles with the per-tile state as a fresh binding (no loop-carried state).
#[inline(always)]
unsafe fn map_tiles<const S: u32>(pipe: &Pipeline<S>, ring: *const f32, tiles: u32, seg: u32) -> f32 {
    stream_seq(tiles, 0.0f32, |acc, _t| {
        let st = PipelineState::<S>::new();
        pipe.consumer_wait(&st);
        let part = segred(ring.add((st.index() * N) as usize), seg);
        pipe.consumer_release(&st);
        acc + part
    })
}

// The consumer side lowered as a parallel map over tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_futhark_bad_map_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = pipe_at::<4>(win + 4 * TILE_BYTES, SEG);
    let tid = thread_idx_x();
    if tid == 32 {
        producer_stream(&pipe, win, input, tiles, TILE_BYTES);
    } else if tid < SEG {
        let acc = map_tiles(&pipe, dynamic_shared_base::<f32>(), tiles, tid);
        *out.add((block_idx_x() * SEG + tid) as usize) = acc;
    }
}

/// A gather over a flat array of 32-bit words, converted to the result type.
#[inline(always)]
unsafe fn gather_u32(arr: *const u32, i: u32) -> f32 { *arr.add(i as usize) as f32 }

// segred through the backend's untyped 32-bit gather.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_futhark_bad_word_gather(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = pipe_at::<4>(win + 4 * TILE_BYTES, SEG);
    let tid = thread_idx_x();
    if tid == 32 {
        producer_stream(&pipe, win, input, tiles, TILE_BYTES);
    } else if tid < SEG {
        let ring = dynamic_shared_base::<f32>();
        let (_, acc) = stream_seq(tiles, (PipelineState::<4>::new(), 0.0f32), |(mut st, acc), _t| {
            pipe.consumer_wait(&st);
            let tile = ring.add((st.index() * N) as usize) as *const u32;
            let part = reduce_n(SEGS, |r| gather_u32(tile, r * SEG + tid));
            pipe.consumer_release(&st);
            st.advance();
            (st, acc + part)
        });
        *out.add((block_idx_x() * SEG + tid) as usize) = acc;
    }
}

// No pipeline: the copy-in map and the segred fused between the same pair of barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_futhark_bad_plain_fused(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let acc = stream_seq(tiles, 0.0f32, |acc, t| {
        barrier();
        map_n(tid, N, 64, |i| *s.add(i as usize) = *input.add((t * N + i) as usize));
        let part = if tid < SEG { segred(s, tid) } else { 0.0 };
        acc + part
    });
    if tid < SEG { *out.add((block_idx_x() * SEG + tid) as usize) = acc; }
}
