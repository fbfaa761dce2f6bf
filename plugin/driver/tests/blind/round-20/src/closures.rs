//! Group G: closures.

#[allow(unused_imports)]
use super::*;


#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_for_each_fold(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        (0..n).for_each(|k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let acc = (0..n).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            let mut s = 0.0;
            for r in 0..ROWS {
                s += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            acc + s
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_try_for_each(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let _ = (0..n).try_for_each(|k| -> ControlFlow<()> {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            ControlFlow::Continue(())
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let _ = (0..n).try_for_each(|_| -> Result<(), ()> {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            for r in 0..ROWS {
                acc += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            Ok(())
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_bad_fold_release_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        (0..n).for_each(|k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let acc = (0..n).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            let first = unsafe { *stage.add(tid as usize) };
            // BUG: releases after the first row; rows 1..8 are read from a stage being refilled.
            pipe.consumer_release(&st);
            let mut s = first;
            for r in 1..ROWS {
                s += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            st.advance();
            acc + s
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[inline(always)]
pub(crate) fn g_each_tile(n: u32, mut f: impl FnMut(u32)) {
    let mut k = 0;
    while k < n {
        f(k);
        k += 1;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_impl_fnmut_param(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        g_each_tile(n, |k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        g_each_tile(n, |_| {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            for r in 0..ROWS {
                acc += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_bad_count_minus_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        g_each_tile(n, |k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        // BUG: "the last tile is the tail" — consumers stop one tile short; a stage stays unreleased.
        g_each_tile(n - 1, |_| {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            for r in 0..ROWS {
                acc += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}
