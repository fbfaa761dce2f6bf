//! Pipeline kernels split into small helper functions.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, pipeline_barrier_bytes, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const FLOATS: usize = 256;
const BYTES: u32 = 1024;
const STAGES: u32 = 4;
const RING_BYTES: u32 = STAGES * BYTES;

fn owned_tiles(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    (tiles + g - 1 - b) / g
}

fn tile_source(input: *const f32, k: u32) -> *const u8 {
    let t = block_idx_x() + k * grid_dim_x();
    unsafe { input.add(t as usize * FLOATS) as *const u8 }
}

#[inline(never)]
unsafe fn column_sum(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0;
    for r in 0..8 {
        s += *stage.add(r * 32 + col);
    }
    s
}

fn stage_of(state: &PipelineState<STAGES>) -> *const f32 {
    unsafe { dynamic_shared_base::<f32>().add(state.index() as usize * FLOATS) }
}

fn produce_one(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, window: u32, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, BYTES);
    bulk_copy_global_to_shared(window + state.index() * BYTES, src, BYTES, pipe.producer_barrier(state));
    state.advance();
}

unsafe fn consume_one(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, col: usize) -> f32 {
    pipe.consumer_wait(state);
    let v = column_sum(stage_of(state), col);
    pipe.consumer_release(state);
    state.advance();
    v
}

fn setup(leader: bool, bars: u32) -> Pipeline<STAGES> {
    if leader {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    Pipeline::<STAGES>::attach(bars)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_produce_consume(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(tid == 0, window + RING_BYTES);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            produce_one(&pipe, &mut st, window, tile_source(input, k));
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0;
        for _ in 0..n {
            acc += consume_one(&pipe, &mut st, tid as usize);
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_column_never_inlined(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let ring = dynamic_shared_base::<f32>();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * FLOATS) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

fn half_rows(stage: *const f32, col: usize, first_row: usize) -> f32 {
    let mut s = 0.0;
    let mut r = first_row;
    while r < first_row + 4 {
        s += unsafe { *stage.add(r * 32 + col) };
        r += 1;
    }
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_halves_and_stage_of(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(tid == 0, window + RING_BYTES);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            produce_one(&pipe, &mut st, window, input.add(t as usize * FLOATS) as *const u8);
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stage_of(&st);
            acc += half_rows(stage, tid as usize, 0) + half_rows(stage, tid as usize, 4);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[inline(never)]
fn producer_loop(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<STAGES>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, BYTES);
        let src = unsafe { input.add(t as usize * FLOATS) };
        bulk_copy_global_to_shared(window + st.index() * BYTES, src.cast(), BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

#[inline(never)]
unsafe fn consumer_loop(pipe: &Pipeline<STAGES>, tiles: u32, col: u32) -> f32 {
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = 0.0;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let p = stage_of(&st);
        for r in 0..8 {
            acc += *p.add(r * 32 + col as usize);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    acc
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_role_loops_in_functions(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(tid == 0, window + RING_BYTES);
    if tid == 32 {
        producer_loop(&pipe, window, input, tiles);
    } else if tid < 32 {
        let acc = consumer_loop(&pipe, tiles, tid);
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

fn write_result(out: *mut f32, col: u32, value: f32) {
    unsafe { *out.add((block_idx_x() * 32 + col) as usize) = value };
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_barrier_bytes_layout(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    // barriers first, ring right after them, rounded to 16 bytes
    let ring_off = (pipeline_barrier_bytes(3) + 15) / 16 * 16;
    if tid == 0 {
        Pipeline::<3>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window);
    let ring = dynamic_shared_base::<u8>().add(ring_off as usize) as *const f32;
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + ring_off + st.index() * BYTES, input.add(t as usize * FLOATS) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        write_result(out, tid, acc);
    }
}

fn stage_of_in_bytes(state: &PipelineState<STAGES>) -> *const f32 {
    unsafe { dynamic_shared_base::<f32>().add((state.index() * BYTES) as usize) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_bad_stage_scaled_by_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(tid == 0, window + RING_BYTES);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            produce_one(&pipe, &mut st, window, input.add(t as usize * FLOATS) as *const u8);
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(stage_of_in_bytes(&st), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        write_result(out, tid, acc);
    }
}

unsafe fn consume_and_step(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, col: usize) -> f32 {
    pipe.consumer_wait(state);
    let v = column_sum(stage_of(state), col);
    pipe.consumer_release(state);
    state.advance();
    v
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_bad_double_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(tid == 0, window + RING_BYTES);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            produce_one(&pipe, &mut st, window, tile_source(input, k));
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0;
        for _ in 0..n {
            acc += consume_and_step(&pipe, &mut st, tid as usize);
            st.advance();
        }
        write_result(out, tid, acc);
    }
}

fn produce_half_announced(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, window: u32, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, BYTES / 2);
    bulk_copy_global_to_shared(window + state.index() * BYTES, src, BYTES, pipe.producer_barrier(state));
    state.advance();
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_bad_expect_half_in_helper(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(tid == 0, window + RING_BYTES);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            produce_half_announced(&pipe, &mut st, window, tile_source(input, k));
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0;
        for _ in 0..n {
            acc += consume_one(&pipe, &mut st, tid as usize);
        }
        write_result(out, tid, acc);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_bad_consumers_one_more(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(tid == 0, window + RING_BYTES);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for k in 0..owned_tiles(tiles) {
            produce_one(&pipe, &mut st, window, tile_source(input, k));
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0;
        for _ in 0..=owned_tiles(tiles) {
            acc += consume_one(&pipe, &mut st, tid as usize);
        }
        write_result(out, tid, acc);
    }
}

fn setup_unsynced(leader: bool, bars: u32) -> Pipeline<STAGES> {
    if leader {
        return Pipeline::<STAGES>::init(bars, 32);
    }
    Pipeline::<STAGES>::attach(bars)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_bad_setup_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    // the producer initialises; it "obviously" sees its own init
    let pipe = setup_unsynced(tid == 32, window + RING_BYTES);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            produce_one(&pipe, &mut st, window, tile_source(input, k));
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0;
        for _ in 0..n {
            acc += consume_one(&pipe, &mut st, tid as usize);
        }
        write_result(out, tid, acc);
    }
}

fn stage_pointer_for(index: u32) -> *const f32 {
    unsafe { dynamic_shared_base::<f32>().add(index as usize * FLOATS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_help_bad_copy_into_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup(tid == 0, window + RING_BYTES);
    let n = owned_tiles(tiles);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            let next = (st.index() + 1) % STAGES;
            bulk_copy_global_to_shared(window + next * BYTES, tile_source(input, k), BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0;
        for _ in 0..n {
            pipe.consumer_wait(&st);
            acc += column_sum(stage_pointer_for(st.index()), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        }
        write_result(out, tid, acc);
    }
}
