//! Group N1: views, pointer tables, and more orders (views of a stage).

#[allow(unused_imports)]
use super::*;


/// The producer loop most of this group shares, written out once per ring size.
#[inline(always)]
pub(crate) unsafe fn n_produce<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, t) }, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_view_rows_array(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = ring_base() as *const [[f32; 32]; 8];
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let rows = ring.add(st.index() as usize);
                for r in 0..ROWS as usize {
                    acc += (*rows)[r][tid as usize];
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
pub unsafe extern "ptx-kernel" fn r20_view_bad_row_stride(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = ring_base() as *const [[f32; 32]; 8];
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                // BUG: the stage index steps a pointer to one row, not to a tile: stage s is read
                // from rows s..s + 8 of stage 0 and 1.
                let rows = (ring as *const [f32; 32]).add(st.index() as usize);
                for r in 0..ROWS as usize {
                    acc += (*rows.add(r))[tid as usize];
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
pub unsafe extern "ptx-kernel" fn r20_ptr_table_by_stage(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = ring_base() as *const f32;
            let stages: [*const f32; 4] = [ring, ring.add(256), ring.add(512), ring.add(768)];
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = stages[st.index() as usize];
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
pub unsafe extern "ptx-kernel" fn r20_ptr_table_bad_rotated(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = ring_base() as *const f32;
            // BUG: the table was built starting at stage 1: entry s points at stage s + 1.
            let stages: [*const f32; 4] = [ring.add(256), ring.add(512), ring.add(768), ring];
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = stages[st.index() as usize];
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

pub(crate) struct NRing<const S: u32> {
    base: *const f32,
}

impl<const S: u32> NRing<S> {
    #[inline(always)]
    fn stage(&self, st: &PipelineState<S>) -> *const f32 {
        self.base.wrapping_add((st.index() * TILE) as usize)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ring_struct_stage_method(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = NRing::<S> { base: ring_base() };
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.stage(&st);
                acc += (0..ROWS).rev().fold(0.0, |s, r| s + *stage.add((r * COLS + tid) as usize));
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ring_bad_stage_after_advance(input: *const f32, tiles: u32, out: *mut f32) {
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
            let ring = NRing::<S> { base: ring_base() };
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let held = st;
                st.advance();
                // BUG: reads the stage of the advanced state, not the one it waited for.
                let stage = ring.stage(&st);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&held);
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_iter_enumerate_zip_tiles(input: *const f32, tiles: u32, out: *mut f32) {
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
    let g = grid_dim_x() as usize;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for (_k, t) in (b..tiles).step_by(g).enumerate() {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for (_k, _t) in (0u32..).zip((b..tiles).step_by(g)) {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for (r, w) in (0..ROWS).zip(core::iter::repeat(1.0f32)) {
                    acc += w * *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_iter_by_ref_prefill(input: *const f32, tiles: u32, out: *mut f32) {
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
    let g = grid_dim_x() as usize;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut todo = (b..tiles).step_by(g);
            // Fill the ring: the first round's acquires return at once.
            for t in todo.by_ref().take(S as usize) {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            for t in todo {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in (b..tiles).step_by(g) {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_iter_bad_prefill_one_too_many(input: *const f32, tiles: u32, out: *mut f32) {
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
    let g = grid_dim_x() as usize;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut todo = (b..tiles).step_by(g);
            // BUG: the prefill skips the acquire "because the ring is empty" — for S + 1 tiles; the
            // fifth overwrites stage 0 before the consumers released it.
            for t in todo.by_ref().take(S as usize + 1) {
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            for t in todo {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in (b..tiles).step_by(g) {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_quads_eight_consumers(input: *const f32, tiles: u32, out: *mut f32) {
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
        } else if tid < QUADS {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = [0.0f32; 4];
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    let q = *(stage.add((r * COLS + 4 * tid) as usize) as *const [f32; 4]);
                    for (a, v) in acc.iter_mut().zip(q) {
                        *a += v;
                    }
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            let dst = out.add((b * COLS + 4 * tid) as usize);
            for (j, a) in acc.iter().enumerate() {
                *dst.add(j) = *a;
            }
        }
    }
}
