//! Style `macros`: the kernels are stamped out by `macro_rules!`. One macro sets up the launch
//! and the pipeline, one writes the producer's tile loop, one the consumers' loop, one the
//! column sum; `pipeline_body!` puts them together into a whole kernel body with parameters
//! (stage count, where the barriers and the ring sit, how many bytes each copy moves, which
//! slot a stage's copy lands in). The plain kernels stage a tile through `stage_tile!`.
//!
//! Roles in every pipeline kernel: thread 0 produces, warp 1 (threads 32..64) consumes, one
//! column per consumer thread.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const BLOCK: u32 = 64;
const SHARED: u32 = 8192;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const FIRST_CONSUMER: u32 = BLOCK - CONSUMERS;

/// The launch contract every kernel of this module declares.
macro_rules! launch {
    () => {
        block_threads(BLOCK);
        dynamic_shared_bytes(SHARED);
    };
}

/// `let $window = …; let $pipe = …;` then the block barrier that publishes the `init`.
macro_rules! setup_pipeline {
    ($pipe:ident, $window:ident = $stages:literal stages at $bars:expr) => {
        let $window = dynamic_shared_window_address();
        let $pipe = if thread_idx_x() == 0 {
            Pipeline::<$stages>::init($window + $bars, CONSUMERS)
        } else {
            Pipeline::<$stages>::attach($window + $bars)
        };
        barrier();
    };
}

/// Sum of column `$col` over the eight rows of the tile at `$stage`.
macro_rules! column_sum {
    ($stage:expr, $col:expr) => {{
        let stage: *const f32 = $stage;
        let mut sum = 0.0f32;
        let mut row = 0usize;
        while row < ROWS {
            sum += *stage.add(row * COLS + $col);
            row += 1;
        }
        sum
    }};
}

/// One producer step on an acquired stage: the `expect_tx` and the copy, in the order asked.
macro_rules! producer_step {
    (expect_first, $pipe:ident, $state:ident, $expect:expr, $copy:expr) => {{
        $pipe.producer_expect_tx(&$state, $expect);
        $copy;
    }};
    (copy_first, $pipe:ident, $state:ident, $expect:expr, $copy:expr) => {{
        $copy;
        $pipe.producer_expect_tx(&$state, $expect);
    }};
}

/// The producer's loop over this block's tiles `b, b + g, …` below `$tiles`, then its tail.
/// `slot` maps the stage index to the ring slot the copy lands in.
macro_rules! produce_tiles {
    ($pipe:ident, $window:ident, $stages:literal, ring $ring:expr, $input:ident, $tiles:ident,
     order $order:ident, expect $expect:expr, copy $bytes:expr, slot $slot:expr) => {{
        let mut state = PipelineState::<$stages>::producer_start();
        let mut tile = block_idx_x();
        while tile < $tiles {
            $pipe.producer_acquire(&state);
            let source = $input.add(tile as usize * TILE_FLOATS) as *const u8;
            let destination = $window + $ring + ($slot)(state.index()) * TILE_BYTES;
            producer_step!(
                $order,
                $pipe,
                state,
                $expect,
                bulk_copy_global_to_shared(destination, source, $bytes, $pipe.producer_barrier(&state))
            );
            state.advance();
            tile += grid_dim_x();
        }
        $pipe.producer_tail(state);
    }};
}

/// The consumers' loop: waits for each tile, sums column `$col`, releases. Two forms of the
/// bound: `below $end` (exclusive) and `through $last` (inclusive). Evaluates to the total.
macro_rules! consume_tiles {
    (@loop $pipe:ident, $stages:literal, $smem:ident, ring $ring:expr, $col:expr, |$tile:ident| $test:expr) => {{
        let mut state = PipelineState::<$stages>::new();
        let mut total = 0.0f32;
        let mut $tile = block_idx_x();
        while $test {
            $pipe.consumer_wait(&state);
            let stage = $smem.add($ring as usize / 4 + state.index() as usize * TILE_FLOATS);
            total += column_sum!(stage, $col);
            $pipe.consumer_release(&state);
            state.advance();
            $tile += grid_dim_x();
        }
        total
    }};
    ($pipe:ident, $stages:literal, $smem:ident, ring $ring:expr, col $col:expr, below $end:expr) => {
        consume_tiles!(@loop $pipe, $stages, $smem, ring $ring, $col, |tile| tile < $end)
    };
    ($pipe:ident, $stages:literal, $smem:ident, ring $ring:expr, col $col:expr, through $last:expr) => {
        consume_tiles!(@loop $pipe, $stages, $smem, ring $ring, $col, |tile| tile <= $last)
    };
}

/// A whole pipeline kernel body: launch, setup, thread 0 produces, warp 1 consumes and writes
/// its block's 32 sums.
macro_rules! pipeline_body {
    ($input:ident, $tiles:ident, $out:ident;
     stages $stages:literal, bars $bars:expr, ring $ring:expr, copy $bytes:expr, slot $slot:expr) => {{
        launch!();
        setup_pipeline!(pipe, window = $stages stages at $bars);
        let tid = thread_idx_x();
        if tid == 0 {
            produce_tiles!(pipe, window, $stages, ring $ring, $input, $tiles,
                order expect_first, expect TILE_BYTES, copy $bytes, slot $slot);
        } else if tid >= FIRST_CONSUMER {
            let col = (tid - FIRST_CONSUMER) as usize;
            let smem = dynamic_shared_base::<f32>();
            let total = consume_tiles!(pipe, $stages, smem, ring $ring, col col, below $tiles);
            *$out.add(block_idx_x() as usize * COLS + col) = total;
        }
    }};
}

/// Copies the tile at `$src` into shared memory at `$smem`: thread `$tid` moves elements
/// `$tid, $tid + 64, $tid + 128, $tid + 192`.
macro_rules! stage_tile {
    ($smem:ident, $src:expr, $tid:expr) => {{
        let src: *const f32 = $src;
        let mut k = 0usize;
        while k < TILE_FLOATS / BLOCK as usize {
            let i = $tid + k * BLOCK as usize;
            *$smem.add(i) = *src.add(i);
            k += 1;
        }
    }};
}

/// Plain staging loop over this block's tiles: stage, barrier, run `$body` on the staged tile,
/// barrier (so that nobody restages while the tile is still read).
macro_rules! staged_tiles {
    ($smem:ident, $input:ident, $tiles:ident, $tid:ident, |$tile_ptr:ident| $body:block) => {{
        let mut tile = block_idx_x();
        while tile < $tiles {
            stage_tile!($smem, $input.add(tile as usize * TILE_FLOATS), $tid);
            barrier();
            {
                let $tile_ptr: *const f32 = $smem;
                $body
            }
            barrier();
            tile += grid_dim_x();
        }
    }};
    // The "overlapped" form: one barrier per tile, before the restaging.
    (overlapped $smem:ident, $input:ident, $tiles:ident, $tid:ident, |$tile_ptr:ident| $body:block) => {{
        let mut tile = block_idx_x();
        while tile < $tiles {
            barrier();
            stage_tile!($smem, $input.add(tile as usize * TILE_FLOATS), $tid);
            {
                let $tile_ptr: *const f32 = $smem;
                $body
            }
            tile += grid_dim_x();
        }
    }};
}

/// Four-stage ring at byte 1024, barriers at byte 0, stamped by `pipeline_body!`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_macros_body_four_stages(input: *const f32, tiles: u32, out: *mut f32) {
    pipeline_body!(input, tiles, out; stages 4, bars 0, ring 1024, copy TILE_BYTES, slot |i: u32| i);
}

/// Two-stage ring at byte 0, its barriers after the ring at byte 2048, stamped by the same macro.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_macros_body_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    pipeline_body!(input, tiles, out; stages 2, bars 2048, ring 0, copy TILE_BYTES, slot |i: u32| i);
}

/// Three stages; the producer issues each bulk copy before its `expect_tx` (acquire, copy,
/// `expect_tx`, advance), an order the hardware allows: the copy's bytes may land first and
/// take the transaction count below zero, and the phase completes only with the producer's
/// one arrival, the `expect_tx`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_macros_copy_before_expect(input: *const f32, tiles: u32, out: *mut f32) {
    launch!();
    setup_pipeline!(pipe, window = 3 stages at 4096);
    let tid = thread_idx_x();
    if tid == 0 {
        produce_tiles!(pipe, window, 3, ring 512, input, tiles,
            order copy_first, expect TILE_BYTES, copy TILE_BYTES, slot |i: u32| i);
    } else if tid >= FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let smem = dynamic_shared_base::<f32>();
        let total = consume_tiles!(pipe, 3, smem, ring 512, col col, below tiles);
        *out.add(block_idx_x() as usize * COLS + col) = total;
    }
}

/// Plain shared memory: every thread stages a quarter of each tile, warp 0 sums the columns
/// between the two barriers of `staged_tiles!`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_macros_plain_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch!();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut total = 0.0f32;
    staged_tiles!(smem, input, tiles, tid, |tile_ptr| {
        if tid < COLS {
            total += column_sum!(tile_ptr, tid);
        }
    });
    if tid < COLS {
        *out.add(block_idx_x() as usize * COLS + tid) = total;
    }
}

/// BROKEN: the copy size is given in floats (`TILE_FLOATS`, 256 bytes) while the `expect_tx`
/// announces the tile's 1024 bytes: the full barrier never completes and the consumers wait
/// forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_macros_bad_copy_in_floats(input: *const f32, tiles: u32, out: *mut f32) {
    pipeline_body!(input, tiles, out; stages 4, bars 0, ring 1024, copy TILE_FLOATS as u32, slot |i: u32| i);
}

/// BROKEN: the consumers' loop is stamped with the inclusive `through` arm and handed the tile
/// count instead of the last tile: block 0 (whose tiles are 0, 8, …, 56) also waits for tile 64,
/// which the producer never copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_macros_bad_inclusive_last(input: *const f32, tiles: u32, out: *mut f32) {
    launch!();
    setup_pipeline!(pipe, window = 4 stages at 0);
    let tid = thread_idx_x();
    if tid == 0 {
        produce_tiles!(pipe, window, 4, ring 1024, input, tiles,
            order expect_first, expect TILE_BYTES, copy TILE_BYTES, slot |i: u32| i);
    } else if tid >= FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let smem = dynamic_shared_base::<f32>();
        let last = tiles;
        let total = consume_tiles!(pipe, 4, smem, ring 1024, col col, through last);
        *out.add(block_idx_x() as usize * COLS + col) = total;
    }
}

/// BROKEN: the producer's slot map is the "next slot" `(i + 1) % 4`, so each copy lands in the
/// stage after the one whose full barrier it completes; the consumers read the stage they
/// waited for, which holds another tile (or nothing yet).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_macros_bad_next_slot(input: *const f32, tiles: u32, out: *mut f32) {
    pipeline_body!(input, tiles, out; stages 4, bars 0, ring 1024, copy TILE_BYTES, slot |i: u32| (i + 1) % 4);
}

/// BROKEN: the "overlapped" staging form keeps only the barrier before restaging: warp 0 sums
/// rows 1, 3, 5 and 7 of the tile right after its own stores, before warp 1's stores of those
/// rows are ordered by any barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_macros_bad_plain_no_trailing_sync(input: *const f32, tiles: u32, out: *mut f32) {
    launch!();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut total = 0.0f32;
    staged_tiles!(overlapped smem, input, tiles, tid, |tile_ptr| {
        if tid < COLS {
            total += column_sum!(tile_ptr, tid);
        }
    });
    if tid < COLS {
        *out.add(block_idx_x() as usize * COLS + tid) = total;
    }
}
