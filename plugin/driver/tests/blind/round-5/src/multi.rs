//! Persona: the two-pipeline author. Two rings, two sets of barriers: tiles alternating
//! between pipelines, or each tile's halves going down different pipelines to different warps.

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const S: u32 = 2;

#[inline(always)]
fn column_of(stage: *const f32, column: u32) -> f32 {
    let mut sum = 0.0;
    for row in 0..8u32 {
        // SAFETY: callers hand a stage they hold, 256 floats.
        sum += unsafe { *stage.add((row * 32 + column) as usize) };
    }
    sum
}

/// Tiles alternate between pipeline `even` (ring at 0) and pipeline `odd` (ring at 2048); the
/// barriers of both follow at 6144. Thread 0 produces both, warp 1 consumes both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_mu_even_odd_pipelines(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let even_ring = 0u32;
    let odd_ring = S * TILE_BYTES;
    let even_barriers = window + 6144;
    let odd_barriers = even_barriers + pipeline_barrier_bytes(S);
    if tid == 0 {
        Pipeline::<S>::init(even_barriers, 32);
        Pipeline::<S>::init(odd_barriers, 32);
    }
    barrier();
    let even = Pipeline::<S>::attach(even_barriers);
    let odd = Pipeline::<S>::attach(odd_barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut e = PipelineState::<S>::producer_start();
        let mut o = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            even.producer_acquire(&e);
            even.producer_expect_tx(&e, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + even_ring + e.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                even.producer_barrier(&e),
            );
            e.advance();
            if t + grid < tiles {
                odd.producer_acquire(&o);
                odd.producer_expect_tx(&o, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + odd_ring + o.index() * TILE_BYTES,
                    input.wrapping_add(((t + grid) * TILE_FLOATS) as usize).cast(),
                    TILE_BYTES,
                    odd.producer_barrier(&o),
                );
                o.advance();
            }
            t += 2 * grid;
        }
        even.producer_tail(e);
        odd.producer_tail(o);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut e = PipelineState::<S>::new();
        let mut o = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            even.consumer_wait(&e);
            acc += column_of(smem.wrapping_add(((even_ring + e.index() * TILE_BYTES) / 4) as usize), column);
            even.consumer_release(&e);
            e.advance();
            if t + grid < tiles {
                odd.consumer_wait(&o);
                acc += column_of(smem.wrapping_add(((odd_ring + o.index() * TILE_BYTES) / 4) as usize), column);
                odd.consumer_release(&o);
                o.advance();
            }
            t += 2 * grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// Each tile's first half goes down pipeline `top` to warp 0, its second half down pipeline
/// `bottom` to warp 1 (four 512-byte stages each). Thread 0 produces both and also consumes
/// `top`; warp 1's sums reach warp 0 through scratch after both rings and barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_mu_halves_by_warp(input: *const f32, tiles: u32, out: *mut f32) {
    const H: u32 = 4;
    const HALF_BYTES: u32 = 512;
    const HALF_FLOATS: u32 = 128;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let top_ring = 0u32;
    let bottom_ring = H * HALF_BYTES;
    let top_barriers = window + 2 * H * HALF_BYTES;
    let bottom_barriers = top_barriers + pipeline_barrier_bytes(H);
    let scratch = smem.wrapping_add(((2 * H * HALF_BYTES + 2 * pipeline_barrier_bytes(H)) / 4) as usize);
    if tid == 0 {
        Pipeline::<H>::init(top_barriers, 32);
        Pipeline::<H>::init(bottom_barriers, 32);
    }
    barrier();
    let top = Pipeline::<H>::attach(top_barriers);
    let bottom = Pipeline::<H>::attach(bottom_barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let column = tid % 32;

    let mut top_in = PipelineState::<H>::producer_start();
    let mut bottom_in = PipelineState::<H>::producer_start();
    let mut mine = PipelineState::<H>::new();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        if tid == 0 {
            let src = input.wrapping_add((t * TILE_FLOATS) as usize);
            top.producer_acquire(&top_in);
            top.producer_expect_tx(&top_in, HALF_BYTES);
            bulk_copy_global_to_shared(window + top_ring + top_in.index() * HALF_BYTES, src.cast(), HALF_BYTES, top.producer_barrier(&top_in));
            top_in.advance();
            bottom.producer_acquire(&bottom_in);
            bottom.producer_expect_tx(&bottom_in, HALF_BYTES);
            bulk_copy_global_to_shared(
                window + bottom_ring + bottom_in.index() * HALF_BYTES,
                src.wrapping_add(HALF_FLOATS as usize).cast(),
                HALF_BYTES,
                bottom.producer_barrier(&bottom_in),
            );
            bottom_in.advance();
        }
        if tid < 32 {
            top.consumer_wait(&mine);
            let stage = smem.wrapping_add(((top_ring + mine.index() * HALF_BYTES) / 4) as usize);
            for row in 0..4u32 {
                // SAFETY: after the wait; inside the stage.
                acc += unsafe { *stage.add((row * 32 + column) as usize) };
            }
            top.consumer_release(&mine);
            mine.advance();
        } else {
            bottom.consumer_wait(&mine);
            let stage = smem.wrapping_add(((bottom_ring + mine.index() * HALF_BYTES) / 4) as usize);
            for row in 0..4u32 {
                // SAFETY: after the wait; inside the stage.
                acc += unsafe { *stage.add((row * 32 + column) as usize) };
            }
            bottom.consumer_release(&mine);
            mine.advance();
        }
        t += grid;
    }
    if tid == 0 {
        top.producer_tail(top_in);
        bottom.producer_tail(bottom_in);
    }
    if tid >= 32 {
        // SAFETY: 32 floats of scratch past the barriers.
        unsafe { *scratch.add(column as usize) = acc };
    }
    barrier();
    if tid < 32 {
        // SAFETY: written by warp 1 before the barrier; 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc + *scratch.add(column as usize) };
    }
}

/// BROKEN: as `r5_mu_even_odd_pipelines`, but the consumers release the even tile on the odd
/// pipeline (copy-pasted line): the even pipeline's stages are never released (the producer
/// hangs) and the odd pipeline's empty barriers get twice the arrivals.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_mu_release_on_other_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let even_ring = 0u32;
    let odd_ring = S * TILE_BYTES;
    let even_barriers = window + 6144;
    let odd_barriers = even_barriers + pipeline_barrier_bytes(S);
    if tid == 0 {
        Pipeline::<S>::init(even_barriers, 32);
        Pipeline::<S>::init(odd_barriers, 32);
    }
    barrier();
    let even = Pipeline::<S>::attach(even_barriers);
    let odd = Pipeline::<S>::attach(odd_barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut e = PipelineState::<S>::producer_start();
        let mut o = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            even.producer_acquire(&e);
            even.producer_expect_tx(&e, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + even_ring + e.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                even.producer_barrier(&e),
            );
            e.advance();
            if t + grid < tiles {
                odd.producer_acquire(&o);
                odd.producer_expect_tx(&o, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + odd_ring + o.index() * TILE_BYTES,
                    input.wrapping_add(((t + grid) * TILE_FLOATS) as usize).cast(),
                    TILE_BYTES,
                    odd.producer_barrier(&o),
                );
                o.advance();
            }
            t += 2 * grid;
        }
        even.producer_tail(e);
        odd.producer_tail(o);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut e = PipelineState::<S>::new();
        let mut o = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            even.consumer_wait(&e);
            acc += column_of(smem.wrapping_add(((even_ring + e.index() * TILE_BYTES) / 4) as usize), column);
            odd.consumer_release(&e);
            e.advance();
            if t + grid < tiles {
                odd.consumer_wait(&o);
                acc += column_of(smem.wrapping_add(((odd_ring + o.index() * TILE_BYTES) / 4) as usize), column);
                odd.consumer_release(&o);
                o.advance();
            }
            t += 2 * grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// BROKEN: the odd ring starts one stage after the even ring (`TILE_BYTES` instead of
/// `S * TILE_BYTES`): odd stage 0 is even stage 1, so the two pipelines overwrite each other's
/// tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_mu_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let even_ring = 0u32;
    let odd_ring = TILE_BYTES;
    let even_barriers = window + 6144;
    let odd_barriers = even_barriers + pipeline_barrier_bytes(S);
    if tid == 0 {
        Pipeline::<S>::init(even_barriers, 32);
        Pipeline::<S>::init(odd_barriers, 32);
    }
    barrier();
    let even = Pipeline::<S>::attach(even_barriers);
    let odd = Pipeline::<S>::attach(odd_barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut e = PipelineState::<S>::producer_start();
        let mut o = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            even.producer_acquire(&e);
            even.producer_expect_tx(&e, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + even_ring + e.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                even.producer_barrier(&e),
            );
            e.advance();
            if t + grid < tiles {
                odd.producer_acquire(&o);
                odd.producer_expect_tx(&o, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + odd_ring + o.index() * TILE_BYTES,
                    input.wrapping_add(((t + grid) * TILE_FLOATS) as usize).cast(),
                    TILE_BYTES,
                    odd.producer_barrier(&o),
                );
                o.advance();
            }
            t += 2 * grid;
        }
        even.producer_tail(e);
        odd.producer_tail(o);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut e = PipelineState::<S>::new();
        let mut o = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            even.consumer_wait(&e);
            acc += column_of(smem.wrapping_add(((even_ring + e.index() * TILE_BYTES) / 4) as usize), column);
            even.consumer_release(&e);
            e.advance();
            if t + grid < tiles {
                odd.consumer_wait(&o);
                acc += column_of(smem.wrapping_add(((odd_ring + o.index() * TILE_BYTES) / 4) as usize), column);
                odd.consumer_release(&o);
                o.advance();
            }
            t += 2 * grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// BROKEN: both pipelines are initialised on the same barrier address (the odd barrier offset
/// was never added): every full barrier gets the arrivals of both producers' states and every
/// empty barrier both releases, so waits return on the other pipeline's phases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_mu_shared_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let even_ring = 0u32;
    let odd_ring = S * TILE_BYTES;
    let even_barriers = window + 6144;
    let odd_barriers = window + 6144;
    if tid == 0 {
        Pipeline::<S>::init(even_barriers, 32);
        Pipeline::<S>::init(odd_barriers, 32);
    }
    barrier();
    let even = Pipeline::<S>::attach(even_barriers);
    let odd = Pipeline::<S>::attach(odd_barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut e = PipelineState::<S>::producer_start();
        let mut o = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            even.producer_acquire(&e);
            even.producer_expect_tx(&e, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + even_ring + e.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                even.producer_barrier(&e),
            );
            e.advance();
            if t + grid < tiles {
                odd.producer_acquire(&o);
                odd.producer_expect_tx(&o, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + odd_ring + o.index() * TILE_BYTES,
                    input.wrapping_add(((t + grid) * TILE_FLOATS) as usize).cast(),
                    TILE_BYTES,
                    odd.producer_barrier(&o),
                );
                o.advance();
            }
            t += 2 * grid;
        }
        even.producer_tail(e);
        odd.producer_tail(o);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut e = PipelineState::<S>::new();
        let mut o = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            even.consumer_wait(&e);
            acc += column_of(smem.wrapping_add(((even_ring + e.index() * TILE_BYTES) / 4) as usize), column);
            even.consumer_release(&e);
            e.advance();
            if t + grid < tiles {
                odd.consumer_wait(&o);
                acc += column_of(smem.wrapping_add(((odd_ring + o.index() * TILE_BYTES) / 4) as usize), column);
                odd.consumer_release(&o);
                o.advance();
            }
            t += 2 * grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}
