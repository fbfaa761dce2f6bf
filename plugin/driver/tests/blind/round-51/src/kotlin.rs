//! Column sums written by a team that came from Kotlin: extension traits on primitives and on
//! the pipeline (`fun UInt.stageOffset()`), scope functions (`let`, `also`, `takeIf`),
//! `repeat(n) { i -> … }`, `until` ranges, `when` over roles, small immutable data classes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{WARP_SIZE, barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const COLUMNS: u32 = 32;
const ROWS: u32 = 8;
const TILE_FLOATS: u32 = COLUMNS * ROWS;
const TILE_BYTES: u32 = TILE_FLOATS * 4;
const STAGES: u32 = 4;
const CONSUMERS: u32 = WARP_SIZE;
/// Barriers at byte 0 (64 bytes for four stages), the ring right after them.
const RING_OFFSET: u32 = 64;

/// Kotlin's scope functions, for every type.
trait ScopeFunctions: Sized {
    #[inline(always)]
    fn let_<R>(self, block: impl FnOnce(Self) -> R) -> R {
        block(self)
    }

    #[inline(always)]
    fn also(self, block: impl FnOnce(&Self)) -> Self {
        block(&self);
        self
    }

    #[inline(always)]
    fn take_if(self, predicate: impl FnOnce(&Self) -> bool) -> Option<Self> {
        if predicate(&self) { Some(self) } else { None }
    }
}

impl<T> ScopeFunctions for T {}

/// `repeat(times) { index -> … }`.
#[inline(always)]
fn repeat(times: u32, mut action: impl FnMut(u32)) {
    let mut index = 0;
    while index < times {
        action(index);
        index += 1;
    }
}

/// `fun UInt.until(end)` and friends.
trait UIntExtensions {
    fn until(self, end: u32) -> core::ops::Range<u32>;
    fn stage_offset(self) -> u32;
    fn tile_offset(self) -> usize;
}

impl UIntExtensions for u32 {
    #[inline(always)]
    fn until(self, end: u32) -> core::ops::Range<u32> {
        self..end
    }

    /// Byte offset of stage `self` in the ring.
    #[inline(always)]
    fn stage_offset(self) -> u32 {
        self * TILE_BYTES
    }

    /// Float offset of tile `self` in the input.
    #[inline(always)]
    fn tile_offset(self) -> usize {
        (self * TILE_FLOATS) as usize
    }
}

/// `data class TileJob(val first: UInt, val step: UInt, val count: UInt)`: this block's tiles.
#[derive(Clone, Copy)]
struct TileJob {
    first: u32,
    step: u32,
    count: u32,
}

impl TileJob {
    #[inline(always)]
    fn of_block(tiles: u32) -> TileJob {
        let first = block_idx_x();
        let step = grid_dim_x();
        let count = if first < tiles { (tiles - first).div_ceil(step) } else { 0 };
        TileJob { first, step, count }
    }

    #[inline(always)]
    fn tile(&self, k: u32) -> u32 {
        self.first + k * self.step
    }
}

/// `when (tid) { 0 -> producer; in 32 until 64 -> consumer; else -> idle }`, with `repeat`
/// driving both loops and the state captured by the lambdas.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_kotlin_repeat_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    init_barriers_once();
    let window = dynamic_shared_window_address();
    let pipeline = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_OFFSET / 4) as usize);
    let job = TileJob::of_block(tiles);

    match thread_idx_x() {
        0 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            repeat(job.count, |k| {
                pipeline.producer_acquire(&state);
                pipeline.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_OFFSET + state.index().stage_offset(),
                    input.add(job.tile(k).tile_offset()) as *const u8,
                    TILE_BYTES,
                    pipeline.producer_barrier(&state),
                );
                state.advance();
            });
            pipeline.producer_tail(state);
        }
        tid @ 32..=63 => {
            let column = tid - 32;
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            repeat(job.count, |_| {
                pipeline.consumer_wait(&state);
                let stage = ring.add((state.index() * TILE_FLOATS) as usize);
                for row in 0.until(ROWS) {
                    sum += *stage.add((row * COLUMNS + column) as usize);
                }
                pipeline.consumer_release(&state);
                state.advance();
            });
            *out.add((job.first * COLUMNS + column) as usize) = sum;
        }
        _ => {}
    }
}

/// Thread 0 initialises the barriers; every thread then passes the block barrier.
#[inline(always)]
fn init_barriers_once() {
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(dynamic_shared_window_address(), CONSUMERS);
    }
    barrier();
}

/// `sealed class Role`.
#[derive(Clone, Copy)]
enum Role {
    Producer,
    Consumer(u32),
    Idle,
}

trait RoleExtension {
    fn role(self) -> Role;
}

impl RoleExtension for u32 {
    #[inline(always)]
    fn role(self) -> Role {
        match self {
            0 => Role::Producer,
            t if t >= 32 && t < 64 => Role::Consumer(t - 32),
            _ => Role::Idle,
        }
    }
}

/// Extension functions on the pipeline: `fun Pipeline.loadTile(…)`, `fun Pipeline.columnOf(…)`.
trait TilePipelineExtensions {
    unsafe fn load_tile(&self, state: &mut PipelineState<STAGES>, ring: u32, source: *const f32);
    unsafe fn column_of(&self, state: &mut PipelineState<STAGES>, ring: *const f32, column: u32) -> f32;
}

impl TilePipelineExtensions for Pipeline<STAGES> {
    #[inline(always)]
    unsafe fn load_tile(&self, state: &mut PipelineState<STAGES>, ring: u32, source: *const f32) {
        self.producer_acquire(state);
        self.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(ring + state.index().stage_offset(), source as *const u8, TILE_BYTES, self.producer_barrier(state));
        state.advance();
    }

    #[inline(always)]
    unsafe fn column_of(&self, state: &mut PipelineState<STAGES>, ring: *const f32, column: u32) -> f32 {
        self.consumer_wait(state);
        let stage = ring.add((state.index() * TILE_FLOATS) as usize);
        let mut sum = 0.0f32;
        for row in 0.until(ROWS) {
            sum += *stage.add((row * COLUMNS + column) as usize);
        }
        self.consumer_release(state);
        state.advance();
        sum
    }
}

/// Roles from an extension on the thread index, the protocol in extension methods on the
/// pipeline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_kotlin_extension_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    init_barriers_once();
    let window = dynamic_shared_window_address();
    let pipeline = Pipeline::<STAGES>::attach(window);
    let job = TileJob::of_block(tiles);

    match thread_idx_x().role() {
        Role::Producer => {
            let mut state = PipelineState::<STAGES>::producer_start();
            for k in 0.until(job.count) {
                pipeline.load_tile(&mut state, window + RING_OFFSET, input.add(job.tile(k).tile_offset()));
            }
            pipeline.producer_tail(state);
        }
        Role::Consumer(column) => {
            let ring = dynamic_shared_base::<f32>().add((RING_OFFSET / 4) as usize);
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            for _ in 0.until(job.count) {
                sum += pipeline.column_of(&mut state, ring, column);
            }
            *out.add((job.first * COLUMNS + column) as usize) = sum;
        }
        Role::Idle => {}
    }
}

/// `for (tile in first until tiles step grid)` in both roles, the column read with
/// `(0 until ROWS).fold(0f) { acc, row -> … }`, the output written inside `also`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_kotlin_fold_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    init_barriers_once();
    let window = dynamic_shared_window_address();
    let pipeline = Pipeline::<STAGES>::attach(window);
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    let tid = thread_idx_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for tile in first.until(tiles).step_by(step) {
            pipeline.producer_acquire(&state);
            pipeline.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING_OFFSET + state.index().stage_offset(),
                input.add(tile.tile_offset()) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&state),
            );
            state.advance();
        }
        pipeline.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let ring = dynamic_shared_base::<f32>().add((RING_OFFSET / 4) as usize);
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _tile in first.until(tiles).step_by(step) {
            pipeline.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            sum = 0.until(ROWS).fold(sum, |acc, row| acc + *stage.add((row * COLUMNS + column) as usize));
            pipeline.consumer_release(&state);
            state.advance();
        }
        sum.also(|total| *out.add((first * COLUMNS + column) as usize) = *total);
    }
}

/// No pipeline: `repeat(4)` stages a tile with all 64 threads, then the first warp folds its
/// column; a barrier on each side of the reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_kotlin_staged_fold(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tile_buffer = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let job = TileJob::of_block(tiles);
    let mut sum = 0.0f32;

    repeat(job.count, |k| {
        let source = input.add(job.tile(k).tile_offset());
        repeat(TILE_FLOATS / BLOCK_THREADS, |i| {
            let index = (tid + i * BLOCK_THREADS) as usize;
            *tile_buffer.add(index) = *source.add(index);
        });
        barrier();
        if tid < COLUMNS {
            sum = 0.until(ROWS).fold(sum, |acc, row| acc + *tile_buffer.add((row * COLUMNS + tid) as usize));
        }
        barrier();
    });

    tid.take_if(|t| *t < COLUMNS).let_(|column| {
        if let Some(column) = column {
            *out.add((job.first * COLUMNS + column) as usize) = sum;
        }
    });
}

/// BROKEN: the consumers' loop was ported from Kotlin's `for (k in 0..count)`, which is
/// inclusive, as `0..=count`: they wait for a ninth tile nobody copies and hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_kotlin_bad_inclusive_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    init_barriers_once();
    let window = dynamic_shared_window_address();
    let pipeline = Pipeline::<STAGES>::attach(window);
    let job = TileJob::of_block(tiles);

    match thread_idx_x().role() {
        Role::Producer => {
            let mut state = PipelineState::<STAGES>::producer_start();
            for k in 0.until(job.count) {
                pipeline.load_tile(&mut state, window + RING_OFFSET, input.add(job.tile(k).tile_offset()));
            }
            pipeline.producer_tail(state);
        }
        Role::Consumer(column) => {
            let ring = dynamic_shared_base::<f32>().add((RING_OFFSET / 4) as usize);
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            for _ in 0..=job.count {
                sum += pipeline.column_of(&mut state, ring, column);
            }
            *out.add((job.first * COLUMNS + column) as usize) = sum;
        }
        Role::Idle => {}
    }
}

/// BROKEN: "nobody refills the stage after the last tile", so the consumers release only
/// `takeIf { k + 1 < count }`; the producer's tail waits for that last release forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_kotlin_bad_take_if_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    init_barriers_once();
    let window = dynamic_shared_window_address();
    let pipeline = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_OFFSET / 4) as usize);
    let job = TileJob::of_block(tiles);

    match thread_idx_x() {
        0 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            repeat(job.count, |k| {
                pipeline.load_tile(&mut state, window + RING_OFFSET, input.add(job.tile(k).tile_offset()));
            });
            pipeline.producer_tail(state);
        }
        tid @ 32..=63 => {
            let column = tid - 32;
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            repeat(job.count, |k| {
                pipeline.consumer_wait(&state);
                let stage = ring.add((state.index() * TILE_FLOATS) as usize);
                for row in 0.until(ROWS) {
                    sum += *stage.add((row * COLUMNS + column) as usize);
                }
                if k.take_if(|k| k + 1 < job.count).is_some() {
                    pipeline.consumer_release(&state);
                }
                state.advance();
            });
            *out.add((job.first * COLUMNS + column) as usize) = sum;
        }
        _ => {}
    }
}

/// BROKEN: the consumers reuse the `stage_offset()` extension, which gives bytes, as an offset
/// on an `f32` pointer: stage 1 is read 4 KiB in, stages 2 and 3 past the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_kotlin_bad_stage_offset_units(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    init_barriers_once();
    let window = dynamic_shared_window_address();
    let pipeline = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_OFFSET / 4) as usize);
    let job = TileJob::of_block(tiles);

    match thread_idx_x() {
        0 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            repeat(job.count, |k| {
                pipeline.load_tile(&mut state, window + RING_OFFSET, input.add(job.tile(k).tile_offset()));
            });
            pipeline.producer_tail(state);
        }
        tid @ 32..=63 => {
            let column = tid - 32;
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            repeat(job.count, |_| {
                pipeline.consumer_wait(&state);
                let stage = ring.add(state.index().stage_offset() as usize);
                sum = 0.until(ROWS).fold(sum, |acc, row| acc + *stage.add((row * COLUMNS + column) as usize));
                pipeline.consumer_release(&state);
                state.advance();
            });
            *out.add((job.first * COLUMNS + column) as usize) = sum;
        }
        _ => {}
    }
}

/// BROKEN: the staging `repeat` steps by a warp (`tid + i * 32`) instead of the block: threads
/// `t` and `t + 32` write the same floats, and floats 160 to 255 of the tile are never staged,
/// so the last three rows are summed from stale shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_kotlin_bad_warp_stride_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let tile_buffer = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let job = TileJob::of_block(tiles);
    let mut sum = 0.0f32;

    repeat(job.count, |k| {
        let source = input.add(job.tile(k).tile_offset());
        repeat(TILE_FLOATS / BLOCK_THREADS, |i| {
            let index = (tid + i * WARP_SIZE) as usize;
            *tile_buffer.add(index) = *source.add(index);
        });
        barrier();
        if tid < COLUMNS {
            sum = 0.until(ROWS).fold(sum, |acc, row| acc + *tile_buffer.add((row * COLUMNS + tid) as usize));
        }
        barrier();
    });

    if tid < COLUMNS {
        *out.add((job.first * COLUMNS + tid) as usize) = sum;
    }
}
