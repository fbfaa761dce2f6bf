//! Other splits of the consumers: several lanes per column combined with shuffles, consumers in
//! the second warp, sixteen consumers with two columns each, consumers spread over both warps.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// The producer loop shared by this module's kernels: ring at `ring` (window address).
#[inline(always)]
unsafe fn producer_loop<const S: u32>(pipe: &Pipeline<S>, ring: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_two_lanes_per_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    if tid == 32 {
        producer_loop(&pipe, window, input, tiles);
    } else if warp_id() == 0 {
        let lane = lane_id() as usize;
        let (col_a, col_b) = (lane / 2, lane / 2 + 16);
        let first_row = (lane % 2) * 4;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let (mut a, mut bb) = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in first_row..first_row + 4 {
                a += *stage.add(r * 32 + col_a);
                bb += *stage.add(r * 32 + col_b);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let a = segment_sum(a, 2);
        let bb = segment_sum(bb, 2);
        let (col, v) = if lane % 2 == 0 { (col_a, a) } else { (col_b, bb) };
        *out.add(b as usize * 32 + col) = v;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_four_lanes_per_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    if tid == 40 {
        producer_loop(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let lane = tid as usize;
        let quarter = lane % 4;
        let group = lane / 4;
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<S>::new();
        let mut part = [0.0f32; 4];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for (m, p) in part.iter_mut().enumerate() {
                let col = group + 8 * m;
                *p += *stage.add((2 * quarter) * 32 + col) + *stage.add((2 * quarter + 1) * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let totals = [segment_sum(part[0], 4), segment_sum(part[1], 4), segment_sum(part[2], 4), segment_sum(part[3], 4)];
        *out.add(b as usize * 32 + group + 8 * quarter) = totals[quarter];
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_second_warp_consumes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let bars = window + 5120;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    if tid == 0 {
        producer_loop(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_sixteen_consumers_two_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const CONSUMERS: u32 = 16;
    let window = dynamic_shared_window_address();
    let bars = window + 2048;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    if tid == 32 {
        producer_loop(&pipe, window, input, tiles);
    } else if tid < CONSUMERS {
        let cols = [tid as usize, (tid + CONSUMERS) as usize];
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = [0.0f32; 2];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                for (a, c) in acc.iter_mut().zip(cols) {
                    *a += *stage.add(r * 32 + c);
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        for (a, c) in acc.iter().zip(cols) {
            *out.add(b as usize * 32 + c) = *a;
        }
    }
}

#[inline(always)]
fn split_column(tid: u32) -> Option<usize> {
    match tid {
        0..16 => Some(tid as usize),
        32..48 => Some((tid - 16) as usize),
        _ => None,
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_consumers_split_over_warps(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    if tid == 63 {
        producer_loop(&pipe, window + 4096, input, tiles);
    } else if let Some(col) = split_column(tid) {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_bad_pairs_combined_over_four(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    if tid == 32 {
        producer_loop(&pipe, window, input, tiles);
    } else if warp_id() == 0 {
        let lane = lane_id() as usize;
        let (col_a, col_b) = (lane / 2, lane / 2 + 16);
        let first_row = (lane % 2) * 4;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let (mut a, mut bb) = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in first_row..first_row + 4 {
                a += *stage.add(r * 32 + col_a);
                bb += *stage.add(r * 32 + col_b);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let a = segment_sum(a, 4);
        let bb = segment_sum(bb, 4);
        let (col, v) = if lane % 2 == 0 { (col_a, a) } else { (col_b, bb) };
        *out.add(b as usize * 32 + col) = v;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_bad_lane_zero_releases_for_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    if tid == 40 {
        producer_loop(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let lane = tid as usize;
        let quarter = lane % 4;
        let group = lane / 4;
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<S>::new();
        let mut part = [0.0f32; 4];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for (m, p) in part.iter_mut().enumerate() {
                let col = group + 8 * m;
                *p += *stage.add((2 * quarter) * 32 + col) + *stage.add((2 * quarter + 1) * 32 + col);
            }
            // the warp is done with the stage once its first lane is
            if lane == 0 {
                pipe.consumer_release(&st);
            }
            st.advance();
            t += grid_dim_x();
        }
        let totals = [segment_sum(part[0], 4), segment_sum(part[1], 4), segment_sum(part[2], 4), segment_sum(part[3], 4)];
        *out.add(b as usize * 32 + group + 8 * quarter) = totals[quarter];
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_bad_sixteen_consumers_init_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const CONSUMERS: u32 = 16;
    let window = dynamic_shared_window_address();
    let bars = window + 2048;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    if tid == 32 {
        producer_loop(&pipe, window, input, tiles);
    } else if tid < CONSUMERS {
        let cols = [tid as usize, (tid + CONSUMERS) as usize];
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = [0.0f32; 2];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                for (a, c) in acc.iter_mut().zip(cols) {
                    *a += *stage.add(r * 32 + c);
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        for (a, c) in acc.iter().zip(cols) {
            *out.add(b as usize * 32 + c) = *a;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_bad_producer_is_last_consumer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    // the first thread after the consumers produces
    if tid == 47 {
        producer_loop(&pipe, window + 4096, input, tiles);
    }
    if let Some(col) = split_column(tid) {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_multi_bad_second_column_off_by_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const CONSUMERS: u32 = 16;
    let window = dynamic_shared_window_address();
    let bars = window + 2048;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    if tid == 32 {
        producer_loop(&pipe, window, input, tiles);
    } else if tid < CONSUMERS {
        let cols = [tid as usize, (tid + CONSUMERS - 1) as usize];
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = [0.0f32; 2];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                for (a, c) in acc.iter_mut().zip(cols) {
                    *a += *stage.add(r * 32 + c);
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        for (a, c) in acc.iter().zip(cols) {
            *out.add(b as usize * 32 + c) = *a;
        }
    }
}
