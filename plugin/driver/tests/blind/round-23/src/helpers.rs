//! Pipeline kernels that push the protocol into small free functions: per-tile steps taking
//! `&Pipeline` and `&mut PipelineState`, stage-pointer helpers, whole-role helpers.

use crate::device;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;

#[inline(always)]
unsafe fn tile_source(input: *const f32, tile: u32) -> *const u8 {
    input.add(tile as usize * TILE_FLOATS).cast::<u8>()
}

#[inline(always)]
unsafe fn column_sum(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0;
    for row in 0..8 {
        s += *stage.add(row * COLS + col);
    }
    s
}

#[inline(always)]
unsafe fn produce_one<const S: u32>(pipe: &Pipeline<S>, st: &mut PipelineState<S>, window: u32, src: *const u8) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

#[inline(always)]
unsafe fn consume_one<const S: u32>(pipe: &Pipeline<S>, st: &mut PipelineState<S>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(st);
    let v = column_sum(ring.add(st.index() as usize * TILE_FLOATS), col);
    pipe.consumer_release(st);
    st.advance();
    v
}

/// Producer and consumer steps in two generic helpers; four stages, thread 0 / warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_step_functions(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            produce_one(&pipe, &mut st, window, tile_source(input, t));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut st = PipelineState::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += consume_one(&pipe, &mut st, ring, col);
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[inline(always)]
fn stage_of<const S: u32>(ring: *const f32, st: &PipelineState<S>) -> *const f32 {
    ring.wrapping_add(st.index() as usize * TILE_FLOATS)
}

/// A helper returns the stage pointer, another sums a column; five stages, thread 32 / warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_stage_pointer_helper(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(stage_of(ring, &st), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLS + tid as usize) = acc;
    }
}

#[inline(never)]
unsafe fn producer_role(pipe: &Pipeline<3>, window: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<3>::producer_start();
    let mut t = device::block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += device::grid_dim_x();
    }
    pipe.producer_tail(st);
}

#[inline(never)]
unsafe fn consumer_role(pipe: &Pipeline<3>, ring: *const f32, tiles: u32, out: *mut f32, col: usize) {
    let mut st = PipelineState::<3>::new();
    let mut acc = 0.0;
    let mut t = device::block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(&st);
        st.advance();
        t += device::grid_dim_x();
    }
    *out.add(device::block_idx_x() as usize * COLS + col) = acc;
}

/// Each role is a whole non-inlined function; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_role_functions(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let bars = window + 3 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    device::barrier();
    if tid == 0 {
        producer_role(&pipe, window, input, tiles);
    } else if tid >= 32 {
        consumer_role(&pipe, ring, tiles, out, tid as usize - 32);
    }
}

#[inline(always)]
fn setup<const S: u32>(leader: bool, bars_offset: u32) -> (Pipeline<S>, u32, *mut f32) {
    let window = device::dynamic_shared_window_address();
    let pipe = if leader { Pipeline::<S>::init(window + bars_offset, 32) } else { Pipeline::<S>::attach(window + bars_offset) };
    device::barrier();
    (pipe, window, device::dynamic_shared_base::<f32>())
}

/// Setup through a helper returning a tuple; six stages with the barriers at the window's end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_setup_tuple(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = device::thread_idx_x();
    let (pipe, window, ring) = setup::<6>(tid == 0, 8192 - 96);
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<6>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_one(&pipe, &mut st, window, tile_source(input, t));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut st = PipelineState::<6>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = core::slice::from_raw_parts(ring.add(st.index() as usize * TILE_FLOATS) as *const f32, TILE_FLOATS);
            let mut r = 0;
            while r < 8 {
                acc += s[col + r * COLS];
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[inline(always)]
unsafe fn write_result(out: *mut f32, block: u32, col: usize, value: f32) {
    *out.add(block as usize * COLS + col) = value;
}

/// Consumer step returns its partial through `&mut f32`; two stages at the end of the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_accumulate_by_ref(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring_off = 6144u32;
    let ring = device::dynamic_shared_base::<u8>().add(ring_off as usize) as *const f32;
    let tid = device::thread_idx_x();
    let pipe = if tid == 63 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    device::barrier();
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    unsafe fn step(pipe: &Pipeline<2>, st: &mut PipelineState<2>, ring: *const f32, col: usize, acc: &mut f32) {
        pipe.consumer_wait(st);
        *acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(st);
        st.advance();
    }
    if tid == 63 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_one(&pipe, &mut st, window + ring_off, tile_source(input, t));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut acc = 0.0f32;
        let mut st = PipelineState::<2>::new();
        let mut t = b;
        while t < tiles {
            step(&pipe, &mut st, ring, tid as usize, &mut acc);
            t += g;
        }
        write_result(out, b, tid as usize, acc);
    }
}

/// Like `r23_help_step_functions`, but the consumer step takes its state by value.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_bad_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe fn consume(pipe: &Pipeline<4>, mut st: PipelineState<4>, ring: *const f32, col: usize) -> f32 {
        pipe.consumer_wait(&st);
        let v = column_sum(ring.add(st.index() as usize * TILE_FLOATS), col);
        pipe.consumer_release(&st);
        st.advance();
        v
    }
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            produce_one(&pipe, &mut st, window, tile_source(input, t));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let st = PipelineState::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += consume(&pipe, st, ring, col);
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[inline(always)]
fn stage_base<const S: u32>(ring: *const f32, st: &PipelineState<S>) -> *const f32 {
    ring.wrapping_add((st.index() * TILE_BYTES) as usize)
}

/// Stage pointer from a helper; four stages, barriers after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_bad_stage_base_units(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_one(&pipe, &mut st, window, tile_source(input, t));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(stage_base(ring, &st), col);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[inline(always)]
unsafe fn fetch<const S: u32>(pipe: &Pipeline<S>, st: &mut PipelineState<S>, window: u32, src: *const u8) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

/// Producer step in a helper that advances, and the caller advances again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_bad_double_advance(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let bars = window + 3 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    device::barrier();
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            fetch(&pipe, &mut st, window, tile_source(input, t));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += consume_one(&pipe, &mut st, ring, col);
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}

#[inline(always)]
unsafe fn column_sum_strided(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0;
    for row in 0..8 {
        s += *stage.add(col * 8 + row);
    }
    s
}

/// Five stages; the column helper walks the tile in the wrong order.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_bad_column_order(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_one(&pipe, &mut st, window, tile_source(input, t));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum_strided(stage_of(ring, &st), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLS + tid as usize) = acc;
    }
}

#[inline(always)]
unsafe fn fetch_into_next<const S: u32>(pipe: &Pipeline<S>, st: &mut PipelineState<S>, window: u32, src: *const u8) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    let slot = (st.index() + 1) % S;
    bulk_copy_global_to_shared(window + slot * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

/// Three stages; the producer helper places each copy in the following stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_help_bad_copy_next_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let bars = window + 3 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    device::barrier();
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            fetch_into_next(&pipe, &mut st, window, tile_source(input, t));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += consume_one(&pipe, &mut st, ring, col);
            t += g;
        }
        *out.add(b as usize * COLS + col) = acc;
    }
}
