//! Style `pair`: tile loops unrolled by hand (by two or four) with a remainder step.
//!
//! Both roles count the block's tiles first (`owned`), then run the main loop in groups of two
//! (or four) tiles and finish the odd ones in a remainder, as a performance engineer unrolls a
//! loop to keep several copies or several accumulators in flight. One kernel's consumers also
//! hold two stages at once (wait for both, read both, release both). The per-tile steps are
//! small helpers (`push_tile`, `pull_column`); the group structure lives in the kernels.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const BLOCK: u32 = 64;
const SMEM: u32 = 8192;

/// Number of tiles `t < tiles` with `t % g == b`.
#[inline(always)]
fn owned(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

/// The block's `k`-th tile in global memory.
#[inline(always)]
unsafe fn source(input: *const f32, b: u32, g: u32, k: u32) -> *const f32 {
    input.add((b + k * g) as usize * TILE_FLOATS)
}

#[inline(always)]
fn column(tile: *const f32, c: usize) -> f32 {
    let mut sum = 0.0f32;
    for r in 0..ROWS {
        // SAFETY: inside the tile.
        sum += unsafe { *tile.add(r * COLUMNS + c) };
    }
    sum
}

/// One producer step: acquire, announce, copy, advance.
#[inline(always)]
unsafe fn push_tile<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, ring: u32, from: *const f32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(
        ring + state.index() * TILE_BYTES,
        from as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
    state.advance();
}

/// One consumer step: wait, sum column `c`, release, advance.
#[inline(always)]
unsafe fn pull_column<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, ring: *const f32, c: usize) -> f32 {
    pipe.consumer_wait(state);
    let sum = column(ring.add(state.index() as usize * TILE_FLOATS), c);
    pipe.consumer_release(state);
    state.advance();
    sum
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Four stages, barriers at 0, ring at 1024; producer thread 32, consumers warp 0. Both roles
/// step two tiles per pass, then one more if the count is odd; two accumulators.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_pair_unrolled_both(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);

    if tid == 32 {
        let ring = window + RING;
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut k = 0;
        while k + 2 <= n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
            push_tile(&pipe, &mut state, ring, source(input, b, g, k + 1));
            k += 2;
        }
        if k < n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let (mut even, mut odd) = (0.0f32, 0.0f32);
        let mut k = 0;
        while k + 2 <= n {
            even += pull_column(&pipe, &mut state, ring, c);
            odd += pull_column(&pipe, &mut state, ring, c);
            k += 2;
        }
        if k < n {
            even += pull_column(&pipe, &mut state, ring, c);
        }
        *out.add(b as usize * COLUMNS + c) = even + odd;
    }
}

/// Four stages, ring at 0..4096, barriers at 4096; producer thread 0 (a plain loop), consumers
/// warp 1 holding two stages per pass: wait for both, read both, release both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_pair_hold_two(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 0;
    const BARS: u32 = 4096;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);

    if tid == 0 {
        let ring = window + RING;
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k + 2 <= n {
            pipe.consumer_wait(&state);
            let first = state;
            state.advance();
            pipe.consumer_wait(&state);
            let a = column(ring.add(first.index() as usize * TILE_FLOATS), c);
            let z = column(ring.add(state.index() as usize * TILE_FLOATS), c);
            pipe.consumer_release(&first);
            pipe.consumer_release(&state);
            state.advance();
            acc += a + z;
            k += 2;
        }
        if k < n {
            acc += pull_column(&pipe, &mut state, ring, c);
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// Three stages, ring at 0..3072, barriers at 3072; producer thread 32, consumers warp 0. The odd
/// tile is peeled in front, then whole pairs follow.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_pair_odd_first(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING: u32 = 0;
    const BARS: u32 = 3072;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);

    if tid == 32 {
        let ring = window + RING;
        let mut state = PipelineState::<STAGES>::producer_start();
        if n % 2 == 1 {
            push_tile(&pipe, &mut state, ring, source(input, b, g, 0));
        }
        let mut k = n % 2;
        while k < n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
            push_tile(&pipe, &mut state, ring, source(input, b, g, k + 1));
            k += 2;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let (mut x, mut y) = (0.0f32, 0.0f32);
        if n % 2 == 1 {
            x += pull_column(&pipe, &mut state, ring, c);
        }
        let mut k = n % 2;
        while k < n {
            x += pull_column(&pipe, &mut state, ring, c);
            y += pull_column(&pipe, &mut state, ring, c);
            k += 2;
        }
        *out.add(b as usize * COLUMNS + c) = x + y;
    }
}

/// Six stages, ring at 0..6144, barriers at 6144; producer thread 63, consumers warp 0. Groups
/// of four tiles (a constant inner loop, four accumulators), then the rest one at a time.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_pair_unroll_four(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 6;
    const RING: u32 = 0;
    const BARS: u32 = 6144;
    const GROUP: u32 = 4;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);

    if tid == 63 {
        let ring = window + RING;
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut k = 0;
        while k + GROUP <= n {
            for j in 0..GROUP {
                push_tile(&pipe, &mut state, ring, source(input, b, g, k + j));
            }
            k += GROUP;
        }
        while k < n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
            k += 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = [0.0f32; GROUP as usize];
        let mut k = 0;
        while k + GROUP <= n {
            for j in 0..GROUP as usize {
                acc[j] += pull_column(&pipe, &mut state, ring, c);
            }
            k += GROUP;
        }
        while k < n {
            acc[0] += pull_column(&pipe, &mut state, ring, c);
            k += 1;
        }
        *out.add(b as usize * COLUMNS + c) = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// BROKEN: the unrolled producer announces the pair's bytes once, `2 * TILE_BYTES` on the first
/// stage's *full* barrier, and issues the second copy without an `expect_tx` of its own: the
/// first barrier waits for 1024 bytes that land on the second, which nobody arrived on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_pair_bad_one_expect_per_pair(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);

    if tid == 32 {
        let ring = window + RING;
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut k = 0;
        while k + 2 <= n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * TILE_BYTES);
            bulk_copy_global_to_shared(
                ring + state.index() * TILE_BYTES,
                source(input, b, g, k) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            pipe.producer_acquire(&state);
            bulk_copy_global_to_shared(
                ring + state.index() * TILE_BYTES,
                source(input, b, g, k + 1) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            k += 2;
        }
        if k < n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let (mut even, mut odd) = (0.0f32, 0.0f32);
        let mut k = 0;
        while k + 2 <= n {
            even += pull_column(&pipe, &mut state, ring, c);
            odd += pull_column(&pipe, &mut state, ring, c);
            k += 2;
        }
        if k < n {
            even += pull_column(&pipe, &mut state, ring, c);
        }
        *out.add(b as usize * COLUMNS + c) = even + odd;
    }
}

/// BROKEN: the two-stage consumer releases both stages right after reading the first, then
/// reads the second: the second stage's column is summed after its release, while the producer
/// may be copying the next tile into it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_pair_bad_release_second_early(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 0;
    const BARS: u32 = 4096;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);

    if tid == 0 {
        let ring = window + RING;
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k + 2 <= n {
            pipe.consumer_wait(&state);
            let first = state;
            state.advance();
            pipe.consumer_wait(&state);
            let a = column(ring.add(first.index() as usize * TILE_FLOATS), c);
            pipe.consumer_release(&first);
            pipe.consumer_release(&state);
            let z = column(ring.add(state.index() as usize * TILE_FLOATS), c);
            state.advance();
            acc += a + z;
            k += 2;
        }
        if k < n {
            acc += pull_column(&pipe, &mut state, ring, c);
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: the unrolled producer computes the pair's destination once, before the first
/// acquire, and uses it for both copies: the second tile overwrites the first in its stage,
/// while the second stage's *full* barrier completes over stale data.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_pair_bad_hoisted_destination(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);

    if tid == 32 {
        let ring = window + RING;
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut k = 0;
        while k + 2 <= n {
            let destination = ring + state.index() * TILE_BYTES;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                destination,
                source(input, b, g, k) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                destination,
                source(input, b, g, k + 1) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            k += 2;
        }
        if k < n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let (mut even, mut odd) = (0.0f32, 0.0f32);
        let mut k = 0;
        while k + 2 <= n {
            even += pull_column(&pipe, &mut state, ring, c);
            odd += pull_column(&pipe, &mut state, ring, c);
            k += 2;
        }
        if k < n {
            even += pull_column(&pipe, &mut state, ring, c);
        }
        *out.add(b as usize * COLUMNS + c) = even + odd;
    }
}

/// BROKEN: the consumers' pair loop tests `k + 2 < n` where the producer's tests `k + 2 <= n`:
/// with an even count the consumers run one pair fewer and take one remainder tile, so they
/// consume one tile less than is copied and the producer's tail waits for its release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_pair_bad_consumer_pair_bound(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles, b, g);

    if tid == 32 {
        let ring = window + RING;
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut k = 0;
        while k + 2 <= n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
            push_tile(&pipe, &mut state, ring, source(input, b, g, k + 1));
            k += 2;
        }
        if k < n {
            push_tile(&pipe, &mut state, ring, source(input, b, g, k));
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let (mut even, mut odd) = (0.0f32, 0.0f32);
        let mut k = 0;
        while k + 2 < n {
            even += pull_column(&pipe, &mut state, ring, c);
            odd += pull_column(&pipe, &mut state, ring, c);
            k += 2;
        }
        if k < n {
            even += pull_column(&pipe, &mut state, ring, c);
        }
        *out.add(b as usize * COLUMNS + c) = even + odd;
    }
}
