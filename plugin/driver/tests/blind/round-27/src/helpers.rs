//! Free helper functions: whole-role helpers, per-tile helpers, generic and const-generic ones.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

// ---------------------------------------------------------------- whole-role helpers

fn produce_all(pipe: &Pipeline<4>, ring: u32, input: *const f32, first: u32, step: u32, tiles: u32) {
    let mut st = PipelineState::<4>::producer_start();
    let mut t = first;
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        // SAFETY: `t < tiles`, so the tile lies inside `input`.
        let src = unsafe { input.add(t as usize * TILE) } as *const u8;
        bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += step;
    }
    pipe.producer_tail(st);
}

unsafe fn consume_all(pipe: &Pipeline<4>, ring: *const f32, col: usize, first: u32, step: u32, tiles: u32) -> f32 {
    let mut st = PipelineState::<4>::new();
    let mut acc = 0.0;
    let mut t = first;
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring.add(st.index() as usize * TILE);
        for r in 0..8 {
            acc += *stage.add(r * 32 + col);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += step;
    }
    acc
}

/// Each role is one helper call.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_role_fns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        produce_all(&pipe, window + 1024, input, b, g, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let s = consume_all(&pipe, ring, tid as usize, b, g, tiles);
        *out.add((b * 32 + tid) as usize) = s;
    }
}

// ---------------------------------------------------------------- per-tile helpers

fn load_tile(pipe: &Pipeline<3>, st: &mut PipelineState<3>, ring: u32, src: *const f32) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, src as *const u8, TILE_BYTES, pipe.producer_barrier(st));
    st.advance();
}

unsafe fn eat_tile(pipe: &Pipeline<3>, st: &mut PipelineState<3>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(st);
    let stage = ring.add(st.index() as usize * TILE + col);
    let mut s = 0.0;
    for r in 0..8 {
        s += *stage.add(r * 32);
    }
    pipe.consumer_release(st);
    st.advance();
    s
}

/// One helper call per tile and role; three stages in the middle of the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_per_tile_fns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + 256;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            load_tile(&pipe, &mut st, window + 3072, input.add(t as usize * TILE));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(768);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += eat_tile(&pipe, &mut st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------- const-generic body

unsafe fn run_generic<const S: u32>(input: *const f32, tiles: u32, out: *mut f32, bars_at: u32, ring_at: u32) {
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + bars_at, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + bars_at);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + ring_at + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(ring_at as usize) as *const f32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The whole kernel in a const-generic helper, two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_generic_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run_generic::<2>(input, tiles, out, 32, 4096);
}

/// The same helper, seven stages after one KiB of barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_generic_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    run_generic::<7>(input, tiles, out, 0, 1024);
}

// ---------------------------------------------------------------- small helpers

#[inline(never)]
unsafe fn column(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0;
    let mut p = stage.add(col);
    for _ in 0..8 {
        s += *p;
        p = p.add(32);
    }
    s
}

fn stage_of(ring: *const f32, st: &PipelineState<4>) -> *const f32 {
    ring.wrapping_add(st.index() as usize * TILE)
}

/// Stage pointer and column sum from two small helpers (the column one not inlined).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_stage_and_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096 + 1024, 32) } else { Pipeline::<4>::attach(window + 5120) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(stage_of(ring, &st), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

fn setup(window: u32, leader: bool) -> Pipeline<4> {
    if leader {
        Pipeline::<4>::init(window + 64, 32);
    }
    barrier();
    Pipeline::<4>::attach(window + 64)
}

fn tiles_of_block(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b >= tiles { 0 } else { (tiles - b).div_ceil(g) }
}

/// Setup and the tile count in helpers; both roles loop `for k in 0..tiles_of_block(tiles)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_setup_and_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = setup(window, tid == 0);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..tiles_of_block(tiles) {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 2048 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        for _ in 0..tiles_of_block(tiles) {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

trait Lane: Copy {
    fn widen(self) -> f32;
}
impl Lane for f32 {
    fn widen(self) -> f32 {
        self
    }
}

unsafe fn sum_strided<T: Lane>(p: *const T, count: usize, stride: usize) -> f32 {
    let mut s = 0.0;
    let mut i = 0;
    while i < count {
        s += (*p.add(i * stride)).widen();
        i += 1;
    }
    s
}

/// A reader generic over the element type reads the column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_generic_reader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 7168, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 7168);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 2048 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc += sum_strided(stage.add(tid as usize), 8, 32);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------- broken

unsafe fn eat_tile_by_value(pipe: &Pipeline<4>, mut st: PipelineState<4>, ring: *const f32, col: usize) -> f32 {
    pipe.consumer_wait(&st);
    let stage = ring.add(st.index() as usize * TILE + col);
    let mut s = 0.0;
    for r in 0..8 {
        s += *stage.add(r * 32);
    }
    pipe.consumer_release(&st);
    st.advance();
    s
}

/// Broken: the per-tile consumer helper takes the state by value and advances its own copy, so
/// the caller waits on stage 0 every tile; stages 1 to 3 are never released and the producer hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_bad_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        produce_all(&pipe, window + 1024, input, b, g, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += eat_tile_by_value(&pipe, st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

unsafe fn attach_and_consume<const S: u32>(bars: u32, ring: *const f32, col: usize, tiles: u32) -> f32 {
    let pipe = Pipeline::<S>::attach(bars);
    let mut st = PipelineState::<S>::new();
    let mut acc = 0.0;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring.add(st.index() as usize * TILE);
        for r in 0..8 {
            acc += *stage.add(r * 32 + col);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    acc
}

/// Broken: the consumers' generic helper is instantiated with two stages for a pipeline the
/// producer set up with four; stages 2 and 3 are never released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_bad_generic_depth(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const DEPTH: u32 = 4;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<DEPTH>::init(window + 64, 32);
    }
    barrier();
    let b = block_idx_x();
    if tid == 32 {
        let pipe = Pipeline::<DEPTH>::attach(window + 64);
        produce_all(&pipe, window + 2048, input, b, grid_dim_x(), tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let s = attach_and_consume::<2>(window + 64, ring, tid as usize, tiles);
        *out.add((b * 32 + tid) as usize) = s;
    }
}

unsafe fn eat_tile_prefetched(pipe: &Pipeline<3>, st: &mut PipelineState<3>, ring: *const f32, col: usize) -> f32 {
    let stage = ring.add(st.index() as usize * TILE + col);
    let mut vals = [0.0f32; 8];
    for r in 0..8 {
        vals[r] = *stage.add(r * 32);
    }
    pipe.consumer_wait(st);
    let s = vals.iter().sum();
    pipe.consumer_release(st);
    st.advance();
    s
}

/// Broken: the per-tile helper loads the column into registers before it waits for the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_bad_prefetch_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + 272;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            load_tile(&pipe, &mut st, window + 3136, input.add(t as usize * TILE));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(784);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += eat_tile_prefetched(&pipe, &mut st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: half as many consumer threads (each sums two columns), but the empty barriers still
/// count 32 releases; the producer hangs once the ring is full.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_bad_half_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        produce_all(&pipe, window + 1024, input, b, g, tiles);
    } else if tid < 16 {
        let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
        let mut st = PipelineState::<4>::new();
        let (mut lo, mut hi) = (0.0, 0.0);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stage_of(ring, &st);
            lo += column(stage, tid as usize);
            hi += column(stage, tid as usize + 16);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = lo;
        *out.add((b * 32 + tid + 16) as usize) = hi;
    }
}

fn fill_halves(pipe: &Pipeline<4>, st: &mut PipelineState<4>, dst: u32, src: *const f32) {
    const HALF: u32 = TILE_BYTES / 2;
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    let bar = pipe.producer_barrier(st);
    let stage = dst + st.index() * TILE_BYTES;
    bulk_copy_global_to_shared(stage, src as *const u8, HALF, bar);
    // SAFETY: the second half of the same tile.
    let upper = unsafe { src.add(TILE / 2) } as *const u8;
    bulk_copy_global_to_shared(stage, upper, HALF, bar);
    st.advance();
}

/// Broken: a tile is copied in two halves, but the second half lands on the first (its
/// destination lacks the half-tile offset); rows 4 to 7 of every stage are never filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_bad_halves_same_dest(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 48, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 48);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            fill_halves(&pipe, &mut st, window + 2672, input.add(t as usize * TILE));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(668) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(ring.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

unsafe fn consume_with_stride<const STRIDE: usize>(pipe: &Pipeline<4>, ring: *const f32, col: usize, tiles: u32) -> f32 {
    let mut st = PipelineState::<4>::new();
    let mut acc = 0.0;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring.add(st.index() as usize * STRIDE);
        for r in 0..8 {
            acc += *stage.add(r * 32 + col);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    acc
}

/// Broken: the consumers' const-generic stage stride is given in half tiles (128 floats), so
/// stage `s` is read at half its offset: from the second stage on, the wrong rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_bad_const_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 7168, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 7168);
    let b = block_idx_x();
    if tid == 32 {
        produce_all(&pipe, window + 1024, input, b, grid_dim_x(), tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let s = consume_with_stride::<128>(&pipe, ring, tid as usize, tiles);
        *out.add((b * 32 + tid) as usize) = s;
    }
}

fn load_tile_by_value(pipe: &Pipeline<4>, mut st: PipelineState<4>, ring: u32, src: *const f32) {
    pipe.producer_acquire(&st);
    pipe.producer_expect_tx(&st, TILE_BYTES);
    bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, src as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
    st.advance();
}

/// Broken: the producer's per-tile helper takes the state by value, so the caller's state never
/// advances: every tile is copied into stage 0 and stage 1, which the consumers wait for next,
/// is never filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_help_bad_producer_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 5120, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 5120);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            load_tile_by_value(&pipe, st, window + 1024, input.add(t as usize * TILE));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let s = consume_all(&pipe, ring, tid as usize, b, g, tiles);
        *out.add((b * 32 + tid) as usize) = s;
    }
}
