//! Style: throughput-first instruction-level parallelism. Every kernel is written to keep many
//! independent memory operations in flight per thread: 16-byte vector loads (`FourFloats`),
//! several tiles per stage or per staging round, loads batched before they are consumed
//! (`device::strided`), and independent accumulators per tile slot that are combined only at
//! the end, so that no add waits on the previous one.

use crate::device::geometry::{WARP_SIZE, block_idx_x, grid_dim_x, lane_id, thread_idx_x, warp_id};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::row::FourFloats;
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};
use crate::device::strided::strided;

const THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const ROW: usize = 32;
const ROWS: usize = 8;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
/// The mbarriers at the start of the window, the ring from 1 KiB on.
const RING: u32 = 1024;

/// Pipeline of three 2 KiB stages, each holding two of the block's tiles (`t` and `t + grid`):
/// one `expect_tx` announces both copies, and each consumer lane keeps one running sum per tile
/// slot. The last stage of an odd count carries one tile (its bytes announced as such).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_ilp_two_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    const STAGE_FLOATS: usize = 2 * TILE_FLOATS;
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut first = block;
        while first < tiles {
            let second = first + grid;
            let pair = second < tiles;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, if pair { STAGE_BYTES } else { TILE_BYTES });
            let stage = window + RING + state.index() * STAGE_BYTES;
            let full = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(stage, input.add(first as usize * TILE_FLOATS) as *const u8, TILE_BYTES, full);
            if pair {
                bulk_copy_global_to_shared(
                    stage + TILE_BYTES,
                    input.add(second as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    full,
                );
            }
            state.advance();
            first += 2 * grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let (mut even, mut odd) = (0.0f32, 0.0f32);
        let mut state = PipelineState::<STAGES>::new();
        let mut first = block;
        while first < tiles {
            let pair = first + grid < tiles;
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * STAGE_FLOATS);
            for r in 0..ROWS {
                even += *stage.add(r * ROW + column);
            }
            if pair {
                for r in 0..ROWS {
                    odd += *stage.add(TILE_FLOATS + r * ROW + column);
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            first += 2 * grid;
        }
        *out.add(block as usize * ROW + column) = even + odd;
    }
}

/// Plain: no staging at all on the way in. Thread `i` owns quad `i % 8` of row `i / 8` of every
/// tile and streams it from global memory with four 16-byte loads in flight (`strided`); the
/// 64 quads then form one row-major tile of partial sums in shared memory, and warp 0 sums its
/// columns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_ilp_direct_quads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (block, grid) = (block_idx_x(), grid_dim_x());

    let mut sums = [0.0f32; 4];
    strided(
        block as usize,
        tiles as usize,
        grid as usize,
        |tile| *(input.add(tile * TILE_FLOATS + 4 * tid) as *const FourFloats),
        |_, quad: FourFloats| {
            for j in 0..4 {
                sums[j] += quad.0[j];
            }
        },
    );

    let partials = dynamic_shared_base::<f32>();
    *(partials.add(4 * tid) as *mut FourFloats) = FourFloats(sums);
    barrier();
    if tid < ROW {
        let mut column = 0.0f32;
        for r in 0..ROWS {
            column += *partials.add(r * ROW + tid);
        }
        *out.add(block as usize * ROW + tid) = column;
    }
}

/// Pipeline with vector consumers: lane `L` of warp 1 loads two 16-byte quads per stage (quad
/// `L % 8` of rows `L / 8` and `L / 8 + 4`). After both roles are done, a block barrier, then the
/// lanes park their four sums in shared memory beside the ring, and warp 0 adds the four row
/// groups of each column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_ilp_quad_consumers_epilogue(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const PARTIALS: usize = 6144;
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (warp, lane) = (warp_id(), lane_id() as usize);
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    let mut sums = [0.0f32; 4];
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if warp == 1 {
        let (group, quad) = (lane / 8, lane % 8);
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let upper = *(stage.add(group * ROW + 4 * quad) as *const FourFloats);
            let lower = *(stage.add((group + 4) * ROW + 4 * quad) as *const FourFloats);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..4 {
                sums[j] += upper.0[j] + lower.0[j];
            }
            tile += grid;
        }
    }
    barrier();

    let partials = dynamic_shared_base::<f32>().byte_add(PARTIALS);
    if warp == 1 {
        *(partials.add(4 * lane) as *mut FourFloats) = FourFloats(sums);
    }
    barrier();
    if warp == 0 {
        let mut column = 0.0f32;
        for group in 0..4 {
            column += *partials.add(group * ROW + lane);
        }
        *out.add(block as usize * ROW + lane) = column;
    }
}

/// Plain, batched staging: each round moves four of the block's tiles (4 KiB) into shared memory,
/// every thread issuing its four 16-byte loads before its first store; then thread `i` sums
/// column `i % 32` of the two tiles of its half of the batch with two accumulators. Tiles past
/// the end are staged as zeros. The halves meet once at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_ilp_batched_staging(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: usize = 4;
    const STAGING: usize = 1024;
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / 32, tid % 32);
    let (block, grid) = (block_idx_x() as usize, grid_dim_x() as usize);
    let tiles = tiles as usize;
    let partials = dynamic_shared_base::<f32>();
    let staging = partials.byte_add(STAGING);

    let mut sums = [0.0f32; 2];
    let mut first = block;
    while first < tiles {
        let mut batch = [FourFloats::default(); BATCH];
        for j in 0..BATCH {
            let tile = first + j * grid;
            if tile < tiles {
                batch[j] = *(input.add(tile * TILE_FLOATS + 4 * tid) as *const FourFloats);
            }
        }
        for j in 0..BATCH {
            *(staging.add(j * TILE_FLOATS + 4 * tid) as *mut FourFloats) = batch[j];
        }
        barrier();
        for u in 0..2 {
            let tile = staging.add((2 * half + u) * TILE_FLOATS);
            for r in 0..ROWS {
                sums[u] += *tile.add(r * ROW + column);
            }
        }
        barrier();
        first += BATCH * grid;
    }

    if half == 1 {
        *partials.add(column) = sums[0] + sums[1];
    }
    barrier();
    if half == 0 {
        *out.add(block * ROW + column) = sums[0] + sums[1] + *partials.add(column);
    }
}

/// BROKEN: `r49_ilp_two_tiles_per_stage` with the stage stride left at one tile: stage `s` is
/// placed at `RING + s * TILE_BYTES` although each stage receives two tiles, so the second copy
/// of a stage lands on the first tile of the next one (overlapping stages; wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_ilp_bad_pair_stage_stride(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut first = block;
        while first < tiles {
            let second = first + grid;
            let pair = second < tiles;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, if pair { STAGE_BYTES } else { TILE_BYTES });
            let stage = window + RING + state.index() * TILE_BYTES;
            let full = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(stage, input.add(first as usize * TILE_FLOATS) as *const u8, TILE_BYTES, full);
            if pair {
                bulk_copy_global_to_shared(
                    stage + TILE_BYTES,
                    input.add(second as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    full,
                );
            }
            state.advance();
            first += 2 * grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let (mut even, mut odd) = (0.0f32, 0.0f32);
        let mut state = PipelineState::<STAGES>::new();
        let mut first = block;
        while first < tiles {
            let pair = first + grid < tiles;
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                even += *stage.add(r * ROW + column);
            }
            if pair {
                for r in 0..ROWS {
                    odd += *stage.add(TILE_FLOATS + r * ROW + column);
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            first += 2 * grid;
        }
        *out.add(block as usize * ROW + column) = even + odd;
    }
}

/// BROKEN: `r49_ilp_batched_staging` with the batch raised to eight tiles for more loads in
/// flight, without redoing the shared-memory budget: eight 1 KiB tiles from byte 1024 end at
/// byte 9216 of an 8 KiB window, and the stores of the last tile leave it (a fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_ilp_bad_batch_of_eight(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: usize = 8;
    const STAGING: usize = 1024;
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / 32, tid % 32);
    let (block, grid) = (block_idx_x() as usize, grid_dim_x() as usize);
    let tiles = tiles as usize;
    let partials = dynamic_shared_base::<f32>();
    let staging = partials.byte_add(STAGING);

    let mut sums = [0.0f32; 4];
    let mut first = block;
    while first < tiles {
        let mut batch = [FourFloats::default(); BATCH];
        for j in 0..BATCH {
            let tile = first + j * grid;
            if tile < tiles {
                batch[j] = *(input.add(tile * TILE_FLOATS + 4 * tid) as *const FourFloats);
            }
        }
        for j in 0..BATCH {
            *(staging.add(j * TILE_FLOATS + 4 * tid) as *mut FourFloats) = batch[j];
        }
        barrier();
        for u in 0..4 {
            let tile = staging.add((4 * half + u) * TILE_FLOATS);
            for r in 0..ROWS {
                sums[u] += *tile.add(r * ROW + column);
            }
        }
        barrier();
        first += BATCH * grid;
    }

    let mine = (sums[0] + sums[1]) + (sums[2] + sums[3]);
    if half == 1 {
        *partials.add(column) = mine;
    }
    barrier();
    if half == 0 {
        *out.add(block * ROW + column) = mine + *partials.add(column);
    }
}

/// BROKEN: `r49_ilp_quad_consumers_epilogue` with the producer's state made by `Default` (the
/// consumer's start: phase 0) instead of `producer_start`: its first `producer_acquire` waits for
/// a release of stage 0 that can only follow a copy it never issues (a hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_ilp_bad_producer_fresh_phase(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const PARTIALS: usize = 6144;
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (warp, lane) = (warp_id(), lane_id() as usize);
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    let mut sums = [0.0f32; 4];
    if tid == 0 {
        let mut state: PipelineState<STAGES> = Default::default();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if warp == 1 {
        let (group, quad) = (lane / 8, lane % 8);
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let upper = *(stage.add(group * ROW + 4 * quad) as *const FourFloats);
            let lower = *(stage.add((group + 4) * ROW + 4 * quad) as *const FourFloats);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..4 {
                sums[j] += upper.0[j] + lower.0[j];
            }
            tile += grid;
        }
    }
    barrier();

    let partials = dynamic_shared_base::<f32>().byte_add(PARTIALS);
    if warp == 1 {
        *(partials.add(4 * lane) as *mut FourFloats) = FourFloats(sums);
    }
    barrier();
    if warp == 0 {
        let mut column = 0.0f32;
        for group in 0..4 {
            column += *partials.add(group * ROW + lane);
        }
        *out.add(block as usize * ROW + lane) = column;
    }
}

/// BROKEN: `r49_ilp_batched_staging` squeezed into less shared memory: the halves meet in the
/// first 32 floats of the staging area, and the barrier that closes a round is skipped after the
/// last round ("nothing is staged after it"), so half 1 writes its partials over row 0 of the
/// batch's first tile while half 0 may still be summing it (a race).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_ilp_bad_scratch_over_staging(input: *const f32, tiles: u32, out: *mut f32) {
    const BATCH: usize = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / 32, tid % 32);
    let (block, grid) = (block_idx_x() as usize, grid_dim_x() as usize);
    let tiles = tiles as usize;
    let staging = dynamic_shared_base::<f32>();
    let partials = staging;

    let mut sums = [0.0f32; 2];
    let mut first = block;
    while first < tiles {
        let mut batch = [FourFloats::default(); BATCH];
        for j in 0..BATCH {
            let tile = first + j * grid;
            if tile < tiles {
                batch[j] = *(input.add(tile * TILE_FLOATS + 4 * tid) as *const FourFloats);
            }
        }
        for j in 0..BATCH {
            *(staging.add(j * TILE_FLOATS + 4 * tid) as *mut FourFloats) = batch[j];
        }
        barrier();
        for u in 0..2 {
            let tile = staging.add((2 * half + u) * TILE_FLOATS);
            for r in 0..ROWS {
                sums[u] += *tile.add(r * ROW + column);
            }
        }
        first += BATCH * grid;
        if first < tiles {
            // The next round overwrites the staging area.
            barrier();
        }
    }

    if half == 1 {
        *partials.add(column) = sums[0] + sums[1];
    }
    barrier();
    if half == 0 {
        *out.add(block * ROW + column) = sums[0] + sums[1] + *partials.add(column);
    }
}
