//! Pipeline kernels stamped out by a macro, one per ring size.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

/// A kernel with a ring of `stages` one-tile stages at the window's start, its barriers after
/// the ring initialised for `arrivals` releases; warp 0 consumes, the block's last thread
/// produces.
macro_rules! ring_kernel {
    ($(#[$meta:meta])* $name:ident, stages = $stages:expr, arrivals = $arrivals:expr) => {
        $(#[$meta])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            const S: u32 = $stages;
            const BARRIERS: u32 = S * TILE_BYTES;
            launch::block_threads(BLOCK);
            launch::dynamic_shared_bytes(SHARED_BYTES);
            let tid = thread_idx_x();
            let window = dynamic_shared_window_address();
            if tid == 0 {
                Pipeline::<S>::init(window + BARRIERS, $arrivals);
            }
            barrier();
            let pipe = Pipeline::<S>::attach(window + BARRIERS);
            let block = block_idx_x();
            let grid = grid_dim_x();
            let count = owned_tiles(tiles, block, grid);
            unsafe {
                if warp_id() == 0 {
                    let lane = lane_id() as usize;
                    let ring = dynamic_shared_base::<f32>();
                    let mut state = PipelineState::<S>::new();
                    let mut acc = 0.0f32;
                    for _ in 0..count {
                        pipe.consumer_wait(&state);
                        let stage = ring.add(state.index() as usize * TILE_FLOATS);
                        for row in 0..ROWS {
                            acc += *stage.add(row * COLS + lane);
                        }
                        pipe.consumer_release(&state);
                        state.advance();
                    }
                    *out.add(block as usize * COLS + lane) = acc;
                } else if tid == BLOCK - 1 {
                    let mut state = PipelineState::<S>::producer_start();
                    for k in 0..count {
                        pipe.producer_acquire(&state);
                        pipe.producer_expect_tx(&state, TILE_BYTES);
                        bulk_copy_global_to_shared(
                            window + state.index() * TILE_BYTES,
                            input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8,
                            TILE_BYTES,
                            pipe.producer_barrier(&state),
                        );
                        state.advance();
                    }
                    pipe.producer_tail(state);
                }
            }
        }
    };
}

ring_kernel!(
    /// Two stages.
    r17_macro_ring_s2, stages = 2, arrivals = WARP
);
ring_kernel!(
    /// Five stages.
    r17_macro_ring_s5, stages = 5, arrivals = WARP
);
ring_kernel!(
    /// Four stages, one release expected from every thread of the block.
    r17_macro_ring_block_arrivals, stages = 4, arrivals = BLOCK
);
