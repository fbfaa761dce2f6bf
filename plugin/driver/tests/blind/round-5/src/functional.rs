//! Persona: the functional author. Closures for the producer's and consumers' steps, iterator
//! adaptors for the loops, slices and `chunks` for reading stages.

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;

/// Closures: `produce` does one tile's acquire/expect/copy/advance, `column_sum` sums one
/// column of the stage a state points at.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_fn_closure_stage_sum(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();

    let produce = |state: &mut PipelineState<S>, tile: u32| {
        pipe.producer_acquire(state);
        pipe.producer_expect_tx(state, TILE_BYTES);
        let src = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
        bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
        state.advance();
    };
    let column_sum = |state: &PipelineState<S>, column: u32| -> f32 {
        let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
        // SAFETY: called between wait and release; in bounds of the stage.
        (0..8u32).map(|row| unsafe { *stage.add((row * 32 + column) as usize) }).sum()
    };

    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            produce(&mut state, t);
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column_sum(&state, column);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// Both loops are `for t in (block..tiles).step_by(grid)`; three stages; thread 63 produces,
/// warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_fn_step_by_loops(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + 4096;
    if tid == 63 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x() as usize;
    if tid == 63 {
        let mut state = PipelineState::<S>::producer_start();
        for t in (block..tiles).step_by(grid) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (block..tiles).step_by(grid) {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            for row in 0..8usize {
                // SAFETY: after the wait the stage holds the tile.
                acc += unsafe { *stage.add(row * 32 + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + tid as usize) = acc };
    }
}

/// The stage is viewed as a slice and cut into rows with `chunks_exact(32)`; each consumer
/// picks its column out of every row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_fn_slice_chunks(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window;
    let ring_window = window + 512;
    let ring = smem.wrapping_add(128);
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_window + state.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            // SAFETY: the stage holds 256 floats of the tile after the wait.
            let tile: &[f32] =
                unsafe { core::slice::from_raw_parts(ring.wrapping_add(state.index() as usize * TILE_FLOATS), TILE_FLOATS) };
            acc += tile.chunks_exact(32).map(|row| row[column]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}

/// Each consumer copies its eight values into registers, releases the stage at once, and adds
/// them afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_fn_copy_out_then_release(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 5;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            let mut values = [0.0f32; 8];
            for (row, value) in values.iter_mut().enumerate() {
                // SAFETY: after the wait; in bounds of the stage.
                *value = unsafe { stage.add(row * 32 + column).read() };
            }
            pipe.consumer_release(&state);
            state.advance();
            acc += values.iter().sum::<f32>();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}

/// BROKEN: the consumer builds a lazy iterator over its column, releases the stage, and only
/// then drives the iterator (`sum`): every read happens after the release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_fn_lazy_iter_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add(t as usize * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            // SAFETY: 256 floats of the ring.
            let tile: &[f32] =
                unsafe { core::slice::from_raw_parts(smem.wrapping_add(state.index() as usize * TILE_FLOATS), TILE_FLOATS) };
            let values = tile.iter().skip(column).step_by(32);
            pipe.consumer_release(&state);
            acc += values.sum::<f32>();
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}

/// BROKEN: the producer's closure announces and copies half a tile, and is called twice per
/// stage: two `expect_tx` arrivals on a full barrier initialised for one. The first half
/// completes the phase alone (consumers read half a tile), the second arrival runs into the
/// next phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_fn_expect_per_half(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const HALF_BYTES: u32 = TILE_BYTES / 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();

    let send_half = |state: &PipelineState<S>, tile: u32, half: u32| {
        pipe.producer_expect_tx(state, HALF_BYTES);
        let src = input.wrapping_add(tile as usize * TILE_FLOATS + half as usize * 128) as *const u8;
        bulk_copy_global_to_shared(
            window + state.index() * TILE_BYTES + half * HALF_BYTES,
            src,
            HALF_BYTES,
            pipe.producer_barrier(state),
        );
    };

    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            send_half(&state, t, 0);
            send_half(&state, t, 1);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                // SAFETY: in bounds of the stage.
                acc += unsafe { *stage.add(row * 32 + column) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}

/// BROKEN: the producer's closure forgets `producer_expect_tx` (the author believed the copy
/// announces its own bytes): the full barrier's one arrival never comes, consumers wait forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_fn_missing_expect(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();

    let produce = |state: &mut PipelineState<S>, tile: u32| {
        pipe.producer_acquire(state);
        let src = input.wrapping_add(tile as usize * TILE_FLOATS) as *const u8;
        bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
        state.advance();
    };

    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            produce(&mut state, t);
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add(state.index() as usize * TILE_FLOATS);
            acc += (0..8).map(|row| unsafe { *stage.add(row * 32 + column) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + column) = acc };
    }
}
