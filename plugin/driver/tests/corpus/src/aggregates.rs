//! States kept in nested structs, arrays and closures' arguments: the aggregate idioms the
//! import follows (a state at a path of fields and constant indices of a local or parameter),
//! and the ones it cannot follow, which must be rejected rather than passed.

use crate::device::pipeline::{Pipeline, PipelineState};
use crate::device::{block_idx_x, dynamic_shared_base, grid_dim_x};
use crate::device::pipeline::bulk_copy_global_to_shared;
use crate::{STAGES, TILE_BYTES, TILE_FLOATS};

type State = PipelineState<STAGES>;

/// A state two structs deep.
struct Inner {
    state: State,
}

/// Where a consumer is, with its state inside [`Inner`].
struct Outer {
    tiles_seen: u32,
    inner: Inner,
}

consumer_kernel! {
    /// CORRECT: the state lives two structs deep (`outer.inner.state`).
    fn nested_struct_state(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut outer = Outer { tiles_seen: 0, inner: Inner { state: State::new() } };
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&outer.inner.state);
            partial += sum_stage!(ring.wrapping_add((outer.inner.state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&outer.inner.state);
            outer.inner.state.advance();
            outer.tiles_seen += 1;
            tile += grid_dim_x();
        }
        partial + (outer.tiles_seen - outer.tiles_seen) as f32
    }
}

consumer_kernel! {
    /// BROKEN: the state two structs deep; the stage is released before it is read.
    fn nested_struct_read_after_release(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut outer = Outer { tiles_seen: 0, inner: Inner { state: State::new() } };
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&outer.inner.state);
            pipeline.consumer_release(&outer.inner.state);
            partial += sum_stage!(ring.wrapping_add((outer.inner.state.index() * TILE_FLOATS) as usize), tid);
            outer.inner.state.advance();
            outer.tiles_seen += 1;
            tile += grid_dim_x();
        }
        partial + (outer.tiles_seen - outer.tiles_seen) as f32
    }
}

/// One consumer tile through the caller's struct, by `&mut`: the state inside is handed back.
#[inline(never)]
fn consume_outer(pipeline: &Pipeline<STAGES>, outer: &mut Outer, tid: u32) -> f32 {
    let ring = dynamic_shared_base::<f32>();
    pipeline.consumer_wait(&outer.inner.state);
    let sum = sum_stage!(ring.wrapping_add((outer.inner.state.index() * TILE_FLOATS) as usize), tid);
    pipeline.consumer_release(&outer.inner.state);
    outer.inner.state.advance();
    outer.tiles_seen += 1;
    sum
}

/// The same tile through a copy of the caller's struct: the caller's state never moves.
#[inline(never)]
fn consume_outer_copy(pipeline: &Pipeline<STAGES>, mut outer: Outer, tid: u32) -> f32 {
    consume_outer(pipeline, &mut outer, tid)
}

consumer_kernel! {
    /// CORRECT: a helper takes the struct holding the state by `&mut` and advances it.
    fn nested_struct_helper(input, tiles, pipeline, tid) {
        let mut outer = Outer { tiles_seen: 0, inner: Inner { state: State::new() } };
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consume_outer(&pipeline, &mut outer, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the helper gets the struct by value and advances its copy: every tile waits on
    /// stage 0, phase 0 of the caller's state.
    fn nested_struct_helper_copy(input, tiles, pipeline, tid) {
        let outer = Outer { tiles_seen: 0, inner: Inner { state: State::new() } };
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consume_outer_copy(&pipeline, Outer { tiles_seen: outer.tiles_seen, inner: Inner { state: outer.inner.state } }, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: two states in an array, indexed by constants: element 1 is the consumer's,
    /// element 0 a spare nobody uses.
    fn array_two_states_constant_index(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut states = [State::new(), State::new()];
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&states[1]);
            partial += sum_stage!(ring.wrapping_add((states[1].index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&states[1]);
            states[1].advance();
            tile += grid_dim_x();
        }
        partial + states[0].index() as f32
    }
}

consumer_kernel! {
    /// BROKEN: two states in an array; the consumer waits on and releases element 1 but
    /// advances element 0, so it waits on stage 0, phase 0 every tile.
    fn array_advances_other_element(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut states = [State::new(), State::new()];
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&states[1]);
            partial += sum_stage!(ring.wrapping_add((states[1].index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&states[1]);
            states[0].advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: two consumer states in an array, picked by a runtime index that alternates:
    /// each restarts at stage 0, so the consumer waits on stale phases and releases stage 0
    /// twice. The import cannot say which element a runtime index names: rejected.
    fn array_runtime_index(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut states = [State::new(), State::new()];
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        let mut which = 0usize;
        while tile < tiles {
            pipeline.consumer_wait(&states[which]);
            partial += sum_stage!(ring.wrapping_add((states[which].index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&states[which]);
            states[which].advance();
            which = 1 - which;
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: each tile is consumed by a closure taking `&mut PipelineState`.
    fn closure_consumes_tile(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let consume = |state: &mut State| {
            pipeline.consumer_wait(state);
            let sum = sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(state);
            state.advance();
            sum
        };
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consume(&mut state);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the closure advances the state before releasing it: it releases the next stage
    /// (not yet filled) and never the one it read.
    fn closure_advances_before_release(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let consume = |state: &mut State| {
            pipeline.consumer_wait(state);
            let sum = sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            state.advance();
            pipeline.consumer_release(state);
            sum
        };
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consume(&mut state);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: a closure capturing the state by `&mut` consumes each tile.
    fn closure_captures_state(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut consume = || {
            pipeline.consumer_wait(&state);
            let sum = sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            sum
        };
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consume();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the state kept in an `Option`, taken out by `if let Some(state) = &mut slot`.
    /// Enums are not followed: a known false rejection (`state-provenance`).
    fn option_state(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut slot = Some(State::new());
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            if let Some(state) = &mut slot {
                pipeline.consumer_wait(state);
                partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
                pipeline.consumer_release(state);
                state.advance();
            }
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the `Option` is refilled with a fresh state every tile, so the consumer always
    /// waits on stage 0, parity 0; stage 1 is never released and the producer waits forever.
    fn option_refilled_each_tile(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut slot = None;
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            slot = Some(State::new());
            if let Some(state) = &mut slot {
                pipeline.consumer_wait(state);
                partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
                pipeline.consumer_release(state);
                state.advance();
            }
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: each tile advances a copy taken out of the `Option`; the state inside never
    /// moves, so from the second tile on the consumer re-reads and re-releases stage 0.
    fn option_advances_a_copy(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let slot = Some(State::new());
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            if let Some(mut state) = slot {
                pipeline.consumer_wait(&state);
                partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
                pipeline.consumer_release(&state);
                state.advance();
            }
            tile += grid_dim_x();
        }
        partial
    }
}

/// A consumer's starting point, returned in a struct.
#[inline(never)]
fn consumer_start() -> Outer {
    Outer { tiles_seen: 0, inner: Inner { state: State::new() } }
}

consumer_kernel! {
    /// CORRECT: the struct holding the state comes from a helper's return.
    fn struct_returned_by_helper(input, tiles, pipeline, tid) {
        let mut outer = consumer_start();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consume_outer(&pipeline, &mut outer, tid);
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: two consumer states in a tuple; each tile picks one by a reference chosen on a
    /// path, so both restart at stage 0. A reference assigned on two paths may name either
    /// state: the import does not follow it, and the operations are rejected.
    fn reference_chosen_on_path(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut states = (State::new(), State::new());
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        let mut odd = false;
        while tile < tiles {
            let state = if odd { &mut states.1 } else { &mut states.0 };
            pipeline.consumer_wait(state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(state);
            state.advance();
            odd = !odd;
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: a closure capturing the state by `&mut` reads the stage before it waits.
    fn closure_captures_state_reads_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut consume = || {
            let sum = sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            sum
        };
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += consume();
            tile += grid_dim_x();
        }
        partial
    }
}

producer_kernel! {
    /// CORRECT: the producer's per-tile step is a closure capturing the state by `&mut`; the
    /// tail after the loop uses the state the closure advanced.
    fn producer_closure_captures_state(input, tiles, pipeline, smem, tid) {
        let mut state = State::producer_start();
        let mut step = |tile: u32| {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
        };
        let mut tile = block_idx_x();
        while tile < tiles {
            step(tile);
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}
