//! Views and copies: a stage seen as `[[f32; 32]; 8]`, as a slice, read with `read_volatile` and
//! `copy_nonoverlapping`; stages filled by two half copies or a row-copy loop; a consumer that
//! releases the previous stage late; a producer thread that also consumes.

use core::slice;

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const S: u32 = 4;

type Rows = [[f32; 32]; 8];

#[inline(always)]
unsafe fn start<const N: u32>(bars: u32) -> Pipeline<N> {
    if thread_idx_x() == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    Pipeline::<N>::attach(bars)
}

#[inline(always)]
unsafe fn producer<const N: u32>(pipe: &Pipeline<N>, window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<N>::producer_start();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mut t = block;
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
        t += grid;
    }
    pipe.producer_tail(state);
}

/// The stage cast to `*const [[f32; 32]; 8]` and indexed `(*rows)[r][c]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_rows_array(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<Rows>() as *const Rows;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 32 {
        producer(&pipe, window, input, tiles);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let rows = ring.add(state.index() as usize);
            for r in 0..8usize {
                acc += (*rows)[r][c];
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Column elements read with `core::ptr::read_volatile`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_read_volatile(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 32 {
        producer(&pipe, window, input, tiles);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += core::ptr::read_volatile(stage.add(r * 32 + c));
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Lane j copies 8 consecutive floats of row j % 8 (columns (j / 8) * 8 ..+ 8) into registers
/// with `copy_nonoverlapping`; segments of 8 lanes sum the rows at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_copy_nonoverlapping_run(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 32 {
        producer(&pipe, window, input, tiles);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let row = (tid % 8) as usize;
        let group = (tid / 8) as usize;
        let mut acc = [0.0f32; 8];
        let mut state = PipelineState::<S>::new();
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let mut run = [0.0f32; 8];
            core::ptr::copy_nonoverlapping(stage.add(row * 32 + group * 8), run.as_mut_ptr(), 8);
            pipe.consumer_release(&state);
            for k in 0..8usize {
                acc[k] += run[k];
            }
            state.advance();
            t += grid;
        }
        for k in 0..8usize {
            let total = segment_sum(acc[k], 8);
            if row == k {
                *out.add(block as usize * 32 + group * 8 + k) = total;
            }
        }
    }
}

/// Each stage is filled by two 512-byte copies under one `expect_tx(1024)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_two_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            let dest = window + state.index() * TILE_BYTES;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(dest, src.cast(), TILE_BYTES / 2, pipe.producer_barrier(&state));
            bulk_copy_global_to_shared(dest + TILE_BYTES / 2, src.add(TILE_FLOATS / 2).cast(), TILE_BYTES / 2, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Each stage is filled by eight 128-byte row copies from a counted loop under one expect_tx.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_row_copy_loop(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            for r in 0..8u32 {
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES + r * 128, src.add(r as usize * 32).cast(), 128, pipe.producer_barrier(&state));
            }
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Consumers release the previous tile's stage after reading the current one (three stages),
/// and the last one after the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_release_previous_late(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<N>(window + N * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 32 {
        producer(&pipe, window, input, tiles);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let c = tid as usize;
        let mut state = PipelineState::<N>::new();
        let mut prev = state;
        let mut holding = false;
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + c);
            }
            if holding {
                pipe.consumer_release(&prev);
            }
            prev = state;
            holding = true;
            state.advance();
            t += grid;
        }
        if holding {
            pipe.consumer_release(&prev);
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Thread 0 produces and is also one of the 32 consumers; it interleaves the two roles tile by
/// tile, so it never runs more than one tile ahead of its own consumption.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_producer_interleaves_consuming(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = (tiles + grid - 1 - block) / grid;
    let mut produced = PipelineState::<S>::producer_start();
    let mut consumed = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    for k in 0..mine {
        if tid == 0 {
            let t = block + k * grid;
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            bulk_copy_global_to_shared(window + produced.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&produced));
            produced.advance();
        }
        if tid < 32 {
            pipe.consumer_wait(&consumed);
            let stage = ring.add(consumed.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&consumed);
            consumed.advance();
        }
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
    if tid < 32 {
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// The stage as a bounds-checked slice indexed `rows[r * 32 + c]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_slice_indexed(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 2;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<N>(window + N * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 32 {
        producer(&pipe, window, input, tiles);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let c = tid as usize;
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let rows = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            for r in 0..8usize {
                acc += rows[r * 32 + c];
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// Broken: both half copies land on the stage's first half; its rows 4-7 are never filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_bad_half_copies_same_dest(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            let dest = window + state.index() * TILE_BYTES;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(dest, src.cast(), TILE_BYTES / 2, pipe.producer_barrier(&state));
            bulk_copy_global_to_shared(dest, src.add(TILE_FLOATS / 2).cast(), TILE_BYTES / 2, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: the row-copy loop runs `0..7`, delivering 896 of the 1024 announced bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_bad_row_copy_loop_seven(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            for r in 0..7u32 {
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES + r * 128, src.add(r as usize * 32).cast(), 128, pipe.producer_barrier(&state));
            }
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: the late-release consumer on a one-stage ring waits for the next tile while still
/// holding the only stage, which the producer needs released to fill it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_bad_release_late_one_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 1;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<N>(window + N * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 32 {
        producer(&pipe, window, input, tiles);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let c = tid as usize;
        let mut state = PipelineState::<N>::new();
        let mut prev = state;
        let mut holding = false;
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + c);
            }
            if holding {
                pipe.consumer_release(&prev);
            }
            prev = state;
            holding = true;
            state.advance();
            t += grid;
        }
        if holding {
            pipe.consumer_release(&prev);
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: the producer clears row 0 of its stage before acquiring it, while consumers may
/// still be reading the tile that stage held.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_bad_producer_clears_before_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for k in 0..32usize {
                *stage.add(k) = 0.0;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: thread 0 runs its whole producer loop before consuming, so with more tiles than
/// stages it waits at acquire for a release only it would make.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_bad_producer_runs_ahead_of_itself(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = (tiles + grid - 1 - block) / grid;
    let mut produced = PipelineState::<S>::producer_start();
    if tid == 0 {
        for k in 0..mine {
            let t = block + k * grid;
            pipe.producer_acquire(&produced);
            pipe.producer_expect_tx(&produced, TILE_BYTES);
            bulk_copy_global_to_shared(window + produced.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&produced));
            produced.advance();
        }
    }
    if tid < 32 {
        let mut consumed = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _k in 0..mine {
            pipe.consumer_wait(&consumed);
            let stage = ring.add(consumed.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&consumed);
            consumed.advance();
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
    if tid == 0 {
        pipe.producer_tail(produced);
    }
}

/// Broken: the slice over a stage is 288 floats long, so `chunks(32)` yields a ninth row from
/// the next stage (or the barriers).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_view_bad_slice_nine_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let pipe = start::<S>(window + S * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 32 {
        producer(&pipe, window, input, tiles);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let rows = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS + 32);
            acc += rows.chunks(32).map(|row| row[c]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}
