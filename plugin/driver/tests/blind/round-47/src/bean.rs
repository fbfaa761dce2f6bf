//! Module `bean`: Java/Kotlin-style object orientation. A `KernelConfig` made by a builder with
//! `with_…` setters, beans with private fields behind getters and setters, a `TilePipeline`
//! service object, `TileProducer` / `ColumnConsumer` role objects, a Java-style `TileIterator`
//! with `has_next()` / `next()`, and an abstract job with a template method (`run()` calling the
//! subclass's hooks).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK_SIZE: u32 = 64;
const SHARED_MEMORY_SIZE: u32 = 8192;
const STAGE_COUNT: u32 = 4;
const TILE_ROWS: u32 = 8;
const TILE_COLUMNS: u32 = 32;
const TILE_ELEMENTS: u32 = TILE_ROWS * TILE_COLUMNS;
const FLOAT_SIZE: u32 = 4;

/// The kernel's configuration: immutable once built.
#[derive(Clone, Copy)]
struct KernelConfig {
    stage_bytes: u32,
    consumer_count: u32,
    producer_thread: u32,
    first_consumer_thread: u32,
    barrier_offset: u32,
    ring_offset: u32,
}

impl KernelConfig {
    #[inline(always)]
    fn get_stage_bytes(&self) -> u32 {
        self.stage_bytes
    }

    #[inline(always)]
    fn get_consumer_count(&self) -> u32 {
        self.consumer_count
    }

    #[inline(always)]
    fn is_producer(&self, thread: u32) -> bool {
        thread == self.producer_thread
    }

    #[inline(always)]
    fn is_consumer(&self, thread: u32) -> bool {
        thread >= self.first_consumer_thread && thread < self.first_consumer_thread + self.consumer_count
    }

    #[inline(always)]
    fn get_consumer_index(&self, thread: u32) -> u32 {
        thread - self.first_consumer_thread
    }

    /// The tile's size (in elements, as `List.size()` would say).
    #[inline(always)]
    fn get_tile_size(&self) -> u32 {
        TILE_ELEMENTS
    }

    /// Index of the last tile of the input.
    #[inline(always)]
    fn get_last_tile_index(&self, tile_count: u32) -> u32 {
        tile_count - 1
    }
}

/// Builder for [`KernelConfig`], with the defaults of a 64-thread block.
struct KernelConfigBuilder {
    stage_bytes: u32,
    consumer_count: u32,
    producer_thread: u32,
    first_consumer_thread: u32,
    barrier_offset: u32,
    ring_offset: u32,
}

impl KernelConfigBuilder {
    #[inline(always)]
    fn new() -> Self {
        KernelConfigBuilder {
            stage_bytes: TILE_ELEMENTS * FLOAT_SIZE,
            consumer_count: 32,
            producer_thread: 0,
            first_consumer_thread: 32,
            barrier_offset: 0,
            ring_offset: 1024,
        }
    }

    #[inline(always)]
    fn with_stage_bytes(mut self, stage_bytes: u32) -> Self {
        self.stage_bytes = stage_bytes;
        self
    }

    #[inline(always)]
    fn with_consumer_count(mut self, consumer_count: u32) -> Self {
        self.consumer_count = consumer_count;
        self
    }

    #[inline(always)]
    fn with_producer_thread(mut self, producer_thread: u32) -> Self {
        self.producer_thread = producer_thread;
        self
    }

    #[inline(always)]
    fn build(self) -> KernelConfig {
        KernelConfig {
            stage_bytes: self.stage_bytes,
            consumer_count: self.consumer_count,
            producer_thread: self.producer_thread,
            first_consumer_thread: self.first_consumer_thread,
            barrier_offset: self.barrier_offset,
            ring_offset: self.ring_offset,
        }
    }
}

/// The pipeline service: owns the barriers and knows where every stage lives.
struct TilePipeline {
    pipeline: Pipeline<STAGE_COUNT>,
    ring_address: u32,
    ring_pointer: *const f32,
}

impl TilePipeline {
    /// Factory: the producer thread initialises the barriers; everyone attaches after the barrier.
    #[inline(always)]
    fn create(config: &KernelConfig) -> TilePipeline {
        let window = dynamic_shared_window_address();
        let barriers = window + config.barrier_offset;
        if config.is_producer(thread_idx_x()) {
            Pipeline::<STAGE_COUNT>::init(barriers, config.get_consumer_count());
        }
        barrier();
        TilePipeline {
            pipeline: Pipeline::<STAGE_COUNT>::attach(barriers),
            ring_address: window + config.ring_offset,
            ring_pointer: dynamic_shared_base::<f32>().wrapping_add((config.ring_offset / FLOAT_SIZE) as usize),
        }
    }

    #[inline(always)]
    fn get_pipeline(&self) -> &Pipeline<STAGE_COUNT> {
        &self.pipeline
    }

    #[inline(always)]
    fn get_stage_address(&self, state: &PipelineState<STAGE_COUNT>) -> u32 {
        self.ring_address + state.index() * TILE_ELEMENTS * FLOAT_SIZE
    }

    #[inline(always)]
    fn get_stage_pointer(&self, state: &PipelineState<STAGE_COUNT>) -> *const f32 {
        self.ring_pointer.wrapping_add((state.index() * TILE_ELEMENTS) as usize)
    }
}

/// The producer role.
struct TileProducer<'a> {
    service: &'a TilePipeline,
    state: PipelineState<STAGE_COUNT>,
    source: *const f32,
    transfer_bytes: u32,
}

impl<'a> TileProducer<'a> {
    #[inline(always)]
    fn new(service: &'a TilePipeline, source: *const f32, transfer_bytes: u32) -> Self {
        TileProducer { service, state: PipelineState::producer_start(), source, transfer_bytes }
    }

    #[inline(always)]
    unsafe fn produce(&mut self, tile: u32) {
        let pipeline = self.service.get_pipeline();
        pipeline.producer_acquire(&self.state);
        pipeline.producer_expect_tx(&self.state, self.transfer_bytes);
        let source = self.source.add((tile * TILE_ELEMENTS) as usize) as *const u8;
        bulk_copy_global_to_shared(self.service.get_stage_address(&self.state), source, self.transfer_bytes, pipeline.producer_barrier(&self.state));
        self.state.advance();
    }

    #[inline(always)]
    fn close(self) {
        self.service.get_pipeline().producer_tail(self.state);
    }
}

/// The consumer role: one column of every tile.
struct ColumnConsumer<'a> {
    service: &'a TilePipeline,
    state: PipelineState<STAGE_COUNT>,
    column: u32,
    sum: f32,
}

impl<'a> ColumnConsumer<'a> {
    #[inline(always)]
    fn new(service: &'a TilePipeline, column: u32) -> Self {
        ColumnConsumer { service, state: PipelineState::new(), column, sum: 0.0 }
    }

    #[inline(always)]
    unsafe fn consume(&mut self) {
        let pipeline = self.service.get_pipeline();
        pipeline.consumer_wait(&self.state);
        let stage = self.service.get_stage_pointer(&self.state);
        for row in 0..TILE_ROWS {
            self.set_sum(self.get_sum() + *stage.add((row * TILE_COLUMNS + self.column) as usize));
        }
        pipeline.consumer_release(&self.state);
        self.state.advance();
    }

    #[inline(always)]
    fn get_sum(&self) -> f32 {
        self.sum
    }

    #[inline(always)]
    fn set_sum(&mut self, sum: f32) {
        self.sum = sum;
    }

    #[inline(always)]
    fn get_column(&self) -> u32 {
        self.column
    }
}

/// `Iterator<Integer>` over this block's tiles, Java-style.
struct TileIterator {
    cursor: u32,
    step: u32,
    end: u32,
}

impl TileIterator {
    #[inline(always)]
    fn new(first: u32, step: u32, end: u32) -> Self {
        TileIterator { cursor: first, step, end }
    }

    #[inline(always)]
    fn has_next(&self) -> bool {
        self.cursor < self.end
    }

    #[inline(always)]
    fn next(&mut self) -> u32 {
        let tile = self.cursor;
        self.cursor += self.step;
        tile
    }
}

#[inline(always)]
unsafe fn publish(out: *mut f32, consumer: &ColumnConsumer) {
    *out.add((block_idx_x() * TILE_COLUMNS + consumer.get_column()) as usize) = consumer.get_sum();
}

/// Config from the builder, the pipeline service, and the two role objects driven by plain tile
/// loops.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_bean_builder_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(SHARED_MEMORY_SIZE);
    let config = KernelConfigBuilder::new().with_stage_bytes(TILE_ELEMENTS * FLOAT_SIZE).with_consumer_count(32).with_producer_thread(0).build();
    let service = TilePipeline::create(&config);
    let thread = thread_idx_x();
    if config.is_producer(thread) {
        let mut producer = TileProducer::new(&service, input, config.get_stage_bytes());
        let mut tile = block_idx_x();
        while tile < tiles {
            producer.produce(tile);
            tile += grid_dim_x();
        }
        producer.close();
    } else if config.is_consumer(thread) {
        let mut consumer = ColumnConsumer::new(&service, config.get_consumer_index(thread));
        let mut tile = block_idx_x();
        while tile < tiles {
            consumer.consume();
            tile += grid_dim_x();
        }
        publish(out, &consumer);
    }
}

/// The same roles driven by Java-style `TileIterator`s: `while (it.hasNext()) { … it.next() … }`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_bean_tile_iterators(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(SHARED_MEMORY_SIZE);
    let config = KernelConfigBuilder::new().with_consumer_count(32).build();
    let service = TilePipeline::create(&config);
    let thread = thread_idx_x();
    if config.is_producer(thread) {
        let mut producer = TileProducer::new(&service, input, config.get_stage_bytes());
        let mut it = TileIterator::new(block_idx_x(), grid_dim_x(), tiles);
        while it.has_next() {
            let tile = it.next();
            producer.produce(tile);
        }
        producer.close();
    } else if config.is_consumer(thread) {
        let mut consumer = ColumnConsumer::new(&service, config.get_consumer_index(thread));
        let mut it = TileIterator::new(block_idx_x(), grid_dim_x(), tiles);
        while it.has_next() {
            let _tile = it.next();
            consumer.consume();
        }
        publish(out, &consumer);
    }
}

/// A bean over the shared tile: getters and setters by row and column.
#[derive(Clone, Copy)]
struct SharedTile {
    data: *mut f32,
}

impl SharedTile {
    #[inline(always)]
    fn at_offset(offset_floats: u32) -> Self {
        SharedTile { data: dynamic_shared_base::<f32>().wrapping_add(offset_floats as usize) }
    }

    #[inline(always)]
    unsafe fn get(&self, row: u32, column: u32) -> f32 {
        *self.data.add((row * TILE_COLUMNS + column) as usize)
    }

    #[inline(always)]
    unsafe fn set(&self, index: u32, value: f32) {
        *self.data.add(index as usize) = value;
    }

    /// Every thread copies its four elements of tile `tile`.
    #[inline(always)]
    unsafe fn load_from(&self, source: *const f32, tile: u32, thread: u32) {
        for k in 0..TILE_ELEMENTS / BLOCK_SIZE {
            let index = thread + BLOCK_SIZE * k;
            self.set(index, *source.add((tile * TILE_ELEMENTS + index) as usize));
        }
    }
}

/// A bean accumulating one column.
#[derive(Clone, Copy)]
struct ColumnAccumulator {
    column: u32,
    total: f32,
}

impl ColumnAccumulator {
    #[inline(always)]
    fn new(column: u32) -> Self {
        ColumnAccumulator { column, total: 0.0 }
    }

    #[inline(always)]
    fn add(&mut self, value: f32) {
        self.total += value;
    }

    #[inline(always)]
    fn get_total(&self) -> f32 {
        self.total
    }

    #[inline(always)]
    fn get_column(&self) -> u32 {
        self.column
    }
}

/// Plain staging with beans: the `SharedTile` loads itself, a `ColumnAccumulator` per thread of
/// the first warp adds up its column through the tile's getter.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_bean_accumulator_beans(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(SHARED_MEMORY_SIZE);
    let thread = thread_idx_x();
    let tile_bean = SharedTile::at_offset(0);
    let mut accumulator = ColumnAccumulator::new(thread % TILE_COLUMNS);
    let mut tile = block_idx_x();
    while tile < tiles {
        tile_bean.load_from(input, tile, thread);
        barrier();
        if thread < TILE_COLUMNS {
            for row in 0..TILE_ROWS {
                accumulator.add(tile_bean.get(row, accumulator.get_column()));
            }
        }
        barrier();
        tile += grid_dim_x();
    }
    if thread < TILE_COLUMNS {
        *out.add((block_idx_x() * TILE_COLUMNS + accumulator.get_column()) as usize) = accumulator.get_total();
    }
}

/// The abstract job: `run()` is the template method, the hooks are the subclass's.
trait TiledJob {
    unsafe fn load_tile(&mut self, tile: u32);
    unsafe fn process_tile(&mut self);
    unsafe fn finish(&mut self);

    #[inline(always)]
    unsafe fn run(&mut self, first: u32, step: u32, end: u32) {
        let mut tile = first;
        while tile < end {
            self.load_tile(tile);
            barrier();
            self.process_tile();
            barrier();
            tile += step;
        }
        self.finish();
    }
}

struct ColumnSumJob {
    tile: SharedTile,
    source: *const f32,
    sink: *mut f32,
    thread: u32,
    accumulator: ColumnAccumulator,
}

impl TiledJob for ColumnSumJob {
    #[inline(always)]
    unsafe fn load_tile(&mut self, tile: u32) {
        self.tile.load_from(self.source, tile, self.thread);
    }

    #[inline(always)]
    unsafe fn process_tile(&mut self) {
        if self.thread < TILE_COLUMNS {
            for row in 0..TILE_ROWS {
                let value = self.tile.get(row, self.accumulator.get_column());
                self.accumulator.add(value);
            }
        }
    }

    #[inline(always)]
    unsafe fn finish(&mut self) {
        if self.thread < TILE_COLUMNS {
            *self.sink.add((block_idx_x() * TILE_COLUMNS + self.accumulator.get_column()) as usize) = self.accumulator.get_total();
        }
    }
}

/// Template method: `ColumnSumJob` implements the hooks of `TiledJob`, whose `run()` stages,
/// synchronises and processes each tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_bean_template_method(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(SHARED_MEMORY_SIZE);
    let thread = thread_idx_x();
    let mut job = ColumnSumJob {
        tile: SharedTile::at_offset(0),
        source: input,
        sink: out,
        thread,
        accumulator: ColumnAccumulator::new(thread % TILE_COLUMNS),
    };
    job.run(block_idx_x(), grid_dim_x(), tiles);
}

/// A consumer that caches its stage pointer in a field, as a bean caches a derived property.
struct CachingColumnConsumer<'a> {
    service: &'a TilePipeline,
    state: PipelineState<STAGE_COUNT>,
    stage: *const f32,
    column: u32,
    sum: f32,
}

impl<'a> CachingColumnConsumer<'a> {
    #[inline(always)]
    fn new(service: &'a TilePipeline, column: u32) -> Self {
        let state = PipelineState::new();
        CachingColumnConsumer { service, state, stage: service.get_stage_pointer(&state), column, sum: 0.0 }
    }

    #[inline(always)]
    unsafe fn consume(&mut self) {
        let pipeline = self.service.get_pipeline();
        pipeline.consumer_wait(&self.state);
        for row in 0..TILE_ROWS {
            self.sum += *self.stage.add((row * TILE_COLUMNS + self.column) as usize);
        }
        pipeline.consumer_release(&self.state);
        self.state.advance();
    }
}

/// BROKEN: the consumer bean caches its stage pointer when it is constructed and never refreshes
/// it after `advance()`, so every tile is read from stage 0: tiles 1, 2, 3, 5, 6, 7 are never
/// summed and stage 0 is read while the producer refills it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_bean_bad_cached_stage_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(SHARED_MEMORY_SIZE);
    let config = KernelConfigBuilder::new().build();
    let service = TilePipeline::create(&config);
    let thread = thread_idx_x();
    if config.is_producer(thread) {
        let mut producer = TileProducer::new(&service, input, config.get_stage_bytes());
        let mut tile = block_idx_x();
        while tile < tiles {
            producer.produce(tile);
            tile += grid_dim_x();
        }
        producer.close();
    } else if config.is_consumer(thread) {
        let mut consumer = CachingColumnConsumer::new(&service, config.get_consumer_index(thread));
        let mut tile = block_idx_x();
        while tile < tiles {
            consumer.consume();
            tile += grid_dim_x();
        }
        *out.add((block_idx_x() * TILE_COLUMNS + consumer.column) as usize) = consumer.sum;
    }
}

/// Leader election: the first lane of a warp.
#[inline(always)]
fn is_warp_leader(thread: u32) -> bool {
    thread % 32 == 0
}

/// BROKEN: the producer is elected with `is_warp_leader` (lane 0 of *every* warp): threads 0 and
/// 32 both produce every tile on full barriers initialised for one arrival, and thread 32, taken
/// by the producer branch, never consumes, so each stage gets 31 releases of the 32 expected.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_bean_bad_leader_election(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(SHARED_MEMORY_SIZE);
    let config = KernelConfigBuilder::new().build();
    let service = TilePipeline::create(&config);
    let thread = thread_idx_x();
    if is_warp_leader(thread) {
        let mut producer = TileProducer::new(&service, input, config.get_stage_bytes());
        let mut tile = block_idx_x();
        while tile < tiles {
            producer.produce(tile);
            tile += grid_dim_x();
        }
        producer.close();
    } else if config.is_consumer(thread) {
        let mut consumer = ColumnConsumer::new(&service, config.get_consumer_index(thread));
        let mut tile = block_idx_x();
        while tile < tiles {
            consumer.consume();
            tile += grid_dim_x();
        }
        publish(out, &consumer);
    }
}

/// BROKEN: the consumers' iterator ends at `config.get_last_tile_index(tiles)` (an inclusive
/// index used as an exclusive end): the block owning tile 63 consumes one tile fewer than its
/// producer fills, and the producer's tail waits forever for that stage's release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_bean_bad_iterator_last_index(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(SHARED_MEMORY_SIZE);
    let config = KernelConfigBuilder::new().build();
    let service = TilePipeline::create(&config);
    let thread = thread_idx_x();
    if config.is_producer(thread) {
        let mut producer = TileProducer::new(&service, input, config.get_stage_bytes());
        let mut it = TileIterator::new(block_idx_x(), grid_dim_x(), tiles);
        while it.has_next() {
            producer.produce(it.next());
        }
        producer.close();
    } else if config.is_consumer(thread) {
        let mut consumer = ColumnConsumer::new(&service, config.get_consumer_index(thread));
        let mut it = TileIterator::new(block_idx_x(), grid_dim_x(), config.get_last_tile_index(tiles));
        while it.has_next() {
            let _tile = it.next();
            consumer.consume();
        }
        publish(out, &consumer);
    }
}

/// BROKEN: the transfer size comes from `config.get_tile_size()`, the tile's size in elements
/// (256), where bytes (1024) are meant: announce and copy agree on 256 bytes, so only rows 0 and
/// 1 of each stage are filled and the consumers add rows 2..7 of whatever the stage held.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_bean_bad_tile_size_getter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_SIZE);
    dynamic_shared_bytes(SHARED_MEMORY_SIZE);
    let config = KernelConfigBuilder::new().build();
    let service = TilePipeline::create(&config);
    let thread = thread_idx_x();
    if config.is_producer(thread) {
        let mut producer = TileProducer::new(&service, input, config.get_tile_size());
        let mut tile = block_idx_x();
        while tile < tiles {
            producer.produce(tile);
            tile += grid_dim_x();
        }
        producer.close();
    } else if config.is_consumer(thread) {
        let mut consumer = ColumnConsumer::new(&service, config.get_consumer_index(thread));
        let mut tile = block_idx_x();
        while tile < tiles {
            consumer.consume();
            tile += grid_dim_x();
        }
        publish(out, &consumer);
    }
}
