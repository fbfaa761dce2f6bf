//! Correct pipelines written in ordinary styles other than the standard one.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x,
};
use crate::{BARRIERS, CONSUMERS, STAGES, TILE_BYTES, TILE_FLOATS, is_consumer, write_partial};

type State = PipelineState<STAGES>;

consumer_kernel! {
    /// CORRECT: the standard pipeline on both sides (the baseline of the corpus).
    fn standard_pipeline(input, tiles, pipeline, tid) {
        standard_consumer!(pipeline, tid, tiles)
    }
}

/// CORRECT: a 4-stage ring (both sides written out), the ring's barriers after 4 stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn four_stage_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const FOUR: u32 = 4;
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<FOUR>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<FOUR>::attach(smem + BARRIERS)
    };
    barrier();
    let mut partial = 0.0f32;
    if tid == 0 {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(
                smem + state.index() * TILE_BYTES,
                source,
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if is_consumer(tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<FOUR>::new();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
    }
    write_partial(out, tid, partial);
}

consumer_kernel! {
    /// CORRECT: every operation goes through a `&mut` alias of the state.
    fn state_through_reference(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let alias = &mut state;
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(alias);
            partial += sum_stage!(ring.wrapping_add((alias.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(alias);
            alias.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// A whole consumer loop, generic over the ring's stage count.
#[inline(never)]
fn consume_all<const S: u32>(pipeline: &Pipeline<S>, tiles: u32, tid: u32) -> f32 {
    let ring = dynamic_shared_base::<f32>();
    let mut state = PipelineState::<S>::new();
    let mut partial = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        pipeline.consumer_wait(&state);
        partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
        pipeline.consumer_release(&state);
        state.advance();
        tile += grid_dim_x();
    }
    partial
}

consumer_kernel! {
    /// CORRECT: the consumer loop is a generic, non-inlined function.
    fn generic_consumer_function(input, tiles, pipeline, tid) {
        consume_all(&pipeline, tiles, tid)
    }
}

consumer_kernel! {
    /// CORRECT: the stage pointer computed with `u32` arithmetic on the element offset, read
    /// through an index expression (`stage[k]` via a fixed-size array reference).
    fn stage_as_array_reference(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<[f32; TILE_FLOATS as usize]>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            // SAFETY: one loaded stage.
            let stage = unsafe { &*ring.add(state.index() as usize) };
            let mut k = (tid - crate::device::WARP_SIZE) as usize;
            while k < TILE_FLOATS as usize {
                partial += stage[k];
                k += CONSUMERS as usize;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

producer_kernel! {
    /// CORRECT: the producer counts its tiles with a `for` over a range.
    fn producer_counted_for(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let count = (tiles.saturating_sub(block_idx_x()) + grid_dim_x() - 1) / grid_dim_x();
        for i in 0..count {
            let tile = block_idx_x() + i * grid_dim_x();
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
        }
        pipeline.producer_tail(state);
    }
}
