//! Pipeline kernels written top to bottom, the way a first version usually looks: one producer
//! thread, one warp of consumers (a column each), the ring and its barriers laid out by hand.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;

/// Four stages at the start of the window, barriers right after them; producer thread 32,
/// consumers warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_basic_four_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Two stages; the last thread of the block initialises the barriers and produces, `for` loops
/// over `step_by` ranges on both sides.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_basic_two_stages_last_thread(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const PRODUCER: u32 = 63;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let pipe = if tid == PRODUCER { Pipeline::<S>::init(bars, COLS) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;

    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        for t in (first..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS as usize);
            let dst = window + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _t in (first..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            let base = (state.index() * TILE_FLOATS) as usize;
            let mut r = 0;
            while r < ROWS as usize {
                acc += *ring.add(base + r * COLS as usize + tid as usize);
                r += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Seven stages (7 KiB of ring, barriers at 7168): thread 0 produces, warp 1 consumes; the tile
/// loops are `loop` with an explicit break.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_basic_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 7;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let step = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            let mut part = 0.0f32;
            for r in 0..ROWS {
                part += *stage.add((r * COLS + col) as usize);
            }
            pipe.consumer_release(&state);
            acc += part;
            state.advance();
            t += step;
        }
        *out.add((block_idx_x() * COLS + col) as usize) = acc;
    }
}

/// Barriers first (64 bytes at the window's start), the ring from byte 128.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_basic_barriers_first(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING_OFFSET: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING_OFFSET / 4) as usize);
    if tid == 0 {
        Pipeline::<S>::init(window, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_OFFSET + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    }
    if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            acc += *stage.add(tid as usize)
                + *stage.add((32 + tid) as usize)
                + *stage.add((64 + tid) as usize)
                + *stage.add((96 + tid) as usize)
                + *stage.add((128 + tid) as usize)
                + *stage.add((160 + tid) as usize)
                + *stage.add((192 + tid) as usize)
                + *stage.add((224 + tid) as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Three stages; both roles count their own tiles down from the number the block owns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_basic_countdown_three(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    let owned = if tiles > first { (tiles - first + step - 1) / step } else { 0 };

    if tid == 40 {
        let mut state = PipelineState::<S>::producer_start();
        let mut left = owned;
        let mut t = first;
        while left > 0 {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut left = owned;
        while left > 0 {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the copy's size is written as the tile's element count, 256, where the barrier was
/// told to expect the tile's 1024 bytes: the full barrier never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_basic_bad_copy_size_in_elements(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let copy_size = ROWS * COLS;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                copy_size,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: eight stages fill the whole 8 KiB window, so the barriers land at byte 8192, past
/// the end of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_basic_bad_eight_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 8;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the consumers start from `producer_start()` (parity 1), so their first wait on each
/// stage returns at once on a stage nothing has landed in, and every later wait is a phase early.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_basic_bad_consumer_parity(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    let start = PipelineState::<S>::producer_start();

    if tid == 32 {
        let mut state = start;
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = start;
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}
