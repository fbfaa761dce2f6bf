//! Blind round 20 kernels: each entry computes the same thing under one launch contract, so that a
//! kernel that hangs, faults or computes a wrong sum is caught on the GPU.
//!
//! The contract (the `[contract]` table of `../expected.toml`):
//! - signature `(input: *const f32, tiles: u32, out: *mut f32)`, `#[unsafe(no_mangle)] pub unsafe
//!   extern "ptx-kernel" fn`; `input` holds `tiles * 256` floats (a tile is 256 floats, 1 KiB),
//!   16-byte aligned; `tiles` is 64 in the GPU run;
//! - one-dimensional launch: 64 threads per block, 8 blocks, 8192 bytes of dynamic shared memory;
//! - the result: for every block `b` and every `c < 32`, `out[b * 32 + c]` is the sum, over the
//!   tiles `t` with `t % gridDim.x == b`, of the tile's elements `c, c + 32, c + 64, …, c + 224`.
//!   Every one of the 256 outputs must be written (they start as NaN); how the work is split
//!   between the threads of a block is the kernel's choice.
//!
//! Written blind: the author read only `plugin/MODEL.md` and the device API.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, core_float_math)]
#![allow(clippy::missing_safety_doc)]

#[path = "../../../../../../kernels/src/device/mod.rs"]
#[allow(dead_code)]
pub mod device;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; nothing runs after it.
    unsafe { core::arch::nvptx::trap() }
}


// ---------------------------------------------------------------------------------------------
// Shared vocabulary of the round: a tile is 8 rows of 32 floats; consumers sum columns.
// ---------------------------------------------------------------------------------------------

use core::mem;
use core::ops::ControlFlow;
use device::launch::{block_threads, dynamic_shared_bytes};
use device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const RING: u32 = 1024;
const CONSUMERS: u32 = 32;

#[inline(always)]
unsafe fn src(input: *const f32, t: u32) -> *const u8 {
    unsafe { input.add((t * TILE) as usize) as *const u8 }
}

#[inline(always)]
fn owned(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b >= tiles { 0 } else { (tiles - b + g - 1) / g }
}

#[inline(always)]
unsafe fn ring_base() -> *mut f32 {
    unsafe { dynamic_shared_base::<f32>().add((RING / 4) as usize) }
}

// ============================== group A: the plain warp-specialised ring ======================

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ws_basic(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                let mut r = 0;
                while r < ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                    r += 1;
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ws_bad_consumer_producer_start(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            // BUG: the consumer starts at the producer's parity: its first round returns at once.
            let mut st = PipelineState::<S>::producer_start();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ws_bad_producer_new(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    unsafe {
        if tid == 63 {
            // BUG: producer starts at parity 0 and waits for a release nobody makes yet.
            let mut st = PipelineState::<S>::new();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ws_bad_no_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                // BUG: no consumer_wait: the stage is read before its copy lands.
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ws_bad_release_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                // BUG: released before the reads: the producer may refill the stage under them.
                pipe.consumer_release(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ws_bad_tx_double(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                // BUG: announces two tiles' bytes for one tile's copy.
                pipe.producer_expect_tx(&st, 2 * TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ws_bad_tx_half(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                // BUG: announces half a tile; the full barrier completes with half the bytes.
                pipe.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ws_bad_init_64(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        // BUG: 64 releasing threads announced, only warp 0 releases.
        Pipeline::<S>::init(window, 64);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ws_bad_extra_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut k = 0;
            while k < n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * grid_dim_x()), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                k += 1;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut k = 0;
            // BUG: `<=` takes one tile more than the producer copies.
            while k <= n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                k += 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

// ============================== group B: for loops, ranges and slices ==========================

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_for_range_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let n = owned(tiles);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let dst = window + RING + st.index() * TILE_BYTES;
                bulk_copy_global_to_shared(dst, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_for_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for t in (b..tiles).step_by(g) {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _t in (b..tiles).step_by(g) {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_for_bad_skip_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for t in (b..tiles).step_by(g as usize) {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            // BUG: starts one grid stride late: one tile fewer than the producer copies.
            for _t in (b + g..tiles).step_by(g as usize) {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_iter_map_sum_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut k = 0u32;
            while k < n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                k += 1;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut k = 0u32;
            while k < n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                let col: f32 = (0..ROWS).map(|r| *stage.add((r * COLS + tid) as usize)).sum();
                acc += col;
                pipe.consumer_release(&st);
                st.advance();
                k += 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_iter_bad_lazy_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut k = 0u32;
            while k < n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                k += 1;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut k = 0u32;
            while k < n {
                pipe.consumer_wait(&st);
                let stage = core::slice::from_raw_parts(ring.add((st.index() * TILE) as usize), TILE as usize);
                let column = stage.iter().skip(tid as usize).step_by(COLS as usize);
                // BUG: the iterator is lazy: the reads run in `sum`, after the release.
                pipe.consumer_release(&st);
                acc += column.sum::<f32>();
                st.advance();
                k += 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_slice_chunks_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = core::slice::from_raw_parts(ring.add((st.index() * TILE) as usize), TILE as usize);
                for row in stage.chunks(COLS as usize) {
                    acc += row[tid as usize];
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_slice_bad_view_one_stage_late(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                // BUG: "skip the stage header" that this layout does not have: the view starts one
                // tile late, on the next stage (or, from the last stage, on memory no copy fills).
                let stage = core::slice::from_raw_parts(ring.add((st.index() * TILE + TILE) as usize), TILE as usize);
                for row in stage.chunks(COLS as usize) {
                    acc += row[tid as usize];
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

// ============================== group C: helpers ==============================================

#[inline(never)]
unsafe fn c_produce_one(pipe: &Pipeline<4>, st: &mut PipelineState<4>, window: u32, from: *const u8) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

#[inline(never)]
unsafe fn c_consume_one(pipe: &Pipeline<4>, st: &mut PipelineState<4>, ring: *const f32, col: u32) -> f32 {
    pipe.consumer_wait(st);
    let stage = unsafe { ring.add((st.index() * TILE) as usize) };
    let mut s = 0.0f32;
    for r in 0..ROWS {
        s += unsafe { *stage.add((r * COLS + col) as usize) };
    }
    pipe.consumer_release(st);
    st.advance();
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_helper_step_both(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<4>::producer_start();
            let mut k = 0;
            while k < n {
                c_produce_one(&pipe, &mut st, window, src(input, b + k * g));
                k += 1;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0;
            let mut k = 0;
            while k < n {
                acc += c_consume_one(&pipe, &mut st, ring_base(), tid);
                k += 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[inline(never)]
unsafe fn c_consume_no_advance(pipe: &Pipeline<4>, st: &PipelineState<4>, ring: *const f32, col: u32) -> f32 {
    pipe.consumer_wait(st);
    let stage = unsafe { ring.add((st.index() * TILE) as usize) };
    let mut s = 0.0f32;
    for r in 0..ROWS {
        s += unsafe { *stage.add((r * COLS + col) as usize) };
    }
    pipe.consumer_release(st);
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_helper_bad_never_advances(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<4>::producer_start();
            for k in 0..n {
                c_produce_one(&pipe, &mut st, window, src(input, b + k * g));
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let st = PipelineState::<4>::new();
            let mut acc = 0.0;
            for _ in 0..n {
                // BUG: the helper takes the state by reference and nobody advances it: stage 0 forever.
                acc += c_consume_no_advance(&pipe, &st, ring_base(), tid);
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[inline(never)]
unsafe fn c_take_tile(pipe: &Pipeline<3>, st: PipelineState<3>, ring: *const f32, col: u32) -> (PipelineState<3>, f32) {
    let mut st = st;
    pipe.consumer_wait(&st);
    let stage = unsafe { ring.add((st.index() * TILE) as usize) };
    let mut s = 0.0f32;
    let mut r = ROWS;
    while r > 0 {
        r -= 1;
        s += unsafe { *stage.add((r * COLS + col) as usize) };
    }
    pipe.consumer_release(&st);
    st.advance();
    (st, s)
}

#[inline(never)]
unsafe fn c_give_tile(pipe: &Pipeline<3>, st: PipelineState<3>, window: u32, from: *const u8) -> PipelineState<3> {
    let mut st = st;
    pipe.producer_acquire(&st);
    pipe.producer_expect_tx(&st, TILE_BYTES);
    bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(&st));
    st.advance();
    st
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_helper_tuple_return(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<3>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<3>::producer_start();
            let mut t = b;
            while t < tiles {
                st = c_give_tile(&pipe, st, window, src(input, t));
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let mut st = PipelineState::<3>::new();
            let mut acc = 0.0;
            let mut t = b;
            while t < tiles {
                let (next, s) = c_take_tile(&pipe, st, ring_base(), tid);
                st = next;
                acc += s;
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_helper_bad_drops_returned(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<3>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<3>::producer_start();
            let mut t = b;
            while t < tiles {
                st = c_give_tile(&pipe, st, window, src(input, t));
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let st = PipelineState::<3>::new();
            let mut acc = 0.0;
            let mut t = b;
            while t < tiles {
                // BUG: the advanced state the helper returns is dropped; every tile waits on stage 0.
                let (_next, s) = c_take_tile(&pipe, st, ring_base(), tid);
                acc += s;
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

// ============================== group D: structs holding the pipeline =========================

struct DFeeder<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    window: u32,
    input: *const f32,
}

impl<const S: u32> DFeeder<S> {
    #[inline(never)]
    unsafe fn push(&mut self, t: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let dst = self.window + RING + self.state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(dst, unsafe { src(self.input, t) }, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct DReader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    col: u32,
    acc: f32,
}

impl<const S: u32> DReader<S> {
    #[inline(always)]
    unsafe fn pull(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = unsafe { self.ring.add((self.state.index() * TILE) as usize) };
        for r in 0..ROWS {
            self.acc += unsafe { *stage.add((r * COLS + self.col) as usize) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_struct_feeder_reader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut f = DFeeder { pipe, state: PipelineState::producer_start(), window, input };
            let mut t = b;
            while t < tiles {
                f.push(t);
                t += g;
            }
            f.finish();
        } else if tid < 32 {
            let mut r = DReader { pipe, state: PipelineState::new(), ring: ring_base(), col: tid, acc: 0.0 };
            let mut t = b;
            while t < tiles {
                r.pull();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = r.acc;
        }
    }
}

#[derive(Clone, Copy)]
struct DCopyReader {
    pipe: Pipeline<4>,
    state: PipelineState<4>,
    ring: *const f32,
    col: u32,
}

impl DCopyReader {
    // BUG (used by r20_struct_bad_by_value_step): `self` by value, so the advance lands on a copy.
    #[inline(always)]
    unsafe fn step(mut self) -> f32 {
        self.pipe.consumer_wait(&self.state);
        let stage = unsafe { self.ring.add((self.state.index() * TILE) as usize) };
        let mut s = 0.0;
        for r in 0..ROWS {
            s += unsafe { *stage.add((r * COLS + self.col) as usize) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        s
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_struct_bad_by_value_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut f = DFeeder { pipe, state: PipelineState::producer_start(), window, input };
            let mut t = b;
            while t < tiles {
                f.push(t);
                t += g;
            }
            f.finish();
        } else if tid < 32 {
            let reader = DCopyReader { pipe, state: PipelineState::new(), ring: ring_base(), col: tid };
            let mut acc = 0.0;
            let mut t = b;
            while t < tiles {
                acc += reader.step();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

struct DRoles {
    producer: PipelineState<2>,
    consumer: PipelineState<2>,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_struct_both_states(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<2>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    let mut roles = DRoles { producer: PipelineState::producer_start(), consumer: PipelineState::new() };
    unsafe {
        match tid {
            32 => {
                for k in 0..n {
                    pipe.producer_acquire(&roles.producer);
                    pipe.producer_expect_tx(&roles.producer, TILE_BYTES);
                    bulk_copy_global_to_shared(window + RING + roles.producer.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&roles.producer));
                    roles.producer.advance();
                }
                pipe.producer_tail(roles.producer);
            }
            0..=31 => {
                let ring = ring_base();
                let mut acc = 0.0f32;
                for _ in 0..n {
                    pipe.consumer_wait(&roles.consumer);
                    let stage = ring.add((roles.consumer.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    pipe.consumer_release(&roles.consumer);
                    roles.consumer.advance();
                }
                *out.add((b * COLS + tid) as usize) = acc;
            }
            _ => {}
        }
    }
}

// ============================== group E: enums, Option, mem::replace ==========================

enum ERole {
    Producer,
    Consumer(u32),
    Idle,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_enum_role_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let role = match tid {
        0..=31 => ERole::Consumer(tid),
        32 => ERole::Producer,
        _ => ERole::Idle,
    };
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        match role {
            ERole::Producer => {
                let mut st = PipelineState::<S>::producer_start();
                let mut t = b;
                while t < tiles {
                    pipe.producer_acquire(&st);
                    pipe.producer_expect_tx(&st, TILE_BYTES);
                    bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                    st.advance();
                    t += g;
                }
                pipe.producer_tail(st);
            }
            ERole::Consumer(col) => {
                let ring = ring_base();
                let mut st = PipelineState::<S>::new();
                let mut acc = 0.0f32;
                let mut t = b;
                while t < tiles {
                    pipe.consumer_wait(&st);
                    let stage = ring.add((st.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + col) as usize);
                    }
                    pipe.consumer_release(&st);
                    st.advance();
                    t += g;
                }
                *out.add((b * COLS + col) as usize) = acc;
            }
            ERole::Idle => {}
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum EStep {
    Wait,
    Read,
    Release,
    Done,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_enum_consumer_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut k = 0u32;
            let mut step = EStep::Wait;
            loop {
                step = match step {
                    EStep::Wait => {
                        if k == n {
                            EStep::Done
                        } else {
                            pipe.consumer_wait(&st);
                            EStep::Read
                        }
                    }
                    EStep::Read => {
                        let stage = ring.add((st.index() * TILE) as usize);
                        for r in 0..ROWS {
                            acc += *stage.add((r * COLS + tid) as usize);
                        }
                        EStep::Release
                    }
                    EStep::Release => {
                        pipe.consumer_release(&st);
                        st.advance();
                        k += 1;
                        EStep::Wait
                    }
                    EStep::Done => break,
                };
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_enum_bad_machine_skips_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut k = 0u32;
            let mut step = EStep::Wait;
            while step != EStep::Done {
                step = match step {
                    EStep::Wait => {
                        if k == n {
                            EStep::Done
                        } else {
                            pipe.consumer_wait(&st);
                            EStep::Read
                        }
                    }
                    EStep::Read => {
                        let stage = ring.add((st.index() * TILE) as usize);
                        for r in 0..ROWS {
                            acc += *stage.add((r * COLS + tid) as usize);
                        }
                        // BUG: the last stage of a ring round skips the Release step.
                        if st.index() == S - 1 {
                            st.advance();
                            k += 1;
                            EStep::Wait
                        } else {
                            EStep::Release
                        }
                    }
                    EStep::Release => {
                        pipe.consumer_release(&st);
                        st.advance();
                        k += 1;
                        EStep::Wait
                    }
                    EStep::Done => EStep::Done,
                };
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_option_take_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut slot: Option<PipelineState<S>> = Some(PipelineState::new());
            let mut acc = 0.0f32;
            for _ in 0..n {
                if let Some(st) = slot.as_mut() {
                    pipe.consumer_wait(st);
                    let stage = ring.add((st.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    pipe.consumer_release(st);
                    st.advance();
                }
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_mem_replace_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut cur = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&cur);
                let stage = ring.add((cur.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&cur);
                let mut next = cur;
                next.advance();
                let _done = mem::replace(&mut cur, next);
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_mem_replace_bad_resets(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut cur = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&cur);
                let stage = ring.add((cur.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&cur);
                // BUG: swaps in a fresh state instead of the advanced one: back to stage 0 phase 0.
                let mut old = mem::replace(&mut cur, PipelineState::new());
                old.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

// ============================== group F: const generics and traits ============================

#[inline(always)]
unsafe fn f_ring_kernel<const S: u32>(input: *const f32, tiles: u32, out: *mut f32, ring_at: u32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + ring_at + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = dynamic_shared_base::<f32>().add((ring_at / 4) as usize);
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_three_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { f_ring_kernel::<3>(input, tiles, out, RING) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_seven_stages_low_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    // 7 stages of barriers (112 bytes) then the ring at 128: 128 + 7 KiB = 7296 bytes.
    unsafe { f_ring_kernel::<7>(input, tiles, out, 128) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_bad_eight_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    // BUG: 8 stages at byte 1024 end at 9216: the last stage lies past the 8 KiB window.
    unsafe { f_ring_kernel::<8>(input, tiles, out, RING) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_bad_ring_on_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    // BUG: the ring starts at byte 32, inside the 4-stage barrier block (bytes 0..64).
    unsafe { f_ring_kernel::<4>(input, tiles, out, 32) }
}

trait FPart {
    unsafe fn play(&mut self, tiles: u32);
}

struct FProd<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    input: *const f32,
}

struct FCons<const S: u32> {
    pipe: Pipeline<S>,
    col: u32,
    out: *mut f32,
}

impl<const S: u32> FPart for FProd<S> {
    unsafe fn play(&mut self, tiles: u32) {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.producer_acquire(&st);
            self.pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(self.window + RING + st.index() * TILE_BYTES, unsafe { src(self.input, t) }, TILE_BYTES, self.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        self.pipe.producer_tail(st);
    }
}

impl<const S: u32> FPart for FCons<S> {
    unsafe fn play(&mut self, tiles: u32) {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            for r in 0..ROWS {
                acc += unsafe { *stage.add((r * COLS + self.col) as usize) };
            }
            self.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *self.out.add((block_idx_x() * COLS + self.col) as usize) = acc };
    }
}

#[inline(always)]
unsafe fn f_drive<P: FPart>(mut part: P, tiles: u32) {
    unsafe { part.play(tiles) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_trait_static_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    unsafe {
        if tid == 32 {
            f_drive(FProd { pipe, window, input }, tiles);
        } else if tid < 32 {
            f_drive(FCons { pipe, col: tid, out }, tiles);
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_trait_dyn_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let mut prod = FProd { pipe, window, input };
    let mut cons = FCons { pipe, col: tid, out };
    if tid <= 32 {
        let part: &mut dyn FPart = if tid == 32 { &mut prod } else { &mut cons };
        unsafe { part.play(tiles) };
    }
}

struct FGreedyProd {
    pipe: Pipeline<4>,
    window: u32,
    input: *const f32,
}

impl FPart for FGreedyProd {
    unsafe fn play(&mut self, tiles: u32) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.producer_acquire(&st);
            // BUG: 16 bytes of "header" announced that no copy delivers.
            self.pipe.producer_expect_tx(&st, TILE_BYTES + 16);
            bulk_copy_global_to_shared(self.window + RING + st.index() * TILE_BYTES, unsafe { src(self.input, t) }, TILE_BYTES, self.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        self.pipe.producer_tail(st);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_trait_dyn_bad_tx_header(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let mut prod = FGreedyProd { pipe, window, input };
    let mut cons = FCons { pipe, col: tid, out };
    if tid <= 32 {
        let part: &mut dyn FPart = if tid == 32 { &mut prod } else { &mut cons };
        unsafe { part.play(tiles) };
    }
}

// ============================== group G: closures =============================================

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_for_each_fold(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        (0..n).for_each(|k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let acc = (0..n).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            let mut s = 0.0;
            for r in 0..ROWS {
                s += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            acc + s
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_try_for_each(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let _ = (0..n).try_for_each(|k| -> ControlFlow<()> {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            ControlFlow::Continue(())
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let _ = (0..n).try_for_each(|_| -> Result<(), ()> {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            for r in 0..ROWS {
                acc += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            Ok(())
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_bad_fold_release_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        (0..n).for_each(|k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let acc = (0..n).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            let first = unsafe { *stage.add(tid as usize) };
            // BUG: releases after the first row; rows 1..8 are read from a stage being refilled.
            pipe.consumer_release(&st);
            let mut s = first;
            for r in 1..ROWS {
                s += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            st.advance();
            acc + s
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[inline(always)]
fn g_each_tile(n: u32, mut f: impl FnMut(u32)) {
    let mut k = 0;
    while k < n {
        f(k);
        k += 1;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_impl_fnmut_param(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        g_each_tile(n, |k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        g_each_tile(n, |_| {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            for r in 0..ROWS {
                acc += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_bad_count_minus_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        g_each_tile(n, |k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, b + k * g) }, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        // BUG: "the last tile is the tail" — consumers stop one tile short; a stage stays unreleased.
        g_each_tile(n - 1, |_| {
            pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            for r in 0..ROWS {
                acc += unsafe { *stage.add((r * COLS + tid) as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

// ============================== group H: several copies per stage ==============================

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_two_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let dst = window + RING + st.index() * TILE_BYTES;
                let from = src(input, t);
                bulk_copy_global_to_shared(dst, from, HALF, pipe.producer_barrier(&st));
                bulk_copy_global_to_shared(dst + HALF, from.add(HALF as usize), HALF, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_quarters_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const PARTS: u32 = 4;
    const PART: u32 = TILE_BYTES / PARTS;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, PARTS * PART);
                let dst = window + RING + st.index() * TILE_BYTES;
                let from = src(input, b + k * g);
                for q in 0..PARTS {
                    bulk_copy_global_to_shared(dst + q * PART, from.add((q * PART) as usize), PART, pipe.producer_barrier(&st));
                }
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_halves_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALVES: u32 = 2;
    const HALF: u32 = TILE_BYTES / HALVES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let dst = window + RING + st.index() * TILE_BYTES;
                let from = src(input, b + k * g);
                // BUG: `1..HALVES` copies only the second half; the full barrier waits for 512 more bytes.
                for h in 1..HALVES {
                    bulk_copy_global_to_shared(dst + h * HALF, from.add((h * HALF) as usize), HALF, pipe.producer_barrier(&st));
                }
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_thirds_unaligned(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    // BUG: a third of a tile is 341 bytes: neither the size nor the second destination is a multiple of 16.
    const FIRST: u32 = TILE_BYTES / 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let dst = window + RING + st.index() * TILE_BYTES;
                let from = src(input, t);
                bulk_copy_global_to_shared(dst, from, FIRST, pipe.producer_barrier(&st));
                bulk_copy_global_to_shared(dst + FIRST, from.add(FIRST as usize), TILE_BYTES - FIRST, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_size_1020(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    // BUG: "all but the last float": 1020 bytes, not a multiple of 16.
    const BYTES: u32 = (TILE - 1) * 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_dest_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                // BUG: "prefetch into the next slot": the copy lands in a stage consumers may be reading.
                let slot = (st.index() + 1) % S;
                bulk_copy_global_to_shared(window + RING + slot * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_stage_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                // BUG: a byte offset added to a float pointer: stage 2 starts 9 KiB in, past the window.
                let stage = ring.add((st.index() * TILE_BYTES) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_two_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    let loads = (n + 1) / 2;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for j in 0..loads {
                let first = 2 * j;
                let count = if first + 1 < n { 2 } else { 1 };
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, count * TILE_BYTES);
                let dst = window + RING + st.index() * STAGE_BYTES;
                bulk_copy_global_to_shared(dst, src(input, b + first * g), TILE_BYTES, pipe.producer_barrier(&st));
                if count == 2 {
                    bulk_copy_global_to_shared(dst + TILE_BYTES, src(input, b + (first + 1) * g), TILE_BYTES, pipe.producer_barrier(&st));
                }
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for j in 0..loads {
                let count = if 2 * j + 1 < n { 2 } else { 1 };
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * 2 * TILE) as usize);
                for r in 0..count * ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_two_tiles_one_announced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let pairs = owned(tiles) / 2;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for j in 0..pairs {
                pipe.producer_acquire(&st);
                // BUG: announces one tile for a stage that receives two.
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let dst = window + RING + st.index() * STAGE_BYTES;
                bulk_copy_global_to_shared(dst, src(input, b + 2 * j * g), TILE_BYTES, pipe.producer_barrier(&st));
                bulk_copy_global_to_shared(dst + TILE_BYTES, src(input, b + (2 * j + 1) * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..pairs {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * 2 * TILE) as usize);
                for r in 0..2 * ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

// ============================== group I: several pipelines ====================================

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_two_pipes_alternate(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_B: u32 = RING + S * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(window + 64, CONSUMERS);
    }
    barrier();
    let even = Pipeline::<S>::attach(window);
    let odd = Pipeline::<S>::attach(window + 64);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                even.producer_acquire(&st);
                even.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, even.producer_barrier(&st));
                st.advance();
                t += 2 * g;
            }
            even.producer_tail(st);
        } else if tid == 33 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b + g;
            while t < tiles {
                odd.producer_acquire(&st);
                odd.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_B + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, odd.producer_barrier(&st));
                st.advance();
                t += 2 * g;
            }
            odd.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let ring_a = base.add((RING / 4) as usize);
            let ring_b = base.add((RING_B / 4) as usize);
            let mut sa = PipelineState::<S>::new();
            let mut sb = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for k in 0..n {
                if k % 2 == 0 {
                    even.consumer_wait(&sa);
                    let stage = ring_a.add((sa.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    even.consumer_release(&sa);
                    sa.advance();
                } else {
                    odd.consumer_wait(&sb);
                    let stage = ring_b.add((sb.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    odd.consumer_release(&sb);
                    sb.advance();
                }
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_two_pipes_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    const RING_TOP: u32 = RING;
    const RING_BOTTOM: u32 = RING + S * HALF;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(window + 128, CONSUMERS);
    }
    barrier();
    let top = Pipeline::<S>::attach(window);
    let bottom = Pipeline::<S>::attach(window + 128);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                top.producer_acquire(&st);
                top.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(window + RING_TOP + st.index() * HALF, src(input, b + k * g), HALF, top.producer_barrier(&st));
                st.advance();
            }
            top.producer_tail(st);
        } else if tid == 48 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                bottom.producer_acquire(&st);
                bottom.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(window + RING_BOTTOM + st.index() * HALF, src(input, b + k * g).add(HALF as usize), HALF, bottom.producer_barrier(&st));
                st.advance();
            }
            bottom.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let mut st_top = PipelineState::<S>::new();
            let mut st_bottom = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                top.consumer_wait(&st_top);
                bottom.consumer_wait(&st_bottom);
                let a = base.add(((RING_TOP + st_top.index() * HALF) / 4) as usize);
                let c = base.add(((RING_BOTTOM + st_bottom.index() * HALF) / 4) as usize);
                for r in 0..ROWS / 2 {
                    acc += *a.add((r * COLS + tid) as usize);
                    acc += *c.add((r * COLS + tid) as usize);
                }
                top.consumer_release(&st_top);
                bottom.consumer_release(&st_bottom);
                st_top.advance();
                st_bottom.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_two_pipes_bad_same_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_B: u32 = RING + S * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    // BUG: both pipelines are placed on the same barriers (the second offset was forgotten).
    let odd_at = window;
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(odd_at, CONSUMERS);
    }
    barrier();
    let even = Pipeline::<S>::attach(window);
    let odd = Pipeline::<S>::attach(odd_at);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                even.producer_acquire(&st);
                even.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, even.producer_barrier(&st));
                st.advance();
                t += 2 * g;
            }
            even.producer_tail(st);
        } else if tid == 33 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b + g;
            while t < tiles {
                odd.producer_acquire(&st);
                odd.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_B + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, odd.producer_barrier(&st));
                st.advance();
                t += 2 * g;
            }
            odd.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let ring_a = base.add((RING / 4) as usize);
            let ring_b = base.add((RING_B / 4) as usize);
            let mut sa = PipelineState::<S>::new();
            let mut sb = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for k in 0..n {
                if k % 2 == 0 {
                    even.consumer_wait(&sa);
                    let stage = ring_a.add((sa.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    even.consumer_release(&sa);
                    sa.advance();
                } else {
                    odd.consumer_wait(&sb);
                    let stage = ring_b.add((sb.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    odd.consumer_release(&sb);
                    sb.advance();
                }
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_two_pipes_bad_release_other(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    const RING_TOP: u32 = RING;
    const RING_BOTTOM: u32 = RING + S * HALF;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(window + 128, CONSUMERS);
    }
    barrier();
    let top = Pipeline::<S>::attach(window);
    let bottom = Pipeline::<S>::attach(window + 128);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                top.producer_acquire(&st);
                top.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(window + RING_TOP + st.index() * HALF, src(input, b + k * g), HALF, top.producer_barrier(&st));
                st.advance();
            }
            top.producer_tail(st);
        } else if tid == 48 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                bottom.producer_acquire(&st);
                bottom.producer_expect_tx(&st, HALF);
                bulk_copy_global_to_shared(window + RING_BOTTOM + st.index() * HALF, src(input, b + k * g).add(HALF as usize), HALF, bottom.producer_barrier(&st));
                st.advance();
            }
            bottom.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let mut st_top = PipelineState::<S>::new();
            let mut st_bottom = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                top.consumer_wait(&st_top);
                bottom.consumer_wait(&st_bottom);
                let a = base.add(((RING_TOP + st_top.index() * HALF) / 4) as usize);
                let c = base.add(((RING_BOTTOM + st_bottom.index() * HALF) / 4) as usize);
                for r in 0..ROWS / 2 {
                    acc += *a.add((r * COLS + tid) as usize);
                    acc += *c.add((r * COLS + tid) as usize);
                }
                top.consumer_release(&st_top);
                // BUG: copy-paste: the bottom stage is released on the top pipeline.
                top.consumer_release(&st_bottom);
                st_top.advance();
                st_bottom.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

// ============================== group J: roles ================================================

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_consumers_in_warp1(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 0 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid >= 32 {
            let col = tid - 32;
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + col) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + col) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_sixteen_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const READERS: u32 = 16;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, READERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 40 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < READERS {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let (mut lo, mut hi) = (0.0f32, 0.0f32);
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    lo += *stage.add((r * COLS + tid) as usize);
                    hi += *stage.add((r * COLS + tid + READERS) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = lo;
            *out.add((b * COLS + tid + READERS) as usize) = hi;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_bad_sixteen_announced_32(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const READERS: u32 = 16;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        // BUG: the init still counts a warp of releasers after the readers were halved.
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 40 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < READERS {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let (mut lo, mut hi) = (0.0f32, 0.0f32);
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    lo += *stage.add((r * COLS + tid) as usize);
                    hi += *stage.add((r * COLS + tid + READERS) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = lo;
            *out.add((b * COLS + tid + READERS) as usize) = hi;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_bad_two_producers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        // BUG: `<= 33` meant "warp 1's leader": two threads run the producer loop.
        if tid >= 32 && tid <= 33 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_all_but_producer_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, 63);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 0 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else {
            // Threads 1..=32 own a column; 33..63 only keep the ring moving.
            let col = tid - 1;
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                if col < COLS {
                    let stage = ring.add((st.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + col) as usize);
                    }
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            if col < COLS {
                *out.add((b * COLS + col) as usize) = acc;
            }
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_bad_producer_also_consumes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        // BUG: the producer is also one of warp 1's 32 consumers; it must fill 8 tiles before it
        // releases any, and the ring holds 4.
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        }
        if tid >= 32 {
            let col = tid - 32;
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + col) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + col) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_bad_even_lanes_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                // BUG: "one release per pair of lanes" — 16 arrivals for a barrier counting 32.
                if tid % 2 == 0 {
                    pipe.consumer_release(&st);
                }
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_roles_signed_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let rel = tid as i32 - 32;
    let first = block_idx_x() as i32;
    let stride = grid_dim_x() as i32;
    let last = tiles as i32;
    unsafe {
        if rel == 0 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = first;
            while t < last {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t as u32), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += stride;
            }
            pipe.producer_tail(st);
        } else if rel < 0 {
            let col = (rel + 32) as isize;
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = first;
            while t < last {
                pipe.consumer_wait(&st);
                let stage = ring.offset((st.index() * TILE) as isize);
                let mut r: isize = ROWS as isize - 1;
                while r >= 0 {
                    acc += *stage.offset(r * COLS as isize + col);
                    r -= 1;
                }
                pipe.consumer_release(&st);
                st.advance();
                t += stride;
            }
            *out.offset(first as isize * COLS as isize + col) = acc;
        }
    }
}

// ============================== group K: loop / break / early return ==========================

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_loop_break_both(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            loop {
                if t >= tiles {
                    break;
                }
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            loop {
                if t >= tiles {
                    break;
                }
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_loop_bad_break_before_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            loop {
                if t >= tiles {
                    break;
                }
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            loop {
                // BUG: tests the next tile instead of this one: the last tile is never taken.
                if t + g >= tiles {
                    break;
                }
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_early_return_idle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    if tid > 32 {
        return;
    }
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
            return;
        }
        let ring = ring_base();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + tid) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * COLS + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_early_return_bad_inside_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut k = 0;
            while k < n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                // BUG: the last tile writes the result and returns while still holding its stage.
                if k + 1 == n {
                    *out.add((b * COLS + tid) as usize) = acc;
                    return;
                }
                pipe.consumer_release(&st);
                st.advance();
                k += 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_loop_bad_block_barrier_in_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                // BUG: a block barrier "so every reader is done" — the producer thread never reaches it.
                barrier();
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

// ============================== group L: plain shared memory and block barriers ===============

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_stage_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *tile.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            barrier();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_no_trailing_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *tile.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            // BUG: no barrier here: warp 1 overwrites the tile with the next one while warp 0 reads.
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_no_leading_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    unsafe {
        for t in (b..tiles).step_by(g) {
            let from = input.add((t * TILE) as usize);
            for i in (tid..TILE).step_by(64) {
                *tile.add(i as usize) = *from.add(i as usize);
            }
            // BUG: the barrier that publishes the staged tile is missing; rows written by warp 1 may not be there yet.
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            barrier();
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_double_buffer_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let base = dynamic_shared_base::<f32>();
    let mut parity = 0u32;
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let buf = base.add((parity * TILE) as usize);
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *buf.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *buf.add((r * COLS + tid) as usize);
                }
            }
            parity ^= 1;
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_double_buffer_stuck(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let base = dynamic_shared_base::<f32>();
    let mut parity = 0u32;
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let buf = base.add((parity * TILE) as usize);
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *buf.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *buf.add((r * COLS + tid) as usize);
                }
            }
            // BUG: `parity & 1` instead of `^= 1`: always buffer 0, one barrier per tile.
            parity &= 1;
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_halves_then_combine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let partial = unsafe { tile.add(TILE as usize) };
    let mut acc = 0.0f32;
    unsafe {
        for k in 0..owned(tiles) {
            let from = input.add(((b + k * g) * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            barrier();
        }
        *partial.add(tid as usize) = acc;
        barrier();
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = *partial.add(tid as usize) + *partial.add((tid + 32) as usize);
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_partials_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    // BUG: "after eight tiles of staging": 8 KiB in, the first byte past the window.
    let partial = unsafe { tile.add((8 * TILE) as usize) };
    let mut acc = 0.0f32;
    unsafe {
        for k in 0..owned(tiles) {
            let from = input.add(((b + k * g) * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            barrier();
        }
        *partial.add(tid as usize) = acc;
        barrier();
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = *partial.add(tid as usize) + *partial.add((tid + 32) as usize);
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_partials_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let partial = unsafe { tile.add(TILE as usize) };
    let mut acc = 0.0f32;
    unsafe {
        for k in 0..owned(tiles) {
            let from = input.add(((b + k * g) * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            barrier();
        }
        *partial.add(tid as usize) = acc;
        // BUG: warp 0 reads warp 1's partials without a barrier.
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = *partial.add(tid as usize) + *partial.add((tid + 32) as usize);
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_global_only(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let b = block_idx_x();
    if tid >= 32 {
        return;
    }
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for r in 0..ROWS {
                acc += *from.add((r * COLS + tid) as usize);
            }
            t += grid_dim_x();
        }
        *out.add((b * COLS + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_strided_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let from = unsafe { input.add((t * TILE) as usize) };
        device::strided::strided(
            tid as usize,
            TILE as usize,
            64,
            |i| unsafe { *from.add(i) },
            |i, v: f32| unsafe { *tile.add(i) = v },
        );
        barrier();
        if tid < 32 {
            for r in 0..ROWS {
                acc += unsafe { *tile.add((r * COLS + tid) as usize) };
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_strided_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let from = unsafe { input.add((t * TILE) as usize) };
        // BUG: a step of one warp (32) for a block of 64 threads: threads t and t + 32 write the same slots.
        device::strided::strided(
            tid as usize,
            TILE as usize,
            32,
            |i| unsafe { *from.add(i) },
            |i, v: f32| unsafe { *tile.add(i) = v },
        );
        barrier();
        if tid < 32 {
            for r in 0..ROWS {
                acc += unsafe { *tile.add((r * COLS + tid) as usize) };
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        unsafe { *out.add((b * COLS + tid) as usize) = acc };
    }
}

// ============================== group M: shuffles, clusters, dependent launch ==================

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_shfl_pair_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid / 2;
    let half = tid % 2;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            barrier();
            t += g;
        }
    }
    let total = device::reduce::segment_sum(acc, 2);
    if half == 0 {
        unsafe { *out.add((b * COLS + col) as usize) = total };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_shfl_bad_no_trailing_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let col = tid / 2;
    let half = tid % 2;
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for j in 0..4u32 {
                let i = tid + 64 * j;
                *tile.add(i as usize) = *from.add(i as usize);
            }
            barrier();
            for r in 0..4u32 {
                acc += *tile.add(((half * 4 + r) * COLS + col) as usize);
            }
            // BUG: the trailing barrier was dropped "because the shuffle synchronises the warp":
            // it does not order warp 1's next staging stores against warp 0's reads.
            t += g;
        }
    }
    let total = device::reduce::segment_sum(acc, 2);
    if half == 0 {
        unsafe { *out.add((b * COLS + col) as usize) = total };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_cluster_barrier_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *tile.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            device::cluster::cluster_barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            device::cluster::cluster_barrier();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_dependent_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    device::dependent::wait_for_prior_grid();
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            device::dependent::allow_dependent_launch();
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_dependent_bad_plain_race(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    device::dependent::wait_for_prior_grid();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            let mut i = tid;
            while i < TILE {
                *tile.add(i as usize) = *from.add(i as usize);
                i += 64;
            }
            barrier();
            if tid < 32 {
                for r in 0..ROWS {
                    acc += *tile.add((r * COLS + tid) as usize);
                }
            }
            // BUG: "allow the next grid" was put where the trailing barrier was; nothing orders the reuse.
            device::dependent::allow_dependent_launch();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_cluster_sync_after_init(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    device::cluster::cluster_barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

// ============================== group N: views, pointer tables, and more orders ===============

/// The producer loop most of this group shares, written out once per ring size.
#[inline(always)]
unsafe fn n_produce<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, unsafe { src(input, t) }, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_view_rows_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const [[f32; 32]; 8];
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let rows = ring.add(st.index() as usize);
                for r in 0..ROWS as usize {
                    acc += (*rows)[r][tid as usize];
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_view_bad_row_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const [[f32; 32]; 8];
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                // BUG: the stage index steps a pointer to one row, not to a tile: stage s is read
                // from rows s..s + 8 of stage 0 and 1.
                let rows = (ring as *const [f32; 32]).add(st.index() as usize);
                for r in 0..ROWS as usize {
                    acc += (*rows.add(r))[tid as usize];
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ptr_table_by_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let stages: [*const f32; 4] = [ring, ring.add(256), ring.add(512), ring.add(768)];
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = stages[st.index() as usize];
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ptr_table_bad_rotated(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            // BUG: the table was built starting at stage 1: entry s points at stage s + 1.
            let stages: [*const f32; 4] = [ring.add(256), ring.add(512), ring.add(768), ring];
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = stages[st.index() as usize];
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

struct NRing<const S: u32> {
    base: *const f32,
}

impl<const S: u32> NRing<S> {
    #[inline(always)]
    fn stage(&self, st: &PipelineState<S>) -> *const f32 {
        self.base.wrapping_add((st.index() * TILE) as usize)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ring_struct_stage_method(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = NRing::<S> { base: ring_base() };
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.stage(&st);
                acc += (0..ROWS).rev().fold(0.0, |s, r| s + *stage.add((r * COLS + tid) as usize));
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_ring_bad_stage_after_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = NRing::<S> { base: ring_base() };
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let held = st;
                st.advance();
                // BUG: reads the stage of the advanced state, not the one it waited for.
                let stage = ring.stage(&st);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&held);
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_iter_enumerate_zip_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for (_k, t) in (b..tiles).step_by(g).enumerate() {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for (_k, _t) in (0u32..).zip((b..tiles).step_by(g)) {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for (r, w) in (0..ROWS).zip(core::iter::repeat(1.0f32)) {
                    acc += w * *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_iter_by_ref_prefill(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut todo = (b..tiles).step_by(g);
            // Fill the ring: the first round's acquires return at once.
            for t in todo.by_ref().take(S as usize) {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            for t in todo {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in (b..tiles).step_by(g) {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_iter_bad_prefill_one_too_many(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut todo = (b..tiles).step_by(g);
            // BUG: the prefill skips the acquire "because the ring is empty" — for S + 1 tiles; the
            // fifth overwrites stage 0 before the consumers released it.
            for t in todo.by_ref().take(S as usize + 1) {
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            for t in todo {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in (b..tiles).step_by(g) {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_quads_eight_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const QUADS: u32 = 8;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, QUADS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < QUADS {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = [0.0f32; 4];
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    let q = *(stage.add((r * COLS + 4 * tid) as usize) as *const [f32; 4]);
                    for (a, v) in acc.iter_mut().zip(q) {
                        *a += v;
                    }
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            let dst = out.add((b * COLS + 4 * tid) as usize);
            for (j, a) in acc.iter().enumerate() {
                *dst.add(j) = *a;
            }
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_quads_bad_nine_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const QUADS: u32 = 8;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, QUADS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid <= QUADS {
            // BUG: `<=` lets a ninth thread wait and release: one arrival too many per phase.
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = [0.0f32; 4];
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                if tid < QUADS {
                    let stage = ring.add((st.index() * TILE) as usize);
                    for r in 0..ROWS {
                        let q = *(stage.add((r * COLS + 4 * tid) as usize) as *const [f32; 4]);
                        for (a, v) in acc.iter_mut().zip(q) {
                            *a += v;
                        }
                    }
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            if tid < QUADS {
                let dst = out.add((b * COLS + 4 * tid) as usize);
                for (j, a) in acc.iter().enumerate() {
                    *dst.add(j) = *a;
                }
            }
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_bad_advance_twice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
                // BUG: a leftover advance from an older "two tiles per pass" version.
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_init_bad_no_block_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    // BUG: no barrier: warp 1's producer may wait on (and copy against) barriers not yet initialised.
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_init_bad_after_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    barrier();
    // BUG: the init was moved below the barrier that was meant to publish it.
    if tid == 32 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_barriers_bad_misaligned(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    // BUG: a 4-byte "tile counter" placed before the barriers leaves them 4-byte aligned.
    let window = dynamic_shared_window_address() + 4;
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let base = dynamic_shared_window_address();
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, base, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_bad_read_ninth_row(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                // BUG: `<=` reads the first row of the next stage as a ninth row.
                let mut r = 0;
                while r <= ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                    r += 1;
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_dest_without_index(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let ring_window = window + RING;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                // BUG: every tile lands in stage 0; stages 1..3 keep whatever was there.
                bulk_copy_global_to_shared(ring_window, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_unrolled_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut rows = [0.0f32; 8];
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                device::unrolled::unrolled!(R < 8 => {
                    rows[R] += *stage.add(R * COLS as usize + tid as usize);
                });
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = rows.iter().sum::<f32>();
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_countdown_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut left = n;
            let mut t = b;
            while left > 0 {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
                left -= 1;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut left = n;
            while left > 0 {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                left -= 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_bad_stage_hoisted(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut left = n;
            let mut t = b;
            while left > 0 {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
                left -= 1;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let mut st = PipelineState::<S>::new();
            // BUG: the column pointer is computed once, from the fresh state: every tile reads stage 0.
            let column = ring_base().add((st.index() * TILE + tid) as usize);
            let mut acc = 0.0f32;
            let mut left = n;
            while left > 0 {
                pipe.consumer_wait(&st);
                for r in 0..ROWS {
                    acc += *column.add((r * COLS) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                left -= 1;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

// ============================== group O: more shapes of state and role =======================

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_mem_swap_spare_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut cur = PipelineState::<S>::new();
            let mut spare = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&cur);
                let stage = ring.add((cur.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&cur);
                spare = cur;
                spare.advance();
                mem::swap(&mut cur, &mut spare);
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_tuple_state_and_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut prod: (PipelineState<S>, u32) = (PipelineState::producer_start(), b);
            while prod.1 < tiles {
                pipe.producer_acquire(&prod.0);
                pipe.producer_expect_tx(&prod.0, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + prod.0.index() * TILE_BYTES, src(input, prod.1), TILE_BYTES, pipe.producer_barrier(&prod.0));
                prod.0.advance();
                prod.1 += g;
            }
            pipe.producer_tail(prod.0);
        } else if tid < 32 {
            let ring = ring_base();
            let mut cons: (PipelineState<S>, f32) = (PipelineState::new(), 0.0);
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&cons.0);
                let stage = ring.add((cons.0.index() * TILE) as usize);
                for r in 0..ROWS {
                    cons.1 += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&cons.0);
                cons.0.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = cons.1;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_state_array_two_pipes_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_B: u32 = RING + S * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
        Pipeline::<S>::init(window + 32, CONSUMERS);
    }
    barrier();
    let first = Pipeline::<S>::attach(window);
    let second = Pipeline::<S>::attach(window + 32);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    let (n_first, n_second) = ((n + 1) / 2, n / 2);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for j in 0..n_first {
                first.producer_acquire(&st);
                first.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, b + 2 * j * g), TILE_BYTES, first.producer_barrier(&st));
                st.advance();
            }
            first.producer_tail(st);
        } else if tid == 63 {
            let mut st = PipelineState::<S>::producer_start();
            for j in 0..n_second {
                second.producer_acquire(&st);
                second.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_B + st.index() * TILE_BYTES, src(input, b + (2 * j + 1) * g), TILE_BYTES, second.producer_barrier(&st));
                st.advance();
            }
            second.producer_tail(st);
        } else if tid < 32 {
            let base = dynamic_shared_base::<f32>();
            let rings = [base.add((RING / 4) as usize), base.add((RING_B / 4) as usize)];
            let mut states = [PipelineState::<S>::new(); 2];
            let mut acc = 0.0f32;
            for j in 0..n_first {
                first.consumer_wait(&states[0]);
                let stage = rings[0].add((states[0].index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                first.consumer_release(&states[0]);
                states[0].advance();
                if j < n_second {
                    second.consumer_wait(&states[1]);
                    let stage = rings[1].add((states[1].index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    second.consumer_release(&states[1]);
                    states[1].advance();
                }
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[inline(never)]
unsafe fn o_column_sum(stage: *const f32, col: u32) -> f32 {
    let mut s = 0.0;
    for r in 0..ROWS {
        s += unsafe { *stage.add((r * COLS + col) as usize) };
    }
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_fn_pointer_reader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let read: unsafe fn(*const f32, u32) -> f32 = o_column_sum;
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                acc += read(ring.add((st.index() * TILE) as usize), tid);
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_fn_pointer_bad_read_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let read: unsafe fn(*const f32, u32) -> f32 = o_column_sum;
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                // BUG: "start the read early to hide latency" — before the stage's copy has landed.
                let s = read(ring.add((st.index() * TILE) as usize), tid);
                pipe.consumer_wait(&st);
                acc += s;
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_match_warp_and_lane(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        match (device::warp_id(), device::lane_id()) {
            (1, 0) => n_produce(&pipe, window, input, tiles),
            (0, lane) => {
                let ring = ring_base();
                let mut st = PipelineState::<S>::new();
                let mut acc = 0.0f32;
                let mut t = b;
                while t < tiles {
                    pipe.consumer_wait(&st);
                    let stage = ring.add((st.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + lane) as usize);
                    }
                    pipe.consumer_release(&st);
                    st.advance();
                    t += g;
                }
                *out.add((b * COLS + lane) as usize) = acc;
            }
            _ => {}
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_option_take_put_back(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut slot = Some(PipelineState::<S>::new());
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                let mut st = slot.take().unwrap();
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                slot = Some(st);
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_option_bad_puts_back_old(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base();
            let mut slot = Some(PipelineState::<S>::new());
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                let st = slot.take().unwrap();
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                let mut next = st;
                next.advance();
                // BUG: puts back the state it took, not `next`.
                slot = Some(st);
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[inline(always)]
unsafe fn o_consume_all<const S: u32, F: FnMut(*const f32)>(pipe: &Pipeline<S>, n: u32, ring: *const f32, mut f: F) {
    let mut st = PipelineState::<S>::new();
    for _ in 0..n {
        pipe.consumer_wait(&st);
        f(unsafe { ring.add((st.index() * TILE) as usize) });
        pipe.consumer_release(&st);
        st.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_consumer_takes_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let mut acc = 0.0f32;
            o_consume_all(&pipe, owned(tiles), ring_base(), |stage| {
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
            });
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_row_tree(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for j in 0..4u32 {
                *tile.add((tid + 64 * j) as usize) = *from.add((tid + 64 * j) as usize);
            }
            barrier();
            let mut step = ROWS / 2;
            while step > 0 {
                let mut i = tid;
                while i < step * COLS {
                    *tile.add(i as usize) += *tile.add((i + step * COLS) as usize);
                    i += 64;
                }
                barrier();
                step /= 2;
            }
            if tid < 32 {
                acc += *tile.add(tid as usize);
            }
            barrier();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_plain_bad_row_tree_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let tile = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    unsafe {
        while t < tiles {
            let from = input.add((t * TILE) as usize);
            for j in 0..4u32 {
                *tile.add((tid + 64 * j) as usize) = *from.add((tid + 64 * j) as usize);
            }
            barrier();
            let mut step = ROWS / 2;
            while step > 0 {
                let mut i = tid;
                while i < step * COLS {
                    *tile.add(i as usize) += *tile.add((i + step * COLS) as usize);
                    i += 64;
                }
                step /= 2;
            }
            // BUG: one barrier after the whole tree instead of one per level.
            barrier();
            if tid < 32 {
                acc += *tile.add(tid as usize);
            }
            barrier();
            t += g;
        }
        if tid < 32 {
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_closure_stage_reader_after_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            n_produce(&pipe, window, input, tiles);
        } else if tid < 32 {
            let ring = ring_base() as *const f32;
            let column = |stage: *const f32| -> f32 { (0..ROWS).map(|r| *stage.add((r * COLS + tid) as usize)).sum() };
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                acc += column(ring.add((st.index() * TILE) as usize));
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}
