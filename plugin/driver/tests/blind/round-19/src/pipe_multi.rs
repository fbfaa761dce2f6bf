//! Pipeline kernels with more than one of something: two rings alternating by tile parity,
//! stages filled by several copies, consumers combining lanes with warp shuffles, a stage's
//! column prefetched into registers before the release, and arrays of stage pointers.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    launch, thread_idx_x,
};
use crate::{COLS, ROWS, TILE, TILE_BYTES};

#[inline(always)]
fn owned(tiles: u32, block: u32, grid: u32) -> u32 {
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// Two two-stage pipelines: even tiles of the block go through ring A, odd ones through ring B.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_two_rings_parity(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_A: u32 = 0;
    const RING_B: u32 = S * TILE_BYTES;
    const BARS_A: u32 = 2 * S * TILE_BYTES;
    const BARS_B: u32 = BARS_A + 2 * 8 * S;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (pa, pb) = if tid == 0 {
        (Pipeline::<S>::init(window + BARS_A, 32), Pipeline::<S>::init(window + BARS_B, 32))
    } else {
        (Pipeline::<S>::attach(window + BARS_A), Pipeline::<S>::attach(window + BARS_B))
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    if tid == 0 {
        let mut sa = PipelineState::<S>::producer_start();
        let mut sb = PipelineState::<S>::producer_start();
        for k in 0..n {
            let src = input.add((block + k * grid) as usize * TILE) as *const u8;
            if k % 2 == 0 {
                pa.producer_acquire(&sa);
                pa.producer_expect_tx(&sa, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_A + sa.index() * TILE_BYTES, src, TILE_BYTES, pa.producer_barrier(&sa));
                sa.advance();
            } else {
                pb.producer_acquire(&sb);
                pb.producer_expect_tx(&sb, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_B + sb.index() * TILE_BYTES, src, TILE_BYTES, pb.producer_barrier(&sb));
                sb.advance();
            }
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let smem = dynamic_shared_base::<f32>();
        let ring_a = smem.add(RING_A as usize / 4);
        let ring_b = smem.add(RING_B as usize / 4);
        let mut ca = PipelineState::<S>::new();
        let mut cb = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        for k in 0..n {
            if k % 2 == 0 {
                pa.consumer_wait(&ca);
                let stage = ring_a.add(ca.index() as usize * TILE);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + c);
                }
                pa.consumer_release(&ca);
                ca.advance();
            } else {
                pb.consumer_wait(&cb);
                let stage = ring_b.add(cb.index() as usize * TILE);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + c);
                }
                pb.consumer_release(&cb);
                cb.advance();
            }
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// Each stage is filled by two 512-byte copies (rows 0..4 and 4..8) against one 1024-byte
/// announcement.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
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
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + st.index() * TILE_BYTES;
            let src = input.add(tile as usize * TILE) as *const u8;
            let bar = pipe.producer_barrier(&st);
            bulk_copy_global_to_shared(dst, src, HALF, bar);
            bulk_copy_global_to_shared(dst + HALF, src.add(HALF as usize), HALF, bar);
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// Consumer lane `8q + r` reads row `r` of columns `8q..8q + 8`; after the loop, sums over each
/// aligned segment of 8 lanes (`segment_sum`) give the column totals.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_segment_shuffle(input: *const f32, tiles: u32, out: *mut f32) {
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
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let lane = lane_id() as usize;
        let group = lane / 8;
        let row = lane % 8;
        let ring = dynamic_shared_base::<f32>();
        let mut acc = [0.0f32; 8];
        let mut st = PipelineState::<S>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let at = ring.add(st.index() as usize * TILE + row * COLS + group * 8);
            for (j, a) in acc.iter_mut().enumerate() {
                *a += *at.add(j);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        let mut mine = 0.0f32;
        for (j, a) in acc.iter().enumerate() {
            let column_total = segment_sum(*a, 8);
            if j == row {
                mine = column_total;
            }
        }
        *out.add(block as usize * COLS + group * 8 + row) = mine;
    }
}

/// Consumers copy their column into registers, release the stage at once, then sum.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_prefetch_registers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 3;
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
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let column = ring.add(st.index() as usize * TILE + c);
            let held: [f32; ROWS] = [
                *column,
                *column.add(COLS),
                *column.add(2 * COLS),
                *column.add(3 * COLS),
                *column.add(4 * COLS),
                *column.add(5 * COLS),
                *column.add(6 * COLS),
                *column.add(7 * COLS),
            ];
            pipe.consumer_release(&st);
            st.advance();
            sum += held.iter().sum::<f32>();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// The stages' window addresses and float pointers are kept in arrays selected by stage index.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_stage_pointer_array(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 63 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 63 {
        let slots: [u32; S as usize] = [window, window + TILE_BYTES, window + 2 * TILE_BYTES, window + 3 * TILE_BYTES];
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(slots[st.index() as usize], input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let stages: [*const f32; S as usize] = [ring, ring.add(TILE), ring.add(2 * TILE), ring.add(3 * TILE)];
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let stage = stages[st.index() as usize];
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + tid as usize) = sum;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// Two rings by tile parity, the second pipeline's barriers 16 bytes after the first's ("two
/// stages of 8 bytes"): they overlap the first pipeline's empty barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_bad_second_bars_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_A: u32 = 0;
    const RING_B: u32 = S * TILE_BYTES;
    const BARS_A: u32 = 2 * S * TILE_BYTES;
    const BARS_B: u32 = BARS_A + 8 * S;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (pa, pb) = if tid == 0 {
        (Pipeline::<S>::init(window + BARS_A, 32), Pipeline::<S>::init(window + BARS_B, 32))
    } else {
        (Pipeline::<S>::attach(window + BARS_A), Pipeline::<S>::attach(window + BARS_B))
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    if tid == 0 {
        let mut sa = PipelineState::<S>::producer_start();
        let mut sb = PipelineState::<S>::producer_start();
        for k in 0..n {
            let src = input.add((block + k * grid) as usize * TILE) as *const u8;
            if k % 2 == 0 {
                pa.producer_acquire(&sa);
                pa.producer_expect_tx(&sa, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_A + sa.index() * TILE_BYTES, src, TILE_BYTES, pa.producer_barrier(&sa));
                sa.advance();
            } else {
                pb.producer_acquire(&sb);
                pb.producer_expect_tx(&sb, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_B + sb.index() * TILE_BYTES, src, TILE_BYTES, pb.producer_barrier(&sb));
                sb.advance();
            }
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let smem = dynamic_shared_base::<f32>();
        let mut ca = PipelineState::<S>::new();
        let mut cb = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        for k in 0..n {
            if k % 2 == 0 {
                pa.consumer_wait(&ca);
                let stage = smem.add(RING_A as usize / 4 + ca.index() as usize * TILE);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + c);
                }
                pa.consumer_release(&ca);
                ca.advance();
            } else {
                pb.consumer_wait(&cb);
                let stage = smem.add(RING_B as usize / 4 + cb.index() as usize * TILE);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + c);
                }
                pb.consumer_release(&cb);
                cb.advance();
            }
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// Stages are filled in chunks of three rows, `ROWS / 3` of them: two chunks (768 bytes) reach
/// a full barrier that expects 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_bad_row_chunks_floor(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const CHUNK_ROWS: usize = 3;
    const CHUNKS: usize = ROWS / CHUNK_ROWS;
    const CHUNK_BYTES: u32 = (CHUNK_ROWS * COLS * 4) as u32;
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
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + st.index() * TILE_BYTES;
            let src = input.add(tile as usize * TILE) as *const u8;
            for ch in 0..CHUNKS as u32 {
                bulk_copy_global_to_shared(dst + ch * CHUNK_BYTES, src.add((ch * CHUNK_BYTES) as usize), CHUNK_BYTES, pipe.producer_barrier(&st));
            }
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// Software-pipelined consumers on a two-stage ring: while still holding the current stage they
/// load the next stage's column, before waiting for that stage's copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_bad_prefetch_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..n {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add((block + k * grid) as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>();
        let column = |stage_index: u32| -> f32 {
            let at = ring.wrapping_add(stage_index as usize * TILE + c);
            let mut s = 0.0f32;
            for r in 0..ROWS {
                s += unsafe { *at.add(r * COLS) };
            }
            s
        };
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        let mut current = 0.0f32;
        if n > 0 {
            pipe.consumer_wait(&st);
            current = column(st.index());
        }
        for k in 0..n {
            let more = k + 1 < n;
            let mut upcoming = 0.0f32;
            if more {
                upcoming = column((st.index() + 1) % S);
            }
            pipe.consumer_release(&st);
            st.advance();
            if more {
                pipe.consumer_wait(&st);
            }
            sum += current;
            current = upcoming;
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// Two rings by tile parity, ring B placed `S * TILE` bytes in (a float count taken for
/// bytes): it overlaps ring A's stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_bad_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_A: u32 = 0;
    const RING_B: u32 = RING_A + S * TILE as u32;
    const BARS_A: u32 = 2 * S * TILE_BYTES;
    const BARS_B: u32 = BARS_A + 2 * 8 * S;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (pa, pb) = if tid == 0 {
        (Pipeline::<S>::init(window + BARS_A, 32), Pipeline::<S>::init(window + BARS_B, 32))
    } else {
        (Pipeline::<S>::attach(window + BARS_A), Pipeline::<S>::attach(window + BARS_B))
    };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    if tid == 0 {
        let mut sa = PipelineState::<S>::producer_start();
        let mut sb = PipelineState::<S>::producer_start();
        for k in 0..n {
            let src = input.add((block + k * grid) as usize * TILE) as *const u8;
            if k % 2 == 0 {
                pa.producer_acquire(&sa);
                pa.producer_expect_tx(&sa, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_A + sa.index() * TILE_BYTES, src, TILE_BYTES, pa.producer_barrier(&sa));
                sa.advance();
            } else {
                pb.producer_acquire(&sb);
                pb.producer_expect_tx(&sb, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING_B + sb.index() * TILE_BYTES, src, TILE_BYTES, pb.producer_barrier(&sb));
                sb.advance();
            }
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let smem = dynamic_shared_base::<f32>();
        let mut ca = PipelineState::<S>::new();
        let mut cb = PipelineState::<S>::new();
        let mut sum = 0.0f32;
        for k in 0..n {
            if k % 2 == 0 {
                pa.consumer_wait(&ca);
                let stage = smem.add(RING_A as usize / 4 + ca.index() as usize * TILE);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + c);
                }
                pa.consumer_release(&ca);
                ca.advance();
            } else {
                pb.consumer_wait(&cb);
                let stage = smem.add(RING_B as usize / 4 + cb.index() as usize * TILE);
                for r in 0..ROWS {
                    sum += *stage.add(r * COLS + c);
                }
                pb.consumer_release(&cb);
                cb.advance();
            }
        }
        *out.add(block as usize * COLS + c) = sum;
    }
}

/// Per tile the consumer warp combines its lanes with `segment_sum`, then "the warp's values are
/// in registers, so lane 0 releases for the warp" while the empty barriers still expect 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_multi_bad_lane0_release(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const CONSUMERS: u32 = 32;
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(bars, CONSUMERS) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(tile as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            tile += grid;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let lane = lane_id() as usize;
        let group = lane / 8;
        let row = lane % 8;
        let ring = dynamic_shared_base::<f32>();
        let mut mine = 0.0f32;
        let mut st = PipelineState::<S>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&st);
            let at = ring.add(st.index() as usize * TILE + row * COLS + group * 8);
            let mut vals = [0.0f32; 8];
            for (j, v) in vals.iter_mut().enumerate() {
                *v = *at.add(j);
            }
            for (j, v) in vals.iter().enumerate() {
                let total = segment_sum(*v, 8);
                if j == row {
                    mine += total;
                }
            }
            if lane == 0 {
                pipe.consumer_release(&st);
            }
            st.advance();
            tile += grid;
        }
        *out.add(block as usize * COLS + group * 8 + row) = mine;
    }
}
