//! PyTorch ATen / c10 CUDA conventions: a templated `*_kernel_impl` instantiated per
//! configuration by thin entry points, `scalar_t` / `opmath_t` aliases, `C10_WARP_SIZE`,
//! `kNumThreads`-style `k`-prefixed constants, `aligned_vector` loads of four elements, and
//! `TORCH_INTERNAL_ASSERT`-style debug checks that compile away.
#![allow(non_camel_case_types, non_upper_case_globals)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

type scalar_t = f32;
type opmath_t = f32;

const C10_WARP_SIZE: u32 = 32;
const kNumThreads: u32 = 64;
const kSmemBytes: u32 = 8192;
const kTileNumel: usize = 256;
const kTileBytes: u32 = (kTileNumel * core::mem::size_of::<scalar_t>()) as u32;
const kNumCols: usize = 32;
const kNumRows: usize = 8;
const kRowBytes: u32 = (kNumCols * core::mem::size_of::<scalar_t>()) as u32;
const kVecSize: usize = 4;

/// `at::native::memory::aligned_vector<float, 4>`.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct aligned_vector {
    val: [scalar_t; kVecSize],
}

#[inline(always)]
unsafe fn tile_ptr(input: *const scalar_t, tile: u32) -> *const u8 {
    input.add(tile as usize * kTileNumel) as *const u8
}

#[inline(always)]
fn barriers_after_ring<const kStages: u32>() -> u32 {
    dynamic_shared_window_address() + kStages * kTileBytes
}

/// `colsum_kernel_impl<kStages, kProducer>`: warp 0 reduces, thread `kProducer` streams.
#[inline(always)]
unsafe fn colsum_kernel_impl<const kStages: u32, const kProducer: u32>(input: *const scalar_t, tiles: u32, out: *mut scalar_t) {
    block_threads(kNumThreads);
    dynamic_shared_bytes(kSmemBytes);
    let tid = thread_idx_x();
    let bars = barriers_after_ring::<kStages>();
    let pipe = if tid == 0 { Pipeline::<kStages>::init(bars, C10_WARP_SIZE) } else { Pipeline::<kStages>::attach(bars) };
    barrier();
    let smem_window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<scalar_t>();

    if tid == kProducer {
        let mut state = PipelineState::<kStages>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, kTileBytes);
            bulk_copy_global_to_shared(smem_window + state.index() * kTileBytes, tile_ptr(input, tile), kTileBytes, pipe.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < C10_WARP_SIZE {
        let col = tid as usize;
        let mut state = PipelineState::<kStages>::new();
        let mut acc: opmath_t = 0.0;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * kTileNumel);
            #[allow(clippy::needless_range_loop)]
            for row in 0..kNumRows {
                acc += *stage.add(row * kNumCols + col) as opmath_t;
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * kNumCols + col) = acc as scalar_t;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_aten_colsum_s4(input: *const f32, tiles: u32, out: *mut f32) {
    colsum_kernel_impl::<4, 32>(input, tiles, out);
}

/// The two-stage instantiation, streaming from the block's last thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_aten_colsum_s2_tail_thread(input: *const f32, tiles: u32, out: *mut f32) {
    colsum_kernel_impl::<2, 63>(input, tiles, out);
}

/// Vectorised consumers: eight threads, each reducing four adjacent columns with one
/// `aligned_vector` load per row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_aten_colsum_vec4(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(kNumThreads);
    dynamic_shared_bytes(kSmemBytes);
    const kVecThreads: u32 = (kNumCols / kVecSize) as u32;
    let tid = thread_idx_x();
    let bars = barriers_after_ring::<4>();
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, kVecThreads) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let smem_window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<scalar_t>();

    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, kTileBytes);
            bulk_copy_global_to_shared(smem_window + state.index() * kTileBytes, tile_ptr(input, tile), kTileBytes, pipe.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < kVecThreads {
        let col0 = tid as usize * kVecSize;
        let mut state = PipelineState::<4>::new();
        let mut acc = [0.0 as opmath_t; kVecSize];
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * kTileNumel);
            for row in 0..kNumRows {
                let v = *(stage.add(row * kNumCols + col0) as *const aligned_vector);
                for k in 0..kVecSize {
                    acc[k] += v.val[k];
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        let dst = out.add(block_idx_x() as usize * kNumCols + col0);
        for k in 0..kVecSize {
            *dst.add(k) = acc[k];
        }
    }
}

/// Row-wise bulk copies: one 128-byte copy per tile row under the tile's `expect_tx`, the way
/// a TMA load of a 2-D box is lowered without a tensor map.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_aten_colsum_row_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(kNumThreads);
    dynamic_shared_bytes(kSmemBytes);
    let tid = thread_idx_x();
    let bars = barriers_after_ring::<4>();
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, C10_WARP_SIZE) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let smem_window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<scalar_t>();

    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, kTileBytes);
            let src = input.add(tile as usize * kTileNumel);
            for row in 0..kNumRows as u32 {
                bulk_copy_global_to_shared(
                    smem_window + state.index() * kTileBytes + row * kRowBytes,
                    src.add(row as usize * kNumCols) as *const u8,
                    kRowBytes,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < C10_WARP_SIZE {
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc: opmath_t = 0.0;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * kTileNumel);
            for row in 0..kNumRows {
                acc += *stage.add(row * kNumCols + col);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * kNumCols + col) = acc;
    }
}

/// The vectorised reduction, its pipeline sized by the warp as the scalar kernel's is.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_aten_colsum_vec4_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(kNumThreads);
    dynamic_shared_bytes(kSmemBytes);
    const kVecThreads: u32 = (kNumCols / kVecSize) as u32;
    let tid = thread_idx_x();
    let bars = barriers_after_ring::<4>();
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, C10_WARP_SIZE) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let smem_window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<scalar_t>();

    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, kTileBytes);
            bulk_copy_global_to_shared(smem_window + state.index() * kTileBytes, tile_ptr(input, tile), kTileBytes, pipe.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < kVecThreads {
        let col0 = tid as usize * kVecSize;
        let mut state = PipelineState::<4>::new();
        let mut acc = [0.0 as opmath_t; kVecSize];
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * kTileNumel);
            for row in 0..kNumRows {
                let v = *(stage.add(row * kNumCols + col0) as *const aligned_vector);
                for k in 0..kVecSize {
                    acc[k] += v.val[k];
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        let dst = out.add(block_idx_x() as usize * kNumCols + col0);
        for k in 0..kVecSize {
            *dst.add(k) = acc[k];
        }
    }
}

/// `if (threadIdx.x == 0)` streams the tiles; the warp it belongs to reduces them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_aten_colsum_thread0(input: *const f32, tiles: u32, out: *mut f32) {
    colsum_kernel_impl::<4, 0>(input, tiles, out);
}

/// The scalar reduction with the stage offset taken from the byte layout of the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_aten_colsum_byte_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(kNumThreads);
    dynamic_shared_bytes(kSmemBytes);
    let tid = thread_idx_x();
    let bars = barriers_after_ring::<4>();
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, C10_WARP_SIZE) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let smem_window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<scalar_t>();

    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            let offset = state.index() * kTileBytes;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, kTileBytes);
            bulk_copy_global_to_shared(smem_window + offset, tile_ptr(input, tile), kTileBytes, pipe.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < C10_WARP_SIZE {
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc: opmath_t = 0.0;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.consumer_wait(&state);
            let offset = state.index() * kTileBytes;
            let stage = smem.add(offset as usize);
            for row in 0..kNumRows {
                acc += *stage.add(row * kNumCols + col);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * kNumCols + col) = acc;
    }
}

/// Row-wise bulk copies with the shared side addressed per stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_aten_colsum_row_copies_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(kNumThreads);
    dynamic_shared_bytes(kSmemBytes);
    let tid = thread_idx_x();
    let bars = barriers_after_ring::<4>();
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, C10_WARP_SIZE) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let smem_window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<scalar_t>();

    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, kTileBytes);
            let src = input.add(tile as usize * kTileNumel);
            let dst = smem_window + state.index() * kTileBytes;
            for row in 0..kNumRows as u32 {
                bulk_copy_global_to_shared(dst, src.add(row as usize * kNumCols) as *const u8, kRowBytes, pipe.producer_barrier(&state));
            }
            state.advance();
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < C10_WARP_SIZE {
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc: opmath_t = 0.0;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * kTileNumel);
            for row in 0..kNumRows {
                acc += *stage.add(row * kNumCols + col);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * kNumCols + col) = acc;
    }
}
