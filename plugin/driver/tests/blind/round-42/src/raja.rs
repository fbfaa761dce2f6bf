//! Style `raja`: RAJA-like execution policies as types. `forall::<Policy>(segment, |i| …)` runs a
//! body over the indices of a segment; the policy decides which threads run which indices:
//! `SeqExec` runs every index in order in the calling thread, `ThreadDirect<LO, HI>` gives index
//! `k` to thread `LO + k`, `SingleThread<T>` runs the whole segment in thread `T`, and
//! `BlockStride` hands index `i` to thread `i % 64`. Segments are `RangeSegment`,
//! `RangeStrideSegment` and a two-segment `IndexSet`; a `View2` reads a tile by row and column.
//! Depth and ring-order policies choose the pipeline's stage count and the slot a stage maps to.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const CONSUMERS: u32 = 32;
const BARS: u32 = 0;
const RING: u32 = 1024;
const RING_FLOATS: usize = RING as usize / 4;

// ---- segments ---------------------------------------------------------------------------------

trait Segment {
    fn begin(&self) -> u32;
    fn end(&self) -> u32;
    fn stride(&self) -> u32;
}

#[derive(Clone, Copy)]
struct RangeSegment {
    begin: u32,
    end: u32,
}

impl RangeSegment {
    fn new(begin: u32, end: u32) -> Self {
        RangeSegment { begin, end }
    }
}

impl Segment for RangeSegment {
    fn begin(&self) -> u32 {
        self.begin
    }
    fn end(&self) -> u32 {
        self.end
    }
    fn stride(&self) -> u32 {
        1
    }
}

#[derive(Clone, Copy)]
struct RangeStrideSegment {
    begin: u32,
    end: u32,
    stride: u32,
}

impl Segment for RangeStrideSegment {
    fn begin(&self) -> u32 {
        self.begin
    }
    fn end(&self) -> u32 {
        self.end
    }
    fn stride(&self) -> u32 {
        self.stride
    }
}

/// This block's tiles: `b, b + gridDim, …` below `tiles`.
#[inline(always)]
fn block_tiles(tiles: u32) -> RangeStrideSegment {
    RangeStrideSegment { begin: block_idx_x(), end: tiles, stride: grid_dim_x() }
}

// ---- execution policies -----------------------------------------------------------------------

trait ExecPolicy {
    fn run<S: Segment>(segment: &S, body: impl FnMut(u32));
}

/// Every index of the segment, in order, in the calling thread.
struct SeqExec;

impl ExecPolicy for SeqExec {
    #[inline(always)]
    fn run<S: Segment>(segment: &S, mut body: impl FnMut(u32)) {
        let mut i = segment.begin();
        while i < segment.end() {
            body(i);
            i += segment.stride();
        }
    }
}

/// Index `begin + k · stride` in thread `LO + k`, for the threads `LO..HI`.
struct ThreadDirect<const LO: u32, const HI: u32>;

impl<const LO: u32, const HI: u32> ExecPolicy for ThreadDirect<LO, HI> {
    #[inline(always)]
    fn run<S: Segment>(segment: &S, mut body: impl FnMut(u32)) {
        let tid = thread_idx_x();
        if tid >= LO && tid < HI {
            let i = segment.begin() + (tid - LO) * segment.stride();
            if i < segment.end() {
                body(i);
            }
        }
    }
}

/// The whole segment, sequentially, in thread `T` alone.
struct SingleThread<const T: u32>;

impl<const T: u32> ExecPolicy for SingleThread<T> {
    #[inline(always)]
    fn run<S: Segment>(segment: &S, body: impl FnMut(u32)) {
        if thread_idx_x() == T {
            SeqExec::run(segment, body);
        }
    }
}

/// Index `begin + i` in thread `i % BLOCK_THREADS` (a block-stride loop).
struct BlockStride;

impl ExecPolicy for BlockStride {
    #[inline(always)]
    fn run<S: Segment>(segment: &S, mut body: impl FnMut(u32)) {
        let mut i = segment.begin() + thread_idx_x();
        while i < segment.end() {
            body(i);
            i += BLOCK_THREADS;
        }
    }
}

#[inline(always)]
fn forall<P: ExecPolicy, S: Segment>(segment: S, body: impl FnMut(u32)) {
    P::run(&segment, body);
}

/// RAJA's `synchronize<cuda_synchronize>`: the block barrier.
#[inline(always)]
fn synchronize() {
    barrier();
}

// ---- views and reductions ---------------------------------------------------------------------

/// A row-major 2-D view of `COLS`-wide rows.
#[derive(Clone, Copy)]
struct View2 {
    data: *const f32,
}

impl View2 {
    #[inline(always)]
    unsafe fn at(&self, row: u32, col: u32) -> f32 {
        *self.data.add((row * COLS + col) as usize)
    }
}

/// `ReduceSum<seq_reduce>` over the rows of one column of a view.
#[inline(always)]
unsafe fn column_sum(view: View2, col: u32) -> f32 {
    let mut sum = 0.0f32;
    forall::<SeqExec, _>(RangeSegment::new(0, ROWS), |row| sum += view.at(row, col));
    sum
}

// ---- pipeline policies ------------------------------------------------------------------------

/// Maps a stage index to the ring slot it occupies.
trait RingOrder {
    fn slot(index: u32, stages: u32) -> u32;
}

struct Forward;
impl RingOrder for Forward {
    #[inline(always)]
    fn slot(index: u32, _stages: u32) -> u32 {
        index
    }
}

struct Reversed;
impl RingOrder for Reversed {
    #[inline(always)]
    fn slot(index: u32, stages: u32) -> u32 {
        stages - 1 - index
    }
}

#[inline(always)]
fn launch() {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
}

/// The producer role under policy `SingleThread<0>`: copies this block's tiles into a ring of
/// `S` stages at `RING`, slots chosen by `O`.
#[inline(always)]
unsafe fn producer<const S: u32, O: RingOrder>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    forall::<SingleThread<0>, _>(RangeSegment::new(0, 1), |_| {
        let mut state = PipelineState::<S>::producer_start();
        forall::<SeqExec, _>(block_tiles(tiles), |tile| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
            let dst = window + RING + O::slot(state.index(), S) * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    });
}

/// The consumer role under policy `ThreadDirect<32, 64>`: column `col` of each stage.
#[inline(always)]
unsafe fn consumer<const S: u32>(pipe: &Pipeline<S>, tiles: u32, out: *mut f32) {
    let ring = dynamic_shared_base::<f32>().add(RING_FLOATS) as *const f32;
    forall::<ThreadDirect<32, 64>, _>(RangeSegment::new(0, CONSUMERS), |col| {
        let mut state = PipelineState::<S>::new();
        let mut total = 0.0f32;
        forall::<SeqExec, _>(block_tiles(tiles), |_tile| {
            pipe.consumer_wait(&state);
            total += column_sum(View2 { data: ring.add(state.index() as usize * TILE_FLOATS) }, col);
            pipe.consumer_release(&state);
            state.advance();
        });
        *out.add((block_idx_x() * COLS + col) as usize) = total;
    });
}

/// Four stages; setup, producer and consumers are each a `forall` under their policy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_raja_forall_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    forall::<SingleThread<0>, _>(RangeSegment::new(0, 1), |_| {
        Pipeline::<4>::init(window + BARS, CONSUMERS);
    });
    synchronize();
    let pipe = Pipeline::<4>::attach(window + BARS);
    producer::<4, Forward>(&pipe, window, input, tiles);
    consumer::<4>(&pipe, tiles, out);
}

/// Three stages, the consumers written out with their own view per stage and the tile loop as
/// a `forall::<SeqExec>` over a `RangeStrideSegment`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_raja_three_stage_views(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<3>::init(window + BARS, CONSUMERS)
    } else {
        Pipeline::<3>::attach(window + BARS)
    };
    synchronize();
    producer::<3, Forward>(&pipe, window, input, tiles);
    let base = dynamic_shared_base::<f32>();
    forall::<ThreadDirect<32, 64>, _>(RangeSegment::new(0, CONSUMERS), |col| {
        let mut state = PipelineState::<3>::new();
        let mut total = 0.0f32;
        forall::<SeqExec, _>(block_tiles(tiles), |_| {
            pipe.consumer_wait(&state);
            let view = View2 { data: base.add(RING_FLOATS + state.index() as usize * TILE_FLOATS) };
            let mut row = 0;
            while row < ROWS {
                total += view.at(row, col);
                row += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
        });
        *out.add((block_idx_x() * COLS + col) as usize) = total;
    });
}

/// The consumers' columns come from an index set of two segments in swapped order, `{16..32,
/// 0..16}`: thread `32 + k` takes the set's `k`-th index, so every column is still taken once.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_raja_index_set_columns(input: *const f32, tiles: u32, out: *mut f32) {
    #[derive(Clone, Copy)]
    struct IndexSet2 {
        first: RangeSegment,
        second: RangeSegment,
    }
    impl IndexSet2 {
        fn len(&self) -> u32 {
            (self.first.end - self.first.begin) + (self.second.end - self.second.begin)
        }
        fn get(&self, k: u32) -> u32 {
            let first_len = self.first.end - self.first.begin;
            if k < first_len { self.first.begin + k } else { self.second.begin + (k - first_len) }
        }
    }
    launch();
    let window = dynamic_shared_window_address();
    forall::<SingleThread<0>, _>(RangeSegment::new(0, 1), |_| {
        Pipeline::<4>::init(window + BARS, CONSUMERS);
    });
    synchronize();
    let pipe = Pipeline::<4>::attach(window + BARS);
    producer::<4, Forward>(&pipe, window, input, tiles);
    let set = IndexSet2 { first: RangeSegment::new(16, 32), second: RangeSegment::new(0, 16) };
    let ring = dynamic_shared_base::<f32>().add(RING_FLOATS) as *const f32;
    forall::<ThreadDirect<32, 64>, _>(RangeSegment::new(0, set.len()), |k| {
        let col = set.get(k);
        let mut state = PipelineState::<4>::new();
        let mut total = 0.0f32;
        forall::<SeqExec, _>(block_tiles(tiles), |_| {
            pipe.consumer_wait(&state);
            total += column_sum(View2 { data: ring.add(state.index() as usize * TILE_FLOATS) }, col);
            pipe.consumer_release(&state);
            state.advance();
        });
        *out.add((block_idx_x() * COLS + col) as usize) = total;
    });
}

/// Plain shared memory: `forall::<BlockStride>` stages a tile, `synchronize()`, warp 0 sums
/// under `ThreadDirect<0, 32>`, `synchronize()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_raja_plain_forall(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let smem = dynamic_shared_base::<f32>();
    let mut total = 0.0f32;
    forall::<SeqExec, _>(block_tiles(tiles), |tile| {
        let src = input.add(tile as usize * TILE_FLOATS);
        forall::<BlockStride, _>(RangeSegment::new(0, TILE_FLOATS as u32), |i| {
            *smem.add(i as usize) = *src.add(i as usize);
        });
        synchronize();
        forall::<ThreadDirect<0, 32>, _>(RangeSegment::new(0, COLS), |col| {
            total += column_sum(View2 { data: smem }, col);
        });
        synchronize();
    });
    forall::<ThreadDirect<0, 32>, _>(RangeSegment::new(0, COLS), |col| {
        *out.add((block_idx_x() * COLS + col) as usize) = total;
    });
}

/// The consumers' pipeline depth policy, kept apart from the producer's.
struct Depth<const S: u32>;
type ProducerDepth = Depth<4>;
type ConsumerDepth = Depth<2>;

trait DepthPolicy {
    const STAGES: u32;
}
impl<const S: u32> DepthPolicy for Depth<S> {
    const STAGES: u32 = S;
}

/// BROKEN: the consumers attach the barriers as `Pipeline::<{ ConsumerDepth::STAGES }>` (2)
/// while thread 0 initialised a four-stage pipeline there: their waits use full[0..2] and their
/// releases land on full[2] and full[3], so the producer's empty barriers are never released
/// and it hangs at its fifth acquire.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_raja_bad_consumer_depth_two(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    forall::<SingleThread<0>, _>(RangeSegment::new(0, 1), |_| {
        Pipeline::<{ ProducerDepth::STAGES }>::init(window + BARS, CONSUMERS);
    });
    synchronize();
    let producer_pipe = Pipeline::<{ ProducerDepth::STAGES }>::attach(window + BARS);
    producer::<{ ProducerDepth::STAGES }, Forward>(&producer_pipe, window, input, tiles);
    let consumer_pipe = Pipeline::<{ ConsumerDepth::STAGES }>::attach(window + BARS);
    consumer::<{ ConsumerDepth::STAGES }>(&consumer_pipe, tiles, out);
}

/// BROKEN: the consumers build each stage's `View2` at `state.index() * TILE_BYTES` floats (a
/// byte stride on an `f32` pointer): stage 1 reads past the ring, stage 2 from byte 9216, past
/// the 8192-byte window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_raja_bad_view_stride_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    forall::<SingleThread<0>, _>(RangeSegment::new(0, 1), |_| {
        Pipeline::<4>::init(window + BARS, CONSUMERS);
    });
    synchronize();
    let pipe = Pipeline::<4>::attach(window + BARS);
    producer::<4, Forward>(&pipe, window, input, tiles);
    let base = dynamic_shared_base::<f32>();
    forall::<ThreadDirect<32, 64>, _>(RangeSegment::new(0, CONSUMERS), |col| {
        let mut state = PipelineState::<4>::new();
        let mut total = 0.0f32;
        forall::<SeqExec, _>(block_tiles(tiles), |_| {
            pipe.consumer_wait(&state);
            let view = View2 { data: base.add(RING_FLOATS + (state.index() * TILE_BYTES) as usize) };
            total += column_sum(view, col);
            pipe.consumer_release(&state);
            state.advance();
        });
        *out.add((block_idx_x() * COLS + col) as usize) = total;
    });
}

/// BROKEN: the producer is instantiated with the `Reversed` ring order (slot `3 - index`) while
/// the consumers read slot `index`: each copy lands in the mirror stage of the one whose full
/// barrier it completes, so the consumers sum other tiles' data (or nothing yet).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_raja_bad_reversed_destination(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let window = dynamic_shared_window_address();
    forall::<SingleThread<0>, _>(RangeSegment::new(0, 1), |_| {
        Pipeline::<4>::init(window + BARS, CONSUMERS);
    });
    synchronize();
    let pipe = Pipeline::<4>::attach(window + BARS);
    producer::<4, Reversed>(&pipe, window, input, tiles);
    consumer::<4>(&pipe, tiles, out);
}

/// BROKEN: the tile loop keeps only the `synchronize()` between staging and summing: warp 1
/// restages the next tile while warp 0 may still be summing the current one (no barrier orders
/// warp 0's reads before warp 1's next stores).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_raja_bad_plain_missing_sync(input: *const f32, tiles: u32, out: *mut f32) {
    launch();
    let smem = dynamic_shared_base::<f32>();
    let mut total = 0.0f32;
    forall::<SeqExec, _>(block_tiles(tiles), |tile| {
        let src = input.add(tile as usize * TILE_FLOATS);
        forall::<BlockStride, _>(RangeSegment::new(0, TILE_FLOATS as u32), |i| {
            *smem.add(i as usize) = *src.add(i as usize);
        });
        synchronize();
        forall::<ThreadDirect<0, 32>, _>(RangeSegment::new(0, COLS), |col| {
            total += column_sum(View2 { data: smem }, col);
        });
    });
    forall::<ThreadDirect<0, 32>, _>(RangeSegment::new(0, COLS), |col| {
        *out.add((block_idx_x() * COLS + col) as usize) = total;
    });
}
