//! Group M: shuffles, clusters, dependent launch.

#[allow(unused_imports)]
use super::*;


#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_shfl_pair_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid / 2;
    let half = tid % 2;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            barrier();
            t += g;
        }
    }
    let total = device::reduce::segment_sum(acc, 2);
    if half == 0 {
        unsafe { *out.add((b * COLS + col) as usize) = total };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_shfl_bad_no_trailing_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid / 2;
    let half = tid % 2;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            // BUG: the trailing barrier was dropped "because the shuffle synchronises the warp":
            // it does not order warp 1's next staging stores against warp 0's reads.
            t += g;
        }
    }
    let total = device::reduce::segment_sum(acc, 2);
    if half == 0 {
        unsafe { *out.add((b * COLS + col) as usize) = total };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_cluster_barrier_staging(input: *const f32, tiles: u32, out: *mut f32) {
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
            let mut i = tid;
            while i < TILE {
                *tile.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            device::cluster::cluster_barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            device::cluster::cluster_barrier();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_dependent_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    device::dependent::wait_for_prior_grid();
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
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            device::dependent::allow_dependent_launch();
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
pub unsafe extern "ptx-kernel" fn r20_dependent_bad_plain_race(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    device::dependent::wait_for_prior_grid();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *tile.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            // BUG: "allow the next grid" was put where the trailing barrier was; nothing orders the reuse.
            device::dependent::allow_dependent_launch();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_cluster_sync_after_init(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    device::cluster::cluster_barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
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
