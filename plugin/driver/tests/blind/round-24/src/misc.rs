//! Kernels that also use the dependent-launch and cluster parts of the device API (a launch
//! without those attributes: the waits are no-ops and a cluster is this one block).

use crate::device::cluster::{cluster_barrier, cluster_block_count, map_shared_to_block};
use crate::device::dependent::{allow_dependent_launch, wait_for_prior_grid};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const BYTES: u32 = 1024;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_misc_dependent_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    wait_for_prior_grid();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        allow_dependent_launch();
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_misc_cluster_barrier_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            *buf.add(tid + 64 * k) = *input.add(t as usize * TILE + tid + 64 * k);
        }
        cluster_barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        cluster_barrier();
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_misc_dependent_plain_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    wait_for_prior_grid();
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>().add(256);
    let col = tid % 32;
    let half = tid / 32;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            *buf.add(tid + 64 * k) = *input.add(t as usize * TILE + tid + 64 * k);
        }
        barrier();
        for r in 0..4 {
            acc += *buf.add((half * 4 + r) * 32 + col);
        }
        barrier();
        t += grid_dim_x();
    }
    let partials = dynamic_shared_base::<f32>();
    *partials.add(tid) = acc;
    barrier();
    allow_dependent_launch();
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = *partials.add(tid) + *partials.add(tid + 32);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_misc_cluster_local_rank(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * BYTES;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    cluster_barrier();
    let pipe = Pipeline::<2>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        // in a launch without clusters the cluster is this block alone: write through the
        // block's own mapping of its shared scratch
        let scratch = smem.add(2 * TILE + 64 + tid as usize);
        let mine = map_shared_to_block(scratch, cluster_block_count() - 1);
        *mine = acc;
        *out.add((block_idx_x() * 32 + tid) as usize) = *mine;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_misc_bad_dependent_expect_padded(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    wait_for_prior_grid();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            // tile plus a 16-byte alignment pad
            pipe.producer_expect_tx(&st, BYTES + 16);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        allow_dependent_launch();
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_misc_bad_cluster_barrier_readers_only(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            *buf.add(tid + 64 * k) = *input.add(t as usize * TILE + tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
            cluster_barrier();
        }
        t += grid_dim_x();
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_misc_bad_map_to_next_rank(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            *buf.add(tid + 64 * k) = *input.add(t as usize * TILE + tid + 64 * k);
        }
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    let partial = buf.add(1024 + tid);
    // publish to the neighbouring block of the cluster (rank + 1)
    let neighbour = map_shared_to_block(partial, cluster_block_count());
    *neighbour = acc;
    barrier();
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid) = *partial;
    }
}
