//! mbarrier pipeline, views style, the broken kernels (split from `pipe_views.rs` after the
//! round was measured, to keep each file under 800 lines; the held-out results name the lines
//! of the single file).

use core::slice::from_raw_parts;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const BARRIERS: u32 = 0;
const RING: u32 = 1024;
const RING_FLOATS: usize = RING as usize / 4;

/// Broken: the consumer keeps rows 0..3 in registers, releases the stage, and then reads rows
/// 4..7 from the stage it no longer holds (the producer may be refilling it).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_half_after_release(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<2>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<2>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe {
                from_raw_parts(
                    smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) as *const f32,
                    TILE_FLOATS,
                )
            };
            let top: f32 = stage.iter().skip(col).step_by(COLS).take(4).sum();
            pipe.consumer_release(&state);
            let bottom: f32 = stage[128 + col..].iter().step_by(COLS).sum();
            acc += top + bottom;
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: eight stages with the ring at byte 1024: stage 7 is bytes 8192..9216, past the 8 KiB
/// window, so the eighth tile's bulk copy writes outside the block's shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_eight_stages_past_window(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<8>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<8>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<8>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<8>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe {
                from_raw_parts(
                    smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) as *const f32,
                    TILE_FLOATS,
                )
            };
            acc += stage.iter().skip(col).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: the barrier area starts at byte 4, after a 4-byte "flags" word, so every mbarrier is
/// misaligned (they need 8-byte alignment).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_misaligned_barriers(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const FLAGS_BYTES: u32 = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + FLAGS_BYTES, 32)
    } else {
        Pipeline::<4>::attach(window + FLAGS_BYTES)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) };
            acc += (0..8).fold(0.0f32, |a, r| a + unsafe { *stage.add(col + COLS * r) });
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: the consumer starts from `PipelineState::producer_start()` (phase 1): its first lap
/// of waits returns at once on fresh barriers, so it reads stages before their copies land and
/// the whole ring is then read one lap out of step (wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_consumer_producer_start(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::producer_start();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe {
                from_raw_parts(
                    smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) as *const f32,
                    TILE_FLOATS,
                )
            };
            acc += stage.iter().skip(col).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: each stage takes a pair of tiles (two copies, `expect_tx` of 2048) but the stage
/// stride stays one tile, so the second copy of stage `s` lands in stage `s + 1`, which that
/// stage's own copy is filling at the same time (overlapping copies, wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_pair_copy_overflows(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            let bar = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(
                dst,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                bar,
            );
            bulk_copy_global_to_shared(
                dst + TILE_BYTES,
                unsafe { input.add((t + step) as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                bar,
            );
            state.advance();
            t += 2 * step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let pair = unsafe {
                from_raw_parts(
                    smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) as *const f32,
                    2 * TILE_FLOATS,
                )
            };
            acc += pair.iter().skip(col).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += 2 * step;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: the producer thread initialises the barriers itself and nobody passes a block barrier
/// after it ("the producer is the only one who needs them initialised"): the consumers may wait
/// on, and arrive at, mbarriers that are not initialised yet (or are being initialised).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_no_init_barrier(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 63 {
        let pipe = Pipeline::<4>::init(window + BARRIERS, 32);
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let pipe = Pipeline::<4>::attach(window + BARRIERS);
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) };
            acc += (0..8).map(|r| unsafe { *stage.add(col + COLS * r) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: the empty barriers are initialised for 64 releasing threads ("every thread of the
/// block") but only warp 0 consumes and releases: no stage is ever freed, and the producer hangs
/// on its fifth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_init_for_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 64)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe {
                from_raw_parts(
                    smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) as *const f32,
                    TILE_FLOATS,
                )
            };
            acc += stage.chunks_exact(COLS).map(|row| row[col]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: `expect_tx` announces half a tile (512 bytes) for a 1024-byte copy: the full barrier
/// can complete when half the tile has landed, and the surplus bytes complete on the next phase,
/// so consumers read partial or stale stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_expect_half_tile(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES / 2);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe {
                from_raw_parts(
                    smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) as *const f32,
                    TILE_FLOATS,
                )
            };
            acc += stage.iter().skip(col).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: both sides run `tiles / grid + 1` rounds ("one spare round for a remainder") and the
/// producer skips the copy when the round's tile is past the end, after its `expect_tx`: with 64
/// tiles the spare round's full barrier never gets its bytes and the consumers hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_padded_round(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    let grid = grid_dim_x();
    let rounds = tiles / grid + 1;
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        for round in 0..rounds {
            let t = block_idx_x() + round * grid;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            if t < tiles {
                bulk_copy_global_to_shared(
                    window + RING + state.index() * TILE_BYTES,
                    unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for round in 0..rounds {
            let t = block_idx_x() + round * grid;
            pipe.consumer_wait(&state);
            if t < tiles {
                let stage = unsafe { smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) };
                acc += (0..8).map(|r| unsafe { *stage.add(col + COLS * r) }).sum::<f32>();
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: the two-ring kernel with a copy-paste slip: on odd rounds the consumers wait on the
/// second pipeline but release the first, so the second ring's stages are never freed and the
/// producer hangs on its third odd round.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_two_rings_crossed(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const BARRIERS_B: u32 = 64;
    const RING_B: u32 = 3072;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (even, odd) = if tid == 0 {
        (Pipeline::<2>::init(window + BARRIERS, 32), Pipeline::<2>::init(window + BARRIERS_B, 32))
    } else {
        (Pipeline::<2>::attach(window + BARRIERS), Pipeline::<2>::attach(window + BARRIERS_B))
    };
    barrier();
    if tid == 32 {
        let mut se = PipelineState::<2>::producer_start();
        let mut so = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        let mut round = 0u32;
        while t < tiles {
            let src = unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8;
            if round & 1 == 0 {
                even.producer_acquire(&se);
                even.producer_expect_tx(&se, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING + se.index() * TILE_BYTES,
                    src,
                    TILE_BYTES,
                    even.producer_barrier(&se),
                );
                se.advance();
            } else {
                odd.producer_acquire(&so);
                odd.producer_expect_tx(&so, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_B + so.index() * TILE_BYTES,
                    src,
                    TILE_BYTES,
                    odd.producer_barrier(&so),
                );
                so.advance();
            }
            round += 1;
            t += grid_dim_x();
        }
        even.producer_tail(se);
        odd.producer_tail(so);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let col = tid as usize;
        let mut se = PipelineState::<2>::new();
        let mut so = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        let mut round = 0u32;
        while t < tiles {
            if round & 1 == 0 {
                even.consumer_wait(&se);
                let stage = unsafe { smem.add(RING_FLOATS + se.index() as usize * TILE_FLOATS) };
                acc += (0..8).map(|r| unsafe { *stage.add(col + COLS * r) }).sum::<f32>();
                even.consumer_release(&se);
                se.advance();
            } else {
                odd.consumer_wait(&so);
                let stage = unsafe { smem.add(RING_B as usize / 4 + so.index() as usize * TILE_FLOATS) };
                acc += (0..8).map(|r| unsafe { *stage.add(col + COLS * r) }).sum::<f32>();
                even.consumer_release(&so);
                so.advance();
            }
            round += 1;
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}
