//! Performance-minded code: 16-byte vector loads and stores, register prefetch, double
//! buffering, deeper rings, two tiles per stage, rows split over two pipelines, written-out
//! loops (`unrolled!`) and several accumulators for instruction-level parallelism.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::row::FourFloats;
use crate::device::unrolled::unrolled;
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch,
    thread_idx_x,
};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;
/// 16-byte chunks per tile row, and per tile.
const CHUNKS_PER_ROW: usize = COLS / 4;
const CHUNKS_PER_TILE: usize = TILE / 4;
const PRODUCER: u32 = 32;

/// Column `col` of a tile, rows written out, two accumulators.
#[inline(always)]
unsafe fn column_unrolled(stage: *const f32, col: usize) -> f32 {
    let mut acc = [0.0f32; 2];
    unrolled!(R < ROWS => {
        acc[R % 2] += unsafe { *stage.add(R * COLS + col) };
    });
    acc[0] + acc[1]
}

/// Each of the 64 threads moves one 16-byte chunk of the tile into shared memory, and loads its
/// chunk of the next tile into a register before the barrier so the global load overlaps the
/// column sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_vector_staging(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let staged = dynamic_shared_base::<FourFloats>();
        let chunks = input as *const FourFloats;
        let step = grid_dim_x();
        let mut tile = block_idx_x();
        let mut acc = 0.0f32;
        let mut next = FourFloats::default();
        if tile < tiles {
            next = *chunks.add(tile as usize * CHUNKS_PER_TILE + tid);
        }
        while tile < tiles {
            *staged.add(tid) = next;
            barrier();
            let following = tile + step;
            if following < tiles {
                next = *chunks.add(following as usize * CHUNKS_PER_TILE + tid);
            }
            if tid < COLS {
                acc += column_unrolled(staged as *const f32, tid);
            }
            barrier();
            tile = following;
        }
        if tid < COLS {
            *out.add(block_idx_x() as usize * COLS + tid) = acc;
        }
    }
}

/// Shared-memory double buffer: while warp 0 sums buffer `k % 2`, every thread stores its chunk
/// of tile `k + 1` into the other buffer; one barrier per tile separates both the fill from its
/// readers and the readers from the next fill of their buffer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_double_buffer_shared(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let bufs = dynamic_shared_base::<FourFloats>();
        let chunks = input as *const FourFloats;
        let first = block_idx_x();
        let step = grid_dim_x();
        let count = if tiles > first { (tiles - first + step - 1) / step } else { 0 };
        let load = |k: u32, slot: u32| {
            let tile = (first + k * step) as usize;
            *bufs.add(slot as usize * CHUNKS_PER_TILE + tid) = *chunks.add(tile * CHUNKS_PER_TILE + tid);
        };
        if count > 0 {
            load(0, 0);
        }
        barrier();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < count {
            if k + 1 < count {
                load(k + 1, (k + 1) % 2);
            }
            if tid < COLS {
                acc += column_unrolled(bufs.add((k % 2) as usize * CHUNKS_PER_TILE) as *const f32, tid);
            }
            barrier();
            k += 1;
        }
        if tid < COLS {
            *out.add(first as usize * COLS + tid) = acc;
        }
    }
}

/// The double buffer with the prefetch distance raised to two tiles but still two buffers:
/// tile `k + 2` is stored into buffer `(k + 2) % 2`, the very buffer being summed in the same
/// step, so the sums read the tile two ahead (and race with warp 1's stores).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_double_buffer_prefetch_two(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    launch::block_threads(64);
    unsafe {
        let tid = thread_idx_x() as usize;
        let bufs = dynamic_shared_base::<FourFloats>();
        let chunks = input as *const FourFloats;
        let first = block_idx_x();
        let step = grid_dim_x();
        let count = if tiles > first { (tiles - first + step - 1) / step } else { 0 };
        const DISTANCE: u32 = 2;
        let load = |k: u32| {
            let tile = (first + k * step) as usize;
            *bufs.add((k % 2) as usize * CHUNKS_PER_TILE + tid) = *chunks.add(tile * CHUNKS_PER_TILE + tid);
        };
        let mut k = 0;
        while k < DISTANCE && k < count {
            load(k);
            k += 1;
        }
        barrier();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < count {
            if k + DISTANCE < count {
                load(k + DISTANCE);
            }
            if tid < COLS {
                acc += column_unrolled(bufs.add((k % 2) as usize * CHUNKS_PER_TILE) as *const f32, tid);
            }
            barrier();
            k += 1;
        }
        if tid < COLS {
            *out.add(first as usize * COLS + tid) = acc;
        }
    }
}

/// Eight consumer threads, each summing four columns with one 16-byte load per row; the empty
/// barriers expect 8 releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_vector_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const VECTOR_CONSUMERS: u32 = CHUNKS_PER_ROW as u32;
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let ring = dynamic_shared_base::<FourFloats>();
        let bars = window + STAGES * TILE_BYTES;
        if tid == 0 {
            Pipeline::<STAGES>::init(bars, VECTOR_CONSUMERS);
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
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < VECTOR_CONSUMERS {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = [0.0f32; 4];
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * CHUNKS_PER_TILE);
                unrolled!(R < ROWS => {
                    let v = (*stage.add(R * CHUNKS_PER_ROW + tid as usize)).0;
                    acc[0] += v[0];
                    acc[1] += v[1];
                    acc[2] += v[2];
                    acc[3] += v[3];
                });
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            let dst = out.add(block_idx_x() as usize * COLS + 4 * tid as usize);
            for (j, value) in acc.iter().enumerate() {
                *dst.add(j) = *value;
            }
        }
    }
}

/// Six stages (6 KiB of ring, barriers right after it), two accumulators per consumer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_six_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 6;
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
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let (mut even, mut odd) = (0.0f32, 0.0f32);
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(state.index() as usize * TILE + tid as usize);
                let mut r = 0;
                while r < ROWS {
                    even += *stage.add(r * COLS);
                    odd += *stage.add((r + 1) * COLS);
                    r += 2;
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = even + odd;
        }
    }
}

/// Two tiles per stage (3 stages of 2 KiB): the producer announces 2048 bytes and issues two
/// copies when the block has a second tile for the stage, else 1024 bytes and one copy; the
/// consumers make the same test to know whether the second half holds a tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_paired_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + STAGES * STAGE_BYTES;
        let step = grid_dim_x();
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
                let dst = window + state.index() * STAGE_BYTES;
                let full = pipe.producer_barrier(&state);
                let second = tile + step;
                if second < tiles {
                    pipe.producer_expect_tx(&state, 2 * TILE_BYTES);
                    bulk_copy_global_to_shared(dst, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, full);
                    bulk_copy_global_to_shared(
                        dst + TILE_BYTES,
                        input.add(second as usize * TILE) as *const u8,
                        TILE_BYTES,
                        full,
                    );
                } else {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    bulk_copy_global_to_shared(dst, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, full);
                }
                state.advance();
                tile += 2 * step;
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(state.index() as usize * 2 * TILE);
                acc += column_unrolled(stage, tid as usize);
                if tile + step < tiles {
                    acc += column_unrolled(stage.add(TILE), tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += 2 * step;
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// Three stages; the consumers' row loop is written out with `unrolled!` and the column pointer
/// is computed once per stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_unrolled_rows(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
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
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = [0.0f32; 4];
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let column = smem.add(state.index() as usize * TILE + tid as usize);
                unrolled!(R < ROWS => {
                    acc[R % 4] += *column.add(R * COLS);
                });
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        }
    }
}

/// Rows 0-3 and rows 4-7 of each tile travel through two pipelines of four 512-byte stages
/// (two rings, then the two barrier areas); one producer thread drives both, and each consumer
/// takes the top half from one and the bottom half from the other.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_split_rows_two_pipelines(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const HALF_BYTES: u32 = TILE_BYTES / 2;
    const HALF: usize = TILE / 2;
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let top_ring = window;
        let bottom_ring = window + STAGES * HALF_BYTES;
        let top_bars = window + 2 * STAGES * HALF_BYTES;
        let bottom_bars = top_bars + pipeline_barrier_bytes(STAGES);
        if tid == 0 {
            Pipeline::<STAGES>::init(top_bars, 32);
            Pipeline::<STAGES>::init(bottom_bars, 32);
        }
        barrier();
        let top = Pipeline::<STAGES>::attach(top_bars);
        let bottom = Pipeline::<STAGES>::attach(bottom_bars);
        if tid == PRODUCER {
            let mut upper = PipelineState::<STAGES>::producer_start();
            let mut lower = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                let src = input.add(tile as usize * TILE) as *const u8;
                top.producer_acquire(&upper);
                top.producer_expect_tx(&upper, HALF_BYTES);
                bulk_copy_global_to_shared(
                    top_ring + upper.index() * HALF_BYTES,
                    src,
                    HALF_BYTES,
                    top.producer_barrier(&upper),
                );
                upper.advance();
                bottom.producer_acquire(&lower);
                bottom.producer_expect_tx(&lower, HALF_BYTES);
                bulk_copy_global_to_shared(
                    bottom_ring + lower.index() * HALF_BYTES,
                    src.add(HALF_BYTES as usize),
                    HALF_BYTES,
                    bottom.producer_barrier(&lower),
                );
                lower.advance();
                tile += grid_dim_x();
            }
            top.producer_tail(upper);
            bottom.producer_tail(lower);
        } else if tid < 32 {
            let col = tid as usize;
            let mut upper = PipelineState::<STAGES>::new();
            let mut lower = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                top.consumer_wait(&upper);
                let stage = smem.add(upper.index() as usize * HALF);
                for r in 0..4 {
                    acc += *stage.add(r * COLS + col);
                }
                top.consumer_release(&upper);
                upper.advance();
                bottom.consumer_wait(&lower);
                let stage = smem.add(STAGES as usize * HALF + lower.index() as usize * HALF);
                for r in 0..4 {
                    acc += *stage.add(r * COLS + col);
                }
                bottom.consumer_release(&lower);
                lower.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + col) = acc;
        }
    }
}

/// The split-rows kernel with the bottom ring placed "after the first tile", one TILE_BYTES in,
/// instead of after the four 512-byte top stages: top stages 2 and 3 and bottom stages 0 and 1
/// are the same bytes, so the two pipelines' copies overwrite each other's halves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_split_rows_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const HALF_BYTES: u32 = TILE_BYTES / 2;
    const HALF: usize = TILE / 2;
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let top_ring = window;
        let bottom_ring = window + TILE_BYTES;
        let top_bars = window + 2 * STAGES * HALF_BYTES;
        let bottom_bars = top_bars + pipeline_barrier_bytes(STAGES);
        if tid == 0 {
            Pipeline::<STAGES>::init(top_bars, 32);
            Pipeline::<STAGES>::init(bottom_bars, 32);
        }
        barrier();
        let top = Pipeline::<STAGES>::attach(top_bars);
        let bottom = Pipeline::<STAGES>::attach(bottom_bars);
        if tid == PRODUCER {
            let mut upper = PipelineState::<STAGES>::producer_start();
            let mut lower = PipelineState::<STAGES>::producer_start();
            let mut tile = block_idx_x();
            while tile < tiles {
                let src = input.add(tile as usize * TILE) as *const u8;
                top.producer_acquire(&upper);
                top.producer_expect_tx(&upper, HALF_BYTES);
                bulk_copy_global_to_shared(
                    top_ring + upper.index() * HALF_BYTES,
                    src,
                    HALF_BYTES,
                    top.producer_barrier(&upper),
                );
                upper.advance();
                bottom.producer_acquire(&lower);
                bottom.producer_expect_tx(&lower, HALF_BYTES);
                bulk_copy_global_to_shared(
                    bottom_ring + lower.index() * HALF_BYTES,
                    src.add(HALF_BYTES as usize),
                    HALF_BYTES,
                    bottom.producer_barrier(&lower),
                );
                lower.advance();
                tile += grid_dim_x();
            }
            top.producer_tail(upper);
            bottom.producer_tail(lower);
        } else if tid < 32 {
            let col = tid as usize;
            let mut upper = PipelineState::<STAGES>::new();
            let mut lower = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                top.consumer_wait(&upper);
                let stage = smem.add(upper.index() as usize * HALF);
                for r in 0..4 {
                    acc += *stage.add(r * COLS + col);
                }
                top.consumer_release(&upper);
                upper.advance();
                bottom.consumer_wait(&lower);
                let stage = smem.add(TILE + lower.index() as usize * HALF);
                for r in 0..4 {
                    acc += *stage.add(r * COLS + col);
                }
                bottom.consumer_release(&lower);
                lower.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + col) = acc;
        }
    }
}

/// Where the barriers of the four-stage version began.
const BARRIER_OFFSET: u32 = 4096;

/// The ring was deepened from four stages to five, but the barriers stay at the old hard-coded
/// offset 4096, which is now stage 4: the fifth tile's copy lands on the mbarriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_barriers_in_last_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    unsafe {
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let bars = window + BARRIER_OFFSET;
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
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += column_unrolled(smem.add(state.index() as usize * TILE), tid as usize);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// Each tile is copied in 256-byte chunks (more copies in flight), but the chunk loop tests
/// `offset + CHUNK_BYTES < TILE_BYTES`: it stops after three chunks, 768 of the 1024 bytes the
/// full barrier expects, so no stage ever completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_chunked_copy_short(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const CHUNK_BYTES: u32 = 256;
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
                let src = input.add(tile as usize * TILE) as *const u8;
                let dst = window + state.index() * TILE_BYTES;
                let full = pipe.producer_barrier(&state);
                let mut offset = 0;
                while offset + CHUNK_BYTES < TILE_BYTES {
                    bulk_copy_global_to_shared(dst + offset, src.add(offset as usize), CHUNK_BYTES, full);
                    offset += CHUNK_BYTES;
                }
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += column_unrolled(smem.add(state.index() as usize * TILE), tid as usize);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}

/// Meant to skip the acquire on the first lap ("the stages start empty"), but the test is
/// inverted: the producer acquires only during the first lap, where it returns at once, and never
/// afterwards, so from the fifth tile on it re-arms full barriers and overwrites stages the
/// consumers have not waited for or read yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r9_perf_acquire_inverted(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
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
            let mut issued = 0u32;
            let mut tile = block_idx_x();
            while tile < tiles {
                if issued < STAGES {
                    pipe.producer_acquire(&state);
                }
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                issued += 1;
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        } else if tid < 32 {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += column_unrolled(smem.add(state.index() as usize * TILE), tid as usize);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * COLS + tid as usize) = acc;
        }
    }
}
