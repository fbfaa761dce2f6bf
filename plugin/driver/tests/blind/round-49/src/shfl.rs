//! Style: warp-synchronous lane programming. The unit of thought is the warp and its 32 lanes:
//! roles are whole warps (a producer warp, a consumer warp, a loader warp), a lane owns a 16-byte
//! quad of a row, and partial sums meet through butterfly shuffles (`segment_sum`) instead of
//! shared memory wherever the lanes that hold them are in one warp. Shared memory is used only
//! where two warps must meet.

use crate::device::geometry::{WARP_SIZE, block_idx_x, grid_dim_x, lane_id, thread_idx_x, warp_id};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::row::FourFloats;
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

const THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const ROW: usize = 32;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const STAGES: u32 = 4;
/// The pipeline's mbarriers sit at the start of the window, the ring from 1 KiB on.
const RING: u32 = 1024;
/// Lanes that share one column quad: four row groups, side by side in the warp.
const QUAD_LANES: u32 = 4;

/// Pipeline; thread 0 (lane 0 of warp 0) copies, warp 1 consumes. Lane `L` of the consumer warp
/// owns column quad `L / 4` of rows `L % 4` and `L % 4 + 4`: two 16-byte loads per stage, four
/// running sums, and one `segment_sum` over each group of four lanes after the last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_shfl_quad_lanes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let (warp, lane) = (warp_id(), lane_id());
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if warp == 0 {
        if lane == 0 {
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
        }
    } else {
        let quad = (lane / QUAD_LANES) as usize;
        let row = (lane % QUAD_LANES) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sums = [0.0f32; 4];
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let top = *(stage.add(row * ROW + 4 * quad) as *const FourFloats);
            let bottom = *(stage.add((row + 4) * ROW + 4 * quad) as *const FourFloats);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..4 {
                sums[j] += top.0[j] + bottom.0[j];
            }
            tile += grid;
        }
        let first = block as usize * ROW + 4 * quad;
        for j in 0..4 {
            let column = segment_sum(sums[j], QUAD_LANES);
            if row == 0 {
                *out.add(first + j) = column;
            }
        }
    }
}

/// Plain (no pipeline): every thread streams its own 16-byte quad of every tile straight from
/// global memory; warp `w` owns rows `4w..4w + 4`, lane `L` quad `L / 4` of row `4w + L % 4`.
/// Shuffles reduce each warp's four rows; the two warps meet once, through 32 floats of shared
/// memory and one block barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_shfl_warp_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let (warp, lane) = (warp_id(), lane_id());
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let quad = (lane / QUAD_LANES) as usize;
    let row = (4 * warp + lane % QUAD_LANES) as usize;
    let leader = lane % QUAD_LANES == 0;

    let mut sums = [0.0f32; 4];
    let mut tile = block;
    while tile < tiles {
        let quad_of_tile = *(input.add(tile as usize * TILE_FLOATS + row * ROW + 4 * quad) as *const FourFloats);
        for j in 0..4 {
            sums[j] += quad_of_tile.0[j];
        }
        tile += grid;
    }
    for j in 0..4 {
        sums[j] = segment_sum(sums[j], QUAD_LANES);
    }

    let exchange = dynamic_shared_base::<f32>();
    if warp == 0 && leader {
        *(exchange.add(4 * quad) as *mut FourFloats) = FourFloats(sums);
    }
    barrier();
    if warp == 1 && leader {
        let upper = *(exchange.add(4 * quad) as *const FourFloats);
        let first = block as usize * ROW + 4 * quad;
        for j in 0..4 {
            *out.add(first + j) = sums[j] + upper.0[j];
        }
    }
}

/// Plain, warp-specialised double buffer: warp 1 is the loader (each lane moves two quads of the
/// next tile into the spare buffer), warp 0 the reducer (lane `c` sums column `c` of the current
/// buffer); one block barrier per tile hands the buffers over, and the buffer bit flips.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_shfl_loader_warp_pingpong(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let (warp, lane) = (warp_id(), lane_id());
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let buffers = dynamic_shared_base::<f32>();
    let lane = lane as usize;

    let mut tile = block;
    if warp == 1 && tile < tiles {
        let source = input.add(tile as usize * TILE_FLOATS);
        *(buffers.add(4 * lane) as *mut FourFloats) = *(source.add(4 * lane) as *const FourFloats);
        *(buffers.add(4 * lane + 128) as *mut FourFloats) = *(source.add(4 * lane + 128) as *const FourFloats);
    }
    barrier();

    let mut buffer = 0u32;
    let mut column = 0.0f32;
    while tile < tiles {
        let next = tile + grid;
        if warp == 1 {
            if next < tiles {
                let spare = buffers.add((buffer ^ 1) as usize * TILE_FLOATS);
                let source = input.add(next as usize * TILE_FLOATS);
                *(spare.add(4 * lane) as *mut FourFloats) = *(source.add(4 * lane) as *const FourFloats);
                *(spare.add(4 * lane + 128) as *mut FourFloats) = *(source.add(4 * lane + 128) as *const FourFloats);
            }
        } else {
            let current = buffers.add(buffer as usize * TILE_FLOATS);
            for r in 0..8 {
                column += *current.add(r * ROW + lane);
            }
        }
        barrier();
        buffer ^= 1;
        tile = next;
    }
    if warp == 0 {
        *out.add(block as usize * ROW + lane) = column;
    }
}

/// Pipeline with the roles swapped between the warps: lane 0 of warp 1 (thread 32) initialises
/// the barriers and copies, and warp 0 consumes, lane `c` summing column `c` of each stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_shfl_producer_in_last_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let (warp, lane) = (warp_id(), lane_id());
    if warp == 1 && lane == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if warp == 0 {
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let lane = lane as usize;
        let mut column = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                column += *stage.add(r * ROW + lane);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * ROW + lane) = column;
    } else if lane == 0 {
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
    }
}

/// BROKEN: `r49_shfl_quad_lanes` with the producer elected as "lane 0" alone: lane 0 of warp 1
/// (thread 32) copies every tile too, arriving a second time on each *full* barrier, and is
/// missing from the consumer warp, whose 31 releases never complete an *empty* barrier set up for
/// 32 (and whose shuffles name a lane that never joins them).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_shfl_bad_lane_elected_producer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let (warp, lane) = (warp_id(), lane_id());
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if lane == 0 {
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
        let quad = (lane / QUAD_LANES) as usize;
        let row = (lane % QUAD_LANES) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sums = [0.0f32; 4];
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let top = *(stage.add(row * ROW + 4 * quad) as *const FourFloats);
            let bottom = *(stage.add((row + 4) * ROW + 4 * quad) as *const FourFloats);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..4 {
                sums[j] += top.0[j] + bottom.0[j];
            }
            tile += grid;
        }
        let first = block as usize * ROW + 4 * quad;
        for j in 0..4 {
            let column = segment_sum(sums[j], QUAD_LANES);
            if row == 0 {
                *out.add(first + j) = column;
            }
        }
    }
}

/// BROKEN: the consumer warp reduces each stage with shuffles as soon as it has loaded it, and
/// then only lane 0 releases the stage "for the warp"; the *empty* barriers were initialised for
/// 32 arrivals, so each phase gets one and the producer waits forever at its fifth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_shfl_bad_leader_releases(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let (warp, lane) = (warp_id(), lane_id());
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if warp == 0 {
        if lane == 0 {
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
        }
    } else {
        let quad = (lane / QUAD_LANES) as usize;
        let row = (lane % QUAD_LANES) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut columns = [0.0f32; 4];
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let top = *(stage.add(row * ROW + 4 * quad) as *const FourFloats);
            let bottom = *(stage.add((row + 4) * ROW + 4 * quad) as *const FourFloats);
            for j in 0..4 {
                columns[j] += segment_sum(top.0[j] + bottom.0[j], QUAD_LANES);
            }
            // The whole warp is past its loads once the shuffles have run.
            if lane == 0 {
                pipe.consumer_release(&state);
            }
            state.advance();
            tile += grid;
        }
        if row == 0 {
            let first = block as usize * ROW + 4 * quad;
            for j in 0..4 {
                *out.add(first + j) = columns[j];
            }
        }
    }
}

/// BROKEN: `r49_shfl_warp_halves` written as if the two warps ran in lock step: warp 1 reads the
/// exchange slots right after warp 0's leaders write them, with no block barrier between, so it
/// may read them before they are written (a race between the warps, wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_shfl_bad_cross_warp_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let (warp, lane) = (warp_id(), lane_id());
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let quad = (lane / QUAD_LANES) as usize;
    let row = (4 * warp + lane % QUAD_LANES) as usize;
    let leader = lane % QUAD_LANES == 0;

    let mut sums = [0.0f32; 4];
    let mut tile = block;
    while tile < tiles {
        let quad_of_tile = *(input.add(tile as usize * TILE_FLOATS + row * ROW + 4 * quad) as *const FourFloats);
        for j in 0..4 {
            sums[j] += quad_of_tile.0[j];
        }
        tile += grid;
    }
    for j in 0..4 {
        sums[j] = segment_sum(sums[j], QUAD_LANES);
    }

    let exchange = dynamic_shared_base::<f32>();
    if warp == 0 && leader {
        *(exchange.add(4 * quad) as *mut FourFloats) = FourFloats(sums);
    }
    if warp == 1 && leader {
        let upper = *(exchange.add(4 * quad) as *const FourFloats);
        let first = block as usize * ROW + 4 * quad;
        for j in 0..4 {
            *out.add(first + j) = sums[j] + upper.0[j];
        }
    }
}

/// BROKEN: `r49_shfl_loader_warp_pingpong` with the loader writing the next tile into the buffer
/// the reducer warp is summing (`buffer` where `buffer ^ 1` was meant): the two warps touch the
/// same floats between the same barriers (a race; sums of mixed tiles).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_shfl_bad_pingpong_same_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let (warp, lane) = (warp_id(), lane_id());
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let buffers = dynamic_shared_base::<f32>();
    let lane = lane as usize;

    let mut tile = block;
    if warp == 1 && tile < tiles {
        let source = input.add(tile as usize * TILE_FLOATS);
        *(buffers.add(4 * lane) as *mut FourFloats) = *(source.add(4 * lane) as *const FourFloats);
        *(buffers.add(4 * lane + 128) as *mut FourFloats) = *(source.add(4 * lane + 128) as *const FourFloats);
    }
    barrier();

    let mut buffer = 0u32;
    let mut column = 0.0f32;
    while tile < tiles {
        let next = tile + grid;
        if warp == 1 {
            if next < tiles {
                let spare = buffers.add(buffer as usize * TILE_FLOATS);
                let source = input.add(next as usize * TILE_FLOATS);
                *(spare.add(4 * lane) as *mut FourFloats) = *(source.add(4 * lane) as *const FourFloats);
                *(spare.add(4 * lane + 128) as *mut FourFloats) = *(source.add(4 * lane + 128) as *const FourFloats);
            }
        } else {
            let current = buffers.add(buffer as usize * TILE_FLOATS);
            for r in 0..8 {
                column += *current.add(r * ROW + lane);
            }
        }
        barrier();
        buffer ^= 1;
        tile = next;
    }
    if warp == 0 {
        *out.add(block as usize * ROW + lane) = column;
    }
}
