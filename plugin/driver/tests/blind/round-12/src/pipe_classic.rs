//! The mbarrier pipeline written out in the kernel: one producer thread, 32 consumer threads,
//! rings of 2 to 7 stages of one tile each, in several layouts and loop shapes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const CONSUMERS: u32 = 32;

#[inline(always)]
fn tile_source(input: *const f32, t: u32) -> *const u8 {
    input.wrapping_add(t as usize * TILE_FLOATS) as *const u8
}

/// Barriers at byte 0, four stages from byte 1024; thread 32 produces, warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_classic_four(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(lane + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + lane) = acc };
    }
}

/// Two stages at the start of the window, barriers after them; thread 0 initialises and
/// produces, warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_consumer_warp_one(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + STAGES * TILE_BYTES;
    let pipe = Pipeline::<STAGES>::attach(bars);
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    match tid {
        0 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = first;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let dst = window + state.index() * TILE_BYTES;
                bulk_copy_global_to_shared(
                    dst,
                    tile_source(input, t),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += step;
            }
            pipe.producer_tail(state);
        }
        32..=63 => {
            let lane = (tid - 32) as usize;
            let ring: *const f32 = dynamic_shared_base();
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
                let mut row = 0;
                while row < ROWS {
                    acc += unsafe { *stage.add(lane + COLUMNS * row) };
                    row += 1;
                }
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            unsafe { *out.add(first as usize * COLUMNS + lane) = acc };
        }
        _ => {}
    }
}

/// Both roles walk their tiles with `step_by`; thread 63 initialises and produces into three
/// stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_step_by_loops(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 63 {
        Pipeline::<STAGES>::init(window, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if tid == 63 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (first..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    }
    if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _t in (first..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in (0..TILE_FLOATS).step_by(COLUMNS) {
                acc += unsafe { *stage.add(row + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// The tile count is computed up front; both roles count with `loop` and `break`. Barriers at
/// byte 512, ring at 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_counted_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 512;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    let count = if first < tiles { (tiles - first).div_ceil(step) } else { 0 };
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut j = 0;
        loop {
            if j == count {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, first + j * step),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            j += 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut j = 0;
        loop {
            if j == count {
                break;
            }
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            j += 1;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Three stages at the start of the window, the barriers right after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_barriers_after_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 32 {
        Pipeline::<STAGES>::init(window + BARS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut j = 0u32;
        while first + j * step < tiles {
            let t = first + j * step;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            j += 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring: *const f32 = dynamic_shared_base();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut j = 0u32;
        while first + j * step < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS + tid as usize) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            j += 1;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Seven stages from byte 1024 to the end of the window; barriers at byte 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 7;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            acc += (0..ROWS).map(|row| unsafe { *stage.add(tid as usize + COLUMNS * row) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// The consumers load their eight values into registers early to hide the latency, then wait.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_prefetch_regs_before_wait(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            let mut values = [0.0f32; ROWS];
            for (row, v) in values.iter_mut().enumerate() {
                *v = unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_wait(&state);
            for v in values {
                acc += v;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// The consumers hand the stage back as soon as it has landed, so the producer can refill it
/// while they add.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_release_then_accumulate(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 2;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            pipe.consumer_release(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Stages sized for two tiles (room for a later pairing); for now one tile goes into each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_wide_stage_one_tile(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING: u32 = 1024;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, STAGE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * STAGE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * (STAGE_BYTES as usize / 4)) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// The consumers only count stages: `tiles / gridDim` rounded up.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_consumer_count_rounded(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let per_block = tiles / step + 1;
        for _ in 0..per_block {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Consumer state kept in a `let` binding; the stage pointer is recomputed from it every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_consumer_let_state(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}

/// The ring at the start of the window, the barriers after its four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_pipe_barriers_after_four(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const STAGE_FLOATS: u32 = TILE_FLOATS as u32;
    const BARS: u32 = STAGES * STAGE_FLOATS;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARS)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                tile_source(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring: *const f32 = dynamic_shared_base();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * STAGE_FLOATS as usize) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(tid as usize + COLUMNS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * COLUMNS + tid as usize) = acc };
    }
}
