//! Ports of Triton kernels. The Triton source is kept as comments where it helps: `pid =
//! tl.program_id(0)`, `BLOCK_M`/`BLOCK_N` as `tl.constexpr`, `num_stages` and `num_warps` as the
//! launch's compile-time knobs, warp specialization as `async_task` ids (one producer task that
//! issues the TMA loads, one consumer task that reduces), `tl.sum(x, axis=0)` written as a
//! `map(..).sum()` over the rows, masked `tl.load(.., mask=.., other=0.0)` in the plain kernels.
//!
//! Shared memory as Triton's allocator would carve it: barriers first, the tile ring on a
//! 1 KiB boundary, the layout-conversion scratch last.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

// tl.constexpr
const BLOCK_M: usize = 8;
const BLOCK_N: usize = 32;
const TILE_ELEMS: usize = BLOCK_M * BLOCK_N;
const TILE_BYTES: u32 = (TILE_ELEMS * core::mem::size_of::<f32>()) as u32;
const NUM_STAGES: u32 = 4;
const NUM_WARPS: u32 = 2;
const THREADS: u32 = NUM_WARPS * 32;
const SMEM_BYTES: u32 = 8192;

// Triton's shared allocation: mbarriers at 0, the ring on a 1 KiB boundary, scratch after it.
const BAR_OFF: u32 = 0;
const RING_OFF: u32 = 1024;
const CVT_OFF: u32 = RING_OFF + NUM_STAGES * TILE_BYTES + 1024;

#[inline(always)]
fn program_id() -> u32 {
    block_idx_x()
}

#[inline(always)]
fn num_programs() -> u32 {
    grid_dim_x()
}

/// Warp specialization: task 0 is the load task, task 1 the compute task.
#[inline(always)]
fn async_task_id() -> u32 {
    thread_idx_x() / 32
}

/// Number of `pid`, `pid + nprog`, ... below `n`: `tl.cdiv(n - pid, nprog)`.
#[inline(always)]
fn cdiv_iters(n: u32, pid: u32, nprog: u32) -> u32 {
    if pid < n { (n - pid + nprog - 1) / nprog } else { 0 }
}

/// Warp-specialized column sum: task 0 (its lane 0) streams the program's tiles through a
/// four-stage TMA ring, task 1 reduces each tile along axis 0 with `tl.sum`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_triton_ws_colsum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<NUM_STAGES>::init(smem + BAR_OFF, 32);
    }
    barrier();
    let pipe = Pipeline::<NUM_STAGES>::attach(smem + BAR_OFF);
    let pid = program_id();
    let nprog = num_programs();

    if async_task_id() == 0 {
        if tid == 0 {
            let mut st = PipelineState::<NUM_STAGES>::producer_start();
            for t in (pid..tiles).step_by(nprog as usize) {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let a_ptr = input.add(t as usize * TILE_ELEMS) as *const u8;
                bulk_copy_global_to_shared(
                    smem + RING_OFF + st.index() * TILE_BYTES,
                    a_ptr,
                    TILE_BYTES,
                    pipe.producer_barrier(&st),
                );
                st.advance();
            }
            pipe.producer_tail(st);
        }
    } else {
        let offs_n = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING_OFF as usize / 4);
        let mut acc = 0.0f32;
        let mut st = PipelineState::<NUM_STAGES>::new();
        for _t in (pid..tiles).step_by(nprog as usize) {
            pipe.consumer_wait(&st);
            let a = ring.add(st.index() as usize * TILE_ELEMS);
            acc += (0..BLOCK_M).map(|m| *a.add(m * BLOCK_N + offs_n)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(pid as usize * BLOCK_N + offs_n) = acc;
    }
}

/// No TMA: the plain `tl.load` version. Every thread loads four elements of the tile with the
/// mask `offs < n_elements`, stores them into one shared buffer, and after a barrier the first
/// warp sums its column; a second barrier protects the buffer before the next tile's stores.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_triton_masked_plain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let pid = program_id();
    let nprog = num_programs();
    let n_elements = tiles as usize * TILE_ELEMS;
    let mut acc = 0.0f32;
    let mut t = pid;
    while t < tiles {
        let base = t as usize * TILE_ELEMS;
        for k in 0..TILE_ELEMS / THREADS as usize {
            let offs = tid + k * THREADS as usize;
            let x = if base + offs < n_elements { *input.add(base + offs) } else { 0.0 };
            *buf.add(offs) = x;
        }
        barrier();
        if tid < BLOCK_N {
            for m in 0..BLOCK_M {
                acc += *buf.add(m * BLOCK_N + tid);
            }
        }
        barrier();
        t += nprog;
    }
    if tid < BLOCK_N {
        *out.add(pid as usize * BLOCK_N + tid) = acc;
    }
}

/// The loop written the way Triton lowers `for it in range(num_iters)`: both tasks count
/// iterations (`tl.cdiv`) and compute the tile from `pid + it * nprog`. Three stages, the ring
/// at the start of shared memory and the barriers right after it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_triton_iter_count(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES3: u32 = 3;
    const RING3: u32 = 0;
    const BARS3: u32 = STAGES3 * TILE_BYTES;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES3>::init(smem + BARS3, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES3>::attach(smem + BARS3);
    let pid = program_id();
    let nprog = num_programs();
    let num_iters = cdiv_iters(tiles, pid, nprog);

    if tid == 0 {
        let mut st = PipelineState::<STAGES3>::producer_start();
        for it in 0..num_iters {
            let t = pid + it * nprog;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem + RING3 + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_ELEMS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let n = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut acc = 0.0f32;
        let mut st = PipelineState::<STAGES3>::new();
        for _it in 0..num_iters {
            pipe.consumer_wait(&st);
            let a = ring.add(RING3 as usize / 4 + st.index() as usize * TILE_ELEMS);
            for m in 0..BLOCK_M {
                acc += *a.add(m * BLOCK_N + n);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(pid as usize * BLOCK_N + n) = acc;
    }
}

/// The epilogue through shared memory (`convert_layout` to the store's blocked layout): the
/// compute task parks its accumulators in scratch past the ring, the whole block meets at a
/// barrier once both tasks are done, and warp 0 does the store.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_triton_epilogue_cvt(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<NUM_STAGES>::init(smem + BAR_OFF, 32);
    }
    barrier();
    let pipe = Pipeline::<NUM_STAGES>::attach(smem + BAR_OFF);
    let pid = program_id();
    let nprog = num_programs();
    let cvt = dynamic_shared_base::<f32>().add(CVT_OFF as usize / 4);

    if tid == 0 {
        let mut st = PipelineState::<NUM_STAGES>::producer_start();
        let mut t = pid;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem + RING_OFF + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_ELEMS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += nprog;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let n = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING_OFF as usize / 4);
        let mut acc = 0.0f32;
        let mut st = PipelineState::<NUM_STAGES>::new();
        let mut t = pid;
        while t < tiles {
            pipe.consumer_wait(&st);
            let a = ring.add(st.index() as usize * TILE_ELEMS);
            acc += (0..BLOCK_M).map(|m| *a.add(m * BLOCK_N + n)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += nprog;
        }
        *cvt.add(n) = acc;
    }
    barrier();
    if tid < 32 {
        *out.add(pid as usize * BLOCK_N + tid as usize) = *cvt.add(tid as usize);
    }
}

/// BROKEN: the compute task offsets its stage by `index * TILE_BYTES` on an `f32` pointer (the
/// byte stride where an element stride belongs): stage 1 is read 4 KiB past its place and
/// stage 2 lies past the 8 KiB of shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_triton_bad_stage_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<NUM_STAGES>::init(smem + BAR_OFF, 32);
    }
    barrier();
    let pipe = Pipeline::<NUM_STAGES>::attach(smem + BAR_OFF);
    let pid = program_id();
    let nprog = num_programs();

    if async_task_id() == 0 {
        if tid == 0 {
            let mut st = PipelineState::<NUM_STAGES>::producer_start();
            for t in (pid..tiles).step_by(nprog as usize) {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem + RING_OFF + st.index() * TILE_BYTES,
                    input.add(t as usize * TILE_ELEMS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&st),
                );
                st.advance();
            }
            pipe.producer_tail(st);
        }
    } else {
        let offs_n = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING_OFF as usize / 4);
        let mut acc = 0.0f32;
        let mut st = PipelineState::<NUM_STAGES>::new();
        for _t in (pid..tiles).step_by(nprog as usize) {
            pipe.consumer_wait(&st);
            let a = ring.add((st.index() * TILE_BYTES) as usize);
            acc += (0..BLOCK_M).map(|m| *a.add(m * BLOCK_N + offs_n)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(pid as usize * BLOCK_N + offs_n) = acc;
    }
}

/// BROKEN: the load task copies `BLOCK_M * BLOCK_N` bytes (the element count, not the bytes)
/// while announcing the tile's 1024: the full barrier waits for 768 bytes that never come.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_triton_bad_elems_as_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<NUM_STAGES>::init(smem + BAR_OFF, 32);
    }
    barrier();
    let pipe = Pipeline::<NUM_STAGES>::attach(smem + BAR_OFF);
    let pid = program_id();
    let nprog = num_programs();
    let nbytes = (BLOCK_M * BLOCK_N) as u32;

    if tid == 0 {
        let mut st = PipelineState::<NUM_STAGES>::producer_start();
        let mut t = pid;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem + RING_OFF + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_ELEMS) as *const u8,
                nbytes,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += nprog;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let n = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING_OFF as usize / 4);
        let mut acc = 0.0f32;
        let mut st = PipelineState::<NUM_STAGES>::new();
        let mut t = pid;
        while t < tiles {
            pipe.consumer_wait(&st);
            let a = ring.add(st.index() as usize * TILE_ELEMS);
            acc += (0..BLOCK_M).map(|m| *a.add(m * BLOCK_N + n)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += nprog;
        }
        *out.add(pid as usize * BLOCK_N + n) = acc;
    }
}

/// BROKEN: the compute task counts `tiles / nprog + 1` iterations (a ceiling written as "one
/// more"), the load task `tl.cdiv`: with 64 tiles over 8 programs the consumers wait for a
/// ninth tile nobody loads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_triton_bad_iters_plus_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<NUM_STAGES>::init(smem + BAR_OFF, 32);
    }
    barrier();
    let pipe = Pipeline::<NUM_STAGES>::attach(smem + BAR_OFF);
    let pid = program_id();
    let nprog = num_programs();

    if tid == 0 {
        let num_iters = cdiv_iters(tiles, pid, nprog);
        let mut st = PipelineState::<NUM_STAGES>::producer_start();
        for it in 0..num_iters {
            let t = pid + it * nprog;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem + RING_OFF + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_ELEMS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let num_iters = tiles / nprog + 1;
        let n = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING_OFF as usize / 4);
        let mut acc = 0.0f32;
        let mut st = PipelineState::<NUM_STAGES>::new();
        for _it in 0..num_iters {
            pipe.consumer_wait(&st);
            let a = ring.add(st.index() as usize * TILE_ELEMS);
            for m in 0..BLOCK_M {
                acc += *a.add(m * BLOCK_N + n);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(pid as usize * BLOCK_N + n) = acc;
    }
}

/// BROKEN: the plain version with the second barrier dropped ("the loads are independent"):
/// warp 1 has nothing to reduce and stores the next tile into the buffer while warp 0 is still
/// summing the current one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_triton_bad_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x() as usize;
    let buf = dynamic_shared_base::<f32>();
    let pid = program_id();
    let nprog = num_programs();
    let n_elements = tiles as usize * TILE_ELEMS;
    let mut acc = 0.0f32;
    let mut t = pid;
    while t < tiles {
        let base = t as usize * TILE_ELEMS;
        for k in 0..TILE_ELEMS / THREADS as usize {
            let offs = tid + k * THREADS as usize;
            let x = if base + offs < n_elements { *input.add(base + offs) } else { 0.0 };
            *buf.add(offs) = x;
        }
        barrier();
        if tid < BLOCK_N {
            for m in 0..BLOCK_M {
                acc += *buf.add(m * BLOCK_N + tid);
            }
        }
        t += nprog;
    }
    if tid < BLOCK_N {
        *out.add(pid as usize * BLOCK_N + tid) = acc;
    }
}
