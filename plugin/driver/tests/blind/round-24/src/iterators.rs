//! Pipeline kernels that read stages (and walk tiles) through iterator adaptors and slices.

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const BYTES: u32 = 1024;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_step_by_tiles(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in (b..tiles).step_by(g as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in (b..tiles).step_by(g as usize) {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(smem.add(st.index() as usize * TILE) as *const f32, TILE);
            acc += stage.iter().skip(tid as usize).step_by(32).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_chunks_rows(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(smem.add(st.index() as usize * TILE) as *const f32, TILE);
            for row in stage.chunks_exact(32) {
                acc += row[tid as usize];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_rows_array_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let rows = dynamic_shared_base::<[[f32; 32]; 8]>();
    let bars = window + 3 * BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &*rows.add(st.index() as usize);
            acc += tile.iter().map(|row| row[tid as usize]).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_enumerate_rows_fold(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles + g - 1 - b) / g;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add((b + k * g) as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = [0.0f32; 2];
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE) as *const f32;
            // two accumulators, even and odd rows, combined at the end
            (0..8usize).enumerate().for_each(|(i, r)| acc[i & 1] += *stage.add(r * 32 + tid as usize));
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc[0] + acc[1];
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_zip_two_halves(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(smem.add(st.index() as usize * TILE) as *const f32, TILE);
            let (top, bottom) = stage.split_at(128);
            acc += top.iter().zip(bottom.iter()).skip(tid as usize).step_by(32).map(|(a, c)| a + c).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_rev_rows_get_unchecked(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>().add(256);
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + 1024 + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(smem.add(st.index() as usize * TILE) as *const f32, TILE);
            for r in (0..8).rev() {
                acc += *stage.get_unchecked(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_while_let_next_tile(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut it = (b..tiles).step_by(g as usize);
        while let Some(t) = it.next() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut it = (b..tiles).step_by(g as usize);
        while let Some(_) = it.next() {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE) as *const f32;
            acc += (0..8).map(|r| *stage.add(r * 32 + tid as usize)).fold(0.0, |a, v| a + v);
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_bad_skip_without_step(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in (b..tiles).step_by(g as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in (b..tiles).step_by(g as usize) {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(smem.add(st.index() as usize * TILE) as *const f32, TILE);
            // column c: c, c+32, ... (take 8)
            acc += stage.iter().skip(tid as usize).take(8).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_bad_slice_spans_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            // rows as 64-float chunks (two rows each), column from the chunk's start
            let stage = slice::from_raw_parts(smem.add(st.index() as usize * TILE) as *const f32, 2 * TILE);
            for pair in stage.chunks_exact(64).take(8) {
                acc += pair[tid as usize];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_bad_lazy_sum_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let rows = dynamic_shared_base::<[[f32; 32]; 8]>();
    let bars = window + 2 * BYTES;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &*rows.add(st.index() as usize);
            let column = tile.iter().map(|row| row[tid as usize]);
            pipe.consumer_release(&st);
            acc += column.sum::<f32>();
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_bad_consumer_step_by_one(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in (b..tiles).step_by(g as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        // tiles of this block, counted from b
        for _ in b..(tiles / g) {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(smem.add(st.index() as usize * TILE) as *const f32, TILE);
            acc += stage.iter().skip(tid as usize).step_by(32).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_iter_bad_rows_view_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let rows = dynamic_shared_base::<[[f32; 32]; 8]>();
    let bars = window + 3 * BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            // view of the stage, rows in reverse order
            let tile = &*rows.add(st.index() as usize + 1).cast::<[f32; 32]>().sub(8).cast::<[[f32; 32]; 8]>();
            acc += tile.iter().rev().skip(1).map(|row| row[tid as usize]).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
