//! Stage accesses in memory styles the rest of the corpus does not try: an array reference,
//! `ptr::copy_nonoverlapping`, a stage pointer kept in a struct field, and a producer writing
//! through a slice into a stage whose copy is in flight.

use crate::device::pipeline::PipelineState;
use crate::device::{block_idx_x, dynamic_shared_base, grid_dim_x};
use crate::{CONSUMERS, STAGES, TILE_FLOATS};

type State = PipelineState<STAGES>;

/// One stage of the ring, seen as a whole array.
type Tile = [f32; TILE_FLOATS as usize];

/// Adds this consumer's elements of a stage seen as `&Tile`.
macro_rules! sum_tile {
    ($tile:expr, $tid:expr) => {{
        let tile: &Tile = $tile;
        let mut sum = 0.0f32;
        let mut k = ($tid - crate::device::WARP_SIZE) as usize;
        while k < TILE_FLOATS as usize {
            sum += tile[k];
            k += CONSUMERS as usize;
        }
        sum
    }};
}

consumer_kernel! {
    /// BROKEN: the stage read through `&[f32; 256]` before the wait.
    fn array_reference_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            // SAFETY: one stage of the ring, a whole tile.
            let stage = unsafe { &*(ring.add((state.index() * TILE_FLOATS) as usize) as *const Tile) };
            partial += sum_tile!(stage, tid);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the stage read through `&[f32; 256]` after the wait.
    fn array_reference_after_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            // SAFETY: one stage of the ring, a whole tile, loaded.
            let stage = unsafe { &*(ring.add((state.index() * TILE_FLOATS) as usize) as *const Tile) };
            partial += sum_tile!(stage, tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// Adds this consumer's elements of `stage`, each copied out with `ptr::copy_nonoverlapping`.
macro_rules! copy_out_sum {
    ($stage:expr, $tid:expr) => {{
        let stage: *const f32 = $stage;
        let mut sum = 0.0f32;
        let mut k = ($tid - crate::device::WARP_SIZE) as usize;
        while k < TILE_FLOATS as usize {
            let mut value = 0.0f32;
            // SAFETY: inside one stage; `value` is a distinct local.
            unsafe { core::ptr::copy_nonoverlapping(stage.add(k), &mut value, 1) };
            sum += value;
            k += CONSUMERS as usize;
        }
        sum
    }};
}

consumer_kernel! {
    /// BROKEN: the stage copied out with `ptr::copy_nonoverlapping` before the wait.
    fn copy_nonoverlapping_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += copy_out_sum!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the stage copied out with `ptr::copy_nonoverlapping` after the wait.
    fn copy_nonoverlapping_after_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += copy_out_sum!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// A stage pointer kept in a struct field.
#[derive(Clone, Copy)]
struct StageRef {
    first: *const f32,
}

consumer_kernel! {
    /// BROKEN: the stage pointer stored in a struct field, read through it before the wait.
    fn stage_in_struct_field_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let held = StageRef { first: ring.wrapping_add((state.index() * TILE_FLOATS) as usize) };
            partial += sum_stage!(held.first, tid);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the stage pointer stored in a struct field before the wait, read through it
    /// after the wait.
    fn stage_in_struct_field_after_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let held = StageRef { first: ring.wrapping_add((state.index() * TILE_FLOATS) as usize) };
            pipeline.consumer_wait(&state);
            partial += sum_stage!(held.first, tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

producer_kernel! {
    /// BROKEN: after issuing the copy, the producer zeroes the stage's first element through a
    /// slice: a write into a stage whose copy is in flight.
    fn producer_writes_slice_in_flight(input, tiles, pipeline, smem, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, crate::TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            let destination = smem + state.index() * crate::TILE_BYTES;
            crate::device::pipeline::bulk_copy_global_to_shared(
                destination,
                source,
                crate::TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            // SAFETY: one stage of the ring.
            let stage = unsafe {
                core::slice::from_raw_parts_mut(
                    ring.add((state.index() * TILE_FLOATS) as usize),
                    TILE_FLOATS as usize,
                )
            };
            // SAFETY: element 0 of the stage.
            unsafe { *stage.get_unchecked_mut(0) = 0.0 };
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}
