//! Written the way a CUDA C++ programmer ports a TMA pipeline: raw pointers, `threadIdx`-style
//! role checks, warp specialisation, explicit shared-memory layouts and `while` loops.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::{COLUMNS, ROWS, TILE_BYTES, TILE_FLOATS};
use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    WARP_SIZE, barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

/// Warp 1 lane 0 produces, warp 0 consumes; four stages, barriers right after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_warp_specialized(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let smem_addr = dynamic_shared_window_address();
    let bar_addr = smem_addr + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bar_addr, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    let bid = block_idx_x();
    let nblk = grid_dim_x();

    if warp_id() == 1 {
        if lane_id() == 0 {
            let mut ps = PipelineState::<STAGES>::producer_start();
            let mut t = bid;
            while t < tiles {
                pipe.producer_acquire(&ps);
                pipe.producer_expect_tx(&ps, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_addr + ps.index() * TILE_BYTES,
                    input.add(t as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&ps),
                );
                ps.advance();
                t += nblk;
            }
            pipe.producer_tail(ps);
        }
    } else {
        let col = lane_id() as usize;
        let mut cs = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            let mut r = 0;
            while r < ROWS {
                sum += *tile.add(col + r * COLUMNS);
                r += 1;
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nblk;
        }
        *out.add(bid as usize * COLUMNS + col) = sum;
    }
}

/// The copy is issued before the arrive that announces its bytes: the transaction count of the
/// full barrier goes negative and the phase still needs the producer's arrival, so it completes
/// only once both happened.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_copy_before_expect(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    block_threads(64);
    let sm = dynamic_shared_base::<f32>();
    let sm_addr = dynamic_shared_window_address();
    let bar_addr = sm_addr + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bar_addr, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    let bid = block_idx_x();
    let nb = grid_dim_x();
    let tid = thread_idx_x();
    if tid == 32 {
        let mut ps = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            let full = pipe.producer_barrier(&ps);
            bulk_copy_global_to_shared(
                sm_addr + ps.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS).cast(),
                TILE_BYTES,
                full,
            );
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            ps.advance();
            t += nb;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let mut cs = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let p = sm.add(cs.index() as usize * TILE_FLOATS + tid as usize);
            for r in 0..ROWS {
                acc += *p.add(r * COLUMNS);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nb;
        }
        *out.add(bid as usize * COLUMNS + tid as usize) = acc;
    }
}

/// Each stage is filled by four 256-byte copies completing on the same full barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_split_copies(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const PIECES: u32 = 4;
    const PIECE_BYTES: u32 = TILE_BYTES / PIECES;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let bid = block_idx_x();
    let nb = grid_dim_x();
    if tid == 32 {
        let mut ps = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            let dst = base + ps.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            let full = pipe.producer_barrier(&ps);
            let mut piece = 0;
            while piece < PIECES {
                let off = piece * PIECE_BYTES;
                bulk_copy_global_to_shared(dst + off, src.add(off as usize), PIECE_BYTES, full);
                piece += 1;
            }
            ps.advance();
            t += nb;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let mut cs = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *tile.add(r * COLUMNS + tid as usize);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nb;
        }
        *out.add(bid as usize * COLUMNS + tid as usize) = acc;
    }
}

/// Seven stages (7 KiB of ring, the barriers in the last KiB); thread 0 produces, warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 7;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let smem_addr = dynamic_shared_window_address();
    let bar_addr = smem_addr + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bar_addr, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    if tid == 0 {
        let mut ps = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem_addr + ps.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&ps),
            );
            ps.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(ps);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut cs = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            acc += *tile.add(col)
                + *tile.add(col + 32)
                + *tile.add(col + 64)
                + *tile.add(col + 96)
                + *tile.add(col + 128)
                + *tile.add(col + 160)
                + *tile.add(col + 192)
                + *tile.add(col + 224);
            pipe.consumer_release(&cs);
            cs.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLUMNS + col) = acc;
    }
}

/// Persistent-kernel shape: the tiles come in work units of three, each summed on its own and
/// folded into the total; the ring's states live across the units.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_persistent_units_ok(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const UNIT: u32 = 3;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let smem_addr = dynamic_shared_window_address();
    let bar_addr = smem_addr + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bar_addr, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    let bid = block_idx_x();
    let nb = grid_dim_x();
    if warp_id() == 1 {
        if lane_id() != 0 {
            return;
        }
        let mut ps = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            let mut k = 0;
            while k < UNIT && t < tiles {
                pipe.producer_acquire(&ps);
                pipe.producer_expect_tx(&ps, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_addr + ps.index() * TILE_BYTES,
                    input.add(t as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&ps),
                );
                ps.advance();
                t += nb;
                k += 1;
            }
        }
        pipe.producer_tail(ps);
    } else {
        let col = lane_id() as usize;
        let mut total = 0.0f32;
        let mut cs = PipelineState::<STAGES>::new();
        let mut t = bid;
        while t < tiles {
            let mut unit_sum = 0.0f32;
            let mut k = 0;
            while k < UNIT && t < tiles {
                pipe.consumer_wait(&cs);
                let tile = smem.add(cs.index() as usize * TILE_FLOATS);
                for r in 0..ROWS {
                    unit_sum += *tile.add(col + r * COLUMNS);
                }
                pipe.consumer_release(&cs);
                cs.advance();
                t += nb;
                k += 1;
            }
            total += unit_sum;
        }
        *out.add(bid as usize * COLUMNS + col) = total;
    }
}

/// As `vet_persistent_units_ok`, but the consumers open a fresh state for every work unit.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_persistent_units(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const UNIT: u32 = 3;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let smem_addr = dynamic_shared_window_address();
    let bar_addr = smem_addr + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bar_addr, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    let bid = block_idx_x();
    let nb = grid_dim_x();
    if warp_id() == 1 {
        if lane_id() != 0 {
            return;
        }
        let mut ps = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            let mut k = 0;
            while k < UNIT && t < tiles {
                pipe.producer_acquire(&ps);
                pipe.producer_expect_tx(&ps, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_addr + ps.index() * TILE_BYTES,
                    input.add(t as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&ps),
                );
                ps.advance();
                t += nb;
                k += 1;
            }
        }
        pipe.producer_tail(ps);
    } else {
        let col = lane_id() as usize;
        let mut total = 0.0f32;
        let mut t = bid;
        while t < tiles {
            let mut cs = PipelineState::<STAGES>::new();
            let mut unit_sum = 0.0f32;
            let mut k = 0;
            while k < UNIT && t < tiles {
                pipe.consumer_wait(&cs);
                let tile = smem.add(cs.index() as usize * TILE_FLOATS);
                for r in 0..ROWS {
                    unit_sum += *tile.add(col + r * COLUMNS);
                }
                pipe.consumer_release(&cs);
                cs.advance();
                t += nb;
                k += 1;
            }
            total += unit_sum;
        }
        *out.add(bid as usize * COLUMNS + col) = total;
    }
}

/// The tile goes over in 256-byte chunks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_chunk_loop_short(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const CHUNK: u32 = 256;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let smem_addr = dynamic_shared_window_address();
    let bar_addr = smem_addr + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bar_addr, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    let bid = block_idx_x();
    let nb = grid_dim_x();
    if tid == 32 {
        let mut ps = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            let dst = smem_addr + ps.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            let mut off = 0u32;
            while off + CHUNK < TILE_BYTES {
                bulk_copy_global_to_shared(dst + off, src.add(off as usize), CHUNK, pipe.producer_barrier(&ps));
                off += CHUNK;
            }
            ps.advance();
            t += nb;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let mut cs = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *tile.add(r * COLUMNS + tid as usize);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nb;
        }
        *out.add(bid as usize * COLUMNS + tid as usize) = acc;
    }
}

/// Barriers placed after the ring, its size written as `STAGES * TILE_FLOATS`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_barrier_units(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const RING_SIZE: u32 = STAGES * TILE_FLOATS as u32;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let smem_addr = dynamic_shared_window_address();
    let bar_addr = smem_addr + RING_SIZE;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bar_addr, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    if warp_id() == 1 {
        if lane_id() == 0 {
            let mut ps = PipelineState::<STAGES>::producer_start();
            let mut t = bid;
            while t < tiles {
                pipe.producer_acquire(&ps);
                pipe.producer_expect_tx(&ps, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_addr + ps.index() * TILE_BYTES,
                    input.add(t as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&ps),
                );
                ps.advance();
                t += nblk;
            }
            pipe.producer_tail(ps);
        }
    } else {
        let col = lane_id() as usize;
        let mut cs = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                sum += *tile.add(col + r * COLUMNS);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nblk;
        }
        *out.add(bid as usize * COLUMNS + col) = sum;
    }
}

/// Lanes of warp 1 up to `LAST_PRODUCER_LANE` issue the copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_producer_lanes(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const PRODUCER_LANES: u32 = 1;
    const LAST_PRODUCER_LANE: u32 = PRODUCER_LANES;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let smem_addr = dynamic_shared_window_address();
    let bar_addr = smem_addr + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bar_addr, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    if warp_id() == 1 {
        if lane_id() <= LAST_PRODUCER_LANE {
            let mut ps = PipelineState::<STAGES>::producer_start();
            let mut t = bid;
            while t < tiles {
                pipe.producer_acquire(&ps);
                pipe.producer_expect_tx(&ps, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_addr + ps.index() * TILE_BYTES,
                    input.add(t as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&ps),
                );
                ps.advance();
                t += nblk;
            }
            pipe.producer_tail(ps);
        }
    } else {
        let col = lane_id() as usize;
        let mut cs = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                sum += *tile.add(col + r * COLUMNS);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nblk;
        }
        *out.add(bid as usize * COLUMNS + col) = sum;
    }
}

/// One arrive per consumer warp on the empty barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_lane0_release(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const CONSUMER_WARPS: u32 = 1;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let smem_addr = dynamic_shared_window_address();
    let bar_addr = smem_addr + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bar_addr, CONSUMER_WARPS * WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    let bid = block_idx_x();
    let nblk = grid_dim_x();
    if warp_id() == CONSUMER_WARPS {
        if lane_id() == 0 {
            let mut ps = PipelineState::<STAGES>::producer_start();
            let mut t = bid;
            while t < tiles {
                pipe.producer_acquire(&ps);
                pipe.producer_expect_tx(&ps, TILE_BYTES);
                bulk_copy_global_to_shared(
                    smem_addr + ps.index() * TILE_BYTES,
                    input.add(t as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&ps),
                );
                ps.advance();
                t += nblk;
            }
            pipe.producer_tail(ps);
        }
    } else {
        let lane = lane_id();
        let col = lane as usize;
        let mut cs = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                sum += *tile.add(col + r * COLUMNS);
            }
            if lane == 0 {
                pipe.consumer_release(&cs);
            }
            cs.advance();
            t += nblk;
        }
        *out.add(bid as usize * COLUMNS + col) = sum;
    }
}

/// The tile is spread over three copies to keep more requests in flight.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vet_three_way_split(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const PARTS: u32 = 3;
    const PART_BYTES: u32 = TILE_BYTES / PARTS;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let smem_addr = dynamic_shared_window_address();
    let bar_addr = smem_addr + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bar_addr, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bar_addr);
    let bid = block_idx_x();
    let nb = grid_dim_x();
    if tid == 32 {
        let mut ps = PipelineState::<STAGES>::producer_start();
        let mut t = bid;
        while t < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, TILE_BYTES);
            let dst = smem_addr + ps.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            let full = pipe.producer_barrier(&ps);
            for part in 0..PARTS {
                let off = part * PART_BYTES;
                let len = if part == PARTS - 1 { TILE_BYTES - off } else { PART_BYTES };
                bulk_copy_global_to_shared(dst + off, src.add(off as usize), len, full);
            }
            ps.advance();
            t += nb;
        }
        pipe.producer_tail(ps);
    } else if tid < 32 {
        let mut cs = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = bid;
        while t < tiles {
            pipe.consumer_wait(&cs);
            let tile = smem.add(cs.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *tile.add(r * COLUMNS + tid as usize);
            }
            pipe.consumer_release(&cs);
            cs.advance();
            t += nb;
        }
        *out.add(bid as usize * COLUMNS + tid as usize) = acc;
    }
}
