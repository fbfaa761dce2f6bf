//! Written by someone new to GPU pipelines: one long function per kernel, `for` loops over
//! counts, everything spelled out.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::{TILE_BYTES, TILE_FLOATS};
use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

/// Two stages; thread 0 copies, threads 32..63 add.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn beg_two_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let shared = dynamic_shared_base::<f32>();
    let shared_address = dynamic_shared_window_address();
    let barrier_address = shared_address + 2 * TILE_BYTES;
    let thread = thread_idx_x();
    let block = block_idx_x();
    let blocks = grid_dim_x();

    if thread == 0 {
        Pipeline::<2>::init(barrier_address, 32);
    }
    barrier();
    let pipeline = Pipeline::<2>::attach(barrier_address);

    if thread == 0 {
        let mut state = PipelineState::<2>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let destination = shared_address + state.index() * TILE_BYTES;
            let source = input.add(tile as usize * TILE_FLOATS) as *const u8;
            let full_barrier = pipeline.producer_barrier(&state);
            bulk_copy_global_to_shared(destination, source, TILE_BYTES, full_barrier);
            state.advance();
            tile = tile + blocks;
        }
        pipeline.producer_tail(state);
    }

    if thread >= 32 {
        let column = (thread - 32) as usize;
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = shared.add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum = sum + *stage.add(row * 32 + column);
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile = tile + blocks;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

/// One stage only: the producer waits for each tile to be consumed before the next copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn beg_single_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let shared = dynamic_shared_base::<f32>();
    let shared_address = dynamic_shared_window_address();
    let barrier_address = shared_address + TILE_BYTES;
    let thread = thread_idx_x();
    let block = block_idx_x();
    let blocks = grid_dim_x();

    if thread == 0 {
        Pipeline::<1>::init(barrier_address, 32);
    }
    barrier();
    let pipeline = Pipeline::<1>::attach(barrier_address);

    if thread == 63 {
        let mut state = PipelineState::<1>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                shared_address + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
            tile = tile + blocks;
        }
        pipeline.producer_tail(state);
    } else if thread < 32 {
        let column = thread as usize;
        let mut state = PipelineState::<1>::new();
        let mut sum = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = shared.add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum = sum + *stage.add(row * 32 + column);
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile = tile + blocks;
        }
        *out.add(block as usize * 32 + column) = sum;
    } else {
        // threads 32..62 have nothing to do
    }
}

/// Both sides count how many tiles this block owns and loop that many times.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn beg_counted(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let shared = dynamic_shared_base::<f32>();
    let shared_address = dynamic_shared_window_address();
    let barrier_address = shared_address + 4 * TILE_BYTES;
    let thread = thread_idx_x();
    let block = block_idx_x();
    let blocks = grid_dim_x();
    let my_tile_count = (tiles - block + blocks - 1) / blocks;

    if thread == 0 {
        Pipeline::<4>::init(barrier_address, 32);
    }
    barrier();
    let pipeline = Pipeline::<4>::attach(barrier_address);

    if thread == 32 {
        let mut state = PipelineState::<4>::producer_start();
        for i in 0..my_tile_count {
            let tile = block + i * blocks;
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                shared_address + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
        }
        pipeline.producer_tail(state);
    }
    if thread < 32 {
        let column = thread as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0;
        for _i in 0..my_tile_count {
            pipeline.consumer_wait(&state);
            let stage = shared.add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum = sum + *stage.add(row * 32 + column);
            }
            pipeline.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

/// The producer copies every tile and is done.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn beg_no_tail(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let shared = dynamic_shared_base::<f32>();
    let shared_address = dynamic_shared_window_address();
    let barrier_address = shared_address + 4 * TILE_BYTES;
    let thread = thread_idx_x();
    let block = block_idx_x();
    let blocks = grid_dim_x();

    if thread == 0 {
        Pipeline::<4>::init(barrier_address, 32);
    }
    barrier();
    let pipeline = Pipeline::<4>::attach(barrier_address);

    if thread == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                shared_address + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
            tile = tile + blocks;
        }
    }
    if thread < 32 {
        let column = thread as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = shared.add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum = sum + *stage.add(row * 32 + column);
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile = tile + blocks;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

/// Two stages; the consumers wait when the ring starts over at stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn beg_wait_on_wrap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let shared = dynamic_shared_base::<f32>();
    let shared_address = dynamic_shared_window_address();
    let barrier_address = shared_address + 2 * TILE_BYTES;
    let thread = thread_idx_x();
    let block = block_idx_x();
    let blocks = grid_dim_x();

    if thread == 0 {
        Pipeline::<2>::init(barrier_address, 32);
    }
    barrier();
    let pipeline = Pipeline::<2>::attach(barrier_address);

    if thread == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                shared_address + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
            tile = tile + blocks;
        }
        pipeline.producer_tail(state);
    }
    if thread < 32 {
        let column = thread as usize;
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0;
        let mut tile = block;
        while tile < tiles {
            if state.index() == 0 {
                pipeline.consumer_wait(&state);
            }
            let stage = shared.add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum = sum + *stage.add(row * 32 + column);
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile = tile + blocks;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

/// The rows are added one by one; the stage is handed back before the last row is added.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn beg_last_read_late(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let shared = dynamic_shared_base::<f32>();
    let shared_address = dynamic_shared_window_address();
    let barrier_address = shared_address + 4 * TILE_BYTES;
    let thread = thread_idx_x();
    let block = block_idx_x();
    let blocks = grid_dim_x();

    if thread == 0 {
        Pipeline::<4>::init(barrier_address, 32);
    }
    barrier();
    let pipeline = Pipeline::<4>::attach(barrier_address);

    if thread == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                shared_address + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
            tile = tile + blocks;
        }
        pipeline.producer_tail(state);
    }
    if thread < 32 {
        let column = thread as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = shared.add(state.index() as usize * TILE_FLOATS);
            sum = sum + *stage.add(column);
            sum = sum + *stage.add(32 + column);
            sum = sum + *stage.add(64 + column);
            sum = sum + *stage.add(96 + column);
            sum = sum + *stage.add(128 + column);
            sum = sum + *stage.add(160 + column);
            sum = sum + *stage.add(192 + column);
            pipeline.consumer_release(&state);
            sum = sum + *stage.add(224 + column);
            state.advance();
            tile = tile + blocks;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

/// One state variable declared for the whole kernel.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn beg_one_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let shared = dynamic_shared_base::<f32>();
    let shared_address = dynamic_shared_window_address();
    let barrier_address = shared_address + 4 * TILE_BYTES;
    let thread = thread_idx_x();
    let block = block_idx_x();
    let blocks = grid_dim_x();

    if thread == 0 {
        Pipeline::<4>::init(barrier_address, 32);
    }
    barrier();
    let pipeline = Pipeline::<4>::attach(barrier_address);
    let mut state = PipelineState::<4>::new();

    if thread == 32 {
        let mut tile = block;
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                shared_address + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
            tile = tile + blocks;
        }
        pipeline.producer_tail(state);
    }
    if thread < 32 {
        let column = thread as usize;
        let mut sum = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = shared.add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum = sum + *stage.add(row * 32 + column);
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile = tile + blocks;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

/// The stage's first element is found from the stage number and the tile size.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn beg_units_mixup(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let shared = dynamic_shared_base::<f32>();
    let shared_address = dynamic_shared_window_address();
    let barrier_address = shared_address + 4 * TILE_BYTES;
    let thread = thread_idx_x();
    let block = block_idx_x();
    let blocks = grid_dim_x();

    if thread == 0 {
        Pipeline::<4>::init(barrier_address, 32);
    }
    barrier();
    let pipeline = Pipeline::<4>::attach(barrier_address);

    if thread == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                shared_address + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
            tile = tile + blocks;
        }
        pipeline.producer_tail(state);
    }
    if thread < 32 {
        let column = thread as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage_start = state.index() * TILE_BYTES;
            let stage = shared.add(stage_start as usize);
            for row in 0..8 {
                sum = sum + *stage.add(row * 32 + column);
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile = tile + blocks;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}
