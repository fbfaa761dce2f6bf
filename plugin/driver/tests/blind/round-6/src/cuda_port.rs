//! Persona: a CUDA programmer porting `__global__` kernels line by line. `tid`/`bid`/`nblk`,
//! `__syncthreads()` is `barrier()`, while loops, raw float pointers, `#define`-style constants.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const NCOL: u32 = 32;
const NROW: u32 = 8;

// ---------------------------------------------------------------------------------------------
// Correct: 4-stage ring at the start of smem, barriers right after it; thread 32 produces,
// warp 0 consumes (one column per lane).
// ---------------------------------------------------------------------------------------------
const RING4: u32 = 4;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_cuda_ring4(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    let smem_base = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bar_addr = smem_base + RING4 * TILE_BYTES;

    if tid == 0 {
        Pipeline::<RING4>::init(bar_addr, NCOL);
    }
    barrier();
    let pipe = Pipeline::<RING4>::attach(bar_addr);

    if tid == 32 {
        let mut ps = PipelineState::<RING4>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            let dst = smem_base + ps.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&ps));
            ps.advance();
            t += nblk;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let mut cs = PipelineState::<RING4>::new();
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            let mut k = 0u32;
            while k < NROW {
                sum += *tile.add((tid + NCOL * k) as usize);
                k += 1;
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nblk;
        }
        *out.add((bid * NCOL + tid) as usize) = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: single buffer (1 stage). Barriers first, buffer at +128, reduction scratch after the
// buffer. All 64 threads consume (warp h sums rows 4h..4h+3), thread 0 also produces, in the
// same loop, before it consumes.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_cuda_single_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    const BAR_OFF: u32 = 0;
    const BUF_OFF: u32 = 128;
    const RED_OFF: u32 = BUF_OFF + TILE_BYTES;
    block_threads(64);
    let tid = thread_idx_x();
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    let sbase = dynamic_shared_window_address();
    let sptr = dynamic_shared_base::<f32>();

    if tid == 0 {
        Pipeline::<1>::init(sbase + BAR_OFF, 64);
    }
    barrier();
    let pipe = Pipeline::<1>::attach(sbase + BAR_OFF);

    let col = tid & 31;
    let half = tid >> 5;
    let mut prod = PipelineState::<1>::producer_start();
    let mut cons = PipelineState::<1>::new();
    let mut acc = 0.0f32;
    let mut t = bid;
    while t < tiles {
        if tid == 0 {
            pipe.producer_acquire(&prod);
            pipe.producer_expect_tx(&prod, TILE_BYTES);
            bulk_copy_global_to_shared(
                sbase + BUF_OFF + prod.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&prod),
            );
            prod.advance();
        }
        pipe.consumer_wait(&cons);
        let buf = sptr.add((BUF_OFF / 4) as usize + cons.index() as usize * TILE_FLOATS);
        let mut r = 0u32;
        while r < 4 {
            acc += *buf.add((col + NCOL * (half * 4 + r)) as usize);
            r += 1;
        }
        pipe.consumer_release(&cons);
        cons.advance();
        t += nblk;
    }
    if tid == 0 {
        pipe.producer_tail(prod);
    }

    let red = sptr.add((RED_OFF / 4) as usize);
    if half == 1 {
        *red.add(col as usize) = acc;
    }
    barrier();
    if half == 0 {
        *out.add((bid * NCOL + col) as usize) = acc + *red.add(col as usize);
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 3 stages, thread 0 produces, warp 1 consumes (column = tid - 32), for loops.
// ---------------------------------------------------------------------------------------------
const RING3: u32 = 3;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_cuda_warp1_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    let sbase = dynamic_shared_window_address();
    let sptr = dynamic_shared_base::<f32>();
    let bars = sbase + RING3 * TILE_BYTES;

    if tid == 0 {
        Pipeline::<RING3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<RING3>::attach(bars);

    if tid == 0 {
        let mut st = PipelineState::<RING3>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let g = input.add((t * 256) as usize);
            bulk_copy_global_to_shared(sbase + TILE_BYTES * st.index(), g.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += nblk;
        }
        pipe.producer_tail(st);
    }
    if tid >= 32 {
        let c = tid - 32;
        let mut st = PipelineState::<RING3>::new();
        let mut s = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&st);
            let base = sptr.add(256 * st.index() as usize);
            for k in 0..8u32 {
                s += *base.add((k * 32 + c) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += nblk;
        }
        *out.add((bid * 32 + c) as usize) = s;
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: CUTLASS-style consumer that releases the *previous* stage after it has waited for and
// read the current one (holds two stages at a time; fine with 4 stages).
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_cuda_release_prev(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    let smem_base = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bar_addr = smem_base + RING4 * TILE_BYTES;

    if tid == 0 {
        Pipeline::<RING4>::init(bar_addr, NCOL);
    }
    barrier();
    let pipe = Pipeline::<RING4>::attach(bar_addr);

    if tid == 32 {
        let mut ps = PipelineState::<RING4>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem_base + ps.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&ps),
            );
            ps.advance();
            t += nblk;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let mut cs = PipelineState::<RING4>::new();
        let mut prev = cs;
        let mut have_prev = false;
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for k in 0..NROW {
                sum += *tile.add((tid + NCOL * k) as usize);
            }
            if have_prev {
                pipe.consumer_release(&prev);
            }
            prev = cs;
            have_prev = true;
            cs.advance();
            t += nblk;
        }
        if have_prev {
            pipe.consumer_release(&prev);
        }
        *out.add((bid * NCOL + tid) as usize) = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the producer announces two tiles' worth of bytes ("the stage is 2 KiB, right?") but
// copies one tile: the full barrier never completes.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_cuda_expect_double(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    let smem_base = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bar_addr = smem_base + RING3 * 2 * TILE_BYTES;

    if tid == 0 {
        Pipeline::<RING3>::init(bar_addr, NCOL);
    }
    barrier();
    let pipe = Pipeline::<RING3>::attach(bar_addr);

    if tid == 32 {
        let mut ps = PipelineState::<RING3>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, 2 * TILE_BYTES);
            bulk_copy_global_to_shared(
                smem_base + ps.index() * 2 * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&ps),
            );
            ps.advance();
            t += nblk;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let mut cs = PipelineState::<RING3>::new();
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * 2 * TILE_FLOATS);
            for k in 0..NROW {
                sum += *tile.add((tid + NCOL * k) as usize);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nblk;
        }
        *out.add((bid * NCOL + tid) as usize) = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: barrier offset computed as (NSTAGE - 1) * TILE_BYTES ("last index") so the mbarriers
// sit in the first bytes of the last stage; the copy into stage 3 overwrites them.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_cuda_bars_in_last_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    let smem_base = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bar_addr = smem_base + (RING4 - 1) * TILE_BYTES;

    if tid == 0 {
        Pipeline::<RING4>::init(bar_addr, NCOL);
    }
    barrier();
    let pipe = Pipeline::<RING4>::attach(bar_addr);

    if tid == 32 {
        let mut ps = PipelineState::<RING4>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem_base + ps.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&ps),
            );
            ps.advance();
            t += nblk;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let mut cs = PipelineState::<RING4>::new();
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for k in 0..NROW {
                sum += *tile.add((tid + NCOL * k) as usize);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nblk;
        }
        *out.add((bid * NCOL + tid) as usize) = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: "warp 1 is the producer warp" -- but no elect-one: all 32 lanes of warp 1 run the
// producer loop, each arriving on a full barrier initialised for one arrival and copying again.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_cuda_warp_produces(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    let smem_base = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bar_addr = smem_base + RING4 * TILE_BYTES;
    let warp = tid / 32;

    if tid == 0 {
        Pipeline::<RING4>::init(bar_addr, NCOL);
    }
    barrier();
    let pipe = Pipeline::<RING4>::attach(bar_addr);

    if warp == 1 {
        let mut ps = PipelineState::<RING4>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem_base + ps.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&ps),
            );
            ps.advance();
            t += nblk;
        }
        pipe.producer_tail(ps);
    } else {
        let mut cs = PipelineState::<RING4>::new();
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for k in 0..NROW {
                sum += *tile.add((tid + NCOL * k) as usize);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nblk;
        }
        *out.add((bid * NCOL + tid) as usize) = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: a "guard word" between the ring and the barriers: the mbarriers start 4 bytes past the
// ring, so they are not 8-byte aligned.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_cuda_bars_misaligned(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    let smem_base = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bar_addr = smem_base + RING3 * TILE_BYTES + 4;

    if tid == 0 {
        Pipeline::<RING3>::init(bar_addr, NCOL);
    }
    barrier();
    let pipe = Pipeline::<RING3>::attach(bar_addr);

    if tid == 32 {
        let mut ps = PipelineState::<RING3>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem_base + ps.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&ps),
            );
            ps.advance();
            t += nblk;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let mut cs = PipelineState::<RING3>::new();
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for k in 0..NROW {
                sum += *tile.add((tid + NCOL * k) as usize);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nblk;
        }
        *out.add((bid * NCOL + tid) as usize) = sum;
    }
}
