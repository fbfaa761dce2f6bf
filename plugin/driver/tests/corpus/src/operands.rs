//! Operands of the protocol: which pipeline, which stage, how many bytes, on which paths.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x,
};
use crate::{
    BARRIERS, CONSUMERS, SECOND_BARRIERS, STAGES, TILE_BYTES, TILE_FLOATS, is_consumer, write_partial,
};

type State = PipelineState<STAGES>;

/// Two pipelines over the same ring's barriers region and a second one, both initialised by
/// thread 0 (`first` is the one the standard layout uses).
#[inline(always)]
fn two_pipelines(smem: u32, tid: u32) -> (Pipeline<STAGES>, Pipeline<STAGES>) {
    if tid == 0 {
        (Pipeline::init(smem + BARRIERS, CONSUMERS), Pipeline::init(smem + SECOND_BARRIERS, CONSUMERS))
    } else {
        (Pipeline::attach(smem + BARRIERS), Pipeline::attach(smem + SECOND_BARRIERS))
    }
}

/// BROKEN: consumers wait on the first pipeline and release on the second: the first
/// pipeline's stages are never released, so the producer waits forever on its third tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wait_one_release_other(input: *const f32, tiles: u32, out: *mut f32) {
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (first, second) = two_pipelines(smem, tid);
    barrier();
    let mut partial = 0.0f32;
    if tid == 0 {
        standard_producer!(first, smem, input, tiles);
    } else if is_consumer(tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut tile = block_idx_x();
        while tile < tiles {
            first.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            second.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
    }
    write_partial(out, tid, partial);
}

/// BROKEN: the copy completes its bytes on the second pipeline's *full* barrier, which no one
/// told to expect them; the first pipeline's barrier, which consumers wait on, never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn copy_on_other_pipeline_barrier(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (first, second) = two_pipelines(smem, tid);
    barrier();
    let mut partial = 0.0f32;
    if tid == 0 {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            first.producer_acquire(&state);
            first.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(
                smem + state.index() * TILE_BYTES,
                source,
                TILE_BYTES,
                second.producer_barrier(&state),
            );
            state.advance();
            tile += grid_dim_x();
        }
        first.producer_tail(state);
    } else if is_consumer(tid) {
        partial = standard_consumer!(first, tid, tiles);
    }
    write_partial(out, tid, partial);
}

/// CORRECT: two pipelines used consistently: even tiles of the block go through the first,
/// odd ones through the second ring, each with its own states.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn two_pipelines_alternating(input: *const f32, tiles: u32, out: *mut f32) {
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (first, second) = two_pipelines(smem, tid);
    barrier();
    let mut partial = 0.0f32;
    if tid == 0 {
        let mut states = (State::producer_start(), State::producer_start());
        let mut tile = block_idx_x();
        let mut odd = false;
        while tile < tiles {
            let (pipeline, state, ring) = if odd {
                (&second, &mut states.1, smem + crate::SECOND_RING)
            } else {
                (&first, &mut states.0, smem)
            };
            pipeline.producer_acquire(state);
            pipeline.producer_expect_tx(state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(
                ring + state.index() * TILE_BYTES,
                source,
                TILE_BYTES,
                pipeline.producer_barrier(state),
            );
            state.advance();
            odd = !odd;
            tile += grid_dim_x();
        }
        first.producer_tail(states.0);
        second.producer_tail(states.1);
    } else if is_consumer(tid) {
        let base = dynamic_shared_base::<f32>();
        let mut states = (State::new(), State::new());
        let mut tile = block_idx_x();
        let mut odd = false;
        while tile < tiles {
            let (pipeline, state, ring) = if odd {
                (&second, &mut states.1, base.wrapping_add((crate::SECOND_RING / 4) as usize))
            } else {
                (&first, &mut states.0, base)
            };
            pipeline.consumer_wait(state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(state);
            state.advance();
            odd = !odd;
            tile += grid_dim_x();
        }
    }
    write_partial(out, tid, partial);
}

producer_kernel! {
    /// BROKEN: copies into the stage after the acquired one, overwriting a stage consumers
    /// may be reading and leaving the acquired one stale.
    fn copy_into_other_stage(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            let other = (state.index() + 1) % STAGES;
            bulk_copy_global_to_shared(smem + other * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}

producer_kernel! {
    /// BROKEN: expects twice the bytes its one copy delivers: the *full* barrier never completes.
    fn expect_more_bytes_than_copied(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, 2 * TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}

producer_kernel! {
    /// BROKEN: expects half the bytes it copies: the stage completes while half of it is still
    /// in flight, and the excess transactions land on the barrier's next phase.
    fn expect_fewer_bytes_than_copied(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES / 2);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}

producer_kernel! {
    /// BROKEN: the copy happens only on some paths (not for every fourth tile of the grid),
    /// after an unconditional `expect_tx`: that stage never completes.
    fn copy_on_some_paths(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            if tile % 4 != 3 {
                let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
                bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            }
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}

producer_kernel! {
    /// CORRECT: one `expect_tx` of the whole tile, delivered by two copies of half a tile.
    fn two_copies_one_expect(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            let destination = smem + state.index() * TILE_BYTES;
            let half = TILE_BYTES / 2;
            bulk_copy_global_to_shared(destination, source, half, pipeline.producer_barrier(&state));
            bulk_copy_global_to_shared(destination + half, source.wrapping_add(half as usize), half, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}

producer_kernel! {
    /// BROKEN: no `producer_acquire`: the producer refills a stage consumers may still read.
    fn producer_skips_acquire(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}

producer_kernel! {
    /// BROKEN: no producer tail after the loop: the producer thread may leave while copies it
    /// issued are still in flight.
    fn missing_producer_tail(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
    }
}

producer_kernel! {
    /// BROKEN: the producer tail inside the loop: after the first tile it waits for stages the
    /// consumers cannot release yet.
    fn tail_inside_loop(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            pipeline.producer_tail(state);
            tile += grid_dim_x();
        }
    }
}

consumer_kernel! {
    /// BROKEN: the consumer never releases: the producer waits forever on its third tile.
    fn consumer_never_releases(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: releases twice per tile: the stage's *empty* barrier completes while other
    /// consumers still read it.
    fn consumer_releases_twice(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}
