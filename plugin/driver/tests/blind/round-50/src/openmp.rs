//! Style `openmp`: the block is an OpenMP parallel region. Code is written with the runtime's
//! vocabulary: `omp_get_thread_num()` / `omp_get_num_threads()`, worksharing loops
//! (`#pragma omp for schedule(static)` as `omp_for_static` over a closure), `single` and
//! `master` regions, explicit `#pragma omp barrier`, and `sections` for the producer/consumer
//! split of the pipelined kernels (one section streams tiles in, the other reduces them).
//! Reductions keep a private accumulator per thread and combine at the end of the region.

use crate::device::geometry::{WARP_SIZE, block_dim_x, block_idx_x, grid_dim_x, thread_idx_x};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

const NUM_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const NCOL: usize = 32;
const NROW: usize = TILE / NCOL;

#[inline(always)]
fn omp_get_thread_num() -> u32 {
    thread_idx_x()
}

#[inline(always)]
fn omp_get_num_threads() -> u32 {
    block_dim_x()
}

/// `#pragma omp barrier`
#[inline(always)]
fn omp_barrier() {
    barrier();
}

/// `#pragma omp for schedule(static, 1) nowait` over `lo..hi`: iteration `i` runs on thread
/// `i % num_threads`. The caller adds the barrier when it needs one.
#[inline(always)]
fn omp_for_static(lo: usize, hi: usize, mut body: impl FnMut(usize)) {
    let nthreads = omp_get_num_threads() as usize;
    let mut i = lo + omp_get_thread_num() as usize;
    while i < hi {
        body(i);
        i += nthreads;
    }
}

/// The outer `for (t = blockIdx.x; t < tiles; t += gridDim.x)` of every kernel here: the
/// tiles of this team, in order.
#[inline(always)]
fn team_tiles(tiles: u32) -> core::iter::StepBy<core::ops::Range<u32>> {
    (block_idx_x()..tiles).step_by(grid_dim_x() as usize)
}

/// `#pragma omp parallel for reduction(+: colsum)`: each tile is copied in by a static
/// worksharing loop, the implicit barrier closes it, then thread `t` sums half of column
/// `t % 32` into its private partial. The two halves meet through shared memory at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_openmp_parallel_for_reduction(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = omp_get_thread_num() as usize;
    let tile_buf = dynamic_shared_base::<f32>();
    let reduction = tile_buf.add(TILE);
    let col = tid % NCOL;
    let half = tid / NCOL;

    let mut private_sum = 0.0f32;
    for t in team_tiles(tiles) {
        let src = input.add(t as usize * TILE);
        omp_for_static(0, TILE, |i| *tile_buf.add(i) = *src.add(i));
        omp_barrier();
        for row in (half * NROW / 2)..((half + 1) * NROW / 2) {
            private_sum += *tile_buf.add(row * NCOL + col);
        }
        omp_barrier();
    }
    // End of the reduction clause: combine the private copies.
    *reduction.add(tid) = private_sum;
    omp_barrier();
    if tid < NCOL {
        *out.add(block_idx_x() as usize * NCOL + tid) = *reduction.add(tid) + *reduction.add(tid + NCOL);
    }
}

/// `#pragma omp sections`: section 0 (the master thread) streams the team's tiles into a
/// four-stage ring, section 1 (threads 32..64, a worksharing loop over the 32 columns) reduces
/// them. Threads 1..32 have no section and go straight to the region's end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_openmp_sections_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = omp_get_thread_num();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
    // #pragma omp single
    if tid == 0 {
        Pipeline::<STAGES>::init(smem, WARP_SIZE);
    }
    omp_barrier();
    let pipe = Pipeline::<STAGES>::attach(smem);

    if tid == 0 {
        // section: producer
        let mut stage = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&stage);
            pipe.producer_expect_tx(&stage, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem + RING + stage.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&stage),
            );
            stage.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(stage);
    } else if tid >= WARP_SIZE {
        // section: consumers, one column each
        let col = (tid - WARP_SIZE) as usize;
        let mut stage = PipelineState::<STAGES>::new();
        let mut colsum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&stage);
            let buf = ring.add(stage.index() as usize * TILE);
            for row in 0..NROW {
                colsum += *buf.add(row * NCOL + col);
            }
            pipe.consumer_release(&stage);
            stage.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NCOL + col) = colsum;
    }
}

/// `#pragma omp task depend(out: buf[s])` / `depend(in: buf[s])`: the master thread creates the
/// "tasks" (bulk copies) of a two-stage ring, warp 0 waits for each dependency, then the
/// `taskwait`-style drain at the end of the master's loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_openmp_task_depend_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const DEPEND_TABLE: u32 = 0;
    const BUFFERS: u32 = 2048;
    const MASTER: u32 = 32;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = omp_get_thread_num();
    let smem = dynamic_shared_window_address();
    if tid == MASTER {
        Pipeline::<STAGES>::init(smem + DEPEND_TABLE, WARP_SIZE);
    }
    omp_barrier();
    let deps = Pipeline::<STAGES>::attach(smem + DEPEND_TABLE);

    if tid == MASTER {
        let mut out_dep = PipelineState::<STAGES>::producer_start();
        for t in team_tiles(tiles) {
            deps.producer_acquire(&out_dep);
            deps.producer_expect_tx(&out_dep, TILE_BYTES);
            let task_dst = smem + BUFFERS + out_dep.index() * TILE_BYTES;
            bulk_copy_global_to_shared(task_dst, input.add(t as usize * TILE) as *const u8, TILE_BYTES, deps.producer_barrier(&out_dep));
            out_dep.advance();
        }
        // #pragma omp taskwait
        deps.producer_tail(out_dep);
    } else if tid < WARP_SIZE {
        let buffers = dynamic_shared_base::<f32>().add(BUFFERS as usize / 4);
        let mut in_dep = PipelineState::<STAGES>::new();
        let mut colsum = 0.0f32;
        for _t in team_tiles(tiles) {
            deps.consumer_wait(&in_dep);
            let buf = buffers.add(in_dep.index() as usize * TILE);
            let mut row = 0;
            while row < NROW {
                colsum += *buf.add(row * NCOL + tid as usize);
                row += 1;
            }
            deps.consumer_release(&in_dep);
            in_dep.advance();
        }
        *out.add(block_idx_x() as usize * NCOL + tid as usize) = colsum;
    }
}

/// `schedule(static, 4)` over tiles: the team stages four of its tiles at a time (4 KiB), one
/// barrier, then thread `t` reduces column `t % 32` of two of the four tiles (`t / 32` picks
/// which pair). Private partials combine through shared memory at the end of the region.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_openmp_chunked_schedule(input: *const f32, tiles: u32, out: *mut f32) {
    const CHUNK: usize = 4;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = omp_get_thread_num() as usize;
    let nthreads = omp_get_num_threads() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let chunk_buf = dynamic_shared_base::<f32>();
    let reduction = chunk_buf.add(CHUNK * TILE);
    let col = tid % NCOL;
    let pair = tid / NCOL;
    let my_tiles = if b < tiles { ((tiles - b).div_ceil(g)) as usize } else { 0 };

    let mut private_sum = 0.0f32;
    let mut k0 = 0usize;
    while k0 < my_tiles {
        let in_chunk = if my_tiles - k0 < CHUNK { my_tiles - k0 } else { CHUNK };
        // #pragma omp for collapse over (tile of the chunk, element)
        let mut i = tid;
        while i < in_chunk * TILE {
            let j = i / TILE;
            let e = i % TILE;
            let t = b as usize + (k0 + j) * g as usize;
            *chunk_buf.add(i) = *input.add(t * TILE + e);
            i += nthreads;
        }
        omp_barrier();
        for j in (pair * 2)..(pair * 2 + 2) {
            if j < in_chunk {
                let tile = chunk_buf.add(j * TILE);
                for row in 0..NROW {
                    private_sum += *tile.add(row * NCOL + col);
                }
            }
        }
        omp_barrier();
        k0 += CHUNK;
    }
    *reduction.add(tid) = private_sum;
    omp_barrier();
    if tid < NCOL {
        *out.add(b as usize * NCOL + tid) = *reduction.add(tid) + *reduction.add(tid + NCOL);
    }
}

/// BROKEN: the copy-in worksharing loop is `nowait` (the helper adds no barrier) and the
/// author dropped the explicit `#pragma omp barrier` after it: threads read rows other threads
/// have not stored yet, and the next tile's copy-in overwrites rows still being read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_openmp_bad_for_nowait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = omp_get_thread_num() as usize;
    let tile_buf = dynamic_shared_base::<f32>();
    let reduction = tile_buf.add(TILE);
    let col = tid % NCOL;
    let half = tid / NCOL;

    let mut private_sum = 0.0f32;
    for t in team_tiles(tiles) {
        let src = input.add(t as usize * TILE);
        omp_for_static(0, TILE, |i| *tile_buf.add(i) = *src.add(i));
        for row in (half * NROW / 2)..((half + 1) * NROW / 2) {
            private_sum += *tile_buf.add(row * NCOL + col);
        }
    }
    *reduction.add(tid) = private_sum;
    omp_barrier();
    if tid < NCOL {
        *out.add(block_idx_x() as usize * NCOL + tid) = *reduction.add(tid) + *reduction.add(tid + NCOL);
    }
}

/// BROKEN: the reduction's private copies are placed "after the chunk buffer, at byte 7936"
/// but the offset is added to an `f32` pointer: `partials` lies 31 KiB into a window of 8 KiB,
/// and every thread's store there faults.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_openmp_bad_reduction_offset_units(input: *const f32, tiles: u32, out: *mut f32) {
    const REDUCTION_OFFSET: usize = SHARED_BYTES as usize - NUM_THREADS as usize * 4;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = omp_get_thread_num() as usize;
    let tile_buf = dynamic_shared_base::<f32>();
    let reduction = tile_buf.add(REDUCTION_OFFSET);
    let col = tid % NCOL;
    let half = tid / NCOL;

    let mut private_sum = 0.0f32;
    for t in team_tiles(tiles) {
        let src = input.add(t as usize * TILE);
        omp_for_static(0, TILE, |i| *tile_buf.add(i) = *src.add(i));
        omp_barrier();
        for row in (half * NROW / 2)..((half + 1) * NROW / 2) {
            private_sum += *tile_buf.add(row * NCOL + col);
        }
        omp_barrier();
    }
    *reduction.add(tid) = private_sum;
    omp_barrier();
    if tid < NCOL {
        *out.add(block_idx_x() as usize * NCOL + tid) = *reduction.add(tid) + *reduction.add(tid + NCOL);
    }
}

/// BROKEN: the producer section is guarded by "the master warp" (`tid < WARP_SIZE`) instead of
/// the master thread: 32 threads each acquire, announce a tile and copy it, so every full
/// barrier set up for one arrival gets 32 and 32 copies' bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_openmp_bad_master_warp_producer(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = omp_get_thread_num();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
    if tid == 0 {
        Pipeline::<STAGES>::init(smem, WARP_SIZE);
    }
    omp_barrier();
    let pipe = Pipeline::<STAGES>::attach(smem);

    if tid < WARP_SIZE {
        // #pragma omp master (meant: one thread)
        let mut stage = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&stage);
            pipe.producer_expect_tx(&stage, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem + RING + stage.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&stage),
            );
            stage.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(stage);
    } else {
        let col = (tid - WARP_SIZE) as usize;
        let mut stage = PipelineState::<STAGES>::new();
        let mut colsum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&stage);
            let buf = ring.add(stage.index() as usize * TILE);
            for row in 0..NROW {
                colsum += *buf.add(row * NCOL + col);
            }
            pipe.consumer_release(&stage);
            stage.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NCOL + col) = colsum;
    }
}

/// BROKEN: the consumers' buffer pointer is `firstprivate`, computed once before the loop from
/// the fresh state: every tile is read from stage 0 while the ring rotates through four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_openmp_bad_firstprivate_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = omp_get_thread_num();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
    if tid == 0 {
        Pipeline::<STAGES>::init(smem, WARP_SIZE);
    }
    omp_barrier();
    let pipe = Pipeline::<STAGES>::attach(smem);

    if tid == 0 {
        let mut stage = PipelineState::<STAGES>::producer_start();
        for t in team_tiles(tiles) {
            pipe.producer_acquire(&stage);
            pipe.producer_expect_tx(&stage, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem + RING + stage.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&stage),
            );
            stage.advance();
        }
        pipe.producer_tail(stage);
    } else if tid >= WARP_SIZE {
        let col = (tid - WARP_SIZE) as usize;
        let mut stage = PipelineState::<STAGES>::new();
        // firstprivate(buf)
        let buf = ring.add(stage.index() as usize * TILE);
        let mut colsum = 0.0f32;
        for _t in team_tiles(tiles) {
            pipe.consumer_wait(&stage);
            for row in 0..NROW {
                colsum += *buf.add(row * NCOL + col);
            }
            pipe.consumer_release(&stage);
            stage.advance();
        }
        *out.add(block_idx_x() as usize * NCOL + col) = colsum;
    }
}
