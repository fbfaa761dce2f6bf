//! Group E: enums, Option, mem::replace.

#[allow(unused_imports)]
use super::*;


pub(crate) enum ERole {
    Producer,
    Consumer(u32),
    Idle,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_enum_role_match(input: *const f32, tiles: u32, out: *mut f32) {
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
    let role = match tid {
        0..=31 => ERole::Consumer(tid),
        32 => ERole::Producer,
        _ => ERole::Idle,
    };
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        match role {
            ERole::Producer => {
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
            }
            ERole::Consumer(col) => {
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
            ERole::Idle => {}
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum EStep {
    Wait,
    Read,
    Release,
    Done,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_enum_consumer_machine(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mut k = 0u32;
            let mut step = EStep::Wait;
            loop {
                step = match step {
                    EStep::Wait => {
                        if k == n {
                            EStep::Done
                        } else {
                            pipe.consumer_wait(&st);
                            EStep::Read
                        }
                    }
                    EStep::Read => {
                        let stage = ring.add((st.index() * TILE) as usize);
                        for r in 0..ROWS {
                            acc += *stage.add((r * COLS + tid) as usize);
                        }
                        EStep::Release
                    }
                    EStep::Release => {
                        pipe.consumer_release(&st);
                        st.advance();
                        k += 1;
                        EStep::Wait
                    }
                    EStep::Done => break,
                };
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_enum_bad_machine_skips_release(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mut k = 0u32;
            let mut step = EStep::Wait;
            while step != EStep::Done {
                step = match step {
                    EStep::Wait => {
                        if k == n {
                            EStep::Done
                        } else {
                            pipe.consumer_wait(&st);
                            EStep::Read
                        }
                    }
                    EStep::Read => {
                        let stage = ring.add((st.index() * TILE) as usize);
                        for r in 0..ROWS {
                            acc += *stage.add((r * COLS + tid) as usize);
                        }
                        // BUG: the last stage of a ring round skips the Release step.
                        if st.index() == S - 1 {
                            st.advance();
                            k += 1;
                            EStep::Wait
                        } else {
                            EStep::Release
                        }
                    }
                    EStep::Release => {
                        pipe.consumer_release(&st);
                        st.advance();
                        k += 1;
                        EStep::Wait
                    }
                    EStep::Done => EStep::Done,
                };
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_option_take_state(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mut slot: Option<PipelineState<S>> = Some(PipelineState::new());
            let mut acc = 0.0f32;
            for _ in 0..n {
                if let Some(st) = slot.as_mut() {
                    pipe.consumer_wait(st);
                    let stage = ring.add((st.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    pipe.consumer_release(st);
                    st.advance();
                }
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_mem_replace_after_release(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mut cur = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&cur);
                let stage = ring.add((cur.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&cur);
                let mut next = cur;
                next.advance();
                let _done = mem::replace(&mut cur, next);
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_mem_replace_bad_resets(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mut cur = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&cur);
                let stage = ring.add((cur.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&cur);
                // BUG: swaps in a fresh state instead of the advanced one: back to stage 0 phase 0.
                let mut old = mem::replace(&mut cur, PipelineState::new());
                old.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}
