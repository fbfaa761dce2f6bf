//! Stage accesses in many shapes: integer widths, `read`, slices, pointer arrays, and global
//! loads that merely use the stage index.

use crate::device::pipeline::{PipelineState, bulk_copy_global_to_shared};
use crate::device::{block_idx_x, dynamic_shared_base, grid_dim_x};
use crate::{CONSUMERS, STAGES, TILE_BYTES, TILE_FLOATS};

type State = PipelineState<STAGES>;

consumer_kernel! {
    /// BROKEN: reads through `state.index() as usize * 256` (a 64-bit offset) before the wait.
    fn usize_offset_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let stage = ring.wrapping_add(state.index() as usize * TILE_FLOATS as usize);
            partial += sum_stage!(stage, tid);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the 64-bit offset, read after the wait.
    fn usize_offset_after_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE_FLOATS as usize);
            partial += sum_stage!(stage, tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// Adds this consumer's elements of `stage` with `ptr::read`.
macro_rules! read_stage {
    ($stage:expr, $tid:expr) => {{
        let stage: *const f32 = $stage;
        let mut sum = 0.0f32;
        let mut k = ($tid - crate::device::WARP_SIZE) as usize;
        while k < TILE_FLOATS as usize {
            // SAFETY: inside one stage.
            sum += unsafe { stage.add(k).read() };
            k += CONSUMERS as usize;
        }
        sum
    }};
}

consumer_kernel! {
    /// BROKEN: `ptr.read()` of the stage before the wait.
    fn ptr_read_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += read_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: `ptr.read()` after the wait.
    fn ptr_read_after_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += read_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: `read_volatile` of the stage after the wait.
    fn read_volatile_after_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = ring.wrapping_add((state.index() * TILE_FLOATS) as usize);
            let mut k = (tid - crate::device::WARP_SIZE) as usize;
            while k < TILE_FLOATS as usize {
                // SAFETY: inside a stage the full barrier says is loaded.
                partial += unsafe { core::ptr::read_volatile(stage.add(k)) };
                k += CONSUMERS as usize;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

/// Adds this consumer's elements of a stage seen as a slice.
fn slice_sum(stage: &[f32], tid: u32) -> f32 {
    stage.iter().skip((tid - crate::device::WARP_SIZE) as usize).step_by(CONSUMERS as usize).sum()
}

consumer_kernel! {
    /// BROKEN: the stage as a slice, summed before the wait.
    fn slice_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            // SAFETY: one stage of the ring.
            let stage = unsafe {
                core::slice::from_raw_parts(ring.add((state.index() * TILE_FLOATS) as usize), TILE_FLOATS as usize)
            };
            partial += slice_sum(stage, tid);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the stage as a slice, summed after the wait.
    fn slice_after_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            // SAFETY: one stage of the ring, loaded.
            let stage = unsafe {
                core::slice::from_raw_parts(ring.add((state.index() * TILE_FLOATS) as usize), TILE_FLOATS as usize)
            };
            partial += slice_sum(stage, tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: an array of stage pointers, indexed by the stage, read before the wait.
    fn pointer_array_before_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let stages = [ring, ring.wrapping_add(TILE_FLOATS as usize)];
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            partial += sum_stage!(stages[state.index() as usize], tid);
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: the array of stage pointers, read after the wait.
    fn pointer_array_after_wait(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let stages = [ring, ring.wrapping_add(TILE_FLOATS as usize)];
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            partial += sum_stage!(stages[state.index() as usize], tid);
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: a *global* load indexed by the stage index before the wait (it touches no
    /// stage); the inputs are non-negative, so the sign test never fires.
    fn global_load_by_stage_index(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            // SAFETY: `input` holds at least `STAGES` floats.
            let probe = unsafe { *input.add(state.index() as usize) };
            pipeline.consumer_wait(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            if probe < 0.0 {
                partial = -partial;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// CORRECT: copies its 8 elements into registers, releases, then adds them up.
    fn registers_then_release(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = ring.wrapping_add((state.index() * TILE_FLOATS) as usize);
            let mut values = [0.0f32; (TILE_FLOATS / CONSUMERS) as usize];
            for (i, value) in values.iter_mut().enumerate() {
                // SAFETY: inside a loaded stage.
                *value = unsafe { *stage.add((tid - crate::device::WARP_SIZE) as usize + i * CONSUMERS as usize) };
            }
            pipeline.consumer_release(&state);
            state.advance();
            for value in values {
                partial += value;
            }
            tile += grid_dim_x();
        }
        partial
    }
}

consumer_kernel! {
    /// BROKEN: reads the stage after releasing it, when the producer may already refill it.
    fn read_after_release(input, tiles, pipeline, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::new();
        let mut partial = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            pipeline.consumer_release(&state);
            partial += sum_stage!(ring.wrapping_add((state.index() * TILE_FLOATS) as usize), tid);
            state.advance();
            tile += grid_dim_x();
        }
        partial
    }
}

producer_kernel! {
    /// BROKEN: the producer zeroes the first float of the stage after issuing its copy, while
    /// the copy is in flight and consumers may read.
    fn producer_writes_stage_in_flight(input, tiles, pipeline, smem, tid) {
        let ring = dynamic_shared_base::<f32>();
        let mut state = State::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            // SAFETY: inside the ring (but the stage belongs to the copy and the consumers now).
            unsafe { *ring.add((state.index() * TILE_FLOATS) as usize) = 0.0 };
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
}
