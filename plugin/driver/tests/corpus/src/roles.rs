//! Thread roles and counts: who produces, how many consume, how many tiles each side sees.

use crate::device::pipeline::{Pipeline, PipelineState};
use crate::device::{
    WARP_SIZE, barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};
use crate::{BARRIERS, CONSUMERS, STAGES, TILE_FLOATS, is_consumer, write_partial};

type State = PipelineState<STAGES>;

/// BROKEN: the whole of warp 0 runs the producer: 32 `expect_tx` arrivals on a *full* barrier
/// initialised for one, and 32 copies of every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn whole_warp_produces(input: *const f32, tiles: u32, out: *mut f32) {
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
