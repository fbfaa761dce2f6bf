//! Pipelines written the plain way: one function per kernel, `while` loops over the owned tiles,
//! a producer thread and a consumer warp. The variations are in the ring's place, the stage
//! count, which threads take which role and how the loop is counted.

#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{
    WARP_SIZE, barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

/// Four stages after the barriers; thread 32 copies, warp 0 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_while_four(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING: u32 = 64;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING + st.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(tid as usize + r * COLS);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Two stages, counted loops over `owned_tiles`, the last thread of the block copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_counted_pair(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING: u32 = 32;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<S>::init(win, WARP_SIZE) } else { Pipeline::<S>::attach(win) };
    barrier();
    let n = owned_tiles(tiles);
    if tid == THREADS - 1 {
        let mut st = PipelineState::<S>::producer_start();
        let mut k = 0;
        while k < n {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = win + RING + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, tile_source(input, owned_tile(k)), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            k += 1;
        }
        pipe.producer_tail(st);
    }
    if tid < WARP_SIZE {
        let base = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0;
        let mut k = 0;
        while k < n {
            pipe.consumer_wait(&st);
            acc += column_sum(base.add(RING as usize / 4 + st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        store_column(out, tid, acc);
    }
}

/// Seven stages (the most an 8 KiB window holds next to their barriers); warp 1 sums and
/// thread 0 copies; the consumer loop is a `loop` with its test at the top.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 7;
    const RING: u32 = pipeline_barrier_bytes(S);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    let step = grid_dim_x();
    if tid >= 32 {
        let column = tid - 32;
        let ring = dynamic_shared_base::<u8>().add(RING as usize) as *const f32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let mut r = 0;
            while r < ROWS {
                acc += *stage.add(column as usize + COLS * r);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        store_column(out, column, acc);
    } else if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING + TILE_BYTES * st.index(),
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    }
}

/// The ring at the start of the window and the barriers after it; both roles count down the
/// tiles they have left.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_ring_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const BARRIERS: u32 = S * TILE_BYTES;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win + BARRIERS, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win + BARRIERS);
    if tid == 40 {
        let mut st = PipelineState::<S>::producer_start();
        let mut left = owned_tiles(tiles);
        let mut t = block_idx_x();
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut left = owned_tiles(tiles);
        while left > 0 {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        store_column(out, tid, acc);
    }
}

/// Stage offsets and the state copied through locals before use.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_local_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const RING: u32 = 64;
    let tid = thread_idx_x();
    let lane = tid % 32;
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    let first = block_idx_x();
    let stride = grid_dim_x();
    if tid == 33 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            let cur = st;
            pipe.producer_acquire(&cur);
            pipe.producer_expect_tx(&cur, TILE_BYTES);
            let slot = cur.index();
            let offset = slot * TILE_BYTES;
            let dst = win + RING + offset;
            let bar = pipe.producer_barrier(&cur);
            let src = tile_source(input, t);
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, bar);
            st = cur;
            st.advance();
            t += stride;
        }
        let last = st;
        pipe.producer_tail(last);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            let cur = st;
            pipe.consumer_wait(&cur);
            let slot = cur.index() as usize;
            let stage = base.add(RING as usize / 4).add(slot * TILE_FLOATS);
            let mine = stage.add(lane as usize);
            let mut partial = 0.0f32;
            for r in 0..ROWS {
                partial += *mine.add(r * COLS);
            }
            acc += partial;
            pipe.consumer_release(&cur);
            st = cur;
            st.advance();
            t += stride;
        }
        store_column(out, lane, acc);
    }
}

/// Consumers read a stage as an array of rows (`[f32; 32]` each).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_row_arrays(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 48 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let rows = dynamic_shared_base::<u8>().add(RING as usize) as *const [f32; COLS];
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = rows.add(st.index() as usize * ROWS);
            for r in 0..ROWS {
                acc += (*tile.add(r))[tid as usize];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: eight stages after 128 bytes of barriers need 8320 bytes; the last stage's copy and
/// reads run past the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_bad_eight_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 8;
    const RING: u32 = pipeline_barrier_bytes(S);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the stage size is written for two tiles per stage, but the producer copies one;
/// the *full* barrier waits for 1 KiB that never arrives.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_bad_stage_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING: u32 = 64;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, STAGE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * STAGE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * (STAGE_BYTES as usize / 4)), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the consumers start from the producer's state (parity 1), so their first wait on
/// each fresh *full* barrier returns at once and they read stages before the copies land.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_bad_consumer_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING: u32 = 64;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    let start = PipelineState::<S>::producer_start();
    if tid == 32 {
        let mut st = start;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = start;
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the ring is padded by one barrier (8 bytes) after the barrier area, so every bulk
/// copy's shared destination is 8 bytes off a 16-byte boundary.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_bad_ring_padding(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING: u32 = pipeline_barrier_bytes(S) + 8;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the *empty* barriers are initialised for the consumer warp plus the producer
/// (33 arrivals), but the producer never releases; no stage is ever freed for a second fill.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_bad_release_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const RING: u32 = 48;
    const ARRIVALS: u32 = WARP_SIZE + 1;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, ARRIVALS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        store_column(out, tid, acc);
    }
}

/// Broken: the consumers' loop test looks one tile ahead (`t + step < tiles`), so they take one
/// tile fewer than the producer copies; its last stage is never released and the tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r18_pb_bad_lookahead_bound(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING: u32 = 64;
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(win, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(win);
    let step = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + RING + st.index() * TILE_BYTES, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t + step < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(ring.add(st.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        store_column(out, tid, acc);
    }
}
