//! Persona: all configuration in `const` items, `const fn` layouts and const generics; one
//! generic body instantiated by several thin kernels.

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{WARP_SIZE, barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK: u32 = 64;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = TILE_FLOATS * core::mem::size_of::<f32>() as u32;
const COLUMNS: u32 = 32;
const ROWS: u32 = TILE_FLOATS / COLUMNS;
const PRODUCER: u32 = BLOCK - 1;

const fn align16(x: u32) -> u32 {
    (x + 15) & !15
}
const fn ring_bytes(stages: u32) -> u32 {
    stages * TILE_BYTES
}
const fn barrier_offset(stages: u32) -> u32 {
    ring_bytes(stages)
}
const fn scratch_offset(stages: u32) -> u32 {
    align16(barrier_offset(stages) + pipeline_barrier_bytes(stages))
}

/// The column sums with `S` stages and `WARPS` consuming warps (1 or 2); thread `PRODUCER`
/// produces (and, with two warps, consumes too).
#[inline(always)]
unsafe fn column_sums<const S: u32, const WARPS: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    const { assert!(S >= 1 && S <= 7 && (WARPS == 1 || WARPS == 2)) };
    let rows_per_warp = ROWS / WARPS;
    let tid = thread_idx_x();
    let lane = tid % WARP_SIZE;
    let warp = tid / WARP_SIZE;
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();

    if tid == 0 {
        Pipeline::<S>::init(window + barrier_offset(S), WARPS * WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + barrier_offset(S));

    let mut producer = PipelineState::<S>::producer_start();
    let mut consumer = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == PRODUCER {
            pipe.producer_acquire(&producer);
            pipe.producer_expect_tx(&producer, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + producer.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&producer),
            );
            producer.advance();
        }
        if warp < WARPS {
            pipe.consumer_wait(&consumer);
            let stage = shared.wrapping_add((consumer.index() * TILE_FLOATS) as usize);
            for r in 0..rows_per_warp {
                let row = warp * rows_per_warp + r;
                // SAFETY: inside the held stage.
                acc += unsafe { *stage.add((row * COLUMNS + lane) as usize) };
            }
            pipe.consumer_release(&consumer);
            consumer.advance();
        }
        t += grid_dim_x();
    }
    if tid == PRODUCER {
        pipe.producer_tail(producer);
    }

    let slot = (block_idx_x() * COLUMNS + lane) as usize;
    if WARPS == 1 {
        if warp == 0 {
            // SAFETY: 32 outputs per block.
            unsafe { *out.add(slot) = acc };
        }
    } else {
        let scratch = shared.wrapping_add((scratch_offset(S) / 4) as usize);
        // SAFETY: the scratch lies past the barriers, inside the 8 KiB.
        unsafe {
            if warp == 1 {
                *scratch.add(lane as usize) = acc;
            }
            barrier();
            if warp == 0 {
                *out.add(slot) = acc + *scratch.add(lane as usize);
            }
        }
    }
}

// Correct: instantiations of the generic body.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_gen_s2_w1(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    unsafe { column_sums::<2, 1>(input, tiles, out) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_gen_s6_w2(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    unsafe { column_sums::<6, 2>(input, tiles, out) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_gen_s7_w1(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    unsafe { column_sums::<7, 1>(input, tiles, out) }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the pipeline type was bumped to 4 stages, but the layout constant still says "double
// buffer": the barriers sit at 2 KiB, inside stage 2, which the copies overwrite.
// ---------------------------------------------------------------------------------------------
type Ring4 = Pipeline<4>;
type Slot4 = PipelineState<4>;
const DOUBLE_BUFFER_BYTES: u32 = 2 * TILE_BYTES;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_gen_ring_too_small(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let bars = window + DOUBLE_BUFFER_BYTES;
    if tid == 0 {
        Ring4::init(bars, COLUMNS);
    }
    barrier();
    let pipe = Ring4::attach(bars);

    if tid == PRODUCER {
        let mut st = Slot4::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < COLUMNS {
        let mut st = Slot4::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = shared.wrapping_add((st.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                // SAFETY: inside the held stage.
                acc += unsafe { *stage.add((r * COLUMNS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the consumers count their tiles as `(tiles - block) / grid` (floor, should round up):
// blocks 1..7 consume one tile fewer than the producer fills, its tail never returns.
// ---------------------------------------------------------------------------------------------
const S3: u32 = 3;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_gen_consumer_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let bars = window + barrier_offset(S3);
    if tid == 0 {
        Pipeline::<S3>::init(bars, COLUMNS);
    }
    barrier();
    let pipe = Pipeline::<S3>::attach(bars);
    let block = block_idx_x();
    let grid = grid_dim_x();

    if tid == PRODUCER {
        let mut st = PipelineState::<S3>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += grid;
        }
        pipe.producer_tail(st);
    } else if tid < COLUMNS {
        let count = if block < tiles { (tiles - block) / grid } else { 0 };
        let mut st = PipelineState::<S3>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < count {
            pipe.consumer_wait(&st);
            let stage = shared.wrapping_add((st.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                // SAFETY: inside the held stage.
                acc += unsafe { *stage.add((r * COLUMNS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * COLUMNS + tid) as usize) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: `CONSUMER_THREADS` is declared as the whole block, but only warp 0 consumes: the empty
// barriers wait for 64 arrivals and get 32.
// ---------------------------------------------------------------------------------------------
const CONSUMER_THREADS: u32 = BLOCK;
const S5: u32 = 5;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_gen_release_count_const(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let bars = window + barrier_offset(S5);
    if tid == 0 {
        Pipeline::<S5>::init(bars, CONSUMER_THREADS);
    }
    barrier();
    let pipe = Pipeline::<S5>::attach(bars);

    if tid == PRODUCER {
        let mut st = PipelineState::<S5>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < WARP_SIZE {
        let mut st = PipelineState::<S5>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = shared.wrapping_add((st.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                // SAFETY: inside the held stage.
                acc += unsafe { *stage.add((r * COLUMNS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = acc };
    }
}
