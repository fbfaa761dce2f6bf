//! Bit arithmetic for every offset and role: sizes kept as base-2 logarithms, offsets built by
//! shifts and ORs, warps and lanes by `>> 5` and `& 31`, row sets as bit masks, and index
//! values narrowed to `u8`/`u16` or widened to `u64` where the author thought it natural.
//!
//! Pipeline kernels: barriers at window byte 0, a ring of 1 KiB stages at a power-of-two byte
//! offset, one producer thread, one warp of 32 consumers (lane `c` sums column `c`).
//! The plain kernels stage a tile into shared memory with every thread, XOR-swizzled.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const LOG_TILE_FLOATS: u32 = 8;
const LOG_TILE_BYTES: u32 = 10;
const LOG_COLS: u32 = 5;
const LANE_MASK: u32 = (1 << LOG_COLS) - 1;
const LOG_STAGES: u32 = 2;
const STAGES: u32 = 1 << LOG_STAGES;
const CONSUMERS: u32 = 1 << LOG_COLS;
const RING: u32 = 1 << 10;

/// Four stages at byte 1024; every offset is a shift of the stage index, row or tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_shift_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let warp = tid >> LOG_COLS;
    let lane = tid & LANE_MASK;
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, CONSUMERS) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << LOG_TILE_BYTES);
            let dst = window + RING + (st.index() << LOG_TILE_BYTES);
            let src = input.add((t << LOG_TILE_FLOATS) as usize);
            bulk_copy_global_to_shared(dst, src.cast::<u8>(), 1 << LOG_TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if warp == 1 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(((RING >> 2) + (st.index() << LOG_TILE_FLOATS)) as usize);
            for r in 0..8u32 {
                acc += *stage.add(((r << LOG_COLS) | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << LOG_COLS) | lane) as usize) = acc;
    }
}

/// Three stages at byte 64; lanes as `u8`, rows as `u16`, the source offset in `u64` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_narrow_types(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_AT: u32 = 1 << 6;
    let tid = thread_idx_x();
    let lane: u8 = (tid & LANE_MASK) as u8;
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, CONSUMERS) } else { Pipeline::<3>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << LOG_TILE_BYTES);
            let offset: u64 = (t as u64) << LOG_TILE_BYTES;
            let src = input.cast::<u8>().add(offset as usize);
            let dst = window + RING_AT + (st.index() << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(dst, src, 1 << LOG_TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >> LOG_COLS == 1 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(((RING_AT >> 2) + (st.index() << LOG_TILE_FLOATS)) as usize);
            let mut r: u16 = 0;
            while r < 8 {
                acc += *stage.add(((r as usize) << LOG_COLS) | lane as usize);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let slot = ((block_idx_x() as u16) << LOG_COLS) | lane as u16;
        *out.add(slot as usize) = acc;
    }
}

/// Two stages at byte 128; warp 0 consumes, lane 0 of warp 1 initialises and produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_warp_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_AT: u32 = 1 << 7;
    let tid = thread_idx_x();
    let warp = tid >> LOG_COLS;
    let lane = tid & LANE_MASK;
    let is_producer = warp == 1 && lane == 0;
    let window = dynamic_shared_window_address();
    let pipe = if is_producer { Pipeline::<2>::init(window, CONSUMERS) } else { Pipeline::<2>::attach(window) };
    barrier();
    if warp == 0 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(((RING_AT >> 2) + (st.index() << LOG_TILE_FLOATS)) as usize);
            for r in 0..8u32 {
                acc += *stage.add(((r << LOG_COLS) | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << LOG_COLS) | lane) as usize) = acc;
    } else if is_producer {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << LOG_TILE_BYTES);
            let dst = window + RING_AT + (st.index() << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(dst, input.add((t << LOG_TILE_FLOATS) as usize).cast::<u8>(), 1 << LOG_TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    }
}

/// Four stages at byte 1024; consumers visit the rows of a `u8` mask, lowest bit first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_row_mask_walk(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let lane = tid & LANE_MASK;
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, CONSUMERS) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << LOG_TILE_BYTES);
            let dst = window + RING + (st.index() << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(dst, input.add((t << LOG_TILE_FLOATS) as usize).cast::<u8>(), 1 << LOG_TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid & !LANE_MASK == 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(((RING >> 2) + (st.index() << LOG_TILE_FLOATS)) as usize);
            let mut pending: u8 = 0xff;
            while pending != 0 {
                let r = pending.trailing_zeros();
                pending &= pending - 1;
                acc += *stage.add(((r << LOG_COLS) | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << LOG_COLS) | lane) as usize) = acc;
    }
}

/// Plain shared memory: every thread stages four elements per tile into rows whose columns
/// are XOR-swizzled by the row, then warp 0 reads its column back; two barriers per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_plain_xor_swizzle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let buf = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let lane = tid & LANE_MASK;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let tile = input.add((t << LOG_TILE_FLOATS) as usize);
        for k in 0..4u32 {
            let i = tid + (k << 6);
            let r = i >> LOG_COLS;
            let col = i & LANE_MASK;
            *buf.add(((r << LOG_COLS) | (col ^ r)) as usize) = *tile.add(i as usize);
        }
        barrier();
        if tid >> LOG_COLS == 0 {
            for r in 0..8u32 {
                acc += *buf.add(((r << LOG_COLS) | (lane ^ r)) as usize);
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid >> LOG_COLS == 0 {
        *out.add(((block_idx_x() << LOG_COLS) | lane) as usize) = acc;
    }
}

/// Four stages at byte 1024; the producer masks the slot it copies into as `(index + 1) & 3`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_bad_next_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let lane = tid & LANE_MASK;
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, CONSUMERS) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << LOG_TILE_BYTES);
            let slot = (st.index() + 1) & (STAGES - 1);
            let dst = window + RING + (slot << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(dst, input.add((t << LOG_TILE_FLOATS) as usize).cast::<u8>(), 1 << LOG_TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >> LOG_COLS == 1 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(((RING >> 2) + (st.index() << LOG_TILE_FLOATS)) as usize);
            for r in 0..8u32 {
                acc += *stage.add(((r << LOG_COLS) | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << LOG_COLS) | lane) as usize) = acc;
    }
}

/// Four stages at byte 1024; the producer is chosen by the lane bits alone.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_bad_lane_producers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let lane = tid & LANE_MASK;
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, CONSUMERS) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    if lane == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << LOG_TILE_BYTES);
            let dst = window + RING + (st.index() << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(dst, input.add((t << LOG_TILE_FLOATS) as usize).cast::<u8>(), 1 << LOG_TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    }
    if tid >> LOG_COLS == 1 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(((RING >> 2) + (st.index() << LOG_TILE_FLOATS)) as usize);
            for r in 0..8u32 {
                acc += *stage.add(((r << LOG_COLS) | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << LOG_COLS) | lane) as usize) = acc;
    }
}

/// Four stages at byte 1024; consumers shift the stage index by the tile's bytes, in floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_bad_float_shift(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let lane = tid & LANE_MASK;
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, CONSUMERS) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << LOG_TILE_BYTES);
            let dst = window + RING + (st.index() << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(dst, input.add((t << LOG_TILE_FLOATS) as usize).cast::<u8>(), 1 << LOG_TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >> LOG_COLS == 1 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add((RING + (st.index() << LOG_TILE_BYTES)) as usize);
            for r in 0..8u32 {
                acc += *stage.add(((r << LOG_COLS) | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << LOG_COLS) | lane) as usize) = acc;
    }
}

/// Four stages at byte 1024; the copy's size is written with the floats' logarithm.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_bad_tx_log(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let lane = tid & LANE_MASK;
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, CONSUMERS) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << LOG_TILE_BYTES);
            let dst = window + RING + (st.index() << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(dst, input.add((t << LOG_TILE_FLOATS) as usize).cast::<u8>(), 1 << LOG_TILE_FLOATS, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >> LOG_COLS == 1 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(((RING >> 2) + (st.index() << LOG_TILE_FLOATS)) as usize);
            for r in 0..8u32 {
                acc += *stage.add(((r << LOG_COLS) | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << LOG_COLS) | lane) as usize) = acc;
    }
}

/// Plain shared memory, XOR-swizzled as above, with one barrier per tile between the
/// staging and the reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_bits_bad_plain_swizzle_race(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let buf = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let lane = tid & LANE_MASK;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let tile = input.add((t << LOG_TILE_FLOATS) as usize);
        for k in 0..4u32 {
            let i = tid + (k << 6);
            let r = i >> LOG_COLS;
            let col = i & LANE_MASK;
            *buf.add(((r << LOG_COLS) | (col ^ r)) as usize) = *tile.add(i as usize);
        }
        barrier();
        if tid >> LOG_COLS == 0 {
            for r in 0..8u32 {
                acc += *buf.add(((r << LOG_COLS) | (lane ^ r)) as usize);
            }
        }
        t += grid_dim_x();
    }
    if tid >> LOG_COLS == 0 {
        *out.add(((block_idx_x() << LOG_COLS) | lane) as usize) = acc;
    }
}
