//! Style: the roles kept *apart*. The producer loop and the consumer loop each live in their
//! own `#[inline(never)]` device function (a real call in the PTX), handed the pipeline, the
//! window or ring, the input and the tile bounds; the kernel only sets up, picks the role by
//! thread index and calls one of them. Barriers at window byte 0, one-tile stages from 1024.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: u32 = 32;
const ROWS: u32 = 8;
const RING_BYTE: u32 = 1024;
const STAGES: u32 = 4;

#[inline(never)]
unsafe fn produce(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, first: u32, step: u32, tiles: u32) {
    let mut state = PipelineState::<STAGES>::producer_start();
    let mut tile = first;
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + RING_BYTE + state.index() * TILE_BYTES,
            input.add((tile * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        tile += step;
    }
    pipe.producer_tail(state);
}

#[inline(never)]
unsafe fn consume(pipe: &Pipeline<STAGES>, ring: *const f32, column: u32, first: u32, step: u32, tiles: u32) -> f32 {
    let mut state = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut tile = first;
    while tile < tiles {
        pipe.consumer_wait(&state);
        let stage = ring.add((state.index() * TILE_FLOATS) as usize);
        for row in 0..ROWS {
            acc += *stage.add((row * COLUMNS + column) as usize);
        }
        pipe.consumer_release(&state);
        state.advance();
        tile += step;
    }
    acc
}

/// The two loops in their own functions, both bounded by `tile < tiles` from `b` by `g`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_apart_two_functions(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        produce(&pipe, window, input, b, g, tiles);
    } else if tid >= 32 {
        let acc = consume(&pipe, ring, tid - 32, b, g, tiles);
        *out.add((b * COLUMNS + tid - 32) as usize) = acc;
    }
}

/// The number of tiles this block owns; no thread-dependent input.
#[inline(never)]
fn tiles_of_block(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

#[inline(never)]
unsafe fn produce_counted(pipe: Pipeline<3>, window: u32, input: *const f32, count: u32) {
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut state = PipelineState::<3>::producer_start();
    for k in 0..count {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let source = input.add(((b + k * g) * TILE_FLOATS) as usize) as *const u8;
        bulk_copy_global_to_shared(window + RING_BYTE + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
    }
    pipe.producer_tail(state);
}

#[inline(never)]
unsafe fn consume_counted(pipe: Pipeline<3>, ring: *const f32, column: u32, count: u32) -> f32 {
    let mut state = PipelineState::<3>::new();
    let mut acc = 0.0f32;
    for _ in 0..count {
        pipe.consumer_wait(&state);
        let stage = ring.add((state.index() * TILE_FLOATS) as usize);
        for row in 0..ROWS {
            acc += *stage.add((row * COLUMNS + column) as usize);
        }
        pipe.consumer_release(&state);
        state.advance();
    }
    acc
}

/// The pipeline handed by value (it is `Copy`), three stages, both loops counted by
/// `tiles_of_block`, computed once in the kernel; thread 32 produces for warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_apart_counted_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 32 {
        Pipeline::<3>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    let count = tiles_of_block(tiles);
    if tid == 32 {
        produce_counted(pipe, window, input, count);
    } else if tid < 32 {
        let acc = consume_counted(pipe, ring, tid, count);
        *out.add((block_idx_x() * COLUMNS + tid) as usize) = acc;
    }
}

#[inline(never)]
unsafe fn produce_returning(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) -> PipelineState<STAGES> {
    let mut state = PipelineState::<STAGES>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + RING_BYTE + state.index() * TILE_BYTES,
            input.add((tile * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        tile += grid_dim_x();
    }
    state
}

#[inline(never)]
unsafe fn consume_into(pipe: &Pipeline<STAGES>, ring: *const f32, column: u32, tiles: u32, out: *mut f32) {
    let mut state = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.consumer_wait(&state);
        let stage = ring.add((state.index() * TILE_FLOATS) as usize);
        let mut part = 0.0f32;
        for row in 0..ROWS {
            part += *stage.add((row * COLUMNS + column) as usize);
        }
        pipe.consumer_release(&state);
        state.advance();
        acc += part;
        tile += grid_dim_x();
    }
    *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
}

/// The producer function returns its final state and the kernel runs the tail; the consumer
/// function writes its own output.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_apart_tail_in_kernel(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        let last = produce_returning(&pipe, window, input, tiles);
        pipe.producer_tail(last);
    } else if tid >= 32 {
        consume_into(&pipe, ring, tid - 32, tiles, out);
    }
}

/// Roles chosen by a `match` on the warp; the consumer function is handed the ring as a
/// `*const [f32; 256]` tile array and indexes tiles by the stage.
#[inline(never)]
unsafe fn consume_tiles(pipe: &Pipeline<STAGES>, ring: *const [f32; 256], column: u32, tiles: u32) -> f32 {
    let mut state = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.consumer_wait(&state);
        let stage = ring.add(state.index() as usize) as *const f32;
        for row in 0..ROWS {
            acc += *stage.add((row * COLUMNS + column) as usize);
        }
        pipe.consumer_release(&state);
        state.advance();
        tile += grid_dim_x();
    }
    acc
}

/// Thread 63 produces through `produce`, warp 0 consumes through `consume_tiles`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_apart_tile_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 63 {
        Pipeline::<STAGES>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<[f32; 256]>().add((RING_BYTE / TILE_BYTES) as usize) as *const [f32; 256];
    match tid {
        0..=31 => {
            let acc = consume_tiles(&pipe, ring, tid, tiles);
            *out.add((block_idx_x() * COLUMNS + tid) as usize) = acc;
        }
        63 => produce(&pipe, window, input, block_idx_x(), grid_dim_x(), tiles),
        _ => {}
    }
}

/// A producer that also announces a 16-byte tile header its copies were once preceded by.
#[inline(never)]
unsafe fn produce_with_header(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) {
    const HEADER_BYTES: u32 = 16;
    let mut state = PipelineState::<STAGES>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, HEADER_BYTES + TILE_BYTES);
        bulk_copy_global_to_shared(
            window + RING_BYTE + state.index() * TILE_BYTES,
            input.add((tile * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        tile += grid_dim_x();
    }
    pipe.producer_tail(state);
}

/// BROKEN: `produce_with_header` announces 1040 bytes per stage but copies 1024, so no full
/// barrier ever completes and the consumers wait forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_apart_bad_header_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        produce_with_header(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let acc = consume(&pipe, ring, tid - 32, block_idx_x(), grid_dim_x(), tiles);
        *out.add((block_idx_x() * COLUMNS + tid - 32) as usize) = acc;
    }
}

/// BROKEN: the consumers' bound is `tiles + g` ("round up to a whole pass"), so they wait for
/// one tile more than the producer copies and hang on a stage nobody fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_apart_bad_consumer_round_up(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        produce(&pipe, window, input, b, g, tiles);
    } else if tid >= 32 {
        let acc = consume(&pipe, ring, tid - 32, b, g, tiles + g);
        *out.add((b * COLUMNS + tid - 32) as usize) = acc;
    }
}

/// A consumer that starts the first row's load before it waits, to hide its latency.
#[inline(never)]
unsafe fn consume_prefetching(pipe: &Pipeline<STAGES>, ring: *const f32, column: u32, tiles: u32) -> f32 {
    let mut state = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        let stage = ring.add((state.index() * TILE_FLOATS) as usize);
        let head = *stage.add(column as usize);
        pipe.consumer_wait(&state);
        let mut part = head;
        for row in 1..ROWS {
            part += *stage.add((row * COLUMNS + column) as usize);
        }
        pipe.consumer_release(&state);
        state.advance();
        acc += part;
        tile += grid_dim_x();
    }
    acc
}

/// BROKEN: `consume_prefetching` loads row 0 of the stage before `consumer_wait`, so it reads
/// the row before the copy has landed (stale data from the stage's previous tile).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_apart_bad_prefetch_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        produce(&pipe, window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if tid >= 32 {
        let acc = consume_prefetching(&pipe, ring, tid - 32, tiles);
        *out.add((block_idx_x() * COLUMNS + tid - 32) as usize) = acc;
    }
}

/// A consumer written when the ring had two stages, still attaching its own `Pipeline<2>`.
#[inline(never)]
unsafe fn consume_two_stage(window: u32, ring: *const f32, column: u32, tiles: u32) -> f32 {
    let pipe = Pipeline::<2>::attach(window);
    let mut state = PipelineState::<2>::new();
    let mut acc = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.consumer_wait(&state);
        let stage = ring.add((state.index() * TILE_FLOATS) as usize);
        for row in 0..ROWS {
            acc += *stage.add((row * COLUMNS + column) as usize);
        }
        pipe.consumer_release(&state);
        state.advance();
        tile += grid_dim_x();
    }
    acc
}

/// BROKEN: the barriers were initialised as a four-stage pipeline, but the consumer function
/// attaches them as `Pipeline<2>`: it wraps at two stages, waits on the wrong phases and its
/// releases land on full barriers 2 and 3, so the producer never gets stages 0 and 1 back
/// (deadlock).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_apart_bad_consumer_two_stage_attach(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        produce(&pipe, window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if tid >= 32 {
        let acc = consume_two_stage(window, ring, tid - 32, tiles);
        *out.add((block_idx_x() * COLUMNS + tid - 32) as usize) = acc;
    }
}
