//! Module `blas`: BLAS/LAPACK-style routines. Every tile is an `m × n = 8 × 32` row-major panel
//! with a leading dimension; the column sums are `y := alpha · Aᵀ · x + beta · y` with `x` all
//! ones (`sgemv` with `trans = 'T'`, one column of `y` per thread), packing is `slacpy` into a
//! packed buffer with its own `ldb` (GotoBLAS's packed panels), and the pipelined kernels pack
//! with bulk copies into a ring of packed panels. Argument lists in the reference-BLAS order
//! (`m, n, alpha, a, lda, x, incx, beta, y`), explicit leading dimensions everywhere.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const NTHREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
/// Panel shape: `M_PANEL` rows of `N_PANEL` columns, row-major, `LDA = N_PANEL` in memory.
const M_PANEL: u32 = 8;
const N_PANEL: u32 = 32;
const LDA: u32 = N_PANEL;
const PANEL_ELEMS: u32 = M_PANEL * N_PANEL;
const PANEL_BYTES: u32 = PANEL_ELEMS * 4;
const PACKER: u32 = 0;
const FIRST_COLUMN_THREAD: u32 = 32;
const QUEUE_BARRIERS: u32 = 0;
const PACKED_RING: u32 = 1024;

/// `x` of the `sgemv`: all ones, stride 1 (each caller allocates its own, as a Fortran caller
/// would declare `REAL X(8)` and `DATA X /8*1.0/`).
type VectorX = [f32; M_PANEL as usize];

/// Column `j` of `y := alpha · Aᵀ · x + beta · y` for an `m`-row `a` with leading dimension `lda`:
/// `beta · y + alpha · Σ_{i<m} a[i·lda + j] · x[i·incx]`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn sgemv_t_col(m: u32, alpha: f32, a: *const f32, lda: u32, j: u32, x: *const f32, incx: u32, beta: f32, y: f32) -> f32 {
    let mut temp = 0.0f32;
    for i in 0..m {
        temp += *a.add((i * lda + j) as usize) * *x.add((i * incx) as usize);
    }
    beta * y + alpha * temp
}

/// `slacpy('A', m, n, a, lda, b, ldb)`, the elements shared out over `nthreads` threads: thread
/// `tid` copies elements `tid, tid + nthreads, …` of the row-major `m × n` matrix.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn slacpy_par(m: u32, n: u32, a: *const f32, lda: u32, b: *mut f32, ldb: u32, tid: u32, nthreads: u32) {
    let mut e = tid;
    while e < m * n {
        let i = e / n;
        let j = e % n;
        *b.add((i * ldb + j) as usize) = *a.add((i * lda + j) as usize);
        e += nthreads;
    }
}

/// The panel `p` of the input, `p · M_PANEL` rows down a matrix of leading dimension `LDA`.
#[inline(always)]
unsafe fn panel(a: *const f32, p: u32) -> *const f32 {
    a.add((p * M_PANEL * LDA) as usize)
}

/// The queue of packed panels: thread `PACKER` initialises its barriers, everyone attaches.
#[inline(always)]
fn panel_queue<const S: u32>(window: u32) -> Pipeline<S> {
    if thread_idx_x() == PACKER {
        Pipeline::<S>::init(window + QUEUE_BARRIERS, N_PANEL);
    }
    barrier();
    Pipeline::<S>::attach(window + QUEUE_BARRIERS)
}

/// The packer's loop: `copy` each of this block's panels into the ring slot of its state.
#[inline(always)]
unsafe fn pack_panels<const S: u32>(q: &Pipeline<S>, window: u32, a: *const f32, first: u32, step: u32, npanels: u32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut p = first;
    while p < npanels {
        q.producer_acquire(&st);
        q.producer_expect_tx(&st, PANEL_BYTES);
        let bp = window + PACKED_RING + st.index() * PANEL_BYTES;
        bulk_copy_global_to_shared(bp, panel(a, p) as *const u8, PANEL_BYTES, q.producer_barrier(&st));
        st.advance();
        p += step;
    }
    q.producer_tail(st);
}

/// Plain packing: all 64 threads `slacpy` the panel into the packed buffer (`ldb = 32`),
/// barrier, threads 0..31 run their column of `sgemv_t` on it with `beta = 1`, barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_blas_packed_gemv(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x();
    let bpack = dynamic_shared_base::<f32>();
    let ldb = N_PANEL;
    let x: VectorX = [1.0; M_PANEL as usize];
    let mut y = 0.0f32;
    let mut p = block_idx_x();
    while p < tiles {
        slacpy_par(M_PANEL, N_PANEL, panel(input, p), LDA, bpack, ldb, tid, NTHREADS);
        barrier();
        if tid < N_PANEL {
            y = sgemv_t_col(M_PANEL, 1.0, bpack, ldb, tid, x.as_ptr(), 1, 1.0, y);
        }
        barrier();
        p += grid_dim_x();
    }
    if tid < N_PANEL {
        *out.add((block_idx_x() * N_PANEL + tid) as usize) = y;
    }
}

/// The packed buffer padded to `ldb = 33` (one float per row against bank conflicts): packing
/// and the `sgemv_t` both use the padded leading dimension.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_blas_padded_ldb(input: *const f32, tiles: u32, out: *mut f32) {
    const LDB_PADDED: u32 = N_PANEL + 1;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x();
    let bpack = dynamic_shared_base::<f32>();
    let x: VectorX = [1.0; M_PANEL as usize];
    let mut y = 0.0f32;
    let mut p = block_idx_x();
    while p < tiles {
        slacpy_par(M_PANEL, N_PANEL, panel(input, p), LDA, bpack, LDB_PADDED, tid, NTHREADS);
        barrier();
        if tid < N_PANEL {
            y = sgemv_t_col(M_PANEL, 1.0, bpack, LDB_PADDED, tid, x.as_ptr(), 1, 1.0, y);
        }
        barrier();
        p += grid_dim_x();
    }
    if tid < N_PANEL {
        *out.add((block_idx_x() * N_PANEL + tid) as usize) = y;
    }
}

/// Pipelined: thread 0 packs panels into a four-slot ring by bulk copy, threads 32..63 each run
/// their column of `sgemv_t` on the slot they waited for.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_blas_pipelined_gemv(input: *const f32, tiles: u32, out: *mut f32) {
    const NSLOTS: u32 = 4;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let window = dynamic_shared_window_address();
    let q = panel_queue::<NSLOTS>(window);
    let tid = thread_idx_x();
    if tid == PACKER {
        pack_panels(&q, window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if tid >= FIRST_COLUMN_THREAD {
        let j = tid - FIRST_COLUMN_THREAD;
        let ring = dynamic_shared_base::<f32>().add((PACKED_RING / 4) as usize);
        let mut st = PipelineState::<NSLOTS>::new();
        let x: VectorX = [1.0; M_PANEL as usize];
        let mut y = 0.0f32;
        let mut p = block_idx_x();
        while p < tiles {
            q.consumer_wait(&st);
            let bp = ring.add((st.index() * PANEL_ELEMS) as usize);
            y = sgemv_t_col(M_PANEL, 1.0, bp, LDA, j, x.as_ptr(), 1, 1.0, y);
            q.consumer_release(&st);
            st.advance();
            p += grid_dim_x();
        }
        *out.add((block_idx_x() * N_PANEL + j) as usize) = y;
    }
}

/// The panel split into its upper and lower `4 × 32` halves, packed into two rings (upper
/// halves of all slots first, then the lower halves), two bulk copies per slot under one
/// `expect_tx`; each column is two `sgemv_t` calls of `m = 4`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_blas_split_panel_rings(input: *const f32, tiles: u32, out: *mut f32) {
    const NSLOTS: u32 = 3;
    const M_HALF: u32 = M_PANEL / 2;
    const HALF_BYTES: u32 = PANEL_BYTES / 2;
    const UPPER_RING: u32 = PACKED_RING;
    const LOWER_RING: u32 = UPPER_RING + NSLOTS * HALF_BYTES;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let window = dynamic_shared_window_address();
    let q = panel_queue::<NSLOTS>(window);
    let tid = thread_idx_x();
    if tid == PACKER {
        let mut st = PipelineState::<NSLOTS>::producer_start();
        let mut p = block_idx_x();
        while p < tiles {
            q.producer_acquire(&st);
            q.producer_expect_tx(&st, PANEL_BYTES);
            let a = panel(input, p);
            let upper = window + UPPER_RING + st.index() * HALF_BYTES;
            let lower = window + LOWER_RING + st.index() * HALF_BYTES;
            bulk_copy_global_to_shared(upper, a as *const u8, HALF_BYTES, q.producer_barrier(&st));
            bulk_copy_global_to_shared(lower, a.add((M_HALF * LDA) as usize) as *const u8, HALF_BYTES, q.producer_barrier(&st));
            st.advance();
            p += grid_dim_x();
        }
        q.producer_tail(st);
    } else if tid >= FIRST_COLUMN_THREAD {
        let j = tid - FIRST_COLUMN_THREAD;
        let base = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<NSLOTS>::new();
        let x: VectorX = [1.0; M_PANEL as usize];
        let mut y = 0.0f32;
        let mut p = block_idx_x();
        while p < tiles {
            q.consumer_wait(&st);
            let upper = base.add(((UPPER_RING + st.index() * HALF_BYTES) / 4) as usize);
            let lower = base.add(((LOWER_RING + st.index() * HALF_BYTES) / 4) as usize);
            y = sgemv_t_col(M_HALF, 1.0, upper, LDA, j, x.as_ptr(), 1, 1.0, y);
            y = sgemv_t_col(M_HALF, 1.0, lower, LDA, j, x.as_ptr(), 1, 1.0, y);
            q.consumer_release(&st);
            st.advance();
            p += grid_dim_x();
        }
        *out.add((block_idx_x() * N_PANEL + j) as usize) = y;
    }
}

/// BROKEN: the pipelined `sgemv_t` is called with the padded `ldb = 33` of the plain packing
/// routine, but the bulk copy packs the panel unpadded (`ldb = 32`): row `i` is read `i` floats
/// too far along, and rows 1..7 of the high columns run into the next slot of the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_blas_bad_padded_lda_on_tma_panel(input: *const f32, tiles: u32, out: *mut f32) {
    const NSLOTS: u32 = 4;
    const LDB_PADDED: u32 = N_PANEL + 1;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let window = dynamic_shared_window_address();
    let q = panel_queue::<NSLOTS>(window);
    let tid = thread_idx_x();
    if tid == PACKER {
        pack_panels(&q, window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if tid >= FIRST_COLUMN_THREAD {
        let j = tid - FIRST_COLUMN_THREAD;
        let ring = dynamic_shared_base::<f32>().add((PACKED_RING / 4) as usize);
        let mut st = PipelineState::<NSLOTS>::new();
        let x: VectorX = [1.0; M_PANEL as usize];
        let mut y = 0.0f32;
        let mut p = block_idx_x();
        while p < tiles {
            q.consumer_wait(&st);
            let bp = ring.add((st.index() * PANEL_ELEMS) as usize);
            y = sgemv_t_col(M_PANEL, 1.0, bp, LDB_PADDED, j, x.as_ptr(), 1, 1.0, y);
            q.consumer_release(&st);
            st.advance();
            p += grid_dim_x();
        }
        *out.add((block_idx_x() * N_PANEL + j) as usize) = y;
    }
}

/// BROKEN: the packed buffer is reused for the next panel without a barrier after the `sgemv_t`
/// ("each thread only packs, then computes"): threads 32..63 have nothing to compute and pack
/// the next panel over the buffer while threads 0..31 still read the current one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_blas_bad_repack_without_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x();
    let bpack = dynamic_shared_base::<f32>();
    let ldb = N_PANEL;
    let x: VectorX = [1.0; M_PANEL as usize];
    let mut y = 0.0f32;
    let mut p = block_idx_x();
    while p < tiles {
        slacpy_par(M_PANEL, N_PANEL, panel(input, p), LDA, bpack, ldb, tid, NTHREADS);
        barrier();
        if tid < N_PANEL {
            y = sgemv_t_col(M_PANEL, 1.0, bpack, ldb, tid, x.as_ptr(), 1, 1.0, y);
        }
        p += grid_dim_x();
    }
    if tid < N_PANEL {
        *out.add((block_idx_x() * N_PANEL + tid) as usize) = y;
    }
}

/// BROKEN: the lower-half ring is placed one half panel after the upper ring
/// (`UPPER_RING + HALF_BYTES`) instead of after all its slots: slot `s` of the lower halves is
/// slot `s + 1` of the upper halves, so the two copies of different slots overwrite each other.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_blas_bad_split_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    const NSLOTS: u32 = 3;
    const M_HALF: u32 = M_PANEL / 2;
    const HALF_BYTES: u32 = PANEL_BYTES / 2;
    const UPPER_RING: u32 = PACKED_RING;
    const LOWER_RING: u32 = UPPER_RING + HALF_BYTES;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let window = dynamic_shared_window_address();
    let q = panel_queue::<NSLOTS>(window);
    let tid = thread_idx_x();
    if tid == PACKER {
        let mut st = PipelineState::<NSLOTS>::producer_start();
        let mut p = block_idx_x();
        while p < tiles {
            q.producer_acquire(&st);
            q.producer_expect_tx(&st, PANEL_BYTES);
            let a = panel(input, p);
            let upper = window + UPPER_RING + st.index() * HALF_BYTES;
            let lower = window + LOWER_RING + st.index() * HALF_BYTES;
            bulk_copy_global_to_shared(upper, a as *const u8, HALF_BYTES, q.producer_barrier(&st));
            bulk_copy_global_to_shared(lower, a.add((M_HALF * LDA) as usize) as *const u8, HALF_BYTES, q.producer_barrier(&st));
            st.advance();
            p += grid_dim_x();
        }
        q.producer_tail(st);
    } else if tid >= FIRST_COLUMN_THREAD {
        let j = tid - FIRST_COLUMN_THREAD;
        let base = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<NSLOTS>::new();
        let x: VectorX = [1.0; M_PANEL as usize];
        let mut y = 0.0f32;
        let mut p = block_idx_x();
        while p < tiles {
            q.consumer_wait(&st);
            let upper = base.add(((UPPER_RING + st.index() * HALF_BYTES) / 4) as usize);
            let lower = base.add(((LOWER_RING + st.index() * HALF_BYTES) / 4) as usize);
            y = sgemv_t_col(M_HALF, 1.0, upper, LDA, j, x.as_ptr(), 1, 1.0, y);
            y = sgemv_t_col(M_HALF, 1.0, lower, LDA, j, x.as_ptr(), 1, 1.0, y);
            q.consumer_release(&st);
            st.advance();
            p += grid_dim_x();
        }
        *out.add((block_idx_x() * N_PANEL + j) as usize) = y;
    }
}

/// BROKEN: the column threads find their slot as `ring + slot · PANEL_BYTES` on an `f32`
/// pointer (the byte stride the packer uses for its window address): slot 1 is read 4 KiB
/// into the ring and slot 2 starts past the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_blas_bad_slot_stride_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    const NSLOTS: u32 = 4;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let window = dynamic_shared_window_address();
    let q = panel_queue::<NSLOTS>(window);
    let tid = thread_idx_x();
    if tid == PACKER {
        pack_panels(&q, window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if tid >= FIRST_COLUMN_THREAD {
        let j = tid - FIRST_COLUMN_THREAD;
        let ring = dynamic_shared_base::<f32>().add((PACKED_RING / 4) as usize);
        let mut st = PipelineState::<NSLOTS>::new();
        let x: VectorX = [1.0; M_PANEL as usize];
        let mut y = 0.0f32;
        let mut p = block_idx_x();
        while p < tiles {
            q.consumer_wait(&st);
            let bp = ring.add((st.index() * PANEL_BYTES) as usize);
            y = sgemv_t_col(M_PANEL, 1.0, bp, LDA, j, x.as_ptr(), 1, 1.0, y);
            q.consumer_release(&st);
            st.advance();
            p += grid_dim_x();
        }
        *out.add((block_idx_x() * N_PANEL + j) as usize) = y;
    }
}
