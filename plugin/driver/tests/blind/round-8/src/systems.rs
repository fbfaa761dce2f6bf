//! Kernels by a careful systems programmer: every offset is a named constant, the launch
//! contract is declared, roles are spelled out once, and every `unsafe` says why it holds.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = TILE_FLOATS * 4;
const COLUMNS: u32 = 32;
const ROWS: u32 = TILE_FLOATS / COLUMNS;
const CONSUMERS: u32 = 32;

// ---------------------------------------------------------------------------------------------
// Four stages, ring first, barriers after it.

const FOUR: u32 = 4;
const FOUR_RING: u32 = 0;
const FOUR_BARRIERS: u32 = FOUR_RING + FOUR * TILE_BYTES;
const PRODUCER_TID: u32 = 32;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_four_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    const _: () = assert!(FOUR_BARRIERS + pipeline_barrier_bytes(FOUR) <= SHARED_BYTES);

    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == 0 {
        Pipeline::<FOUR>::init(window + FOUR_BARRIERS, CONSUMERS)
    } else {
        Pipeline::<FOUR>::attach(window + FOUR_BARRIERS)
    };
    barrier();

    if tid == PRODUCER_TID {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            // SAFETY: `tile < tiles`, so the tile lies inside the input.
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            let destination = window + FOUR_RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<FOUR>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage_first = (FOUR_RING / 4 + state.index() * TILE_FLOATS) as usize;
            let mut row = 0;
            while row < ROWS {
                // SAFETY: inside the stage just waited for; released below.
                total += unsafe { *shared.add(stage_first + (row * COLUMNS + tid) as usize) };
                row += 1;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        // SAFETY: 8 blocks of 32 outputs.
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// Seven stages: the barriers go first (112 bytes), the ring starts at the next 128 bytes.

const SEVEN: u32 = 7;
const SEVEN_BARRIERS: u32 = 0;
const SEVEN_RING: u32 = 128;
const _: () = assert!(SEVEN_BARRIERS + pipeline_barrier_bytes(SEVEN) <= SEVEN_RING);
const _: () = assert!(SEVEN_RING + SEVEN * TILE_BYTES <= SHARED_BYTES);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_seven_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == 0 {
        Pipeline::<SEVEN>::init(window + SEVEN_BARRIERS, CONSUMERS)
    } else {
        Pipeline::<SEVEN>::attach(window + SEVEN_BARRIERS)
    };
    barrier();

    if tid == PRODUCER_TID {
        let mut state = PipelineState::<SEVEN>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            // SAFETY: `tile < tiles`.
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            let destination = window + SEVEN_RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    }
    if tid < CONSUMERS {
        let mut state = PipelineState::<SEVEN>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            // SAFETY: the ring starts 16-byte aligned at SEVEN_RING; the stage is ours until
            // the release.
            let stage = unsafe { shared.add((SEVEN_RING / 4 + state.index() * TILE_FLOATS) as usize) };
            let mut row = 0;
            while row < ROWS {
                total += unsafe { *stage.add((row * COLUMNS + tid) as usize) };
                row += 1;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// The barrier offset is computed from a stage count that forgot the ring has FOUR stages: the
// barriers sit inside the last stage.

const RING_STAGES_SEEN_BY_LAYOUT: u32 = FOUR - 1;
const OVERLAP_BARRIERS: u32 = RING_STAGES_SEEN_BY_LAYOUT * TILE_BYTES;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_barriers_in_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == 0 {
        Pipeline::<FOUR>::init(window + OVERLAP_BARRIERS, CONSUMERS)
    } else {
        Pipeline::<FOUR>::attach(window + OVERLAP_BARRIERS)
    };
    barrier();

    if tid == PRODUCER_TID {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            let destination = window + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<FOUR>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = unsafe { shared.add((state.index() * TILE_FLOATS) as usize) };
            for row in 0..ROWS {
                total += unsafe { *stage.add((row * COLUMNS + tid) as usize) };
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// Eight stages "because the window holds exactly eight tiles", with the barriers put first: the
// ring now ends 128 bytes past the window.

const EIGHT: u32 = 8;
const EIGHT_BARRIERS: u32 = 0;
const EIGHT_RING: u32 = pipeline_barrier_bytes(EIGHT);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_eight_stages_full_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == 0 {
        Pipeline::<EIGHT>::init(window + EIGHT_BARRIERS, CONSUMERS)
    } else {
        Pipeline::<EIGHT>::attach(window + EIGHT_BARRIERS)
    };
    barrier();

    if tid == PRODUCER_TID {
        let mut state = PipelineState::<EIGHT>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            let destination = window + EIGHT_RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<EIGHT>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = unsafe { shared.add((EIGHT_RING / 4 + state.index() * TILE_FLOATS) as usize) };
            for row in 0..ROWS {
                total += unsafe { *stage.add((row * COLUMNS + tid) as usize) };
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// A 4-byte header word (a tile counter for debugging) before the barriers: the barriers are
// 4-byte aligned only.

const HEADER_WORD: u32 = FOUR * TILE_BYTES;
const PADDED_BARRIERS: u32 = HEADER_WORD + 4;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_barrier_pad_misaligned(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == 0 {
        Pipeline::<FOUR>::init(window + PADDED_BARRIERS, CONSUMERS)
    } else {
        Pipeline::<FOUR>::attach(window + PADDED_BARRIERS)
    };
    barrier();

    if tid == PRODUCER_TID {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<FOUR>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = unsafe { shared.add((state.index() * TILE_FLOATS) as usize) };
            for row in 0..ROWS {
                total += unsafe { *stage.add((row * COLUMNS + tid) as usize) };
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// Each tile arrives in four 256-byte chunks, all completing on the stage's full barrier.

const CHUNKS: u32 = 4;
const CHUNK_BYTES: u32 = TILE_BYTES / CHUNKS;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_split_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == 0 {
        Pipeline::<FOUR>::init(window + FOUR_BARRIERS, CONSUMERS)
    } else {
        Pipeline::<FOUR>::attach(window + FOUR_BARRIERS)
    };
    barrier();

    if tid == PRODUCER_TID {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            let destination = window + FOUR_RING + state.index() * TILE_BYTES;
            let mut chunk = 0;
            while chunk < CHUNKS {
                // SAFETY: chunk `chunk` of the tile, 16-byte aligned at both ends.
                let from = unsafe { source.add((chunk * CHUNK_BYTES) as usize) };
                bulk_copy_global_to_shared(destination + chunk * CHUNK_BYTES, from, CHUNK_BYTES, pipeline.producer_barrier(&state));
                chunk += 1;
            }
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<FOUR>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = unsafe { shared.add((FOUR_RING / 4 + state.index() * TILE_FLOATS) as usize) };
            let mut row = 0;
            while row < ROWS {
                total += unsafe { *stage.add((row * COLUMNS + tid) as usize) };
                row += 1;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = total };
    }
}

/// The chunk loop stops one chunk short (`<` against the index of the last chunk): 768 of the
/// 1024 announced bytes arrive.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_split_copies_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    const LAST_CHUNK: u32 = CHUNKS - 1;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == 0 {
        Pipeline::<FOUR>::init(window + FOUR_BARRIERS, CONSUMERS)
    } else {
        Pipeline::<FOUR>::attach(window + FOUR_BARRIERS)
    };
    barrier();

    if tid == PRODUCER_TID {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            let destination = window + FOUR_RING + state.index() * TILE_BYTES;
            let mut chunk = 0;
            while chunk < LAST_CHUNK {
                let from = unsafe { source.add((chunk * CHUNK_BYTES) as usize) };
                bulk_copy_global_to_shared(destination + chunk * CHUNK_BYTES, from, CHUNK_BYTES, pipeline.producer_barrier(&state));
                chunk += 1;
            }
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<FOUR>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = unsafe { shared.add((FOUR_RING / 4 + state.index() * TILE_FLOATS) as usize) };
            let mut row = 0;
            while row < ROWS {
                total += unsafe { *stage.add((row * COLUMNS + tid) as usize) };
                row += 1;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// Producer is thread 0, the consumers are the second warp.

const CONSUMER_FIRST: u32 = 32;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_consumer_warp1(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == 0 {
        Pipeline::<FOUR>::init(window + FOUR_BARRIERS, CONSUMERS)
    } else {
        Pipeline::<FOUR>::attach(window + FOUR_BARRIERS)
    };
    barrier();

    if tid == 0 {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            bulk_copy_global_to_shared(window + FOUR_RING + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if tid >= CONSUMER_FIRST {
        let column = tid - CONSUMER_FIRST;
        let mut state = PipelineState::<FOUR>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = unsafe { shared.add((FOUR_RING / 4 + state.index() * TILE_FLOATS) as usize) };
            let mut row = 0;
            while row < ROWS {
                total += unsafe { *stage.add((row * COLUMNS + column) as usize) };
                row += 1;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * COLUMNS + column) as usize) = total };
    }
}

/// The empty barriers are initialised for the whole block ("every thread takes part"), but
/// only the 32 consumer threads release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_init_counts_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == 0 {
        Pipeline::<FOUR>::init(window + FOUR_BARRIERS, BLOCK_THREADS)
    } else {
        Pipeline::<FOUR>::attach(window + FOUR_BARRIERS)
    };
    barrier();

    if tid == PRODUCER_TID {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            bulk_copy_global_to_shared(window + FOUR_RING + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<FOUR>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = unsafe { shared.add((FOUR_RING / 4 + state.index() * TILE_FLOATS) as usize) };
            for row in 0..ROWS {
                total += unsafe { *stage.add((row * COLUMNS + tid) as usize) };
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = total };
    }
}

/// The producer is the block's last thread; the threads between the consumers and it idle.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r8_systems_producer_last_thread(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    const LAST: u32 = BLOCK_THREADS - 1;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let shared = dynamic_shared_base::<f32>();
    let pipeline = if tid == LAST {
        Pipeline::<FOUR>::init(window + FOUR_BARRIERS, CONSUMERS)
    } else {
        Pipeline::<FOUR>::attach(window + FOUR_BARRIERS)
    };
    barrier();

    if tid == LAST {
        let mut state = PipelineState::<FOUR>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            let source = unsafe { input.add((tile * TILE_FLOATS) as usize) } as *const u8;
            bulk_copy_global_to_shared(window + FOUR_RING + state.index() * TILE_BYTES, source, TILE_BYTES, pipeline.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipeline.producer_tail(state);
    } else if tid < CONSUMERS {
        let mut state = PipelineState::<FOUR>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            pipeline.consumer_wait(&state);
            let stage = unsafe { shared.add((FOUR_RING / 4 + state.index() * TILE_FLOATS) as usize) };
            let mut row = 0;
            while row < ROWS {
                total += unsafe { *stage.add((row * COLUMNS + tid) as usize) };
                row += 1;
            }
            pipeline.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        unsafe { *out.add((block_idx_x() * COLUMNS + tid) as usize) = total };
    }
}
