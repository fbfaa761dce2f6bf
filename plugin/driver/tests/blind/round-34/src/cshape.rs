//! Tile shapes as const generics: one kernel body generic over the ring depth, the rows each
//! bulk copy moves and the row pitch in shared memory; the entries are instantiations.
//!
//! A tile is `ROWS × COLS` floats in global memory (8 × 32); in shared memory row `r` of a stage
//! starts `r * PITCH` floats in. Thread 32 copies; threads 0..32 each sum one column.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

/// The shape of a tile and of its stage.
struct Shape<const ROWS: usize, const COLS: usize, const PITCH: usize>;

impl<const ROWS: usize, const COLS: usize, const PITCH: usize> Shape<ROWS, COLS, PITCH> {
    const FLOATS: usize = ROWS * COLS;
    const ROW_BYTES: u32 = (COLS * 4) as u32;
    const TILE_BYTES: u32 = (ROWS * COLS * 4) as u32;
    const STAGE_FLOATS: usize = ROWS * PITCH;
    const STAGE_BYTES: u32 = (ROWS * PITCH * 4) as u32;
}

type Dense = Shape<8, 32, 32>;

#[inline(always)]
fn owned(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

/// Producer side of a ring of `STAGES` dense stages, each tile moved in copies of `RPC` rows.
#[inline(always)]
fn produce<const STAGES: u32, const RPC: usize>(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, n: u32, b: u32, g: u32) {
    let copies = 8 / RPC;
    let copy_bytes = RPC as u32 * Dense::ROW_BYTES;
    let mut state = PipelineState::<STAGES>::producer_start();
    for k in 0..n {
        let tile = input.wrapping_add(((b + k * g) as usize) * Dense::FLOATS);
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, Dense::TILE_BYTES);
        let dst = window + state.index() * Dense::STAGE_BYTES;
        for j in 0..copies {
            bulk_copy_global_to_shared(
                dst + j as u32 * copy_bytes,
                tile.wrapping_add(j * RPC * 32) as *const u8,
                copy_bytes,
                pipe.producer_barrier(&state),
            );
        }
        state.advance();
    }
    pipe.producer_tail(state);
}

/// Consumer side: column `c` of every tile, summed.
#[inline(always)]
unsafe fn consume<const STAGES: u32>(pipe: &Pipeline<STAGES>, ring: *const f32, n: u32, c: usize) -> f32 {
    let mut state = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    for _ in 0..n {
        pipe.consumer_wait(&state);
        let stage = ring.add(state.index() as usize * Dense::STAGE_FLOATS);
        for r in 0..8 {
            acc += *stage.add(r * 32 + c);
        }
        pipe.consumer_release(&state);
        state.advance();
    }
    acc
}

/// The whole kernel for a ring of `STAGES` dense stages with `RPC` rows per copy; the barriers
/// follow the ring.
#[inline(always)]
unsafe fn run<const STAGES: u32, const RPC: usize>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * Dense::STAGE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, CONSUMERS) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        produce::<STAGES, RPC>(&pipe, window, input, n, b, g);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        *out.add(b as usize * 32 + c) = consume::<STAGES>(&pipe, dynamic_shared_base::<f32>(), n, c);
    }
}

/// A ring of padded stages: row `r` at `r * PITCH` floats, one copy per row.
#[inline(always)]
unsafe fn run_padded<const STAGES: u32, const PITCH: usize>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    type Padded<const P: usize> = Shape<8, 32, P>;
    let window = dynamic_shared_window_address();
    let stage_bytes = Padded::<PITCH>::STAGE_BYTES;
    let bars = window + STAGES * stage_bytes;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, CONSUMERS) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            let tile = input.wrapping_add(((b + k * g) as usize) * Padded::<PITCH>::FLOATS);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, Padded::<PITCH>::TILE_BYTES);
            let dst = window + state.index() * stage_bytes;
            for r in 0..8 {
                bulk_copy_global_to_shared(
                    dst + (r * PITCH * 4) as u32,
                    tile.wrapping_add(r * 32) as *const u8,
                    Padded::<PITCH>::ROW_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * Padded::<PITCH>::STAGE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * PITCH + c);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_cshape_two_deep_whole(input: *const f32, tiles: u32, out: *mut f32) {
    run::<2, 8>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_cshape_six_deep_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    run::<6, 2>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_cshape_padded_pitch36(input: *const f32, tiles: u32, out: *mut f32) {
    run_padded::<4, 36>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_cshape_bad_three_row_copies(input: *const f32, tiles: u32, out: *mut f32) {
    run::<4, 3>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_cshape_bad_pitch33(input: *const f32, tiles: u32, out: *mut f32) {
    run_padded::<4, 33>(input, tiles, out);
}

/// A ring seen at two depths: `PD` by the producer, `CD` by the consumers.
#[inline(always)]
unsafe fn run_split<const PD: u32, const CD: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + PD * Dense::STAGE_BYTES;
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == 0 {
        Pipeline::<PD>::init(bars, CONSUMERS);
    }
    barrier();
    if tid == PRODUCER {
        let pipe = Pipeline::<PD>::attach(bars);
        produce::<PD, 8>(&pipe, window, input, n, b, g);
    } else if tid < CONSUMERS {
        let pipe = Pipeline::<CD>::attach(bars);
        let c = tid as usize;
        *out.add(b as usize * 32 + c) = consume::<CD>(&pipe, dynamic_shared_base::<f32>(), n, c);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_cshape_split_depth_same(input: *const f32, tiles: u32, out: *mut f32) {
    run_split::<4, 4>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_cshape_bad_split_depth(input: *const f32, tiles: u32, out: *mut f32) {
    run_split::<4, 3>(input, tiles, out);
}

/// A fresh state at the start of the ring, for either role.
#[inline(always)]
fn ring_state<const STAGES: u32>() -> PipelineState<STAGES> {
    PipelineState::<STAGES>::producer_start()
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_cshape_bad_shared_start(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * Dense::STAGE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, CONSUMERS) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if tid == PRODUCER {
        let mut state = ring_state::<STAGES>();
        for k in 0..n {
            let tile = input.wrapping_add(((b + k * g) as usize) * Dense::FLOATS);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, Dense::TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * Dense::STAGE_BYTES,
                tile as *const u8,
                Dense::TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut state = ring_state::<STAGES>();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * Dense::STAGE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}
