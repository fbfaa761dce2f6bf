//! Persona: splits each tile across both warps of the block and combines the partials through a
//! shared-memory scratch area with `barrier()`; uses `warp_id()` / `lane_id()`.

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;

#[inline(always)]
fn src_of(input: *const f32, t: u32) -> *const u8 {
    input.wrapping_add(t as usize * TILE_FLOATS) as *const u8
}

// ---------------------------------------------------------------------------------------------
// Correct: 4 stages, all 64 threads consume (warp w: rows 4w..4w+3), thread 32 also produces.
// Scratch (32 floats) after the barriers.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_rows_two_warps(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = STAGES * TILE_BYTES;
    const SCRATCH: u32 = BARS + 2 * 8 * STAGES;
    block_threads(64);
    let tid = thread_idx_x();
    let warp = warp_id() as usize;
    let lane = lane_id() as usize;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    let mut fill = PipelineState::<STAGES>::producer_start();
    let mut read = PipelineState::<STAGES>::new();
    let mut partial = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 32 {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
        }
        pipe.consumer_wait(&read);
        let rows = smem.wrapping_add(read.index() as usize * TILE_FLOATS + warp * 128 + lane);
        // SAFETY: four rows of this warp's half, inside the held stage.
        partial += unsafe { *rows + *rows.add(32) + *rows.add(64) + *rows.add(96) };
        pipe.consumer_release(&read);
        read.advance();
        t += grid_dim_x();
    }
    if tid == 32 {
        pipe.producer_tail(fill);
    }

    let scratch = smem.wrapping_add((SCRATCH / 4) as usize);
    // SAFETY: scratch lies after the barriers.
    unsafe {
        if warp == 1 {
            *scratch.add(lane) = partial;
        }
        barrier();
        if warp == 0 {
            *out.add(block_idx_x() as usize * 32 + lane) = partial + *scratch.add(lane);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 4 stages; the warps take turns: warp 0 reads the block's even tiles, warp 1 the odd
// ones. Each warp's state walks every tile (advancing past the other warp's tiles without
// waiting), and each stage fill is released by the 32 threads of the warp that read it.
// Thread 0 also produces. Scratch after the barriers.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_even_odd_warps(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = STAGES * TILE_BYTES;
    const SCRATCH: u32 = BARS + 128;
    block_threads(64);
    let tid = thread_idx_x();
    let warp = warp_id();
    let lane = lane_id() as usize;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    let mut fill = PipelineState::<STAGES>::producer_start();
    let mut read = PipelineState::<STAGES>::new();
    let mut partial = 0.0f32;
    let mut k = 0u32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
        }
        if k % 2 == warp {
            pipe.consumer_wait(&read);
            let col = smem.wrapping_add(read.index() as usize * TILE_FLOATS + lane);
            for row in 0..8 {
                // SAFETY: inside the held stage.
                partial += unsafe { *col.add(row * 32) };
            }
            pipe.consumer_release(&read);
        }
        read.advance();
        k += 1;
        t += grid_dim_x();
    }
    if tid == 0 {
        pipe.producer_tail(fill);
    }

    let scratch = smem.wrapping_add((SCRATCH / 4) as usize);
    // SAFETY: scratch lies after the barriers.
    unsafe {
        if warp == 1 {
            *scratch.add(lane) = partial;
        }
        barrier();
        if warp == 0 {
            *out.add(block_idx_x() as usize * 32 + lane) = partial + *scratch.add(lane);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 5 stages, vectorised consumers: thread t reads floats 4t..4t+3 of each tile in one
// 16-byte load (row t/8, columns 4(t%8)..+3), keeps four accumulators, and the block combines
// the 8 rows' accumulators through a 256-float scratch after the barriers. Thread 32 produces.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_vec4(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    const BARS: u32 = STAGES * TILE_BYTES;
    const SCRATCH: u32 = (BARS + 16 * STAGES + 15) & !15;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    let mut fill = PipelineState::<STAGES>::producer_start();
    let mut read = PipelineState::<STAGES>::new();
    let mut acc = [0.0f32; 4];
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 32 {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
        }
        pipe.consumer_wait(&read);
        let quad = smem.wrapping_add(read.index() as usize * TILE_FLOATS + 4 * tid as usize) as *const [f32; 4];
        // SAFETY: 16-byte aligned group inside the held stage.
        let v = unsafe { *quad };
        pipe.consumer_release(&read);
        read.advance();
        acc[0] += v[0];
        acc[1] += v[1];
        acc[2] += v[2];
        acc[3] += v[3];
        t += grid_dim_x();
    }
    if tid == 32 {
        pipe.producer_tail(fill);
    }

    let scratch = smem.wrapping_add((SCRATCH / 4) as usize);
    // SAFETY: 256 floats of scratch after the barriers (ends below 6.1 KiB).
    unsafe {
        *(scratch.add(4 * tid as usize) as *mut [f32; 4]) = acc;
        barrier();
        if tid < 32 {
            let mut s = 0.0f32;
            for r in 0..8 {
                s += *scratch.add(r * 32 + tid as usize);
            }
            *out.add(block_idx_x() as usize * 32 + tid as usize) = s;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 2 stages; each thread copies its 4 floats of the stage into a staging tile in
// shared memory (outside the ring), releases, and after a block barrier warp 0 sums columns of
// the staging tile; a second barrier before the staging tile is overwritten. Thread 63 produces.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_stage_to_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BARS: u32 = STAGES * TILE_BYTES;
    const STAGING: u32 = BARS + 128;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let staging = smem.wrapping_add((STAGING / 4) as usize);

    let mut fill = PipelineState::<STAGES>::producer_start();
    let mut read = PipelineState::<STAGES>::new();
    let mut column = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 63 {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
        }
        pipe.consumer_wait(&read);
        let stage = smem.wrapping_add(read.index() as usize * TILE_FLOATS);
        // SAFETY: the stage is held; the staging tile is this thread's 4 floats.
        unsafe {
            for j in 0..4 {
                let i = tid as usize + 64 * j;
                *staging.add(i) = *stage.add(i);
            }
        }
        pipe.consumer_release(&read);
        read.advance();
        barrier();
        if tid < 32 {
            for row in 0..8 {
                // SAFETY: the staging tile is complete after the barrier.
                column += unsafe { *staging.add(row * 32 + tid as usize) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid == 63 {
        pipe.producer_tail(fill);
    }
    if tid < 32 {
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + tid as usize) = column };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: per-tile cross-warp combine through a scratch placed at "the end of the ring", which
// is where the pipeline's barriers are: warp 1's partials overwrite the mbarriers mid-run.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_scratch_on_bars(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING_END: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    let tid = thread_idx_x();
    let warp = warp_id() as usize;
    let lane = lane_id() as usize;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + RING_END, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + RING_END);
    let scratch = smem.wrapping_add((RING_END / 4) as usize);

    let mut fill = PipelineState::<STAGES>::producer_start();
    let mut read = PipelineState::<STAGES>::new();
    let mut total = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
        }
        pipe.consumer_wait(&read);
        let rows = smem.wrapping_add(read.index() as usize * TILE_FLOATS + warp * 128 + lane);
        // SAFETY: four rows of this warp's half, inside the held stage.
        let part = unsafe { *rows + *rows.add(32) + *rows.add(64) + *rows.add(96) };
        pipe.consumer_release(&read);
        read.advance();
        // SAFETY: (the author believed) scratch is free memory after the ring.
        unsafe {
            if warp == 1 {
                *scratch.add(lane) = part;
            }
            barrier();
            if warp == 0 {
                total += part + *scratch.add(lane);
            }
            barrier();
        }
        t += grid_dim_x();
    }
    if tid == 0 {
        pipe.producer_tail(fill);
    }
    if warp == 0 {
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the final cross-warp combine has no barrier between warp 1's scratch store and warp
// 0's load.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_no_sync(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const BARS: u32 = STAGES * TILE_BYTES;
    const SCRATCH: u32 = BARS + 128;
    block_threads(64);
    let tid = thread_idx_x();
    let warp = warp_id() as usize;
    let lane = lane_id() as usize;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    let mut fill = PipelineState::<STAGES>::producer_start();
    let mut read = PipelineState::<STAGES>::new();
    let mut partial = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 32 {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
        }
        pipe.consumer_wait(&read);
        let rows = smem.wrapping_add(read.index() as usize * TILE_FLOATS + warp * 128 + lane);
        // SAFETY: four rows of this warp's half, inside the held stage.
        partial += unsafe { *rows + *rows.add(32) + *rows.add(64) + *rows.add(96) };
        pipe.consumer_release(&read);
        read.advance();
        t += grid_dim_x();
    }
    if tid == 32 {
        pipe.producer_tail(fill);
    }

    let scratch = smem.wrapping_add((SCRATCH / 4) as usize);
    // SAFETY: scratch lies after the barriers.
    unsafe {
        if warp == 1 {
            *scratch.add(lane) = partial;
        } else {
            *out.add(block_idx_x() as usize * 32 + lane) = partial + *scratch.add(lane);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: "16 threads are enough": lanes 0..15 each sum two columns (c and c + 16), the other
// lanes of warp 0 skip the loop, but `init` still expects 32 releases per stage.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_half_lanes(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        let mut fill = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(fill);
    } else if tid < 16 {
        let c = tid as usize;
        let mut read = PipelineState::<STAGES>::new();
        let (mut lo, mut hi) = (0.0f32, 0.0f32);
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&read);
            let stage = smem.wrapping_add(read.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                // SAFETY: inside the held stage.
                unsafe {
                    lo += *stage.add(row * 32 + c);
                    hi += *stage.add(row * 32 + c + 16);
                }
            }
            pipe.consumer_release(&read);
            read.advance();
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe {
            *out.add(block_idx_x() as usize * 32 + c) = lo;
            *out.add(block_idx_x() as usize * 32 + c + 16) = hi;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: consumers "clean up" after themselves: after releasing the stage they zero the floats
// they read, racing with the producer's next copy into that stage.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_clear_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        let mut fill = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(fill);
    } else if tid < 32 {
        let c = tid as usize;
        let mut read = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&read);
            let col = smem.wrapping_add(read.index() as usize * TILE_FLOATS + c);
            for row in 0..8 {
                // SAFETY: inside the held stage.
                acc += unsafe { *col.add(row * 32) };
            }
            pipe.consumer_release(&read);
            for row in 0..8 {
                // SAFETY: (the author believed) the stage is still ours until we advance.
                unsafe { *col.add(row * 32) = 0.0 };
            }
            read.advance();
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + c) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the block barrier was put before the initialisation ("everyone in, then set up"):
// nothing orders thread 0's `init` before the other threads' first waits and arrivals.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_sync_before_init(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    barrier();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        let mut fill = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(fill);
    } else if tid < 32 {
        let c = tid as usize;
        let mut read = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&read);
            let col = smem.wrapping_add(read.index() as usize * TILE_FLOATS + c);
            for row in 0..8 {
                // SAFETY: inside the held stage.
                acc += unsafe { *col.add(row * 32) };
            }
            pipe.consumer_release(&read);
            read.advance();
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + c) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: thread 0 is both producer and consumer but runs its whole producer loop (and tail)
// before it starts consuming: once the ring is full it waits for its own release.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_split_produce_then_consume(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = STAGES * TILE_BYTES;
    const SCRATCH: u32 = BARS + 128;
    block_threads(64);
    let tid = thread_idx_x();
    let warp = warp_id() as usize;
    let lane = lane_id() as usize;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 64);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 0 {
        let mut fill = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&fill);
            pipe.producer_expect_tx(&fill, TILE_BYTES);
            bulk_copy_global_to_shared(window + fill.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&fill));
            fill.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(fill);
    }

    let mut read = PipelineState::<STAGES>::new();
    let mut partial = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&read);
        let rows = smem.wrapping_add(read.index() as usize * TILE_FLOATS + warp * 128 + lane);
        // SAFETY: four rows of this warp's half, inside the held stage.
        partial += unsafe { *rows + *rows.add(32) + *rows.add(64) + *rows.add(96) };
        pipe.consumer_release(&read);
        read.advance();
        t += grid_dim_x();
    }

    let scratch = smem.wrapping_add((SCRATCH / 4) as usize);
    // SAFETY: scratch lies after the barriers.
    unsafe {
        if warp == 1 {
            *scratch.add(lane) = partial;
        }
        barrier();
        if warp == 0 {
            *out.add(block_idx_x() as usize * 32 + lane) = partial + *scratch.add(lane);
        }
    }
}
