//! Guards around protocol operations, and loops left by `break` or `return`.

use crate::device::pipeline::PipelineState;
use crate::device::{block_idx_x, dynamic_shared_base, grid_dim_x};
use crate::{STAGES, TILE_FLOATS};

type State = PipelineState<STAGES>;

consumer_kernel! {
    /// CORRECT: one immutable `active` guard around wait, read and release (a loop over every
    /// tile of the grid, acting on the block's own).
    fn same_immutable_guard(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = 0;
        while tile < tiles {
            let active = tile % grid_dim_x() == block_idx_x();
            if active {
                pipeline.consumer_wait(&state);
            }
            if active {
                partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            }
            if active {
                pipeline.consumer_release(&state);
                state.advance();
            }
            tile += 1;
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: the read is guarded by a different condition than the wait: on the block's
    /// first tile of each pair the wait is skipped and the stage is read anyway.
    fn different_guards(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        let mut turn = 0u32;
        while tile < tiles {
            let waits = turn % 2 == 1;
            if waits {
                pipeline.consumer_wait(&state);
            }
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            turn += 1;
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: `break` on the block's last tile after the wait but before the release: the
    /// producer's tail waits forever for that stage.
    fn break_holding_stage(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            if tile + grid_dim_x() >= tiles {
                break;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// BROKEN: `return` (without writing the sum) on the block's last tile while the stage is held.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn return_holding_stage(input: *const f32, tiles: u32, out: *mut f32) {
    use crate::device::pipeline::Pipeline;
    let smem = crate::device::dynamic_shared_window_address();
    let tid = crate::device::thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + crate::BARRIERS, crate::CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + crate::BARRIERS)
    };
    crate::device::barrier();
    let mut partial = 0.0f32;
    if tid == 0 {
        standard_producer!(pipeline, smem, input, tiles);
    } else if crate::is_consumer(tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            if tile + grid_dim_x() >= tiles {
                return;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
    }
    crate::write_partial(out, tid, partial);
}

consumer_kernel! {
    /// CORRECT: `loop` with the exit test first and `break` while no stage is held.
    fn loop_with_break(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        loop {
            if tile >= tiles {
                break;
            }
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
    /// CORRECT: `for` over the block's tiles with `step_by`.
    fn for_step_by(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        for _tile in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: a counted loop over the number of the block's tiles.
    fn counted_loop(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let count = (tiles.saturating_sub(block_idx_x()) + grid_dim_x() - 1) / grid_dim_x();
        for _ in 0..count {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: `continue` skips other blocks' tiles while no stage is held.
    fn continue_between_tiles(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = 0;
        while tile < tiles {
            tile += 1;
            if (tile - 1) % grid_dim_x() != block_idx_x() {
                continue;
            }
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
        }
        partial
    }
}
