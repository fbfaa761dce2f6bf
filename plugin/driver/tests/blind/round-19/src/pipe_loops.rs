//! Pipeline kernels written inline in the entry, differing in loop shape (`while`, `loop` with
//! `break`, count-downs, `for` over ranges and `step_by`, do-while) and in the shared layout
//! (barriers before or after the ring, 2 to 7 stages, different producer threads).
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch,
    thread_idx_x,
};
use crate::{COLS, ROWS, TILE, TILE_BYTES};

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// Barriers at the front of the window, the ring one KiB in; thread 0 produces, warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_while_bars_front(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING: u32 = 1024;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window, 32) } else { Pipeline::<S>::attach(window) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(tile as usize * TILE) as *const u8;
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                src,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE);
            let mut row = 0;
            while row < ROWS {
                sum += *stage.add(row * COLS + column);
                row += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// Seven stages fill the first 7 KiB, their barriers follow; the last thread produces and
/// warp 0 consumes, both in `loop { … break }` form.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_break_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 7;
    const BARRIERS: u32 = STAGES * TILE_BYTES;
    let base = dynamic_shared_window_address();
    let me = thread_idx_x();
    if me == 63 {
        Pipeline::<STAGES>::init(base + BARRIERS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(base + BARRIERS);
    let first = block_idx_x();
    let step = grid_dim_x();
    if me == 63 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                base + st.index() * TILE_BYTES,
                input.add(t as usize * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    }
    if me < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&st);
            let at = st.index() as usize * TILE + me as usize;
            for r in 0..ROWS {
                acc += *smem.add(at + r * COLS);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        *out.add(first as usize * COLS + me as usize) = acc;
    }
}

/// Two stages; both roles count their own tiles down from the number the block owns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_count_down(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let w = dynamic_shared_window_address();
    let bars = w + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let owned = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut left = owned;
        let mut src = input.add(b as usize * TILE);
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(w + st.index() * TILE_BYTES, src as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            src = src.wrapping_add(g as usize * TILE);
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut total = 0.0f32;
        let mut left = owned;
        while left != 0 {
            pipe.consumer_wait(&st);
            let stage = ring.add(TILE * st.index() as usize);
            let mut part = 0.0f32;
            let mut r = ROWS;
            while r > 0 {
                r -= 1;
                part += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            total += part;
            left -= 1;
        }
        *out.add((b * 32 + tid) as usize) = total;
    }
}

/// Three stages walked by `for t in (block..tiles).step_by(grid)` in both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_for_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let barriers = window + 3 * TILE_BYTES;
    let thread = thread_idx_x();
    if thread == 0 {
        let _ = Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x() as usize;
    if thread == 0 {
        let mut state = PipelineState::<S>::producer_start();
        for t in (block..tiles).step_by(grid) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if thread >= 32 {
        let col = thread as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        for _t in (block..tiles).step_by(grid) {
            pipe.consumer_wait(&state);
            let base = state.index() as usize * TILE + col;
            for r in 0..ROWS {
                sum += *ring.add(base + r * COLS);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * COLS + col) = sum;
    }
}

/// Six stages; both roles run `for k in 0..owned` and the consumers keep one partial per row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_for_range_row_partials(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 40 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let owned = (tiles + grid - 1 - block) / grid;
    if tid == 40 {
        let mut state = PipelineState::<S>::producer_start();
        for k in 0..owned {
            let tile = block + k * grid;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut rows = [0.0f32; ROWS];
        let mut state = PipelineState::<S>::new();
        for _ in 0..owned {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE + tid as usize);
            rows[0] += *stage;
            rows[1] += *stage.add(COLS);
            rows[2] += *stage.add(2 * COLS);
            rows[3] += *stage.add(3 * COLS);
            rows[4] += *stage.add(4 * COLS);
            rows[5] += *stage.add(5 * COLS);
            rows[6] += *stage.add(6 * COLS);
            rows[7] += *stage.add(7 * COLS);
            pipe.consumer_release(&state);
            state.advance();
        }
        let total = ((rows[0] + rows[1]) + (rows[2] + rows[3])) + ((rows[4] + rows[5]) + (rows[6] + rows[7]));
        *out.add(block as usize * COLS + tid as usize) = total;
    }
}

/// Five stages after 128 bytes of barriers; do-while loops guarded once, and the producer steps
/// through a copied state it writes back.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_do_while_state_copy(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 5;
    const RING_AT: u32 = 128;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window, 32) } else { Pipeline::<S>::attach(window) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if block >= tiles {
        if tid < 32 {
            *out.add(block as usize * COLS + tid as usize) = 0.0;
        }
        return;
    }
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        loop {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_AT + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            let mut next = state;
            next.advance();
            state = next;
            tile += grid;
            if tile >= tiles {
                break;
            }
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>().add(RING_AT as usize / 4);
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut tile = block;
        loop {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE);
            for r in (0..ROWS).rev() {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
            if tile >= tiles {
                break;
            }
        }
        *out.add(block as usize * COLS + c) = acc;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// Stages padded to 2 KiB apart; the stride, not the tile, is announced to the full barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_bad_stage_stride_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const STAGE_STRIDE: u32 = 2048;
    let window = dynamic_shared_window_address();
    let bars = window + S * STAGE_STRIDE;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, STAGE_STRIDE);
            bulk_copy_global_to_shared(
                window + state.index() * STAGE_STRIDE,
                input.add(tile as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let smem = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * (STAGE_STRIDE as usize / 4));
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + col);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + col) = sum;
    }
}

/// The consumers count their tiles with a floor division, the producer walks every tile it owns:
/// blocks after the first consume one tile fewer than are copied.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_bad_consumer_floor_count(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
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
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let count = if block < tiles { (tiles - block) / grid } else { 0 };
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut k = 0;
        while k < count {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            k += 1;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}

/// The barrier area is placed at `STAGES * TILE` (a float count taken for bytes): inside stage 1,
/// so the copies into stage 1 overwrite the mbarriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_bad_bars_inside_ring(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const BARS: u32 = S * TILE as u32;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + BARS, 32) } else { Pipeline::<S>::attach(window + BARS) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
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
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + col);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + col) = sum;
    }
}

/// Seven stages starting one KiB into the window, barriers right after them: at byte 8192, past
/// the end of the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_bad_bars_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 7;
    const RING: u32 = 1024;
    const BARS: u32 = RING + S * TILE_BYTES;
    let base = dynamic_shared_window_address();
    let me = thread_idx_x();
    if me == 63 {
        Pipeline::<S>::init(base + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(base + BARS);
    let first = block_idx_x();
    let step = grid_dim_x();
    if me == 63 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = first;
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                base + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    }
    if me < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&st);
            let at = st.index() as usize * TILE + me as usize;
            for r in 0..ROWS {
                acc += *ring.add(at + r * COLS);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        *out.add(first as usize * COLS + me as usize) = acc;
    }
}

/// The consumers compute their column's pointer into the stage once, before the tile loop, from
/// the fresh state: every tile is read from stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_bad_hoisted_column_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
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
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut state = PipelineState::<S>::new();
        let column = dynamic_shared_base::<f32>().add(state.index() as usize * TILE + col);
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            for r in 0..ROWS {
                sum += *column.add(r * COLS);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + col) = sum;
    }
}

/// The consumers release the stage after its first four rows, to let the producer start the
/// next copy sooner, and read the last four rows after the release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_loop_bad_release_between_halves(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = block;
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
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE + tid as usize);
            let mut top = 0.0f32;
            for r in 0..ROWS / 2 {
                top += *stage.add(r * COLS);
            }
            pipe.consumer_release(&state);
            let mut bottom = 0.0f32;
            for r in ROWS / 2..ROWS {
                bottom += *stage.add(r * COLS);
            }
            sum += top + bottom;
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}
