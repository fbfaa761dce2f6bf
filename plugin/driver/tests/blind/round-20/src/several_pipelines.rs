//! Group I: several pipelines.

#[allow(unused_imports)]
use super::*;


#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_two_pipes_alternate(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_B: u32 = RING + S * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(window + 64, CONSUMERS);
    }
    barrier();
    let even = Pipeline::<S>::attach(window);
    let odd = Pipeline::<S>::attach(window + 64);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                even.producer_acquire(&st);
                even.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, even.producer_barrier(&st));
                st.advance();
                t += 2 * g;
            }
            even.producer_tail(st);
        } else if tid == 33 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b + g;
            while t < tiles {
                odd.producer_acquire(&st);
                odd.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_B + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, odd.producer_barrier(&st));
                st.advance();
                t += 2 * g;
            }
            odd.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let ring_a = base.add((RING / 4) as usize);
            let ring_b = base.add((RING_B / 4) as usize);
            let mut sa = PipelineState::<S>::new();
            let mut sb = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for k in 0..n {
                if k % 2 == 0 {
                    even.consumer_wait(&sa);
                    let stage = ring_a.add((sa.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    even.consumer_release(&sa);
                    sa.advance();
                } else {
                    odd.consumer_wait(&sb);
                    let stage = ring_b.add((sb.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    odd.consumer_release(&sb);
                    sb.advance();
                }
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_two_pipes_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    const RING_TOP: u32 = RING;
    const RING_BOTTOM: u32 = RING + S * HALF;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(window + 128, CONSUMERS);
    }
    barrier();
    let top = Pipeline::<S>::attach(window);
    let bottom = Pipeline::<S>::attach(window + 128);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                top.producer_acquire(&st);
                top.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(window + RING_TOP + st.index() * HALF, src(input, b + k * g), HALF, top.producer_barrier(&st));
                st.advance();
            }
            top.producer_tail(st);
        } else if tid == 48 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                bottom.producer_acquire(&st);
                bottom.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(window + RING_BOTTOM + st.index() * HALF, src(input, b + k * g).add(HALF as usize), HALF, bottom.producer_barrier(&st));
                st.advance();
            }
            bottom.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let mut st_top = PipelineState::<S>::new();
            let mut st_bottom = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                top.consumer_wait(&st_top);
                bottom.consumer_wait(&st_bottom);
                let a = base.add(((RING_TOP + st_top.index() * HALF) / 4) as usize);
                let c = base.add(((RING_BOTTOM + st_bottom.index() * HALF) / 4) as usize);
                for r in 0..ROWS / 2 {
                    acc += *a.add((r * COLS + tid) as usize);
                    acc += *c.add((r * COLS + tid) as usize);
                }
                top.consumer_release(&st_top);
                bottom.consumer_release(&st_bottom);
                st_top.advance();
                st_bottom.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_two_pipes_bad_same_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_B: u32 = RING + S * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    // BUG: both pipelines are placed on the same barriers (the second offset was forgotten).
    let odd_at = window;
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(odd_at, CONSUMERS);
    }
    barrier();
    let even = Pipeline::<S>::attach(window);
    let odd = Pipeline::<S>::attach(odd_at);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                even.producer_acquire(&st);
                even.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, even.producer_barrier(&st));
                st.advance();
                t += 2 * g;
            }
            even.producer_tail(st);
        } else if tid == 33 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b + g;
            while t < tiles {
                odd.producer_acquire(&st);
                odd.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_B + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, odd.producer_barrier(&st));
                st.advance();
                t += 2 * g;
            }
            odd.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let ring_a = base.add((RING / 4) as usize);
            let ring_b = base.add((RING_B / 4) as usize);
            let mut sa = PipelineState::<S>::new();
            let mut sb = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for k in 0..n {
                if k % 2 == 0 {
                    even.consumer_wait(&sa);
                    let stage = ring_a.add((sa.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    even.consumer_release(&sa);
                    sa.advance();
                } else {
                    odd.consumer_wait(&sb);
                    let stage = ring_b.add((sb.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    odd.consumer_release(&sb);
                    sb.advance();
                }
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_two_pipes_bad_release_other(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    const RING_TOP: u32 = RING;
    const RING_BOTTOM: u32 = RING + S * HALF;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(window + 128, CONSUMERS);
    }
    barrier();
    let top = Pipeline::<S>::attach(window);
    let bottom = Pipeline::<S>::attach(window + 128);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                top.producer_acquire(&st);
                top.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(window + RING_TOP + st.index() * HALF, src(input, b + k * g), HALF, top.producer_barrier(&st));
                st.advance();
            }
            top.producer_tail(st);
        } else if tid == 48 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                bottom.producer_acquire(&st);
                bottom.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(window + RING_BOTTOM + st.index() * HALF, src(input, b + k * g).add(HALF as usize), HALF, bottom.producer_barrier(&st));
                st.advance();
            }
            bottom.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let mut st_top = PipelineState::<S>::new();
            let mut st_bottom = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                top.consumer_wait(&st_top);
                bottom.consumer_wait(&st_bottom);
                let a = base.add(((RING_TOP + st_top.index() * HALF) / 4) as usize);
                let c = base.add(((RING_BOTTOM + st_bottom.index() * HALF) / 4) as usize);
                for r in 0..ROWS / 2 {
                    acc += *a.add((r * COLS + tid) as usize);
                    acc += *c.add((r * COLS + tid) as usize);
                }
                top.consumer_release(&st_top);
                // BUG: copy-paste: the bottom stage is released on the top pipeline.
                top.consumer_release(&st_bottom);
                st_top.advance();
                st_bottom.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}
