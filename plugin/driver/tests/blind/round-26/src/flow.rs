//! Control flow: `loop` with `break`, labelled loops, `match` on warp and lane, early returns,
//! `Option`/`Result` plumbing, count-downs.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, launch, thread_idx_x, warp_id};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const S: u32 = 4;

#[inline(always)]
unsafe fn copy_tile(pipe: &Pipeline<S>, state: &PipelineState<S>, window: u32, input: *const f32, t: u32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(state));
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        loop {
            if t >= tiles {
                break;
            }
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// A labelled tile loop around the row loop; the only exit is the test at its top.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_labelled_loops(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        'produce: loop {
            if t >= tiles {
                break 'produce;
            }
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        'tiles: loop {
            if t >= tiles {
                break 'tiles;
            }
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let mut r = 0usize;
            'rows: loop {
                if r == 8 {
                    break 'rows;
                }
                acc += *stage.add(r * 32 + tid as usize);
                r += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Roles by `match (warp_id(), lane_id())`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_match_warp_lane(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + N * TILE_BYTES;
    if thread_idx_x() == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    match (warp_id(), lane_id()) {
        (0, 0) => {
            let mut state = PipelineState::<N>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        }
        (1, lane) => {
            let mut state = PipelineState::<N>::new();
            let mut acc = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for r in 0..8usize {
                    acc += *stage.add(r * 32 + lane as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            *out.add((block * 32 + lane) as usize) = acc;
        }
        _ => {}
    }
}

/// Idle threads return early; the producer returns after its tail.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_early_returns(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    if tid > 32 {
        return;
    }
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
        return;
    }
    let mut state = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        pipe.consumer_wait(&state);
        let stage = ring.add(state.index() as usize * TILE_FLOATS);
        for r in 0..8usize {
            acc += *stage.add(r * 32 + tid as usize);
        }
        pipe.consumer_release(&state);
        state.advance();
        t += grid;
    }
    *out.add((block * 32 + tid) as usize) = acc;
}

#[inline(always)]
fn next_tile(t: u32, tiles: u32, grid: u32) -> Option<u32> {
    let n = t + grid;
    if n < tiles { Some(n) } else { None }
}

#[inline(always)]
fn first_tile(tiles: u32) -> Option<u32> {
    let b = block_idx_x();
    if b < tiles { Some(b) } else { None }
}

/// Tiles walked as `Option<u32>`: `while let Some(t) = cursor { …; cursor = next_tile(…) }`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_option_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut cursor = first_tile(tiles);
        while let Some(t) = cursor {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            cursor = next_tile(t, tiles, grid);
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut cursor = first_tile(tiles);
        while let Some(t) = cursor {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            cursor = next_tile(t, tiles, grid);
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Both roles count down `left` from the block's tile count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = (tiles + grid - 1 - block) / grid;
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut left = mine;
        let mut t = block;
        while left > 0 {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

#[derive(Debug)]
struct BadStage;

#[inline(always)]
unsafe fn checked_stage(ring: *const f32, state: &PipelineState<S>) -> Result<*const f32, BadStage> {
    if state.index() < S { Ok(ring.add(state.index() as usize * TILE_FLOATS)) } else { Err(BadStage) }
}

/// The stage pointer comes from a `Result`-returning helper; an `Err` traps.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_result_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = match checked_stage(ring, &state) {
                Ok(p) => p,
                Err(_) => core::arch::nvptx::trap(),
            };
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// Broken: the consumers' loop breaks after reading its last tile, before releasing it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_bad_break_before_release(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 && block < tiles {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        loop {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            if t + grid >= tiles {
                break;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Broken: the consumers' match arm takes lanes `1..` of warp 1, 31 threads; lane 0 of warp 1
/// is idle and column 0 is never written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_bad_match_lanes_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + N * TILE_BYTES;
    if thread_idx_x() == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    match (warp_id(), lane_id()) {
        (0, 0) => {
            let mut state = PipelineState::<N>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        }
        (1, lane @ 1..) => {
            let mut state = PipelineState::<N>::new();
            let mut acc = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for r in 0..8usize {
                    acc += *stage.add(r * 32 + lane as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            *out.add((block * 32 + lane) as usize) = acc;
        }
        _ => {}
    }
}

/// Broken: the consumers count down `while left > 1`, one tile fewer than the producer copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_bad_countdown_stops_early(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = (tiles + grid - 1 - block) / grid;
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut left = mine;
        let mut t = block;
        while left > 0 {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 1 {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// One consumer step as an `Option`: `?` on `tiles.checked_sub(t + grid)` leaves before the
/// release on a block's last tile (whenever t + grid > tiles).
#[inline(always)]
unsafe fn consume_step(pipe: &Pipeline<S>, state: &mut PipelineState<S>, ring: *const f32, col: usize, t: u32, tiles: u32, grid: u32) -> Option<f32> {
    pipe.consumer_wait(state);
    let stage = ring.add(state.index() as usize * TILE_FLOATS);
    let mut s = 0.0f32;
    for r in 0..8usize {
        s += *stage.add(r * 32 + col);
    }
    let _remaining = tiles.checked_sub(t + grid)?;
    pipe.consumer_release(state);
    state.advance();
    Some(s)
}

/// Broken: see `consume_step`; blocks 1..8 never release their last tile, so their producers'
/// tails hang (and their last tile is not summed).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_bad_question_mark_skips_release(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            match consume_step(&pipe, &mut state, ring, tid as usize, t, tiles, grid) {
                Some(s) => acc += s,
                None => break,
            }
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Broken: the producer starts from `PipelineState::new()` (phase 0), so its first acquire waits
/// for a release of a stage nobody has filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_bad_producer_consumer_start(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::new();
        let mut t = block;
        while t < tiles {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Broken: the consumers start from `producer_start()` (phase 1), so their first waits return at
/// once on empty stages and every later wait is a round early.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_bad_consumer_producer_start(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(2560 / 4);
    let ring_window = window + 2560;
    let bars = window + 2560 + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            copy_tile(&pipe, &state, ring_window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Broken: the barriers (at byte 7680) are initialised by `tid == 64`, a thread a 64-thread
/// block lacks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_bad_init_by_missing_thread(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 7680;
    let tid = thread_idx_x();
    if tid == 64 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Broken: a block barrier inside the consumers' tile loop, which the producer never reaches.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_flow_bad_barrier_in_consumer_loop(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            copy_tile(&pipe, &state, window, input, t);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            barrier();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}
