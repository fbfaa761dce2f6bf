//! Group J: roles.

#[allow(unused_imports)]
use super::*;


#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_consumers_in_warp1(input: *const f32, tiles: u32, out: *mut f32) {
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
    unsafe {
        if tid == 0 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid >= 32 {
            let col = tid - 32;
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + col) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + col) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_sixteen_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const READERS: u32 = 16;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, READERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 40 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < READERS {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let (mut lo, mut hi) = (0.0f32, 0.0f32);
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    lo += *stage.add((r * COLS + tid) as usize);
                    hi += *stage.add((r * COLS + tid + READERS) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = lo;
            *out.add((b * COLS + tid + READERS) as usize) = hi;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_bad_sixteen_announced_32(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const READERS: u32 = 16;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        // BUG: the init still counts a warp of releasers after the readers were halved.
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 40 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < READERS {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let (mut lo, mut hi) = (0.0f32, 0.0f32);
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    lo += *stage.add((r * COLS + tid) as usize);
                    hi += *stage.add((r * COLS + tid + READERS) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = lo;
            *out.add((b * COLS + tid + READERS) as usize) = hi;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_bad_two_producers(input: *const f32, tiles: u32, out: *mut f32) {
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
    unsafe {
        // BUG: `<= 33` meant "warp 1's leader": two threads run the producer loop.
        if tid >= 32 && tid <= 33 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_all_but_producer_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, 63);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 0 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else {
            // Threads 1..=32 own a column; 33..63 only keep the ring moving.
            let col = tid - 1;
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                if col < COLS {
                    let stage = ring.add((st.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + col) as usize);
                    }
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            if col < COLS {
                *out.add((b * COLS + col) as usize) = acc;
            }
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_bad_producer_also_consumes(input: *const f32, tiles: u32, out: *mut f32) {
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
    unsafe {
        // BUG: the producer is also one of warp 1's 32 consumers; it must fill 8 tiles before it
        // releases any, and the ring holds 4.
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        }
        if tid >= 32 {
            let col = tid - 32;
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + col) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + col) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_bad_even_lanes_release(input: *const f32, tiles: u32, out: *mut f32) {
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
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                // BUG: "one release per pair of lanes" — 16 arrivals for a barrier counting 32.
                if tid % 2 == 0 {
                    pipe.consumer_release(&st);
                }
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_signed_offsets(input: *const f32, tiles: u32, out: *mut f32) {
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
    let rel = tid as i32 - 32;
    let first = block_idx_x() as i32;
    let stride = grid_dim_x() as i32;
    let last = tiles as i32;
    unsafe {
        if rel == 0 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = first;
            while t < last {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t as u32), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += stride;
            }
            pipe.producer_tail(st);
        } else if rel < 0 {
            let col = (rel + 32) as isize;
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = first;
            while t < last {
                pipe.consumer_wait(&st);
                let stage = ring.offset((st.index() * TILE) as isize);
                let mut r: isize = ROWS as isize - 1;
                while r >= 0 {
                    acc += *stage.offset(r * COLS as isize + col);
                    r -= 1;
                }
                pipe.consumer_release(&st);
                st.advance();
                t += stride;
            }
            *out.offset(first as isize * COLS as isize + col) = acc;
        }
    }
}
