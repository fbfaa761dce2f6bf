//! Style: *double-buffered* accumulation and early exits. Consumers keep two partial sums (per
//! tile parity, per half of the rows, or a front and a back swapped every tile) and combine
//! them once at the end; blocks with no tile of their own leave early, writing zeros; a
//! variant splits even and odd tiles over two two-stage pipelines, one accumulator each.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: u32 = 32;
const ROWS: u32 = 8;
const RING_BYTE: u32 = 1024;

#[inline(always)]
unsafe fn source_of(input: *const f32, tile: u32) -> *const u8 {
    input.add((tile * TILE_FLOATS) as usize) as *const u8
}

#[inline(always)]
unsafe fn column_of(stage: *const f32, column: u32) -> f32 {
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += *stage.add((row * COLUMNS + column) as usize);
    }
    sum
}

/// The number of tiles block `b` of `g` owns.
#[inline(always)]
fn owned(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

/// Accumulators by tile parity; a block without tiles leaves before setting anything up.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_dbl_parity_accumulators(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    if b >= tiles {
        if tid >= 32 {
            *out.add((b * COLUMNS + tid - 32) as usize) = 0.0;
        }
        return;
    }
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    let mine = owned(tiles);
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, b + k * g),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut acc = [0.0f32; 2];
        let mut state = PipelineState::<4>::new();
        for k in 0..mine {
            pipe.consumer_wait(&state);
            acc[(k & 1) as usize] += column_of(ring.add((state.index() * TILE_FLOATS) as usize), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((b * COLUMNS + column) as usize) = acc[0] + acc[1];
    }
}

/// A front and a back accumulator swapped every tile; the stage pointers come from a table
/// built once and indexed by the state's stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_dbl_swapped_front_back(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    let stages: [*const f32; 4] = [ring, ring.add(256), ring.add(512), ring.add(768)];
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = b;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut front = 0.0f32;
        let mut back = 0.0f32;
        let mut state = PipelineState::<4>::new();
        let mut tile = b;
        while tile < tiles {
            pipe.consumer_wait(&state);
            front += column_of(stages[state.index() as usize], column);
            pipe.consumer_release(&state);
            state.advance();
            core::mem::swap(&mut front, &mut back);
            tile += g;
        }
        *out.add((b * COLUMNS + column) as usize) = front + back;
    }
}

/// Even tiles through one two-stage pipeline, odd tiles through another, one producer thread
/// for both and one accumulator per pipeline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_dbl_even_odd_pipelines(input: *const f32, tiles: u32, out: *mut f32) {
    const EVEN_BARRIERS: u32 = 0;
    const ODD_BARRIERS: u32 = EVEN_BARRIERS + pipeline_barrier_bytes(2);
    const EVEN_RING: u32 = 1024;
    const ODD_RING: u32 = EVEN_RING + 2 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<2>::init(window + EVEN_BARRIERS, 32);
        Pipeline::<2>::init(window + ODD_BARRIERS, 32);
    }
    barrier();
    let even = Pipeline::<2>::attach(window + EVEN_BARRIERS);
    let odd = Pipeline::<2>::attach(window + ODD_BARRIERS);
    let base = dynamic_shared_base::<f32>();
    let even_ring = base.add((EVEN_RING / 4) as usize);
    let odd_ring = base.add((ODD_RING / 4) as usize);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = owned(tiles);
    if tid == 0 {
        let mut es = PipelineState::<2>::producer_start();
        let mut os = PipelineState::<2>::producer_start();
        for k in 0..mine {
            let source = source_of(input, b + k * g);
            if k & 1 == 0 {
                even.producer_acquire(&es);
                even.producer_expect_tx(&es, TILE_BYTES);
                bulk_copy_global_to_shared(window + EVEN_RING + es.index() * TILE_BYTES, source, TILE_BYTES, even.producer_barrier(&es));
                es.advance();
            } else {
                odd.producer_acquire(&os);
                odd.producer_expect_tx(&os, TILE_BYTES);
                bulk_copy_global_to_shared(window + ODD_RING + os.index() * TILE_BYTES, source, TILE_BYTES, odd.producer_barrier(&os));
                os.advance();
            }
        }
        even.producer_tail(es);
        odd.producer_tail(os);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut es = PipelineState::<2>::new();
        let mut os = PipelineState::<2>::new();
        let mut acc = [0.0f32; 2];
        for k in 0..mine {
            if k & 1 == 0 {
                even.consumer_wait(&es);
                acc[0] += column_of(even_ring.add((es.index() * TILE_FLOATS) as usize), column);
                even.consumer_release(&es);
                es.advance();
            } else {
                odd.consumer_wait(&os);
                acc[1] += column_of(odd_ring.add((os.index() * TILE_FLOATS) as usize), column);
                odd.consumer_release(&os);
                os.advance();
            }
        }
        *out.add((b * COLUMNS + column) as usize) = acc[0] + acc[1];
    }
}

/// Two add chains per tile (rows 0-3 and rows 4-7); a block with nothing to do writes its
/// zeros and returns after the setup barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_dbl_half_rows_early_exit(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<3>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = owned(tiles);
    if mine == 0 {
        if tid >= 32 {
            *out.add((b * COLUMNS + tid - 32) as usize) = 0.0;
        }
        return;
    }
    if tid == 0 {
        let mut state = PipelineState::<3>::producer_start();
        let mut left = mine;
        let mut tile = b;
        while left > 0 {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, tile),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += g;
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut top = 0.0f32;
        let mut bottom = 0.0f32;
        let mut state = PipelineState::<3>::new();
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            for row in 0..4 {
                top += *stage.add((row * COLUMNS + column) as usize);
                bottom += *stage.add(((row + 4) * COLUMNS + column) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add((b * COLUMNS + column) as usize) = top + bottom;
    }
}

/// BROKEN: the consumers pick their buffer by tile parity from two pointers made when the ring
/// had two stages; with four stages tile `k` lies in stage `k % 4`, so tiles 2 and 3 of each
/// round are read from stages 0 and 1 (stale or being refilled).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_dbl_bad_parity_buffers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    let buffers: [*const f32; 2] = [ring, ring.add(TILE_FLOATS as usize)];
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = owned(tiles);
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, b + k * g),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut acc = [0.0f32; 2];
        let mut state = PipelineState::<4>::new();
        for k in 0..mine {
            let parity = (k & 1) as usize;
            pipe.consumer_wait(&state);
            acc[parity] += column_of(buffers[parity], column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((b * COLUMNS + column) as usize) = acc[0] + acc[1];
    }
}

/// BROKEN: "the consumers free stages in pairs", so the producer acquires only before even
/// tiles; odd tiles are copied into a stage the consumers may still be reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_dbl_bad_acquire_even_only(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = owned(tiles);
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        for k in 0..mine {
            if k & 1 == 0 {
                pipe.producer_acquire(&state);
            }
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, b + k * g),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut acc = [0.0f32; 2];
        let mut state = PipelineState::<4>::new();
        for k in 0..mine {
            pipe.consumer_wait(&state);
            acc[(k & 1) as usize] += column_of(ring.add((state.index() * TILE_FLOATS) as usize), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((b * COLUMNS + column) as usize) = acc[0] + acc[1];
    }
}

/// BROKEN: after adding the last tile the consumers `break` straight to the combine ("the
/// kernel ends anyway"), skipping that stage's release: the producer's tail waits for it
/// forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_dbl_bad_last_release_skipped(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = owned(tiles);
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_BYTE + state.index() * TILE_BYTES,
                source_of(input, b + k * g),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut acc = [0.0f32; 2];
        let mut state = PipelineState::<4>::new();
        for k in 0..mine {
            pipe.consumer_wait(&state);
            acc[(k & 1) as usize] += column_of(ring.add((state.index() * TILE_FLOATS) as usize), column);
            if k + 1 == mine {
                break;
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((b * COLUMNS + column) as usize) = acc[0] + acc[1];
    }
}

/// Rounds a window offset down to a multiple of `align` (meant: up).
const fn align_to(offset: u32, align: u32) -> u32 {
    offset / align * align
}

/// BROKEN: the odd pipeline's barriers are placed with `align_to(32, 64)`, which rounds down
/// to 0: both pipelines are initialised on the same mbarriers, so each barrier serves two
/// states; waits return on the other pipeline's phases and stages are read before their
/// copies land and refilled while still read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_dbl_bad_even_odd_same_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    const EVEN_BARRIERS: u32 = 0;
    const ODD_BARRIERS: u32 = align_to(EVEN_BARRIERS + pipeline_barrier_bytes(2), 64);
    const EVEN_RING: u32 = 1024;
    const ODD_RING: u32 = EVEN_RING + 2 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<2>::init(window + EVEN_BARRIERS, 32);
        Pipeline::<2>::init(window + ODD_BARRIERS, 32);
    }
    barrier();
    let even = Pipeline::<2>::attach(window + EVEN_BARRIERS);
    let odd = Pipeline::<2>::attach(window + ODD_BARRIERS);
    let base = dynamic_shared_base::<f32>();
    let even_ring = base.add((EVEN_RING / 4) as usize);
    let odd_ring = base.add((ODD_RING / 4) as usize);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = owned(tiles);
    if tid == 0 {
        let mut es = PipelineState::<2>::producer_start();
        let mut os = PipelineState::<2>::producer_start();
        for k in 0..mine {
            let source = source_of(input, b + k * g);
            if k & 1 == 0 {
                even.producer_acquire(&es);
                even.producer_expect_tx(&es, TILE_BYTES);
                bulk_copy_global_to_shared(window + EVEN_RING + es.index() * TILE_BYTES, source, TILE_BYTES, even.producer_barrier(&es));
                es.advance();
            } else {
                odd.producer_acquire(&os);
                odd.producer_expect_tx(&os, TILE_BYTES);
                bulk_copy_global_to_shared(window + ODD_RING + os.index() * TILE_BYTES, source, TILE_BYTES, odd.producer_barrier(&os));
                os.advance();
            }
        }
        even.producer_tail(es);
        odd.producer_tail(os);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut es = PipelineState::<2>::new();
        let mut os = PipelineState::<2>::new();
        let mut acc = [0.0f32; 2];
        for k in 0..mine {
            if k & 1 == 0 {
                even.consumer_wait(&es);
                acc[0] += column_of(even_ring.add((es.index() * TILE_FLOATS) as usize), column);
                even.consumer_release(&es);
                es.advance();
            } else {
                odd.consumer_wait(&os);
                acc[1] += column_of(odd_ring.add((os.index() * TILE_FLOATS) as usize), column);
                odd.consumer_release(&os);
                os.advance();
            }
        }
        *out.add((b * COLUMNS + column) as usize) = acc[0] + acc[1];
    }
}
