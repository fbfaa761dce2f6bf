//! Ports of CUDA C++ kernels: `threadIdx_x`-style names, `__syncthreads()`, byte arithmetic on
//! `extern __shared__` memory, `#define`-like constants, warp/lane arithmetic.
#![allow(non_snake_case, non_upper_case_globals)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: u32 = 256;
const TILE_BYTES: u32 = 1024;
const kStages: u32 = 3;
const kBarBytes: u32 = 16 * kStages;
/// `extern __shared__` layout: [ full/empty barriers | pad to 64 | ring ]
const kRingOffset: u32 = 64;
const _: () = assert!(kBarBytes <= kRingOffset);

#[inline(always)]
fn __syncthreads() {
    barrier();
}

/// `__shared__ uint64_t bars[2*kStages]` at the front, ring behind it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_tma_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let threadIdx_x = thread_idx_x();
    let blockIdx_x = block_idx_x();
    let gridDim_x = grid_dim_x();
    let smem_u32 = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();

    let pipe = if threadIdx_x == 0 {
        Pipeline::<kStages>::init(smem_u32, 32)
    } else {
        Pipeline::<kStages>::attach(smem_u32)
    };
    __syncthreads();

    if threadIdx_x == 32 {
        let mut st = PipelineState::<kStages>::producer_start();
        let mut t = blockIdx_x;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem_u32 + kRingOffset + st.index() * TILE_BYTES,
                unsafe { input.add((t * TILE) as usize) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += gridDim_x;
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<kStages>::new();
        let mut acc = 0.0f32;
        let mut t = blockIdx_x;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = unsafe { smem.add((kRingOffset + st.index() * TILE_BYTES) as usize) } as *const f32;
            #[allow(clippy::needless_range_loop)]
            for i in 0..8u32 {
                acc += unsafe { *s.add((threadIdx_x + 32 * i) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += gridDim_x;
        }
        unsafe { *out.add((blockIdx_x * 32 + threadIdx_x) as usize) = acc };
    }
}

/// Warp-specialised: warp 1 is the producer warp, and only its elected lane 0 issues.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_warp_specialized(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let warp = thread_idx_x() / 32;
    let lane = thread_idx_x() % 32;
    let smem_u32 = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();

    let pipe = if thread_idx_x() == 0 {
        Pipeline::<kStages>::init(smem_u32, 32)
    } else {
        Pipeline::<kStages>::attach(smem_u32)
    };
    __syncthreads();

    if warp == 1 {
        if lane == 0 {
            let mut st = PipelineState::<kStages>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let src = unsafe { input.add((t * TILE) as usize) } as *const u8;
                bulk_copy_global_to_shared(smem_u32 + kRingOffset + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(st);
        }
    } else {
        let mut st = PipelineState::<kStages>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = unsafe { smem.add((kRingOffset + st.index() * TILE_BYTES) as usize) } as *const f32;
            for i in 0..8u32 {
                acc += unsafe { *s.add((lane + 32 * i) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + lane) as usize) = acc };
    }
}

/// The `if (lane == 0)` got lost in the port: the whole producer warp issues every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_all_lanes_produce(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let warp = thread_idx_x() / 32;
    let lane = thread_idx_x() % 32;
    let smem_u32 = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();

    let pipe = if thread_idx_x() == 0 {
        Pipeline::<kStages>::init(smem_u32, 32)
    } else {
        Pipeline::<kStages>::attach(smem_u32)
    };
    __syncthreads();

    if warp == 1 {
        let mut st = PipelineState::<kStages>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = unsafe { input.add((t * TILE) as usize) } as *const u8;
            bulk_copy_global_to_shared(smem_u32 + kRingOffset + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else {
        let mut st = PipelineState::<kStages>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = unsafe { smem.add((kRingOffset + st.index() * TILE_BYTES) as usize) } as *const f32;
            for i in 0..8u32 {
                acc += unsafe { *s.add((lane + 32 * i) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + lane) as usize) = acc };
    }
}

/// The CUDA original prefetched "the next stage"; the port kept `(stage + 1) % kStages` for the
/// destination while the barrier is the current stage's.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_wrong_stage_copy(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let threadIdx_x = thread_idx_x();
    let smem_u32 = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();

    let pipe = if threadIdx_x == 0 {
        Pipeline::<kStages>::init(smem_u32, 32)
    } else {
        Pipeline::<kStages>::attach(smem_u32)
    };
    __syncthreads();

    if threadIdx_x == 32 {
        let mut st = PipelineState::<kStages>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let next_stage = (st.index() + 1) % kStages;
            let src = unsafe { input.add((t * TILE) as usize) } as *const u8;
            bulk_copy_global_to_shared(smem_u32 + kRingOffset + next_stage * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<kStages>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = unsafe { smem.add((kRingOffset + st.index() * TILE_BYTES) as usize) } as *const f32;
            for i in 0..8u32 {
                acc += unsafe { *s.add((threadIdx_x + 32 * i) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + threadIdx_x) as usize) = acc };
    }
}

/// The porter thought both sides start at phase 1 (as CUTLASS's producer does) and gave the
/// consumer `producer_start()` too: its first waits return at once on an empty stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_parity_from_start(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let threadIdx_x = thread_idx_x();
    let smem_u32 = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();

    let pipe = if threadIdx_x == 0 {
        Pipeline::<kStages>::init(smem_u32, 32)
    } else {
        Pipeline::<kStages>::attach(smem_u32)
    };
    __syncthreads();

    if threadIdx_x == 32 {
        let mut st = PipelineState::<kStages>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = unsafe { input.add((t * TILE) as usize) } as *const u8;
            bulk_copy_global_to_shared(smem_u32 + kRingOffset + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<kStages>::producer_start();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = unsafe { smem.add((kRingOffset + st.index() * TILE_BYTES) as usize) } as *const f32;
            for i in 0..8u32 {
                acc += unsafe { *s.add((threadIdx_x + 32 * i) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + threadIdx_x) as usize) = acc };
    }
}

/// Ported from a kernel where one thread both issued and consumed: thread 0 runs the whole
/// producer loop first, then consumes with everyone else. With more tiles than stages it waits
/// for a release that only it could give.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_producer_also_consumes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let threadIdx_x = thread_idx_x();
    let smem_u32 = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();

    let pipe = if threadIdx_x == 0 {
        Pipeline::<kStages>::init(smem_u32, 32)
    } else {
        Pipeline::<kStages>::attach(smem_u32)
    };
    __syncthreads();

    if threadIdx_x == 0 {
        let mut st = PipelineState::<kStages>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = unsafe { input.add((t * TILE) as usize) } as *const u8;
            bulk_copy_global_to_shared(smem_u32 + kRingOffset + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    }
    if threadIdx_x < 32 {
        let mut st = PipelineState::<kStages>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = unsafe { smem.add((kRingOffset + st.index() * TILE_BYTES) as usize) } as *const f32;
            for i in 0..8u32 {
                acc += unsafe { *s.add((threadIdx_x + 32 * i) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + threadIdx_x) as usize) = acc };
    }
}

/// `expect_tx` was taken for "wait until the slot is free": the producer never acquires, so it
/// refills stages the consumers are still reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_no_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let threadIdx_x = thread_idx_x();
    let smem_u32 = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();

    let pipe = if threadIdx_x == 0 {
        Pipeline::<kStages>::init(smem_u32, 32)
    } else {
        Pipeline::<kStages>::attach(smem_u32)
    };
    __syncthreads();

    if threadIdx_x == 32 {
        let mut st = PipelineState::<kStages>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = unsafe { input.add((t * TILE) as usize) } as *const u8;
            bulk_copy_global_to_shared(smem_u32 + kRingOffset + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<kStages>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = unsafe { smem.add((kRingOffset + st.index() * TILE_BYTES) as usize) } as *const f32;
            for i in 0..8u32 {
                acc += unsafe { *s.add((threadIdx_x + 32 * i) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + threadIdx_x) as usize) = acc };
    }
}

/// Byte-pointer arithmetic throughout, the stage address built once as `char*` then cast.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_byte_pointer_math(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    const kS: u32 = 2;
    let threadIdx_x = thread_idx_x();
    let smem_u32 = dynamic_shared_window_address();
    let smem_bytes = dynamic_shared_base::<u8>();
    // barriers at the very end of the 8 KiB window: 8192 - 32
    let bar_u32 = smem_u32 + 8192 - 16 * kS;

    let pipe = if threadIdx_x == 0 { Pipeline::<kS>::init(bar_u32, 32) } else { Pipeline::<kS>::attach(bar_u32) };
    __syncthreads();

    if threadIdx_x == 32 {
        let mut st = PipelineState::<kS>::producer_start();
        let mut t = block_idx_x();
        let in_bytes = input as *const u8;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = unsafe { in_bytes.add((t * TILE_BYTES) as usize) };
            bulk_copy_global_to_shared(smem_u32 + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<kS>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage_bytes = unsafe { smem_bytes.add((st.index() * TILE_BYTES) as usize) };
            let mut off = threadIdx_x * 4;
            while off < TILE_BYTES {
                acc += unsafe { *(stage_bytes.add(off as usize) as *const f32) };
                off += 128;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * 32 + threadIdx_x) as usize) = acc };
    }
}

/// Classic `__shared__ float sdata[64]` column reduction: each thread sums its half of the rows
/// of its column from global memory, then the halves meet in shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_smem_tree_reduce(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let sdata = dynamic_shared_base::<f32>();
    let col = tid % 32;
    let half = tid / 32; // rows 0..4 or 4..8
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let tile = unsafe { input.add((t * TILE) as usize) };
        for r in 0..4u32 {
            acc += unsafe { *tile.add((col + 32 * (half * 4 + r)) as usize) };
        }
        t += grid_dim_x();
    }
    unsafe { *sdata.add(tid as usize) = acc };
    __syncthreads();
    // for (s = blockDim.x / 2; s >= 32; s >>= 1): only the two warps' halves meet
    let mut s = 32u32;
    while s >= 32 {
        if tid < s {
            unsafe { *sdata.add(tid as usize) += *sdata.add((tid + s) as usize) };
        }
        __syncthreads();
        s >>= 1;
    }
    if tid < 32 {
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = *sdata.add(tid as usize) };
    }
}

/// Rows tree-reduced in shared memory per tile (8 rows → 4 → 2 → 1), the `__syncthreads()`
/// between levels dropped ("a warp is in lock step anyway"), but the levels span both warps.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_cuda_smem_tree_missing_sync(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let sdata = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let tile = unsafe { input.add((t * TILE) as usize) };
        // 64 threads stage the 256 floats
        for k in 0..4u32 {
            unsafe { *sdata.add((tid + 64 * k) as usize) = *tile.add((tid + 64 * k) as usize) };
        }
        __syncthreads();
        // 8 rows of 32: halve the rows each level; level 1 has 128 sums, two per thread
        let mut rows = 4u32;
        while rows >= 1 {
            let mut i = tid;
            while i < rows * 32 {
                unsafe { *sdata.add(i as usize) += *sdata.add((i + rows * 32) as usize) };
                i += 64;
            }
            rows /= 2;
        }
        if tid < 32 {
            acc += unsafe { *sdata.add(tid as usize) };
        }
        __syncthreads();
        t += grid_dim_x();
    }
    if tid < 32 {
        unsafe { *out.add((block_idx_x() * 32 + tid) as usize) = acc };
    }
}
