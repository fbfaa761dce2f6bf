//! JAX Pallas style: a kernel is a grid of steps, and a `BlockSpec` (a block shape and an
//! `index_map` from the grid step to a block index) says which block of the input each step
//! sees. On the pipeline side an `emit_pipeline`-like producer/consumer pair walks the same grid;
//! on the plain side the block is staged into a "VMEM" ref (shared memory) by every thread, and
//! scratch refs live beside it.
//!
//! Launch: 64 threads, 8 blocks, 8192 bytes of dynamic shared memory. The grid of one block is
//! `cdiv(tiles - b, gridDim.x)` steps; step `i` sees tile `b + i * gridDim.x`.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const COLS: u32 = 32;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = TILE_FLOATS * 4;
const RING_BYTES: u32 = STAGES * TILE_BYTES;

/// A block shape and the map from a grid step to the tile the step sees.
#[derive(Clone, Copy)]
struct BlockSpec<F: Fn(u32) -> u32 + Copy> {
    rows: u32,
    cols: u32,
    index_map: F,
}

impl<F: Fn(u32) -> u32 + Copy> BlockSpec<F> {
    #[inline(always)]
    fn block_floats(&self) -> u32 {
        self.rows * self.cols
    }

    #[inline(always)]
    fn block_bytes(&self) -> u32 {
        self.block_floats() * 4
    }

    /// The global source of step `i`'s block.
    #[inline(always)]
    fn src(&self, input: *const f32, i: u32) -> *const f32 {
        // SAFETY: the index map stays below `tiles`, and the input holds `tiles` tiles.
        unsafe { input.add(((self.index_map)(i) * TILE_FLOATS) as usize) }
    }
}

/// Grid steps of this block: `cdiv(tiles - b, g)`, none where `b >= tiles`.
#[inline(always)]
fn grid_steps(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x().max(1);
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

/// The ordinary spec: block `(8, 32)`, step `i` sees tile `b + i * g`.
#[inline(always)]
fn tile_spec() -> BlockSpec<impl Fn(u32) -> u32 + Copy> {
    let b = block_idx_x();
    let g = grid_dim_x();
    BlockSpec { rows: TILE_FLOATS / COLS, cols: COLS, index_map: move |i| b + i * g }
}

/// The sum of column `c` of the block at `block` (rows of 32 floats).
#[inline(always)]
unsafe fn column(block: *const f32, rows: u32, c: u32) -> f32 {
    let mut sum = 0.0;
    let mut r = 0;
    while r < rows {
        sum += *block.add((r * COLS + c) as usize);
        r += 1;
    }
    sum
}

/// `emit_pipeline` over the block's grid: thread 0 copies each step's block into the ring slot
/// of its state, warp 1 sums its column of every block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_pallas_emit_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let spec = tile_spec();
    let steps = grid_steps(tiles);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..steps {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, spec.block_bytes());
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                spec.src(input, i) as *const u8,
                spec.block_bytes(),
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..steps {
            pipe.consumer_wait(&state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), spec.rows, c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// `max_concurrent_steps = 2` on the consumer side: consumers wait for two consecutive steps'
/// stages, read both, then release both (a lone last step when the grid is odd). Holding two
/// stages of a four-stage ring at once is outside the usual wait-read-release order, and fine.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_pallas_concurrent_steps(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let spec = tile_spec();
    let steps = grid_steps(tiles);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..steps {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, spec.block_bytes());
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                spec.src(input, i) as *const u8,
                spec.block_bytes(),
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut i = 0;
        while i < steps {
            let first = state;
            pipe.consumer_wait(&first);
            state.advance();
            let pair = i + 1 < steps;
            if pair {
                pipe.consumer_wait(&state);
            }
            acc += column(ring.add((first.index() * TILE_FLOATS) as usize), spec.rows, c);
            if pair {
                acc += column(ring.add((state.index() * TILE_FLOATS) as usize), spec.rows, c);
            }
            pipe.consumer_release(&first);
            if pair {
                pipe.consumer_release(&state);
                state.advance();
            }
            i += 2;
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// Plain: the step's block is staged into a VMEM ref at byte 0 by all 64 threads; a scratch
/// ref of 32 floats at byte 1024 carries the accumulator across steps (`pl.when(i == 0)`
/// zeroes it, the last step writes the output block). Each lane of warp 0 owns one scratch slot.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_pallas_vmem_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let vmem = dynamic_shared_base::<f32>();
    let scratch = vmem.add(TILE_FLOATS as usize);
    let tid = thread_idx_x();
    let spec = tile_spec();
    let steps = grid_steps(tiles);
    if tid < 32 {
        *scratch.add(tid as usize) = 0.0;
    }
    for i in 0..steps {
        let src = spec.src(input, i);
        for k in 0..4u32 {
            let e = (tid + k * THREADS) as usize;
            *vmem.add(e) = *src.add(e);
        }
        barrier();
        if tid < 32 {
            *scratch.add(tid as usize) += column(vmem, spec.rows, tid);
        }
        barrier();
    }
    if tid < 32 {
        *out.add((block_idx_x() * COLS + tid) as usize) = *scratch.add(tid as usize);
    }
}

/// Plain: the grid walked backwards (`index_map = |i| b + (steps - 1 - i) * g`); both warps
/// sum half of each staged block (warp `w` rows `4w..4w+4`), and the halves meet in a scratch
/// ref after the block at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_pallas_reversed_grid(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let vmem = dynamic_shared_base::<f32>();
    let halves = vmem.add(TILE_FLOATS as usize);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let steps = grid_steps(tiles);
    let spec = BlockSpec { rows: 4, cols: COLS, index_map: move |i: u32| b + (steps - 1 - i) * g };
    let w = tid / 32;
    let c = tid % 32;
    let mut acc = 0.0f32;
    for i in 0..steps {
        let src = spec.src(input, i);
        for k in 0..4u32 {
            let e = (tid + k * THREADS) as usize;
            *vmem.add(e) = *src.add(e);
        }
        barrier();
        acc += column(vmem.add((w * spec.block_floats()) as usize), spec.rows, c);
        barrier();
    }
    *halves.add(tid as usize) = acc;
    barrier();
    if tid < 32 {
        *out.add((b * COLS + tid) as usize) = *halves.add(tid as usize) + *halves.add(tid as usize + 32);
    }
}

/// BROKEN: the consumers' grid is `tiles / g + 1` steps, a cdiv written as floor-plus-one: with
/// 64 tiles over 8 blocks they wait for a ninth block the producer never copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_pallas_bad_grid_ceil(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let spec = tile_spec();
    if tid == 0 {
        let steps = grid_steps(tiles);
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..steps {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, spec.block_bytes());
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                spec.src(input, i) as *const u8,
                spec.block_bytes(),
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let steps = tiles / grid_dim_x().max(1) + 1;
        let c = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..steps {
            pipe.consumer_wait(&state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), spec.rows, c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// BROKEN: the copy's slot is taken from the index map (`tile % STAGES`) instead of the
/// producer's state: every tile of a block is `b + 8i`, so every copy lands in slot `b % 4`
/// while the consumers read the slot of their state.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_pallas_bad_index_map_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let spec = tile_spec();
    let steps = grid_steps(tiles);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..steps {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, spec.block_bytes());
            let slot = (spec.index_map)(i) % STAGES;
            bulk_copy_global_to_shared(
                window + slot * TILE_BYTES,
                spec.src(input, i) as *const u8,
                spec.block_bytes(),
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = tid - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..steps {
            pipe.consumer_wait(&state);
            acc += column(ring.add((state.index() * TILE_FLOATS) as usize), spec.rows, c);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLS + c) as usize) = acc;
    }
}

/// BROKEN: double-buffered VMEM refs where the next step's block is staged into slot `i & 1`,
/// the slot warp 0 is reading in the same interval, instead of `(i + 1) & 1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_pallas_bad_double_buffer_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let vmem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let spec = tile_spec();
    let steps = grid_steps(tiles);
    let mut acc = 0.0f32;
    if steps > 0 {
        let src = spec.src(input, 0);
        for k in 0..4u32 {
            let e = (tid + k * THREADS) as usize;
            *vmem.add(e) = *src.add(e);
        }
    }
    barrier();
    for i in 0..steps {
        if i + 1 < steps {
            let src = spec.src(input, i + 1);
            let next = vmem.add(((i & 1) * TILE_FLOATS) as usize);
            for k in 0..4u32 {
                let e = (tid + k * THREADS) as usize;
                *next.add(e) = *src.add(e);
            }
        }
        if tid < 32 {
            acc += column(vmem.add(((i & 1) * TILE_FLOATS) as usize), spec.rows, tid);
        }
        barrier();
    }
    if tid < 32 {
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the block shape's rows are counted inclusively (`TILE_FLOATS / COLS + 1` = 9); the
/// VMEM block sits at the top of the window (byte 7168), so the ninth row read is bytes
/// 8192.. past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_pallas_bad_block_nine_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let vmem = dynamic_shared_base::<f32>().add(((WINDOW_BYTES - TILE_BYTES) / 4) as usize);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let spec = BlockSpec { rows: TILE_FLOATS / COLS + 1, cols: COLS, index_map: move |i: u32| b + i * g };
    let steps = grid_steps(tiles);
    let mut acc = 0.0f32;
    for i in 0..steps {
        let src = spec.src(input, i);
        for k in 0..4u32 {
            let e = (tid + k * THREADS) as usize;
            *vmem.add(e) = *src.add(e);
        }
        barrier();
        if tid < 32 {
            acc += column(vmem, spec.rows, tid);
        }
        barrier();
    }
    if tid < 32 {
        *out.add((b * COLS + tid) as usize) = acc;
    }
}
