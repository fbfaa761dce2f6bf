//! Where things go in the 8 KiB window, computed rather than written down: a window rounded up to
//! 128 bytes, stages of two tiles, layouts from `const fn`s checked by `const` assertions, a
//! `#[repr(C)]` struct over the window with `offset_of!`, a layout computed down from the top, and
//! scratch for the results placed after the barriers.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use core::mem::{offset_of, size_of};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const WINDOW_BYTES: u32 = 8192;

#[inline(always)]
fn declare() {
    block_threads(64);
    dynamic_shared_bytes(WINDOW_BYTES);
}

#[inline(always)]
fn owned(tiles: u32) -> u32 {
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

#[inline(always)]
unsafe fn tile_at(input: *const f32, tile: u32) -> *const u8 {
    input.add(tile as usize * TILE_FLOATS) as *const u8
}

#[inline(always)]
unsafe fn column_of(stage: *const f32, column: usize) -> f32 {
    let mut sum = 0.0;
    for row in 0..8 {
        sum += *stage.add(row * 32 + column);
    }
    sum
}

// ---- correct ----

/// The window's address rounded up to 128 bytes; ring and barriers measured from there, and
/// the generic pointer moved by the same amount.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_rounded_window(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    declare();
    let window = dynamic_shared_window_address();
    let base = (window + 127) & !127;
    let shift = (base - window) as usize;
    let ring = dynamic_shared_base::<u8>().add(shift) as *const f32;
    let bars = base + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(bars, 32) } else { Pipeline::<STAGES>::attach(bars) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(base + state.index() * TILE_BYTES, tile_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in 0..owned(tiles) {
            pipe.consumer_wait(&state);
            sum += column_of(ring.add(state.index() as usize * TILE_FLOATS), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// Stages of two tiles: each stage takes `min(2, left)` of the block's tiles, announced together.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_two_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    const BARS: u32 = STAGES * STAGE_BYTES;
    declare();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    let pipe = if tid == 32 { Pipeline::<STAGES>::init(window + BARS, 32) } else { Pipeline::<STAGES>::attach(window + BARS) };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let (mut t, mut left) = (block, owned(tiles));
        while left > 0 {
            let n = left.min(2);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, n * TILE_BYTES);
            let to = window + state.index() * STAGE_BYTES;
            for j in 0..n {
                bulk_copy_global_to_shared(to + j * TILE_BYTES, tile_at(input, t + j * grid), TILE_BYTES, pipe.producer_barrier(&state));
            }
            state.advance();
            t += n * grid;
            left -= n;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut left = owned(tiles);
        while left > 0 {
            let n = left.min(2);
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * 2 * TILE_FLOATS);
            for j in 0..n as usize {
                sum += column_of(stage.add(j * TILE_FLOATS), column);
            }
            pipe.consumer_release(&state);
            state.advance();
            left -= n;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

/// A layout: barriers, the ring, and the first byte past both.
#[derive(Clone, Copy)]
struct Layout {
    bars: u32,
    ring: u32,
    end: u32,
}

const fn align_up(x: u32, to: u32) -> u32 {
    x.div_ceil(to) * to
}

/// Barriers at byte 0, the ring from the next KiB.
const fn barriers_first(stages: u32) -> Layout {
    let bars = 0;
    let ring = align_up(bars + pipeline_barrier_bytes(stages), TILE_BYTES);
    Layout { bars, ring, end: ring + stages * TILE_BYTES }
}

const FIVE: Layout = barriers_first(5);
const _: () = assert!(FIVE.end <= WINDOW_BYTES);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_const_layout(input: *const f32, tiles: u32, out: *mut f32) {
    declare();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let pipe = if tid == 63 { Pipeline::<5>::init(window + FIVE.bars, 32) } else { Pipeline::<5>::attach(window + FIVE.bars) };
    barrier();
    if tid == 63 {
        let mut state = PipelineState::<5>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let to = window + FIVE.ring + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(to, tile_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = smem.add((FIVE.ring / 4) as usize);
        let mut state = PipelineState::<5>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            sum += column_of(ring.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = sum;
    }
}

/// Warp 1 parks its sums in scratch after the barriers; after a block barrier warp 0 writes them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_scratch_after_bars(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = STAGES * TILE_BYTES;
    const SCRATCH: u32 = BARS + pipeline_barrier_bytes(STAGES);
    declare();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.add((SCRATCH / 4) as usize);
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + BARS, 32) } else { Pipeline::<STAGES>::attach(window + BARS) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *scratch.add(column) = sum;
    }
    barrier();
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid as usize) = *scratch.add(tid as usize);
    }
}

/// The window as a `#[repr(C)]` struct: both barrier arrays, a gap, then the ring at 1 KiB.
#[repr(C)]
struct Window4 {
    full: [u64; 4],
    empty: [u64; 4],
    _gap: [u8; 960],
    ring: [[f32; TILE_FLOATS]; 4],
}

const W4_BARS: u32 = offset_of!(Window4, full) as u32;
const W4_RING: u32 = offset_of!(Window4, ring) as u32;
const _: () = assert!(size_of::<Window4>() as u32 <= WINDOW_BYTES);
const _: () = assert!(W4_RING % TILE_BYTES == 0);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_repr_window(input: *const f32, tiles: u32, out: *mut f32) {
    declare();
    let window = dynamic_shared_window_address();
    let view = dynamic_shared_base::<Window4>();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + W4_BARS, 32) } else { Pipeline::<4>::attach(window + W4_BARS) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let to = window + W4_RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(to, tile_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = &(*view).ring[state.index() as usize];
            sum += stage.iter().skip(column).step_by(32).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// Barriers in the window's last bytes and the ring in the whole KiBs below them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_top_down(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 6;
    const BARS: u32 = WINDOW_BYTES - pipeline_barrier_bytes(STAGES);
    const RING: u32 = BARS / TILE_BYTES * TILE_BYTES - STAGES * TILE_BYTES;
    declare();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let pipe = if tid == 33 { Pipeline::<STAGES>::init(window + BARS, 32) } else { Pipeline::<STAGES>::attach(window + BARS) };
    barrier();
    if tid == 33 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, tile_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in 0..owned(tiles) {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add((RING / 4) as usize + state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = sum;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_bad_pair_stride(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const STAGE_BYTES: u32 = TILE_BYTES;
    const BARS: u32 = STAGES * STAGE_BYTES;
    declare();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    let pipe = if tid == 32 { Pipeline::<STAGES>::init(window + BARS, 32) } else { Pipeline::<STAGES>::attach(window + BARS) };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let (mut t, mut left) = (block, owned(tiles));
        while left > 0 {
            let n = left.min(2);
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, n * TILE_BYTES);
            let to = window + state.index() * STAGE_BYTES;
            for j in 0..n {
                bulk_copy_global_to_shared(to + j * TILE_BYTES, tile_at(input, t + j * grid), TILE_BYTES, pipe.producer_barrier(&state));
            }
            state.advance();
            t += n * grid;
            left -= n;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut left = owned(tiles);
        while left > 0 {
            let n = left.min(2);
            pipe.consumer_wait(&state);
            let stage = smem.add((state.index() * STAGE_BYTES / 4) as usize);
            for j in 0..n as usize {
                sum += column_of(stage.add(j * TILE_FLOATS), column);
            }
            pipe.consumer_release(&state);
            state.advance();
            left -= n;
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_bad_scratch_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = STAGES * TILE_BYTES;
    const SCRATCH: u32 = BARS + pipeline_barrier_bytes(STAGES);
    declare();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let scratch = smem.add((SCRATCH / 4) as usize);
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + BARS, 32) } else { Pipeline::<STAGES>::attach(window + BARS) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, tile_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *scratch.add(column) = sum;
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid as usize) = *scratch.add(tid as usize);
    }
}

/// The window as a `#[repr(C)]` struct: barriers, then the ring.
#[repr(C)]
struct Packed4 {
    bars: [u64; 4],
    ring: [[f32; TILE_FLOATS]; 4],
}

const P4_BARS: u32 = offset_of!(Packed4, bars) as u32;
const P4_RING: u32 = offset_of!(Packed4, ring) as u32;
const _: () = assert!(size_of::<Packed4>() as u32 <= WINDOW_BYTES);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_bad_repr_one_bar_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    declare();
    let window = dynamic_shared_window_address();
    let view = dynamic_shared_base::<Packed4>();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + P4_BARS, 32) } else { Pipeline::<4>::attach(window + P4_BARS) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let to = window + P4_RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(to, tile_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = &(*view).ring[state.index() as usize];
            sum += stage.iter().skip(column).step_by(32).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_bad_top_down_half_bars(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 6;
    const BARS: u32 = WINDOW_BYTES - 8 * STAGES;
    const RING: u32 = BARS / TILE_BYTES * TILE_BYTES - STAGES * TILE_BYTES;
    declare();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let pipe = if tid == 33 { Pipeline::<STAGES>::init(window + BARS, 32) } else { Pipeline::<STAGES>::attach(window + BARS) };
    barrier();
    if tid == 33 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, tile_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        for _ in 0..owned(tiles) {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add((RING / 4) as usize + state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_bad_side_by_side_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    const EVEN_RING: u32 = 0;
    const ODD_RING: u32 = 2 * TILE_BYTES;
    const EVEN_BARS: u32 = 4 * TILE_BYTES;
    const ODD_BARS: u32 = EVEN_BARS + pipeline_barrier_bytes(2);
    declare();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<2>::init(window + EVEN_BARS, 32);
        Pipeline::<2>::init(window + ODD_BARS, 32);
    }
    barrier();
    let even = Pipeline::<2>::attach(window + EVEN_BARS);
    let odd = Pipeline::<2>::attach(window + ODD_BARS);
    if tid == 0 {
        let (mut se, mut so) = (PipelineState::<2>::producer_start(), PipelineState::<2>::producer_start());
        for (k, t) in (block_idx_x()..tiles).step_by(grid_dim_x() as usize).enumerate() {
            if k % 2 == 0 {
                even.producer_acquire(&se);
                even.producer_expect_tx(&se, TILE_BYTES);
                let to = window + EVEN_RING + se.index() * TILE_BYTES;
                bulk_copy_global_to_shared(to, tile_at(input, t), TILE_BYTES, even.producer_barrier(&se));
                se.advance();
            } else {
                odd.producer_acquire(&so);
                odd.producer_expect_tx(&so, TILE_BYTES);
                let to = window + ODD_RING + so.index() * TILE_BYTES;
                bulk_copy_global_to_shared(to, tile_at(input, t), TILE_BYTES, even.producer_barrier(&so));
                so.advance();
            }
        }
        even.producer_tail(se);
        odd.producer_tail(so);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let (mut se, mut so) = (PipelineState::<2>::new(), PipelineState::<2>::new());
        let mut sum = 0.0f32;
        for (k, _) in (block_idx_x()..tiles).step_by(grid_dim_x() as usize).enumerate() {
            if k % 2 == 0 {
                even.consumer_wait(&se);
                sum += column_of(smem.add((EVEN_RING / 4) as usize + se.index() as usize * TILE_FLOATS), column);
                even.consumer_release(&se);
                se.advance();
            } else {
                odd.consumer_wait(&so);
                sum += column_of(smem.add((ODD_RING / 4) as usize + so.index() as usize * TILE_FLOATS), column);
                odd.consumer_release(&so);
                so.advance();
            }
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// The window as a `#[repr(C)]` struct with a word for the block's own bookkeeping.
#[repr(C)]
struct Counted4 {
    full: [u64; 4],
    empty: [u64; 4],
    done: u32,
    ring: [[f32; TILE_FLOATS]; 4],
}

const C4_BARS: u32 = offset_of!(Counted4, full) as u32;
const C4_RING: u32 = offset_of!(Counted4, ring) as u32;
const _: () = assert!(size_of::<Counted4>() as u32 <= WINDOW_BYTES);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_pl_bad_repr_counter_field(input: *const f32, tiles: u32, out: *mut f32) {
    declare();
    let window = dynamic_shared_window_address();
    let view = dynamic_shared_base::<Counted4>();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + C4_BARS, 32) } else { Pipeline::<4>::attach(window + C4_BARS) };
    barrier();
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let to = window + C4_RING + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(to, tile_at(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = &(*view).ring[state.index() as usize];
            sum += stage.iter().skip(column).step_by(32).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}
