//! Pipelines whose thread roles are decided in different ways: enums, `matches!`, warp and lane
//! elections, a loader chosen away from the consumers' warp. Each kernel has one bulk-copy
//! producer and a set of column-summing consumers on a ring of 1 KiB stages.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x,
    warp_id,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const ROWS: usize = 8;

/// Bytes of tile `t` of the input, as the copy engine wants them.
#[inline(always)]
fn tile_bytes_at(input: *const f32, t: u32) -> *const u8 {
    input.wrapping_add(t as usize * TILE_FLOATS).cast::<u8>()
}

/// What a thread of `r14_role_enum_match` does.
enum Role {
    Loader,
    Summer { column: u32 },
    Spare,
}

#[inline(always)]
fn role_of(tid: u32) -> Role {
    if tid < 32 {
        Role::Summer { column: tid }
    } else if tid == 63 {
        Role::Loader
    } else {
        Role::Spare
    }
}

/// Roles from an enum: the last thread of the block loads, warp 0 sums, the rest idle.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_role_enum_match(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BAR_OFFSET: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 63 {
        Pipeline::<STAGES>::init(win + BAR_OFFSET, 32)
    } else {
        Pipeline::<STAGES>::attach(win + BAR_OFFSET)
    };
    barrier();
    let block = block_idx_x();
    let stride = grid_dim_x();
    match role_of(tid) {
        Role::Loader => {
            let mut st = PipelineState::<STAGES>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(
                    win + st.index() * TILE_BYTES,
                    tile_bytes_at(input, t),
                    TILE_BYTES,
                    pipe.producer_barrier(&st),
                );
                st.advance();
                t += stride;
            }
            pipe.producer_tail(st);
        }
        Role::Summer { column } => {
            let ring = dynamic_shared_base::<f32>();
            let mut st = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&st);
                let base = st.index() as usize * TILE_FLOATS + column as usize;
                let mut r = 0;
                while r < ROWS {
                    // SAFETY: `base + r * 32` lies in the waited stage, inside the 4 KiB ring.
                    sum += unsafe { *ring.add(base + r * COLUMNS) };
                    r += 1;
                }
                pipe.consumer_release(&st);
                st.advance();
                t += stride;
            }
            // SAFETY: `out` holds 32 floats per block; `column < 32`.
            unsafe { *out.add(block as usize * COLUMNS + column as usize) = sum };
        }
        Role::Spare => {}
    }
}

/// Warp 1's first lane is elected loader; barriers sit at the window's start and the three-stage
/// ring from byte 1024; both roles walk the tiles with `step_by`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_role_warp_elect(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING_AT: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(win, 32)
    } else {
        Pipeline::<STAGES>::attach(win)
    };
    barrier();
    let first = block_idx_x();
    let step = grid_dim_x() as usize;
    if warp_id() == 1 && lane_id() == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (first..tiles).step_by(step) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = win + RING_AT + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, tile_bytes_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if warp_id() == 0 {
        let lane = lane_id() as usize;
        // SAFETY: byte 1024 of the 8 KiB window.
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING_AT as usize / 4) };
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        for _ in (first..tiles).step_by(step) {
            pipe.consumer_wait(&state);
            // SAFETY: stage `index` of three 1 KiB stages from byte 1024.
            let stage = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
            for r in 0..ROWS {
                // SAFETY: row `r`, column `lane` of the waited stage.
                total += unsafe { *stage.add(r * COLUMNS + lane) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        // SAFETY: one output per lane of this block.
        unsafe { *out.add(first as usize * COLUMNS + lane) = total };
    }
}

/// The consumers are warp 1 and the loader is thread 0, which also initialises; five stages
/// from byte 2048, barriers after them; `loop`/`break` tile loops and two accumulators.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_role_consumers_warp1(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    const RING: u32 = 2048;
    const BARS: u32 = RING + STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(win + BARS, 32) } else { Pipeline::<STAGES>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut ps = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING + ps.index() * TILE_BYTES,
                tile_bytes_at(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&ps),
            );
            ps.advance();
            t += g;
        }
        pipe.producer_tail(ps);
        return;
    }
    if tid < 32 {
        return;
    }
    let column = (tid - 32) as usize;
    let smem = dynamic_shared_base::<f32>();
    let mut cs = PipelineState::<STAGES>::new();
    let mut even = 0.0f32;
    let mut odd = 0.0f32;
    let mut t = b;
    loop {
        if t >= tiles {
            break;
        }
        pipe.consumer_wait(&cs);
        let offset = RING as usize / 4 + cs.index() as usize * TILE_FLOATS + column;
        let mut r = 0;
        while r < ROWS {
            // SAFETY: rows `r` and `r + 1` of the waited stage.
            unsafe {
                even += *smem.add(offset + r * COLUMNS);
                odd += *smem.add(offset + (r + 1) * COLUMNS);
            }
            r += 2;
        }
        pipe.consumer_release(&cs);
        cs.advance();
        t += g;
    }
    // SAFETY: `column < 32`.
    unsafe { *out.add(b as usize * COLUMNS + column) = even + odd };
}

/// Roles through `matches!`; thread 40 initialises and loads; both loops run over a tile count
/// computed once with `div_ceil`; two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_role_flags_matches(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let consumer = matches!(tid, 0..=31);
    let producer = tid == 40;
    let window = dynamic_shared_window_address();
    let pipe = if producer {
        Pipeline::<STAGES>::init(window + BARS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if producer {
        let mut s = PipelineState::<STAGES>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&s);
            pipe.producer_expect_tx(&s, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + s.index() * TILE_BYTES,
                tile_bytes_at(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&s),
            );
            s.advance();
        }
        pipe.producer_tail(s);
    }
    if consumer {
        let base = dynamic_shared_base::<f32>();
        let mut s = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&s);
            let first = s.index() as usize * TILE_FLOATS + tid as usize;
            for r in 0..ROWS {
                // SAFETY: inside the waited stage of the 2 KiB ring.
                acc += unsafe { *base.add(first + r * COLUMNS) };
            }
            pipe.consumer_release(&s);
            s.advance();
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Two lanes of warp 1 share each tile's copy, half a tile each, and each announces its half on
/// the stage's *full* barrier. BROKEN: that barrier is initialised for one arrival, and two
/// producer threads arrive on it per phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_role_two_loaders(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(win + BARS, 32) } else { Pipeline::<STAGES>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if warp_id() == 1 && lane_id() < 2 {
        let half = lane_id();
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, HALF);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES + half * HALF,
                tile_bytes_at(input, t).wrapping_add((half * HALF) as usize),
                HALF,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if warp_id() == 0 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *ring.add(st.index() as usize * TILE_FLOATS + r * COLUMNS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}

/// The pipeline is initialised for the whole block's releases. BROKEN: only warp 0 consumes and
/// releases, so no *empty* barrier ever completes and the producer waits forever once the ring
/// has gone round (eight tiles, four stages).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_role_release_whole_block(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const THREADS: u32 = 64;
    const BARS: u32 = 8192 - 16 * STAGES;
    block_threads(THREADS);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let consumer = tid < 32;
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 {
        Pipeline::<STAGES>::init(win + BARS, THREADS)
    } else {
        Pipeline::<STAGES>::attach(win + BARS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                tile_bytes_at(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if consumer {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let at = st.index() as usize * TILE_FLOATS + tid as usize;
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *ring.add(at + r * COLUMNS) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}

/// Both roles count `tiles / gridDim` tiles. BROKEN: the consumers' loop is inclusive
/// (`k <= count`), so they wait for a ninth tile that is never copied.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_role_consumer_inclusive_count(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(win + BARS, 32) } else { Pipeline::<STAGES>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let count = tiles / g;
    if tid == 48 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for k in 0..count {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                tile_bytes_at(input, b + k * g),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k <= count {
            pipe.consumer_wait(&st);
            let stage = ring.wrapping_add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *stage.add(r * COLUMNS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}

/// What a thread of `r14_role_loader_default_state` does, with its place in the ring.
enum Job<const S: u32> {
    Load(PipelineState<S>),
    Sum { column: usize, at: PipelineState<S> },
    Rest,
}

/// Each role's state is built with its job. BROKEN: the loader's state is `default()`, the
/// consumer's start (parity 0), so its first `producer_acquire` waits for a release of a stage
/// nobody has filled: deadlock.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_role_loader_default_state(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    const BARS: u32 = 4096;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let job = match tid {
        0..=31 => Job::Sum { column: tid as usize, at: PipelineState::<S>::new() },
        32 => Job::Load(PipelineState::<S>::default()),
        _ => Job::Rest,
    };
    match job {
        Job::Load(mut st) => {
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(
                    win + st.index() * TILE_BYTES,
                    tile_bytes_at(input, t),
                    TILE_BYTES,
                    pipe.producer_barrier(&st),
                );
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        Job::Sum { column, mut at } => {
            let ring = dynamic_shared_base::<f32>();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&at);
                for r in 0..ROWS {
                    // SAFETY: inside the waited stage.
                    acc += unsafe { *ring.add(at.index() as usize * TILE_FLOATS + r * COLUMNS + column) };
                }
                pipe.consumer_release(&at);
                at.advance();
                t += g;
            }
            // SAFETY: `column < 32`.
            unsafe { *out.add(b as usize * COLUMNS + column) = acc };
        }
        Job::Rest => {}
    }
}

/// The consumer warp meets at a block barrier after reading each stage, before releasing it.
/// BROKEN: the barrier is reached only by warp 0; the loader thread of warp 1 is spinning in
/// `producer_acquire` for a release that comes only after the barrier: deadlock once the two
/// stages are full.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_role_consumer_block_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BARS: u32 = 6144;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(win + BARS, 32) } else { Pipeline::<STAGES>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                tile_bytes_at(input, t),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *ring.add(st.index() as usize * TILE_FLOATS + r * COLUMNS + tid as usize) };
            }
            barrier();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLUMNS + tid as usize) = acc };
    }
}
