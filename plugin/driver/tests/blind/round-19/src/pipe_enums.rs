//! Pipeline kernels whose roles or work items are enums matched on (a `Role` per thread, an
//! `Option` holding the consumer's state, a `Work` item per step), and roles spelled by
//! `macro_rules!` macros.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    launch, thread_idx_x, warp_id,
};
use crate::{COLS, ROWS, TILE, TILE_BYTES};

#[derive(Clone, Copy)]
enum Role {
    Producer,
    Consumer { column: usize },
    Idle,
}

/// Thread 32 produces, warp 0 consumes, the rest of warp 1 idles.
#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        32 => Role::Producer,
        0..=31 => Role::Consumer { column: tid as usize },
        _ => Role::Idle,
    }
}

/// One producer step, spelled as a macro over the names it is given.
macro_rules! produce {
    ($pipe:expr, $state:ident, $ring:expr, $src:expr) => {{
        $pipe.producer_acquire(&$state);
        $pipe.producer_expect_tx(&$state, TILE_BYTES);
        bulk_copy_global_to_shared($ring + $state.index() * TILE_BYTES, $src as *const u8, TILE_BYTES, $pipe.producer_barrier(&$state));
        $state.advance();
    }};
}

/// One consumer step adding the column's rows into `$acc`.
macro_rules! consume {
    ($pipe:expr, $state:ident, $ring:expr, $column:expr, $acc:ident) => {{
        $pipe.consumer_wait(&$state);
        let stage = $ring.add($state.index() as usize * TILE);
        for r in 0..ROWS {
            $acc += *stage.add(r * COLS + $column);
        }
        $pipe.consumer_release(&$state);
        $state.advance();
    }};
}

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// Roles from a `match` on the thread index into an enum, then a `match` on the enum.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_enum_role_match(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<S>::producer_start();
            let mut tile = block;
            while tile < tiles {
                produce!(pipe, state, window, input.add(tile as usize * TILE));
                tile += grid;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<S>::new();
            let mut sum = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                consume!(pipe, state, ring, column, sum);
                tile += grid;
            }
            *out.add(block as usize * COLS + column) = sum;
        }
        Role::Idle => {}
    }
}

/// Roles by `match warp_id()`, each written with the `produce!`/`consume!` macros.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_enum_warp_match_macros(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let block = block_idx_x();
    let grid = grid_dim_x();
    match warp_id() {
        0 => {
            if lane_id() == 0 {
                let mut st = PipelineState::<S>::producer_start();
                let mut tile = block;
                while tile < tiles {
                    produce!(pipe, st, window, input.add(tile as usize * TILE));
                    tile += grid;
                }
                pipe.producer_tail(st);
            }
        }
        1 => {
            let ring = dynamic_shared_base::<f32>();
            let column = lane_id() as usize;
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                consume!(pipe, st, ring, column, acc);
                tile += grid;
            }
            *out.add(block as usize * COLS + column) = acc;
        }
        _ => {}
    }
}

/// The consumers' state lives in an `Option`, present only in consumer threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_enum_option_state(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            produce!(pipe, st, window, input.add(tile as usize * TILE));
            tile += grid;
        }
        pipe.producer_tail(st);
    }
    let mut consumer: Option<PipelineState<S>> = if tid >= 32 { Some(PipelineState::new()) } else { None };
    if let Some(st) = consumer.as_mut() {
        let column = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + column);
            }
            pipe.consumer_release(st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

/// What a role does at step `k`: a tile, or nothing more.
enum Work {
    Tile(u32),
    Done,
}

#[inline(always)]
fn work(k: u32, block: u32, grid: u32, tiles: u32) -> Work {
    let t = block + k * grid;
    if t < tiles { Work::Tile(t) } else { Work::Done }
}

/// Both roles loop over `match work(k) { Tile(t) => …, Done => break }`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_enum_work_items(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 63 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 63 {
        let mut st = PipelineState::<S>::producer_start();
        let mut k = 0;
        loop {
            match work(k, block, grid, tiles) {
                Work::Tile(t) => produce!(pipe, st, window, input.add(t as usize * TILE)),
                Work::Done => break,
            }
            k += 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let column = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut k = 0;
        loop {
            match work(k, block, grid, tiles) {
                Work::Tile(_) => consume!(pipe, st, ring, column, sum),
                Work::Done => break,
            }
            k += 1;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// Thread 0 produces and "warp 0" consumes: the first arm wins, so thread 0 never consumes.
#[inline(always)]
fn role_with_overlap(tid: u32) -> Role {
    match tid {
        0 => Role::Producer,
        0..=31 => Role::Consumer { column: tid as usize },
        _ => Role::Idle,
    }
}

/// The `match` gives thread 0 to the producer arm first, so only 31 threads release stages
/// initialised for 32 releases (and column 0 is never written).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_enum_bad_role_arm_order(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    match role_with_overlap(tid) {
        Role::Producer => {
            let mut state = PipelineState::<S>::producer_start();
            let mut tile = block;
            while tile < tiles {
                produce!(pipe, state, window, input.add(tile as usize * TILE));
                tile += grid;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<S>::new();
            let mut sum = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                consume!(pipe, state, ring, column, sum);
                tile += grid;
            }
            *out.add(block as usize * COLS + column) = sum;
        }
        Role::Idle => {}
    }
}

/// Work items that single out the block's last tile.
#[allow(dead_code)]
enum Step {
    Tile(u32),
    Last(u32),
}

#[inline(always)]
fn step_of(t: u32, grid: u32, tiles: u32) -> Step {
    if t + grid < tiles { Step::Tile(t) } else { Step::Last(t) }
}

/// The consumers' `Last` arm writes the output and returns straight after reading the stage,
/// without releasing it, so the producer's tail waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_enum_bad_last_tile_returns(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if block >= tiles {
        if tid < 32 {
            *out.add(block as usize * COLS + tid as usize) = 0.0;
        }
        return;
    }
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            produce!(pipe, st, window, input.add(tile as usize * TILE));
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let column = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        loop {
            match step_of(tile, grid, tiles) {
                Step::Tile(_) => consume!(pipe, st, ring, column, sum),
                Step::Last(_) => {
                    pipe.consumer_wait(&st);
                    let stage = ring.add(st.index() as usize * TILE);
                    for r in 0..ROWS {
                        sum += *stage.add(r * COLS + column);
                    }
                    *out.add(block as usize * COLS + column) = sum;
                    return;
                }
            }
            tile += grid;
        }
    }
}

/// The consumer arm "keeps the warps in step" with a block barrier after each tile, which the
/// producer (spinning in `producer_acquire`) and the idle threads never reach.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_enum_bad_consumer_block_sync(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<S>::producer_start();
            let mut tile = block;
            while tile < tiles {
                produce!(pipe, state, window, input.add(tile as usize * TILE));
                tile += grid;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let ring = dynamic_shared_base::<f32>();
            let mut state = PipelineState::<S>::new();
            let mut sum = 0.0f32;
            let mut tile = block;
            while tile < tiles {
                consume!(pipe, state, ring, column, sum);
                barrier();
                tile += grid;
            }
            *out.add(block as usize * COLS + column) = sum;
        }
        Role::Idle => {}
    }
}

/// The consumers' state (in an `Option`) is created with the producer's start, phase 1: the
/// first wait on every stage returns at once, before its copy has landed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_enum_bad_option_producer_start(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut producer: Option<PipelineState<S>> = if tid == 0 { Some(PipelineState::producer_start()) } else { None };
    if let Some(st) = producer.as_mut() {
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(st);
            pipe.producer_expect_tx(st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(st));
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(*st);
    }
    let mut consumer: Option<PipelineState<S>> = if tid >= 32 { Some(PipelineState::producer_start()) } else { None };
    if let Some(st) = consumer.as_mut() {
        let column = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + column);
            }
            pipe.consumer_release(st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + column) = sum;
    }
}
