//! Column sums written by C++ programmers who think in the STL: half-open `[first, last)`
//! ranges of iterators, an iterator type with `operator*`, `operator++` and `==`, `std::next`,
//! and free algorithms named after `<algorithm>`/`<numeric>` (`accumulate`, `copy_n`,
//! `for_each_n`, `fill_n`) instead of index loops.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const TILE_FLOATS: usize = COLUMNS * ROWS;
const TILE_BYTES: u32 = (TILE_FLOATS * size_of::<f32>()) as u32;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const RING_BYTE: u32 = 128; // barriers at byte 0, the ring at byte 128

/// A random-access iterator over floats `stride` apart (a column of a row-major tile).
#[derive(Clone, Copy, PartialEq)]
struct StrideIterator {
    ptr: *const f32,
    stride: usize,
}

impl StrideIterator {
    #[inline(always)]
    fn new(ptr: *const f32, stride: usize) -> StrideIterator {
        StrideIterator { ptr, stride }
    }

    /// `*it`
    #[inline(always)]
    unsafe fn deref(&self) -> f32 {
        *self.ptr
    }

    /// `++it`
    #[inline(always)]
    unsafe fn increment(&mut self) {
        self.ptr = self.ptr.add(self.stride);
    }

    /// `std::next(it, n)`
    #[inline(always)]
    unsafe fn next(self, n: usize) -> StrideIterator {
        StrideIterator { ptr: self.ptr.add(n * self.stride), stride: self.stride }
    }
}

/// `std::accumulate(first, last, init)`
#[inline(always)]
unsafe fn accumulate(mut first: StrideIterator, last: StrideIterator, mut init: f32) -> f32 {
    while first != last {
        init += first.deref();
        first.increment();
    }
    init
}

/// `std::accumulate` over a contiguous range of pointers.
#[inline(always)]
unsafe fn accumulate_contiguous(mut first: *const f32, last: *const f32, mut init: f32) -> f32 {
    while first != last {
        init += *first;
        first = first.add(1);
    }
    init
}

/// `std::copy_n(first, n, d_first)`: returns the end of the destination range.
#[inline(always)]
unsafe fn copy_n(mut first: StrideIterator, n: usize, mut d_first: *mut f32) -> *mut f32 {
    for _ in 0..n {
        *d_first = first.deref();
        d_first = d_first.add(1);
        first.increment();
    }
    d_first
}

/// An iterator over tile numbers `step` apart, the grid-stride walk of one block.
#[derive(Clone, Copy, PartialEq)]
struct TileIterator {
    tile: u32,
    step: u32,
}

/// `std::for_each_n(first, n, f)`
#[inline(always)]
fn for_each_n(mut first: TileIterator, n: u32, mut f: impl FnMut(u32)) -> TileIterator {
    for _ in 0..n {
        f(first.tile);
        first.tile += first.step;
    }
    first
}

/// How many of `first, first + step, …` lie in `[first, last)`.
#[inline(always)]
fn count_strided(first: u32, last: u32, step: u32) -> u32 {
    if first < last { (last - first).div_ceil(step) } else { 0 }
}

#[inline(always)]
fn init_pipeline() -> Pipeline<STAGES> {
    let barriers = dynamic_shared_window_address();
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barriers, CONSUMERS);
    }
    barrier();
    Pipeline::<STAGES>::attach(barriers)
}

/// `stage(ring, i)`: the first float of stage `i`.
#[inline(always)]
unsafe fn stage_begin(index: u32) -> *const f32 {
    dynamic_shared_base::<f32>().add(RING_BYTE as usize / 4 + index as usize * TILE_FLOATS)
}

/// The consumers sum their column with `std::accumulate(first, std::next(first, ROWS), sum)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_stl_accumulate_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let pipe = init_pipeline();
    let ring = dynamic_shared_window_address() + RING_BYTE;
    let tid = thread_idx_x();
    let (first_tile, step) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first_tile;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.add(tile as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, source.cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = first_tile;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let first = StrideIterator::new(stage_begin(state.index()).add(column), COLUMNS);
            sum = accumulate(first, first.next(ROWS), sum);
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        *out.add(first_tile as usize * COLUMNS + column) = sum;
    }
}

/// The consumers `copy_n` their column into a `std::array<float, 8>` in registers, release the
/// stage, then `accumulate(begin(column), end(column))`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_stl_copy_n_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let pipe = init_pipeline();
    let ring = dynamic_shared_window_address() + RING_BYTE;
    let tid = thread_idx_x();
    let (first_tile, step) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first_tile;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = first_tile;
        while tile < tiles {
            let mut values = [0.0f32; ROWS];
            pipe.consumer_wait(&state);
            copy_n(StrideIterator::new(stage_begin(state.index()).add(column), COLUMNS), ROWS, values.as_mut_ptr());
            pipe.consumer_release(&state);
            state.advance();
            sum = accumulate_contiguous(values.as_ptr(), values.as_ptr().add(ROWS), sum);
            tile += step;
        }
        *out.add(first_tile as usize * COLUMNS + column) = sum;
    }
}

/// Both roles walk the block's tiles with `for_each_n(TileIterator{first, grid}, n, …)`, `n`
/// counted once from the half-open range `[block, tiles)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_stl_for_each_n(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let pipe = init_pipeline();
    let ring = dynamic_shared_window_address() + RING_BYTE;
    let tid = thread_idx_x();
    let begin = TileIterator { tile: block_idx_x(), step: grid_dim_x() };
    let n = count_strided(begin.tile, tiles, begin.step);

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for_each_n(begin, n, |tile| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for_each_n(begin, n, |_| {
            pipe.consumer_wait(&state);
            let first = StrideIterator::new(stage_begin(state.index()).add(column), COLUMNS);
            sum = accumulate(first, first.next(ROWS), sum);
            pipe.consumer_release(&state);
            state.advance();
        });
        *out.add(begin.tile as usize * COLUMNS + column) = sum;
    }
}

/// No pipeline: each thread `copy_n`s four consecutive floats of the tile into shared memory,
/// a barrier, each thread accumulates half a column (four rows), and the two halves are
/// combined through a scratch array after the last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_stl_partial_sums(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tile_buffer = dynamic_shared_base::<f32>();
    let scratch = tile_buffer.add(TILE_FLOATS);
    let tid = thread_idx_x() as usize;
    let (lane, half) = (tid % COLUMNS, tid / COLUMNS);
    let chunk = TILE_FLOATS / BLOCK_THREADS as usize;
    let mut partial = 0.0f32;

    let mut tile = block_idx_x();
    while tile < tiles {
        let source = input.add(tile as usize * TILE_FLOATS + tid * chunk);
        copy_n(StrideIterator::new(source, 1), chunk, tile_buffer.add(tid * chunk));
        barrier();
        let first = StrideIterator::new(tile_buffer.add(half * (ROWS / 2) * COLUMNS + lane), COLUMNS);
        partial = accumulate(first, first.next(ROWS / 2), partial);
        barrier();
        tile += grid_dim_x();
    }

    *scratch.add(half * COLUMNS + lane) = partial;
    barrier();
    if half == 0 {
        let first = StrideIterator::new(scratch.add(lane), COLUMNS);
        *out.add(block_idx_x() as usize * COLUMNS + lane) = accumulate(first, first.next(2), 0.0);
    }
}

/// A hand-rolled `std::reverse_iterator` over a column: `*rit` reads `*base`, where the
/// standard's reads `*std::prev(base)`.
#[derive(Clone, Copy, PartialEq)]
struct ReverseStrideIterator {
    base: StrideIterator,
}

impl ReverseStrideIterator {
    /// `std::make_reverse_iterator(last)`
    #[inline(always)]
    fn new(base: StrideIterator) -> ReverseStrideIterator {
        ReverseStrideIterator { base }
    }

    #[inline(always)]
    unsafe fn deref(&self) -> f32 {
        self.base.deref()
    }

    #[inline(always)]
    unsafe fn increment(&mut self) {
        self.base.ptr = self.base.ptr.sub(self.base.stride);
    }
}

/// `std::accumulate(rbegin, rend, init)`: the column summed bottom-up.
#[inline(always)]
unsafe fn accumulate_reverse(mut first: ReverseStrideIterator, last: ReverseStrideIterator, mut init: f32) -> f32 {
    while first != last {
        init += first.deref();
        first.increment();
    }
    init
}

/// BROKEN: the consumers sum their column bottom-up through a hand-rolled reverse iterator
/// that dereferences its base instead of the element before it: `rbegin` reads row 8, the
/// first row of the next stage (past the ring for the last stage), and row 0 is never read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_stl_bad_reverse_iterator(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let pipe = init_pipeline();
    let ring = dynamic_shared_window_address() + RING_BYTE;
    let tid = thread_idx_x();
    let (first_tile, step) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = first_tile;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.add(tile as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, source.cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = first_tile;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let first = StrideIterator::new(stage_begin(state.index()).add(column), COLUMNS);
            let rbegin = ReverseStrideIterator::new(first.next(ROWS));
            let rend = ReverseStrideIterator::new(first);
            sum = accumulate_reverse(rbegin, rend, sum);
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        *out.add(first_tile as usize * COLUMNS + column) = sum;
    }
}

/// The element count of a strided range, written as "distance over step, plus one".
#[inline(always)]
fn count_strided_fencepost(first: u32, last: u32, step: u32) -> u32 {
    if first < last { (last - first) / step + 1 } else { 0 }
}

/// BROKEN: the producer counts its tiles with the fencepost formula `(last - first) / step + 1`
/// while the consumers loop `while tile < tiles`: block 0 (64 / 8 + 1 = 9) copies a ninth tile
/// past the input, and its tail waits for a release of that stage that never comes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_stl_bad_fencepost_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let pipe = init_pipeline();
    let ring = dynamic_shared_window_address() + RING_BYTE;
    let tid = thread_idx_x();
    let begin = TileIterator { tile: block_idx_x(), step: grid_dim_x() };

    if tid == 0 {
        let n = count_strided_fencepost(begin.tile, tiles, begin.step);
        let mut state = PipelineState::<STAGES>::producer_start();
        for_each_n(begin, n, |tile| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = begin.tile;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let first = StrideIterator::new(stage_begin(state.index()).add(column), COLUMNS);
            sum = accumulate(first, first.next(ROWS), sum);
            pipe.consumer_release(&state);
            state.advance();
            tile += begin.step;
        }
        *out.add(begin.tile as usize * COLUMNS + column) = sum;
    }
}

/// BROKEN: the producer copies every tile to `begin(ring)` (stage 0's address) whatever stage
/// it acquired: stages 1 to 3 are never filled, and stage 0 is overwritten while the consumers
/// read it, so the sums are wrong.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_stl_bad_copy_to_begin(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let pipe = init_pipeline();
    let ring_begin = dynamic_shared_window_address() + RING_BYTE;
    let tid = thread_idx_x();
    let begin = TileIterator { tile: block_idx_x(), step: grid_dim_x() };
    let n = count_strided(begin.tile, tiles, begin.step);

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for_each_n(begin, n, |tile| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(ring_begin, input.add(tile as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for_each_n(begin, n, |_| {
            pipe.consumer_wait(&state);
            let first = StrideIterator::new(stage_begin(state.index()).add(column), COLUMNS);
            sum = accumulate(first, first.next(ROWS), sum);
            pipe.consumer_release(&state);
            state.advance();
        });
        *out.add(begin.tile as usize * COLUMNS + column) = sum;
    }
}

/// BROKEN: both halves park their partial sums at `scratch + lane` (the `half * COLUMNS` was
/// dropped): threads `t` and `t + 32` write one slot between the same barriers, and the combine
/// adds a slot nobody wrote.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_stl_bad_scratch_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tile_buffer = dynamic_shared_base::<f32>();
    let scratch = tile_buffer.add(TILE_FLOATS);
    let tid = thread_idx_x() as usize;
    let (lane, half) = (tid % COLUMNS, tid / COLUMNS);
    let chunk = TILE_FLOATS / BLOCK_THREADS as usize;
    let mut partial = 0.0f32;

    let mut tile = block_idx_x();
    while tile < tiles {
        let source = input.add(tile as usize * TILE_FLOATS + tid * chunk);
        copy_n(StrideIterator::new(source, 1), chunk, tile_buffer.add(tid * chunk));
        barrier();
        let first = StrideIterator::new(tile_buffer.add(half * (ROWS / 2) * COLUMNS + lane), COLUMNS);
        partial = accumulate(first, first.next(ROWS / 2), partial);
        barrier();
        tile += grid_dim_x();
    }

    *scratch.add(lane) = partial;
    barrier();
    if half == 0 {
        let first = StrideIterator::new(scratch.add(lane), COLUMNS);
        *out.add(block_idx_x() as usize * COLUMNS + lane) = accumulate(first, first.next(2), 0.0);
    }
}
