//! Group C: helpers.

#[allow(unused_imports)]
use super::*;


#[inline(never)]
pub(crate) unsafe fn c_produce_one(pipe: &Pipeline<4>, st: &mut PipelineState<4>, window: u32, from: *const u8) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

#[inline(never)]
pub(crate) unsafe fn c_consume_one(pipe: &Pipeline<4>, st: &mut PipelineState<4>, ring: *const f32, col: u32) -> f32 {
    pipe.consumer_wait(st);
    let stage = unsafe { ring.add((st.index() * TILE) as usize) };
    let mut s = 0.0f32;
    for r in 0..ROWS {
        s += unsafe { *stage.add((r * COLS + col) as usize) };
    }
    pipe.consumer_release(st);
    st.advance();
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_helper_step_both(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<4>::producer_start();
            let mut k = 0;
            while k < n {
                c_produce_one(&pipe, &mut st, window, src(input, b + k * g));
                k += 1;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0;
            let mut k = 0;
            while k < n {
                acc += c_consume_one(&pipe, &mut st, ring_base(), tid);
                k += 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[inline(never)]
pub(crate) unsafe fn c_consume_no_advance(pipe: &Pipeline<4>, st: &PipelineState<4>, ring: *const f32, col: u32) -> f32 {
    pipe.consumer_wait(st);
    let stage = unsafe { ring.add((st.index() * TILE) as usize) };
    let mut s = 0.0f32;
    for r in 0..ROWS {
        s += unsafe { *stage.add((r * COLS + col) as usize) };
    }
    pipe.consumer_release(st);
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_helper_bad_never_advances(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<4>::producer_start();
            for k in 0..n {
                c_produce_one(&pipe, &mut st, window, src(input, b + k * g));
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let st = PipelineState::<4>::new();
            let mut acc = 0.0;
            for _ in 0..n {
                // BUG: the helper takes the state by reference and nobody advances it: stage 0 forever.
                acc += c_consume_no_advance(&pipe, &st, ring_base(), tid);
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[inline(never)]
pub(crate) unsafe fn c_take_tile(pipe: &Pipeline<3>, st: PipelineState<3>, ring: *const f32, col: u32) -> (PipelineState<3>, f32) {
    let mut st = st;
    pipe.consumer_wait(&st);
    let stage = unsafe { ring.add((st.index() * TILE) as usize) };
    let mut s = 0.0f32;
    let mut r = ROWS;
    while r > 0 {
        r -= 1;
        s += unsafe { *stage.add((r * COLS + col) as usize) };
    }
    pipe.consumer_release(&st);
    st.advance();
    (st, s)
}

#[inline(never)]
pub(crate) unsafe fn c_give_tile(pipe: &Pipeline<3>, st: PipelineState<3>, window: u32, from: *const u8) -> PipelineState<3> {
    let mut st = st;
    pipe.producer_acquire(&st);
    pipe.producer_expect_tx(&st, TILE_BYTES);
    bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(&st));
    st.advance();
    st
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_helper_tuple_return(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<3>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<3>::producer_start();
            let mut t = b;
            while t < tiles {
                st = c_give_tile(&pipe, st, window, src(input, t));
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let mut st = PipelineState::<3>::new();
            let mut acc = 0.0;
            let mut t = b;
            while t < tiles {
                let (next, s) = c_take_tile(&pipe, st, ring_base(), tid);
                st = next;
                acc += s;
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_helper_bad_drops_returned(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<3>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<3>::producer_start();
            let mut t = b;
            while t < tiles {
                st = c_give_tile(&pipe, st, window, src(input, t));
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let st = PipelineState::<3>::new();
            let mut acc = 0.0;
            let mut t = b;
            while t < tiles {
                // BUG: the advanced state the helper returns is dropped; every tile waits on stage 0.
                let (_next, s) = c_take_tile(&pipe, st, ring_base(), tid);
                acc += s;
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}
