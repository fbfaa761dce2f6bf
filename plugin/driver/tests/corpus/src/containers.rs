//! The protocol through helpers, closures, struct fields, tuples and arrays.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{block_idx_x, dynamic_shared_base, grid_dim_x};
use crate::{STAGES, TILE_BYTES, TILE_FLOATS};

type State = PipelineState<STAGES>;

/// Adds this consumer's elements of the stage `state` points at (no waiting of its own).
#[inline(never)]
fn peek_stage(state: &State, tid: u32) -> f32 {
    let ring = dynamic_shared_base::<f32>();
    sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid)
}

consumer_kernel! {
    /// BROKEN: a non-inlined helper reads the stage before the consumer waits for it.
    fn helper_reads_before_wait(input, tiles, pipeline, tid) {
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += peek_stage(&state, tid);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the same helper, called between wait and release.
    fn helper_reads_after_wait(input, tiles, pipeline, tid) {
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += peek_stage(&state, tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: a closure reads the stage before the wait.
    fn closure_reads_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let read = |state: &State| sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += read(&state);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the same closure, called after the wait.
    fn closure_reads_after_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let read = |state: &State| sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += read(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// One consumer tile: wait, read, release, advance, through the caller's state.
#[inline(never)]
fn consume_tile(pipeline: &Pipeline<STAGES>, state: &mut State, tid: u32) -> f32 {
    pipeline.consumer_wait(state);
    let sum = peek_stage(state, tid);
    pipeline.consumer_release(state);
    state.advance();
    sum
}

consumer_kernel! {
    /// CORRECT: each tile is consumed by a helper taking `&mut PipelineState`.
    fn helper_consumes_tile(input, tiles, pipeline, tid) {
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consume_tile(&pipeline, &mut state, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

/// One consumer tile through a state passed by value: the caller's state does not move.
#[inline(never)]
fn consume_tile_by_value(pipeline: &Pipeline<STAGES>, mut state: State, tid: u32) -> f32 {
    pipeline.consumer_wait(&state);
    let sum = peek_stage(&state, tid);
    pipeline.consumer_release(&state);
    state.advance();
    sum
}

consumer_kernel! {
    /// BROKEN: the helper advances its own copy of the state; the caller's never moves.
    fn helper_advances_a_copy(input, tiles, pipeline, tid) {
        let state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consume_tile_by_value(&pipeline, state, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

/// A consumer's state and pipeline, kept together.
struct Consumer {
    pipeline: Pipeline<STAGES>,
    state: State,
}

impl Consumer {
    #[inline(never)]
    fn tile(&mut self, tid: u32) -> f32 {
        self.pipeline.consumer_wait(&self.state);
        let sum = peek_stage(&self.state, tid);
        self.pipeline.consumer_release(&self.state);
        self.state.advance();
        sum
    }

    #[inline(never)]
    fn tile_peeking_first(&mut self, tid: u32) -> f32 {
        let sum = peek_stage(&self.state, tid);
        self.pipeline.consumer_wait(&self.state);
        self.pipeline.consumer_release(&self.state);
        self.state.advance();
        sum
    }
}

consumer_kernel! {
    /// CORRECT: the state lives in a struct field, consumed by a method.
    fn state_in_struct_field(input, tiles, pipeline, tid) {
        let mut consumer = Consumer { pipeline, state: State::new() };
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consumer.tile(tid);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: a method on the struct reads the stage before waiting.
    fn struct_field_reads_before_wait(input, tiles, pipeline, tid) {
        let mut consumer = Consumer { pipeline, state: State::new() };
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consumer.tile_peeking_first(tid);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the state is the first element of a `(state, tile)` tuple.
    fn state_in_tuple(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut cursor = (State::new(), block_idx_x());
        let mut partial = 0.0f32;
        while cursor.1 < tiles {
            pipeline.consumer_wait(&cursor.0);
            partial += sum_stage!(ring.wrapping_add((cursor.0.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&cursor.0);
            cursor.0.advance();
            cursor.1 += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: state in a tuple; the stage is read before the wait.
    fn tuple_reads_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut cursor = (State::new(), block_idx_x());
        let mut partial = 0.0f32;
        while cursor.1 < tiles {
            partial += sum_stage!(ring.wrapping_add((cursor.0.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_wait(&cursor.0);
            pipeline.consumer_release(&cursor.0);
            cursor.0.advance();
            cursor.1 += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the state is element 0 of a one-element array.
    fn state_in_array(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut states = [State::new()];
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&states[0]);
            partial += sum_stage!(ring.wrapping_add((states[0].index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&states[0]);
            states[0].advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: state in an array; released before it is read.
    fn array_state_read_after_release(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut states = [State::new()];
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&states[0]);
            pipeline.consumer_release(&states[0]);
            partial += sum_stage!(ring.wrapping_add((states[0].index() * TILE_FLOATS) as usize), tid);
            states[0].advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// Where a consumer is: its state, and whether it has seen its last tile.
struct Turn {
    state: State,
    done: bool,
}

consumer_kernel! {
    /// CORRECT: `struct Turn { state, done }` drives the loop.
    fn turn_struct(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut tile = block_idx_x();
        let mut turn = Turn { state: State::new(), done: tile >= tiles };
        let mut partial = 0.0f32;
        while !turn.done {
            pipeline.consumer_wait(&turn.state);
            partial += sum_stage!(ring.wrapping_add((turn.state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&turn.state);
            turn.state.advance();
            tile += grid_dim_x();
            turn.done = tile >= tiles;
        }
        partial
    }
}

/// One producer tile through the caller's state: acquire, expect, copy, advance.
#[inline(never)]
fn produce_tile(pipeline: &Pipeline<STAGES>, state: &mut State, smem: u32, input: *const f32, tile: u32) {
    pipeline.producer_acquire(state);
    pipeline.producer_expect_tx(state, TILE_BYTES);
    let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
    bulk_copy_global_to_shared(
        smem + state.index() * TILE_BYTES,
        source,
        TILE_BYTES,
        pipeline.producer_barrier(state),
    );
    state.advance();
}

producer_kernel! {
    /// CORRECT: a per-tile producer step in a helper taking `&mut PipelineState`.
    fn producer_step_helper(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            produce_tile(&pipeline, &mut state, smem, input, tile);
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}

producer_kernel! {
    /// CORRECT: the producer's per-tile step is a closure over the pipeline.
    fn producer_closure(input, tiles, pipeline, smem, tid) {
        let step = |state: &mut State, tile: u32| {
            pipeline.producer_acquire(state);
            pipeline.producer_expect_tx(state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(state));
            state.advance();
        };
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            step(&mut state, tile);
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}

/// Moves the caller's state to the next stage.
#[inline(never)]
fn step_state(state: &mut State) {
    state.advance();
}

consumer_kernel! {
    /// CORRECT: the advance is a helper taking `&mut PipelineState`, called after the release.
    fn advance_in_helper(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            step_state(&mut state);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the advancing helper runs before the release, so the consumer releases the next
    /// stage (not yet filled) and never the one it read.
    fn advance_in_helper_before_release(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            step_state(&mut state);
            pipeline.consumer_release(&state);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: keeps a copy taken before the loop and hands it to the tile helper, which
    /// advances only the copy it was given: every tile waits on stage 0, phase 0.
    fn stale_copy_to_helper(input, tiles, pipeline, tid) {
        let mut state = State::new();
        let first = state;
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            state = first;
            partial += consume_tile(&pipeline, &mut state, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

/// Reads this consumer's elements of the stage `state` names, waiting for it first and
/// releasing it after.
#[inline(never)]
fn read_stage_in_window(pipeline: &Pipeline<STAGES>, state: &State, tid: u32) -> f32 {
    pipeline.consumer_wait(state);
    let sum = peek_stage(state, tid);
    pipeline.consumer_release(state);
    sum
}

consumer_kernel! {
    /// CORRECT: wait, read and release in a helper taking `&PipelineState`; the caller advances.
    fn window_in_helper(input, tiles, pipeline, tid) {
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += read_stage_in_window(&pipeline, &state, tid);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}
