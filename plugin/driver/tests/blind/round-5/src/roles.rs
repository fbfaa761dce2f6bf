//! Persona: the warp-specialisation author. Roles are chosen by `match`, ranges, lanes and
//! warps; consumer groups of different widths (8, 16, 32 threads) split the columns.

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::row::FourFloats;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;

#[derive(Clone, Copy)]
enum Role {
    Producer,
    Consumer { column: u32 },
    Idle,
}

#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        0 => Role::Producer,
        32..=63 => Role::Consumer { column: tid - 32 },
        _ => Role::Idle,
    }
}

/// Roles from an enum: thread 0 produces, warp 1 consumes, the rest of warp 0 idles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ro_enum_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let mut state = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.wrapping_add((state.index() * TILE_FLOATS) as usize);
                for row in 0..8u32 {
                    // SAFETY: after the wait; in bounds of the stage.
                    acc += unsafe { *stage.add((row * 32 + column) as usize) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            // SAFETY: 32 outputs per block.
            unsafe { *out.add((block * 32 + column) as usize) = acc };
        }
        Role::Idle => {}
    }
}

/// Sixteen consumers (threads 16..32), two adjacent columns each; the empty barriers count 16.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ro_sixteen_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const CONSUMERS: u32 = 16;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 16 && tid < 32 {
        let first = 2 * (tid - 16);
        let mut state = PipelineState::<S>::new();
        let (mut even, mut odd) = (0.0f32, 0.0f32);
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add((state.index() * TILE_FLOATS) as usize);
            for row in 0..8u32 {
                // SAFETY: after the wait; in bounds of the stage.
                unsafe {
                    even += *stage.add((row * 32 + first) as usize);
                    odd += *stage.add((row * 32 + first + 1) as usize);
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe {
            *out.add((block * 32 + first) as usize) = even;
            *out.add((block * 32 + first + 1) as usize) = odd;
        }
    }
}

/// Eight consumers (lanes 8..16 of warp 1) each read four adjacent columns with one 16-byte
/// load per row; thread 1 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ro_vec4_eight_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    const CONSUMERS: u32 = 8;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 1 {
        Pipeline::<S>::init(barriers, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 1 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 && lane_id() >= 8 && lane_id() < 16 {
        let quad = lane_id() - 8;
        let mut state = PipelineState::<S>::new();
        let mut acc = [0.0f32; 4];
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add((state.index() * TILE_FLOATS) as usize);
            for row in 0..8u32 {
                // SAFETY: 16-byte aligned (stage and row are multiples of 16 bytes, 4·quad floats).
                let four = unsafe { *(stage.add((row * 32 + 4 * quad) as usize) as *const FourFloats) };
                for k in 0..4 {
                    acc[k] += four.0[k];
                }
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // `out` is only 4-byte aligned by the contract: four scalar stores.
        for (k, value) in acc.iter().enumerate() {
            // SAFETY: 32 outputs per block.
            unsafe { *out.add((block * 32 + 4 * quad) as usize + k) = *value };
        }
    }
}

/// Six stages; consumers chosen with `matches!(tid, 32..=63)`, the producer as "lane 0 of
/// warp 0".
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ro_matches_range(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 6;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    let is_producer = warp_id() == 0 && lane_id() == 0;
    if is_producer {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if is_producer {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    }
    if matches!(tid, 32..=63) {
        let column = tid & 31;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add((state.index() * TILE_FLOATS) as usize);
            let mut row = 0;
            while row < 8 {
                // SAFETY: after the wait; in bounds of the stage.
                acc += unsafe { *stage.add((row * 32 + column) as usize) };
                row += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// BROKEN: "the first thread" written as `tid < 2`: two producer threads each arrive on every
/// full barrier (initialised for one arrival) and copy every tile again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ro_two_producers(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid < 2 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add((state.index() * TILE_FLOATS) as usize);
            for row in 0..8u32 {
                // SAFETY: in bounds of the stage.
                acc += unsafe { *stage.add((row * 32 + column) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// BROKEN: consumers are `tid >= 31` (an off-by-one in the warp boundary): 33 threads release
/// barriers initialised for 32, so each empty phase completes before the last consumer is done
/// and the surplus arrival counts toward the next phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ro_thirty_three_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 31 {
        let column = tid % 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add((state.index() * TILE_FLOATS) as usize);
            for row in 0..8u32 {
                // SAFETY: in bounds of the stage.
                acc += unsafe { *stage.add((row * 32 + column) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block (threads 31 and 63 both write column 31).
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// BROKEN: on the block's last tile the consumers write their result and `return` straight
/// from the loop, before releasing the stage: the producer's tail waits for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ro_last_tile_return(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let dst = out.wrapping_add((block * 32 + column) as usize);
            // SAFETY: 32 outputs per block; a block without tiles writes 0.
            unsafe { *dst = 0.0 };
            let mut state = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.wrapping_add((state.index() * TILE_FLOATS) as usize);
                for row in 0..8u32 {
                    // SAFETY: in bounds of the stage.
                    acc += unsafe { *stage.add((row * 32 + column) as usize) };
                }
                if t + grid >= tiles {
                    // SAFETY: as above.
                    unsafe { *dst = acc };
                    return;
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
        }
        Role::Idle => {}
    }
}

/// BROKEN: only lane 0 of the consumer warp releases ("one arrival per warp"), but the empty
/// barriers were initialised for 32 arrivals: after the first round the producer waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ro_release_lane0_only(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id();
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.wrapping_add((state.index() * TILE_FLOATS) as usize);
            for row in 0..8u32 {
                // SAFETY: in bounds of the stage.
                acc += unsafe { *stage.add((row * 32 + column) as usize) };
            }
            if lane_id() == 0 {
                pipe.consumer_release(&state);
            }
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// BROKEN: the consumer advances twice per tile (once in the loop body, once more in a
/// "step" at the end that the author copied from the producer): it skips every other stage,
/// reads tiles out of order and leaves odd stages unreleased; the producer hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ro_consumer_double_advance(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let mut state = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.wrapping_add((state.index() * TILE_FLOATS) as usize);
                for row in 0..8u32 {
                    // SAFETY: in bounds of the stage.
                    acc += unsafe { *stage.add((row * 32 + column) as usize) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
                state.advance();
            }
            // SAFETY: 32 outputs per block.
            unsafe { *out.add((block * 32 + column) as usize) = acc };
        }
        Role::Idle => {}
    }
}
