//! Module `csr`: sparse linear algebra conventions. A block's work is read as a sparse
//! matrix-vector product `y = A·x`: `x` is the tile (256 values), `y` the block's 32 outputs, and
//! `A` the 0/1 matrix with eight nonzeros per row, stored implicitly in CSR form (`row_ptr[i] =
//! 8·i`, `col_idx[p] = (p % 8)·32 + p / 8`) or ELLPACK form (`nnz_per_row = 8`, column of slot
//! `k` of row `i` is `k·32 + i`), or as COO triples. Kernels loop over nonzeros `p` in
//! `row_ptr[i]..row_ptr[i + 1]`, gather `x[col_idx[p]]`, and accumulate into `y[i]`.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
/// Rows of `A` (outputs per block) and nonzeros per row.
const N_ROWS: usize = 32;
const NNZ_PER_ROW: usize = 8;
/// Length of `x` (a tile) and its bytes.
const N_COLS: usize = 256;
const X_BYTES: u32 = 1024;
const BARRIERS: u32 = 0;
const RING: u32 = 1024;
const RING_FLOATS: usize = 256;
const CONSUMERS: u32 = 32;

/// Pipeline SpMV: consumer `i` walks its CSR row, `p` in `row_ptr[i]..row_ptr[i + 1]`, gathering
/// `x[col_idx[p]]` from the stage it holds.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_csr_spmv_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, X_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * X_BYTES,
                input.add(t as usize * N_COLS) as *const u8,
                X_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let i = (tid - 32) as usize;
        let row_begin = NNZ_PER_ROW * i;
        let row_end = NNZ_PER_ROW * (i + 1);
        let mut st = PipelineState::<STAGES>::new();
        let mut y_i = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let x = base.add(RING_FLOATS + st.index() as usize * N_COLS);
            for p in row_begin..row_end {
                let col = (p % NNZ_PER_ROW) * N_ROWS + p / NNZ_PER_ROW;
                y_i += *x.add(col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * N_ROWS + i) = y_i;
    }
}

/// Plain ELLPACK: `x` staged by all 64 threads, a block barrier, rows `i < 32` walk their eight
/// slots `k·32 + i`, and a second barrier before `x` is staged again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_csr_ell_plain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let x = dynamic_shared_base::<f32>();
    let mut y_i = 0.0f32;
    let mut t = b;
    while t < tiles {
        let x_global = input.add(t as usize * N_COLS);
        for j in 0..4 {
            *x.add(tid + 64 * j) = *x_global.add(tid + 64 * j);
        }
        barrier();
        if tid < N_ROWS {
            for k in 0..NNZ_PER_ROW {
                y_i += *x.add(k * N_ROWS + tid);
            }
        }
        barrier();
        t += g;
    }
    if tid < N_ROWS {
        *out.add(b as usize * N_ROWS + tid) = y_i;
    }
}

/// Pipeline with a cyclic row-block distribution written as in distributed SpMV: both roles
/// loop over every tile and skip those whose owner `t % g` is another block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_csr_residue_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for t in 0..tiles {
            if t % g != b {
                continue;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, X_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * X_BYTES,
                input.add(t as usize * N_COLS) as *const u8,
                X_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let i = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut y_i = 0.0f32;
        for t in 0..tiles {
            if t % g != b {
                continue;
            }
            pipe.consumer_wait(&st);
            let x = base.add(RING_FLOATS + st.index() as usize * N_COLS);
            for k in 0..NNZ_PER_ROW {
                y_i += *x.add(k * N_ROWS + i);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * N_ROWS + i) = y_i;
    }
}

/// Plain COO: nonzero `p` of a tile is the triple `(row p % 32, col p, 1)`; thread `tid` owns
/// nonzeros `tid + 64·j`, all in row `tid % 32`, reading `x` straight from global memory. The two
/// threads of a row meet in a shared `y` after a block barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_csr_coo_plain_scatter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let y_partial = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let x_global = input.add(t as usize * N_COLS);
        for j in 0..4 {
            let p = tid + 64 * j;
            acc += *x_global.add(p);
        }
        t += g;
    }
    *y_partial.add(tid) = acc;
    barrier();
    if tid < N_ROWS {
        let row = tid;
        *out.add(b as usize * N_ROWS + row) = *y_partial.add(row) + *y_partial.add(row + N_ROWS);
    }
}

/// BROKEN: ELLPACK with `x` staged for eight tiles at once (2048 floats, the whole 8 KiB) and the
/// shared `y` placed right after it: `y` starts at byte 8192, past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_csr_bad_y_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    const X_CAPACITY: usize = 8 * N_COLS;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let x = dynamic_shared_base::<f32>();
    let y = x.add(X_CAPACITY);
    if tid < N_ROWS {
        *y.add(tid) = 0.0;
    }
    let mut t = b;
    while t < tiles {
        let x_global = input.add(t as usize * N_COLS);
        for j in 0..4 {
            *x.add(tid + 64 * j) = *x_global.add(tid + 64 * j);
        }
        barrier();
        if tid < N_ROWS {
            let mut y_i = *y.add(tid);
            for k in 0..NNZ_PER_ROW {
                y_i += *x.add(k * N_ROWS + tid);
            }
            *y.add(tid) = y_i;
        }
        barrier();
        t += g;
    }
    if tid < N_ROWS {
        *out.add(b as usize * N_ROWS + tid) = *y.add(tid);
    }
}

/// BROKEN: the copy's source keeps the one-based index base of Fortran CSR (`x` starts at
/// element 1): every bulk copy's global address is 4 bytes off the 16-byte alignment it needs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_csr_bad_index_base_source(input: *const f32, tiles: u32, out: *mut f32) {
    const INDEX_BASE: usize = 1;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, X_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * X_BYTES,
                input.add(t as usize * N_COLS + INDEX_BASE) as *const u8,
                X_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let i = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut y_i = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let x = base.add(RING_FLOATS + st.index() as usize * N_COLS);
            for k in 0..NNZ_PER_ROW {
                y_i += *x.add(k * N_ROWS + i);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * N_ROWS + i) = y_i;
    }
}

/// BROKEN: the consumers build their pipeline state inside the tile loop ("a fresh cursor per
/// row block"): every tile waits on stage 0, phase 0, so stages 1..3 are never released and the
/// producer hangs at its sixth acquire.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_csr_bad_consumer_restart(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, X_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * X_BYTES,
                input.add(t as usize * N_COLS) as *const u8,
                X_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let i = (tid - 32) as usize;
        let row_begin = NNZ_PER_ROW * i;
        let row_end = NNZ_PER_ROW * (i + 1);
        let mut y_i = 0.0f32;
        let mut t = b;
        while t < tiles {
            let mut st = PipelineState::<STAGES>::new();
            pipe.consumer_wait(&st);
            let x = base.add(RING_FLOATS + st.index() as usize * N_COLS);
            for p in row_begin..row_end {
                let col = (p % NNZ_PER_ROW) * N_ROWS + p / NNZ_PER_ROW;
                y_i += *x.add(col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * N_ROWS + i) = y_i;
    }
}

/// BROKEN: COO without the barrier between the partial-`y` stores and the row combination: row
/// `i`'s owner reads `y_partial[i + 32]`, written by a thread of the other warp, unordered.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_csr_bad_coo_combine_race(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let y_partial = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let x_global = input.add(t as usize * N_COLS);
        for j in 0..4 {
            let p = tid + 64 * j;
            acc += *x_global.add(p);
        }
        t += g;
    }
    *y_partial.add(tid) = acc;
    if tid < N_ROWS {
        let row = tid;
        *out.add(b as usize * N_ROWS + row) = *y_partial.add(row) + *y_partial.add(row + N_ROWS);
    }
}
