//! Pipeline kernels with different splits of the work between threads: lane groups combined by
//! shuffles, fewer consumers with several columns each, consumers in the second warp with the
//! results passed through shared scratch.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE: usize = 256;
const BYTES: u32 = 1024;

unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, BYTES);
        bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_segment_rows_per_lane(input: *const f32, tiles: u32, out: *mut f32) {
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
    if tid == 32 {
        produce(&pipe, window, input, tiles);
    } else if tid < 32 {
        // lane = group * 8 + row: each lane reads 8 consecutive columns of one row
        let row = (tid % 8) as usize;
        let group = (tid / 8) as usize;
        let mut part = [0.0f32; 8];
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE + row * 32 + group * 8);
            for j in 0..8 {
                part[j] += *stage.add(j);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        for j in 0..8 {
            let total = segment_sum(part[j], 8);
            if row == j {
                *out.add(block_idx_x() as usize * 32 + group * 8 + j) = total;
            }
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_sixteen_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 16);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        produce(&pipe, window, input, tiles);
    } else if tid < 16 {
        let mut lo = 0.0f32;
        let mut hi = 0.0f32;
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                lo += *stage.add(r * 32 + tid as usize);
                hi += *stage.add(r * 32 + 16 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let o = out.add(block_idx_x() as usize * 32);
        *o.add(tid as usize) = lo;
        *o.add(tid as usize + 16) = hi;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_eight_consumers_quads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 8);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    if tid == 40 {
        produce(&pipe, window, input, tiles);
    } else if tid < 8 {
        let mut acc = [0.0f32; 4];
        let mut st = PipelineState::<3>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                let q = *(stage.add(r * 32 + 4 * tid as usize) as *const [f32; 4]);
                acc[0] += q[0];
                acc[1] += q[1];
                acc[2] += q[2];
                acc[3] += q[3];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let o = out.add(block_idx_x() as usize * 32 + 4 * tid as usize);
        for k in 0..4 {
            *o.add(k) = acc[k];
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_second_warp_via_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    let scratch = smem.add(4 * TILE + 64); // 256 bytes past the ring, after the barriers
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        produce(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut acc = 0.0f32;
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *scratch.add(col) = acc;
    }
    barrier();
    if tid < 32 {
        *out.add((block_idx_x() * 32 + tid) as usize) = *scratch.add(tid as usize);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_lane_pairs_half_rows(input: *const f32, tiles: u32, out: *mut f32) {
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
    if tid == 32 {
        produce(&pipe, window, input, tiles);
    } else if tid < 32 {
        // lane 2k and 2k+1 share columns k and k+16; even lanes rows 0..4, odd lanes rows 4..8
        let k = (tid / 2) as usize;
        let first = 4 * (tid % 2) as usize;
        let mut a = 0.0f32;
        let mut c = 0.0f32;
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in first..first + 4 {
                a += *stage.add(r * 32 + k);
                c += *stage.add(r * 32 + k + 16);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let a = segment_sum(a, 2);
        let c = segment_sum(c, 2);
        let col = if tid % 2 == 0 { k } else { k + 16 };
        *out.add(block_idx_x() as usize * 32 + col) = if tid % 2 == 0 { a } else { c };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_contains_ranges(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * BYTES;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let consumers = 0..32u32;
    if (40..41).contains(&tid) {
        produce(&pipe, window, input, tiles);
    } else if consumers.contains(&tid) {
        let mut acc = 0.0f32;
        let mut st = PipelineState::<2>::new();
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
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_warp_and_lane_ids(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let (warp, lane) = (warp_id(), lane_id());
    if warp == 1 && lane == 0 {
        produce(&pipe, window, input, tiles);
    } else if warp == 0 {
        let mut acc = 0.0f32;
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + lane as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + lane) as usize) = acc;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_bad_segment_width(input: *const f32, tiles: u32, out: *mut f32) {
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
    if tid == 32 {
        produce(&pipe, window, input, tiles);
    } else if tid < 32 {
        let row = (tid % 8) as usize;
        let group = (tid / 8) as usize;
        let mut part = [0.0f32; 8];
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE + row * 32 + group * 8);
            for j in 0..8 {
                part[j] += *stage.add(j);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        for j in 0..8 {
            // four lanes per group of columns
            let total = segment_sum(part[j], 4);
            if row == j {
                *out.add(block_idx_x() as usize * 32 + group * 8 + j) = total;
            }
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_bad_sixteen_consumers_count_warp(input: *const f32, tiles: u32, out: *mut f32) {
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
    if tid == 32 {
        produce(&pipe, window, input, tiles);
    } else if tid < 16 {
        let mut lo = 0.0f32;
        let mut hi = 0.0f32;
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                lo += *stage.add(r * 32 + tid as usize);
                hi += *stage.add(r * 32 + 16 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let o = out.add(block_idx_x() as usize * 32);
        *o.add(tid as usize) = lo;
        *o.add(tid as usize + 16) = hi;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_bad_producer_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let (warp, lane) = (warp_id(), lane_id());
    if warp == 1 {
        produce(&pipe, window, input, tiles);
    } else {
        let mut acc = 0.0f32;
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + lane as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + lane) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_bad_scratch_read_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    let scratch = smem.add(4 * TILE + 64);
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        produce(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut acc = 0.0f32;
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *scratch.add(col) = acc;
    }
    // the producer's tail already waited for every release, so the scratch is written
    if tid < 32 {
        *out.add((block_idx_x() * 32 + tid) as usize) = *scratch.add(tid as usize);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_bad_contains_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * BYTES;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let consumers = 0..=32u32;
    if tid == 40 {
        produce(&pipe, window, input, tiles);
    } else if consumers.contains(&tid) {
        let col = (tid % 32) as usize;
        let mut acc = 0.0f32;
        let mut st = PipelineState::<2>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        if tid < 32 {
            *out.add(block_idx_x() as usize * 32 + col) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_role_bad_elected_lane_also_consumes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let (warp, lane) = (warp_id(), lane_id());
    // elect one lane of the consuming warp to feed it
    if warp == 0 && lane == 0 {
        produce(&pipe, window, input, tiles);
    }
    if warp == 0 {
        let mut acc = 0.0f32;
        let mut st = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + lane as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + lane) as usize) = acc;
    }
}
