//! Pipeline kernels written generically: const-generic stage counts and barrier offsets, layout
//! traits with associated constants, reader traits with static dispatch.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const TILE_BYTES: u32 = 1024;

/// Generic body: `S` stages at byte `RING`, barriers at byte `BARS`; thread `P` produces and
/// warp `W` consumes.
#[inline(always)]
unsafe fn engine<const S: u32, const RING: u32, const BARS: u32, const P: u32, const W: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<u8>().add(RING as usize) as *const f32;
    let tid = device::thread_idx_x();
    let pipe = if tid == P { Pipeline::<S>::init(window + BARS, 32) } else { Pipeline::<S>::attach(window + BARS) };
    device::barrier();
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    if tid == P {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid / 32 == W {
        let c = (tid % 32) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(32 * r + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Generic engine, two stages at byte 0, barriers at 2048, thread 0 / warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_engine_two(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    engine::<2, 0, 2048, 0, 1>(input, tiles, out);
}

/// Generic engine, six stages at byte 2048, barriers at byte 0, thread 33 / warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_engine_six_high(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    engine::<6, 2048, 0, 33, 0>(input, tiles, out);
}

/// Generic engine, five stages at byte 1024, barriers at 6144, thread 0 / warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_engine_five(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    engine::<5, 1024, 6144, 0, 1>(input, tiles, out);
}

/// Generic engine, seven stages at byte 2048, barriers at byte 0, thread 0 / warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_bad_engine_seven_high(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    engine::<7, 2048, 0, 0, 1>(input, tiles, out);
}

/// Generic engine, three stages at byte 0 with barriers at 3076.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_bad_engine_bars_unaligned(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    engine::<3, 0, 3076, 0, 1>(input, tiles, out);
}

trait Layout {
    const STAGES: u32;
    const BARS: u32;
    fn stage_byte(i: u32) -> u32;
}

struct Low;
impl Layout for Low {
    const STAGES: u32 = 4;
    const BARS: u32 = 4096;
    fn stage_byte(i: u32) -> u32 {
        i * TILE_BYTES
    }
}

struct Interleaved;
impl Layout for Interleaved {
    const STAGES: u32 = 3;
    const BARS: u32 = 1024;
    // Stages 2 KiB apart starting at 2 KiB: 2048, 4096, 6144.
    fn stage_byte(i: u32) -> u32 {
        2048 + i * 2048
    }
}

trait ColumnReader {
    unsafe fn read(stage: *const f32, col: usize) -> f32;
}

struct Straight;
impl ColumnReader for Straight {
    unsafe fn read(stage: *const f32, col: usize) -> f32 {
        let mut s = 0.0;
        for r in 0..8 {
            s += *stage.add(r * 32 + col);
        }
        s
    }
}

struct Pairs;
impl ColumnReader for Pairs {
    unsafe fn read(stage: *const f32, col: usize) -> f32 {
        let mut s = 0.0;
        let mut r = 0;
        while r < 8 {
            s += *stage.add(r * 32 + col) + *stage.add((r + 1) * 32 + col);
            r += 2;
        }
        s
    }
}

struct HalfTile;
impl ColumnReader for HalfTile {
    unsafe fn read(stage: *const f32, col: usize) -> f32 {
        let mut s = 0.0;
        for r in 0..4 {
            s += *stage.add(r * 64 + col);
        }
        s
    }
}

#[inline(always)]
unsafe fn traited<L: Layout, R: ColumnReader, const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let base = device::dynamic_shared_base::<u8>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + L::BARS, 32) } else { Pipeline::<S>::attach(window + L::BARS) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    match tid {
        0 => {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + L::stage_byte(st.index()), input.add(t as usize * 256).cast(), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        32..=63 => {
            let col = tid as usize - 32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                acc += R::read(base.add(L::stage_byte(st.index()) as usize) as *const f32, col);
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add(b as usize * 32 + col) = acc;
        }
        _ => {}
    }
}

/// Layout trait (four stages low, barriers at 4 KiB) with a straight column reader.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_trait_low_straight(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    traited::<Low, Straight, { Low::STAGES }>(input, tiles, out);
}

/// Layout trait with stages 2 KiB apart and barriers in the gap; reader adding rows in pairs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_trait_interleaved_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    traited::<Interleaved, Pairs, { Interleaved::STAGES }>(input, tiles, out);
}

/// Layout trait, four stages low; the reader steps two rows at a time.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_bad_trait_half_reader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    traited::<Low, HalfTile, { Low::STAGES }>(input, tiles, out);
}

/// Per-copy byte count as a const parameter: the stage is filled by `1024 / CHUNK` copies.
#[inline(always)]
unsafe fn chunked<const S: u32, const CHUNK: u32, const COPIES: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * 256) as *const u8;
            let dst = window + st.index() * TILE_BYTES;
            for k in 0..COPIES {
                bulk_copy_global_to_shared(dst + k * CHUNK, src.add((k * CHUNK) as usize), CHUNK, pipe.producer_barrier(&st));
            }
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            acc += Straight::read(stage, c);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Four stages, each filled by two 512-byte copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_chunked_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    chunked::<4, 512, 2>(input, tiles, out);
}

/// Three stages, each filled by four 256-byte copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_chunked_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    chunked::<3, 256, 4>(input, tiles, out);
}

/// Four stages filled by 256-byte copies, three of them per stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_bad_chunked_three_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    chunked::<4, 256, 3>(input, tiles, out);
}

/// Generic body whose producer state is built with `Default`.
#[inline(always)]
unsafe fn defaulted<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st: PipelineState<S> = Default::default();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st: PipelineState<S> = Default::default();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += Straight::read(ring.add(st.index() as usize * 256), c);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Five stages, both states built with `Default::default()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_gen_bad_default_states(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    defaulted::<5>(input, tiles, out);
}
