//! Persona: the library author. One generic pipelined column sum parameterised by const
//! generics (stages, stage stride, ring and barrier offsets, producer thread), generic producer
//! and consumer loops, and a trait for what a consumer does with a stage.

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;

/// The whole kernel, generic: `S` stages `STRIDE` bytes apart from byte `RING` of dynamic
/// shared memory, barriers at byte `BARRIERS`, thread `PRODUCER` produces and the warp that
/// does not hold it consumes.
#[inline(always)]
unsafe fn column_sums<const S: u32, const STRIDE: u32, const RING: u32, const BARRIERS: u32, const PRODUCER: u32>(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().wrapping_add((RING / 4) as usize);
    if tid == PRODUCER {
        Pipeline::<S>::init(window + BARRIERS, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARRIERS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let consumer_warp = 1 - PRODUCER / 32;
    if tid == PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * STRIDE,
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid / 32 == consumer_warp {
        let column = tid % 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add((state.index() * STRIDE / 4) as usize);
            for row in 0..8u32 {
                // SAFETY: after the wait; inside the ring.
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

/// Three stages at offset 256, barriers at offset 0, thread 5 produces, warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ge_three_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    unsafe { column_sums::<3, TILE_BYTES, 256, 0, 5>(input, tiles, out) }
}

/// Five stages at offset 0, barriers after them, thread 40 produces, warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ge_five_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    unsafe { column_sums::<5, TILE_BYTES, 0, { 5 * TILE_BYTES }, 40>(input, tiles, out) }
}

/// BROKEN: the stage stride is given as 512 bytes (half a tile, a leftover from a half-tile
/// variant) while every copy brings a whole tile: each copy spills into the next stage, which
/// may still hold a tile the consumers are reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ge_stride_half_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    unsafe { column_sums::<4, 512, 0, { 4 * TILE_BYTES }, 0>(input, tiles, out) }
}

/// What a consumer does with a full stage.
trait TileReducer {
    /// Reads what it needs from the stage (between wait and release).
    unsafe fn absorb(&mut self, stage: *const f32);
    /// Writes its result for `block`.
    unsafe fn emit(&self, out: *mut f32, block: u32);
}

struct ColumnSum {
    column: u32,
    acc: f32,
}

impl TileReducer for ColumnSum {
    #[inline(always)]
    unsafe fn absorb(&mut self, stage: *const f32) {
        let mut row = 0u32;
        while row < 8 {
            // SAFETY: the caller holds the stage.
            self.acc += unsafe { *stage.add((row * 32 + self.column) as usize) };
            row += 1;
        }
    }

    #[inline(always)]
    unsafe fn emit(&self, out: *mut f32, block: u32) {
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + self.column) as usize) = self.acc };
    }
}

/// Half of a column: thread `2c + h` sums rows `h, h + 2, …` of column `c`; the pair meets in
/// shared scratch outside the ring, so `emit` writes nothing.
struct HalfColumn {
    column: u32,
    parity: u32,
    acc: f32,
}

impl TileReducer for HalfColumn {
    #[inline(always)]
    unsafe fn absorb(&mut self, stage: *const f32) {
        let mut row = self.parity;
        while row < 8 {
            // SAFETY: the caller holds the stage.
            self.acc += unsafe { *stage.add((row * 32 + self.column) as usize) };
            row += 2;
        }
    }

    #[inline(always)]
    unsafe fn emit(&self, out: *mut f32, block: u32) {
        let _ = (out, block);
    }
}

#[inline(always)]
unsafe fn produce_all<const S: u32>(pipe: &Pipeline<S>, ring_window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring_window + state.index() * TILE_BYTES,
            input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(state);
}

#[inline(always)]
unsafe fn consume_all<const S: u32, R: TileReducer>(pipe: &Pipeline<S>, ring: *const f32, tiles: u32, reducer: &mut R) {
    let mut state = PipelineState::<S>::new();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        // SAFETY: between wait and release.
        unsafe { reducer.absorb(ring.wrapping_add((state.index() * TILE_FLOATS) as usize)) };
        pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
}

/// Generic producer and consumer loops; the consumer's work is a `TileReducer` (`ColumnSum`).
/// Four stages at offset 0, barriers at 4096; thread 0 produces, warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ge_trait_column_sum(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    if tid == 0 {
        unsafe { produce_all(&pipe, window, input, tiles) };
    } else if tid >= 32 {
        let mut reducer = ColumnSum { column: tid - 32, acc: 0.0 };
        unsafe {
            consume_all(&pipe, dynamic_shared_base::<f32>(), tiles, &mut reducer);
            reducer.emit(out, block_idx_x());
        }
    }
}

/// Generic loops again, 63 consumers: threads `2c` and `2c + 1` (c < 31) share column `c`
/// through `HalfColumn` and meet in scratch; thread 62 sums column 31 alone (`ColumnSum`);
/// thread 63 produces. Empty barriers count 63.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ge_trait_pairs_and_single(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    const CONSUMERS: u32 = 63;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    // Barriers at 0 (32 bytes), scratch of 64 floats at 256, ring at 1024.
    let barriers = window;
    let scratch = smem.wrapping_add(64);
    let ring = smem.wrapping_add(256);
    if tid == 63 {
        Pipeline::<S>::init(barriers, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    if tid == 63 {
        unsafe { produce_all(&pipe, window + 1024, input, tiles) };
    } else if tid == 62 {
        let mut reducer = ColumnSum { column: 31, acc: 0.0 };
        unsafe {
            consume_all(&pipe, ring, tiles, &mut reducer);
            reducer.emit(out, block);
        }
    } else {
        let mut reducer = HalfColumn { column: tid / 2, parity: tid % 2, acc: 0.0 };
        unsafe {
            consume_all(&pipe, ring, tiles, &mut reducer);
            *scratch.add(tid as usize) = reducer.acc;
        }
    }
    barrier();
    if tid < 31 {
        unsafe { *out.add((block * 32 + tid) as usize) = *scratch.add(2 * tid as usize) + *scratch.add(2 * tid as usize + 1) };
    }
}

/// BROKEN: the stage count lives in two constants, one per role, and only the producer's was
/// raised to 4: the consumers see a 3-stage pipeline on the 4-stage barriers (their empty
/// barriers are shifted onto `full[3]`, `empty[0]`, `empty[1]`, and they never read stage 3).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ge_role_stage_constants_differ(input: *const f32, tiles: u32, out: *mut f32) {
    const PRODUCER_STAGES: u32 = 4;
    const CONSUMER_STAGES: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let barriers = window + 4096;
    if tid == 0 {
        Pipeline::<PRODUCER_STAGES>::init(barriers, 32);
    }
    barrier();
    if tid == 0 {
        let pipe = Pipeline::<PRODUCER_STAGES>::attach(barriers);
        unsafe { produce_all(&pipe, window, input, tiles) };
    } else if tid >= 32 {
        let pipe = Pipeline::<CONSUMER_STAGES>::attach(barriers);
        let mut reducer = ColumnSum { column: tid - 32, acc: 0.0 };
        unsafe {
            consume_all(&pipe, dynamic_shared_base::<f32>(), tiles, &mut reducer);
            reducer.emit(out, block_idx_x());
        }
    }
}
