//! mbarrier pipelines that break the order of the protocol: byte counts, release counts,
//! states that do not advance, loops that do not match, reads outside the wait–release window.

use core::mem::size_of;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;

#[inline(always)]
fn src_of(input: *const f32, t: u32) -> *const u8 {
    input.wrapping_add(t as usize * TILE) as *const u8
}

#[inline(always)]
unsafe fn column_of(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0f32;
    for k in 0..ROWS {
        s += unsafe { *stage.add(k * COLS + col) };
    }
    s
}

/// Stages sized for two tiles; one tile is copied per stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_expect_stage_copy_tile(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    const BARRIERS: u32 = STAGES * STAGE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + BARRIERS, 32) } else { Pipeline::<STAGES>::attach(window + BARRIERS) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, STAGE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * STAGE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&state));
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
            acc += unsafe { column_of(ring.add(state.index() as usize * 2 * TILE), tid as usize) };
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// The announced byte count is computed from the element type of another kernel.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_expect_half_tile_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const EXPECTED: u32 = (TILE * size_of::<u16>()) as u32;
    const COPIED: u32 = (TILE * size_of::<f32>()) as u32;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 4096, 32) } else { Pipeline::<STAGES>::attach(window + 4096) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (b..tiles).step_by(g as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, EXPECTED);
            bulk_copy_global_to_shared(window + state.index() * COPIED, src_of(input, t), COPIED, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in (b..tiles).step_by(g as usize) {
            pipe.consumer_wait(&state);
            acc += unsafe { column_of(ring.add(state.index() as usize * TILE), tid as usize) };
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// One release per warp: lane 0 releases for its warp once every lane has read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_lane0_releases_for_warp(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 4096, 32) } else { Pipeline::<STAGES>::attach(window + 4096) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let lane = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += unsafe { column_of(ring.add(state.index() as usize * TILE), lane) };
            if lane == 0 {
                pipe.consumer_release(&state);
            }
            state.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + lane) = acc };
    }
}

/// The consumer's state is made inside its tile loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_fresh_consumer_state(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 4096, 32) } else { Pipeline::<STAGES>::attach(window + 4096) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let mut state = PipelineState::<STAGES>::new();
            pipe.consumer_wait(&state);
            acc += unsafe { column_of(ring.add(state.index() as usize * TILE), tid as usize) };
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// The consumers stop one tile before the producer does.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_consumer_one_short(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 3072, 32) } else { Pipeline::<STAGES>::attach(window + 3072) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t + g < tiles {
            pipe.consumer_wait(&state);
            acc += unsafe { column_of(ring.add(state.index() as usize * TILE), tid as usize) };
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// One stage; the consumer releases a stage as soon as it holds data and sums it one step
/// later, after waiting for the next tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_deferred_read_single_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 1;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 1024, 32) } else { Pipeline::<STAGES>::attach(window + 1024) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut pending: Option<*const f32> = None;
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            if let Some(prev) = pending {
                acc += unsafe { column_of(prev, tid as usize) };
            }
            pending = Some(ring.wrapping_add(state.index() as usize * TILE));
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        if let Some(prev) = pending {
            acc += unsafe { column_of(prev, tid as usize) };
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// The empty barriers are set up for every thread of the block; warp 0 releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_init_counts_block(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const THREADS: u32 = 64;
    block_threads(THREADS);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 4096, THREADS) } else { Pipeline::<STAGES>::attach(window + 4096) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&state));
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
            acc += unsafe { column_of(ring.add(state.index() as usize * TILE), tid as usize) };
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// The consumers start from the producer's initial state.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_consumer_producer_phase(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 4096, 32) } else { Pipeline::<STAGES>::attach(window + 4096) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let start = PipelineState::<STAGES>::producer_start();
    if tid == 32 {
        let mut state = start;
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = start;
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += unsafe { column_of(ring.add(state.index() as usize * TILE), tid as usize) };
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// The producer's position as a small `Copy` struct with by-value methods.
#[derive(Clone, Copy)]
struct Slot {
    state: PipelineState<4>,
    window: u32,
}

impl Slot {
    fn destination(self) -> u32 {
        self.window + self.state.index() * TILE_BYTES
    }

    fn next(mut self) {
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_producer_advances_copy(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let slot = Slot { state: PipelineState::producer_start(), window };
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&slot.state);
            pipe.producer_expect_tx(&slot.state, TILE_BYTES);
            bulk_copy_global_to_shared(slot.destination(), src_of(input, t), TILE_BYTES, pipe.producer_barrier(&slot.state));
            slot.next();
            t += g;
        }
        pipe.producer_tail(slot.state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += unsafe { column_of(ring.add(state.index() as usize * TILE), tid as usize) };
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// The consumers store their result and leave as soon as they have read the last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pbad_return_before_last_release(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 2048, 32) } else { Pipeline::<STAGES>::attach(window + 2048) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src_of(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let dst = out.wrapping_add(b as usize * COLS + tid as usize);
        if b >= tiles {
            unsafe { *dst = 0.0 };
            return;
        }
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        loop {
            pipe.consumer_wait(&state);
            acc += unsafe { column_of(ring.add(state.index() as usize * TILE), tid as usize) };
            if t + g >= tiles {
                unsafe { *dst = acc };
                return;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
    }
}
