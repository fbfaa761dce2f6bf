//! Const generics and traits: ring depth and stage size as parameters, a flaw selector folded
//! per instance, column readers as trait impls, layouts as associated consts, `unrolled!`.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;

const NO_FLAW: u32 = 0;
const FLAW_CONSUMERS_COUNT_TILES: u32 = 1;
const FLAW_EXPECT_TILE_BYTES: u32 = 2;
const FLAW_ROWS_SHIFTED: u32 = 3;

/// A stage holds `ROWS` rows (`ROWS * 32` floats); a tile is `8 / ROWS` consecutive chunks.
#[inline(always)]
unsafe fn chunked<const N: u32, const ROWS: usize, const FLAW: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let chunk_floats: usize = ROWS * 32;
    let chunk_bytes: u32 = (ROWS * 128) as u32;
    let per: u32 = (8 / ROWS) as u32;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + N * chunk_bytes;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = (tiles + grid - 1 - block) / grid;
    let chunks = mine * per;
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        let mut j = 0u32;
        while j < chunks {
            let t = block + (j / per) * grid;
            let part = (j % per) as usize;
            let src = input.add(t as usize * TILE_FLOATS + part * chunk_floats);
            let announced = if FLAW == FLAW_EXPECT_TILE_BYTES { TILE_BYTES } else { chunk_bytes };
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, announced);
            bulk_copy_global_to_shared(window + state.index() * chunk_bytes, src.cast(), chunk_bytes, pipe.producer_barrier(&state));
            state.advance();
            j += 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let limit = if FLAW == FLAW_CONSUMERS_COUNT_TILES { mine } else { chunks };
        let shift = if FLAW == FLAW_ROWS_SHIFTED { 32 } else { 0 };
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut j = 0u32;
        while j < limit {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * chunk_floats);
            for r in 0..ROWS {
                acc += *stage.add(shift + r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            j += 1;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_eight_half_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    chunked::<8, 4, NO_FLAW>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_six_quarter_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    chunked::<6, 2, NO_FLAW>(input, tiles, out);
}

trait ColumnReader {
    unsafe fn read(stage: *const f32, col: usize) -> f32;
}

struct Forward;
struct Backward;
struct Transposed;

impl ColumnReader for Forward {
    #[inline(always)]
    unsafe fn read(stage: *const f32, col: usize) -> f32 {
        let mut s = 0.0f32;
        for r in 0..8usize {
            s += *stage.add(r * 32 + col);
        }
        s
    }
}

impl ColumnReader for Backward {
    #[inline(always)]
    unsafe fn read(stage: *const f32, col: usize) -> f32 {
        let mut s = 0.0f32;
        for r in (0..8usize).rev() {
            s += *stage.add(r * 32 + col);
        }
        s
    }
}

impl ColumnReader for Transposed {
    #[inline(always)]
    unsafe fn read(stage: *const f32, col: usize) -> f32 {
        // Reads a run of 8 consecutive floats: the tile taken as 32 rows of 8.
        let mut s = 0.0f32;
        for r in 0..8usize {
            s += *stage.add(col * 8 + r);
        }
        s
    }
}

#[inline(always)]
unsafe fn with_reader<R: ColumnReader, const N: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + N * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += R::read(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_reader_forward(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    with_reader::<Forward, 4>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_reader_backward(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    with_reader::<Backward, 2>(input, tiles, out);
}

/// Rows written out with the device API's `unrolled!`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_unrolled_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 3;
    const ROWS: usize = 8;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + N * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            unrolled!(R < ROWS => {
                acc += *stage.add(R * 32 + c);
            });
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

const fn align_up(x: u32, a: u32) -> u32 {
    (x + a - 1) / a * a
}

struct Layout<const N: u32>;

impl<const N: u32> Layout<N> {
    const BARS: u32 = 0;
    const RING: u32 = align_up(pipeline_barrier_bytes(N), 128);
}

#[inline(always)]
unsafe fn laid_out<const N: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let bars = window + Layout::<N>::BARS;
    let ring_window = window + Layout::<N>::RING;
    let ring = dynamic_shared_base::<f32>().add(Layout::<N>::RING as usize / 4);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(ring_window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += Forward::read(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Barriers at byte 0, the ring at the next 128-byte boundary (associated consts of Layout<5>).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_assoc_const_layout(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    laid_out::<5>(input, tiles, out);
}

// ---------------------------------------------------------------- broken

/// Broken: half-tile stages, but the consumers count tiles (8) instead of chunks (16).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_bad_consumers_count_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    chunked::<8, 4, FLAW_CONSUMERS_COUNT_TILES>(input, tiles, out);
}

/// Broken: quarter-tile stages announced with a whole tile's bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_bad_expect_tile_for_chunk(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    chunked::<6, 2, FLAW_EXPECT_TILE_BYTES>(input, tiles, out);
}

/// Broken: the chunk's rows are read one row late, the last one from the next stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_bad_rows_shifted_into_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    chunked::<8, 4, FLAW_ROWS_SHIFTED>(input, tiles, out);
}

/// Broken: Layout<8> puts eight 1 KiB stages after 128 bytes of barriers, ending at byte 8320.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_bad_eight_stages_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    laid_out::<8>(input, tiles, out);
}

/// Broken: the reader impl sums 8 consecutive floats (`col * 8 + r`) instead of a column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_bad_reader_transposed(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    with_reader::<Transposed, 4>(input, tiles, out);
}

/// Broken: the consumers attach the four-stage barriers as a three-stage pipeline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_gen_bad_consumer_depth_three(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 4;
    const M: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + N * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let pipe = Pipeline::<N>::attach(bars);
        let mut state = PipelineState::<N>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let pipe = Pipeline::<M>::attach(bars);
        let mut state = PipelineState::<M>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += Forward::read(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}
