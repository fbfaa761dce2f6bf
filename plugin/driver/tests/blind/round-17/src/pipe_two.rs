//! Kernels with two pipelines: tiles alternating between two rings, or each tile split into
//! two halves carried by two rings.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

/// Alternating rings: two stages each.
const PAIR_STAGES: u32 = 2;
/// Ring A at 0, ring B at 2 KiB, A's barriers at 4 KiB, B's right after them.
const RING_B: u32 = PAIR_STAGES * TILE_BYTES;
const BARRIERS_A: u32 = 2 * PAIR_STAGES * TILE_BYTES;
const BARRIERS_B: u32 = BARRIERS_A + 16 * PAIR_STAGES;

/// Even tiles of the block go through ring A, odd ones through ring B.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_two_alternating(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<PAIR_STAGES>::init(window + BARRIERS_A, WARP);
        Pipeline::<PAIR_STAGES>::init(window + BARRIERS_B, WARP);
    }
    barrier();
    let even = Pipeline::<PAIR_STAGES>::attach(window + BARRIERS_A);
    let odd = Pipeline::<PAIR_STAGES>::attach(window + BARRIERS_B);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    unsafe {
        if tid < WARP {
            let base = dynamic_shared_base::<f32>();
            let ring_a = base;
            let ring_b = base.add(RING_B as usize / 4);
            let mut state_a = PipelineState::<PAIR_STAGES>::new();
            let mut state_b = PipelineState::<PAIR_STAGES>::new();
            let mut acc = 0.0f32;
            for k in 0..count {
                if k % 2 == 0 {
                    even.consumer_wait(&state_a);
                    let stage = ring_a.add(state_a.index() as usize * TILE_FLOATS);
                    for row in 0..ROWS {
                        acc += *stage.add(row * COLS + tid as usize);
                    }
                    even.consumer_release(&state_a);
                    state_a.advance();
                } else {
                    odd.consumer_wait(&state_b);
                    let stage = ring_b.add(state_b.index() as usize * TILE_FLOATS);
                    for row in 0..ROWS {
                        acc += *stage.add(row * COLS + tid as usize);
                    }
                    odd.consumer_release(&state_b);
                    state_b.advance();
                }
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state_a = PipelineState::<PAIR_STAGES>::producer_start();
            let mut state_b = PipelineState::<PAIR_STAGES>::producer_start();
            for k in 0..count {
                let source = input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8;
                if k % 2 == 0 {
                    even.producer_acquire(&state_a);
                    even.producer_expect_tx(&state_a, TILE_BYTES);
                    bulk_copy_global_to_shared(
                        window + state_a.index() * TILE_BYTES,
                        source,
                        TILE_BYTES,
                        even.producer_barrier(&state_a),
                    );
                    state_a.advance();
                } else {
                    odd.producer_acquire(&state_b);
                    odd.producer_expect_tx(&state_b, TILE_BYTES);
                    bulk_copy_global_to_shared(
                        window + RING_B + state_b.index() * TILE_BYTES,
                        source,
                        TILE_BYTES,
                        odd.producer_barrier(&state_b),
                    );
                    state_b.advance();
                }
            }
            even.producer_tail(state_a);
            odd.producer_tail(state_b);
        }
    }
}

/// The alternating rings; the odd branch of the consumers was copied from the even one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_two_alternating_release_a(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<PAIR_STAGES>::init(window + BARRIERS_A, WARP);
        Pipeline::<PAIR_STAGES>::init(window + BARRIERS_B, WARP);
    }
    barrier();
    let even = Pipeline::<PAIR_STAGES>::attach(window + BARRIERS_A);
    let odd = Pipeline::<PAIR_STAGES>::attach(window + BARRIERS_B);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    unsafe {
        if tid < WARP {
            let base = dynamic_shared_base::<f32>();
            let ring_a = base;
            let ring_b = base.add(RING_B as usize / 4);
            let mut state_a = PipelineState::<PAIR_STAGES>::new();
            let mut state_b = PipelineState::<PAIR_STAGES>::new();
            let mut acc = 0.0f32;
            for k in 0..count {
                if k % 2 == 0 {
                    even.consumer_wait(&state_a);
                    let stage = ring_a.add(state_a.index() as usize * TILE_FLOATS);
                    for row in 0..ROWS {
                        acc += *stage.add(row * COLS + tid as usize);
                    }
                    even.consumer_release(&state_a);
                    state_a.advance();
                } else {
                    odd.consumer_wait(&state_b);
                    let stage = ring_b.add(state_b.index() as usize * TILE_FLOATS);
                    for row in 0..ROWS {
                        acc += *stage.add(row * COLS + tid as usize);
                    }
                    even.consumer_release(&state_b);
                    state_b.advance();
                }
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state_a = PipelineState::<PAIR_STAGES>::producer_start();
            let mut state_b = PipelineState::<PAIR_STAGES>::producer_start();
            for k in 0..count {
                let source = input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8;
                if k % 2 == 0 {
                    even.producer_acquire(&state_a);
                    even.producer_expect_tx(&state_a, TILE_BYTES);
                    bulk_copy_global_to_shared(
                        window + state_a.index() * TILE_BYTES,
                        source,
                        TILE_BYTES,
                        even.producer_barrier(&state_a),
                    );
                    state_a.advance();
                } else {
                    odd.producer_acquire(&state_b);
                    odd.producer_expect_tx(&state_b, TILE_BYTES);
                    bulk_copy_global_to_shared(
                        window + RING_B + state_b.index() * TILE_BYTES,
                        source,
                        TILE_BYTES,
                        odd.producer_barrier(&state_b),
                    );
                    state_b.advance();
                }
            }
            even.producer_tail(state_a);
            odd.producer_tail(state_b);
        }
    }
}

/// Split rings: four stages of half a tile each.
const HALF_STAGES: u32 = 4;
const HALF_BYTES: u32 = TILE_BYTES / 2;
const HALF_FLOATS: usize = TILE_FLOATS / 2;
/// Ring of top halves at 0, of bottom halves at 2 KiB, then the two sets of barriers.
const BOTTOM_RING: u32 = HALF_STAGES * HALF_BYTES;
const TOP_BARRIERS: u32 = 2 * HALF_STAGES * HALF_BYTES;
const BOTTOM_BARRIERS: u32 = TOP_BARRIERS + 16 * HALF_STAGES;

/// Rows 0-3 of each tile travel through one pipeline, rows 4-7 through another.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_two_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let top = if tid == 0 {
        Pipeline::<HALF_STAGES>::init(window + TOP_BARRIERS, WARP)
    } else {
        Pipeline::<HALF_STAGES>::attach(window + TOP_BARRIERS)
    };
    let bottom = if tid == 0 {
        Pipeline::<HALF_STAGES>::init(window + BOTTOM_BARRIERS, WARP)
    } else {
        Pipeline::<HALF_STAGES>::attach(window + BOTTOM_BARRIERS)
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid == WARP {
            let mut top_state = PipelineState::<HALF_STAGES>::producer_start();
            let mut bottom_state = PipelineState::<HALF_STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                let source = input.add(tile as usize * TILE_FLOATS);
                top.producer_acquire(&top_state);
                top.producer_expect_tx(&top_state, HALF_BYTES);
                bulk_copy_global_to_shared(
                    window + top_state.index() * HALF_BYTES,
                    source as *const u8,
                    HALF_BYTES,
                    top.producer_barrier(&top_state),
                );
                top_state.advance();
                bottom.producer_acquire(&bottom_state);
                bottom.producer_expect_tx(&bottom_state, HALF_BYTES);
                bulk_copy_global_to_shared(
                    window + BOTTOM_RING + bottom_state.index() * HALF_BYTES,
                    source.add(HALF_FLOATS) as *const u8,
                    HALF_BYTES,
                    bottom.producer_barrier(&bottom_state),
                );
                bottom_state.advance();
                tile += grid;
            }
            top.producer_tail(top_state);
            bottom.producer_tail(bottom_state);
        } else if tid < WARP {
            let base = dynamic_shared_base::<f32>();
            let bottom_ring = base.add(BOTTOM_RING as usize / 4);
            let mut top_state = PipelineState::<HALF_STAGES>::new();
            let mut bottom_state = PipelineState::<HALF_STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                top.consumer_wait(&top_state);
                let half = base.add(top_state.index() as usize * HALF_FLOATS);
                for row in 0..ROWS / 2 {
                    acc += *half.add(row * COLS + tid as usize);
                }
                top.consumer_release(&top_state);
                top_state.advance();
                bottom.consumer_wait(&bottom_state);
                let half = bottom_ring.add(bottom_state.index() as usize * HALF_FLOATS);
                for row in 0..ROWS / 2 {
                    acc += *half.add(row * COLS + tid as usize);
                }
                bottom.consumer_release(&bottom_state);
                bottom_state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}

/// The split rings, the producer issuing both halves of a tile together.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_two_split_one_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<HALF_STAGES>::init(window + TOP_BARRIERS, WARP);
        Pipeline::<HALF_STAGES>::init(window + BOTTOM_BARRIERS, WARP);
    }
    barrier();
    let top = Pipeline::<HALF_STAGES>::attach(window + TOP_BARRIERS);
    let bottom = Pipeline::<HALF_STAGES>::attach(window + BOTTOM_BARRIERS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid == WARP {
            let mut top_state = PipelineState::<HALF_STAGES>::producer_start();
            let mut bottom_state = PipelineState::<HALF_STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                let source = input.add(tile as usize * TILE_FLOATS);
                top.producer_acquire(&top_state);
                bottom.producer_acquire(&bottom_state);
                top.producer_expect_tx(&top_state, HALF_BYTES);
                bottom.producer_expect_tx(&bottom_state, HALF_BYTES);
                bulk_copy_global_to_shared(
                    window + top_state.index() * HALF_BYTES,
                    source as *const u8,
                    HALF_BYTES,
                    top.producer_barrier(&top_state),
                );
                bulk_copy_global_to_shared(
                    window + BOTTOM_RING + bottom_state.index() * HALF_BYTES,
                    source.add(HALF_FLOATS) as *const u8,
                    HALF_BYTES,
                    top.producer_barrier(&top_state),
                );
                top_state.advance();
                bottom_state.advance();
                tile += grid;
            }
            top.producer_tail(top_state);
            bottom.producer_tail(bottom_state);
        } else if tid < WARP {
            let base = dynamic_shared_base::<f32>();
            let bottom_ring = base.add(BOTTOM_RING as usize / 4);
            let mut top_state = PipelineState::<HALF_STAGES>::new();
            let mut bottom_state = PipelineState::<HALF_STAGES>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                top.consumer_wait(&top_state);
                bottom.consumer_wait(&bottom_state);
                let upper = base.add(top_state.index() as usize * HALF_FLOATS);
                let lower = bottom_ring.add(bottom_state.index() as usize * HALF_FLOATS);
                for row in 0..ROWS / 2 {
                    acc += *upper.add(row * COLS + tid as usize) + *lower.add(row * COLS + tid as usize);
                }
                top.consumer_release(&top_state);
                bottom.consumer_release(&bottom_state);
                top_state.advance();
                bottom_state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        }
    }
}

/// The alternating rings, the two pipelines and the two states each kept in an array indexed
/// by the tile's parity.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_two_state_array(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<PAIR_STAGES>::init(window + BARRIERS_A, WARP);
        Pipeline::<PAIR_STAGES>::init(window + BARRIERS_B, WARP);
    }
    barrier();
    let pipes = [
        Pipeline::<PAIR_STAGES>::attach(window + BARRIERS_A),
        Pipeline::<PAIR_STAGES>::attach(window + BARRIERS_B),
    ];
    let rings = [0u32, RING_B];
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    unsafe {
        if tid < WARP {
            let base = dynamic_shared_base::<f32>();
            let mut states = [PipelineState::<PAIR_STAGES>::new(); 2];
            let mut acc = 0.0f32;
            for k in 0..count {
                let p = (k % 2) as usize;
                pipes[p].consumer_wait(&states[p]);
                let stage = base.add(rings[p] as usize / 4 + states[p].index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipes[p].consumer_release(&states[p]);
                states[p].advance();
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut states = [PipelineState::<PAIR_STAGES>::producer_start(); 2];
            for k in 0..count {
                let p = (k % 2) as usize;
                pipes[p].producer_acquire(&states[p]);
                pipes[p].producer_expect_tx(&states[p], TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + rings[p] + states[p].index() * TILE_BYTES,
                    input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipes[p].producer_barrier(&states[p]),
                );
                states[p].advance();
            }
            pipes[0].producer_tail(states[0]);
            pipes[1].producer_tail(states[1]);
        }
    }
}

/// The array-of-states kernel, the consumers stepping the other parity's state for the next
/// tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_two_state_array_next(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<PAIR_STAGES>::init(window + BARRIERS_A, WARP);
        Pipeline::<PAIR_STAGES>::init(window + BARRIERS_B, WARP);
    }
    barrier();
    let pipes = [
        Pipeline::<PAIR_STAGES>::attach(window + BARRIERS_A),
        Pipeline::<PAIR_STAGES>::attach(window + BARRIERS_B),
    ];
    let rings = [0u32, RING_B];
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    unsafe {
        if tid < WARP {
            let base = dynamic_shared_base::<f32>();
            let mut states = [PipelineState::<PAIR_STAGES>::new(); 2];
            let mut acc = 0.0f32;
            for k in 0..count {
                let p = (k % 2) as usize;
                pipes[p].consumer_wait(&states[p]);
                let stage = base.add(rings[p] as usize / 4 + states[p].index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipes[p].consumer_release(&states[p]);
                states[(p + 1) % 2].advance();
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut states = [PipelineState::<PAIR_STAGES>::producer_start(); 2];
            for k in 0..count {
                let p = (k % 2) as usize;
                pipes[p].producer_acquire(&states[p]);
                pipes[p].producer_expect_tx(&states[p], TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + rings[p] + states[p].index() * TILE_BYTES,
                    input.add((block + k * grid) as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipes[p].producer_barrier(&states[p]),
                );
                states[p].advance();
            }
            pipes[0].producer_tail(states[0]);
            pipes[1].producer_tail(states[1]);
        }
    }
}
