//! Round 35, module `assoc`: one generic kernel body over a trait of associated constants. A
//! `Plan` says how many tiles a stage holds, which threads consume and how many columns each
//! sums, which thread produces, where the ring lies and how big its stages are (defaults
//! computed from the other constants, overridden where a plan needs to), plus a default method
//! for the stages the consumers wait for. The stage count is a const parameter of `run` (an
//! associated constant cannot size a `Pipeline<STAGES>` without `generic_const_exprs`). Each
//! entry is `run::<SomePlan, STAGES>(…)`.
//!
//! The producer walks the block's tiles in stages of up to `TILES_PER_STAGE` tiles (one bulk
//! copy each, one `expect_tx` for the stage's tiles); the consumers count the stages with
//! `P::stages_for(mine)`. Launch: 64 threads, 8192 bytes of dynamic shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;

/// How a kernel splits the work; the constants are per plan, the body is `run`'s.
trait Plan {
    /// Tiles one stage holds (one bulk copy per tile).
    const TILES_PER_STAGE: u32;
    /// Columns each consumer thread sums: 1 (32 consumers) or 2 (16 consumers).
    const COLUMNS_PER_CONSUMER: u32;
    /// The first consumer thread; the consumers are the next `COLS / COLUMNS_PER_CONSUMER`.
    const FIRST_CONSUMER: u32;
    /// The thread that initialises the barriers and issues the copies.
    const PRODUCER: u32;
    /// Releasing threads announced to `Pipeline::init`.
    const CONSUMERS: u32 = COLS as u32 / Self::COLUMNS_PER_CONSUMER;
    /// Bytes from one stage to the next.
    const STAGE_BYTES: u32 = Self::TILES_PER_STAGE * TILE_BYTES;
    /// Window byte of the barriers (16 per stage).
    const BARRIERS: u32 = 0;
    /// Window byte of stage 0.
    const RING: u32 = 1024;

    /// Stages the consumers take for `mine` tiles: the last one may be partly filled.
    fn stages_for(mine: u32) -> u32 {
        mine.div_ceil(Self::TILES_PER_STAGE)
    }
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

/// The kernel body every entry of this module runs, with `STAGES` stages laid out by `P`.
#[inline(always)]
unsafe fn run<P: Plan, const STAGES: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == P::PRODUCER {
        Pipeline::<STAGES>::init(window + P::BARRIERS, P::CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + P::BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let consumer_threads = COLS as u32 / P::COLUMNS_PER_CONSUMER;
    if tid == P::PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut first = block;
        while first < tiles {
            let mut count = 0;
            while count < P::TILES_PER_STAGE && first + count * grid < tiles {
                count += 1;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, count * TILE_BYTES);
            let stage = window + P::RING + state.index() * P::STAGE_BYTES;
            for j in 0..count {
                let tile = first + j * grid;
                bulk_copy_global_to_shared(
                    stage + j * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            first += P::TILES_PER_STAGE * grid;
        }
        pipe.producer_tail(state);
    } else if tid >= P::FIRST_CONSUMER && tid - P::FIRST_CONSUMER < consumer_threads {
        let lane = (tid - P::FIRST_CONSUMER) as usize;
        let mine = tiles_of_block(block, grid, tiles);
        let ring = dynamic_shared_base::<f32>().add(P::RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut sums = [0.0f32; 2];
        for s in 0..P::stages_for(mine) {
            let count = u32::min(P::TILES_PER_STAGE, mine - s * P::TILES_PER_STAGE) as usize;
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * P::STAGE_BYTES) as usize / 4);
            for j in 0..count {
                for (q, sum) in sums
                    .iter_mut()
                    .enumerate()
                    .take(P::COLUMNS_PER_CONSUMER as usize)
                {
                    let column = lane + q * consumer_threads as usize;
                    for row in 0..ROWS {
                        *sum += *stage.add(j * TILE_FLOATS + row * COLS + column);
                    }
                }
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        for (q, sum) in sums
            .iter()
            .enumerate()
            .take(P::COLUMNS_PER_CONSUMER as usize)
        {
            *out.add(block as usize * COLS + lane + q * consumer_threads as usize) = *sum;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Plans of the correct kernels
// ---------------------------------------------------------------------------------------------

/// One tile per stage, warp 0 consumes, thread 32 produces.
struct SingleTiles;
impl Plan for SingleTiles {
    const TILES_PER_STAGE: u32 = 1;
    const COLUMNS_PER_CONSUMER: u32 = 1;
    const FIRST_CONSUMER: u32 = 0;
    const PRODUCER: u32 = 32;
}

/// Two tiles per stage, warp 1 consumes, thread 0 produces.
struct PairedTiles;
impl Plan for PairedTiles {
    const TILES_PER_STAGE: u32 = 2;
    const COLUMNS_PER_CONSUMER: u32 = 1;
    const FIRST_CONSUMER: u32 = 32;
    const PRODUCER: u32 = 0;
}

/// Three tiles per stage (the block's last stage holds two at 64 tiles), the barriers after the
/// ring; warp 0 consumes, the last thread produces.
struct TripledTiles;
impl Plan for TripledTiles {
    const TILES_PER_STAGE: u32 = 3;
    const COLUMNS_PER_CONSUMER: u32 = 1;
    const FIRST_CONSUMER: u32 = 0;
    const PRODUCER: u32 = 63;
    const RING: u32 = 0;
    const BARRIERS: u32 = 7168;
}

/// One tile per stage, sixteen consumers of two columns each (`lane` and `lane + 16`).
struct HalfWarp;
impl Plan for HalfWarp {
    const TILES_PER_STAGE: u32 = 1;
    const COLUMNS_PER_CONSUMER: u32 = 2;
    const FIRST_CONSUMER: u32 = 0;
    const PRODUCER: u32 = 32;
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// `SingleTiles` with four stages (ring at bytes 1024..5120).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_assoc_single_four_stages(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    run::<SingleTiles, 4>(input, tiles, out);
}

/// `PairedTiles` with three stages of 2048 bytes (ring at bytes 1024..7168).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_assoc_paired_three_stages(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    run::<PairedTiles, 3>(input, tiles, out);
}

/// `TripledTiles` with two stages of 3072 bytes (ring at 0..6144, barriers at 7168).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_assoc_tripled_two_stages(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    run::<TripledTiles, 2>(input, tiles, out);
}

/// `HalfWarp` with a single stage: the producer waits for every release before the next copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_assoc_half_warp_one_stage(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    run::<HalfWarp, 1>(input, tiles, out);
}

// ---------------------------------------------------------------------------------------------
// Plans of the broken kernels, and the kernels
// ---------------------------------------------------------------------------------------------

/// `HalfWarp` written out again, its consumer count copied from a one-column plan: sixteen
/// threads consume, but `init` is told 32.
struct HalfWarpStaleCount;
impl Plan for HalfWarpStaleCount {
    const TILES_PER_STAGE: u32 = 1;
    const COLUMNS_PER_CONSUMER: u32 = 2;
    const FIRST_CONSUMER: u32 = 0;
    const PRODUCER: u32 = 32;
    const CONSUMERS: u32 = 32;
}

/// Broken: sixteen consumers release each stage, the empty barriers wait for 32 arrivals: the
/// producer's second lap (and its tail) waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_assoc_bad_stale_consumer_count(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    run::<HalfWarpStaleCount, 2>(input, tiles, out);
}

/// `PairedTiles` with its stage size overridden in floats instead of bytes (512 for a
/// 2048-byte stage).
struct PairedTilesStrideInFloats;
impl Plan for PairedTilesStrideInFloats {
    const TILES_PER_STAGE: u32 = 2;
    const COLUMNS_PER_CONSUMER: u32 = 1;
    const FIRST_CONSUMER: u32 = 32;
    const PRODUCER: u32 = 0;
    const STAGE_BYTES: u32 = Self::TILES_PER_STAGE * TILE_FLOATS as u32;
}

/// Broken: stages 512 bytes apart, each filled with 2048 bytes: every copy overwrites the next
/// stages, which other tiles are held in, and each stage the consumers read holds pieces of
/// several tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_assoc_bad_stage_stride_in_floats(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    run::<PairedTilesStrideInFloats, 3>(input, tiles, out);
}

/// Broken: `PairedTiles` with four stages: 4 × 2048 bytes from window byte 1024 end at 9216,
/// past the 8192 bytes the launch provides; the copies into stage 3 land outside the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_assoc_bad_paired_four_stages(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    run::<PairedTiles, 4>(input, tiles, out);
}

/// `TripledTiles` whose consumers count only full stages (`stages_for` overridden with a
/// truncating division, "every stage holds three tiles").
struct TripledTilesFullStagesOnly;
impl Plan for TripledTilesFullStagesOnly {
    const TILES_PER_STAGE: u32 = 3;
    const COLUMNS_PER_CONSUMER: u32 = 1;
    const FIRST_CONSUMER: u32 = 0;
    const PRODUCER: u32 = 63;
    const RING: u32 = 0;
    const BARRIERS: u32 = 7168;

    fn stages_for(mine: u32) -> u32 {
        mine / Self::TILES_PER_STAGE
    }
}

/// Broken: eight tiles a block make three stages for the producer (3 + 3 + 2) but two for the
/// consumers: the third stage is never released and the producer's tail waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r35_assoc_bad_partial_stage_dropped(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    run::<TripledTilesFullStagesOnly, 2>(input, tiles, out);
}
