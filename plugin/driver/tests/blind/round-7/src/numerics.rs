//! The numerics person: tight index arithmetic, shifts and masks, mixed integer widths.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const LOG_TILE_BYTES: u32 = 10;
const LOG_TILE_FLOATS: u32 = 8;
const TILE_BYTES: u32 = 1 << LOG_TILE_BYTES;

/// Shifts for every offset, masks for the roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_numerics_shift_layout(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let lane = tid & 31;
    let warp = tid >> 5;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + (S << LOG_TILE_BYTES);
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if warp == 1 && lane == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = (input as *const u8).add((t as usize) << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(window + (st.index() << LOG_TILE_BYTES), src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if warp == 0 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add((st.index() as usize) << LOG_TILE_FLOATS);
            let mut k = 0u32;
            while k < 8 {
                acc += *stage.add(((k << 5) | lane) as usize);
                k += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << 5) | lane) as usize) = acc;
    }
}

/// Byte offsets in u64, the column as a u16.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_numerics_u64_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem_bytes = dynamic_shared_base::<u8>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let first = block_idx_x() as u64;
    let stride = grid_dim_x() as u64;
    let count = tiles as u64;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = first;
        while t < count {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let byte_offset: u64 = t << 10;
            let src = (input as *const u8).add(byte_offset as usize);
            let dst = window + (st.index() as u64 * TILE_BYTES as u64) as u32;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += stride;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let col = tid as u16;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = first;
        while t < count {
            pipe.consumer_wait(&st);
            let stage_bytes = (st.index() as u64) << 10;
            for k in 0u16..8 {
                let elem = (k << 5) + col;
                let off = stage_bytes + ((elem as u64) << 2);
                acc += *(smem_bytes.add(off as usize) as *const f32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += stride;
        }
        *out.add((first as usize) * 32 + col as usize) = acc;
    }
}

/// Signed tile counters.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_numerics_i32_counters(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x() as i32;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let n = tiles as i32;
    let g = grid_dim_x() as i32;
    let b = block_idx_x() as i32;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < n {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.offset((t << LOG_TILE_FLOATS) as isize) as *const u8;
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < n {
            pipe.consumer_wait(&st);
            let stage = smem.offset((st.index() as i32 * 256) as isize);
            for k in 0i32..8 {
                acc += *stage.offset((k * 32 + tid) as isize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.offset((b * 32 + tid) as isize) = acc;
    }
}

/// Eight stages of half a tile (512 bytes): each tile is two steps of the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_numerics_half_tile_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 8;
    const HALF_BYTES: u32 = 512;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + S * HALF_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            let tile = (input as *const u8).add((t as usize) << LOG_TILE_BYTES);
            for h in 0..2u32 {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, HALF_BYTES);
                bulk_copy_global_to_shared(window + (st.index() << 9), tile.add((h << 9) as usize), HALF_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            for _h in 0..2u32 {
                pipe.consumer_wait(&st);
                let half = smem.add((st.index() << 7) as usize);
                for k in 0..4u32 {
                    acc += *half.add(((k << 5) + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << 5) + tid) as usize) = acc;
    }
}

/// BROKEN: the copy's stage is the acquired index with its low bit flipped (a "ping-pong"
/// trick on two stages) : it lands in the stage the consumers may be reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_numerics_xor_destination(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + (S << LOG_TILE_BYTES);
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = (input as *const u8).add((t as usize) << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(window + ((st.index() ^ 1) << LOG_TILE_BYTES), src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add((st.index() as usize) << LOG_TILE_FLOATS);
            for k in 0..8u32 {
                acc += *stage.add(((k << 5) | tid) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << 5) | tid) as usize) = acc;
    }
}

/// BROKEN: the consumer's stage offset is the byte shift applied to an `f32` pointer
/// (4× too far: stage 1 reads past the ring, stage 2 past the window).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_numerics_bytes_as_elements(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + (S << LOG_TILE_BYTES);
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = (input as *const u8).add((t as usize) << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(window + (st.index() << LOG_TILE_BYTES), src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add((st.index() << LOG_TILE_BYTES) as usize);
            for k in 0..8u32 {
                acc += *stage.add(((k << 5) | tid) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << 5) | tid) as usize) = acc;
    }
}

/// BROKEN: the tile is copied in 256-byte chunks, but the chunk loop stops at three
/// (`0..3` instead of `0..4`) while the whole tile is announced.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_numerics_three_chunks(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const CHUNK: u32 = 256;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + (S << LOG_TILE_BYTES);
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = (input as *const u8).add((t as usize) << LOG_TILE_BYTES);
            let dst = window + (st.index() << LOG_TILE_BYTES);
            for c in 0..3u32 {
                bulk_copy_global_to_shared(dst + c * CHUNK, src.add((c * CHUNK) as usize), CHUNK, pipe.producer_barrier(&st));
            }
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add((st.index() as usize) << LOG_TILE_FLOATS);
            for k in 0..8u32 {
                acc += *stage.add(((k << 5) | tid) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << 5) | tid) as usize) = acc;
    }
}

/// BROKEN: the consumer reads the *next* stage (`(index + 1) & 3`), which may still be
/// filling or empty.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_numerics_read_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + (S << LOG_TILE_BYTES);
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = (input as *const u8).add((t as usize) << LOG_TILE_BYTES);
            bulk_copy_global_to_shared(window + (st.index() << LOG_TILE_BYTES), src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add((((st.index() + 1) & (S - 1)) << LOG_TILE_FLOATS) as usize);
            for k in 0..8u32 {
                acc += *stage.add(((k << 5) | tid) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(((block_idx_x() << 5) | tid) as usize) = acc;
    }
}
