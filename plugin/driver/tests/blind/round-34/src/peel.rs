//! Peeled loops: a prologue that fills the ring before the steady loop, a first or last tile
//! handled outside the loop, tiles taken in pairs with the odd one peeled off the end.
//!
//! The ring sits at the start of the window, its barriers right after it. Thread 32 copies;
//! threads 0..32 each sum one column.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROW: usize = 32;
const ROWS: usize = 8;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

#[inline(always)]
fn owned(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

/// Block-level context every role reads.
#[derive(Clone, Copy)]
struct Block {
    window: u32,
    ring: *const f32,
    first: u32,
    step: u32,
    count: u32,
}

impl Block {
    #[inline(always)]
    fn tile_ptr(&self, input: *const f32, k: u32) -> *const u8 {
        input.wrapping_add(((self.first + k * self.step) as usize) * TILE) as *const u8
    }
}

#[inline(always)]
fn setup<const S: u32>(tiles: u32) -> (Pipeline<S>, Block) {
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let pipe = if thread_idx_x() == 0 { Pipeline::<S>::init(bars, CONSUMERS) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let block = Block { window, ring: dynamic_shared_base::<f32>(), first: b, step: g, count: owned(tiles, b, g) };
    (pipe, block)
}

/// Producer: one tile into the stage `state` points at.
#[inline(always)]
fn fill<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, block: &Block, src: *const u8) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(block.window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

/// Consumer: column `c` of the tile in the stage `state` points at.
#[inline(always)]
unsafe fn drain<const S: u32>(pipe: &Pipeline<S>, state: &mut PipelineState<S>, block: &Block, c: usize) -> f32 {
    pipe.consumer_wait(state);
    let stage = block.ring.add(state.index() as usize * TILE);
    let mut acc = 0.0;
    for r in 0..ROWS {
        acc += *stage.add(r * ROW + c);
    }
    pipe.consumer_release(state);
    state.advance();
    acc
}

#[inline(always)]
unsafe fn plain_consumer<const S: u32>(pipe: &Pipeline<S>, block: &Block, out: *mut f32) {
    let c = thread_idx_x() as usize;
    let mut state = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    for _ in 0..block.count {
        acc += drain(pipe, &mut state, block, c);
    }
    *out.add(block.first as usize * 32 + c) = acc;
}

#[inline(always)]
fn plain_producer<const S: u32>(pipe: &Pipeline<S>, block: &Block, input: *const f32) {
    let mut state = PipelineState::<S>::producer_start();
    for k in 0..block.count {
        fill(pipe, &mut state, block, block.tile_ptr(input, k));
    }
    pipe.producer_tail(state);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_peel_prologue_fill(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, block) = setup::<STAGES>(tiles);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        let warm = block.count.min(STAGES);
        // Prologue: every stage is free, fill them back to back.
        for k in 0..warm {
            fill(&pipe, &mut state, &block, block.tile_ptr(input, k));
        }
        // Steady state: each fill waits for the consumers to hand a stage back.
        for k in warm..block.count {
            fill(&pipe, &mut state, &block, block.tile_ptr(input, k));
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        plain_consumer(&pipe, &block, out);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_peel_first_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, block) = setup::<STAGES>(tiles);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        if block.count > 0 {
            fill(&pipe, &mut state, &block, block.tile_ptr(input, 0));
            for k in 1..block.count {
                fill(&pipe, &mut state, &block, block.tile_ptr(input, k));
            }
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        if block.count > 0 {
            // The first tile starts the sum instead of adding to zero.
            acc = drain(&pipe, &mut state, &block, c);
            for _ in 1..block.count {
                acc += drain(&pipe, &mut state, &block, c);
            }
        }
        *out.add(block.first as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_peel_last_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, block) = setup::<STAGES>(tiles);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        plain_producer(&pipe, &block, input);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let slot = out.add(block.first as usize * 32 + c);
        if block.count == 0 {
            *slot = 0.0;
        } else {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for _ in 0..block.count - 1 {
                acc += drain(&pipe, &mut state, &block, c);
            }
            // Last tile: fold it straight into the store.
            pipe.consumer_wait(&state);
            let stage = block.ring.add(state.index() as usize * TILE);
            let mut last = 0.0f32;
            for r in 0..ROWS {
                last += *stage.add(r * ROW + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            *slot = acc + last;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_peel_pairs_and_rest(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, block) = setup::<STAGES>(tiles);
    let tid = thread_idx_x();
    let pairs = block.count / 2;
    let odd = block.count % 2 == 1;
    if tid == PRODUCER {
        let mut state = PipelineState::<STAGES>::producer_start();
        for p in 0..pairs {
            fill(&pipe, &mut state, &block, block.tile_ptr(input, 2 * p));
            fill(&pipe, &mut state, &block, block.tile_ptr(input, 2 * p + 1));
        }
        if odd {
            fill(&pipe, &mut state, &block, block.tile_ptr(input, block.count - 1));
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let (mut even_sum, mut odd_sum) = (0.0f32, 0.0f32);
        for _ in 0..pairs {
            even_sum += drain(&pipe, &mut state, &block, c);
            odd_sum += drain(&pipe, &mut state, &block, c);
        }
        if odd {
            even_sum += drain(&pipe, &mut state, &block, c);
        }
        *out.add(block.first as usize * 32 + c) = even_sum + odd_sum;
    }
}

/// Producer for tiles `from..to`, from the start of the ring.
#[inline(always)]
fn produce_span(pipe: &Pipeline<STAGES>, block: &Block, input: *const f32, from: u32, to: u32) -> PipelineState<STAGES> {
    let mut state = PipelineState::<STAGES>::producer_start();
    for k in from..to {
        fill(pipe, &mut state, block, block.tile_ptr(input, k));
    }
    state
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_peel_bad_span_states(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, block) = setup::<STAGES>(tiles);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let warm = block.count.min(STAGES);
        produce_span(&pipe, &block, input, 0, warm);
        let state = produce_span(&pipe, &block, input, warm, block.count);
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        plain_consumer(&pipe, &block, out);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_peel_bad_first_kept(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, block) = setup::<STAGES>(tiles);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        plain_producer(&pipe, &block, input);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        if block.count > 0 {
            pipe.consumer_wait(&state);
            let stage = block.ring.add(state.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(r * ROW + c);
            }
            state.advance();
            for _ in 1..block.count {
                acc += drain(&pipe, &mut state, &block, c);
            }
        }
        *out.add(block.first as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_peel_bad_last_twice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, block) = setup::<STAGES>(tiles);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        plain_producer(&pipe, &block, input);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let slot = out.add(block.first as usize * 32 + c);
        if block.count == 0 {
            *slot = 0.0;
        } else {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            for _ in 0..block.count {
                acc += drain(&pipe, &mut state, &block, c);
            }
            pipe.consumer_wait(&state);
            let stage = block.ring.add(state.index() as usize * TILE);
            let mut last = 0.0f32;
            for r in 0..ROWS {
                last += *stage.add(r * ROW + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            *slot = acc + last;
        }
    }
}

/// Deeper prologue: eight tiles in flight.
const DEEP: u32 = 8;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_peel_bad_deep_prologue(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let (pipe, block) = setup::<DEEP>(tiles);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::<DEEP>::producer_start();
        let warm = block.count.min(DEEP);
        for k in 0..warm {
            fill(&pipe, &mut state, &block, block.tile_ptr(input, k));
        }
        for k in warm..block.count {
            fill(&pipe, &mut state, &block, block.tile_ptr(input, k));
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        plain_consumer(&pipe, &block, out);
    }
}
