//! Kernels built from helper functions: whole roles in functions, per-tile steps taking
//! `&mut PipelineState`, stage-pointer and column-sum helpers, a generic body.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const ROWS: usize = 8;
const COLS: usize = 32;

#[inline(never)]
unsafe fn produce_all(pipe: &Pipeline<4>, window: u32, input: *const f32, first: u32, step: u32, tiles: u32) {
    let mut state = PipelineState::<4>::producer_start();
    let mut tile = first;
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let source = input.add(tile as usize * TILE_FLOATS) as *const u8;
        bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
        tile += step;
    }
    pipe.producer_tail(state);
}

#[inline(never)]
unsafe fn consume_all(pipe: &Pipeline<4>, ring: *const f32, first: u32, step: u32, tiles: u32, col: usize) -> f32 {
    let mut state = PipelineState::<4>::new();
    let mut total = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        pipe.consumer_wait(&state);
        let stage = ring.add(state.index() as usize * TILE_FLOATS);
        for row in 0..ROWS {
            total += *stage.add(row * COLS + col);
        }
        pipe.consumer_release(&state);
        state.advance();
        tile += step;
    }
    total
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_role_functions(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        produce_all(&pipe, window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let sum = consume_all(&pipe, dynamic_shared_base::<f32>(), block_idx_x(), grid_dim_x(), tiles, col);
        *out.add(block_idx_x() as usize * COLS + col) = sum;
    }
}

#[inline(always)]
unsafe fn load_tile<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, window: u32, source: *const f32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source as *const u8, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

#[inline(always)]
unsafe fn take_tile<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(state);
    let stage = ring.add(state.index() as usize * TILE_FLOATS);
    let mut s = 0.0;
    for row in 0..ROWS {
        s += *stage.add(row * COLS + col);
    }
    pipe.consumer_release(state);
    state.advance();
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_step_mut_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 3 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            load_tile(&pipe, &mut st, window, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += take_tile(&pipe, &mut st, ring, col);
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[inline(always)]
fn stage_of(ring: *const f32, state: &PipelineState<4>) -> *const f32 {
    ring.wrapping_add(state.index() as usize * TILE_FLOATS)
}

#[inline(always)]
unsafe fn column_sum(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0;
    let mut row = 0;
    while row < ROWS {
        s += *stage.add(row * COLS + col);
        row += 1;
    }
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_stage_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(stage_of(ring, &st), col);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[inline(always)]
unsafe fn generic_body<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            load_tile(&pipe, &mut st, window, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += take_tile(&pipe, &mut st, ring, col);
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_generic_three(input: *const f32, tiles: u32, out: *mut f32) {
    generic_body::<3>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_generic_five(input: *const f32, tiles: u32, out: *mut f32) {
    generic_body::<5>(input, tiles, out);
}

#[inline(always)]
fn setup_pipeline(window: u32, tid: u32) -> Pipeline<2> {
    let bars = window + 2 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<2>::init(bars, 32) } else { Pipeline::<2>::attach(bars) };
    barrier();
    pipe
}

#[inline(never)]
unsafe fn step_once(pipe: &Pipeline<2>, mut st: PipelineState<2>, window: u32, src: *const f32) -> PipelineState<2> {
    pipe.producer_acquire(&st);
    pipe.producer_expect_tx(&st, TILE_BYTES);
    bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
    st.advance();
    st
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_setup_and_returned_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup_pipeline(window, tid);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            st = step_once(&pipe, st, window, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for row in 0..ROWS {
                acc += *stage.add(row * COLS + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

// ---------------------------------------------------------------- broken

#[inline(always)]
unsafe fn column_sum_padded(stage: *const f32, col: usize) -> f32 {
    // rows written as if the tile were padded to 33 floats per row
    let mut s = 0.0;
    for row in 0..ROWS {
        s += *stage.add(row * (COLS + 1) + col);
    }
    s
}

/// The column helper steps rows by 33 floats (a padded layout the tile does not have).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_bad_padded_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum_padded(stage_of(ring, &st), col);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

const RING_AFTER_BARS: u32 = 1024;

#[inline(always)]
fn destination(window: u32, state: &PipelineState<4>) -> u32 {
    window + RING_AFTER_BARS + state.index() * TILE_BYTES
}

#[inline(always)]
fn reader_stage(ring: *const f32, state: &PipelineState<4>) -> *const f32 {
    // forgot the ring's offset past the barrier block
    ring.wrapping_add(state.index() as usize * TILE_FLOATS)
}

/// Copies land at byte 1024 + stage·1024 but the reader's helper forgets the 1024-byte offset.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_bad_reader_forgets_ring_offset(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(destination(window, &st), input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(reader_stage(ring, &st), col);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

/// `load_tile` already advances the state; the caller advances it again, so the producer fills
/// every other stage and the consumers wait on a stage nobody fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_bad_double_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            load_tile(&pipe, &mut st, window, input.add(t as usize * TILE_FLOATS));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += take_tile(&pipe, &mut st, ring, col);
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[inline(never)]
unsafe fn take_tile_by_value(pipe: &Pipeline<2>, mut state: PipelineState<2>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(&state);
    let stage = ring.add(state.index() as usize * TILE_FLOATS);
    let mut s = 0.0;
    for row in 0..ROWS {
        s += *stage.add(row * COLS + col);
    }
    pipe.consumer_release(&state);
    state.advance();
    s
}

/// The consumer helper takes its state by value: its advance is lost and the caller waits on
/// stage 0 forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_bad_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = setup_pipeline(window, tid);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            st = step_once(&pipe, st, window, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += take_tile_by_value(&pipe, st, ring, col);
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[inline(always)]
unsafe fn load_halves(pipe: &Pipeline<4>, state: &mut PipelineState<4>, dst: u32, source: *const f32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    let half = TILE_BYTES / 2;
    bulk_copy_global_to_shared(dst, source as *const u8, half, pipe.producer_barrier(state));
    // second half: source advanced, destination not
    bulk_copy_global_to_shared(dst, source.add(128) as *const u8, half, pipe.producer_barrier(state));
    state.advance();
}

/// The tile is copied in two halves, but both halves go to the stage's first 512 bytes: rows
/// 4..7 of every stage are never written (ring at byte 1536 so that leftovers do not match).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_bad_halves_same_destination(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1536;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().wrapping_add(RING as usize / 4);
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            let dst = window + RING + st.index() * TILE_BYTES;
            load_halves(&pipe, &mut st, dst, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += take_tile(&pipe, &mut st, ring, col);
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

/// The consumer helper is handed the thread index instead of the column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_help_bad_column_is_tid(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        produce_all(&pipe, window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if tid >= 32 {
        let sum = consume_all(&pipe, dynamic_shared_base::<f32>(), block_idx_x(), grid_dim_x(), tiles, tid as usize);
        *out.add(block_idx_x() as usize * COLS + tid as usize - 32) = sum;
    }
}
