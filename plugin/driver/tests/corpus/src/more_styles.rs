//! Styles the rest of the corpus does not use: a state returned from a helper inside the loop,
//! `while let` and `enumerate` over the tiles, an early `continue`, a producer loop with
//! `step_by`, a helper generic over the stage count, a trait method taking `&mut
//! PipelineState`, and the consumer that releases the previous stage one tile late.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{dynamic_shared_base, grid_dim_x};
use crate::{STAGES, TILE_BYTES, TILE_FLOATS};

type State = PipelineState<STAGES>;

/// The state after `state`: a value in, a value out.
#[inline(never)]
fn next_state(state: State) -> State {
    let mut next = state;
    next.advance();
    next
}

consumer_kernel! {
    /// CORRECT: the loop takes each next state from a helper that returns it.
    fn state_from_helper_in_loop(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state = next_state(state);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the helper's next state is computed but the loop keeps the old one: every tile
    /// waits on stage 0 of the first phase, stage 1 is never released.
    fn state_from_helper_dropped(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            let _ = next_state(state);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: `while let` over an iterator of the block's tiles.
    fn while_let_tiles(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut mine = (crate::device::block_idx_x()..tiles).step_by(grid_dim_x() as usize);
        while let Some(_tile) = mine.next() {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: `for (i, tile) in ….enumerate()`, the stage read after the wait.
    fn enumerate_tiles(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut seen = 0;
        for (i, _tile) in (crate::device::block_idx_x()..tiles).step_by(grid_dim_x() as usize).enumerate() {
            pipeline.consumer_wait(&state);
            seen = i + 1;
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
        }
        if seen == 0 { 0.0 } else { partial }
    }
}

consumer_kernel! {
    /// BROKEN: an early `continue` on odd tiles skips the release: the producer waits forever
    /// for the stage to empty.
    fn continue_skips_release(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            if tile % 2 == 1 {
                state.advance();
                tile += grid_dim_x();
                continue;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: an early `continue` after the release and the advance.
    fn continue_after_release(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let sum = sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
            if sum == 0.0 {
                continue;
            }
            partial += sum;
        }
        partial
    }
}

producer_kernel! {
    /// CORRECT: the producer's loop is a `for` over `step_by`.
    fn producer_step_by(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        for tile in (crate::device::block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
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
        }
        pipeline.producer_tail(state);
    }
}

producer_kernel! {
    /// BROKEN: the `step_by` producer forgets its tail: the last stages are still in flight when
    /// the producer thread exits.
    fn producer_step_by_no_tail(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        for tile in (crate::device::block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
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
        }
    }
}

/// Waits for the state's stage, adds this consumer's elements, releases and advances: one
/// consumer step, for any stage count.
#[inline(never)]
fn consume_one<const N: u32>(pipeline: &Pipeline<N>, state: &mut PipelineState<N>, tid: u32) -> f32 {
    let ring = dynamic_shared_base::<f32>();
    pipeline.consumer_wait(state);
    let sum = sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
    pipeline.consumer_release(state);
    state.advance();
    sum
}

/// Like [`consume_one`], but releases the stage before reading it.
#[inline(never)]
fn consume_one_released_early<const N: u32>(
    pipeline: &Pipeline<N>,
    state: &mut PipelineState<N>,
    tid: u32,
) -> f32 {
    let ring = dynamic_shared_base::<f32>();
    pipeline.consumer_wait(state);
    pipeline.consumer_release(state);
    let sum = sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
    state.advance();
    sum
}

consumer_kernel! {
    /// CORRECT: each tile is one call of a helper generic over the stage count.
    fn generic_stage_count_helper(input, tiles, pipeline, tid) {
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            partial += consume_one::<STAGES>(&pipeline, &mut state, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the generic helper releases the stage before reading it: the producer refills it
    /// under the read.
    fn generic_helper_releases_before_read(input, tiles, pipeline, tid) {
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            partial += consume_one_released_early::<STAGES>(&pipeline, &mut state, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

/// One consumer step as a trait method.
trait ConsumeStage {
    fn consume(&self, pipeline: &Pipeline<STAGES>, state: &mut State, tid: u32) -> f32;
}

/// The right order: wait, read, release, advance.
struct InOrder;
/// Reads the stage before waiting for it.
struct ReadsFirst;

impl ConsumeStage for InOrder {
    #[inline(never)]
    fn consume(&self, pipeline: &Pipeline<STAGES>, state: &mut State, tid: u32) -> f32 {
        let ring = dynamic_shared_base::<f32>();
        pipeline.consumer_wait(state);
        let sum = sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
        pipeline.consumer_release(state);
        state.advance();
        sum
    }
}

impl ConsumeStage for ReadsFirst {
    #[inline(never)]
    fn consume(&self, pipeline: &Pipeline<STAGES>, state: &mut State, tid: u32) -> f32 {
        let ring = dynamic_shared_base::<f32>();
        let sum = sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
        pipeline.consumer_wait(state);
        pipeline.consumer_release(state);
        state.advance();
        sum
    }
}

consumer_kernel! {
    /// CORRECT: each tile goes through a trait method taking `&mut PipelineState`.
    fn trait_method_step(input, tiles, pipeline, tid) {
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            partial += InOrder.consume(&pipeline, &mut state, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the trait method reads the stage before waiting for its copy.
    fn trait_method_reads_first(input, tiles, pipeline, tid) {
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            partial += ReadsFirst.consume(&pipeline, &mut state, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the CUTLASS consumer order with plain loads: wait on `state`, read it, then
    /// release `prev` (the value of the state one tile before) one tile late; the last stage
    /// after the loop. Two stages are held at once, which a 2-stage ring allows: the stage a
    /// wait needs was released one iteration before.
    fn release_previous_stage_late(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        if tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            let mut prev = state;
            state.advance();
            tile += grid_dim_x();
            while tile < tiles {
                pipeline.consumer_wait(&state);
                partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
                pipeline.consumer_release(&prev);
                prev = state;
                state.advance();
                tile += grid_dim_x();
            }
            pipeline.consumer_release(&prev);
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the late release names the current stage instead of the previous one, and
    /// before the read is done: the producer refills the stage still being read.
    fn release_stage_still_read(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = ring.wrapping_add((state.index() * TILE_FLOATS) as usize);
            pipeline.consumer_release(&state);
            partial += sum_stage!(stage, tid);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}
