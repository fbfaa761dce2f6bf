//! Style 2 (`tvm`): the look of TVM/TIR-lowered CUDA.
//!
//! Every kernel starts with its `T.launch_thread` bindings held in named variables
//! (`blockIdx_x`, `threadIdx_x`), every buffer is a flat pointer plus index arithmetic
//! (`A`, `A_shared`, `T_sum`), and loops carry the names the schedule gave them: a fused
//! `ax0_ax1_fused` decomposed with `/` and `%`, `k_outer` over the tiles of the block, `k_inner`
//! over the rows of a tile.
#![allow(non_snake_case)]
#![allow(non_upper_case_globals)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

/// `T.launch_thread("threadIdx.x", 64)`.
const threadIdx_x_extent: u32 = 64;
/// `T.alloc_buffer(.., scope="shared.dyn")` of the launch.
const shared_dyn_bytes: u32 = 8192;
/// `A_shared` stage: `(8, 32)` float32.
const A_shared_stage_elems: u32 = 256;
const A_shared_stage_bytes: u32 = A_shared_stage_elems * 4;
/// Rows (`k_inner` extent) and columns (`ax1` extent) of a tile.
const k_inner_extent: u32 = 8;
const ax1_extent: u32 = 32;

#[inline(always)]
fn T_launch_thread_blockIdx_x() -> u32 {
    block_idx_x()
}

#[inline(always)]
fn T_launch_thread_threadIdx_x() -> u32 {
    thread_idx_x()
}

#[inline(always)]
fn T_env_gridDim_x() -> u32 {
    grid_dim_x()
}

/// `T.tvm_storage_sync("shared")`.
#[inline(always)]
fn T_tvm_storage_sync_shared() {
    barrier()
}

/// `T.ptx_cp_async_bulk(A_shared.data, dst_off, A.data, src_off, bytes, barrier)`.
#[inline(always)]
unsafe fn T_ptx_cp_async_bulk(A_shared_addr: u32, dst_off: u32, A: *const f32, src_off: u32, bytes: u32, bar: u32) {
    bulk_copy_global_to_shared(A_shared_addr + dst_off, A.add(src_off as usize) as *const u8, bytes, bar);
}

/// The `k_outer` extent of block `blockIdx_x`: `T.ceildiv(tiles - blockIdx_x, gridDim_x)`.
#[inline(always)]
fn T_k_outer_extent(tiles: u32, blockIdx_x: u32, gridDim_x: u32) -> u32 {
    if blockIdx_x < tiles { (tiles - blockIdx_x + gridDim_x - 1) / gridDim_x } else { 0 }
}

/// `T_sum_local[0] += A_shared[elem_offset + k_inner * 32 + ax1]` over `k_inner`, as a helper
/// the lowering outlined, over an `int32` view of the buffer.
#[inline(always)]
unsafe fn T_reduce_rows_int32(A_shared_i32: *const i32, elem_offset: u32, ax1: u32) -> f32 {
    let mut T_sum_local = 0.0f32;
    for k_inner in 0..k_inner_extent {
        T_sum_local += *A_shared_i32.add((elem_offset + k_inner * ax1_extent + ax1) as usize) as f32;
    }
    T_sum_local
}

// ================================================================ correct kernels

/// Correct. Plain shared memory, as TVM lowers a cache-read schedule: `ax0_ax1_fused_outer` stages
/// the tile with the 64 threads (`ax0 = fused / 32`, `ax1 = fused % 32`), a storage sync, threads
/// `< 32` reduce over `k_inner`, and a second sync before `k_outer` moves on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tvm_fused_colsum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(threadIdx_x_extent);
    dynamic_shared_bytes(shared_dyn_bytes);
    let blockIdx_x = T_launch_thread_blockIdx_x();
    let threadIdx_x = T_launch_thread_threadIdx_x();
    let gridDim_x = T_env_gridDim_x();
    let A = input;
    let T_sum = out;
    let A_shared = dynamic_shared_base::<f32>();
    let mut T_sum_local = 0.0f32;
    let mut k_outer = blockIdx_x;
    while k_outer < tiles {
        for ax0_ax1_fused_outer in 0..4u32 {
            let ax0_ax1_fused = ax0_ax1_fused_outer * threadIdx_x_extent + threadIdx_x;
            let ax0 = ax0_ax1_fused / ax1_extent;
            let ax1 = ax0_ax1_fused % ax1_extent;
            *A_shared.add((ax0 * ax1_extent + ax1) as usize) =
                *A.add((k_outer * A_shared_stage_elems + ax0 * ax1_extent + ax1) as usize);
        }
        T_tvm_storage_sync_shared();
        if threadIdx_x < ax1_extent {
            for k_inner in 0..k_inner_extent {
                T_sum_local += *A_shared.add((k_inner * ax1_extent + threadIdx_x) as usize);
            }
        }
        T_tvm_storage_sync_shared();
        k_outer += gridDim_x;
    }
    if threadIdx_x < ax1_extent {
        *T_sum.add((blockIdx_x * ax1_extent + threadIdx_x) as usize) = T_sum_local;
    }
}

/// Correct. Four-stage `T.Pipelined` lowering: `for k_outer in 0..k_outer_extent` in both roles,
/// `threadIdx_x == 32` issues `T.ptx_cp_async_bulk`, threads `< 32` decompose
/// `ax0_ax1_fused = k_inner * 32 + threadIdx_x` and reduce. Barriers after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tvm_pipeline_k_outer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(threadIdx_x_extent);
    dynamic_shared_bytes(shared_dyn_bytes);
    let blockIdx_x = T_launch_thread_blockIdx_x();
    let threadIdx_x = T_launch_thread_threadIdx_x();
    let gridDim_x = T_env_gridDim_x().max(1);
    let A = input;
    let T_sum = out;
    let A_shared_addr = dynamic_shared_window_address();
    let A_shared = dynamic_shared_base::<f32>();
    let mbarrier = A_shared_addr + 4 * A_shared_stage_bytes;
    if threadIdx_x == 0 {
        Pipeline::<4>::init(mbarrier, ax1_extent);
    }
    T_tvm_storage_sync_shared();
    let pipe = Pipeline::<4>::attach(mbarrier);
    let k_outer_extent = T_k_outer_extent(tiles, blockIdx_x, gridDim_x);

    if threadIdx_x == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k_outer in 0..k_outer_extent {
            let tile = blockIdx_x + k_outer * gridDim_x;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, A_shared_stage_bytes);
            T_ptx_cp_async_bulk(
                A_shared_addr,
                st.index() * A_shared_stage_bytes,
                A,
                tile * A_shared_stage_elems,
                A_shared_stage_bytes,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<4>::new();
        let mut T_sum_local = 0.0f32;
        for _k_outer in 0..k_outer_extent {
            pipe.consumer_wait(&st);
            for k_inner in 0..k_inner_extent {
                let ax0_ax1_fused = k_inner * ax1_extent + threadIdx_x;
                let ax0 = ax0_ax1_fused / ax1_extent;
                let ax1 = ax0_ax1_fused % ax1_extent;
                T_sum_local += *A_shared.add((st.index() * A_shared_stage_elems + ax0 * ax1_extent + ax1) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *T_sum.add((blockIdx_x * ax1_extent + threadIdx_x) as usize) = T_sum_local;
    }
}

/// Correct. Three stages; the producer is `threadIdx_x == 0` and the reduction is bound to the
/// second warp (`ax1 = threadIdx_x - 32`), each stage addressed through an explicit
/// `A_shared_elem_offset`. The tile loop is `while blockIdx_x + k_outer * gridDim_x < tiles` in
/// both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tvm_split_consumer_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(threadIdx_x_extent);
    dynamic_shared_bytes(shared_dyn_bytes);
    let blockIdx_x = T_launch_thread_blockIdx_x();
    let threadIdx_x = T_launch_thread_threadIdx_x();
    let gridDim_x = T_env_gridDim_x();
    let A = input;
    let T_sum = out;
    let A_shared_addr = dynamic_shared_window_address();
    let A_shared = dynamic_shared_base::<f32>();
    let mbarrier = A_shared_addr + 3 * A_shared_stage_bytes;
    if threadIdx_x == 0 {
        Pipeline::<3>::init(mbarrier, ax1_extent);
    }
    T_tvm_storage_sync_shared();
    let pipe = Pipeline::<3>::attach(mbarrier);

    if threadIdx_x == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut k_outer = 0u32;
        while blockIdx_x + k_outer * gridDim_x < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, A_shared_stage_bytes);
            T_ptx_cp_async_bulk(
                A_shared_addr,
                st.index() * A_shared_stage_bytes,
                A,
                (blockIdx_x + k_outer * gridDim_x) * A_shared_stage_elems,
                A_shared_stage_bytes,
                pipe.producer_barrier(&st),
            );
            st.advance();
            k_outer += 1;
        }
        pipe.producer_tail(st);
    } else if threadIdx_x >= 32 {
        let ax1 = threadIdx_x - 32;
        let mut st = PipelineState::<3>::new();
        let mut T_sum_local = 0.0f32;
        let mut k_outer = 0u32;
        while blockIdx_x + k_outer * gridDim_x < tiles {
            pipe.consumer_wait(&st);
            let A_shared_elem_offset = st.index() * A_shared_stage_elems;
            for k_inner in 0..k_inner_extent {
                T_sum_local += *A_shared.add((A_shared_elem_offset + k_inner * ax1_extent + ax1) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k_outer += 1;
        }
        *T_sum.add((blockIdx_x * ax1_extent + ax1) as usize) = T_sum_local;
    }
}

/// Correct. Two stages, each filled by eight bulk copies of one 128-byte row
/// (`for ax0 in 0..8`, as TVM lowers a `T.copy` row by row) under one `expect_tx` of the whole
/// 1024-byte tile; the consumers wait for the stage once.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tvm_row_copies(input: *const f32, tiles: u32, out: *mut f32) {
    const row_bytes: u32 = ax1_extent * 4;
    block_threads(threadIdx_x_extent);
    dynamic_shared_bytes(shared_dyn_bytes);
    let blockIdx_x = T_launch_thread_blockIdx_x();
    let threadIdx_x = T_launch_thread_threadIdx_x();
    let gridDim_x = T_env_gridDim_x();
    let A = input;
    let T_sum = out;
    let A_shared_addr = dynamic_shared_window_address();
    let A_shared = dynamic_shared_base::<f32>();
    let mbarrier = A_shared_addr + 2 * A_shared_stage_bytes;
    if threadIdx_x == 0 {
        Pipeline::<2>::init(mbarrier, ax1_extent);
    }
    T_tvm_storage_sync_shared();
    let pipe = Pipeline::<2>::attach(mbarrier);

    if threadIdx_x == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k_outer = blockIdx_x;
        while k_outer < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, A_shared_stage_bytes);
            for ax0 in 0..k_inner_extent {
                T_ptx_cp_async_bulk(
                    A_shared_addr,
                    st.index() * A_shared_stage_bytes + ax0 * row_bytes,
                    A,
                    k_outer * A_shared_stage_elems + ax0 * ax1_extent,
                    row_bytes,
                    pipe.producer_barrier(&st),
                );
            }
            st.advance();
            k_outer += gridDim_x;
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<2>::new();
        let mut T_sum_local = 0.0f32;
        let mut k_outer = blockIdx_x;
        while k_outer < tiles {
            pipe.consumer_wait(&st);
            for k_inner in 0..k_inner_extent {
                T_sum_local += *A_shared.add((st.index() * A_shared_stage_elems + k_inner * ax1_extent + threadIdx_x) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k_outer += gridDim_x;
        }
        *T_sum.add((blockIdx_x * ax1_extent + threadIdx_x) as usize) = T_sum_local;
    }
}

// ================================================================ broken kernels

/// BROKEN (expect-tx-bytes): the barrier's `expect_tx` was annotated with the stage's 1024 bytes,
/// but the copy's size was lowered from a buffer whose dtype the schedule had as `float16`
/// (`A_dtype_bytes = 2`): each copy delivers 512 bytes, the full barrier never reaches its
/// transaction count and the consumers wait forever (hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tvm_bad_dtype_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    const A_dtype_bytes: u32 = 2;
    block_threads(threadIdx_x_extent);
    dynamic_shared_bytes(shared_dyn_bytes);
    let blockIdx_x = T_launch_thread_blockIdx_x();
    let threadIdx_x = T_launch_thread_threadIdx_x();
    let gridDim_x = T_env_gridDim_x().max(1);
    let A = input;
    let T_sum = out;
    let A_shared_addr = dynamic_shared_window_address();
    let A_shared = dynamic_shared_base::<f32>();
    let mbarrier = A_shared_addr + 4 * A_shared_stage_bytes;
    if threadIdx_x == 0 {
        Pipeline::<4>::init(mbarrier, ax1_extent);
    }
    T_tvm_storage_sync_shared();
    let pipe = Pipeline::<4>::attach(mbarrier);
    let k_outer_extent = T_k_outer_extent(tiles, blockIdx_x, gridDim_x);

    if threadIdx_x == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k_outer in 0..k_outer_extent {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, A_shared_stage_bytes);
            T_ptx_cp_async_bulk(
                A_shared_addr,
                st.index() * A_shared_stage_bytes,
                A,
                (blockIdx_x + k_outer * gridDim_x) * A_shared_stage_elems,
                A_shared_stage_elems * A_dtype_bytes,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<4>::new();
        let mut T_sum_local = 0.0f32;
        for _k_outer in 0..k_outer_extent {
            pipe.consumer_wait(&st);
            for k_inner in 0..k_inner_extent {
                T_sum_local += *A_shared.add((st.index() * A_shared_stage_elems + k_inner * ax1_extent + threadIdx_x) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *T_sum.add((blockIdx_x * ax1_extent + threadIdx_x) as usize) = T_sum_local;
    }
}

/// BROKEN (shared-layout): the schedule was retuned to `num_stages = 8` without resizing the
/// dynamic allocation: eight 1 KiB stages fill the whole 8192-byte window and the mbarriers are
/// placed right after them, at byte 8192, past the end of the window. Their initialisation and
/// every wait touch shared memory the launch does not provide (fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tvm_bad_num_stages_8(input: *const f32, tiles: u32, out: *mut f32) {
    const num_stages: u32 = 8;
    block_threads(threadIdx_x_extent);
    dynamic_shared_bytes(shared_dyn_bytes);
    let blockIdx_x = T_launch_thread_blockIdx_x();
    let threadIdx_x = T_launch_thread_threadIdx_x();
    let gridDim_x = T_env_gridDim_x();
    let A = input;
    let T_sum = out;
    let A_shared_addr = dynamic_shared_window_address();
    let A_shared = dynamic_shared_base::<f32>();
    let mbarrier = A_shared_addr + num_stages * A_shared_stage_bytes;
    if threadIdx_x == 0 {
        Pipeline::<num_stages>::init(mbarrier, ax1_extent);
    }
    T_tvm_storage_sync_shared();
    let pipe = Pipeline::<num_stages>::attach(mbarrier);

    if threadIdx_x == 32 {
        let mut st = PipelineState::<num_stages>::producer_start();
        let mut k_outer = blockIdx_x;
        while k_outer < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, A_shared_stage_bytes);
            T_ptx_cp_async_bulk(
                A_shared_addr,
                st.index() * A_shared_stage_bytes,
                A,
                k_outer * A_shared_stage_elems,
                A_shared_stage_bytes,
                pipe.producer_barrier(&st),
            );
            st.advance();
            k_outer += gridDim_x;
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<num_stages>::new();
        let mut T_sum_local = 0.0f32;
        let mut k_outer = blockIdx_x;
        while k_outer < tiles {
            pipe.consumer_wait(&st);
            for k_inner in 0..k_inner_extent {
                T_sum_local += *A_shared.add((st.index() * A_shared_stage_elems + k_inner * ax1_extent + threadIdx_x) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k_outer += gridDim_x;
        }
        *T_sum.add((blockIdx_x * ax1_extent + threadIdx_x) as usize) = T_sum_local;
    }
}

/// BROKEN (consumer-order): loop-invariant code motion applied by hand: the stage's element
/// offset `A_shared_elem_offset = st.index() * 256` is hoisted above the `k_outer` loop, computed
/// from the fresh state. Every tile is then read from stage 0, whatever stage the consumer waited
/// for and releases: stale and racing reads, wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tvm_bad_hoisted_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(threadIdx_x_extent);
    dynamic_shared_bytes(shared_dyn_bytes);
    let blockIdx_x = T_launch_thread_blockIdx_x();
    let threadIdx_x = T_launch_thread_threadIdx_x();
    let gridDim_x = T_env_gridDim_x().max(1);
    let A = input;
    let T_sum = out;
    let A_shared_addr = dynamic_shared_window_address();
    let A_shared = dynamic_shared_base::<f32>();
    let mbarrier = A_shared_addr + 4 * A_shared_stage_bytes;
    if threadIdx_x == 0 {
        Pipeline::<4>::init(mbarrier, ax1_extent);
    }
    T_tvm_storage_sync_shared();
    let pipe = Pipeline::<4>::attach(mbarrier);
    let k_outer_extent = T_k_outer_extent(tiles, blockIdx_x, gridDim_x);

    if threadIdx_x == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k_outer in 0..k_outer_extent {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, A_shared_stage_bytes);
            T_ptx_cp_async_bulk(
                A_shared_addr,
                st.index() * A_shared_stage_bytes,
                A,
                (blockIdx_x + k_outer * gridDim_x) * A_shared_stage_elems,
                A_shared_stage_bytes,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<4>::new();
        let mut T_sum_local = 0.0f32;
        let A_shared_elem_offset = st.index() * A_shared_stage_elems;
        let A_shared_stage = A_shared.add(A_shared_elem_offset as usize);
        for _k_outer in 0..k_outer_extent {
            pipe.consumer_wait(&st);
            for k_inner in 0..k_inner_extent {
                T_sum_local += *A_shared_stage.add((k_inner * ax1_extent + threadIdx_x) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *T_sum.add((blockIdx_x * ax1_extent + threadIdx_x) as usize) = T_sum_local;
    }
}

/// BROKEN (pointer-adaptation): the outlined reduction `T_reduce_rows_int32` was generated for an
/// `int32` buffer and the float32 `A_shared` is handed to it as `*const i32`: every element is
/// read as an integer (its float's bits) and converted with `as f32`: wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tvm_bad_int32_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(threadIdx_x_extent);
    dynamic_shared_bytes(shared_dyn_bytes);
    let blockIdx_x = T_launch_thread_blockIdx_x();
    let threadIdx_x = T_launch_thread_threadIdx_x();
    let gridDim_x = T_env_gridDim_x().max(1);
    let A = input;
    let T_sum = out;
    let A_shared_addr = dynamic_shared_window_address();
    let A_shared = dynamic_shared_base::<f32>();
    let mbarrier = A_shared_addr + 4 * A_shared_stage_bytes;
    if threadIdx_x == 0 {
        Pipeline::<4>::init(mbarrier, ax1_extent);
    }
    T_tvm_storage_sync_shared();
    let pipe = Pipeline::<4>::attach(mbarrier);
    let k_outer_extent = T_k_outer_extent(tiles, blockIdx_x, gridDim_x);

    if threadIdx_x == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k_outer in 0..k_outer_extent {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, A_shared_stage_bytes);
            T_ptx_cp_async_bulk(
                A_shared_addr,
                st.index() * A_shared_stage_bytes,
                A,
                (blockIdx_x + k_outer * gridDim_x) * A_shared_stage_elems,
                A_shared_stage_bytes,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if threadIdx_x < 32 {
        let mut st = PipelineState::<4>::new();
        let mut T_sum_local = 0.0f32;
        for _k_outer in 0..k_outer_extent {
            pipe.consumer_wait(&st);
            T_sum_local += T_reduce_rows_int32(
                A_shared as *const i32,
                st.index() * A_shared_stage_elems,
                threadIdx_x,
            );
            pipe.consumer_release(&st);
            st.advance();
        }
        *T_sum.add((blockIdx_x * ax1_extent + threadIdx_x) as usize) = T_sum_local;
    }
}
