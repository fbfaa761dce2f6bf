//! `core::mem` tricks: accumulators exchanged with `mem::swap`, cursors stepped with
//! `mem::replace`, per-row sums emptied with `mem::take`, sizes and offsets from
//! `mem::size_of` of the tile and barrier types, buffers exchanged by swapping pointers.
//!
//! Pipeline kernels: barriers at window byte 0, a ring of 1 KiB stages after them, thread 0
//! produces, threads 32..63 consume (consumer `c = tid - 32` sums column `c`). The plain
//! kernels double-buffer tiles through two 1 KiB buffers staged by every thread.

use core::mem;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

type Tile = [[f32; 32]; 8];
const TILE_BYTES: u32 = mem::size_of::<Tile>() as u32;
const TILE_FLOATS: usize = mem::size_of::<Tile>() / mem::size_of::<f32>();
const CONSUMERS: u32 = 32;

/// Bytes of the barriers of a pipeline of `stages`: a full and an empty mbarrier per stage.
const fn barrier_bytes(stages: usize) -> usize {
    2 * stages * mem::size_of::<u64>()
}

/// Round `bytes` up to a multiple of 128.
const fn round_up_128(bytes: usize) -> usize {
    (bytes + 127) / 128 * 128
}

/// Four stages; each consumer adds even tiles into one accumulator and odd tiles into the
/// other, exchanging them with `mem::swap` after every tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_swap_accumulators(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: usize = round_up_128(barrier_bytes(4));
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING / 4);
        let mut st = PipelineState::<4>::new();
        let mut cur = 0.0f32;
        let mut other = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                cur += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            mem::swap(&mut cur, &mut other);
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = cur + other;
    }
}

/// Three stages; both roles take their tile from a cursor stepped with `mem::replace`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_replace_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: usize = round_up_128(barrier_bytes(3));
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, CONSUMERS) } else { Pipeline::<3>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut next = block_idx_x();
        while next < tiles {
            let step = next + grid_dim_x();
            let t = mem::replace(&mut next, step);
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING / 4);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut next = block_idx_x();
        while next < tiles {
            let step = next + grid_dim_x();
            let _t = mem::replace(&mut next, step);
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Four stages; consumers keep one sum per row and empty them with `mem::take` at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_take_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: usize = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING / 4);
        let mut st = PipelineState::<4>::new();
        let mut per_row = [0.0f32; 8];
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            per_row[0] += *stage.add(c);
            per_row[1] += *stage.add(32 + c);
            per_row[2] += *stage.add(64 + c);
            per_row[3] += *stage.add(96 + c);
            per_row[4] += *stage.add(128 + c);
            per_row[5] += *stage.add(160 + c);
            per_row[6] += *stage.add(192 + c);
            per_row[7] += *stage.add(224 + c);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let rows = mem::take(&mut per_row);
        let total = rows[0] + rows[1] + rows[2] + rows[3] + rows[4] + rows[5] + rows[6] + rows[7];
        *out.add(block_idx_x() as usize * 32 + c) = total;
    }
}

/// Five stages; the ring is a run of `Tile`s whose size and placement come from `size_of`,
/// and consumers index the held tile as `[row][column]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_sized_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: usize = 5;
    const RING: usize = round_up_128(barrier_bytes(STAGES));
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<5>::init(window, CONSUMERS) } else { Pipeline::<5>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<5>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, mem::size_of::<Tile>() as u32);
            let dst = window + (RING + st.index() as usize * mem::size_of::<Tile>()) as u32;
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(dst, src.cast::<u8>(), mem::size_of::<Tile>() as u32, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<u8>().add(RING) as *const Tile;
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = ring.add(st.index() as usize);
            for r in 0..8 {
                acc += (*tile)[r][c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Stages this block's tile `t` into `buffer`: every thread four floats, 64 apart.
#[inline(always)]
unsafe fn stage_tile(buffer: *mut f32, input: *const f32, t: u32, tid: u32) {
    let tile = input.add(t as usize * TILE_FLOATS);
    for k in 0..4usize {
        let i = tid as usize + 64 * k;
        *buffer.add(i) = *tile.add(i);
    }
}

/// Plain shared memory, double-buffered: the next tile is staged into the back buffer while
/// warp 0 sums the front one, and the two buffers are exchanged with `mem::swap`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_plain_swap_buffers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let base = dynamic_shared_base::<f32>();
    let mut front = base;
    let mut back = base.add(TILE_FLOATS);
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    if t < tiles {
        stage_tile(front, input, t, tid);
    }
    barrier();
    while t < tiles {
        let next = t + grid_dim_x();
        if next < tiles {
            stage_tile(back, input, next, tid);
        }
        if tid < 32 {
            for r in 0..8 {
                acc += *front.add(r * 32 + tid as usize);
            }
        }
        barrier();
        mem::swap(&mut front, &mut back);
        t = next;
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// A tile as it is described on the host: its values and the index it came from.
#[repr(C, align(16))]
#[allow(dead_code)]
struct TileRecord {
    values: [f32; 256],
    index: u32,
}

/// Four stages; the producer announces the size of a `TileRecord` for each tile's copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_bad_record_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: usize = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, mem::size_of::<TileRecord>() as u32);
            let dst = window + RING as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Four stages; consumers `mem::take` the state to release it and advance the taken copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_bad_take_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: usize = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            let mut held = mem::take(&mut st);
            pipe.consumer_release(&held);
            held.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// One stage (single-buffered); each consumer sums the previous tile's stage, kept with
/// `mem::replace`, while holding the current one, and the last one after the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_bad_lagging_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: usize = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<1>::init(window, CONSUMERS) } else { Pipeline::<1>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<1>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING / 4) as *const f32;
        let mut st = PipelineState::<1>::new();
        let mut lag: *const f32 = core::ptr::null();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let prev = mem::replace(&mut lag, stage);
            if !prev.is_null() {
                for r in 0..8 {
                    acc += *prev.add(r * 32 + c);
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        if !lag.is_null() {
            for r in 0..8 {
                acc += *lag.add(r * 32 + c);
            }
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Four stages; the barrier area is sized as one `u64` per stage and the ring follows it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_bad_barrier_words(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: usize = 4;
    const RING: usize = STAGES * mem::size_of::<u64>();
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Plain shared memory, double-buffered as above, with no barrier between staging the first
/// tile and the loop that reads it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_bad_plain_no_prologue_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let base = dynamic_shared_base::<f32>();
    let mut front = base;
    let mut back = base.add(TILE_FLOATS);
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    if t < tiles {
        stage_tile(front, input, t, tid);
    }
    while t < tiles {
        let next = t + grid_dim_x();
        if next < tiles {
            stage_tile(back, input, next, tid);
        }
        if tid < 32 {
            for r in 0..8 {
                acc += *front.add(r * 32 + tid as usize);
            }
        }
        barrier();
        mem::swap(&mut front, &mut back);
        t = next;
    }
    if tid < 32 {
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// One stage's worth of floats, aligned as a 128-byte swizzle would want it.
#[repr(C, align(128))]
struct Slot([f32; 256]);

/// Three stages of `Slot`s; the ring's start is the barriers' bytes rounded up to
/// `align_of::<Slot>()`, and consumers index the held slot's array.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_aligned_slots(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const ALIGN: usize = mem::align_of::<Slot>();
    const RING: usize = barrier_bytes(3).div_ceil(ALIGN) * ALIGN;
    const SLOT_BYTES: u32 = mem::size_of::<Slot>() as u32;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, CONSUMERS) } else { Pipeline::<3>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, SLOT_BYTES);
            let dst = window + RING as u32 + st.index() * SLOT_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), SLOT_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let slots = dynamic_shared_base::<u8>().add(RING) as *const Slot;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let slot = slots.add(st.index() as usize);
            for r in 0..8 {
                acc += (*slot).0[r * 32 + c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Four stages; after its loop the producer hands the tail the slot after the last one it
/// filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_mem_bad_tail_after_next(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: usize = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        let mut next = st;
        next.advance();
        let _last = mem::replace(&mut st, next);
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}
