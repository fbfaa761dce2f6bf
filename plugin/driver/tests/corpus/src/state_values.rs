//! A pipeline state is a value: copies, fresh states, `mem::replace` and `Default`.

use crate::device::grid_dim_x;
use crate::device::pipeline::PipelineState;
use crate::{STAGES, TILE_FLOATS};

type State = PipelineState<STAGES>;

consumer_kernel! {
    /// BROKEN: the consumer makes a fresh `PipelineState::new()` every tile, so it always waits
    /// on stage 0, parity 0: from the second tile on the wait returns at once and it reads and
    /// releases stage 0 while stage 1 is never released.
    fn fresh_state_in_loop(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            let state = State::new();
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: advances a copy of the state, then keeps using the original, which never moves.
    fn advance_copy_use_original(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            let mut next = state;
            next.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: `mem::replace` puts a fresh state in place of the advanced one every tile.
    fn mem_replace_resets(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            let mut current = core::mem::replace(&mut state, State::new());
            pipeline.consumer_wait(&current);
            partial += sum_stage!(ring.wrapping_add((current.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&current);
            current.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: advances twice per tile, so it skips every other stage and never releases it.
    fn advance_twice(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the producer's start state (parity 1) used by a consumer: its first wait returns
    /// at once, before any copy landed.
    fn consumer_with_producer_start(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let mut state = State::producer_start();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
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
    /// CORRECT: waits, reads and releases through a copy of the state, then advances the
    /// original (the copy and the original are the same value until the advance).
    fn copy_of_state(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            let current = state;
            pipeline.consumer_wait(&current);
            partial += sum_stage!(ring.wrapping_add((current.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&current);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: `mem::replace` swaps the next state in and works on the current one.
    fn mem_replace_advances(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            let mut next = state;
            next.advance();
            let current = core::mem::replace(&mut state, next);
            pipeline.consumer_wait(&current);
            partial += sum_stage!(ring.wrapping_add((current.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&current);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the consumer's state from `PipelineState::default()`.
    fn default_state(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let mut state = State::default();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// The consumer's first state, from a function of its own.
#[inline(never)]
fn consumer_start() -> State {
    State::new()
}

consumer_kernel! {
    /// CORRECT: the consumer's state comes from `fn consumer_start() -> PipelineState`.
    fn state_from_function(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let mut state = consumer_start();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// Returns the state after `state`, leaving `state` as it was.
#[inline(never)]
fn advanced(mut state: State) -> State {
    state.advance();
    state
}

consumer_kernel! {
    /// CORRECT: advances by assigning the result of a function that takes the state by value.
    fn advance_by_return(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state = advanced(state);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: calls the by-value advance but drops its result, so the state never moves.
    fn advance_result_dropped(input, tiles, pipeline, tid) {
        let ring = crate::device::dynamic_shared_base::<f32>();
        let state = State::new();
        let mut partial = 0.0f32;
        let mut tile = crate::device::block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            let _ = advanced(state);
            tile += grid_dim_x();
        }
        partial
    }
}
