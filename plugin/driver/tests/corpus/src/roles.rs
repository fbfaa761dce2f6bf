//! Thread roles and counts: who produces, how many consume, how many tiles each side sees.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState};
use crate::device::{
    WARP_SIZE, barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};
use crate::{BARRIERS, BLOCK_THREADS, CONSUMERS, SHARED_BYTES, STAGES, TILE_FLOATS, is_consumer, write_partial};

type State = PipelineState<STAGES>;

/// BROKEN: the whole of warp 0 runs the producer: 32 `expect_tx` arrivals on a *full* barrier
/// initialised for one, and 32 copies of every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn whole_warp_produces(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    if tid < WARP_SIZE {
        standard_producer!(pipeline, smem, input, tiles);
    } else if is_consumer(tid) {
        partial = standard_consumer!(pipeline, tid, tiles);
    }
    write_partial(out, tid, partial);
}

/// BROKEN: two threads produce every tile: twice the arrivals and copies per stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn two_producers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    if tid == 0 || tid == 1 {
        standard_producer!(pipeline, smem, input, tiles);
    } else if is_consumer(tid) {
        partial = standard_consumer!(pipeline, tid, tiles);
    }
    write_partial(out, tid, partial);
}

/// BROKEN: `init` announces 32 consumers but only 16 threads consume (and the others write
/// nothing): no stage is ever released in full, so the producer hangs on its third tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fewer_consumers_than_announced(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    if tid == 0 {
        standard_producer!(pipeline, smem, input, tiles);
    } else if (WARP_SIZE..WARP_SIZE + CONSUMERS / 2).contains(&tid) {
        partial = standard_consumer!(pipeline, tid, tiles);
    }
    write_partial(out, tid, partial);
}

/// BROKEN: `init` announces 16 consumers but 32 release: each stage counts as empty when half
/// of them are done, and the producer overwrites it under the other half.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn more_consumers_than_announced(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS / 2)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    if tid == 0 {
        standard_producer!(pipeline, smem, input, tiles);
    } else if is_consumer(tid) {
        partial = standard_consumer!(pipeline, tid, tiles);
    }
    write_partial(out, tid, partial);
}

consumer_kernel! {
    /// BROKEN: consumers stop one tile early, so the producer's tail waits forever for the last
    /// stage to be released.
    fn consumers_stop_early(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile + grid_dim_x() < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: consumers go one tile too far and wait for a stage no one will fill.
    fn consumers_one_tile_too_many(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles + grid_dim_x() {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// CORRECT: roles chosen by `match` on the thread index.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn roles_by_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let partial = match tid {
        0 => {
            standard_producer!(pipeline, smem, input, tiles);
            0.0
        }
        32..=63 => standard_consumer!(pipeline, tid, tiles),
        _ => 0.0,
    };
    write_partial(out, tid, partial);
}

/// CORRECT: the producer is lane 0 of warp 0 by `warp_id`/`lane_id`, the consumers warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn roles_by_warp_and_lane(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let warp = crate::device::warp_id();
    let lane = crate::device::lane_id();
    let pipeline = if warp == 0 && lane == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    if warp == 0 && lane == 0 {
        standard_producer!(pipeline, smem, input, tiles);
    } else if warp == 1 {
        partial = standard_consumer!(pipeline, tid, tiles);
    }
    write_partial(out, tid, partial);
}

/// Whether thread `tid` is the producer: a small helper of the kernel's own.
#[inline(never)]
fn is_producer(tid: u32) -> bool {
    tid == 0
}

/// CORRECT: the producer elected in a helper, the consumers as a range of thread indices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn producer_in_helper_consumers_as_range(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if is_producer(tid) {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    if is_producer(tid) {
        standard_producer!(pipeline, smem, input, tiles);
    } else if tid >= WARP_SIZE && tid < WARP_SIZE + CONSUMERS {
        partial = standard_consumer!(pipeline, tid, tiles);
    }
    write_partial(out, tid, partial);
}

/// CORRECT: `init`'s count written as an expression of the launch contract (every thread
/// outside warp 0 consumes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn init_count_as_expression(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, BLOCK_THREADS - WARP_SIZE)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    if tid == 0 {
        standard_producer!(pipeline, smem, input, tiles);
    } else if tid >= WARP_SIZE {
        partial = standard_consumer!(pipeline, tid, tiles);
    }
    write_partial(out, tid, partial);
}

/// BROKEN: lane 0 of *every* warp produces (the warp test forgotten): threads 0 and 32 arrive
/// on the count-1 full barriers and copy every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn producer_lane_zero_of_every_warp(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    if crate::device::lane_id() == 0 {
        standard_producer!(pipeline, smem, input, tiles);
    }
    if is_consumer(tid) {
        partial = standard_consumer!(pipeline, tid, tiles);
    }
    write_partial(out, tid, partial);
}

/// BROKEN: consumers chosen by warp and lane, but only the lower half-warp (16 threads) of
/// warp 1 releases while `init` announced 32: no stage is released in full.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn consumers_half_warp_by_lane(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    let warp = crate::device::warp_id();
    let lane = crate::device::lane_id();
    if tid == 0 {
        standard_producer!(pipeline, smem, input, tiles);
    } else if warp == 1 && lane < CONSUMERS / 2 {
        partial = standard_consumer!(pipeline, tid, tiles);
    }
    write_partial(out, tid, partial);
}

/// BROKEN: the consumers' range starts one thread late (`tid > WARP_SIZE`): 31 release where
/// `init` announced 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn consumer_range_off_by_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    match tid {
        0 => standard_producer!(pipeline, smem, input, tiles),
        33..=63 => partial = standard_consumer!(pipeline, tid, tiles),
        _ => {}
    }
    write_partial(out, tid, partial);
}
