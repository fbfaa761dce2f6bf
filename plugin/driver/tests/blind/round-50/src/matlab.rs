//! Style `matlab`: kernels ported by a team whose reference implementation is MATLAB. A tile is
//! the column-major matrix `A = reshape(tile, 32, 8)`, the block's result is `sum(A, 2)` summed
//! over its tiles, and the code keeps MATLAB's habits: 1-based subscripts converted with
//! `sub2ind`, the ring as a 3-D array `ring(:, :, p)` of pages, inclusive colon ranges
//! (`for k = 1:numTiles` as `1..=num_tiles`), `numel`/`size` constants, camel-cased names.
#![allow(non_snake_case)]

use crate::device::geometry::{block_idx_x, grid_dim_x, thread_idx_x};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

/// `size(A, 1)`, `size(A, 2)`, `numel(A)`.
const NROWS: usize = 32;
const NCOLS: usize = 8;
const NUMEL: usize = NROWS * NCOLS;
const BYTES_PER_ELEMENT: u32 = 4;
const NTHREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
/// Byte offset of `ring(:, :, 1)`; the barriers sit before it.
const RING_BYTES_OFFSET: u32 = 1024;

/// MATLAB's `sub2ind([NROWS NCOLS], i, j)` minus one: the 0-based offset of `A(i, j)`.
#[inline(always)]
fn sub2ind(i: usize, j: usize) -> usize {
    (i - 1) + NROWS * (j - 1)
}

/// `sub2ind([NROWS NCOLS NPAGES], i, j, p)` minus one: `ring(i, j, p)`.
#[inline(always)]
fn sub2ind3(i: usize, j: usize, p: usize) -> usize {
    (i - 1) + NROWS * (j - 1) + NUMEL * (p - 1)
}

/// `numTiles = numel(b:g:tiles-1)`: how many tiles block `b` owns (MATLAB `b+1:g:tiles`).
#[inline(always)]
fn numTilesOfBlock(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b < tiles { (tiles - b - 1) / g + 1 } else { 0 }
}

/// `tileIndex(k)`: the 0-based tile of the block's `k`-th (1-based) tile.
#[inline(always)]
fn tileIndex(k: u32) -> usize {
    (block_idx_x() + (k - 1) * grid_dim_x()) as usize
}

/// Four pages; `ring(:, :, p)` for `p = stage + 1`. Producer thread 32, threads 0..32 are the
/// rows `i = tid + 1` of `sum(A, 2)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_matlab_sum_dim2_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const NPAGES: u32 = 4;
    const PRODUCER: u32 = 32;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(RING_BYTES_OFFSET as usize / 4);
    if tid == PRODUCER {
        Pipeline::<NPAGES>::init(smem, NROWS as u32);
    }
    barrier();
    let pipe = Pipeline::<NPAGES>::attach(smem);
    let numTiles = numTilesOfBlock(tiles);
    let tileBytes = NUMEL as u32 * BYTES_PER_ELEMENT;

    if tid == PRODUCER {
        let mut page = PipelineState::<NPAGES>::producer_start();
        let mut k = 1;
        while k <= numTiles {
            pipe.producer_acquire(&page);
            pipe.producer_expect_tx(&page, tileBytes);
            bulk_copy_global_to_shared(
                smem + RING_BYTES_OFFSET + page.index() * tileBytes,
                input.add(tileIndex(k) * NUMEL) as *const u8,
                tileBytes,
                pipe.producer_barrier(&page),
            );
            page.advance();
            k += 1;
        }
        pipe.producer_tail(page);
    } else if tid < NROWS as u32 {
        let i = tid as usize + 1;
        let mut page = PipelineState::<NPAGES>::new();
        let mut s = 0.0f32;
        let mut k = 1;
        while k <= numTiles {
            pipe.consumer_wait(&page);
            let p = page.index() as usize + 1;
            for j in 1..=NCOLS {
                s += *ring.add(sub2ind3(i, j, p));
            }
            pipe.consumer_release(&page);
            page.advance();
            k += 1;
        }
        // out(i, b) = s, column b of a 32 × gridDim matrix
        *out.add(sub2ind(i, block_idx_x() as usize + 1)) = s;
    }
}

/// `C = cumsum(A, 2); out = C(:, end)`, accumulated over the tiles, with two pages and the
/// MATLAB loop `for k = 1:numTiles` in both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_matlab_cumsum_last(input: *const f32, tiles: u32, out: *mut f32) {
    const NPAGES: u32 = 2;
    const PRODUCER: u32 = 0;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(RING_BYTES_OFFSET as usize / 4);
    if tid == PRODUCER {
        Pipeline::<NPAGES>::init(smem, NROWS as u32);
    }
    barrier();
    let pipe = Pipeline::<NPAGES>::attach(smem);
    let numTiles = numTilesOfBlock(tiles);
    let tileBytes = NUMEL as u32 * BYTES_PER_ELEMENT;

    if tid == PRODUCER {
        let mut page = PipelineState::<NPAGES>::producer_start();
        for k in 1..=numTiles {
            pipe.producer_acquire(&page);
            pipe.producer_expect_tx(&page, tileBytes);
            bulk_copy_global_to_shared(
                smem + RING_BYTES_OFFSET + page.index() * tileBytes,
                input.add(tileIndex(k) * NUMEL) as *const u8,
                tileBytes,
                pipe.producer_barrier(&page),
            );
            page.advance();
        }
        pipe.producer_tail(page);
    } else if tid >= 32 {
        let i = (tid - 32) as usize + 1;
        let mut page = PipelineState::<NPAGES>::new();
        let mut C = 0.0f32; // running C(i, end) across tiles
        for _k in 1..=numTiles {
            pipe.consumer_wait(&page);
            let p = page.index() as usize + 1;
            let mut j = 1;
            while j <= NCOLS {
                C += *ring.add(sub2ind3(i, j, p));
                j += 1;
            }
            pipe.consumer_release(&page);
            page.advance();
        }
        *out.add(sub2ind(i, block_idx_x() as usize + 1)) = C;
    }
}

/// Plain shared memory: `A(:) = input(idx)` with `idx = tid+1 : nthreads : numel`, a barrier,
/// then rows `i = 1:32` (threads 0..32) each sum their row; a barrier before the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_matlab_colon_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);

    let tid = thread_idx_x() as usize;
    let A = dynamic_shared_base::<f32>();
    let numTiles = numTilesOfBlock(tiles);
    let i = tid + 1;
    let mut s = 0.0f32;

    for k in 1..=numTiles {
        let src = input.add(tileIndex(k) * NUMEL);
        let mut idx = tid + 1;
        while idx <= NUMEL {
            *A.add(idx - 1) = *src.add(idx - 1);
            idx += NTHREADS as usize;
        }
        barrier();
        if i <= NROWS {
            for j in 1..=NCOLS {
                s += *A.add(sub2ind(i, j));
            }
        }
        barrier();
    }
    if i <= NROWS {
        *out.add(sub2ind(i, block_idx_x() as usize + 1)) = s;
    }
}

/// Three pages addressed as a `[[[f32; 32]; 8]; 3]` array (`ring(i, j, p)` is
/// `ring[p-1][j-1][i-1]`); consumers are threads 32..64, producer thread 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_matlab_reshape_pages(input: *const f32, tiles: u32, out: *mut f32) {
    const NPAGES: u32 = 3;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<u8>().add(RING_BYTES_OFFSET as usize) as *const [[[f32; NROWS]; NCOLS]; NPAGES as usize];
    if tid == 0 {
        Pipeline::<NPAGES>::init(smem, NROWS as u32);
    }
    barrier();
    let pipe = Pipeline::<NPAGES>::attach(smem);
    let numTiles = numTilesOfBlock(tiles);
    let tileBytes = (NUMEL as u32) * BYTES_PER_ELEMENT;

    if tid == 0 {
        let mut page = PipelineState::<NPAGES>::producer_start();
        let mut k = 1;
        while k <= numTiles {
            pipe.producer_acquire(&page);
            pipe.producer_expect_tx(&page, tileBytes);
            bulk_copy_global_to_shared(
                smem + RING_BYTES_OFFSET + page.index() * tileBytes,
                input.add(tileIndex(k) * NUMEL) as *const u8,
                tileBytes,
                pipe.producer_barrier(&page),
            );
            page.advance();
            k += 1;
        }
        pipe.producer_tail(page);
    } else if tid >= 32 {
        let i = (tid - 31) as usize;
        let mut page = PipelineState::<NPAGES>::new();
        let mut s = 0.0f32;
        let mut k = 1;
        while k <= numTiles {
            pipe.consumer_wait(&page);
            let p = page.index() as usize + 1;
            for j in 1..=NCOLS {
                s += (*ring)[p - 1][j - 1][i - 1];
            }
            pipe.consumer_release(&page);
            page.advance();
            k += 1;
        }
        *out.add(sub2ind(i, block_idx_x() as usize + 1)) = s;
    }
}

/// BROKEN: the copy destination uses the 1-based page `p = stage + 1` without the `- 1`
/// (`RING + p * tileBytes`): each tile lands one page past the stage whose barrier it
/// completes, so consumers read the previous tile (or nothing) and the copy overwrites a page
/// other readers may still hold.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_matlab_bad_page_offset(input: *const f32, tiles: u32, out: *mut f32) {
    const NPAGES: u32 = 4;
    const PRODUCER: u32 = 32;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(RING_BYTES_OFFSET as usize / 4);
    if tid == PRODUCER {
        Pipeline::<NPAGES>::init(smem, NROWS as u32);
    }
    barrier();
    let pipe = Pipeline::<NPAGES>::attach(smem);
    let numTiles = numTilesOfBlock(tiles);
    let tileBytes = NUMEL as u32 * BYTES_PER_ELEMENT;

    if tid == PRODUCER {
        let mut page = PipelineState::<NPAGES>::producer_start();
        let mut k = 1;
        while k <= numTiles {
            let p = page.index() + 1;
            pipe.producer_acquire(&page);
            pipe.producer_expect_tx(&page, tileBytes);
            bulk_copy_global_to_shared(
                smem + RING_BYTES_OFFSET + p * tileBytes,
                input.add(tileIndex(k) * NUMEL) as *const u8,
                tileBytes,
                pipe.producer_barrier(&page),
            );
            page.advance();
            k += 1;
        }
        pipe.producer_tail(page);
    } else if tid < NROWS as u32 {
        let i = tid as usize + 1;
        let mut page = PipelineState::<NPAGES>::new();
        let mut s = 0.0f32;
        let mut k = 1;
        while k <= numTiles {
            pipe.consumer_wait(&page);
            let p = page.index() as usize + 1;
            for j in 1..=NCOLS {
                s += *ring.add(sub2ind3(i, j, p));
            }
            pipe.consumer_release(&page);
            page.advance();
            k += 1;
        }
        *out.add(sub2ind(i, block_idx_x() as usize + 1)) = s;
    }
}

/// BROKEN: the producer announces `numel(A)` (256, an element count) to the page's barrier but
/// the copy delivers `numel(A) * 4` bytes: the transaction count goes past zero, and the full
/// barriers stop completing (the consumers hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_matlab_bad_numel_tx(input: *const f32, tiles: u32, out: *mut f32) {
    const NPAGES: u32 = 4;
    const PRODUCER: u32 = 32;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(RING_BYTES_OFFSET as usize / 4);
    if tid == PRODUCER {
        Pipeline::<NPAGES>::init(smem, NROWS as u32);
    }
    barrier();
    let pipe = Pipeline::<NPAGES>::attach(smem);
    let numTiles = numTilesOfBlock(tiles);
    let tileBytes = NUMEL as u32 * BYTES_PER_ELEMENT;

    if tid == PRODUCER {
        let mut page = PipelineState::<NPAGES>::producer_start();
        let mut k = 1;
        while k <= numTiles {
            pipe.producer_acquire(&page);
            pipe.producer_expect_tx(&page, NUMEL as u32);
            bulk_copy_global_to_shared(
                smem + RING_BYTES_OFFSET + page.index() * tileBytes,
                input.add(tileIndex(k) * NUMEL) as *const u8,
                tileBytes,
                pipe.producer_barrier(&page),
            );
            page.advance();
            k += 1;
        }
        pipe.producer_tail(page);
    } else if tid < NROWS as u32 {
        let i = tid as usize + 1;
        let mut page = PipelineState::<NPAGES>::new();
        let mut s = 0.0f32;
        let mut k = 1;
        while k <= numTiles {
            pipe.consumer_wait(&page);
            let p = page.index() as usize + 1;
            for j in 1..=NCOLS {
                s += *ring.add(sub2ind3(i, j, p));
            }
            pipe.consumer_release(&page);
            page.advance();
            k += 1;
        }
        *out.add(sub2ind(i, block_idx_x() as usize + 1)) = s;
    }
}

/// BROKEN: all of the block's tiles are staged at once as the pages of `A = zeros(32, 8, 8)`
/// (8 KiB, the whole window), but the store writes page `p` at `NUMEL * p` instead of
/// `NUMEL * (p - 1)`: page 1's slot is never filled and page 8 lands past the window's end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_matlab_bad_page_past_end(input: *const f32, tiles: u32, out: *mut f32) {
    const NPAGES_MAX: u32 = 8;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);

    let tid = thread_idx_x() as usize;
    let A = dynamic_shared_base::<f32>();
    let numTiles = numTilesOfBlock(tiles);
    let i = tid + 1;
    let mut s = 0.0f32;

    let mut k0 = 1;
    while k0 <= numTiles {
        let npages = if numTiles - k0 + 1 < NPAGES_MAX { numTiles - k0 + 1 } else { NPAGES_MAX };
        for p in 1..=npages {
            let src = input.add(tileIndex(k0 + p - 1) * NUMEL);
            let mut idx = tid + 1;
            while idx <= NUMEL {
                *A.add(NUMEL * p as usize + idx - 1) = *src.add(idx - 1);
                idx += NTHREADS as usize;
            }
        }
        barrier();
        if i <= NROWS {
            for p in 1..=npages as usize {
                for j in 1..=NCOLS {
                    s += *A.add(sub2ind3(i, j, p));
                }
            }
        }
        barrier();
        k0 += NPAGES_MAX;
    }
    if i <= NROWS {
        *out.add(sub2ind(i, block_idx_x() as usize + 1)) = s;
    }
}

/// BROKEN: the consumers' `for k = 1:numTiles` became the exclusive Rust range `1..numTiles`
/// (the producer's loop kept `1..=numTiles`): the consumers stop one tile short, the last
/// page is never released and the producer's drain waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_matlab_bad_colon_exclusive(input: *const f32, tiles: u32, out: *mut f32) {
    const NPAGES: u32 = 2;
    const PRODUCER: u32 = 0;
    block_threads(NTHREADS);
    dynamic_shared_bytes(SMEM_BYTES);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(RING_BYTES_OFFSET as usize / 4);
    if tid == PRODUCER {
        Pipeline::<NPAGES>::init(smem, NROWS as u32);
    }
    barrier();
    let pipe = Pipeline::<NPAGES>::attach(smem);
    let numTiles = numTilesOfBlock(tiles);
    let tileBytes = NUMEL as u32 * BYTES_PER_ELEMENT;

    if tid == PRODUCER {
        let mut page = PipelineState::<NPAGES>::producer_start();
        for k in 1..=numTiles {
            pipe.producer_acquire(&page);
            pipe.producer_expect_tx(&page, tileBytes);
            bulk_copy_global_to_shared(
                smem + RING_BYTES_OFFSET + page.index() * tileBytes,
                input.add(tileIndex(k) * NUMEL) as *const u8,
                tileBytes,
                pipe.producer_barrier(&page),
            );
            page.advance();
        }
        pipe.producer_tail(page);
    } else if tid >= 32 {
        let i = (tid - 32) as usize + 1;
        let mut page = PipelineState::<NPAGES>::new();
        let mut C = 0.0f32;
        for _k in 1..numTiles {
            pipe.consumer_wait(&page);
            let p = page.index() as usize + 1;
            for j in 1..=NCOLS {
                C += *ring.add(sub2ind3(i, j, p));
            }
            pipe.consumer_release(&page);
            page.advance();
        }
        *out.add(sub2ind(i, block_idx_x() as usize + 1)) = C;
    }
}
