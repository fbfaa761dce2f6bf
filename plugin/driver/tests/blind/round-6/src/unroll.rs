//! Persona: unrolls by hand. Named registers `v0..v7`, the device API's `unrolled!`, two copies
//! per stage, stages holding two tiles, no inner loops where they can be avoided.
#![allow(clippy::erasing_op, clippy::identity_op)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF_BYTES: u32 = 512;

// ---------------------------------------------------------------------------------------------
// Correct: 4 stages; the consumer loads its 8 values into named registers, releases, then adds.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_unroll_regs8(input: *const f32, tiles: u32, out: *mut f32) {
    const ST: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let sh = dynamic_shared_base::<f32>();
    let bars = win + ST * TILE_BYTES;
    if tid == 0 {
        Pipeline::<ST>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<ST>::attach(bars);

    if tid == 32 {
        let mut ps = PipelineState::<ST>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(win + ps.index() * TILE_BYTES, input.wrapping_add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&ps));
            ps.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let c = tid as usize;
        let mut cs = PipelineState::<ST>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&cs);
            let p = sh.wrapping_add(cs.index() as usize * TILE + c);
            // SAFETY: the 8 rows of this column inside the held stage.
            let (v0, v1, v2, v3, v4, v5, v6, v7) = unsafe {
                (*p.add(0 * 32), *p.add(1 * 32), *p.add(2 * 32), *p.add(3 * 32), *p.add(4 * 32), *p.add(5 * 32), *p.add(6 * 32), *p.add(7 * 32))
            };
            pipe.consumer_release(&cs);
            cs.advance();
            acc += ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7));
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + c) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 3 stages; each tile arrives as two 512-byte copies (rows 0..3, rows 4..7) on one
// `expect_tx` of 1024; the consumer's row loop is `unrolled!`.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_unroll_two_halves(input: *const f32, tiles: u32, out: *mut f32) {
    const ST: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let sh = dynamic_shared_base::<f32>();
    let bars = win + ST * TILE_BYTES;
    if tid == 0 {
        Pipeline::<ST>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<ST>::attach(bars);

    if tid == 0 {
        let mut ps = PipelineState::<ST>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, 2 * HALF_BYTES);
            let dst = win + ps.index() * TILE_BYTES;
            let src = input.wrapping_add(t as usize * TILE) as *const u8;
            let bar = pipe.producer_barrier(&ps);
            bulk_copy_global_to_shared(dst, src, HALF_BYTES, bar);
            bulk_copy_global_to_shared(dst + HALF_BYTES, src.wrapping_add(HALF_BYTES as usize), HALF_BYTES, bar);
            ps.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(ps);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut cs = PipelineState::<ST>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&cs);
            let p = sh.wrapping_add(cs.index() as usize * TILE + c);
            unrolled!(R < 8 => {
                // SAFETY: row R of this column inside the held stage.
                acc += unsafe { *p.add(R * 32) };
            });
            pipe.consumer_release(&cs);
            cs.advance();
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + c) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 3 stages of two tiles each (2 KiB): the producer fills a stage with the block's next
// two tiles (one when only one is left, `min`), announcing the bytes it copies.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_unroll_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    const ST: u32 = 3;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(64);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let win = dynamic_shared_window_address();
    let sh = dynamic_shared_base::<f32>();
    let bars = win + ST * STAGE_BYTES;
    let mine = if block < tiles { (tiles - block).div_ceil(grid) } else { 0 };
    if tid == 0 {
        Pipeline::<ST>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<ST>::attach(bars);

    if tid == 32 {
        let mut ps = PipelineState::<ST>::producer_start();
        let mut k = 0u32;
        while k < mine {
            let count = (mine - k).min(2);
            let t0 = block + k * grid;
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, count * TILE_BYTES);
            let dst = win + ps.index() * STAGE_BYTES;
            let bar = pipe.producer_barrier(&ps);
            bulk_copy_global_to_shared(dst, input.wrapping_add(t0 as usize * TILE) as *const u8, TILE_BYTES, bar);
            if count == 2 {
                let t1 = t0 + grid;
                bulk_copy_global_to_shared(dst + TILE_BYTES, input.wrapping_add(t1 as usize * TILE) as *const u8, TILE_BYTES, bar);
            }
            ps.advance();
            k += 2;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let c = tid as usize;
        let mut cs = PipelineState::<ST>::new();
        let mut acc0 = 0.0f32;
        let mut acc1 = 0.0f32;
        let mut k = 0u32;
        while k < mine {
            let count = (mine - k).min(2);
            pipe.consumer_wait(&cs);
            let p = sh.wrapping_add(cs.index() as usize * 2 * TILE + c);
            // SAFETY: the first tile of the held stage.
            unsafe {
                acc0 += *p.add(0) + *p.add(32) + *p.add(64) + *p.add(96);
                acc0 += *p.add(128) + *p.add(160) + *p.add(192) + *p.add(224);
            }
            if count == 2 {
                let q = p.wrapping_add(TILE);
                // SAFETY: the second tile of the held stage.
                unsafe {
                    acc1 += *q.add(0) + *q.add(32) + *q.add(64) + *q.add(96);
                    acc1 += *q.add(128) + *q.add(160) + *q.add(192) + *q.add(224);
                }
            }
            pipe.consumer_release(&cs);
            cs.advance();
            k += 2;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + c) = acc0 + acc1 };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: both warps consume (each thread 4 rows, hand-unrolled, then a scratch reduction), but
// `init` still says 32 consumers: the empty barrier completes after the first warp's releases.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_unroll_both_warps_release(input: *const f32, tiles: u32, out: *mut f32) {
    const ST: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let sh = dynamic_shared_base::<f32>();
    let bars = win + ST * TILE_BYTES;
    let scratch = sh.wrapping_add((ST * TILE_BYTES + 128) as usize / 4);
    if tid == 0 {
        Pipeline::<ST>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<ST>::attach(bars);

    let c = (tid % 32) as usize;
    let h = (tid / 32) as usize;
    let mut ps = PipelineState::<ST>::producer_start();
    let mut cs = PipelineState::<ST>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(win + ps.index() * TILE_BYTES, input.wrapping_add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&ps));
            ps.advance();
        }
        pipe.consumer_wait(&cs);
        let p = sh.wrapping_add(cs.index() as usize * TILE + h * 128 + c);
        // SAFETY: rows 4h..4h+3 of this column inside the held stage.
        unsafe {
            acc += (*p.add(0) + *p.add(32)) + (*p.add(64) + *p.add(96));
        }
        pipe.consumer_release(&cs);
        cs.advance();
        t += grid_dim_x();
    }
    if tid == 0 {
        pipe.producer_tail(ps);
    }
    // SAFETY: scratch after the barriers.
    unsafe {
        if h == 1 {
            *scratch.add(c) = acc;
        }
        barrier();
        if h == 0 {
            *out.add(block_idx_x() as usize * 32 + c) = acc + *scratch.add(c);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: two 512-byte copies per tile, but the producer announces 512 bytes ("one copy's
// worth"): the full barrier completes after the first half lands.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_unroll_expect_half(input: *const f32, tiles: u32, out: *mut f32) {
    const ST: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let sh = dynamic_shared_base::<f32>();
    let bars = win + ST * TILE_BYTES;
    if tid == 0 {
        Pipeline::<ST>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<ST>::attach(bars);

    if tid == 0 {
        let mut ps = PipelineState::<ST>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, HALF_BYTES);
            let dst = win + ps.index() * TILE_BYTES;
            let src = input.wrapping_add(t as usize * TILE) as *const u8;
            let bar = pipe.producer_barrier(&ps);
            bulk_copy_global_to_shared(dst, src, HALF_BYTES, bar);
            bulk_copy_global_to_shared(dst + HALF_BYTES, src.wrapping_add(HALF_BYTES as usize), HALF_BYTES, bar);
            ps.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(ps);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut cs = PipelineState::<ST>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&cs);
            let p = sh.wrapping_add(cs.index() as usize * TILE + c);
            unrolled!(R < 8 => {
                // SAFETY: row R of this column inside the held stage.
                acc += unsafe { *p.add(R * 32) };
            });
            pipe.consumer_release(&cs);
            cs.advance();
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + c) = acc };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the producer's prologue (first two stages) is unrolled by hand and correct, but the
// steady-state loop lost its `producer_expect_tx` in the rewrite: those full barriers never get
// their arrival.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_unroll_no_expect(input: *const f32, tiles: u32, out: *mut f32) {
    const ST: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let sh = dynamic_shared_base::<f32>();
    let bars = win + ST * TILE_BYTES;
    if tid == 0 {
        Pipeline::<ST>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<ST>::attach(bars);
    let g = grid_dim_x();

    if tid == 32 {
        let mut ps = PipelineState::<ST>::producer_start();
        let mut t = block_idx_x();
        // prologue: stage 0
        if t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(win + ps.index() * TILE_BYTES, input.wrapping_add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&ps));
            ps.advance();
            t += g;
        }
        // prologue: stage 1
        if t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(win + ps.index() * TILE_BYTES, input.wrapping_add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&ps));
            ps.advance();
            t += g;
        }
        // steady state
        while t < tiles {
            pipe.producer_acquire(&ps);
            bulk_copy_global_to_shared(win + ps.index() * TILE_BYTES, input.wrapping_add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&ps));
            ps.advance();
            t += g;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let c = tid as usize;
        let mut cs = PipelineState::<ST>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&cs);
            let p = sh.wrapping_add(cs.index() as usize * TILE + c);
            // SAFETY: this column inside the held stage.
            unsafe {
                acc += *p.add(0) + *p.add(32) + *p.add(64) + *p.add(96) + *p.add(128) + *p.add(160) + *p.add(192) + *p.add(224);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += g;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + c) = acc };
    }
}
