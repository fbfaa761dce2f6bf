//! Const generics and static traits: one generic body instantiated with different layouts,
//! role functions generic over the ring depth, column readers chosen by a type parameter.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const WINDOW_BYTES: u32 = 8192;

/// The whole kernel for a ring of `S` stages at byte `RING` and barriers at byte `BARS`.
#[inline(always)]
unsafe fn run<const S: u32, const RING: u32, const BARS: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(RING as usize).cast::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_two_stages_ring_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run::<2, 0, 2048>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_six_stages_bars_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run::<6, 1024, 0>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_three_stages_high_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run::<3, 4096, 256>(input, tiles, out);
}

// ---- layout from const fns, roles as generic functions taking &Pipeline ----------------------

const fn ring_bytes(stages: u32) -> u32 {
    stages * TILE_BYTES
}

const fn barriers_at(stages: u32) -> u32 {
    WINDOW_BYTES - pipeline_barrier_bytes(stages)
}

#[inline(always)]
unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

#[inline(always)]
unsafe fn consume<const S: u32, R: ColumnReader>(pipe: &Pipeline<S>, tiles: u32, col: usize) -> f32 {
    let ring = dynamic_shared_base::<f32>();
    let mut st = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        acc += R::read(ring.add(st.index() as usize * TILE), col);
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    acc
}

trait ColumnReader {
    unsafe fn read(stage: *const f32, col: usize) -> f32;
}

struct Looped;
impl ColumnReader for Looped {
    #[inline(always)]
    unsafe fn read(stage: *const f32, col: usize) -> f32 {
        let mut s = 0.0;
        let mut r = 0;
        while r < 8 {
            s += *stage.add(r * 32 + col);
            r += 1;
        }
        s
    }
}

struct Paired;
impl ColumnReader for Paired {
    #[inline(always)]
    unsafe fn read(stage: *const f32, col: usize) -> f32 {
        let p = stage.add(col);
        (*p + *p.add(128)) + (*p.add(32) + *p.add(160)) + (*p.add(64) + *p.add(192)) + (*p.add(96) + *p.add(224))
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_const_fn_layout_looped(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(WINDOW_BYTES);
    const S: u32 = 7;
    const _: () = assert!(ring_bytes(S) <= barriers_at(S));
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + barriers_at(S), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + barriers_at(S));
    if tid == 32 {
        produce(&pipe, window, input, tiles);
    } else if tid < 32 {
        let acc = consume::<S, Looped>(&pipe, tiles, tid as usize);
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_const_fn_layout_paired(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(WINDOW_BYTES);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + barriers_at(S), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + barriers_at(S));
    if tid == 32 {
        produce(&pipe, window, input, tiles);
    } else if tid < 32 {
        let acc = consume::<S, Paired>(&pipe, tiles, tid as usize);
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_bad_eight_stages_fill_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run::<8, 0, 8192>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_bad_five_stages_from_half_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run::<5, 4096, 0>(input, tiles, out);
}

struct Strided33;
impl ColumnReader for Strided33 {
    /// rows "padded to 33 floats to avoid bank conflicts"
    #[inline(always)]
    unsafe fn read(stage: *const f32, col: usize) -> f32 {
        let mut s = 0.0;
        for r in 0..8 {
            s += *stage.add(r * 33 + col);
        }
        s
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_bad_reader_padded_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(WINDOW_BYTES);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + barriers_at(S), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + barriers_at(S));
    if tid == 32 {
        produce(&pipe, window, input, tiles);
    } else if tid < 32 {
        let acc = consume::<S, Strided33>(&pipe, tiles, tid as usize);
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[inline(always)]
unsafe fn produce_announcing_ring<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, ring_bytes(S));
        bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_bad_expect_ring_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(WINDOW_BYTES);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + barriers_at(S), 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + barriers_at(S));
    if tid == 32 {
        produce_announcing_ring(&pipe, window, input, tiles);
    } else if tid < 32 {
        let acc = consume::<S, Looped>(&pipe, tiles, tid as usize);
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_gen_bad_consumers_attach_other_layout(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(WINDOW_BYTES);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + barriers_at(S), 32);
    }
    barrier();
    if tid == 32 {
        let pipe = Pipeline::<S>::attach(window + barriers_at(S));
        produce(&pipe, window, input, tiles);
    } else if tid < 32 {
        // consumers "know" the barriers sit right after the ring
        let pipe = Pipeline::<S>::attach(window + ring_bytes(S));
        let acc = consume::<S, Looped>(&pipe, tiles, tid as usize);
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}
