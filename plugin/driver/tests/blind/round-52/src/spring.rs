//! Spring-framework (enterprise Java) conventions: configuration objects made by builders with
//! defaults, beans handed to services through their constructors (dependency injection),
//! `get*` accessors, interfaces with one `Default*` implementation, services with an
//! `execute()` entry point, and long, descriptive names.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK_THREAD_COUNT: u32 = 64;
const DYNAMIC_SHARED_MEMORY_BYTES: u32 = 8192;
const COLUMN_COUNT: usize = 32;
const ROW_COUNT: usize = 8;
const DEFAULT_CONSUMER_THREAD_COUNT: u32 = BLOCK_THREAD_COUNT;
const DEFAULT_TILE_SIZE: u32 = 256;
const BYTES_PER_ELEMENT: u32 = 4;

/// Immutable configuration, built once.
#[derive(Clone, Copy)]
struct TileRingConfiguration {
    tile_size: u32,
    consumer_thread_count: u32,
    producer_thread_index: u32,
}

impl TileRingConfiguration {
    #[inline(always)]
    fn get_tile_size(&self) -> u32 {
        self.tile_size
    }
    #[inline(always)]
    fn get_tile_bytes(&self) -> u32 {
        self.tile_size * BYTES_PER_ELEMENT
    }
    #[inline(always)]
    fn get_consumer_thread_count(&self) -> u32 {
        self.consumer_thread_count
    }
    #[inline(always)]
    fn get_producer_thread_index(&self) -> u32 {
        self.producer_thread_index
    }
}

struct TileRingConfigurationBuilder {
    tile_size: u32,
    consumer_thread_count: u32,
    producer_thread_index: u32,
}

impl TileRingConfigurationBuilder {
    #[inline(always)]
    fn new() -> Self {
        TileRingConfigurationBuilder { tile_size: DEFAULT_TILE_SIZE, consumer_thread_count: DEFAULT_CONSUMER_THREAD_COUNT, producer_thread_index: 32 }
    }
    #[inline(always)]
    fn consumer_thread_count(mut self, count: u32) -> Self {
        self.consumer_thread_count = count;
        self
    }
    #[inline(always)]
    fn producer_thread_index(mut self, index: u32) -> Self {
        self.producer_thread_index = index;
        self
    }
    #[inline(always)]
    fn build(self) -> TileRingConfiguration {
        TileRingConfiguration { tile_size: self.tile_size, consumer_thread_count: self.consumer_thread_count, producer_thread_index: self.producer_thread_index }
    }
}

/// The repository interface: where a tile comes from.
trait TileRepository {
    unsafe fn find_tile_by_index(&self, tile_index: u32) -> *const u8;
}

struct DefaultTileRepository {
    input: *const f32,
    tile_size: u32,
}

impl TileRepository for DefaultTileRepository {
    #[inline(always)]
    unsafe fn find_tile_by_index(&self, tile_index: u32) -> *const u8 {
        self.input.add((tile_index * self.tile_size) as usize) as *const u8
    }
}

/// Streams the block's tiles into the ring.
struct TileStreamingService<'a, const STAGES: u32, R: TileRepository> {
    pipeline: &'a Pipeline<STAGES>,
    configuration: TileRingConfiguration,
    repository: R,
}

impl<'a, const STAGES: u32, R: TileRepository> TileStreamingService<'a, STAGES, R> {
    #[inline(always)]
    unsafe fn execute(&self, tile_count: u32) {
        let shared_window = dynamic_shared_window_address();
        let tile_bytes = self.configuration.get_tile_bytes();
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile_index = block_idx_x();
        while tile_index < tile_count {
            self.pipeline.producer_acquire(&state);
            self.pipeline.producer_expect_tx(&state, tile_bytes);
            bulk_copy_global_to_shared(shared_window + state.index() * tile_bytes, self.repository.find_tile_by_index(tile_index), tile_bytes, self.pipeline.producer_barrier(&state));
            state.advance();
            tile_index += grid_dim_x();
        }
        self.pipeline.producer_tail(state);
    }
}

/// Sums one column of every tile the ring delivers.
struct ColumnAggregationService<'a, const STAGES: u32> {
    pipeline: &'a Pipeline<STAGES>,
    configuration: TileRingConfiguration,
    column_index: usize,
}

impl<'a, const STAGES: u32> ColumnAggregationService<'a, STAGES> {
    #[inline(always)]
    unsafe fn execute(&self, tile_count: u32) -> f32 {
        let shared_tiles = dynamic_shared_base::<f32>();
        let tile_size = self.configuration.get_tile_size() as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut aggregate = 0.0f32;
        let mut tile_index = block_idx_x();
        while tile_index < tile_count {
            self.pipeline.consumer_wait(&state);
            let stage = shared_tiles.add(state.index() as usize * tile_size);
            for row_index in 0..ROW_COUNT {
                aggregate += *stage.add(row_index * COLUMN_COUNT + self.column_index);
            }
            self.pipeline.consumer_release(&state);
            state.advance();
            tile_index += grid_dim_x();
        }
        aggregate
    }
}

#[inline(always)]
unsafe fn write_aggregate(out: *mut f32, column_index: usize, aggregate: f32) {
    *out.add(block_idx_x() as usize * COLUMN_COUNT + column_index) = aggregate;
}

/// The pipeline bean: thread 0 initialises, everyone attaches, one sync.
#[inline(always)]
fn create_pipeline_bean<const STAGES: u32>(configuration: &TileRingConfiguration) -> Pipeline<STAGES> {
    let barrier_address = dynamic_shared_window_address() + STAGES * configuration.get_tile_bytes();
    let pipeline = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(barrier_address, configuration.get_consumer_thread_count())
    } else {
        Pipeline::<STAGES>::attach(barrier_address)
    };
    barrier();
    pipeline
}

/// Application context: configuration, bean, both services; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_spring_application_context(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREAD_COUNT);
    dynamic_shared_bytes(DYNAMIC_SHARED_MEMORY_BYTES);
    let configuration = TileRingConfigurationBuilder::new().consumer_thread_count(32).build();
    let pipeline = create_pipeline_bean::<4>(&configuration);
    let thread_index = thread_idx_x();
    if thread_index == configuration.get_producer_thread_index() {
        let service = TileStreamingService { pipeline: &pipeline, configuration, repository: DefaultTileRepository { input, tile_size: configuration.get_tile_size() } };
        service.execute(tiles);
    } else if thread_index < 32 {
        let service = ColumnAggregationService { pipeline: &pipeline, configuration, column_index: thread_index as usize };
        let aggregate = service.execute(tiles);
        write_aggregate(out, thread_index as usize, aggregate);
    }
}

/// Producer injected on thread 0, aggregation services in warp 1; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_spring_injected_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREAD_COUNT);
    dynamic_shared_bytes(DYNAMIC_SHARED_MEMORY_BYTES);
    let configuration = TileRingConfigurationBuilder::new().consumer_thread_count(32).producer_thread_index(0).build();
    let pipeline = create_pipeline_bean::<3>(&configuration);
    let thread_index = thread_idx_x();
    if thread_index == configuration.get_producer_thread_index() {
        let service = TileStreamingService { pipeline: &pipeline, configuration, repository: DefaultTileRepository { input, tile_size: configuration.get_tile_size() } };
        service.execute(tiles);
    } else if thread_index >= 32 {
        let column_index = (thread_index - 32) as usize;
        let service = ColumnAggregationService { pipeline: &pipeline, configuration, column_index };
        let aggregate = service.execute(tiles);
        write_aggregate(out, column_index, aggregate);
    }
}

/// A single-stage ring: the streaming service waits for every tile to be aggregated.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_spring_single_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREAD_COUNT);
    dynamic_shared_bytes(DYNAMIC_SHARED_MEMORY_BYTES);
    let configuration = TileRingConfigurationBuilder::new().consumer_thread_count(32).build();
    let pipeline = create_pipeline_bean::<1>(&configuration);
    let thread_index = thread_idx_x();
    if thread_index == configuration.get_producer_thread_index() {
        let service = TileStreamingService { pipeline: &pipeline, configuration, repository: DefaultTileRepository { input, tile_size: configuration.get_tile_size() } };
        service.execute(tiles);
    } else if thread_index < 32 {
        let service = ColumnAggregationService { pipeline: &pipeline, configuration, column_index: thread_index as usize };
        let aggregate = service.execute(tiles);
        write_aggregate(out, thread_index as usize, aggregate);
    }
}

/// Result cache: every thread aggregates half a column straight from the repository, the
/// cache holds the 64 partials, warp 0 merges them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_spring_result_cache(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREAD_COUNT);
    dynamic_shared_bytes(DYNAMIC_SHARED_MEMORY_BYTES);
    let result_cache = dynamic_shared_base::<f32>();
    let thread_index = thread_idx_x();
    let column_index = (thread_index % 32) as usize;
    let half_index = (thread_index / 32) as usize;
    let mut partial_aggregate = 0.0f32;
    let mut tile_index = block_idx_x();
    while tile_index < tiles {
        let tile = input.add(tile_index as usize * DEFAULT_TILE_SIZE as usize);
        for row_index in half_index * 4..half_index * 4 + 4 {
            partial_aggregate += *tile.add(row_index * COLUMN_COUNT + column_index);
        }
        tile_index += grid_dim_x();
    }
    *result_cache.add(half_index * COLUMN_COUNT + column_index) = partial_aggregate;
    barrier();
    if thread_index < 32 {
        write_aggregate(out, column_index, *result_cache.add(column_index) + *result_cache.add(COLUMN_COUNT + column_index));
    }
}

/// Application context relying on the builder's default consumer count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_spring_default_configuration(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREAD_COUNT);
    dynamic_shared_bytes(DYNAMIC_SHARED_MEMORY_BYTES);
    let configuration = TileRingConfigurationBuilder::new().build();
    let pipeline = create_pipeline_bean::<4>(&configuration);
    let thread_index = thread_idx_x();
    if thread_index == configuration.get_producer_thread_index() {
        let service = TileStreamingService { pipeline: &pipeline, configuration, repository: DefaultTileRepository { input, tile_size: configuration.get_tile_size() } };
        service.execute(tiles);
    } else if thread_index < 32 {
        let service = ColumnAggregationService { pipeline: &pipeline, configuration, column_index: thread_index as usize };
        let aggregate = service.execute(tiles);
        write_aggregate(out, thread_index as usize, aggregate);
    }
}

/// A streaming service that sizes its transfers with the configuration's tile size getter.
struct SizedTileStreamingService<'a, const STAGES: u32, R: TileRepository> {
    pipeline: &'a Pipeline<STAGES>,
    configuration: TileRingConfiguration,
    repository: R,
}

impl<'a, const STAGES: u32, R: TileRepository> SizedTileStreamingService<'a, STAGES, R> {
    #[inline(always)]
    unsafe fn execute(&self, tile_count: u32) {
        let shared_window = dynamic_shared_window_address();
        let stage_bytes = self.configuration.get_tile_bytes();
        let transfer_size = self.configuration.get_tile_size();
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile_index = block_idx_x();
        while tile_index < tile_count {
            self.pipeline.producer_acquire(&state);
            self.pipeline.producer_expect_tx(&state, transfer_size);
            bulk_copy_global_to_shared(shared_window + state.index() * stage_bytes, self.repository.find_tile_by_index(tile_index), transfer_size, self.pipeline.producer_barrier(&state));
            state.advance();
            tile_index += grid_dim_x();
        }
        self.pipeline.producer_tail(state);
    }
}

/// Application context with the sized streaming service.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_spring_sized_transfers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREAD_COUNT);
    dynamic_shared_bytes(DYNAMIC_SHARED_MEMORY_BYTES);
    let configuration = TileRingConfigurationBuilder::new().consumer_thread_count(32).build();
    let pipeline = create_pipeline_bean::<4>(&configuration);
    let thread_index = thread_idx_x();
    if thread_index == configuration.get_producer_thread_index() {
        let service = SizedTileStreamingService { pipeline: &pipeline, configuration, repository: DefaultTileRepository { input, tile_size: configuration.get_tile_size() } };
        service.execute(tiles);
    } else if thread_index < 32 {
        let service = ColumnAggregationService { pipeline: &pipeline, configuration, column_index: thread_index as usize };
        let aggregate = service.execute(tiles);
        write_aggregate(out, thread_index as usize, aggregate);
    }
}

/// An aggregation service whose cursor moves in the loop header and whose release sits in
/// the body's cleanup, after the read.
struct CursorAggregationService<'a, const STAGES: u32> {
    pipeline: &'a Pipeline<STAGES>,
    configuration: TileRingConfiguration,
    column_index: usize,
}

impl<'a, const STAGES: u32> CursorAggregationService<'a, STAGES> {
    #[inline(always)]
    unsafe fn execute(&self, tile_count: u32) -> f32 {
        let shared_tiles = dynamic_shared_base::<f32>();
        let tile_size = self.configuration.get_tile_size() as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut aggregate = 0.0f32;
        let mut tile_index = block_idx_x();
        while tile_index < tile_count {
            self.pipeline.consumer_wait(&state);
            let stage = shared_tiles.add(state.index() as usize * tile_size);
            for row_index in 0..ROW_COUNT {
                aggregate += *stage.add(row_index * COLUMN_COUNT + self.column_index);
            }
            state.advance();
            self.pipeline.consumer_release(&state);
            tile_index += grid_dim_x();
        }
        aggregate
    }
}

/// Application context with the cursor-style aggregation service.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_spring_cursor_aggregation(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREAD_COUNT);
    dynamic_shared_bytes(DYNAMIC_SHARED_MEMORY_BYTES);
    let configuration = TileRingConfigurationBuilder::new().consumer_thread_count(32).build();
    let pipeline = create_pipeline_bean::<4>(&configuration);
    let thread_index = thread_idx_x();
    if thread_index == configuration.get_producer_thread_index() {
        let service = TileStreamingService { pipeline: &pipeline, configuration, repository: DefaultTileRepository { input, tile_size: configuration.get_tile_size() } };
        service.execute(tiles);
    } else if thread_index < 32 {
        let service = CursorAggregationService { pipeline: &pipeline, configuration, column_index: thread_index as usize };
        let aggregate = service.execute(tiles);
        write_aggregate(out, thread_index as usize, aggregate);
    }
}

/// Result cache keyed by column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_spring_column_cache(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREAD_COUNT);
    dynamic_shared_bytes(DYNAMIC_SHARED_MEMORY_BYTES);
    let result_cache = dynamic_shared_base::<f32>();
    let thread_index = thread_idx_x();
    let column_index = (thread_index % 32) as usize;
    let half_index = (thread_index / 32) as usize;
    let mut partial_aggregate = 0.0f32;
    let mut tile_index = block_idx_x();
    while tile_index < tiles {
        let tile = input.add(tile_index as usize * DEFAULT_TILE_SIZE as usize);
        for row_index in half_index * 4..half_index * 4 + 4 {
            partial_aggregate += *tile.add(row_index * COLUMN_COUNT + column_index);
        }
        tile_index += grid_dim_x();
    }
    *result_cache.add(column_index) = partial_aggregate;
    barrier();
    if half_index == 0 {
        write_aggregate(out, column_index, partial_aggregate + *result_cache.add(column_index));
    }
}
