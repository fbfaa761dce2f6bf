//! Style "ring": the device API's mbarrier pipeline written out in the kernel, one variable
//! per pipeline, `while` loops over the block's tiles, thread 32 (or another single thread)
//! producing with bulk copies and warp 0 consuming.
//!
//! Layout of the 8 KiB window: the pipeline's barriers at byte 0 (16 bytes per stage), the ring
//! of 1 KiB stages at byte 128.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, launch,
    thread_idx_x, warp_id,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const RING: u32 = 128;
const COLS: u32 = 32;

#[inline(always)]
unsafe fn tile_source(input: *const f32, t: u32) -> *const u8 {
    unsafe { input.add(t as usize * TILE_FLOATS) as *const u8 }
}

/// Correct: two stages; thread 0 initialises, thread 32 produces, warp 0 consumes (lane `c`
/// sums column `c`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_basic(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid + COLS * k) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

/// Correct: four stages; roles by `match` on (warp, lane): warp 0 consumes, lane 0 of warp 1
/// produces, the rest of warp 1 leaves at once.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_warp_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window, 32)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let grid = grid_dim_x();
    match (warp_id(), lane_id()) {
        (0, lane) => {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
                let mut r = 0;
                while r < 8 {
                    acc += unsafe { *stage.add((r * COLS + lane) as usize) };
                    r += 1;
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            unsafe { *out.add((block_idx_x() * COLS + lane) as usize) = acc };
        }
        (1, 0) => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING + state.index() * TILE_BYTES,
                    unsafe { tile_source(input, t) },
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        }
        _ => {}
    }
}

/// Correct: three stages, `loop` with `break`, the consumer reading its column through a
/// slice over the stage with `get_unchecked`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            let first = ((RING + state.index() * TILE_BYTES) / 4) as usize;
            let stage = unsafe { core::slice::from_raw_parts(smem.add(first) as *const f32, TILE_FLOATS) };
            let mut k = tid as usize;
            while k < TILE_FLOATS {
                acc += unsafe { *stage.get_unchecked(k) };
                k += 32;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add((block_idx_x() * COLS + tid) as usize) = acc };
    } else if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    }
}

/// Correct: every thread consumes (64 consumers: column `tid % 32`, rows `4 * (tid / 32)..+4`)
/// and thread 0 also produces, one tile ahead of its own reads within the same loop. The two
/// warps' partials meet in a scratch area after the ring (past the barrier that follows the
/// producer's tail).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_all_consume(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 2;
    const SCRATCH: u32 = RING + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 64) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    let column = tid % 32;
    let half = tid / 32;
    let mut producer = PipelineState::<STAGES>::producer_start();
    let mut consumer = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&producer);
            pipe.producer_expect_tx(&producer, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + producer.index() * TILE_BYTES,
                unsafe { tile_source(input, t) },
                TILE_BYTES,
                pipe.producer_barrier(&producer),
            );
            producer.advance();
        }
        pipe.consumer_wait(&consumer);
        let stage = unsafe { smem.add((RING + consumer.index() * TILE_BYTES) as usize) } as *const f32;
        for r in 0..4 {
            acc += unsafe { *stage.add(((4 * half + r) * COLS + column) as usize) };
        }
        pipe.consumer_release(&consumer);
        consumer.advance();
        t += grid;
    }
    if tid == 0 {
        pipe.producer_tail(producer);
    }
    let scratch = unsafe { smem.add(SCRATCH as usize) } as *mut f32;
    unsafe { *scratch.add(tid as usize) = acc };
    barrier();
    if tid < COLS {
        let total = unsafe { *scratch.add(tid as usize) + *scratch.add(tid as usize + 32) };
        unsafe { *out.add((block_idx_x() * COLS + tid) as usize) = total };
    }
}

/// Number of tiles block `b` handles.
#[inline(always)]
fn tiles_of_block(tiles: u32, b: u32, grid: u32) -> u32 {
    if b >= tiles { 0 } else { (tiles - b + grid - 1) / grid }
}

/// Correct: both roles count the block's tiles first and run `for j in 0..count`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_for_count(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    let count = tiles_of_block(tiles, b, grid);
    if tid == 63 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for j in 0..count {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { tile_source(input, b + j * grid) },
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    }
    if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..count {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
            for r in 0..8u32 {
                acc += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

/// Broken: off by one in the consumer test (`tid <= CONSUMERS`): 33 threads release every stage
/// of a pipeline initialised for 32. The 33rd arrival completes the next phase of *empty* early,
/// so the producer refills stages that consumers still read (race; the count drifts).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_consumers_off_by_one(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    const CONSUMERS: u32 = 32;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, CONSUMERS) } else { Pipeline::<2>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid <= CONSUMERS {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid % COLS + COLS * k) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        if tid < COLS {
            unsafe { *out.add((b * COLS + tid) as usize) = acc };
        }
    } else if tid == 63 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    }
}

/// Broken: the pipeline is initialised for the whole block (64 releasing threads) but only warp
/// 0 consumes: *empty* never completes, the producer waits forever at its third tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_init_whole_block(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 64) } else { Pipeline::<2>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid + COLS * k) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

/// Broken: the consumer releases the stage first and reads it afterwards ("release early so the
/// producer can start the next copy"): the producer may refill the stage under the reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_release_then_read(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            pipe.consumer_release(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid + COLS * k) as usize) };
            }
            state.advance();
            t += grid;
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

/// Broken: the consumer never waits for *full*: it reads each stage before (or while) the bulk
/// copy lands, and its releases let the producer run ahead (stale reads, wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_no_wait(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid + COLS * k) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

/// Broken: the copy is sized in halves (`TILE_FLOATS * 2` bytes, as for f16) while the stage
/// announces the f32 tile's 1024 bytes: *full* never completes, the consumers hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_copy_half_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_FLOATS as u32 * 4);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(
                dst,
                unsafe { tile_source(input, t) },
                TILE_FLOATS as u32 * 2,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid + COLS * k) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

/// Broken: the copy goes to the *next* stage (`(index + 1) % STAGES`), which the consumers may
/// still be reading, while the acquired stage keeps old data (race, wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_copy_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    const STAGES: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let next = (state.index() + 1) % STAGES;
            let dst = window + RING + next * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid + COLS * k) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

/// Broken: the consumer makes its state inside the loop, so every tile waits on stage 0,
/// phase 0: it rereads stage 0 and never releases stage 1; the producer hangs on stage 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_state_in_loop(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let state = PipelineState::<2>::default();
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid + COLS * k) as usize) };
            }
            pipe.consumer_release(&state);
            t += grid;
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

/// Broken (subtle): the consumers stop at `tiles - 1` ("the last tile index") instead of
/// `tiles`. Only the block whose last tile is `tiles - 1` (block 7 here) loses a tile: its
/// consumers never take the last stage, and the producer's tail waits forever for its release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_consumer_stops_at_last(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let last = tiles - 1;
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < last {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid + COLS * k) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

/// Broken: the consumer special-cases the block's last tile and `break`s out of the loop
/// right after reading it, before the release: the last stage is never released and the
/// producer's tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_ring_break_holding_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let b = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, unsafe { tile_source(input, t) }, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for k in 0..8 {
                acc += unsafe { *stage.add((tid + COLS * k) as usize) };
            }
            if t + grid >= tiles {
                break;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}
