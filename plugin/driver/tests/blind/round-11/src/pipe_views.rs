//! mbarrier pipeline, views style: consumers read a stage through `slice::from_raw_parts`,
//! `chunks_exact`, iterator adaptors, `copy_nonoverlapping` into register arrays and warp
//! shuffles; layouts with several rings, padded rounds and early `return`s of idle threads.

use core::ptr::copy_nonoverlapping;
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

#[inline(always)]
fn shfl_xor(value: f32, mask: u32) -> f32 {
    let result: f32;
    // SAFETY: register-only shuffle; the whole warp is converged at every call.
    unsafe {
        core::arch::asm!(
            "shfl.sync.bfly.b32 {r}, {v}, {m}, 0x1f, 0xffffffff;",
            r = out(reg32) result,
            v = in(reg32) value,
            m = in(reg32) mask,
            options(nomem, nostack),
        );
    }
    result
}

/// Correct: the consumer views the waited stage as a 256-float slice and sums
/// `skip(col).step_by(32)` before releasing it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_slice_step_sum(input: *const f32, tiles: u32, out: *mut f32) {
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

/// Correct: the consumer walks the stage as `chunks_exact(32)` rows, picking its column, with a
/// `for` loop over `chunks_exact`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_chunks_exact(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 32 {
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
            for row in stage.chunks_exact(COLS) {
                acc += row[col];
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Correct: the consumer copies its column's eight values into a register array, releases the
/// stage, and only then adds the registers (reading registers after the release is fine).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_registers_then_release(
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
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) };
            let mut regs = [0.0f32; 8];
            for (row, r) in regs.iter_mut().enumerate() {
                *r = unsafe { *stage.add(col + COLS * row) };
            }
            pipe.consumer_release(&state);
            acc += regs.iter().sum::<f32>();
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Correct: lane `l` of warp 0 copies the eight contiguous floats `8l..8l + 8` of each stage into
/// registers (`copy_nonoverlapping`) and accumulates them; at the end shuffles over lane bits 2..4
/// add the eight rows, and lanes 0..3 write eight columns each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_shuffle_rows(input: *const f32, tiles: u32, out: *mut f32) {
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
        let lane = tid as usize;
        let mut acc = [0.0f32; 8];
        let mut state = PipelineState::<4>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) };
            let mut regs = [0.0f32; 8];
            unsafe { copy_nonoverlapping(stage.add(8 * lane), regs.as_mut_ptr(), 8) };
            pipe.consumer_release(&state);
            for (a, r) in acc.iter_mut().zip(regs) {
                *a += r;
            }
            state.advance();
            t += grid_dim_x();
        }
        for a in acc.iter_mut() {
            for mask in [4u32, 8, 16] {
                *a += shfl_xor(*a, mask);
            }
        }
        if lane < 4 {
            for (j, a) in acc.iter().enumerate() {
                unsafe { *out.add(block_idx_x() as usize * COLS + 8 * lane + j) = *a };
            }
        }
    }
}

/// Correct: after the init barrier the idle threads of warp 1 (33..63) `return`; thread 32
/// produces and warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_idle_return(input: *const f32, tiles: u32, out: *mut f32) {
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
    if tid > 32 {
        return;
    }
    if tid == 32 {
        let mut state = PipelineState::<3>::producer_start();
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
        return;
    }
    let smem = dynamic_shared_base::<f32>();
    let col = tid as usize;
    let mut state = PipelineState::<3>::new();
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
        acc += stage[col..].iter().step_by(COLS).sum::<f32>();
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
}

/// Correct: two two-stage pipelines (barriers at 0 and 64, rings at 1024 and 3072) take the
/// block's tiles in turn, even rounds on the first, odd rounds on the second; each side keeps one
/// state per pipeline and a round parity that is the same in every thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_view_two_rings_alternate(
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
                odd.consumer_release(&so);
                so.advance();
            }
            round += 1;
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}
