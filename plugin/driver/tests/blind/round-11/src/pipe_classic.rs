//! mbarrier pipeline, classic style: the producer and consumer loops written out in the kernel
//! body with `while`/`loop`, roles chosen by `if`/`match` on the thread index, layout as module
//! constants (barriers and ring at fixed byte offsets of the dynamic window).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;

/// Correct: four stages, barriers at byte 0, ring at byte 1024; thread 32 produces, warp 0
/// consumes (column `tid`), both loops `while t < tiles` from the block index by the grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_four_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const BARRIERS: u32 = 0;
    const RING: u32 = 1024;
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
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8;
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                src,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize / 4) };
            for row in 0..8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add((first * 32 + tid) as usize) = acc };
    }
}

/// Correct: two stages with the ring at byte 0 and the barriers after it (byte 2048); the last
/// thread (63) initialises and produces; `loop`/`break` tile loops.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_two_stage_tail_barriers(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const RING: u32 = 0;
    const BARRIERS: u32 = 2 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 63 {
        Pipeline::<2>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<2>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 63 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) }.cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    }
    if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            let mut row = 0;
            while row < 8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
                row += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: three stages, each filled by two 512-byte bulk copies (the two halves of the tile)
/// against one `expect_tx` of 1024 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
    const BARRIERS: u32 = 0;
    const RING: u32 = 1024;
    const HALF: u32 = TILE_BYTES / 2;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<3>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<3>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * HALF);
            let src = unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8;
            let dst = window + RING + state.index() * TILE_BYTES;
            let bar = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(dst, src, HALF, bar);
            bulk_copy_global_to_shared(dst + HALF, unsafe { src.add(HALF as usize) }, HALF, bar);
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<u8>();
        let mut state = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) }.cast::<f32>();
            for row in 0..8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: roles by `match tid { 0..=31 => consumer, 32 => producer, _ => idle }`; ring at byte
/// 0, barriers after four stages (byte 4096).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_match_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 0;
    const BARRIERS: u32 = 4 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = match tid {
        32 => Pipeline::<4>::init(window + BARRIERS, 32),
        _ => Pipeline::<4>::attach(window + BARRIERS),
    };
    barrier();
    let block = block_idx_x();
    match tid {
        0..=31 => {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let base = state.index() as usize * TILE_FLOATS + tid as usize;
                for row in 0..8 {
                    acc += unsafe { *ring.add(base + COLS * row) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid_dim_x();
            }
            unsafe { *out.add(block as usize * COLS + tid as usize) = acc };
        }
        32 => {
            let mut state = PipelineState::<4>::producer_start();
            let mut t = block;
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
        }
        _ => {}
    }
}

/// Correct: six stages (ring at byte 1024 up to 7168, barriers at byte 0); thread 0 produces and
/// warp 1 consumes, column `tid - 32`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_warp1_consumes(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const BARRIERS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<6>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<6>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<6>::producer_start();
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
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let smem = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<6>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(RING as usize / 4 + state.index() as usize * TILE_FLOATS) };
            for row in 0..8 {
                acc += unsafe { *stage.add(col + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: the consumer sums the stage before `consumer_wait` ("the wait is just a formality"):
/// it reads the stage before the copy has landed (the first lap reads uninitialised memory).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_read_before_wait(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const BARRIERS: u32 = 0;
    const RING: u32 = 1024;
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
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize / 4) };
            let mut sum = 0.0f32;
            for row in 0..8 {
                sum += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_wait(&state);
            acc += sum;
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: the producer announces two tiles' bytes (`2 * TILE_BYTES`) but copies one, so the
/// full barrier never completes and the consumers wait forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_expect_two_tiles(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const BARRIERS: u32 = 0;
    const RING: u32 = 1024;
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
            pipe.producer_expect_tx(&state, 2 * TILE_BYTES);
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
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize / 4) };
            for row in 0..8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: the consumers count their rounds as `(tiles + grid) / grid` (a ceiling written
/// wrong): with 64 tiles and 8 blocks that is 9 rounds against the producer's 8, so the ninth
/// wait never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_consumer_extra_round(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const BARRIERS: u32 = 0;
    const RING: u32 = 1024;
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
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let rounds = (tiles + grid) / grid;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut round = 0;
        while round < rounds {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize / 4) };
            for row in 0..8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            round += 1;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: the consumer test is `tid <= 32`, so 33 threads release a barrier initialised for 32
/// (each empty phase completes before every reader is done) and thread 32 reads "column 32" (row 8
/// is the next stage) and writes `out[b * 32 + 32]`, the next block's column 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_consumers_off_by_one(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const BARRIERS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 63 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 63 {
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
    } else if tid <= 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize / 4) };
            for row in 0..8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: the barriers are placed "after the ring" at `RING + 3 * TILE_BYTES` (the stage count
/// miscounted): they sit inside stage 3, and the fourth tile's copy overwrites live mbarriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_classic_barriers_in_last_stage(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    const RING: u32 = 0;
    const BARRIERS: u32 = RING + 3 * TILE_BYTES;
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
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}
