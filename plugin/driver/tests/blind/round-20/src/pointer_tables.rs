//! Group N2: views, pointer tables, and more orders (pointer tables and more orders).

#[allow(unused_imports)]
use super::*;


#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_quads_bad_nine_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const QUADS: u32 = 8;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, QUADS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid <= QUADS {
            // BUG: `<=` lets a ninth thread wait and release: one arrival too many per phase.
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = [0.0f32; 4];
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                if tid < QUADS {
                    let stage = ring.add((st.index() * TILE) as usize);
                    for r in 0..ROWS {
                        let q = *(stage.add((r * COLS + 4 * tid) as usize) as *const [f32; 4]);
                        for (a, v) in acc.iter_mut().zip(q) {
                            *a += v;
                        }
                    }
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            if tid < QUADS {
                let dst = out.add((b * COLS + 4 * tid) as usize);
                for (j, a) in acc.iter().enumerate() {
                    *dst.add(j) = *a;
                }
            }
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_bad_advance_twice(input: *const f32, tiles: u32, out: *mut f32) {
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
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
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
                // BUG: a leftover advance from an older "two tiles per pass" version.
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_init_bad_no_block_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    // BUG: no barrier: warp 1's producer may wait on (and copy against) barriers not yet initialised.
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
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
pub unsafe extern "ptx-kernel" fn r20_init_bad_after_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    barrier();
    // BUG: the init was moved below the barrier that was meant to publish it.
    if tid == 32 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
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
pub unsafe extern "ptx-kernel" fn r20_barriers_bad_misaligned(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    // BUG: a 4-byte "tile counter" placed before the barriers leaves them 4-byte aligned.
    let window = dynamic_shared_window_address() + 4;
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let base = dynamic_shared_window_address();
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, base, input, tiles);
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
pub unsafe extern "ptx-kernel" fn r20_bad_read_ninth_row(input: *const f32, tiles: u32, out: *mut f32) {
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
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                // BUG: `<=` reads the first row of the next stage as a ninth row.
                let mut r = 0;
                while r <= ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                    r += 1;
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
pub unsafe extern "ptx-kernel" fn r20_copy_bad_dest_without_index(input: *const f32, tiles: u32, out: *mut f32) {
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
    let ring_window = window + RING;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                // BUG: every tile lands in stage 0; stages 1..3 keep whatever was there.
                bulk_copy_global_to_shared(ring_window, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
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
pub unsafe extern "ptx-kernel" fn r20_unrolled_rows(input: *const f32, tiles: u32, out: *mut f32) {
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
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut rows = [0.0f32; 8];
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                device::unrolled::unrolled!(R < 8 => {
                    rows[R] += *stage.add(R * COLS as usize + tid as usize);
                });
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = rows.iter().sum::<f32>();
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_countdown_tiles(input: *const f32, tiles: u32, out: *mut f32) {
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
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut left = n;
            let mut t = b;
            while left > 0 {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
                left -= 1;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut left = n;
            while left > 0 {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                left -= 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_bad_stage_hoisted(input: *const f32, tiles: u32, out: *mut f32) {
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
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut left = n;
            let mut t = b;
            while left > 0 {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
                left -= 1;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let mut st = PipelineState::<S>::new();
            // BUG: the column pointer is computed once, from the fresh state: every tile reads stage 0.
            let column = ring_base().add((st.index() * TILE + tid) as usize);
            let mut acc = 0.0f32;
            let mut left = n;
            while left > 0 {
                pipe.consumer_wait(&st);
                for r in 0..ROWS {
                    acc += *column.add((r * COLS) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                left -= 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}
