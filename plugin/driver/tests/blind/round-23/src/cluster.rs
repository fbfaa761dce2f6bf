//! Kernels using the cluster API (cluster barriers, distributed shared memory through `mapa`,
//! cluster ranks) and programmatic dependent launch. Launched without a cluster attribute, each
//! block is a cluster of one.

use crate::device;
use crate::device::cluster::{block_rank_in_cluster, cluster_barrier, map_shared_to_block};
use crate::device::dependent::{allow_dependent_launch, wait_for_prior_grid};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

/// Single staging buffer ordered by cluster barriers instead of block barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clu_cluster_barrier_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x() as usize;
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        cluster_barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *s.add(r * 32 + tid);
            }
        }
        cluster_barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Staging written through the block's own distributed-shared-memory address (`mapa` to its own
/// rank), read back locally after a cluster barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clu_dsm_own_rank(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x() as usize;
    let rank = block_rank_in_cluster();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            let i = tid + 64 * k;
            *map_shared_to_block(s.add(i), rank) = *src.add(i);
        }
        cluster_barrier();
        if tid >= 32 {
            let c = tid - 32;
            for r in 0..8 {
                acc += *s.add(r * 32 + c);
            }
        }
        cluster_barrier();
        t += g;
    }
    if tid >= 32 {
        *out.add(b as usize * 32 + tid - 32) = acc;
    }
}

/// Every thread sums half a column straight from global memory; the halves are published into
/// the block's shared memory through its DSM address and combined after a cluster barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clu_dsm_half_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x() as usize;
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * 256 + half * 128 + c);
        acc += *tile + *tile.add(32) + *tile.add(64) + *tile.add(96);
        t += g;
    }
    *map_shared_to_block(s.add(tid), block_rank_in_cluster()) = acc;
    cluster_barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + c) = *s.add(c) + *s.add(c + 32);
    }
}

/// Pipeline kernel (four stages) written for programmatic dependent launch: it waits for the
/// prior grid before touching global memory and lets the next grid launch at its end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clu_pdl_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    wait_for_prior_grid();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + st.index() * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
    allow_dependent_launch();
}

/// Double-buffered staging written for programmatic dependent launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clu_pdl_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    wait_for_prior_grid();
    let s = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x() as usize;
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mut acc = 0.0f32;
    let mut which = 0usize;
    let mut t = b;
    while t < tiles {
        let buf = s.add(which * 1024);
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            *buf.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        device::barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *buf.add(r * 32 + tid);
            }
        }
        which = 1 - which;
        t += g;
    }
    allow_dependent_launch();
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Half columns published to the neighbouring block of the cluster.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clu_bad_dsm_next_rank(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x() as usize;
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let (c, half) = (tid % 32, tid / 32);
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * 256 + half * 128 + c);
        acc += *tile + *tile.add(32) + *tile.add(64) + *tile.add(96);
        t += g;
    }
    *map_shared_to_block(s.add(tid), block_rank_in_cluster() + 1) = acc;
    cluster_barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + c) = *s.add(c) + *s.add(c + 32);
    }
}

/// DSM staging of each tile with a cluster barrier after the reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clu_bad_dsm_read_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x() as usize;
    let rank = block_rank_in_cluster();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            let i = tid + 64 * k;
            *map_shared_to_block(s.add(i), rank) = *src.add(i);
        }
        if tid >= 32 {
            let c = tid - 32;
            for r in 0..8 {
                acc += *s.add(r * 32 + c);
            }
        }
        cluster_barrier();
        t += g;
    }
    if tid >= 32 {
        *out.add(b as usize * 32 + tid - 32) = acc;
    }
}

/// Cluster-barrier staging; results stored by the block's rank in its cluster.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clu_bad_output_by_rank(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x() as usize;
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * 256);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        cluster_barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += *s.add(r * 32 + tid);
            }
        }
        cluster_barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(block_rank_in_cluster() as usize * 32 + tid) = acc;
    }
}

/// PDL pipeline kernel whose producer walks the tiles from the block's cluster rank.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clu_bad_pdl_producer_by_rank(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    wait_for_prior_grid();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_rank_in_cluster();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + st.index() * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
    allow_dependent_launch();
}
