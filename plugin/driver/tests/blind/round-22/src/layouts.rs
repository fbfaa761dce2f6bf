//! Pipeline kernels that differ in where things live and how a stage is filled: barriers first
//! and the ring at the window's end, padded stage strides, a stage filled by several copies,
//! two pipelines side by side.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROW_BYTES: u32 = 128;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const WINDOW_BYTES: u32 = 8192;

#[inline(always)]
unsafe fn sum_column(stage: *const f32, col: u32) -> f32 {
    let mut s = 0.0f32;
    for r in 0..ROWS {
        s += *stage.add((r * COLS + col) as usize);
    }
    s
}

/// Barriers at byte 0, the ring in the window's last 4 KiB.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_ring_at_window_end(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING: u32 = WINDOW_BYTES - S * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<u8>().add(RING as usize) as *const f32;
    if tid == 0 {
        Pipeline::<S>::init(window, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += sum_column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Each stage filled by two 512-byte copies under one announcement of the whole tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_two_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const HALF: u32 = TILE_BYTES / 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * HALF);
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            let dst = window + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src, HALF, pipe.producer_barrier(&state));
            bulk_copy_global_to_shared(dst + HALF, src.add(HALF as usize), HALF, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += sum_column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Each stage filled by eight row copies in a loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_row_copies(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, ROWS * ROW_BYTES);
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            let dst = window + state.index() * TILE_BYTES;
            for r in 0..ROWS {
                bulk_copy_global_to_shared(dst + r * ROW_BYTES, src.add((r * ROW_BYTES) as usize), ROW_BYTES, pipe.producer_barrier(&state));
            }
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += sum_column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Five stages 1088 bytes apart (a 64-byte pad after each tile), barriers after the last pad.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_padded_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 5;
    const STRIDE: u32 = TILE_BYTES + 64;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * STRIDE;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * STRIDE,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += sum_column(ring.add((state.index() * (STRIDE / 4)) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Two pipelines of two stages: even tiles of the block go through the first (producer thread
/// 32), odd tiles through the second (producer thread 33); warp 0 alternates between them.
#[inline(always)]
unsafe fn two_pipelines_body(input: *const f32, tiles: u32, out: *mut f32, ring_b_offset: u32) {
    const S: u32 = 2;
    const RING_A: u32 = 0;
    const BARS_A: u32 = 4096;
    const BARS_B: u32 = BARS_A + pipeline_barrier_bytes(S);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<u8>();
    if tid == 0 {
        Pipeline::<S>::init(window + BARS_A, COLS);
        Pipeline::<S>::init(window + BARS_B, COLS);
    }
    barrier();
    let a = Pipeline::<S>::attach(window + BARS_A);
    let b = Pipeline::<S>::attach(window + BARS_B);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            a.producer_acquire(&state);
            a.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_A + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                a.producer_barrier(&state),
            );
            state.advance();
            t += 2 * step;
        }
        a.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first + step;
        while t < tiles {
            b.producer_acquire(&state);
            b.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_b_offset + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                b.producer_barrier(&state),
            );
            state.advance();
            t += 2 * step;
        }
        b.producer_tail(state);
    } else if tid < COLS {
        let ring_a = base.add(RING_A as usize) as *const f32;
        let ring_b = base.add(ring_b_offset as usize) as *const f32;
        let mut sa = PipelineState::<S>::new();
        let mut sb = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut odd = false;
        let mut t = first;
        while t < tiles {
            if odd {
                b.consumer_wait(&sb);
                acc += sum_column(ring_b.add((sb.index() * TILE_FLOATS) as usize), tid);
                b.consumer_release(&sb);
                sb.advance();
            } else {
                a.consumer_wait(&sa);
                acc += sum_column(ring_a.add((sa.index() * TILE_FLOATS) as usize), tid);
                a.consumer_release(&sa);
                sa.advance();
            }
            odd = !odd;
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// Two pipelines, rings at bytes 0 and 2048, barriers at 4096 and 4128.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_two_pipelines_parity(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    two_pipelines_body(input, tiles, out, 2 * TILE_BYTES);
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// BROKEN: the barriers sit at byte 3584, in the middle of the last of four stages: the copy of
/// every fourth tile overwrites the mbarriers with tile data.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_bad_barriers_in_last_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const BARS: u32 = (S - 1) * TILE_BYTES + TILE_BYTES / 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<S>::init(window + BARS, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARS);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += sum_column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: both half copies go to the stage's start (the second's destination lacks `+ HALF`):
/// rows 0-3 end up holding rows 4-7, and rows 4-7 are never filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_bad_half_copies_same_dest(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const HALF: u32 = TILE_BYTES / 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            let dst = window + state.index() * TILE_BYTES;
            for h in 0..2u32 {
                bulk_copy_global_to_shared(dst, src.add((h * HALF) as usize), HALF, pipe.producer_barrier(&state));
            }
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += sum_column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the barriers are placed after a 4-byte tile counter that follows the ring, at byte
/// 4100: not 8-byte aligned, so every mbarrier operation is misaligned.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_bad_barriers_misaligned(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const COUNTER: u32 = S * TILE_BYTES;
    const BARS: u32 = COUNTER + 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<S>::init(window + BARS, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARS);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += sum_column(ring.add((state.index() * TILE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: stages padded by two floats (1032 bytes apart) to dodge bank conflicts: every stage
/// but the first starts off the 16-byte alignment a bulk copy needs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_bad_stride_unaligned(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const STRIDE_FLOATS: u32 = TILE_FLOATS + 2;
    const STRIDE: u32 = STRIDE_FLOATS * 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4352;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * STRIDE,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += sum_column(ring.add((state.index() * STRIDE_FLOATS) as usize), tid);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the second pipeline's ring starts at byte 1024, inside the first ring (whose stage 1
/// is bytes 1024..2048): odd and even tiles land on each other.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_bad_two_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    two_pipelines_body(input, tiles, out, TILE_BYTES);
}

/// BROKEN: the second producer's copies complete on the first pipeline's full barrier
/// (`a.producer_barrier(&sb)`): the second pipeline's full barriers never receive their bytes
/// and the first's receive twice theirs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_lay_bad_copy_on_other_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_B: u32 = 2048;
    const BARS_A: u32 = 4096;
    const BARS_B: u32 = 4160;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<S>::init(window + BARS_A, COLS);
        Pipeline::<S>::init(window + BARS_B, COLS);
    }
    barrier();
    let a = Pipeline::<S>::attach(window + BARS_A);
    let b = Pipeline::<S>::attach(window + BARS_B);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut sa = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            a.producer_acquire(&sa);
            a.producer_expect_tx(&sa, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + sa.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                a.producer_barrier(&sa),
            );
            sa.advance();
            t += 2 * step;
        }
        a.producer_tail(sa);
    } else if tid == 33 {
        let mut sb = PipelineState::<S>::producer_start();
        let mut t = first + step;
        while t < tiles {
            b.producer_acquire(&sb);
            b.producer_expect_tx(&sb, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_B + sb.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                a.producer_barrier(&sb),
            );
            sb.advance();
            t += 2 * step;
        }
        b.producer_tail(sb);
    } else if tid < COLS {
        let mut sa = PipelineState::<S>::new();
        let mut sb = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut k = 0u32;
        let mut t = first;
        while t < tiles {
            if k % 2 == 0 {
                a.consumer_wait(&sa);
                acc += sum_column(base.add((sa.index() * TILE_FLOATS) as usize), tid);
                a.consumer_release(&sa);
                sa.advance();
            } else {
                b.consumer_wait(&sb);
                acc += sum_column(base.add(((RING_B / 4) + sb.index() * TILE_FLOATS) as usize), tid);
                b.consumer_release(&sb);
                sb.advance();
            }
            k += 1;
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}
