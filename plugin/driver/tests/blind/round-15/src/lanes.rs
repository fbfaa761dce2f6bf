//! Pipeline kernels whose consumers split a stage across lanes and recombine with warp shuffles,
//! or hand their columns through shared scratch outside the ring; one kernel whose thread 0 both
//! produces and consumes in lock step.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};
use crate::helpers::tiles_of_block;

const S: u32 = 4;
const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
/// Ring at byte 0 (four stages), barriers at 4096, scratch at 4352.
const BARS_AT: u32 = 4096;
const SCRATCH_FLOAT: usize = 4352 / 4;

/// A producer/consumer pair of states and the pipeline they move on.
struct Lanes {
    pipe: Pipeline<S>,
    window: u32,
    base: *mut f32,
}

impl Lanes {
    #[inline(always)]
    fn new(consumers: u32) -> Lanes {
        let window = dynamic_shared_window_address();
        if thread_idx_x() == 0 {
            Pipeline::<S>::init(window + BARS_AT, consumers);
        }
        barrier();
        Lanes { pipe: Pipeline::attach(window + BARS_AT), window, base: dynamic_shared_base::<f32>() }
    }
}

#[inline(always)]
unsafe fn produce_block(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(state);
}

/// Consumers (warp 1): eight lanes per column, one row each; `segment_sum` over eight lanes
/// gives the column, so a pass covers four columns and eight passes cover the 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_lanes_pipe_segment_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Lanes { pipe, window, base } = Lanes::new(32);
    let tid = thread_idx_x();
    if tid == 0 {
        unsafe { produce_block(&pipe, window, input, tiles) };
        return;
    }
    if tid < 32 {
        return;
    }
    let lane = (tid - 32) as usize;
    let (row, group) = (lane % 8, lane / 8);
    let mut acc = [0.0f32; 8];
    let mut state = PipelineState::<S>::new();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        let stage = unsafe { base.add(state.index() as usize * TILE_FLOATS) };
        for (pass, a) in acc.iter_mut().enumerate() {
            let v = unsafe { *stage.add(row * 32 + pass * 4 + group) };
            *a += segment_sum(v, 8);
        }
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    if row == 0 {
        let dst = unsafe { out.add(block_idx_x() as usize * 32) };
        for (pass, a) in acc.iter().enumerate() {
            unsafe { *dst.add(pass * 4 + group) = *a };
        }
    }
}

/// Consumers (warp 1) read 16-byte quads: lane `l` takes columns `4·(l / 4)..+4` of rows `l % 4`
/// and `l % 4 + 4`; a four-lane segment sum completes each column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_lanes_pipe_quad_segments(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Lanes { pipe, window, base } = Lanes::new(32);
    let tid = thread_idx_x();
    match tid {
        0 => unsafe { produce_block(&pipe, window, input, tiles) },
        32..=63 => {
            let lane = (tid - 32) as usize;
            let (quad, g) = (lane / 4, lane % 4);
            let mut acc = [0.0f32; 4];
            let mut state = PipelineState::<S>::new();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { base.add(state.index() as usize * TILE_FLOATS) } as *const [f32; 4];
                let upper = unsafe { *stage.add(g * 8 + quad) };
                let lower = unsafe { *stage.add((g + 4) * 8 + quad) };
                pipe.consumer_release(&state);
                for j in 0..4 {
                    acc[j] += segment_sum(upper[j] + lower[j], 4);
                }
                state.advance();
                t += grid_dim_x();
            }
            if g == 0 {
                for (j, a) in acc.iter().enumerate() {
                    unsafe { *out.add(block_idx_x() as usize * 32 + quad * 4 + j) = *a };
                }
            }
        }
        _ => {}
    }
}

/// Consumers leave their column sums in shared scratch outside the ring; after a block barrier
/// (which the producer reaches after its tail) warp 0 writes them out.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_lanes_pipe_scratch_after_tail(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Lanes { pipe, window, base } = Lanes::new(32);
    let scratch = unsafe { base.add(SCRATCH_FLOAT) };
    let tid = thread_idx_x();
    if tid == 0 {
        unsafe { produce_block(&pipe, window, input, tiles) };
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { base.add(state.index() as usize * TILE_FLOATS) };
            sum += (0..8).map(|r| unsafe { *stage.add(r * 32 + lane) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *scratch.add(lane) = sum };
    }
    barrier();
    if tid < 32 {
        unsafe { *out.add(block_idx_x() as usize * 32 + tid as usize) = *scratch.add(tid as usize) };
    }
}

/// BROKEN: the stages are laid out 512 bytes apart while each copy is a whole 1024-byte tile:
/// every copy overwrites the first half of the next stage, which holds the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_lanes_pipe_half_tile_stride(input: *const f32, tiles: u32, out: *mut f32) {
    const STRIDE_BYTES: u32 = 512;
    const STRIDE_FLOATS: usize = 128;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Lanes { pipe, window, base } = Lanes::new(32);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = unsafe { input.add(t as usize * TILE_FLOATS) };
            bulk_copy_global_to_shared(window + state.index() * STRIDE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let mut state = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { base.add(state.index() as usize * STRIDE_FLOATS) };
            for r in 0..8 {
                sum += unsafe { *stage.add(r * 32 + lane) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * 32 + lane) = sum };
    }
}

/// One producer step for the lock-step kernel.
#[inline(always)]
fn fill_one(pipe: &Pipeline<S>, state: &mut PipelineState<S>, window: u32, tile: *const f32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile.cast(), TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

/// All 64 threads consume (thread `t` sums rows `4·(t / 32)..+4` of column `t % 32`); thread 0
/// also produces, never more than the ring ahead: it fills the first four tiles, then one tile
/// after each tile it has consumed, so its own release always comes before its next acquire.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_lanes_pipe_lockstep_dual_role(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let Lanes { pipe, window, base } = Lanes::new(64);
    let scratch = unsafe { base.add(SCRATCH_FLOAT) };
    let tid = thread_idx_x() as usize;
    let (first, step) = (block_idx_x(), grid_dim_x());
    let n = tiles_of_block(first, step, tiles);
    let tile_ptr = |k: u32| input.wrapping_add((first + k * step) as usize * TILE_FLOATS);
    let producer = tid == 0;
    let mut fill_state = PipelineState::<S>::producer_start();
    let mut filled = 0u32;
    if producer {
        while filled < n && filled < S {
            fill_one(&pipe, &mut fill_state, window, tile_ptr(filled));
            filled += 1;
        }
    }
    let (lane, half) = (tid % 32, tid / 32);
    let mut state = PipelineState::<S>::new();
    let mut mine = 0.0f32;
    let mut k = 0;
    while k < n {
        pipe.consumer_wait(&state);
        let stage = unsafe { base.add(state.index() as usize * TILE_FLOATS) };
        for r in 0..4 {
            mine += unsafe { *stage.add((half * 4 + r) * 32 + lane) };
        }
        pipe.consumer_release(&state);
        state.advance();
        if producer && filled < n {
            fill_one(&pipe, &mut fill_state, window, tile_ptr(filled));
            filled += 1;
        }
        k += 1;
    }
    if producer {
        pipe.producer_tail(fill_state);
    }
    unsafe { *scratch.add(tid) = mine };
    barrier();
    if tid < 32 {
        unsafe { *out.add(first as usize * 32 + tid) = *scratch.add(tid) + *scratch.add(tid + 32) };
    }
}
