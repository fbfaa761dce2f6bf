//! Module `ecs`: the kernels written the way an entity-component-system programmer (Bevy,
//! specs, flecs) writes them. Every thread is an *entity*; what it does is decided by
//! *queries* over its components (`is_producer`, `is_aggregator`); the block-wide things
//! (the shared window, the tile workload, the kernel's I/O) are *resources* in a `World`;
//! the work is done by *systems*, plain functions that take the world and the components
//! they touch, run in a fixed schedule by the kernel (startup, transfer, accumulate,
//! writeback).

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

// ---- constants of the schedule ----------------------------------------------------------------

const STAGES: u32 = 4;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = TILE_FLOATS * 4;
const ROWS: u32 = 8;
const COLUMNS: u32 = 32;
const BLOCK_ENTITIES: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
/// Barrier area at the window's start, the ring of stages one KiB in.
const BARRIER_OFFSET: u32 = 0;
const RING_OFFSET: u32 = 1024;
/// Aggregating entities: warp 0. The transfer entity: the first thread of warp 1.
const AGGREGATORS: u32 = 32;
const PRODUCER_ID: u32 = 32;
/// Plain-staging kernels: where the per-entity partials are parked (after the staged tile).
const SCRATCH_FLOAT: u32 = TILE_FLOATS;

// ---- entities and components ------------------------------------------------------------------

/// An entity: one thread of the block.
#[derive(Clone, Copy)]
struct Entity {
    id: u32,
}

/// Component of an aggregating entity: the column it owns.
#[derive(Clone, Copy)]
struct ColumnComponent {
    column: u32,
}

/// Component of an aggregating entity: its running sum.
#[derive(Clone, Copy)]
struct SumComponent {
    value: f32,
}

// ---- resources -----------------------------------------------------------------------------

/// Resource: the dynamic shared window, in both address spaces.
#[derive(Clone, Copy)]
struct WindowResource {
    address: u32,
    base: *mut f32,
}

/// Resource: the tiles this block owns (`first, first + step, …` below `end`).
#[derive(Clone, Copy)]
struct WorkResource {
    first: u32,
    step: u32,
    end: u32,
}

/// Resource: the kernel's parameters.
#[derive(Clone, Copy)]
struct IoResource {
    input: *const f32,
    out: *mut f32,
}

/// The world: every resource of the block.
struct World {
    window: WindowResource,
    work: WorkResource,
    io: IoResource,
}

impl World {
    #[inline(always)]
    fn build(input: *const f32, tiles: u32, out: *mut f32) -> World {
        World {
            window: WindowResource {
                address: device::dynamic_shared_window_address(),
                base: device::dynamic_shared_base::<f32>(),
            },
            work: WorkResource { first: device::block_idx_x(), step: device::grid_dim_x(), end: tiles },
            io: IoResource { input, out },
        }
    }
}

// ---- queries -------------------------------------------------------------------------------

#[inline(always)]
fn spawn_entity() -> Entity {
    Entity { id: device::thread_idx_x() }
}

#[inline(always)]
fn is_producer(e: Entity) -> bool {
    e.id == PRODUCER_ID
}

#[inline(always)]
fn is_aggregator(e: Entity) -> bool {
    e.id < AGGREGATORS
}

#[inline(always)]
fn column_of(e: Entity) -> ColumnComponent {
    ColumnComponent { column: e.id % COLUMNS }
}

// ---- systems -------------------------------------------------------------------------------

/// Startup system: entity 0 initialises the barriers, everyone syncs, everyone attaches.
#[inline(always)]
fn startup_system(world: &World, e: Entity) -> Pipeline<STAGES> {
    if e.id == 0 {
        Pipeline::<STAGES>::init(world.window.address + BARRIER_OFFSET, AGGREGATORS);
    }
    device::barrier();
    Pipeline::<STAGES>::attach(world.window.address + BARRIER_OFFSET)
}

/// Transfer system: one tile from global memory into the stage the cursor points at.
#[inline(always)]
fn transfer_system(world: &World, pipe: &Pipeline<STAGES>, cursor: &mut PipelineState<STAGES>, tile: u32) {
    pipe.producer_acquire(cursor);
    pipe.producer_expect_tx(cursor, TILE_BYTES);
    let destination = world.window.address + RING_OFFSET + cursor.index() * TILE_BYTES;
    let source = world.io.input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
    bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipe.producer_barrier(cursor));
    cursor.advance();
}

/// Accumulate system: waits for the cursor's stage, adds the entity's column, releases it.
#[inline(always)]
unsafe fn accumulate_system(
    world: &World,
    pipe: &Pipeline<STAGES>,
    cursor: &mut PipelineState<STAGES>,
    col: ColumnComponent,
    sum: &mut SumComponent,
) {
    pipe.consumer_wait(cursor);
    let stage = world.window.base.add((RING_OFFSET / 4 + cursor.index() * TILE_FLOATS) as usize);
    let mut row = 0;
    while row < ROWS {
        sum.value += *stage.add((row * COLUMNS + col.column) as usize);
        row += 1;
    }
    pipe.consumer_release(cursor);
    cursor.advance();
}

/// Writeback system: the entity's sum into its slot of the block's output row.
#[inline(always)]
unsafe fn writeback_system(world: &World, col: ColumnComponent, sum: SumComponent) {
    *world.io.out.add((world.work.first * COLUMNS + col.column) as usize) = sum.value;
}

/// Staging system (plain kernels): every entity moves its four floats of `tile` into the window.
#[inline(always)]
unsafe fn load_system(world: &World, e: Entity, tile: u32) {
    let mut k = 0;
    while k < TILE_FLOATS / BLOCK_ENTITIES {
        let i = e.id + k * BLOCK_ENTITIES;
        *world.window.base.add(i as usize) = *world.io.input.add((tile * TILE_FLOATS + i) as usize);
        k += 1;
    }
}

// ---- kernels -------------------------------------------------------------------------------

/// The plain schedule: startup, then the transfer entity runs the transfer system per tile
/// and the aggregating entities the accumulate system, then writeback.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_ecs_systems_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_ENTITIES);
    dynamic_shared_bytes(WINDOW_BYTES);
    let world = World::build(input, tiles, out);
    let me = spawn_entity();
    let pipe = startup_system(&world, me);
    if is_producer(me) {
        let mut cursor = PipelineState::<STAGES>::producer_start();
        let mut tile = world.work.first;
        while tile < world.work.end {
            transfer_system(&world, &pipe, &mut cursor, tile);
            tile += world.work.step;
        }
        pipe.producer_tail(cursor);
    } else if is_aggregator(me) {
        let col = column_of(me);
        let mut sum = SumComponent { value: 0.0 };
        let mut cursor = PipelineState::<STAGES>::new();
        let mut tile = world.work.first;
        while tile < world.work.end {
            accumulate_system(&world, &pipe, &mut cursor, col, &mut sum);
            tile += world.work.step;
        }
        writeback_system(&world, col, sum);
    }
}

/// The transfer split into two systems scheduled "DMA first, announce second": the bulk copy
/// is issued right after the acquire and the `expect_tx` after it (the order MODEL.md's
/// `producer-order` allows: the bytes may land before they are announced).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_ecs_dma_before_announce(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_ENTITIES);
    dynamic_shared_bytes(WINDOW_BYTES);
    let world = World::build(input, tiles, out);
    let me = spawn_entity();
    let pipe = startup_system(&world, me);
    if is_producer(me) {
        let mut cursor = PipelineState::<STAGES>::producer_start();
        let mut tile = world.work.first;
        while tile < world.work.end {
            pipe.producer_acquire(&cursor);
            // DmaSystem
            let destination = world.window.address + RING_OFFSET + cursor.index() * TILE_BYTES;
            let source = world.io.input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipe.producer_barrier(&cursor));
            // AnnounceSystem
            pipe.producer_expect_tx(&cursor, TILE_BYTES);
            cursor.advance();
            tile += world.work.step;
        }
        pipe.producer_tail(cursor);
    } else if is_aggregator(me) {
        let col = column_of(me);
        let mut sum = SumComponent { value: 0.0 };
        let mut cursor = PipelineState::<STAGES>::new();
        let mut tile = world.work.first;
        while tile < world.work.end {
            accumulate_system(&world, &pipe, &mut cursor, col, &mut sum);
            tile += world.work.step;
        }
        writeback_system(&world, col, sum);
    }
}

/// No pipeline: every entity stages a quarter of the tile, a block barrier, the aggregating
/// entities sum their column, a block barrier before the next tile overwrites the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_ecs_staging_world(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_ENTITIES);
    dynamic_shared_bytes(WINDOW_BYTES);
    let world = World::build(input, tiles, out);
    let me = spawn_entity();
    let col = column_of(me);
    let mut sum = SumComponent { value: 0.0 };
    let mut tile = world.work.first;
    while tile < world.work.end {
        load_system(&world, me, tile);
        device::barrier();
        if is_aggregator(me) {
            let mut row = 0;
            while row < ROWS {
                sum.value += *world.window.base.add((row * COLUMNS + col.column) as usize);
                row += 1;
            }
        }
        device::barrier();
        tile += world.work.step;
    }
    if is_aggregator(me) {
        writeback_system(&world, col, sum);
    }
}

/// No pipeline: both warps aggregate, warp `w` rows `4w..4w + 4` of its lane's column; the
/// partials are parked in a scratch component array after the tile, a block barrier, and
/// warp 0 combines its own and warp 1's partial.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_ecs_split_rows_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_ENTITIES);
    dynamic_shared_bytes(WINDOW_BYTES);
    let world = World::build(input, tiles, out);
    let me = spawn_entity();
    let col = column_of(me);
    let half = me.id / COLUMNS;
    let mut partial = SumComponent { value: 0.0 };
    let mut tile = world.work.first;
    while tile < world.work.end {
        load_system(&world, me, tile);
        device::barrier();
        let mut row = half * (ROWS / 2);
        while row < half * (ROWS / 2) + ROWS / 2 {
            partial.value += *world.window.base.add((row * COLUMNS + col.column) as usize);
            row += 1;
        }
        device::barrier();
        tile += world.work.step;
    }
    *world.window.base.add((SCRATCH_FLOAT + me.id) as usize) = partial.value;
    device::barrier();
    if is_aggregator(me) {
        let total = *world.window.base.add((SCRATCH_FLOAT + col.column) as usize)
            + *world.window.base.add((SCRATCH_FLOAT + COLUMNS + col.column) as usize);
        writeback_system(&world, col, SumComponent { value: total });
    }
}

/// BROKEN: the spawner (entity 0) is made the transfer entity and the aggregator query is
/// "warp 0 without the spawner": 31 entities release each stage, but the barriers were
/// initialised for `AGGREGATORS` (32) releases, so no *empty* barrier ever completes and the
/// producer hangs at its fifth tile (and column 0 is never written).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_ecs_bad_query_without_spawner(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_ENTITIES);
    dynamic_shared_bytes(WINDOW_BYTES);
    let world = World::build(input, tiles, out);
    let me = spawn_entity();
    let pipe = startup_system(&world, me);
    let spawner = me.id == 0;
    if spawner {
        let mut cursor = PipelineState::<STAGES>::producer_start();
        let mut tile = world.work.first;
        while tile < world.work.end {
            transfer_system(&world, &pipe, &mut cursor, tile);
            tile += world.work.step;
        }
        pipe.producer_tail(cursor);
    } else if is_aggregator(me) {
        let col = column_of(me);
        let mut sum = SumComponent { value: 0.0 };
        let mut cursor = PipelineState::<STAGES>::new();
        let mut tile = world.work.first;
        while tile < world.work.end {
            accumulate_system(&world, &pipe, &mut cursor, col, &mut sum);
            tile += world.work.step;
        }
        writeback_system(&world, col, sum);
    }
}

/// BROKEN: the schedule runs the advance system before the wait system (systems run in
/// registration order, and "advance" was registered first): each aggregator steps its
/// cursor, then waits on, sums and releases the stage after the one it should. The first
/// round skips stage 0, the fourth tile waits for a phase of stage 0 that needs the fifth
/// copy, and the producer waits for a release of stage 0 that never comes: the block hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_ecs_bad_advance_system_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_ENTITIES);
    dynamic_shared_bytes(WINDOW_BYTES);
    let world = World::build(input, tiles, out);
    let me = spawn_entity();
    let pipe = startup_system(&world, me);
    if is_producer(me) {
        let mut cursor = PipelineState::<STAGES>::producer_start();
        let mut tile = world.work.first;
        while tile < world.work.end {
            transfer_system(&world, &pipe, &mut cursor, tile);
            tile += world.work.step;
        }
        pipe.producer_tail(cursor);
    } else if is_aggregator(me) {
        let col = column_of(me);
        let mut sum = SumComponent { value: 0.0 };
        let mut cursor = PipelineState::<STAGES>::new();
        let mut tile = world.work.first;
        while tile < world.work.end {
            // AdvanceSystem (registered first)
            cursor.advance();
            // WaitSystem
            pipe.consumer_wait(&cursor);
            // SumSystem
            let stage = world.window.base.add((RING_OFFSET / 4 + cursor.index() * TILE_FLOATS) as usize);
            let mut row = 0;
            while row < ROWS {
                sum.value += *stage.add((row * COLUMNS + col.column) as usize);
                row += 1;
            }
            // ReleaseSystem
            pipe.consumer_release(&cursor);
            tile += world.work.step;
        }
        writeback_system(&world, col, sum);
    }
}

/// BROKEN: the aggregators iterate the workload as an inclusive range (`tile <= end`), the
/// transfer entity as a half-open one: in block 0 (tiles 0, 8, …, 64) the aggregators wait
/// for a ninth tile nobody copies and the launch hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_ecs_bad_inclusive_workload(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_ENTITIES);
    dynamic_shared_bytes(WINDOW_BYTES);
    let world = World::build(input, tiles, out);
    let me = spawn_entity();
    let pipe = startup_system(&world, me);
    if is_producer(me) {
        let mut cursor = PipelineState::<STAGES>::producer_start();
        let mut tile = world.work.first;
        while tile < world.work.end {
            transfer_system(&world, &pipe, &mut cursor, tile);
            tile += world.work.step;
        }
        pipe.producer_tail(cursor);
    } else if is_aggregator(me) {
        let col = column_of(me);
        let mut sum = SumComponent { value: 0.0 };
        let mut cursor = PipelineState::<STAGES>::new();
        let mut tile = world.work.first;
        while tile <= world.work.end {
            accumulate_system(&world, &pipe, &mut cursor, col, &mut sum);
            tile += world.work.step;
        }
        writeback_system(&world, col, sum);
    }
}

/// BROKEN: the aggregators locate their stage component in bytes on a float pointer
/// (`RING_OFFSET + index * TILE_BYTES` elements of `f32`): stage 0 is read at byte 4096 and
/// stage 1 at byte 8192, past the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_ecs_bad_stage_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_ENTITIES);
    dynamic_shared_bytes(WINDOW_BYTES);
    let world = World::build(input, tiles, out);
    let me = spawn_entity();
    let pipe = startup_system(&world, me);
    if is_producer(me) {
        let mut cursor = PipelineState::<STAGES>::producer_start();
        let mut tile = world.work.first;
        while tile < world.work.end {
            transfer_system(&world, &pipe, &mut cursor, tile);
            tile += world.work.step;
        }
        pipe.producer_tail(cursor);
    } else if is_aggregator(me) {
        let col = column_of(me);
        let mut sum = SumComponent { value: 0.0 };
        let mut cursor = PipelineState::<STAGES>::new();
        let mut tile = world.work.first;
        while tile < world.work.end {
            pipe.consumer_wait(&cursor);
            let stage = world.window.base.add((RING_OFFSET + cursor.index() * TILE_BYTES) as usize);
            let mut row = 0;
            while row < ROWS {
                sum.value += *stage.add((row * COLUMNS + col.column) as usize);
                row += 1;
            }
            pipe.consumer_release(&cursor);
            cursor.advance();
            tile += world.work.step;
        }
        writeback_system(&world, col, sum);
    }
}
