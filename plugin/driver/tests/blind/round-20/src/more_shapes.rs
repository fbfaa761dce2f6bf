//! Group O: more shapes of state and role.

#[allow(unused_imports)]
use super::*;


#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_mem_swap_spare_state(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mut cur = PipelineState::<S>::new();
            let mut spare = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&cur);
                let stage = ring.add((cur.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&cur);
                spare = cur;
                spare.advance();
                mem::swap(&mut cur, &mut spare);
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_tuple_state_and_sum(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mut prod: (PipelineState<S>, u32) = (PipelineState::producer_start(), b);
            while prod.1 < tiles {
                pipe.producer_acquire(&prod.0);
                pipe.producer_expect_tx(&prod.0, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + prod.0.index() * TILE_BYTES, src(input, prod.1), TILE_BYTES, pipe.producer_barrier(&prod.0));
                prod.0.advance();
                prod.1 += g;
            }
            pipe.producer_tail(prod.0);
        } else if tid < 32 {
            let ring = ring_base();
            let mut cons: (PipelineState<S>, f32) = (PipelineState::new(), 0.0);
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&cons.0);
                let stage = ring.add((cons.0.index() * TILE) as usize);
                for r in 0..ROWS {
                    cons.1 += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&cons.0);
                cons.0.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = cons.1;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_state_array_two_pipes_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_B: u32 = RING + S * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(window + 32, CONSUMERS);
    }
    barrier();
    let first = Pipeline::<S>::attach(window);
    let second = Pipeline::<S>::attach(window + 32);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    let (n_first, n_second) = ((n + 1) / 2, n / 2);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for j in 0..n_first {
                first.producer_acquire(&st);
                first.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + 2 * j * g), TILE_BYTES, first.producer_barrier(&st));
                st.advance();
            }
            first.producer_tail(st);
        } else if tid == 63 {
            let mut st = PipelineState::<S>::producer_start();
            for j in 0..n_second {
                second.producer_acquire(&st);
                second.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_B + st.index() * TILE_BYTES, src(input, b + (2 * j + 1) * g), TILE_BYTES, second.producer_barrier(&st));
                st.advance();
            }
            second.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let rings = [base.add((RING / 4) as usize), base.add((RING_B / 4) as usize)];
            let mut states = [PipelineState::<S>::new(); 2];
            let mut acc = 0.0f32;
            for j in 0..n_first {
                first.consumer_wait(&states[0]);
                let stage = rings[0].add((states[0].index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                first.consumer_release(&states[0]);
                states[0].advance();
                if j < n_second {
                    second.consumer_wait(&states[1]);
                    let stage = rings[1].add((states[1].index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    second.consumer_release(&states[1]);
                    states[1].advance();
                }
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[inline(never)]
pub(crate) unsafe fn o_column_sum(stage: *const f32, col: u32) -> f32 {
    let mut s = 0.0;
    for r in 0..ROWS {
        s += unsafe { *stage.add((r * COLS + col) as usize) };
    }
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_fn_pointer_reader(input: *const f32, tiles: u32, out: *mut f32) {
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
    let read: unsafe fn(*const f32, u32) -> f32 = o_column_sum;
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                acc += read(ring.add((st.index() * TILE) as usize), tid);
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_fn_pointer_bad_read_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
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
    let read: unsafe fn(*const f32, u32) -> f32 = o_column_sum;
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                // BUG: "start the read early to hide latency" — before the stage's copy has landed.
                let s = read(ring.add((st.index() * TILE) as usize), tid);
                pipe.consumer_wait(&st);
                acc += s;
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_match_warp_and_lane(input: *const f32, tiles: u32, out: *mut f32) {
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
        match (device::warp_id(), device::lane_id()) {
            (1, 0) => n_produce(&pipe, window, input, tiles),
            (0, lane) => {
                let ring = ring_base();
                let mut st = PipelineState::<S>::new();
                let mut acc = 0.0f32;
                let mut t = b;
                while t < tiles {
                    pipe.consumer_wait(&st);
                    let stage = ring.add((st.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + lane) as usize);
                    }
                    pipe.consumer_release(&st);
                    st.advance();
                    t += g;
                }
                *out.add((b * COLS + lane) as usize) = acc;
            }
            _ => {}
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_option_take_put_back(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
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
            let mut slot = Some(PipelineState::<S>::new());
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                let mut st = slot.take().unwrap();
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                slot = Some(st);
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_option_bad_puts_back_old(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
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
            let mut slot = Some(PipelineState::<S>::new());
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                let st = slot.take().unwrap();
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                let mut next = st;
                next.advance();
                // BUG: puts back the state it took, not `next`.
                slot = Some(st);
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[inline(always)]
pub(crate) unsafe fn o_consume_all<const S: u32, F: FnMut(*const f32)>(pipe: &Pipeline<S>, n: u32, ring: *const f32, mut f: F) {
    let mut st = PipelineState::<S>::new();
    for _ in 0..n {
        pipe.consumer_wait(&st);
        f(unsafe { ring.add((st.index() * TILE) as usize) });
        pipe.consumer_release(&st);
        st.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_consumer_takes_closure(input: *const f32, tiles: u32, out: *mut f32) {
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
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let mut acc = 0.0f32;
            o_consume_all(&pipe, owned(tiles), ring_base(), |stage| {
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
            });
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_row_tree(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for j in 0..4u32 {
                *tile.add((tid + 64 * j) as usize) = *from.add((tid + 64 * j) as usize);
            }
            barrier();
            let mut step = ROWS / 2;
            while step > 0 {
                let mut i = tid;
                while i < step * COLS {
                    *tile.add(i as usize) += *tile.add((i + step * COLS) as usize);
                    i += 64;
                }
                barrier();
                step /= 2;
            }
            if tid < 32 {
                acc += *tile.add(tid as usize);
            }
            barrier();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_row_tree_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for j in 0..4u32 {
                *tile.add((tid + 64 * j) as usize) = *from.add((tid + 64 * j) as usize);
            }
            barrier();
            let mut step = ROWS / 2;
            while step > 0 {
                let mut i = tid;
                while i < step * COLS {
                    *tile.add(i as usize) += *tile.add((i + step * COLS) as usize);
                    i += 64;
                }
                step /= 2;
            }
            // BUG: one barrier after the whole tree instead of one per level.
            barrier();
            if tid < 32 {
                acc += *tile.add(tid as usize);
            }
            barrier();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_stage_reader_after_wait(input: *const f32, tiles: u32, out: *mut f32) {
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
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let column = |stage: *const f32| -> f32 { (0..ROWS).map(|r| *stage.add((r * COLS + tid) as usize)).sum() };
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                acc += column(ring.add((st.index() * TILE) as usize));
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}
