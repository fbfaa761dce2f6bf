//! Kernels written by someone new to the pipeline API: straight-line code, everything in the
//! kernel body, magic numbers with comments, thread 0 sets up and thread 32 copies.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

/// Two stages of one tile each, barriers right after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_newcomer_basic(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe {
        let tid = thread_idx_x();
        let smem_addr = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        // ring = 2 tiles = 2048 bytes, the barriers come after it
        let bar_addr = smem_addr + 2048;
        let pipe;
        if tid == 0 {
            pipe = Pipeline::<2>::init(bar_addr, 32);
        } else {
            pipe = Pipeline::<2>::attach(bar_addr);
        }
        barrier();

        if tid == 32 {
            let mut state = PipelineState::<2>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, 1024);
                let src = input.add(t as usize * 256) as *const u8;
                let dst = smem_addr + state.index() * 1024;
                bulk_copy_global_to_shared(dst, src, 1024, pipe.producer_barrier(&state));
                state.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(state);
        }

        if tid < 32 {
            let mut state = PipelineState::<2>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(state.index() as usize * 256);
                let mut j = 0;
                while j < 8 {
                    sum += *stage.add(tid as usize + 32 * j);
                    j += 1;
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// Same as the basic one, but the consumer goes straight to reading ("the copy was issued
/// before, so the data is there").
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_newcomer_forgot_wait(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe {
        let tid = thread_idx_x();
        let smem_addr = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bar_addr = smem_addr + 2048;
        let pipe;
        if tid == 0 {
            pipe = Pipeline::<2>::init(bar_addr, 32);
        } else {
            pipe = Pipeline::<2>::attach(bar_addr);
        }
        barrier();

        if tid == 32 {
            let mut state = PipelineState::<2>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, 1024);
                let src = input.add(t as usize * 256) as *const u8;
                bulk_copy_global_to_shared(smem_addr + state.index() * 1024, src, 1024, pipe.producer_barrier(&state));
                state.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(state);
        }

        if tid < 32 {
            let mut state = PipelineState::<2>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                // the producer already started the copy
                let stage = smem.add(state.index() as usize * 256);
                for j in 0..8 {
                    sum += *stage.add(tid as usize + 32 * j);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// Releases the stage first "so that the producer can start the next copy sooner", then reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_newcomer_release_first(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe {
        let tid = thread_idx_x();
        let smem_addr = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bar_addr = smem_addr + 2048;
        let pipe;
        if tid == 0 {
            pipe = Pipeline::<2>::init(bar_addr, 32);
        } else {
            pipe = Pipeline::<2>::attach(bar_addr);
        }
        barrier();

        if tid == 32 {
            let mut state = PipelineState::<2>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, 1024);
                let src = input.add(t as usize * 256) as *const u8;
                bulk_copy_global_to_shared(smem_addr + state.index() * 1024, src, 1024, pipe.producer_barrier(&state));
                state.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(state);
        }

        if tid < 32 {
            let mut state = PipelineState::<2>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                pipe.consumer_release(&state);
                let stage = smem.add(state.index() as usize * 256);
                let mut j = 0;
                while j < 8 {
                    sum += *stage.add(tid as usize + 32 * j);
                    j += 1;
                }
                state.advance();
                t += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// Thread 0 initialises the barriers, but nobody waits for it: the copy thread (in the other
/// warp) may arrive on a barrier before it is initialised.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_newcomer_no_sync_after_init(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe {
        let tid = thread_idx_x();
        let smem_addr = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bar_addr = smem_addr + 4096;
        let pipe;
        if tid == 0 {
            pipe = Pipeline::<4>::init(bar_addr, 32);
        } else {
            pipe = Pipeline::<4>::attach(bar_addr);
        }

        if tid == 32 {
            let mut state = PipelineState::<4>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, 1024);
                let src = input.add(t as usize * 256) as *const u8;
                bulk_copy_global_to_shared(smem_addr + state.index() * 1024, src, 1024, pipe.producer_barrier(&state));
                state.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(state);
        }

        if tid < 32 {
            let mut state = PipelineState::<4>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(state.index() as usize * 256);
                for j in 0..8 {
                    sum += *stage.add(tid as usize + 32 * j);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// The copy is given the tile's length in floats where it wants bytes: 256 bytes land, the
/// barrier waits for 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_newcomer_bytes_as_floats(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe {
        let tid = thread_idx_x();
        let smem_addr = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let tile_len = 256u32; // floats in one tile
        let bar_addr = smem_addr + 2048;
        let pipe;
        if tid == 0 {
            pipe = Pipeline::<2>::init(bar_addr, 32);
        } else {
            pipe = Pipeline::<2>::attach(bar_addr);
        }
        barrier();

        if tid == 32 {
            let mut state = PipelineState::<2>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, 1024);
                let src = input.add((t * tile_len) as usize) as *const u8;
                bulk_copy_global_to_shared(smem_addr + state.index() * 1024, src, tile_len, pipe.producer_barrier(&state));
                state.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(state);
        }

        if tid < 32 {
            let mut state = PipelineState::<2>::new();
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add((state.index() * tile_len) as usize);
                for j in 0..8 {
                    sum += *stage.add(tid as usize + 32 * j);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// No pipeline at all: every thread copies part of the tile into shared memory, then the first
/// warp adds up its column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_newcomer_shared_staging(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe {
        let tid = thread_idx_x() as usize;
        let tile = dynamic_shared_base::<f32>();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            // 64 threads, 256 floats: 4 each
            let src = input.add(t as usize * 256);
            let mut k = 0;
            while k < 4 {
                *tile.add(tid + 64 * k) = *src.add(tid + 64 * k);
                k += 1;
            }
            barrier();
            if tid < 32 {
                let mut j = 0;
                while j < 8 {
                    sum += *tile.add(tid + 32 * j);
                    j += 1;
                }
            }
            barrier();
            t += grid_dim_x();
        }
        if tid < 32 {
            *out.add(block_idx_x() as usize * 32 + tid) = sum;
        }
    }
}

/// The staging kernel with only one barrier per tile: the next tile's stores can land while
/// the first warp is still adding up the previous one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_newcomer_staging_no_second_sync(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe {
        let tid = thread_idx_x() as usize;
        let tile = dynamic_shared_base::<f32>();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let src = input.add(t as usize * 256);
            for k in 0..4 {
                *tile.add(tid + 64 * k) = *src.add(tid + 64 * k);
            }
            barrier();
            if tid < 32 {
                for j in 0..8 {
                    sum += *tile.add(tid + 32 * j);
                }
            }
            t += grid_dim_x();
        }
        if tid < 32 {
            *out.add(block_idx_x() as usize * 32 + tid) = sum;
        }
    }
}

/// The simplest thing that works: read global memory directly, no shared memory at all.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_newcomer_global_only(input: *const f32, tiles: u32, out: *mut f32) {
    unsafe {
        let tid = thread_idx_x();
        if tid < 32 {
            let mut sum = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                let base = input.add(t as usize * 256);
                for j in 0..8 {
                    sum += *base.add(tid as usize + 32 * j);
                }
                t += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}
