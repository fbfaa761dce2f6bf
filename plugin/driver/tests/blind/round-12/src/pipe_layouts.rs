//! The mbarrier pipeline in other layouts and reading styles: slices over a stage, two tiles
//! per stage, warp shuffles in the consumers, two rings side by side, signed offsets, fewer
//! consumer threads.

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x,
};

pub(crate) const TILE_FLOATS: usize = 256;
pub(crate) const TILE_BYTES: u32 = 1024;
pub(crate) const COLUMNS: usize = 32;
pub(crate) const ROWS: usize = 8;

#[inline(always)]
pub(crate) fn tile_source(input: *const f32, t: u32) -> *const u8 {
    input.wrapping_add(t as usize * TILE_FLOATS) as *const u8
}

/// Four stages at the start of the window, barriers after them; the consumers sum a slice view
/// of the stage with `skip` and `step_by`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_slice_iter_sum(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring: *const f32 = dynamic_shared_base();
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage =
                unsafe { slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS) };
            acc += stage.iter().skip(lane).step_by(COLUMNS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + lane) = acc };
    }
}

/// Two tiles of the block's stream per stage (2 KiB stages); the last stage of an odd count
/// holds one tile and announces one tile's bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_two_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING: u32 = 1024;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe =
        if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            let dst = window + RING + state.index() * STAGE_BYTES;
            let second = t + step;
            if second < tiles {
                pipe.producer_expect_tx(&state, STAGE_BYTES);
                bulk_copy_global_to_shared(
                    dst,
                    tile_source(input, t),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                bulk_copy_global_to_shared(
                    dst + TILE_BYTES,
                    tile_source(input, second),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
            } else {
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    dst,
                    tile_source(input, t),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            t += 2 * step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * 2 * TILE_FLOATS) };
            let held = if t + step < tiles { 2 } else { 1 };
            for tile in 0..held {
                for row in 0..ROWS {
                    acc += unsafe { *stage.add(tile * TILE_FLOATS + lane + COLUMNS * row) };
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            t += 2 * step;
        }
        unsafe { *out.add(first as usize * COLUMNS + lane) = acc };
    }
}

/// The pair layout again: two copies per stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_pair_copies(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING: u32 = 1024;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe =
        if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    let pairs = if first < tiles { (tiles - first).div_ceil(step) / 2 } else { 0 };
    // Odd leftovers are summed straight from global memory by the consumers.
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for p in 0..pairs {
            let t = first + 2 * p * step;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * STAGE_BYTES;
            bulk_copy_global_to_shared(dst, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            bulk_copy_global_to_shared(
                dst + TILE_BYTES,
                tile_source(input, t + step),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..pairs {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * 2 * TILE_FLOATS) };
            for i in (lane..2 * TILE_FLOATS).step_by(COLUMNS) {
                acc += unsafe { *stage.add(i) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        let mut t = first + 2 * pairs * step;
        while t < tiles {
            for row in 0..ROWS {
                acc += unsafe { *input.add(t as usize * TILE_FLOATS + lane + COLUMNS * row) };
            }
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + lane) = acc };
    }
}

/// Consumers read a stage across lanes and sum each column with `segment_sum`: in read `i`,
/// the 8-lane segment `lane / 8` holds the eight rows of column `4 * i + lane / 8`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_shuffle_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const RING: u32 = 2048;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe =
        if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let lane = tid as usize;
        let row = lane % 8;
        let group = lane / 8;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for i in 0..8 {
                let column = 4 * i + group;
                let value = unsafe { *stage.add(column + COLUMNS * row) };
                let total = segment_sum(value, 8);
                if i == row {
                    acc += total;
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        let column = 4 * row + group;
        unsafe { *out.add(first as usize * COLUMNS + column) = acc };
    }
}

/// Two pipelines of two stages each: ring A takes the block's even tiles, ring B the odd ones.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_two_rings(input: *const f32, tiles: u32, out: *mut f32) {
    const BARS_A: u32 = 0;
    const BARS_B: u32 = 64;
    const RING_A: u32 = 1024;
    const RING_B: u32 = 3072;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring_a = if tid == 0 {
        Pipeline::<2>::init(window + BARS_A, 32)
    } else {
        Pipeline::<2>::attach(window + BARS_A)
    };
    let ring_b = if tid == 0 {
        Pipeline::<2>::init(window + BARS_B, 32)
    } else {
        Pipeline::<2>::attach(window + BARS_B)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state_a = PipelineState::<2>::producer_start();
        let mut state_b = PipelineState::<2>::producer_start();
        let mut t = first;
        while t < tiles {
            ring_a.producer_acquire(&state_a);
            ring_a.producer_expect_tx(&state_a, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_A + state_a.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                ring_a.producer_barrier(&state_a),
            );
            state_a.advance();
            let u = t + step;
            if u < tiles {
                ring_b.producer_acquire(&state_b);
                ring_b.producer_expect_tx(&state_b, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_B + state_b.index() * TILE_BYTES,
                    tile_source(input, u),
                    TILE_BYTES,
                    ring_b.producer_barrier(&state_b),
                );
                state_b.advance();
            }
            t += 2 * step;
        }
        ring_a.producer_tail(state_a);
        ring_b.producer_tail(state_b);
    } else if tid < 32 {
        let base: *const f32 = dynamic_shared_base();
        let stages_a = unsafe { base.add(RING_A as usize / 4) };
        let stages_b = unsafe { base.add(RING_B as usize / 4) };
        let lane = tid as usize;
        let mut state_a = PipelineState::<2>::new();
        let mut state_b = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            ring_a.consumer_wait(&state_a);
            let stage = unsafe { stages_a.add(state_a.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(lane + COLUMNS * row) };
            }
            ring_a.consumer_release(&state_a);
            state_a.advance();
            if t + step < tiles {
                ring_b.consumer_wait(&state_b);
                let stage = unsafe { stages_b.add(state_b.index() as usize * TILE_FLOATS) };
                for row in 0..ROWS {
                    acc += unsafe { *stage.add(lane + COLUMNS * row) };
                }
                ring_b.consumer_release(&state_b);
                state_b.advance();
            }
            t += 2 * step;
        }
        unsafe { *out.add(first as usize * COLUMNS + lane) = acc };
    }
}

/// The two-ring layout, the consumers' B half copied from the A half.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_two_rings_copied_half(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const BARS_A: u32 = 0;
    const BARS_B: u32 = 64;
    const RING_A: u32 = 1024;
    const RING_B: u32 = 3072;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring_a = if tid == 0 {
        Pipeline::<2>::init(window + BARS_A, 32)
    } else {
        Pipeline::<2>::attach(window + BARS_A)
    };
    let ring_b = if tid == 0 {
        Pipeline::<2>::init(window + BARS_B, 32)
    } else {
        Pipeline::<2>::attach(window + BARS_B)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state_a = PipelineState::<2>::producer_start();
        let mut state_b = PipelineState::<2>::producer_start();
        let mut t = first;
        while t < tiles {
            ring_a.producer_acquire(&state_a);
            ring_a.producer_expect_tx(&state_a, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_A + state_a.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                ring_a.producer_barrier(&state_a),
            );
            state_a.advance();
            let u = t + step;
            if u < tiles {
                ring_b.producer_acquire(&state_b);
                ring_b.producer_expect_tx(&state_b, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_B + state_b.index() * TILE_BYTES,
                    tile_source(input, u),
                    TILE_BYTES,
                    ring_b.producer_barrier(&state_b),
                );
                state_b.advance();
            }
            t += 2 * step;
        }
        ring_a.producer_tail(state_a);
        ring_b.producer_tail(state_b);
    } else if tid < 32 {
        let base: *const f32 = dynamic_shared_base();
        let stages_a = unsafe { base.add(RING_A as usize / 4) };
        let stages_b = unsafe { base.add(RING_B as usize / 4) };
        let lane = tid as usize;
        let mut state_a = PipelineState::<2>::new();
        let mut state_b = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            ring_a.consumer_wait(&state_a);
            let stage = unsafe { stages_a.add(state_a.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(lane + COLUMNS * row) };
            }
            ring_a.consumer_release(&state_a);
            state_a.advance();
            if t + step < tiles {
                ring_b.consumer_wait(&state_b);
                let stage = unsafe { stages_b.add(state_b.index() as usize * TILE_FLOATS) };
                for row in 0..ROWS {
                    acc += unsafe { *stage.add(lane + COLUMNS * row) };
                }
                ring_a.consumer_release(&state_b);
                state_b.advance();
            }
            t += 2 * step;
        }
        unsafe { *out.add(first as usize * COLUMNS + lane) = acc };
    }
}

/// Signed arithmetic for the consumers' offsets, rows walked downwards. Five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_signed_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe =
        if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first as i32;
        while t < tiles as i32 {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t as u32),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step as i32;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let lane = tid as i32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first as i32;
        while t < tiles as i32 {
            pipe.consumer_wait(&state);
            let at = state.index() as i32 * TILE_FLOATS as i32 + lane;
            let mut row = ROWS as i32 - 1;
            while row >= 0 {
                acc += unsafe { *ring.offset((at + COLUMNS as i32 * row) as isize) };
                row -= 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step as i32;
        }
        unsafe { *out.offset((first as i32 * COLUMNS as i32 + lane) as isize) = acc };
    }
}

/// Sixteen consumer threads, each summing two columns; the pipeline is initialised for them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_sixteen_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    const READERS: u32 = 16;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 48 {
        Pipeline::<STAGES>::init(window, READERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 48 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < READERS {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut low = 0.0f32;
        let mut high = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                low += unsafe { *stage.add(lane + COLUMNS * row) };
                high += unsafe { *stage.add(lane + 16 + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        let dst = unsafe { out.add(first as usize * COLUMNS + lane) };
        unsafe {
            *dst = low;
            *dst.add(16) = high;
        }
    }
}
