//! A newcomer's straightforward kernels: one `while` loop over the block's tiles, thread 32 as
//! the producer and warp 0 as the consumers, everything spelled out inline in the kernel body.
//! Some stage tiles through ordinary shared memory with `barrier()`, some use the pipeline.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch,
    thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;
const STAGES: u32 = 4;
const PRODUCER: u32 = 32;

/// Stages each tile through shared memory (every thread copies four floats), then warp 0 sums its
/// column; two barriers per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_staged_sum(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let buf = dynamic_shared_base::<f32>();
        let mut sum = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let src = input.add(tile as usize * TILE_FLOATS);
            let mut i = tid;
            while i < TILE_FLOATS {
                *buf.add(i) = *src.add(i);
                i += THREADS;
            }
            barrier();
            if tid < COLS {
                for r in 0..ROWS {
                    sum += *buf.add(r * COLS + tid);
                }
            }
            barrier();
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = sum;
        }
    }
}

/// Same staging, but the one barrier per tile sits at the top of the loop ("wait until everyone
/// is ready, then load"): warp 0 sums rows 1, 3, 5, 7 that warp 1 is still storing, with no barrier
/// between those stores and the reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_barrier_before_load(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let buf = dynamic_shared_base::<f32>();
        let mut sum = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            barrier();
            let src = input.add(tile as usize * TILE_FLOATS);
            let mut i = tid;
            while i < TILE_FLOATS {
                *buf.add(i) = *src.add(i);
                i += THREADS;
            }
            if tid < COLS {
                for r in 0..ROWS {
                    sum += *buf.add(r * COLS + tid);
                }
            }
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = sum;
        }
    }
}

/// Stores each tile transposed into a 32 x 9 padded array, so that thread `c` then sums nine
/// consecutive floats (eight used) of its own row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_transpose_sum(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let buf = dynamic_shared_base::<f32>();
        let pitch = ROWS + 1;
        let mut sum = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let src = input.add(tile as usize * TILE_FLOATS);
            let mut i = tid;
            while i < TILE_FLOATS {
                let r = i / COLS;
                let c = i % COLS;
                *buf.add(c * pitch + r) = *src.add(i);
                i += THREADS;
            }
            barrier();
            if tid < COLS {
                let row = buf.add(tid * pitch);
                for r in 0..ROWS {
                    sum += *row.add(r);
                }
            }
            barrier();
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = sum;
        }
    }
}

/// The transposing kernel with both barriers moved into the readers' branch ("only the threads
/// that read need to wait"): warp 1 never waits, runs ahead through the tiles and overwrites
/// the transposed tile while warp 0 sums it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_transpose_sync_only_readers(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let buf = dynamic_shared_base::<f32>();
        let pitch = ROWS + 1;
        let mut sum = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let src = input.add(tile as usize * TILE_FLOATS);
            let mut i = tid;
            while i < TILE_FLOATS {
                *buf.add((i % COLS) * pitch + i / COLS) = *src.add(i);
                i += THREADS;
            }
            if tid < COLS {
                barrier();
                let row = buf.add(tid * pitch);
                for r in 0..ROWS {
                    sum += *row.add(r);
                }
                barrier();
            }
            tile += grid_dim_x();
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = sum;
        }
    }
}

/// The textbook pipeline: four 1 KiB stages, barriers after the ring, thread 32 copies each tile
/// with one bulk copy, the 32 threads of warp 0 each sum one column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_pipeline_basic(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, 32);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    src,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add((state.index() * 256) as usize);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// Each tile arrives as two 512-byte bulk copies (rows 0-3 and rows 4-7) completing on the same
/// full barrier, which was told to expect all 1024 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_pipeline_two_halves(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, 32);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
                let dst = window + state.index() * TILE_BYTES;
                let full = pipe.producer_barrier(&state);
                bulk_copy_global_to_shared(dst, src, 512, full);
                bulk_copy_global_to_shared(dst + 512, src.add(512), 512, full);
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(state.index() as usize * TILE_FLOATS);
                let mut r = 0;
                while r < ROWS {
                    sum += *stage.add(r * COLS + tid as usize);
                    r += 1;
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// Two stages; both roles first count the block's tiles and then run `for k in 0..count`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_pipeline_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + 2 * TILE_BYTES;
        let first = block_idx_x();
        let step = grid_dim_x();
        let count = if tiles > first { (tiles - first + step - 1) / step } else { 0 };
        if tid == 0 {
            Pipeline::<2>::init(bars, 32);
        }
        barrier();
        let pipe = Pipeline::<2>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<2>::producer_start();
            for k in 0..count {
                let tile = first + k * step;
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<2>::new();
            let mut sum = 0.0f32;
            for _ in 0..count {
                pipe.consumer_wait(&state);
                let stage = smem.add(state.index() as usize * TILE_FLOATS);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add((first * 32 + tid) as usize) = sum;
        }
    }
}

/// The consumers' state is made with `producer_start()` (copied from the producer's branch):
/// their first wait on each stage asks for parity 1, which a fresh barrier reports complete at
/// once, so they read and release stages before any copy landed; on the second lap they wait on
/// a parity whose phase may already have completed twice, and hang (or sum stale data).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_consumer_starts_like_producer(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, 32);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut sum = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add((state.index() * 256) as usize);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// The consumers' loop tests `tile <= tiles` where the producer's tests `tile < tiles`: block 0
/// consumes a ninth tile (index 64) that nobody copies and waits for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_consumer_inclusive_bound(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, 32);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut tile = block_idx_x();
            while tile <= tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add((state.index() * 256) as usize);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// Thread 0 initialises the pipeline and then calls `barrier()` inside the same `if`: the other
/// 63 threads never reach a block barrier, thread 0 never leaves it, so stage 0 is never
/// released by thread 0 and the producer's tail (and thread 0) wait forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_init_and_sync_in_branch(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, 32);
            barrier();
        }
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add((state.index() * 256) as usize);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}

/// The consumers wait on and release the state's stage but read the stage numbered
/// `tile % STAGES` (the global tile number, not the block's own count): with 8 blocks every tile
/// of block `b` maps to stage `b % 4`, so from the second tile on they read a stage that holds
/// another tile (or one the producer is refilling).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_plain_stage_from_tile_number(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, 32);
        }
        barrier();
        let pipe = Pipeline::<STAGES>::attach(bars);
        if tid == PRODUCER {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(((tile % STAGES) * 256) as usize);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + tid) as usize) = sum;
        }
    }
}
