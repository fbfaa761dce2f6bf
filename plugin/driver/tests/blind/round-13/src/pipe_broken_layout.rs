//! mbarrier pipelines whose roles or shared-memory layout are wrong: two producers, a copy into
//! the wrong stage, overlapping barrier areas, barriers outside the window, misaligned or
//! overlapping stages, stage pointers in the wrong unit, releases on the wrong pipeline.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;

#[inline(always)]
fn block_tiles(tiles: u32) -> u32 {
    let b = block_idx_x();
    if tiles > b { (tiles - b).div_ceil(grid_dim_x()) } else { 0 }
}

#[inline(always)]
fn source(input: *const f32, i: u32) -> *const u8 {
    input.wrapping_add((block_idx_x() + i * grid_dim_x()) as usize * TILE) as *const u8
}

/// Two producer threads share the copying: thread 32 the even tiles, thread 33 the odd ones,
/// each with its own producer state on the one ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_two_producers_even_odd(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 4096, 32) } else { Pipeline::<STAGES>::attach(window + 4096) };
    barrier();
    let n = block_tiles(tiles);
    if tid == 32 || tid == 33 {
        let parity = tid - 32;
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in (parity..n).step_by(2) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source(input, i), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            for k in 0..ROWS {
                acc += unsafe { *stage.add(k * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// The copy's destination is computed as "the stage after the current one".
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_copy_into_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 4096, 32) } else { Pipeline::<STAGES>::attach(window + 4096) };
    barrier();
    let n = block_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let next = (state.index() + 1) % STAGES;
            bulk_copy_global_to_shared(window + next * TILE_BYTES, source(input, i), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            acc += (0..ROWS).map(|k| unsafe { *stage.add(k * COLS + tid as usize) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Even tiles through one pipeline, odd tiles through another; the second barrier area starts
/// one area after the first, the area sized as one barrier per stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_two_rings_barriers_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const AREA: u32 = 8 * STAGES;
    const EVEN_BARS: u32 = 4096;
    const ODD_BARS: u32 = EVEN_BARS + AREA;
    const ODD_RING: u32 = 2048;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (even, odd) = if tid == 0 {
        (Pipeline::<STAGES>::init(window + EVEN_BARS, 32), Pipeline::<STAGES>::init(window + ODD_BARS, 32))
    } else {
        (Pipeline::<STAGES>::attach(window + EVEN_BARS), Pipeline::<STAGES>::attach(window + ODD_BARS))
    };
    barrier();
    let n = block_tiles(tiles);
    if tid == 32 {
        let mut se = PipelineState::<STAGES>::producer_start();
        let mut so = PipelineState::<STAGES>::producer_start();
        for i in 0..n {
            if i % 2 == 0 {
                even.producer_acquire(&se);
                even.producer_expect_tx(&se, TILE_BYTES);
                bulk_copy_global_to_shared(window + se.index() * TILE_BYTES, source(input, i), TILE_BYTES, even.producer_barrier(&se));
                se.advance();
            } else {
                odd.producer_acquire(&so);
                odd.producer_expect_tx(&so, TILE_BYTES);
                bulk_copy_global_to_shared(window + ODD_RING + so.index() * TILE_BYTES, source(input, i), TILE_BYTES, odd.producer_barrier(&so));
                so.advance();
            }
        }
        even.producer_tail(se);
        odd.producer_tail(so);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let mut se = PipelineState::<STAGES>::new();
        let mut so = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let column = |stage: *const f32| -> f32 { (0..ROWS).map(|k| unsafe { *stage.add(k * COLS + tid as usize) }).sum() };
        for i in 0..n {
            if i % 2 == 0 {
                even.consumer_wait(&se);
                acc += column(base.wrapping_add(se.index() as usize * TILE));
                even.consumer_release(&se);
                se.advance();
            } else {
                odd.consumer_wait(&so);
                acc += column(base.wrapping_add((ODD_RING / 4) as usize + so.index() as usize * TILE));
                odd.consumer_release(&so);
                so.advance();
            }
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// The barrier area is placed after room for the deepest ring the kernel was tuned with,
/// eight stages; it runs with four.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_barriers_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    const MAX_STAGES: u32 = 8;
    const STAGES: u32 = 4;
    const BARRIERS: u32 = MAX_STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let n = block_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source(input, i), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            for k in 0..ROWS {
                acc += unsafe { *stage.add(k * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Layout packed from the window's start: the barriers, a 4-byte tile counter, then the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_ring_after_counter_word(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const COUNTER: u32 = pipeline_barrier_bytes(STAGES);
    const RING: u32 = COUNTER + 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let n = block_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, source(input, i), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = base.wrapping_add(RING as usize) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            for k in 0..ROWS {
                acc += unsafe { stage.add(k * COLS + tid as usize).read_unaligned() };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Stages of two tiles, with the stage stride left at one tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_pair_stage_stride_one_tile(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const STAGE_STRIDE: u32 = TILE_BYTES;
    const BARRIERS: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + BARRIERS, 32) } else { Pipeline::<STAGES>::attach(window + BARRIERS) };
    barrier();
    let n = block_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut i = 0;
        while i < n {
            let pair = (n - i).min(2);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, pair * TILE_BYTES);
            let dst = window + state.index() * STAGE_STRIDE;
            for k in 0..pair {
                bulk_copy_global_to_shared(dst + k * TILE_BYTES, source(input, i + k), TILE_BYTES, pipe.producer_barrier(&state));
            }
            state.advance();
            i += pair;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut i = 0;
        while i < n {
            let pair = (n - i).min(2) as usize;
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * (STAGE_STRIDE as usize / 4));
            for e in (tid as usize..pair * TILE).step_by(COLS) {
                acc += unsafe { *stage.add(e) };
            }
            pipe.consumer_release(&state);
            state.advance();
            i += pair as u32;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Even tiles travel through one pipeline, odd tiles through another; the consumers release
/// through the first one whichever ring they read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_crossed_release_two_rings(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const EVEN_BARS: u32 = 4096;
    const ODD_BARS: u32 = 4096 + 64;
    const ODD_RING: u32 = 2048;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (even, odd) = if tid == 0 {
        (Pipeline::<STAGES>::init(window + EVEN_BARS, 32), Pipeline::<STAGES>::init(window + ODD_BARS, 32))
    } else {
        (Pipeline::<STAGES>::attach(window + EVEN_BARS), Pipeline::<STAGES>::attach(window + ODD_BARS))
    };
    barrier();
    let n = block_tiles(tiles);
    if tid == 32 {
        let mut se = PipelineState::<STAGES>::producer_start();
        let mut so = PipelineState::<STAGES>::producer_start();
        for i in 0..n {
            if i % 2 == 0 {
                even.producer_acquire(&se);
                even.producer_expect_tx(&se, TILE_BYTES);
                bulk_copy_global_to_shared(window + se.index() * TILE_BYTES, source(input, i), TILE_BYTES, even.producer_barrier(&se));
                se.advance();
            } else {
                odd.producer_acquire(&so);
                odd.producer_expect_tx(&so, TILE_BYTES);
                bulk_copy_global_to_shared(window + ODD_RING + so.index() * TILE_BYTES, source(input, i), TILE_BYTES, odd.producer_barrier(&so));
                so.advance();
            }
        }
        even.producer_tail(se);
        odd.producer_tail(so);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let mut se = PipelineState::<STAGES>::new();
        let mut so = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for i in 0..n {
            let (pipe, state, ring) = if i % 2 == 0 {
                (&even, &mut se, base)
            } else {
                (&odd, &mut so, base.wrapping_add(ODD_RING as usize / 4))
            };
            pipe.consumer_wait(state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            for k in 0..ROWS {
                acc += unsafe { *stage.add(k * COLS + tid as usize) };
            }
            even.consumer_release(state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// The consumers find their stage with the byte stride applied to a float pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_stage_pointer_bytes_as_floats(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 4096, 32) } else { Pipeline::<STAGES>::attach(window + 4096) };
    barrier();
    let n = block_tiles(tiles);
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source(input, i), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add((state.index() * TILE_BYTES) as usize) };
            for k in 0..ROWS {
                acc += unsafe { *stage.add(k * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}
