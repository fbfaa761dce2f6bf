//! Round 35, module `lanes`: roles chosen by warp and lane, and the work of a stage split over
//! the consumer lanes in ways other than one column per lane. A `match (warp_id(), lane_id())`
//! elects the producer; consumers are a whole warp, the first eight threads or the first
//! sixteen; a consumer reads 16-byte `FourFloats` vectors (four columns of a row) or two columns,
//! and where several lanes share a column the partial sums meet through `segment_sum` (butterfly
//! shuffles over aligned lane segments) once the tile loop is done.
//!
//! Layout (every kernel): the barriers at window byte 0, the ring from byte 1024, one tile per
//! stage. Launch: 64 threads, 8192 bytes of dynamic shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::row::FourFloats;
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const BARRIERS: u32 = 0;
const RING: u32 = 1024;

/// The producer's loop: the block's tiles, one per stage, then the tail.
#[inline(always)]
unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut state = PipelineState::<S>::producer_start();
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

/// Generic pointer to the first float of stage `index`.
#[inline(always)]
unsafe fn stage_floats(index: u32) -> *const f32 {
    dynamic_shared_base::<f32>().add(((RING + index * TILE_BYTES) / 4) as usize) as *const f32
}

/// The four floats at `stage[offset..offset + 4]` (`offset` a multiple of 4): one 16-byte load.
#[inline(always)]
unsafe fn four_at(stage: *const f32, offset: usize) -> [f32; 4] {
    (*(stage.add(offset) as *const FourFloats)).0
}

/// Sum over this lane's aligned segment of `lanes` lanes of `values[j]`, for every `j`; this
/// lane keeps the one for `j == pick`. Every lane of the warp must call it.
#[inline(always)]
fn segment_pick<const N: usize>(values: [f32; N], lanes: u32, pick: usize) -> f32 {
    let mut picked = 0.0f32;
    for (j, value) in values.into_iter().enumerate() {
        let total = segment_sum(value, lanes);
        if j == pick {
            picked = total;
        }
    }
    picked
}

/// Tiles of this block: `block, block + grid, …` below `tiles`.
#[inline(always)]
fn tiles_of_block(block: u32, grid: u32, tiles: u32) -> u32 {
    if block < tiles {
        (tiles - block).div_ceil(grid)
    } else {
        0
    }
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Three stages. Warp 0 consumes: lane `8g + r` reads row `r`, columns `8g..8g + 8` (two
/// 16-byte loads) of every tile; after the loop the eight lanes of a segment (rows 0 to 7 of
/// the same columns) add up with `segment_sum(…, 8)` and lane `8g + r` writes column `8g + r`.
/// Lane 0 of warp 1 produces, elected by `match (warp_id(), lane_id())`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lanes_row_segments(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 3;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    match (warp_id(), lane_id()) {
        (1, 0) => produce(&pipe, window, input, tiles),
        (0, lane) => {
            let group = (lane / 8) as usize;
            let row = (lane % 8) as usize;
            let mut acc = [0.0f32; 8];
            let mut state = PipelineState::<STAGES>::new();
            for _ in 0..mine {
                pipe.consumer_wait(&state);
                let stage = stage_floats(state.index());
                let low = four_at(stage, row * COLS + group * 8);
                let high = four_at(stage, row * COLS + group * 8 + 4);
                pipe.consumer_release(&state);
                state.advance();
                for j in 0..4 {
                    acc[j] += low[j];
                    acc[4 + j] += high[j];
                }
            }
            let total = segment_pick(acc, 8, row);
            *out.add(block as usize * COLS + group * 8 + row) = total;
        }
        _ => {}
    }
}

/// Two stages, eight consumers (threads 0 to 7): thread `q` sums columns `4q..4q + 4` over the
/// eight rows with one 16-byte load per row, and writes its four columns. Thread 32 produces;
/// `init` counts eight releasing threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lanes_eight_vector_consumers(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    const VECTOR_CONSUMERS: u32 = 8;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, VECTOR_CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if tid == 32 {
        produce(&pipe, window, input, tiles);
    } else if tid < VECTOR_CONSUMERS {
        let first_column = 4 * tid as usize;
        let mut acc = [0.0f32; 4];
        let mut state = PipelineState::<STAGES>::new();
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index());
            for row in 0..ROWS {
                let values = four_at(stage, row * COLS + first_column);
                for j in 0..4 {
                    acc[j] += values[j];
                }
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        for (j, value) in acc.into_iter().enumerate() {
            *out.add(block as usize * COLS + first_column + j) = value;
        }
    }
}

/// Four stages, sixteen consumers (threads 0 to 15), each summing columns `c` and `c + 16`; the
/// last thread of the block (lane 31 of warp 1) produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lanes_half_warp_two_columns(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 4;
    const HALF_WARP: u32 = 16;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, HALF_WARP)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if warp_id() == 1 && lane_id() == 31 {
        produce(&pipe, window, input, tiles);
    } else if tid < HALF_WARP {
        let column = tid as usize;
        let mut low = 0.0f32;
        let mut high = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index());
            for row in 0..ROWS {
                low += *stage.add(row * COLS + column);
                high += *stage.add(row * COLS + column + 16);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = low;
        *out.add(block as usize * COLS + column + 16) = high;
    }
}

/// Two stages. Warp 1 consumes: lane `4g + p` reads rows `2p` and `2p + 1` of columns
/// `4g..4g + 4` (two 16-byte loads); after the loop the four lanes of a segment add up with
/// `segment_sum(…, 4)` and lane `4g + p` writes column `4g + p`. Lane 0 of warp 0 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lanes_row_pair_quads(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if warp_id() == 0 {
        if lane_id() == 0 {
            produce(&pipe, window, input, tiles);
        }
    } else {
        let lane = lane_id();
        let group = (lane / 4) as usize;
        let pair = (lane % 4) as usize;
        let mut acc = [0.0f32; 4];
        let mut state = PipelineState::<STAGES>::new();
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index());
            let upper = four_at(stage, 2 * pair * COLS + group * 4);
            let lower = four_at(stage, (2 * pair + 1) * COLS + group * 4);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..4 {
                acc[j] += upper[j] + lower[j];
            }
        }
        let total = segment_pick(acc, 4, pair);
        *out.add(block as usize * COLS + group * 4 + pair) = total;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// Broken: as `r35_lanes_row_segments`, but the elected producer lane initialises the barriers
/// itself, inside its `match` arm, and no block barrier follows: the consumer warp attaches and
/// starts waiting on (and releasing) mbarriers that may not be initialised yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lanes_bad_init_in_producer_arm(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 3;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    match (warp_id(), lane_id()) {
        (1, 0) => {
            let pipe = Pipeline::<STAGES>::init(window + BARRIERS, 32);
            produce(&pipe, window, input, tiles);
        }
        (0, lane) => {
            let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
            let group = (lane / 8) as usize;
            let row = (lane % 8) as usize;
            let mut acc = [0.0f32; 8];
            let mut state = PipelineState::<STAGES>::new();
            for _ in 0..mine {
                pipe.consumer_wait(&state);
                let stage = stage_floats(state.index());
                let low = four_at(stage, row * COLS + group * 8);
                let high = four_at(stage, row * COLS + group * 8 + 4);
                pipe.consumer_release(&state);
                state.advance();
                for j in 0..4 {
                    acc[j] += low[j];
                    acc[4 + j] += high[j];
                }
            }
            let total = segment_pick(acc, 8, row);
            *out.add(block as usize * COLS + group * 8 + row) = total;
        }
        _ => {}
    }
}

/// Broken: as `r35_lanes_half_warp_two_columns`, but the consumers are chosen by
/// `lane_id() < 16`: threads 0 to 15 and 32 to 47 both consume and release, 32 arrivals on
/// empty barriers initialised for 16. Each phase completes when the first half-warp has
/// released, and the producer refills the stage while the other half-warp still reads it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lanes_bad_lane_test_for_thread_test(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 4;
    const HALF_WARP: u32 = 16;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, HALF_WARP)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if warp_id() == 1 && lane_id() == 31 {
        produce(&pipe, window, input, tiles);
    } else if lane_id() < HALF_WARP {
        let column = lane_id() as usize;
        let mut low = 0.0f32;
        let mut high = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index());
            for row in 0..ROWS {
                low += *stage.add(row * COLS + column);
                high += *stage.add(row * COLS + column + 16);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + column) = low;
        *out.add(block as usize * COLS + column + 16) = high;
    }
}

/// Broken: as `r35_lanes_row_segments`, but the rows are read with a padded stride of 33
/// floats (taken from a transpose kernel that pads its rows against bank conflicts), while the
/// copies land rows 32 floats apart: row 1's 16-byte load starts 4 bytes past a 16-byte
/// boundary (a misaligned vector load), and row 7's ends past the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lanes_bad_padded_row_stride(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 3;
    const ROW_STRIDE: usize = COLS + 1;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    match (warp_id(), lane_id()) {
        (1, 0) => produce(&pipe, window, input, tiles),
        (0, lane) => {
            let group = (lane / 8) as usize;
            let row = (lane % 8) as usize;
            let mut acc = [0.0f32; 8];
            let mut state = PipelineState::<STAGES>::new();
            for _ in 0..mine {
                pipe.consumer_wait(&state);
                let stage = stage_floats(state.index());
                let low = four_at(stage, row * ROW_STRIDE + group * 8);
                let high = four_at(stage, row * ROW_STRIDE + group * 8 + 4);
                pipe.consumer_release(&state);
                state.advance();
                for j in 0..4 {
                    acc[j] += low[j];
                    acc[4 + j] += high[j];
                }
            }
            let total = segment_pick(acc, 8, row);
            *out.add(block as usize * COLS + group * 8 + row) = total;
        }
        _ => {}
    }
}

/// Broken: as `r35_lanes_row_pair_quads`, but the producer was moved into the consumer warp
/// ("lane 0 of warp 1 issues the copies too"): thread 32 runs the whole producer loop before
/// its consumer loop, so after two tiles it waits for a release of stage 0 that needs its own
/// arrival, and the other 31 consumers wait for the third tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_lanes_bad_producer_inside_consumer_warp(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let mine = tiles_of_block(block, grid_dim_x(), tiles);
    if warp_id() == 1 {
        let lane = lane_id();
        if lane == 0 {
            produce(&pipe, window, input, tiles);
        }
        let group = (lane / 4) as usize;
        let pair = (lane % 4) as usize;
        let mut acc = [0.0f32; 4];
        let mut state = PipelineState::<STAGES>::new();
        for _ in 0..mine {
            pipe.consumer_wait(&state);
            let stage = stage_floats(state.index());
            let upper = four_at(stage, 2 * pair * COLS + group * 4);
            let lower = four_at(stage, (2 * pair + 1) * COLS + group * 4);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..4 {
                acc[j] += upper[j] + lower[j];
            }
        }
        let total = segment_pick(acc, 4, pair);
        *out.add(block as usize * COLS + group * 4 + pair) = total;
    }
}
