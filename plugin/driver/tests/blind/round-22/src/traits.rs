//! Pipeline kernels built on traits and generics: a tile source trait, a column reader trait
//! with a default method, roles as trait implementations dispatched statically, a fold trait,
//! and one kernel body generic over its stage count, instantiated by several entries.

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x, warp_id};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: u32 = 32;

/// Where the tiles of this block come from.
trait TileSource {
    /// Global address of the block's `k`-th tile.
    fn tile(&self, k: u32) -> *const u8;
    /// How many tiles the block owns.
    fn count(&self) -> u32;
}

#[derive(Clone, Copy)]
struct BlockTiles {
    input: *const f32,
    first: u32,
    step: u32,
    tiles: u32,
}

impl BlockTiles {
    fn new(input: *const f32, tiles: u32) -> Self {
        BlockTiles { input, first: block_idx_x(), step: grid_dim_x(), tiles }
    }
}

impl TileSource for BlockTiles {
    #[inline(always)]
    fn tile(&self, k: u32) -> *const u8 {
        self.input.wrapping_add(((self.first + k * self.step) * TILE_FLOATS) as usize) as *const u8
    }

    #[inline(always)]
    fn count(&self) -> u32 {
        if self.tiles > self.first { (self.tiles - self.first).div_ceil(self.step) } else { 0 }
    }
}

/// Reads a staged tile; the column sum is a provided method.
trait ColumnReader {
    const ROW_STRIDE: usize;
    unsafe fn at(&self, i: usize) -> f32;

    #[inline(always)]
    unsafe fn column(&self, c: usize) -> f32 {
        let mut s = 0.0;
        for r in 0..ROWS {
            s += self.at(r * Self::ROW_STRIDE + c);
        }
        s
    }
}

struct StageView {
    p: *const f32,
}

impl ColumnReader for StageView {
    const ROW_STRIDE: usize = COLS as usize;
    #[inline(always)]
    unsafe fn at(&self, i: usize) -> f32 {
        *self.p.add(i)
    }
}

/// A producer driven by any `TileSource`.
#[inline(always)]
unsafe fn produce_from<const S: u32, T: TileSource>(pipe: &Pipeline<S>, window: u32, source: &T) {
    let mut state = PipelineState::<S>::producer_start();
    for k in 0..source.count() {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source.tile(k), TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
    }
    pipe.producer_tail(state);
}

/// A `TileSource` feeding the producer and a `ColumnReader` over each stage; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_source_reader(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let source = BlockTiles::new(input, tiles);
    if tid == 32 {
        produce_from(&pipe, window, &source);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..source.count() {
            pipe.consumer_wait(&state);
            let view = StageView { p: ring.add((state.index() * TILE_FLOATS) as usize) };
            acc += view.column(tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// The kernel body, generic over the ring's depth: ring at byte 0, barriers after it, producer
/// thread 32, consumers warp 0.
#[inline(always)]
unsafe fn generic_body<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        pipe.producer_tail(state);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let view = StageView { p: ring.add((state.index() * TILE_FLOATS) as usize) };
            acc += view.column(tid as usize);
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        *out.add((first * COLS + tid) as usize) = acc;
    }
}

/// `generic_body` with two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_generic_two(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    generic_body::<2>(input, tiles, out);
}

/// `generic_body` with five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_generic_five(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    generic_body::<5>(input, tiles, out);
}

/// What a role needs to know about the launch.
#[derive(Clone, Copy)]
struct Ctx {
    input: *const f32,
    tiles: u32,
    out: *mut f32,
    window: u32,
    ring: *const f32,
}

/// A thread's part in the pipeline.
trait Role<const S: u32> {
    unsafe fn play(self, pipe: &Pipeline<S>, ctx: &Ctx);
}

struct Loader;
struct Summer {
    col: u32,
}

impl<const S: u32> Role<S> for Loader {
    #[inline(always)]
    unsafe fn play(self, pipe: &Pipeline<S>, ctx: &Ctx) {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < ctx.tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                ctx.window + state.index() * TILE_BYTES,
                ctx.input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    }
}

impl<const S: u32> Role<S> for Summer {
    #[inline(always)]
    unsafe fn play(self, pipe: &Pipeline<S>, ctx: &Ctx) {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < ctx.tiles {
            pipe.consumer_wait(&state);
            let stage = ctx.ring.add((state.index() * TILE_FLOATS) as usize);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS as usize + self.col as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *ctx.out.add((block_idx_x() * COLS + self.col) as usize) = acc;
    }
}

#[inline(always)]
unsafe fn perform<const S: u32, R: Role<S>>(role: R, pipe: &Pipeline<S>, ctx: &Ctx) {
    role.play(pipe, ctx);
}

/// Roles as trait implementations, dispatched through a generic function; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_role_dispatch(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let ctx = Ctx { input, tiles, out, window, ring: dynamic_shared_base::<f32>() };
    if tid == 32 {
        perform::<S, _>(Loader, &pipe, &ctx);
    } else if tid < COLS {
        perform::<S, _>(Summer { col: tid }, &pipe, &ctx);
    }
}

/// How a consumer combines the values it reads.
trait Fold {
    const START: f32;
    fn fold(acc: f32, x: f32) -> f32;
}

struct Plus;
impl Fold for Plus {
    const START: f32 = 0.0;
    #[inline(always)]
    fn fold(acc: f32, x: f32) -> f32 {
        acc + x
    }
}

#[inline(always)]
unsafe fn consume_with<F: Fold, const S: u32>(pipe: &Pipeline<S>, ring: *const f32, col: u32, count: u32) -> f32 {
    let mut state = PipelineState::<S>::new();
    let mut acc = F::START;
    let mut k = 0;
    while k < count {
        pipe.consumer_wait(&state);
        let stage = ring.add((state.index() * TILE_FLOATS) as usize);
        for r in 0..ROWS {
            acc = F::fold(acc, *stage.add(r * COLS as usize + col as usize));
        }
        pipe.consumer_release(&state);
        state.advance();
        k += 1;
    }
    acc
}

/// Consumers generic over a `Fold`; four stages, producer thread 63.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_fold_generic(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let source = BlockTiles::new(input, tiles);
    if tid == 63 {
        produce_from(&pipe, window, &source);
    } else if tid < COLS {
        let v = consume_with::<Plus, S>(&pipe, dynamic_shared_base::<f32>(), tid, source.count());
        *out.add((block_idx_x() * COLS + tid) as usize) = v;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels.

/// BROKEN: `generic_body` with eight stages: the ring fills the 8 KiB window and the barriers
/// are initialised at byte 8192, past its end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_bad_generic_eight(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    generic_body::<8>(input, tiles, out);
}

/// A view that assumes rows padded to 33 floats (a bank-conflict-free layout the copies do not
/// produce).
struct PaddedView {
    p: *const f32,
}

impl ColumnReader for PaddedView {
    const ROW_STRIDE: usize = COLS as usize + 1;
    #[inline(always)]
    unsafe fn at(&self, i: usize) -> f32 {
        *self.p.add(i)
    }
}

/// BROKEN: the consumers read through `PaddedView`, whose rows are 33 floats apart: every row
/// after the first is read one column further, and row 7 of the high columns from the next stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_bad_padded_reader(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let source = BlockTiles::new(input, tiles);
    if tid == 32 {
        produce_from(&pipe, window, &source);
    } else if tid < COLS {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..source.count() {
            pipe.consumer_wait(&state);
            let view = PaddedView { p: ring.add((state.index() * TILE_FLOATS) as usize) };
            acc += view.column(tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add((block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// Tiles addressed by their byte offset, on an `f32` pointer.
struct ByteTiles {
    inner: BlockTiles,
}

impl TileSource for ByteTiles {
    #[inline(always)]
    fn tile(&self, k: u32) -> *const u8 {
        let t = self.inner.first + k * self.inner.step;
        self.inner.input.wrapping_add((t * TILE_BYTES) as usize) as *const u8
    }

    #[inline(always)]
    fn count(&self) -> u32 {
        self.inner.count()
    }
}

/// BROKEN: `ByteTiles::tile` adds the tile's byte offset to an `f32` pointer, four tiles per
/// tile: block `b` copies tiles `4b, 4b + 32, …`, most of them past the end of the input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_bad_source_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let source = ByteTiles { inner: BlockTiles::new(input, tiles) };
    if tid == 32 {
        produce_from(&pipe, window, &source);
    } else if tid < COLS {
        let v = consume_with::<Plus, S>(&pipe, ring, tid, source.count());
        *out.add((block_idx_x() * COLS + tid) as usize) = v;
    }
}

/// Something that takes a staged tile from a consumer.
trait TileSink<const S: u32> {
    unsafe fn accept(&mut self, pipe: &Pipeline<S>, state: &PipelineState<S>, stage: *const f32);
}

struct ReleasingSummer {
    col: usize,
    acc: f32,
}

impl<const S: u32> TileSink<S> for ReleasingSummer {
    /// Sums the column and hands the stage back, "since it is done with it".
    #[inline(always)]
    unsafe fn accept(&mut self, pipe: &Pipeline<S>, state: &PipelineState<S>, stage: *const f32) {
        for r in 0..ROWS {
            self.acc += *stage.add(r * COLS as usize + self.col);
        }
        pipe.consumer_release(state);
    }
}

#[inline(always)]
unsafe fn drive_sink<const S: u32, K: TileSink<S>>(pipe: &Pipeline<S>, ring: *const f32, count: u32, sink: &mut K) {
    let mut state = PipelineState::<S>::new();
    for _ in 0..count {
        pipe.consumer_wait(&state);
        sink.accept(pipe, &state, ring.add((state.index() * TILE_FLOATS) as usize));
        pipe.consumer_release(&state);
        state.advance();
    }
}

/// BROKEN: `ReleasingSummer::accept` releases the stage and `drive_sink` releases it again:
/// 64 arrivals per tile on empty barriers counting 32 complete two phases, so the producer's
/// second round waits on a phase that never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_bad_sink_releases_twice(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let source = BlockTiles::new(input, tiles);
    if tid == 32 {
        produce_from(&pipe, window, &source);
    } else if tid < COLS {
        let mut sink = ReleasingSummer { col: tid as usize, acc: 0.0 };
        drive_sink(&pipe, dynamic_shared_base::<f32>(), source.count(), &mut sink);
        *out.add((block_idx_x() * COLS + tid) as usize) = sink.acc;
    }
}

/// Which role a thread plays, by warp.
#[inline(always)]
fn is_loader() -> bool {
    warp_id() == 1
}

/// BROKEN: `is_loader` picks the whole of warp 1, so 32 threads each run the producer: 32
/// arrivals and 32 copies per stage on full barriers expecting one arrival.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r22_trait_bad_loader_warp(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let ctx = Ctx { input, tiles, out, window, ring: dynamic_shared_base::<f32>() };
    if is_loader() {
        perform::<S, _>(Loader, &pipe, &ctx);
    } else {
        perform::<S, _>(Summer { col: tid }, &pipe, &ctx);
    }
}
