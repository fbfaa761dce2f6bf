//! Style `misra`: safety-critical C conventions (MISRA C:2012 and JPL's "Power of Ten") carried
//! into Rust by a team that writes flight software. Every constant is named with a `_U` suffix,
//! every loop has a fixed upper bound besides its data-dependent test, every `if`/`else if`
//! chain ends in an `else`, each function has a single point of exit, shared memory is reached
//! as arrays (no pointer arithmetic on element pointers, MISRA rule 18.4), and preconditions
//! are checked with `misra_assert`, which stops the launch.

use crate::device::geometry::{block_idx_x, grid_dim_x, thread_idx_x};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

const BLOCK_THREADS_U: u32 = 64u32;
const SHARED_BYTES_U: u32 = 8192u32;
const TILE_FLOATS_U: usize = 256usize;
const TILE_BYTES_U: u32 = 1024u32;
const COLUMNS_U: usize = 32usize;
const ROWS_U: usize = 8usize;
const CONSUMER_COUNT_U: u32 = 32u32;
const PRODUCER_TID_U: u32 = 32u32;
const BARRIER_OFFSET_U: u32 = 0u32;
const RING_OFFSET_U: u32 = 1024u32;
/// Power of Ten rule 2: no loop may run more passes than this.
const MAX_ITERATIONS_U: u32 = 64u32;

/// Stops the launch when a checked precondition fails (MISRA Dir 4.1, Power of Ten rule 5).
#[inline(always)]
fn misra_assert(condition: bool) {
    if !condition {
        // SAFETY: trap ends the launch; nothing after it runs.
        unsafe { core::arch::nvptx::trap() }
    } else {
        // Precondition holds: no action.
    }
}

/// This block's tiles: first tile, stride, and the number of tiles (bounded by the caller).
#[derive(Clone, Copy)]
struct TileRange {
    first_u: u32,
    stride_u: u32,
}

#[inline(always)]
fn tile_range_of_block() -> TileRange {
    TileRange { first_u: block_idx_x(), stride_u: grid_dim_x() }
}

/// Four-stage pipeline; the ring is an array of tiles, addressed by index. Producer thread 32,
/// consumers threads 0..32. Both loops carry the Power of Ten iteration bound.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_misra_bounded_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES_U: u32 = 4u32;
    block_threads(BLOCK_THREADS_U);
    dynamic_shared_bytes(SHARED_BYTES_U);

    let tid_u: u32 = thread_idx_x();
    let window_u: u32 = dynamic_shared_window_address();
    let ring: *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize] =
        dynamic_shared_base::<u8>().add(RING_OFFSET_U as usize) as *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize];
    let range: TileRange = tile_range_of_block();

    if tid_u == PRODUCER_TID_U {
        let _ = Pipeline::<STAGES_U>::init(window_u + BARRIER_OFFSET_U, CONSUMER_COUNT_U);
    } else {
        // Other threads do not initialise the barriers.
    }
    barrier();
    let pipe: Pipeline<STAGES_U> = Pipeline::<STAGES_U>::attach(window_u + BARRIER_OFFSET_U);

    if tid_u == PRODUCER_TID_U {
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::producer_start();
        let mut tile_u: u32 = range.first_u;
        let mut iteration_u: u32 = 0u32;
        while (tile_u < tiles) && (iteration_u < MAX_ITERATIONS_U) {
            let source: *const f32 = input.add((tile_u as usize) * TILE_FLOATS_U);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES_U);
            bulk_copy_global_to_shared(
                window_u + RING_OFFSET_U + (state.index() * TILE_BYTES_U),
                source as *const u8,
                TILE_BYTES_U,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile_u = tile_u + range.stride_u;
            iteration_u = iteration_u + 1u32;
        }
        pipe.producer_tail(state);
    } else if tid_u < CONSUMER_COUNT_U {
        let column_u: usize = tid_u as usize;
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::new();
        let mut sum: f32 = 0.0f32;
        let mut tile_u: u32 = range.first_u;
        let mut iteration_u: u32 = 0u32;
        while (tile_u < tiles) && (iteration_u < MAX_ITERATIONS_U) {
            pipe.consumer_wait(&state);
            let stage_u: usize = state.index() as usize;
            let mut row_u: usize = 0usize;
            while row_u < ROWS_U {
                sum = sum + (*ring)[stage_u][(row_u * COLUMNS_U) + column_u];
                row_u = row_u + 1usize;
            }
            pipe.consumer_release(&state);
            state.advance();
            tile_u = tile_u + range.stride_u;
            iteration_u = iteration_u + 1u32;
        }
        *out.add(((block_idx_x() as usize) * COLUMNS_U) + column_u) = sum;
    } else {
        // Threads 33..64 have no role.
    }
}

/// Three stages; the tile loops are Power of Ten counted loops with an early `break` once the
/// block's tiles are done. Roles by an `if`/`else if`/`else` chain on the thread index.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_misra_fixed_bound_break(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES_U: u32 = 3u32;
    const PRODUCER_U: u32 = 0u32;
    const FIRST_CONSUMER_U: u32 = 32u32;
    block_threads(BLOCK_THREADS_U);
    dynamic_shared_bytes(SHARED_BYTES_U);

    let tid_u: u32 = thread_idx_x();
    let window_u: u32 = dynamic_shared_window_address();
    let ring: *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize] =
        dynamic_shared_base::<u8>().add(RING_OFFSET_U as usize) as *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize];
    let range: TileRange = tile_range_of_block();

    if tid_u == PRODUCER_U {
        let _ = Pipeline::<STAGES_U>::init(window_u, CONSUMER_COUNT_U);
    } else {
        // No action.
    }
    barrier();
    let pipe: Pipeline<STAGES_U> = Pipeline::<STAGES_U>::attach(window_u);

    if tid_u == PRODUCER_U {
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::producer_start();
        for iteration_u in 0u32..MAX_ITERATIONS_U {
            let tile_u: u32 = range.first_u + (iteration_u * range.stride_u);
            if tile_u >= tiles {
                break;
            } else {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES_U);
                bulk_copy_global_to_shared(
                    window_u + RING_OFFSET_U + (state.index() * TILE_BYTES_U),
                    input.add((tile_u as usize) * TILE_FLOATS_U) as *const u8,
                    TILE_BYTES_U,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
        }
        pipe.producer_tail(state);
    } else if tid_u >= FIRST_CONSUMER_U {
        let column_u: usize = (tid_u - FIRST_CONSUMER_U) as usize;
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::new();
        let mut sum: f32 = 0.0f32;
        for iteration_u in 0u32..MAX_ITERATIONS_U {
            let tile_u: u32 = range.first_u + (iteration_u * range.stride_u);
            if tile_u >= tiles {
                break;
            } else {
                pipe.consumer_wait(&state);
                let stage: &[f32; TILE_FLOATS_U] = &(*ring)[state.index() as usize];
                for row_u in 0usize..ROWS_U {
                    sum = sum + stage[(row_u * COLUMNS_U) + column_u];
                }
                pipe.consumer_release(&state);
                state.advance();
            }
        }
        *out.add(((block_idx_x() as usize) * COLUMNS_U) + column_u) = sum;
    } else {
        // Threads 1..32 have no role.
    }
}

/// Plain shared memory: the tile and the partial sums are two arrays at fixed offsets. Each
/// thread stages four elements, a barrier, each thread sums half a column into its partial,
/// a barrier, threads 0..32 combine the halves, a barrier before the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_misra_checked_staging(input: *const f32, tiles: u32, out: *mut f32) {
    const PARTIAL_OFFSET_U: usize = 1024usize;
    const HALF_ROWS_U: usize = ROWS_U / 2usize;
    block_threads(BLOCK_THREADS_U);
    dynamic_shared_bytes(SHARED_BYTES_U);

    let tid_u: usize = thread_idx_x() as usize;
    let tile: *mut [f32; TILE_FLOATS_U] = dynamic_shared_base::<[f32; TILE_FLOATS_U]>();
    let partial: *mut [f32; BLOCK_THREADS_U as usize] =
        dynamic_shared_base::<u8>().add(PARTIAL_OFFSET_U) as *mut [f32; BLOCK_THREADS_U as usize];
    let range: TileRange = tile_range_of_block();
    let column_u: usize = tid_u % COLUMNS_U;
    let half_u: usize = tid_u / COLUMNS_U;
    let mut total: f32 = 0.0f32;

    misra_assert(tid_u < (BLOCK_THREADS_U as usize));
    let mut tile_u: u32 = range.first_u;
    let mut iteration_u: u32 = 0u32;
    while (tile_u < tiles) && (iteration_u < MAX_ITERATIONS_U) {
        let source: *const f32 = input.add((tile_u as usize) * TILE_FLOATS_U);
        for k_u in 0usize..(TILE_FLOATS_U / (BLOCK_THREADS_U as usize)) {
            let element_u: usize = tid_u + (k_u * (BLOCK_THREADS_U as usize));
            (*tile)[element_u] = *source.add(element_u);
        }
        barrier();
        let mut part: f32 = 0.0f32;
        for row_u in (half_u * HALF_ROWS_U)..((half_u + 1usize) * HALF_ROWS_U) {
            part = part + (*tile)[(row_u * COLUMNS_U) + column_u];
        }
        (*partial)[tid_u] = part;
        barrier();
        if tid_u < COLUMNS_U {
            total = total + (*partial)[tid_u] + (*partial)[tid_u + COLUMNS_U];
        } else {
            // Upper half: its partial was consumed by thread tid - 32.
        }
        barrier();
        tile_u = tile_u + range.stride_u;
        iteration_u = iteration_u + 1u32;
    }
    if tid_u < COLUMNS_U {
        *out.add(((block_idx_x() as usize) * COLUMNS_U) + tid_u) = total;
    } else {
        // No output from the upper half.
    }
}

/// Two stages; the producer checks the copy's preconditions (source 16-byte aligned, byte
/// count a multiple of 16 and within the stage) before each transfer, as a defensive wrapper.
#[inline(always)]
fn checked_tile_copy(pipe: &Pipeline<2>, state: &PipelineState<2>, destination_u: u32, source: *const f32, bytes_u: u32) {
    misra_assert(((source as usize) & 0xFusize) == 0usize);
    misra_assert(((bytes_u & 0xFu32) == 0u32) && (bytes_u <= TILE_BYTES_U));
    bulk_copy_global_to_shared(destination_u, source as *const u8, bytes_u, pipe.producer_barrier(state));
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_misra_guarded_copy(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES_U: u32 = 2u32;
    block_threads(BLOCK_THREADS_U);
    dynamic_shared_bytes(SHARED_BYTES_U);

    let tid_u: u32 = thread_idx_x();
    let window_u: u32 = dynamic_shared_window_address();
    let ring: *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize] =
        dynamic_shared_base::<u8>().add(RING_OFFSET_U as usize) as *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize];
    let range: TileRange = tile_range_of_block();

    if tid_u == PRODUCER_TID_U {
        let _ = Pipeline::<STAGES_U>::init(window_u + BARRIER_OFFSET_U, CONSUMER_COUNT_U);
    } else {
        // No action.
    }
    barrier();
    let pipe: Pipeline<STAGES_U> = Pipeline::<STAGES_U>::attach(window_u + BARRIER_OFFSET_U);

    if tid_u == PRODUCER_TID_U {
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::producer_start();
        let mut tile_u: u32 = range.first_u;
        while tile_u < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES_U);
            checked_tile_copy(
                &pipe,
                &state,
                window_u + RING_OFFSET_U + (state.index() * TILE_BYTES_U),
                input.add((tile_u as usize) * TILE_FLOATS_U),
                TILE_BYTES_U,
            );
            state.advance();
            tile_u = tile_u + range.stride_u;
        }
        pipe.producer_tail(state);
    } else if tid_u < CONSUMER_COUNT_U {
        let column_u: usize = tid_u as usize;
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::new();
        let mut sum: f32 = 0.0f32;
        let mut tile_u: u32 = range.first_u;
        while tile_u < tiles {
            pipe.consumer_wait(&state);
            let stage_u: usize = state.index() as usize;
            for row_u in 0usize..ROWS_U {
                sum = sum + (*ring)[stage_u][(row_u * COLUMNS_U) + column_u];
            }
            pipe.consumer_release(&state);
            state.advance();
            tile_u = tile_u + range.stride_u;
        }
        *out.add(((block_idx_x() as usize) * COLUMNS_U) + column_u) = sum;
    } else {
        // No role.
    }
}

/// BROKEN: the ring depth was raised from 4 to 8 stages in a configuration change, without
/// re-deriving the memory budget: stages 0..8 from byte 1024 end at byte 9216 of an 8192-byte
/// window, and the copies into stage 7 (and the consumers' reads of it) fault.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_misra_bad_ring_depth(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES_U: u32 = 8u32;
    block_threads(BLOCK_THREADS_U);
    dynamic_shared_bytes(SHARED_BYTES_U);

    let tid_u: u32 = thread_idx_x();
    let window_u: u32 = dynamic_shared_window_address();
    let ring: *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize] =
        dynamic_shared_base::<u8>().add(RING_OFFSET_U as usize) as *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize];
    let range: TileRange = tile_range_of_block();

    if tid_u == PRODUCER_TID_U {
        let _ = Pipeline::<STAGES_U>::init(window_u + BARRIER_OFFSET_U, CONSUMER_COUNT_U);
    } else {
        // No action.
    }
    barrier();
    let pipe: Pipeline<STAGES_U> = Pipeline::<STAGES_U>::attach(window_u + BARRIER_OFFSET_U);

    if tid_u == PRODUCER_TID_U {
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::producer_start();
        let mut tile_u: u32 = range.first_u;
        let mut iteration_u: u32 = 0u32;
        while (tile_u < tiles) && (iteration_u < MAX_ITERATIONS_U) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES_U);
            bulk_copy_global_to_shared(
                window_u + RING_OFFSET_U + (state.index() * TILE_BYTES_U),
                input.add((tile_u as usize) * TILE_FLOATS_U) as *const u8,
                TILE_BYTES_U,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile_u = tile_u + range.stride_u;
            iteration_u = iteration_u + 1u32;
        }
        pipe.producer_tail(state);
    } else if tid_u < CONSUMER_COUNT_U {
        let column_u: usize = tid_u as usize;
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::new();
        let mut sum: f32 = 0.0f32;
        let mut tile_u: u32 = range.first_u;
        let mut iteration_u: u32 = 0u32;
        while (tile_u < tiles) && (iteration_u < MAX_ITERATIONS_U) {
            pipe.consumer_wait(&state);
            let stage_u: usize = state.index() as usize;
            for row_u in 0usize..ROWS_U {
                sum = sum + (*ring)[stage_u][(row_u * COLUMNS_U) + column_u];
            }
            pipe.consumer_release(&state);
            state.advance();
            tile_u = tile_u + range.stride_u;
            iteration_u = iteration_u + 1u32;
        }
        *out.add(((block_idx_x() as usize) * COLUMNS_U) + column_u) = sum;
    } else {
        // No role.
    }
}

/// BROKEN: the empty barriers are initialised for "every thread but the producer"
/// (`BLOCK_THREADS_U - 1U`, 63 arrivals), but only the 32 consumer threads release: no stage
/// is ever released, and the producer waits forever once the ring is full.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_misra_bad_release_count(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES_U: u32 = 4u32;
    const RELEASING_THREADS_U: u32 = BLOCK_THREADS_U - 1u32;
    block_threads(BLOCK_THREADS_U);
    dynamic_shared_bytes(SHARED_BYTES_U);

    let tid_u: u32 = thread_idx_x();
    let window_u: u32 = dynamic_shared_window_address();
    let ring: *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize] =
        dynamic_shared_base::<u8>().add(RING_OFFSET_U as usize) as *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize];
    let range: TileRange = tile_range_of_block();

    if tid_u == PRODUCER_TID_U {
        let _ = Pipeline::<STAGES_U>::init(window_u + BARRIER_OFFSET_U, RELEASING_THREADS_U);
    } else {
        // No action.
    }
    barrier();
    let pipe: Pipeline<STAGES_U> = Pipeline::<STAGES_U>::attach(window_u + BARRIER_OFFSET_U);

    if tid_u == PRODUCER_TID_U {
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::producer_start();
        let mut tile_u: u32 = range.first_u;
        let mut iteration_u: u32 = 0u32;
        while (tile_u < tiles) && (iteration_u < MAX_ITERATIONS_U) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES_U);
            bulk_copy_global_to_shared(
                window_u + RING_OFFSET_U + (state.index() * TILE_BYTES_U),
                input.add((tile_u as usize) * TILE_FLOATS_U) as *const u8,
                TILE_BYTES_U,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile_u = tile_u + range.stride_u;
            iteration_u = iteration_u + 1u32;
        }
        pipe.producer_tail(state);
    } else if tid_u < CONSUMER_COUNT_U {
        let column_u: usize = tid_u as usize;
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::new();
        let mut sum: f32 = 0.0f32;
        let mut tile_u: u32 = range.first_u;
        let mut iteration_u: u32 = 0u32;
        while (tile_u < tiles) && (iteration_u < MAX_ITERATIONS_U) {
            pipe.consumer_wait(&state);
            let stage_u: usize = state.index() as usize;
            for row_u in 0usize..ROWS_U {
                sum = sum + (*ring)[stage_u][(row_u * COLUMNS_U) + column_u];
            }
            pipe.consumer_release(&state);
            state.advance();
            tile_u = tile_u + range.stride_u;
            iteration_u = iteration_u + 1u32;
        }
        *out.add(((block_idx_x() as usize) * COLUMNS_U) + column_u) = sum;
    } else {
        // No role.
    }
}

/// BROKEN: the producer's and the consumers' loops have separate iteration bounds, and the
/// consumers' was set to 7 ("tiles per block minus one", an off-by-one in the requirement):
/// the consumers stop one tile early, the last stage is never released and the producer's
/// drain hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_misra_bad_consumer_bound(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES_U: u32 = 4u32;
    const MAX_PRODUCER_ITERATIONS_U: u32 = 8u32;
    const MAX_CONSUMER_ITERATIONS_U: u32 = 7u32;
    block_threads(BLOCK_THREADS_U);
    dynamic_shared_bytes(SHARED_BYTES_U);

    let tid_u: u32 = thread_idx_x();
    let window_u: u32 = dynamic_shared_window_address();
    let ring: *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize] =
        dynamic_shared_base::<u8>().add(RING_OFFSET_U as usize) as *mut [[f32; TILE_FLOATS_U]; STAGES_U as usize];
    let range: TileRange = tile_range_of_block();

    if tid_u == PRODUCER_TID_U {
        let _ = Pipeline::<STAGES_U>::init(window_u + BARRIER_OFFSET_U, CONSUMER_COUNT_U);
    } else {
        // No action.
    }
    barrier();
    let pipe: Pipeline<STAGES_U> = Pipeline::<STAGES_U>::attach(window_u + BARRIER_OFFSET_U);

    if tid_u == PRODUCER_TID_U {
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::producer_start();
        let mut tile_u: u32 = range.first_u;
        let mut iteration_u: u32 = 0u32;
        while (tile_u < tiles) && (iteration_u < MAX_PRODUCER_ITERATIONS_U) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES_U);
            bulk_copy_global_to_shared(
                window_u + RING_OFFSET_U + (state.index() * TILE_BYTES_U),
                input.add((tile_u as usize) * TILE_FLOATS_U) as *const u8,
                TILE_BYTES_U,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile_u = tile_u + range.stride_u;
            iteration_u = iteration_u + 1u32;
        }
        pipe.producer_tail(state);
    } else if tid_u < CONSUMER_COUNT_U {
        let column_u: usize = tid_u as usize;
        let mut state: PipelineState<STAGES_U> = PipelineState::<STAGES_U>::new();
        let mut sum: f32 = 0.0f32;
        let mut tile_u: u32 = range.first_u;
        let mut iteration_u: u32 = 0u32;
        while (tile_u < tiles) && (iteration_u < MAX_CONSUMER_ITERATIONS_U) {
            pipe.consumer_wait(&state);
            let stage_u: usize = state.index() as usize;
            for row_u in 0usize..ROWS_U {
                sum = sum + (*ring)[stage_u][(row_u * COLUMNS_U) + column_u];
            }
            pipe.consumer_release(&state);
            state.advance();
            tile_u = tile_u + range.stride_u;
            iteration_u = iteration_u + 1u32;
        }
        *out.add(((block_idx_x() as usize) * COLUMNS_U) + column_u) = sum;
    } else {
        // No role.
    }
}

/// BROKEN: the partial-sum array's offset constant is 512 bytes (it was sized for a 128-float
/// tile of an older revision): `partial` overlaps rows 4 and 5 of the staged tile, so the
/// lower half's partial stores overwrite rows the upper half is still reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_misra_bad_partial_alias(input: *const f32, tiles: u32, out: *mut f32) {
    const PARTIAL_OFFSET_U: usize = 512usize;
    const HALF_ROWS_U: usize = ROWS_U / 2usize;
    block_threads(BLOCK_THREADS_U);
    dynamic_shared_bytes(SHARED_BYTES_U);

    let tid_u: usize = thread_idx_x() as usize;
    let tile: *mut [f32; TILE_FLOATS_U] = dynamic_shared_base::<[f32; TILE_FLOATS_U]>();
    let partial: *mut [f32; BLOCK_THREADS_U as usize] =
        dynamic_shared_base::<u8>().add(PARTIAL_OFFSET_U) as *mut [f32; BLOCK_THREADS_U as usize];
    let range: TileRange = tile_range_of_block();
    let column_u: usize = tid_u % COLUMNS_U;
    let half_u: usize = tid_u / COLUMNS_U;
    let mut total: f32 = 0.0f32;

    misra_assert(tid_u < (BLOCK_THREADS_U as usize));
    let mut tile_u: u32 = range.first_u;
    let mut iteration_u: u32 = 0u32;
    while (tile_u < tiles) && (iteration_u < MAX_ITERATIONS_U) {
        let source: *const f32 = input.add((tile_u as usize) * TILE_FLOATS_U);
        for k_u in 0usize..(TILE_FLOATS_U / (BLOCK_THREADS_U as usize)) {
            let element_u: usize = tid_u + (k_u * (BLOCK_THREADS_U as usize));
            (*tile)[element_u] = *source.add(element_u);
        }
        barrier();
        let mut part: f32 = 0.0f32;
        for row_u in (half_u * HALF_ROWS_U)..((half_u + 1usize) * HALF_ROWS_U) {
            part = part + (*tile)[(row_u * COLUMNS_U) + column_u];
        }
        (*partial)[tid_u] = part;
        barrier();
        if tid_u < COLUMNS_U {
            total = total + (*partial)[tid_u] + (*partial)[tid_u + COLUMNS_U];
        } else {
            // Upper half: consumed by thread tid - 32.
        }
        barrier();
        tile_u = tile_u + range.stride_u;
        iteration_u = iteration_u + 1u32;
    }
    if tid_u < COLUMNS_U {
        *out.add(((block_idx_x() as usize) * COLUMNS_U) + tid_u) = total;
    } else {
        // No output from the upper half.
    }
}
