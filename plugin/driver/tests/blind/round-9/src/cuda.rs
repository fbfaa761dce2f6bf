//! A CUDA programmer's port: `__syncthreads()` tree reductions over `__shared__` arrays, warp
//! and lane arithmetic, warp-specialised producer/consumer with an elected lane, CUTLASS-style
//! per-warp arrivals and a single issuing thread inside a non-specialised block.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::warp_sum;
use crate::device::{
    WARP_SIZE, barrier, block_dim_x, block_idx_x, dynamic_shared_base, dynamic_shared_window_address,
    grid_dim_x, lane_id, launch, thread_idx_x, warp_id,
};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const BLOCK: usize = 64;
const STAGES: u32 = 4;

#[inline(always)]
fn __syncthreads() {
    barrier();
}

/// Loads one tile into `s[0..256]`: thread `t` stores elements `t, t + 64, t + 128, t + 192`.
#[inline(always)]
unsafe fn load_tile(s: *mut f32, src: *const f32, tid: usize) {
    unsafe {
        let mut i = tid;
        while i < TILE {
            *s.add(i) = *src.add(i);
            i += BLOCK;
        }
    }
}

/// Per tile: load to shared, then fold rows in a tree (256 -> 128 -> 64 -> 32 floats) with a
/// `__syncthreads()` after every level; warp 0 accumulates the folded row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_tree_reduce(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let sdata = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            load_tile(sdata, input.add(tile as usize * TILE), tid);
            __syncthreads();
            let mut half = TILE / 2;
            while half >= COLS {
                let mut i = tid;
                while i < half {
                    *sdata.add(i) += *sdata.add(i + half);
                    i += BLOCK;
                }
                __syncthreads();
                half /= 2;
            }
            if tid < COLS {
                acc += *sdata.add(tid);
            }
            __syncthreads();
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// The tree with the classic warp-synchronous shortcut applied one level too early: no
/// `__syncthreads()` once `half <= 64`, "since the rest is one warp". But the 64-wide level is
/// folded by both warps, and warp 0 then reads `s[32..64]` that warp 1 is still writing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_tree_warp_synchronous_tail(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    unsafe {
        let sdata = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            load_tile(sdata, input.add(tile as usize * TILE), tid);
            __syncthreads();
            let mut half = TILE / 2;
            while half >= COLS {
                let mut i = tid;
                while i < half {
                    *sdata.add(i) += *sdata.add(i + half);
                    i += BLOCK;
                }
                if half > 2 * WARP_SIZE as usize {
                    __syncthreads();
                }
                half /= 2;
            }
            if tid < COLS {
                acc += *sdata.add(tid);
            }
            __syncthreads();
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// A first fold by every thread (its own four elements), then the last level written the way
/// old CUDA samples did, with `__syncthreads()` inside `if (tid < s)`: only warp 0 reaches it, so
/// the block's barriers pair up out of step from the second tile on and warp 1 loads the next
/// tile into `s[32..64]` while warp 0 is still folding it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_sync_inside_fold_branch(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    unsafe {
        let sdata = dynamic_shared_base::<f32>();
        let tid = thread_idx_x() as usize;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            load_tile(sdata, input.add(tile as usize * TILE), tid);
            // Each thread folds the four elements it loaded itself: no barrier needed yet.
            let own = *sdata.add(tid) + *sdata.add(tid + 64) + *sdata.add(tid + 128) + *sdata.add(tid + 192);
            *sdata.add(tid) = own;
            __syncthreads();
            let s = COLS;
            if tid < s {
                *sdata.add(tid) += *sdata.add(tid + s);
                __syncthreads();
            }
            if tid < COLS {
                acc += *sdata.add(tid);
            }
            __syncthreads();
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// Each warp sums half the rows of every tile straight from global memory; warp 1 hands its
/// partials to warp 0 through `__shared__ float partial[2][32]` and one `__syncthreads()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_warp_partials_exchange(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    unsafe {
        let partial = dynamic_shared_base::<[f32; 32]>();
        let lane = lane_id() as usize;
        let warp = warp_id() as usize;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let src = input.add(tile as usize * TILE);
            for r in (warp * 4)..(warp * 4 + 4) {
                acc += *src.add(r * COLS + lane);
            }
            tile += grid_dim_x();
        }
        (*partial.add(warp))[lane] = acc;
        __syncthreads();
        if warp == 0 {
            let total = (*partial.add(0))[lane] + (*partial.add(1))[lane];
            *out.add(block_idx_x() as usize * COLS + lane) = total;
        }
    }
}

/// "Only 32 threads have an output column": threads 32..63 return at the top. The load loop
/// still strides by `blockDim.x` (64), so rows 1, 3, 5 and 7 of every tile are never stored and
/// warp 0 sums whatever shared memory held; the `__syncthreads()` run after the early return.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_idle_threads_exit_first(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        if tid >= COLS {
            return;
        }
        let sdata = dynamic_shared_base::<f32>();
        let stride = block_dim_x() as usize;
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let src = input.add(tile as usize * TILE);
            let mut i = tid;
            while i < TILE {
                *sdata.add(i) = *src.add(i);
                i += stride;
            }
            __syncthreads();
            for r in 0..8 {
                acc += *sdata.add(r * COLS + tid);
            }
            __syncthreads();
            tile += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + tid) = acc;
    }
}

/// Warp-specialised: warp 1 is the producer warp and its lane 0 the elected issuer; warp 0's 32
/// lanes consume, one column each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_warp_specialized(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let smem_u32 = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let barriers = smem_u32 + STAGES * TILE_BYTES;
        if thread_idx_x() == 0 {
            Pipeline::<STAGES>::init(barriers, WARP_SIZE);
        }
        __syncthreads();
        let pipeline = Pipeline::<STAGES>::attach(barriers);
        let warp = warp_id();
        let lane = lane_id();
        match warp {
            0 => {
                let mut read = PipelineState::<STAGES>::new();
                let mut acc = 0.0f32;
                let mut tile = block_idx_x();
                while tile < tiles {
                    pipeline.consumer_wait(&read);
                    let stage = smem.add((read.index() * TILE_BYTES / 4) as usize);
                    for r in 0..8 {
                        acc += *stage.add(r * COLS + lane as usize);
                    }
                    pipeline.consumer_release(&read);
                    read.advance();
                    tile += grid_dim_x();
                }
                *out.add((block_idx_x() * 32 + lane) as usize) = acc;
            }
            _ => {
                if lane == 0 {
                    let mut write = PipelineState::<STAGES>::producer_start();
                    let mut tile = block_idx_x();
                    while tile < tiles {
                        pipeline.producer_acquire(&write);
                        pipeline.producer_expect_tx(&write, TILE_BYTES);
                        bulk_copy_global_to_shared(
                            smem_u32 + write.index() * TILE_BYTES,
                            input.add(tile as usize * TILE) as *const u8,
                            TILE_BYTES,
                            pipeline.producer_barrier(&write),
                        );
                        write.advance();
                        tile += grid_dim_x();
                    }
                    pipeline.producer_tail(write);
                }
            }
        }
    }
}

/// CUTLASS-style per-warp release: the empty barriers expect one arrival; after a warp-wide
/// shuffle reduction (which cannot finish before every lane has loaded its values) lane 0 alone
/// releases the stage for the whole consumer warp.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_warp_release_by_leader(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let smem_u32 = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let barriers = smem_u32 + STAGES * TILE_BYTES;
        if thread_idx_x() == 0 {
            Pipeline::<STAGES>::init(barriers, 1);
        }
        __syncthreads();
        let pipeline = Pipeline::<STAGES>::attach(barriers);
        let warp = warp_id();
        let lane = lane_id();
        if warp == 0 {
            let mut read = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut checksum = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipeline.consumer_wait(&read);
                let stage = smem.add(read.index() as usize * TILE);
                let mut part = 0.0f32;
                for r in 0..8 {
                    part += *stage.add(r * COLS + lane as usize);
                }
                // Every lane's loads feed the shuffle, so it completes only after all of them.
                checksum += warp_sum(part);
                acc += part;
                if lane == 0 {
                    pipeline.consumer_release(&read);
                }
                read.advance();
                tile += grid_dim_x();
            }
            let _ = checksum;
            *out.add((block_idx_x() * 32 + lane) as usize) = acc;
        } else if lane == 0 {
            let mut write = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipeline.producer_acquire(&write);
                pipeline.producer_expect_tx(&write, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_u32 + write.index() * TILE_BYTES,
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipeline.producer_barrier(&write),
                );
                write.advance();
                tile += grid_dim_x();
            }
            pipeline.producer_tail(write);
        }
    }
}

/// No warp specialisation: all 64 threads consume (column `t % 32`, rows `4 * (t / 32)..+4`),
/// and thread 0 also issues the copies, `STAGES` tiles ahead, right after releasing each tile.
/// Its acquire waits only for releases of a tile every thread already had, so nothing waits on
/// thread 0 in a cycle. Partials are combined through shared scratch after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_single_issuer_interleaved(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let smem_u32 = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let barriers = smem_u32 + STAGES * TILE_BYTES;
        // Scratch for 64 partials after the barriers (16 bytes per stage).
        let scratch = smem.add(((STAGES * TILE_BYTES + 16 * STAGES) / 4) as usize);
        let tid = thread_idx_x();
        if tid == 0 {
            Pipeline::<STAGES>::init(barriers, BLOCK as u32);
        }
        __syncthreads();
        let pipeline = Pipeline::<STAGES>::attach(barriers);
        let first = block_idx_x();
        let step = grid_dim_x();
        let count = if tiles > first { (tiles - first + step - 1) / step } else { 0 };

        let mut write = PipelineState::<STAGES>::producer_start();
        let mut issued = 0u32;
        if tid == 0 {
            while issued < count && issued < STAGES {
                pipeline.producer_acquire(&write);
                pipeline.producer_expect_tx(&write, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_u32 + write.index() * TILE_BYTES,
                    input.add((first + issued * step) as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipeline.producer_barrier(&write),
                );
                write.advance();
                issued += 1;
            }
        }

        let col = (tid % 32) as usize;
        let row0 = (tid / 32) as usize * 4;
        let mut read = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut k = 0u32;
        while k < count {
            pipeline.consumer_wait(&read);
            let stage = smem.add(read.index() as usize * TILE);
            for r in row0..row0 + 4 {
                acc += *stage.add(r * COLS + col);
            }
            pipeline.consumer_release(&read);
            read.advance();
            if tid == 0 && issued < count {
                pipeline.producer_acquire(&write);
                pipeline.producer_expect_tx(&write, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_u32 + write.index() * TILE_BYTES,
                    input.add((first + issued * step) as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipeline.producer_barrier(&write),
                );
                write.advance();
                issued += 1;
            }
            k += 1;
        }
        if tid == 0 {
            pipeline.producer_tail(write);
        }
        *scratch.add(tid as usize) = acc;
        __syncthreads();
        if tid < 32 {
            *out.add((first * 32 + tid) as usize) = *scratch.add(tid as usize) + *scratch.add(tid as usize + 32);
        }
    }
}

/// Warp-specialised, but the producer branch is `if warp == 1` with no elected lane: all 32
/// lanes acquire, arrive with `expect_tx` on a full barrier that expects one arrival, and issue
/// the same copy 32 times.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_producer_warp_not_elected(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let smem_u32 = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let barriers = smem_u32 + STAGES * TILE_BYTES;
        if thread_idx_x() == 0 {
            Pipeline::<STAGES>::init(barriers, WARP_SIZE);
        }
        __syncthreads();
        let pipeline = Pipeline::<STAGES>::attach(barriers);
        let warp = warp_id();
        let lane = lane_id();
        if warp == 1 {
            let mut write = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipeline.producer_acquire(&write);
                pipeline.producer_expect_tx(&write, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_u32 + write.index() * TILE_BYTES,
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipeline.producer_barrier(&write),
                );
                write.advance();
                tile += grid_dim_x();
            }
            pipeline.producer_tail(write);
        } else {
            let mut read = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipeline.consumer_wait(&read);
                let stage = smem.add(read.index() as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * COLS + lane as usize);
                }
                pipeline.consumer_release(&read);
                read.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + lane) as usize) = acc;
        }
    }
}

/// The per-warp release of `r9_cuda_warp_release_by_leader` (lane 0 arrives for the warp), but the
/// empty barriers were initialised for `WARP_SIZE` arrivals, as if every lane released: each
/// stage gets one arrival of 32 per tile, and the producer waits forever on its second lap.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_leader_release_full_count(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let smem_u32 = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let barriers = smem_u32 + STAGES * TILE_BYTES;
        if thread_idx_x() == 0 {
            Pipeline::<STAGES>::init(barriers, WARP_SIZE);
        }
        __syncthreads();
        let pipeline = Pipeline::<STAGES>::attach(barriers);
        let warp = warp_id();
        let lane = lane_id();
        if warp == 0 {
            let mut read = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut checksum = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipeline.consumer_wait(&read);
                let stage = smem.add(read.index() as usize * TILE);
                let mut part = 0.0f32;
                for r in 0..8 {
                    part += *stage.add(r * COLS + lane as usize);
                }
                checksum += warp_sum(part);
                acc += part;
                if lane == 0 {
                    pipeline.consumer_release(&read);
                }
                read.advance();
                tile += grid_dim_x();
            }
            let _ = checksum;
            *out.add((block_idx_x() * 32 + lane) as usize) = acc;
        } else if lane == 0 {
            let mut write = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipeline.producer_acquire(&write);
                pipeline.producer_expect_tx(&write, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_u32 + write.index() * TILE_BYTES,
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipeline.producer_barrier(&write),
                );
                write.advance();
                tile += grid_dim_x();
            }
            pipeline.producer_tail(write);
        }
    }
}

/// Consumers release the previous stage after waiting on the current one (to keep one stage
/// of slack), but nobody releases the last stage after the loop: the producer's tail waits on
/// it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_cuda_release_previous_missing_last(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let smem_u32 = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let barriers = smem_u32 + STAGES * TILE_BYTES;
        if thread_idx_x() == 0 {
            Pipeline::<STAGES>::init(barriers, WARP_SIZE);
        }
        __syncthreads();
        let pipeline = Pipeline::<STAGES>::attach(barriers);
        let warp = warp_id();
        let lane = lane_id();
        if warp == 0 {
            let mut read = PipelineState::<STAGES>::new();
            let mut previous = read;
            let mut holding_previous = false;
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipeline.consumer_wait(&read);
                let stage = smem.add(read.index() as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * COLS + lane as usize);
                }
                if holding_previous {
                    pipeline.consumer_release(&previous);
                }
                previous = read;
                holding_previous = true;
                read.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + lane) as usize) = acc;
        } else if lane == 0 {
            let mut write = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipeline.producer_acquire(&write);
                pipeline.producer_expect_tx(&write, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_u32 + write.index() * TILE_BYTES,
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipeline.producer_barrier(&write),
                );
                write.advance();
                tile += grid_dim_x();
            }
            pipeline.producer_tail(write);
        }
    }
}
