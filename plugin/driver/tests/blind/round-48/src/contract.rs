//! Module `contract`: Eiffel's design by contract, ported faithfully. Every kernel states its
//! `require` clauses (preconditions on the launch) before it does anything, keeps a loop
//! `invariant` and a loop `variant` (a non-negative count that strictly decreases each pass,
//! checked after the pass), and states its `ensure` clauses (postconditions) before it returns.
//! Each clause is a checked `assert!` with an Eiffel-style tag, so a violated contract traps.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_dim_x, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const BARRIERS: u32 = 0;
const RING: u32 = 1024;
const RING_FLOATS: usize = 256;
const CONSUMERS: u32 = 32;

/// Pipeline, the contract-checked baseline: thread 0 produces, threads 32..63 consume one column
/// each; `require` on the launch, `variant` on the tiles left, `ensure` on the rows summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_contract_pipeline_basic(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    // require
    assert!(block_dim_x() == BLOCK, "require: blocks_of_64_threads");
    assert!(tiles > 0, "require: at_least_one_tile");
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            let variant = tiles - t;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
            // variant: the tiles left strictly decrease
            assert!(tiles.saturating_sub(t) < variant, "variant: tiles_left_decreases");
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut posted = 0u32;
        let mut taken = 0u32;
        let mut t = b;
        while t < tiles {
            let variant = tiles - t;
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLUMNS + c);
                posted += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            taken += 1;
            t += g;
            // invariant: eight rows summed per tile taken
            assert!(posted == taken * ROWS as u32, "invariant: rows_per_tile");
            assert!(tiles.saturating_sub(t) < variant, "variant: tiles_left_decreases");
        }
        *out.add(b as usize * COLUMNS + c) = acc;
        // ensure
        assert!(posted == taken * ROWS as u32, "ensure: every_row_summed");
    }
}

/// Pipeline with the producer's copy issued before its `expect_tx` (acquire, copy, announce,
/// advance), an order the hardware and MODEL.md allow; contracts as in the baseline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_contract_copy_before_expect(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    assert!(block_dim_x() == BLOCK, "require: blocks_of_64_threads");
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            // The bytes may land before the announcement: the phase still needs this
            // thread's arrival, which `expect_tx` makes.
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            pipe.producer_expect_tx(&st, TILE_BYTES);
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLUMNS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        assert!(c < COLUMNS, "ensure: column_in_range");
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// Plain shared memory: all 64 threads stage a tile (four floats each), a block barrier, warp 0
/// sums its column, a second barrier before the buffer is staged again; contracts on the launch
/// and on the passes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_contract_plain_staged(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    assert!(block_dim_x() == BLOCK, "require: blocks_of_64_threads");
    assert!(grid_dim_x() > 0, "require: a_grid");
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let variant = tiles - t;
        let src = input.add(t as usize * TILE_FLOATS);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < COLUMNS {
            for r in 0..ROWS {
                acc += *s.add(r * COLUMNS + tid);
            }
        }
        barrier();
        t += g;
        assert!(tiles.saturating_sub(t) < variant, "variant: tiles_left_decreases");
    }
    if tid < COLUMNS {
        *out.add(b as usize * COLUMNS + tid) = acc;
    }
}

/// Pipeline whose tile loops are written as Eiffel `from … until … loop … variant` count-downs:
/// both roles compute the block's tile count first and count it down to zero.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_contract_countdown_variant(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    assert!(block_dim_x() == BLOCK, "require: blocks_of_64_threads");
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        // from
        let mut left = mine;
        let mut t = b;
        // until left = 0 loop
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLUMNS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: the producer copies `TILE_FLOATS * 2` bytes (sized as if the tile held 16-bit
/// values) but announces the whole 1024-byte tile: the full barrier never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_contract_bad_expect_short_copy(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    assert!(block_dim_x() == BLOCK, "require: blocks_of_64_threads");
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_FLOATS as u32 * 2,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLUMNS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: `init` announces one release per thread of the block (`BLOCK`, 64) while only the
/// 32 consumer threads release: no empty barrier ever completes, and the producer hangs at
/// its fifth acquire.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_contract_bad_release_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    assert!(block_dim_x() == BLOCK, "require: blocks_of_64_threads");
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, BLOCK);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLUMNS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: plain staging whose second block barrier was dropped ("the variant check already
/// separates the passes"): warp 1 stages the next tile while warp 0 still reads this one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_contract_bad_plain_no_reuse_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    assert!(block_dim_x() == BLOCK, "require: blocks_of_64_threads");
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let variant = tiles - t;
        let src = input.add(t as usize * TILE_FLOATS);
        for k in 0..4 {
            *s.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        if tid < COLUMNS {
            for r in 0..ROWS {
                acc += *s.add(r * COLUMNS + tid);
            }
        }
        t += g;
        assert!(tiles.saturating_sub(t) < variant, "variant: tiles_left_decreases");
    }
    if tid < COLUMNS {
        *out.add(b as usize * COLUMNS + tid) = acc;
    }
}

/// BROKEN: the consumers' loop is written `until t > tiles` (`while t <= tiles`): in block 0
/// they wait for a ninth tile that the producer never copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_contract_bad_consumer_one_more(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    assert!(block_dim_x() == BLOCK, "require: blocks_of_64_threads");
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t <= tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(RING_FLOATS + st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLUMNS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}
