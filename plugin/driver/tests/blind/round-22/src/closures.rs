//! Pipeline kernels written with closures and macros: step closures, `for_each` loops whose
//! closures capture the state, `macro_rules!` roles, and the device API's `unrolled!`.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: u32 = 32;

/// Producer and consumer steps as closures over the pipeline and the ring; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_clos_step_closures(input: *const f32, tiles: u32, out: *mut f32) {
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

    let produce = |state: &mut PipelineState<S>, t: u32| {
        pipe.producer_acquire(state);
        pipe.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + state.index() * TILE_BYTES,
            input.wrapping_add((t * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(state),
        );
        state.advance();
    };
    let consume = |state: &mut PipelineState<S>, col: u32| -> f32 {
        pipe.consumer_wait(state);
        let stage = ring.wrapping_add((state.index() * TILE_FLOATS) as usize);
        let mut s = 0.0f32;
        for r in 0..ROWS {
            s += unsafe { *stage.add(r * COLS as usize + col as usize) };
        }
        pipe.consumer_release(state);
        state.advance();
        s
    };

    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            produce(&mut state, t);
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            acc += consume(&mut state, tid);
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Both roles iterate with `for_each`, their closures capturing the state by reference; three
/// stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_clos_for_each(input: *const f32, tiles: u32, out: *mut f32) {
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
    let step = grid_dim_x() as usize;
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        (first..tiles).step_by(step).for_each(|t| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        (first..tiles).step_by(step).for_each(|_| {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += unsafe { *stage.add(r * COLS as usize + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
        });
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// The producer's loop, as a macro.
macro_rules! produce_tiles {
    ($pipe:expr, $stages:expr, $window:expr, $input:expr, $tiles:expr) => {{
        let mut state = PipelineState::<$stages>::producer_start();
        let mut t = block_idx_x();
        while t < $tiles {
            $pipe.producer_acquire(&state);
            $pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                $window + state.index() * TILE_BYTES,
                $input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                $pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        $pipe.producer_tail(state);
    }};
}

/// The consumers' loop, as a macro evaluating to the column's sum.
macro_rules! consume_tiles {
    ($pipe:expr, $stages:expr, $ring:expr, $col:expr, $tiles:expr) => {{
        let mut state = PipelineState::<$stages>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < $tiles {
            $pipe.consumer_wait(&state);
            let stage = $ring.add((state.index() * TILE_FLOATS) as usize);
            let mut r = 0;
            while r < ROWS {
                acc += *stage.add(r * COLS as usize + $col as usize);
                r += 1;
            }
            $pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        acc
    }};
}

/// Roles written as macros; two stages, barriers at the window's start, ring from byte 64.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_clos_macro_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING: u32 = 64;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize);
    if tid == 0 {
        Pipeline::<S>::init(window, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    if tid == 32 {
        produce_tiles!(pipe, S, window + RING, input, tiles);
    } else if tid < COLS {
        let acc = consume_tiles!(pipe, S, ring, tid, tiles);
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// The consumer loads its column's eight rows with `unrolled!` into an array, then sums it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_clos_unrolled_rows(input: *const f32, tiles: u32, out: *mut f32) {
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
    if tid == 32 {
        produce_tiles!(pipe, S, window, input, tiles);
    } else if tid < COLS {
        let col = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            let mut rows = [0.0f32; ROWS];
            unrolled!(R < ROWS => {
                rows[R] = *stage.add(R * COLS as usize + col);
            });
            pipe.consumer_release(&state);
            acc += rows.iter().sum::<f32>();
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// BROKEN: the consumer's closure makes a fresh `PipelineState::new()` on every call, so every
/// tile waits on and releases stage 0: stage 1 is never released and the producer hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_clos_bad_fresh_state(input: *const f32, tiles: u32, out: *mut f32) {
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
    let take_tile = |col: u32| -> f32 {
        let state = PipelineState::<S>::new();
        pipe.consumer_wait(&state);
        let stage = ring.wrapping_add((state.index() * TILE_FLOATS) as usize);
        let mut s = 0.0;
        for r in 0..ROWS {
            s += unsafe { *stage.add(r * COLS as usize + col as usize) };
        }
        pipe.consumer_release(&state);
        s
    };
    if tid == 32 {
        produce_tiles!(pipe, S, window, input, tiles);
    } else if tid < COLS {
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += take_tile(tid);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// Fills a stage with `$parts` equal copies after announcing the whole tile.
macro_rules! copy_in_parts {
    ($pipe:expr, $state:expr, $dst:expr, $src:expr, $parts:expr) => {{
        let part = TILE_BYTES / $parts;
        $pipe.producer_expect_tx(&$state, TILE_BYTES);
        for p in 0..$parts - 1 {
            bulk_copy_global_to_shared($dst + p * part, $src.add((p * part) as usize), part, $pipe.producer_barrier(&$state));
        }
    }};
}

/// BROKEN: `copy_in_parts!` loops `0..$parts - 1`, so three of four quarter copies are issued
/// for a whole tile announced: the full barrier stays 256 bytes short and the consumers hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_clos_bad_macro_parts(input: *const f32, tiles: u32, out: *mut f32) {
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
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            copy_in_parts!(pipe, state, window + state.index() * TILE_BYTES, src, 4);
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let acc = consume_tiles!(pipe, S, ring, tid, tiles);
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: `unrolled!` is given a bound of nine rows ("eight rows and the last index"), so each
/// column sum takes row 0 of the next stage (the barriers after the last stage).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_clos_bad_unrolled_nine(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const LAST_ROW: usize = ROWS;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        produce_tiles!(pipe, S, window, input, tiles);
    } else if tid < COLS {
        let col = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            let mut rows = [0.0f32; LAST_ROW + 1];
            unrolled!(R < LAST_ROW + 1 => {
                rows[R] = *stage.add(R * COLS as usize + col);
            });
            pipe.consumer_release(&state);
            acc += rows.iter().sum::<f32>();
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the release closure lets only even lanes arrive ("a pair of lanes shares a row of
/// banks"), 16 arrivals per tile on empty barriers counting 32: the producer's second round
/// waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_clos_bad_release_even_lanes(input: *const f32, tiles: u32, out: *mut f32) {
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
    let hand_back = |state: &PipelineState<S>, col: u32| {
        if col % 2 == 0 {
            pipe.consumer_release(state);
        }
    };
    if tid == 32 {
        produce_tiles!(pipe, S, window, input, tiles);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS as usize + tid as usize);
            }
            hand_back(&state, tid);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}
