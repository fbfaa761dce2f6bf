//! Pipeline kernels written generically: a body generic over the stage count, and roles as
//! implementations of a trait.

use crate::common::*;
use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

/// The whole kernel for a ring of `S` one-tile stages at the window's start, its barriers
/// right after the ring.
#[inline(always)]
unsafe fn ring_sum<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<S>::init(barriers, WARP) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    unsafe {
        if tid < WARP {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    acc += *stage.add(row * COLS + tid as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * WARP + tid) as usize) = acc;
        } else if tid == WARP {
            let mut state = PipelineState::<S>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        }
    }
}

/// `ring_sum` with two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_gen_stages_2(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    unsafe { ring_sum::<2>(input, tiles, out) }
}

/// `ring_sum` with six stages (6 KiB of ring, 96 bytes of barriers).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_gen_stages_6(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    unsafe { ring_sum::<6>(input, tiles, out) }
}

/// `ring_sum` with eight stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_gen_stages_8(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    unsafe { ring_sum::<8>(input, tiles, out) }
}

const STAGES: u32 = 4;
const BARRIER_OFFSET: u32 = STAGES * TILE_BYTES;

/// What a thread does in the block, given the block's tile count.
trait Role {
    unsafe fn run(self, count: u32);
}

struct Loader {
    pipe: Pipeline<STAGES>,
    window: u32,
    input: *const f32,
    first: u32,
    step: u32,
}

impl Role for Loader {
    #[inline(always)]
    unsafe fn run(self, count: u32) {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..count {
            let tile = self.first + k * self.step;
            self.pipe.producer_acquire(&state);
            self.pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                self.window + state.index() * TILE_BYTES,
                unsafe { self.input.add(tile as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                self.pipe.producer_barrier(&state),
            );
            state.advance();
        }
        self.pipe.producer_tail(state);
    }
}

struct Summer {
    pipe: Pipeline<STAGES>,
    ring: *const f32,
    column: usize,
    out: *mut f32,
}

impl Role for Summer {
    #[inline(always)]
    unsafe fn run(self, count: u32) {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..count {
            self.pipe.consumer_wait(&state);
            let stage = unsafe { self.ring.add(state.index() as usize * TILE_FLOATS) };
            for row in 0..ROWS {
                acc += unsafe { *stage.add(row * COLS + self.column) };
            }
            self.pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *self.out = acc };
    }
}

#[inline(always)]
unsafe fn play<R: Role>(role: R, count: u32) {
    unsafe { role.run(count) }
}

/// Producer and consumers as two implementations of `Role`, run through one generic function.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_trait_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, WARP);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    unsafe {
        if tid < WARP {
            let summer = Summer {
                pipe,
                ring: dynamic_shared_base::<f32>(),
                column: tid as usize,
                out: out.add((block * WARP + tid) as usize),
            };
            play(summer, count);
        } else if tid == WARP {
            play(Loader { pipe, window, input, first: block, step: grid }, count);
        }
    }
}

/// How many threads sit in a seat of the block.
trait Seat {
    const THREADS: u32;
}

struct ProducerSeat;
struct ConsumerSeat;

impl Seat for ProducerSeat {
    const THREADS: u32 = 1;
}

impl Seat for ConsumerSeat {
    const THREADS: u32 = WARP;
}

/// The release count comes from the seats: every thread but the producer's.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r17_trait_seat_arrivals(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(BLOCK);
    launch::dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + BARRIER_OFFSET;
    if tid == 0 {
        Pipeline::<STAGES>::init(barriers, BLOCK - ProducerSeat::THREADS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = owned_tiles(tiles, block, grid);
    unsafe {
        if tid < ConsumerSeat::THREADS {
            let summer = Summer {
                pipe,
                ring: dynamic_shared_base::<f32>(),
                column: tid as usize,
                out: out.add((block * WARP + tid) as usize),
            };
            play(summer, count);
        } else if tid == ConsumerSeat::THREADS {
            play(Loader { pipe, window, input, first: block, step: grid }, count);
        }
    }
}
