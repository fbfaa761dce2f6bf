//! Pipeline kernels that split the block differently: every thread consuming half a column
//! with thread 0 producing in between, a producer that prefetches a fixed distance ahead,
//! consumers picked by parity or by a range of thread indices.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const BLOCK: u32 = 64;

#[inline(always)]
unsafe fn produce_one<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, window: u32, input: *const f32, t: u32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(
        window + state.index() * TILE_BYTES,
        input.add((t * TILE_FLOATS) as usize) as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(state),
    );
    state.advance();
}

/// Every thread consumes four rows of its column (warp 0 rows 0-3, warp 1 rows 4-7); thread 0
/// also produces, one tile ahead of its own reads; the halves meet in a scratch area after the
/// barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_role_interleaved_all_consume(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const BARS: u32 = S * TILE_BYTES;
    const SCRATCH: u32 = 4352;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let scratch = base.add((SCRATCH / 4) as usize);
    if tid == 0 {
        Pipeline::<S>::init(window + BARS, BLOCK);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARS);
    let first = block_idx_x();
    let step = grid_dim_x();
    let col = tid % COLS;
    let half = tid / COLS;

    let mut produced = PipelineState::<S>::producer_start();
    let mut consumed = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        if tid == 0 {
            produce_one(&pipe, &mut produced, window, input, t);
        }
        pipe.consumer_wait(&consumed);
        let stage = base.add((consumed.index() * TILE_FLOATS) as usize);
        for r in 0..ROWS / 2 {
            acc += *stage.add(((half * 4 + r) * COLS + col) as usize);
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        t += step;
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    *scratch.add(tid as usize) = acc;
    barrier();
    if tid < COLS {
        *out.add((first * COLS + tid) as usize) = *scratch.add(tid as usize) + *scratch.add((tid + COLS) as usize);
    }
}

/// Warp 0 consumes; its thread 0 also produces, keeping `S - 1` tiles in flight ahead of its
/// own reads (a prologue, then one tile per iteration).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_role_prefetch_distance(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    let n = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };
    if tid < COLS {
        let mut produced = PipelineState::<S>::producer_start();
        if tid == 0 {
            let ahead = if n < S - 1 { n } else { S - 1 };
            for k in 0..ahead {
                produce_one(&pipe, &mut produced, window, input, first + k * step);
            }
        }
        let mut consumed = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for k in 0..n {
            if tid == 0 && k + S - 1 < n {
                produce_one(&pipe, &mut produced, window, input, first + (k + S - 1) * step);
            }
            pipe.consumer_wait(&consumed);
            let stage = ring.add((consumed.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&consumed);
            consumed.advance();
        }
        if tid == 0 {
            pipe.producer_tail(produced);
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Even threads consume (column `tid / 2`), thread 1 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_role_even_threads(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, BLOCK / 2);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 1 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            produce_one(&pipe, &mut state, window, input, t);
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid % 2 == 0 {
        let col = tid / 2;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + col) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + col) as usize) = acc;
    }
}

/// Consumers are threads 16..48 (`Range::contains`), the producer is thread 63.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_role_range_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            produce_one(&pipe, &mut state, window, input, t);
            t += step;
        }
        pipe.producer_tail(state);
    } else if (16..48).contains(&tid) {
        let col = tid - 16;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + col) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + col) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// BROKEN: thread 0 prefetches a whole ring (`S` tiles) ahead of its own reads: its copy of
/// tile `S` waits for stage 0 to be released, which needs thread 0's own release of tile 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_role_bad_prefetch_whole_ring(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    let n = if tiles > first { (tiles - first).div_ceil(step) } else { 0 };
    if tid < COLS {
        let mut produced = PipelineState::<S>::producer_start();
        if tid == 0 {
            let ahead = if n < S { n } else { S };
            for k in 0..ahead {
                produce_one(&pipe, &mut produced, window, input, first + k * step);
            }
        }
        let mut consumed = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for k in 0..n {
            if tid == 0 && k + S < n {
                produce_one(&pipe, &mut produced, window, input, first + (k + S) * step);
            }
            pipe.consumer_wait(&consumed);
            let stage = ring.add((consumed.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&consumed);
            consumed.advance();
        }
        if tid == 0 {
            pipe.producer_tail(produced);
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: as `r22_role_interleaved_all_consume` with thread 32 producing, but warp 0 reads
/// warp 1's halves from the scratch area without a barrier after warp 1's stores (warp 1 is
/// still in the producer's tail when warp 0 gets there).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_role_bad_scratch_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const BARS: u32 = S * TILE_BYTES;
    const SCRATCH: u32 = 6144;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let scratch = base.add((SCRATCH / 4) as usize);
    if tid == 0 {
        Pipeline::<S>::init(window + BARS, BLOCK);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARS);
    let first = block_idx_x();
    let step = grid_dim_x();
    let col = tid % COLS;
    let half = tid / COLS;

    let mut produced = PipelineState::<S>::producer_start();
    let mut consumed = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        if tid == 32 {
            produce_one(&pipe, &mut produced, window, input, t);
        }
        pipe.consumer_wait(&consumed);
        let stage = base.add((consumed.index() * TILE_FLOATS) as usize);
        for r in 0..ROWS / 2 {
            acc += *stage.add(((half * 4 + r) * COLS + col) as usize);
        }
        pipe.consumer_release(&consumed);
        consumed.advance();
        t += step;
    }
    if tid == 32 {
        pipe.producer_tail(produced);
    }
    if half == 1 {
        *scratch.add(col as usize) = acc;
    } else {
        *out.add((first * COLS + col) as usize) = acc + *scratch.add(col as usize);
    }
}

/// BROKEN: after reading, only lane 0 releases the stage "for the warp", one arrival per tile
/// on empty barriers counting 32: the producer's second round waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_role_bad_lane0_releases(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            produce_one(&pipe, &mut state, window, input, t);
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            if lane_id() == 0 {
                pipe.consumer_release(&state);
            }
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: warp 1 consumes and its thread 32 is also the producer, running its whole producer
/// loop before consuming: the copy of tile 4 waits for stage 0's release, which needs thread
/// 32's own release of tile 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_role_bad_producer_runs_ahead(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            produce_one(&pipe, &mut state, window, input, t);
            t += step;
        }
        pipe.producer_tail(state);
    }
    if tid >= 32 {
        let col = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + col) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + col) as usize) = acc;
    }
}
