//! mbarrier pipelines in the usual shapes: one producer thread, one consumer warp, a ring of
//! 1 KiB stages. All meant to be correct.

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x,
    warp_id,
};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;

#[inline(always)]
fn tile_source(input: *const f32, t: u32) -> *const u8 {
    input.wrapping_add(t as usize * TILE) as *const u8
}

/// The textbook shape: ring at the window's start, barriers after it, `while` loops.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_classic_while(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARRIERS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
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
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            for k in 0..ROWS {
                acc += unsafe { *stage.add(k * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// Barriers first, the ring from byte 1024; both roles walk the tiles with `step_by`, and a
/// consumer reads its column of the stage through a slice iterator.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_step_by_slice_iter(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<u8>().wrapping_add(RING as usize) as *const f32;
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let b = block_idx_x();
    let step = grid_dim_x() as usize;
    if warp_id() == 1 && lane_id() == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (b..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if warp_id() == 0 {
        let lane = lane_id() as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in (b..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            let stage = unsafe { slice::from_raw_parts(ring.add(state.index() as usize * TILE), TILE) };
            acc += stage.iter().skip(lane).step_by(COLS).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(b as usize * COLS + lane) = acc };
    }
}

/// The producer as a struct that owns its state and is finished by value.
struct Feeder<'p> {
    pipe: &'p Pipeline<3>,
    state: PipelineState<3>,
    ring: u32,
    src: *const f32,
}

impl Feeder<'_> {
    #[inline(always)]
    fn push(&mut self, tile: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ring + self.state.index() * TILE_BYTES,
            tile_source(self.src, tile),
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

/// A consumer as a struct: its state, where its column starts, and its running total.
struct Drain {
    state: PipelineState<3>,
    column: *const f32,
    total: f32,
}

impl Drain {
    #[inline(always)]
    fn take(&mut self, pipe: &Pipeline<3>) {
        pipe.consumer_wait(&self.state);
        let stage = self.column.wrapping_add(self.state.index() as usize * TILE);
        let mut k = 0;
        while k < ROWS {
            self.total += unsafe { *stage.add(k * COLS) };
            k += 1;
        }
        pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_feeder_drain_structs(input: *const f32, tiles: u32, out: *mut f32) {
    const BARRIERS: u32 = 3 * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window + BARRIERS, 32) } else { Pipeline::<3>::attach(window + BARRIERS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut feeder = Feeder { pipe: &pipe, state: PipelineState::producer_start(), ring: window, src: input };
        let mut t = b;
        while t < tiles {
            feeder.push(t);
            t += g;
        }
        feeder.finish();
    } else if tid < 32 {
        let column = dynamic_shared_base::<f32>().wrapping_add(tid as usize) as *const f32;
        let mut drain = Drain { state: PipelineState::new(), column, total: 0.0 };
        let mut t = b;
        while t < tiles {
            drain.take(&pipe);
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = drain.total };
    }
}

/// Each role's step is a closure over the pipeline and a state captured by reference.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_closure_steps(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARRIERS: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let count = if tiles > b { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut produce = |t: u32| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        };
        for i in 0..count {
            produce(b + i * g);
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let col = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut consume = |acc: f32| -> f32 {
            pipe.consumer_wait(&state);
            let stage = base.wrapping_add(state.index() as usize * TILE + col);
            let s = (0..ROWS).map(|k| unsafe { *stage.add(k * COLS) }).fold(0.0f32, |a, x| a + x);
            pipe.consumer_release(&state);
            state.advance();
            acc + s
        };
        let mut acc = 0.0f32;
        for _ in 0..count {
            acc = consume(acc);
        }
        unsafe { *out.add(b as usize * COLS + col) = acc };
    }
}

#[inline(never)]
unsafe fn produce_all(pipe: &Pipeline<3>, ring: u32, input: *const f32, first: u32, step: u32, tiles: u32) {
    let mut state = PipelineState::<3>::producer_start();
    let mut t = first;
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring + state.index() * TILE_BYTES,
            tile_source(input, t),
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        t += step;
    }
    pipe.producer_tail(state);
}

#[inline(never)]
unsafe fn consume_all(pipe: &Pipeline<3>, ring: *const f32, lane: usize, first: u32, step: u32, tiles: u32) -> f32 {
    let mut state = PipelineState::<3>::new();
    let mut acc = 0.0f32;
    let mut t = first;
    while t < tiles {
        pipe.consumer_wait(&state);
        let stage = unsafe { ring.add(state.index() as usize * TILE) };
        for k in 0..ROWS {
            acc += unsafe { *stage.add(k * COLS + lane) };
        }
        pipe.consumer_release(&state);
        state.advance();
        t += step;
    }
    acc
}

/// Each role lives in an out-of-line helper; the kernel only picks the threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_role_helpers_noinline(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 2048;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        unsafe { produce_all(&pipe, window + RING, input, b, g, tiles) };
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().wrapping_add(RING as usize) as *const f32;
        let acc = unsafe { consume_all(&pipe, ring, tid as usize, b, g, tiles) };
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// Every stage is filled by two bulk copies of half a tile each, announced together.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_split_copy_halves(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    const BARRIERS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * HALF);
            let dst = window + state.index() * TILE_BYTES;
            let src = tile_source(input, t);
            let full = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(dst, src, HALF, full);
            bulk_copy_global_to_shared(dst + HALF, src.wrapping_add(HALF as usize), HALF, full);
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            let mut k = 0usize;
            loop {
                acc += unsafe { *stage.add(k * COLS + tid as usize) };
                k += 1;
                if k == ROWS {
                    break;
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// Stages of two tiles (2 KiB): the producer copies one or two tiles per stage and announces
/// exactly what it copies; the consumers compute the same count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_pair_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    const BARRIERS: u32 = STAGES * STAGE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if tiles > b { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut j = 0u32;
        while j < mine {
            let n = (mine - j).min(2);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, n * TILE_BYTES);
            let full = pipe.producer_barrier(&state);
            for k in 0..n {
                let dst = window + state.index() * STAGE_BYTES + k * TILE_BYTES;
                bulk_copy_global_to_shared(dst, tile_source(input, b + g * (j + k)), TILE_BYTES, full);
            }
            state.advance();
            j += n;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let lane = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut j = 0u32;
        while j < mine {
            let n = (mine - j).min(2) as usize;
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * 2 * TILE);
            for e in (lane..n * TILE).step_by(COLS) {
                acc += unsafe { *stage.add(e) };
            }
            pipe.consumer_release(&state);
            state.advance();
            j += n as u32;
        }
        unsafe { *out.add(b as usize * COLS + lane) = acc };
    }
}

/// Sixteen consumer threads, each summing two columns; the pipeline is told to expect 16
/// releases per stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_sixteen_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const CONSUMERS: u32 = 16;
    const BARRIERS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
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
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sums = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            for k in 0..ROWS {
                unsafe {
                    sums.0 += *stage.add(k * COLS + c);
                    sums.1 += *stage.add(k * COLS + c + 16);
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        unsafe {
            *out.add(b as usize * COLS + c) = sums.0;
            *out.add(b as usize * COLS + c + 16) = sums.1;
        }
    }
}
