//! Pipeline kernels with other splits of the block: every thread consuming half a column with
//! the producer among them, a consumer warp that splits the tile by rows and reduces with
//! segment sums, the producer as the block's last thread.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;

const TILE_BYTES: u32 = 1024;
const SCRATCH_AT: usize = 7168;

/// All 64 threads consume (thread t: column t % 32, rows 4·(t / 32)..+4); thread 0 also copies
/// each tile right before consuming it. Partial sums meet in scratch after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_role_all_threads_consume(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = device::dynamic_shared_window_address();
    let base = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + 4096, 64) } else { Pipeline::<S>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let col = (tid % 32) as usize;
    let half = (tid / 32) as usize;
    let mut prod = PipelineState::<S>::producer_start();
    let mut cons = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&prod);
            pipe.producer_expect_tx(&prod, TILE_BYTES);
            bulk_copy_global_to_shared(window + prod.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&prod));
            prod.advance();
        }
        pipe.consumer_wait(&cons);
        let stage = base.add(cons.index() as usize * 256);
        for r in 4 * half..4 * half + 4 {
            acc += *stage.add(r * 32 + col);
        }
        pipe.consumer_release(&cons);
        cons.advance();
        t += g;
    }
    if tid == 0 {
        pipe.producer_tail(prod);
    }
    let scratch = base.add(SCRATCH_AT / 4);
    *scratch.add(tid as usize) = acc;
    device::barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + col) = *scratch.add(col) + *scratch.add(col + 32);
    }
}

/// As `r23_role_all_threads_consume`, but thread 0 first fills the whole ring and then copies
/// tile k + S after consuming tile k.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_role_all_threads_prefetch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = device::dynamic_shared_window_address();
    let base = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + 3072, 64) } else { Pipeline::<S>::attach(window + 3072) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mine = (tiles - b).div_ceil(g);
    let col = (tid % 32) as usize;
    let half = (tid / 32) as usize;
    let mut prod = PipelineState::<S>::producer_start();
    let mut issued = 0u32;
    if tid == 0 {
        while issued < mine && issued < S {
            pipe.producer_acquire(&prod);
            pipe.producer_expect_tx(&prod, TILE_BYTES);
            bulk_copy_global_to_shared(window + prod.index() * TILE_BYTES, input.add((b + issued * g) as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&prod));
            prod.advance();
            issued += 1;
        }
    }
    let mut cons = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    for _k in 0..mine {
        pipe.consumer_wait(&cons);
        let stage = base.add(cons.index() as usize * 256 + half * 128 + col);
        acc += *stage + *stage.add(32) + *stage.add(64) + *stage.add(96);
        pipe.consumer_release(&cons);
        cons.advance();
        if tid == 0 && issued < mine {
            pipe.producer_acquire(&prod);
            pipe.producer_expect_tx(&prod, TILE_BYTES);
            bulk_copy_global_to_shared(window + prod.index() * TILE_BYTES, input.add((b + issued * g) as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&prod));
            prod.advance();
            issued += 1;
        }
    }
    if tid == 0 {
        pipe.producer_tail(prod);
    }
    let scratch = base.add(SCRATCH_AT / 4);
    *scratch.add(tid as usize) = acc;
    device::barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + col) = *scratch.add(col) + *scratch.add(col + 32);
    }
}

/// The block's last thread produces, warp 0 consumes; five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_role_last_thread_producer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    const LAST: u32 = 63;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == LAST { Pipeline::<S>::init(window + 5120, 32) } else { Pipeline::<S>::attach(window + 5120) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == LAST {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + tid as usize) = acc;
    }
}

/// Warp 1 consumes by rows: lane 8·q + r reads row r, columns 8q..8q+8, keeps eight partial
/// sums, and the eight lanes of each segment combine them with `segment_sum`; six stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_role_row_lanes_segment_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + 6144, 32) } else { Pipeline::<S>::attach(window + 6144) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let (q, row) = (lane / 8, lane % 8);
        let mut part = [0.0f32; 8];
        let mut st = PipelineState::<S>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let at = ring.add(st.index() as usize * 256 + row * 32 + q * 8);
            for j in 0..8 {
                part[j] += *at.add(j);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        let mut mine = 0.0;
        for j in 0..8 {
            let total = segment_sum(part[j], 8);
            if j == row {
                mine = total;
            }
        }
        *out.add(b as usize * 32 + q * 8 + row) = mine;
    }
}

/// All threads consume halves of a column; partials written to scratch and combined.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_role_bad_scratch_unsynchronised(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = device::dynamic_shared_window_address();
    let base = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + 4096, 64) } else { Pipeline::<S>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let col = (tid % 32) as usize;
    let half = (tid / 32) as usize;
    let mut prod = PipelineState::<S>::producer_start();
    let mut cons = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&prod);
            pipe.producer_expect_tx(&prod, TILE_BYTES);
            bulk_copy_global_to_shared(window + prod.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&prod));
            prod.advance();
        }
        pipe.consumer_wait(&cons);
        let stage = base.add(cons.index() as usize * 256);
        for r in 4 * half..4 * half + 4 {
            acc += *stage.add(r * 32 + col);
        }
        pipe.consumer_release(&cons);
        cons.advance();
        t += g;
    }
    let scratch = base.add(SCRATCH_AT / 4);
    *scratch.add(tid as usize) = acc;
    if tid == 0 {
        pipe.producer_tail(prod);
    }
    if tid < 32 {
        *out.add(b as usize * 32 + col) = *scratch.add(col) + *scratch.add(col + 32);
    }
}

/// All threads consume, the row range taken from the thread's parity.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_role_bad_half_by_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = device::dynamic_shared_window_address();
    let base = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + 4096, 64) } else { Pipeline::<S>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let col = (tid % 32) as usize;
    let half = (tid % 2) as usize;
    let mut prod = PipelineState::<S>::producer_start();
    let mut cons = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&prod);
            pipe.producer_expect_tx(&prod, TILE_BYTES);
            bulk_copy_global_to_shared(window + prod.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&prod));
            prod.advance();
        }
        pipe.consumer_wait(&cons);
        let stage = base.add(cons.index() as usize * 256);
        for r in 4 * half..4 * half + 4 {
            acc += *stage.add(r * 32 + col);
        }
        pipe.consumer_release(&cons);
        cons.advance();
        t += g;
    }
    if tid == 0 {
        pipe.producer_tail(prod);
    }
    let scratch = base.add(SCRATCH_AT / 4);
    *scratch.add(tid as usize) = acc;
    device::barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + col) = *scratch.add(col) + *scratch.add(col + 32);
    }
}

/// Thread 0 produces and warp 0 consumes, four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_role_bad_producer_in_consumer_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + 4096, 32) } else { Pipeline::<S>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    }
    if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + tid as usize) = acc;
    }
}

/// Warp 1 consumes, thread 0 produces; five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_role_bad_output_by_thread(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + 5120, 32) } else { Pipeline::<S>::attach(window + 5120) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + tid as usize) = acc;
    }
}

/// Row lanes with segment sums over four lanes; six stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_role_bad_segment_of_four(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + 6144, 32) } else { Pipeline::<S>::attach(window + 6144) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let (q, row) = (lane / 8, lane % 8);
        let mut part = [0.0f32; 8];
        let mut st = PipelineState::<S>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let at = ring.add(st.index() as usize * 256 + row * 32 + q * 8);
            for j in 0..8 {
                part[j] += *at.add(j);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        let mut mine = 0.0;
        for j in 0..8 {
            let total = segment_sum(part[j], 4);
            if j == row {
                mine = total;
            }
        }
        *out.add(b as usize * 32 + q * 8 + row) = mine;
    }
}
