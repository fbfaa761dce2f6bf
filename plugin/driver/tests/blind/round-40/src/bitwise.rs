//! Bit-twiddling bookkeeping: every size is a power of two kept as its log, addresses are built
//! with shifts and ORs of fields that cannot overlap (`ring | stage << 10 | row << 7 | lane << 2`
//! in bytes), roles are bits of a 64-bit thread mask, a double buffer is chosen by the low bit
//! of the iteration, and a staged tile is XOR-swizzled against bank conflicts.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const LOG_COLS: u32 = 5; // 32 columns
const LOG_ROWS: u32 = 3; // 8 rows
const LOG_TILE: u32 = LOG_COLS + LOG_ROWS; // 256 floats
const LOG_TILE_BYTES: u32 = LOG_TILE + 2; // 1 KiB
const LOG_THREADS: u32 = 6; // 64 threads
const LOG_STAGES: u32 = 2; // 4 stages
const STAGES: u32 = 1 << LOG_STAGES;
const TILE_BYTES: u32 = 1 << LOG_TILE_BYTES;
const LANE_MASK: u32 = (1 << LOG_COLS) - 1;
const SMEM_BYTES: u32 = 1 << 13;

// Window layout in bytes: barriers at 0, ring at bit 12 (4096..8192).
const BAR_BYTE: u32 = 0;
const RING_BYTE: u32 = 1 << 12;

const PRODUCER_MASK: u64 = 0x0000_0000_0000_0001;
const CONSUMER_MASK: u64 = 0xFFFF_FFFF_0000_0000;

#[inline(always)]
fn has_bit(mask: u64, tid: u32) -> bool {
    (mask >> tid) & 1 != 0
}

/// Stage addressing by ORs: the ring at bit 12, the stage in bits 10..12, and inside the stage
/// the row in bits 7..10 and the lane in bits 2..7 (as float indices: shifted down by 2).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_bitwise_or_addressing(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(1 << LOG_THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let win = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(win | BAR_BYTE, 1 << LOG_COLS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win | BAR_BYTE);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + (RING_BYTE | st.index() << LOG_TILE_BYTES),
                input.add((t << LOG_TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >> LOG_COLS == 1 {
        let lane = tid & LANE_MASK;
        let smem = dynamic_shared_base::<f32>();
        let mut acc = 0.0f32;
        let mut st = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = (RING_BYTE >> 2) | st.index() << LOG_TILE;
            for row in 0..1u32 << LOG_ROWS {
                acc += *smem.add((stage | row << LOG_COLS | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b << LOG_COLS | lane) as usize) = acc;
    }
}

/// Plain double buffer: buffer `k & 1` is read while the next tile is staged into buffer
/// `(k + 1) & 1`; one barrier per iteration orders both (a buffer is written again only in
/// the iteration after the one that read it, across that iteration's barrier).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_bitwise_parity_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(1 << LOG_THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x();
    let smem = dynamic_shared_base::<f32>();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    let stage = |k: u32, t: u32| {
        let src = input.add((t << LOG_TILE) as usize);
        let buf = (k & 1) << LOG_TILE;
        for j in 0..1u32 << (LOG_TILE - LOG_THREADS) {
            let e = j << LOG_THREADS | tid;
            *smem.add((buf | e) as usize) = *src.add(e as usize);
        }
    };
    if n > 0 {
        stage(0, b);
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..n {
        if k + 1 < n {
            stage(k + 1, b + (k + 1) * g);
        }
        if tid >> LOG_COLS == 0 {
            let buf = (k & 1) << LOG_TILE;
            for row in 0..1u32 << LOG_ROWS {
                acc += *smem.add((buf | row << LOG_COLS | tid) as usize);
            }
        }
        barrier();
    }
    if tid >> LOG_COLS == 0 {
        *out.add((b << LOG_COLS | tid) as usize) = acc;
    }
}

/// XOR swizzle: element (row, col) of the staged tile lives at `row << 5 | (col ^ row)`, so the
/// eight rows of one column fall in eight different banks. Staged by all threads, summed by
/// warp 0, two barriers per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_bitwise_xor_swizzle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(1 << LOG_THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x();
    let tile = dynamic_shared_base::<f32>();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add((t << LOG_TILE) as usize);
        for j in 0..1u32 << (LOG_TILE - LOG_THREADS) {
            let e = j << LOG_THREADS | tid;
            let row = e >> LOG_COLS;
            let col = e & LANE_MASK;
            *tile.add((row << LOG_COLS | (col ^ row)) as usize) = *src.add(e as usize);
        }
        barrier();
        if tid < 1 << LOG_COLS {
            for row in 0..1u32 << LOG_ROWS {
                acc += *tile.add((row << LOG_COLS | (tid ^ row)) as usize);
            }
        }
        barrier();
        t += g;
    }
    if tid < 1 << LOG_COLS {
        *out.add((b << LOG_COLS | tid) as usize) = acc;
    }
}

/// Roles as bits of a thread mask: bit 0 is the producer, bits 32..63 the consumers. The ring
/// is at byte 0 this time and the barriers at bit 12; the tile loop counts down a packed
/// remaining-tiles word.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_bitwise_mask_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const RING0: u32 = 0;
    const BARS_HI: u32 = 1 << 12;
    block_threads(1 << LOG_THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let win = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(win + BARS_HI, CONSUMER_MASK.count_ones());
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win + BARS_HI);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b + g - 1) / g } else { 0 };

    if has_bit(PRODUCER_MASK, tid) {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut left = mine;
        let mut t = b;
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING0 + (st.index() << LOG_TILE_BYTES),
                input.add((t << LOG_TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if has_bit(CONSUMER_MASK, tid) {
        let lane = tid & LANE_MASK;
        let ring = dynamic_shared_base::<f32>().add((RING0 >> 2) as usize);
        let mut acc = 0.0f32;
        let mut st = PipelineState::<STAGES>::new();
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() << LOG_TILE) as usize);
            for row in 0..1usize << LOG_ROWS {
                acc += *stage.add(row << LOG_COLS | lane as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add((b << LOG_COLS | lane) as usize) = acc;
    }
}

/// BROKEN: the stage shift is `LOG_TILE_BYTES - 1` (the shift of a half tile) on both sides:
/// stages are 512 bytes apart while each copy writes 1024, so every copy overwrites the second
/// half of the stage before it, which the consumers have not read yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_bitwise_bad_half_stage_shift(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGE_SHIFT: u32 = LOG_TILE_BYTES - 1;
    block_threads(1 << LOG_THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let win = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(win | BAR_BYTE, 1 << LOG_COLS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win | BAR_BYTE);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + (RING_BYTE | st.index() << STAGE_SHIFT),
                input.add((t << LOG_TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >> LOG_COLS == 1 {
        let lane = tid & LANE_MASK;
        let smem = dynamic_shared_base::<u8>();
        let mut acc = 0.0f32;
        let mut st = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add((RING_BYTE | st.index() << STAGE_SHIFT) as usize) as *const f32;
            for row in 0..1usize << LOG_ROWS {
                acc += *stage.add(row << LOG_COLS | lane as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b << LOG_COLS | lane) as usize) = acc;
    }
}

/// BROKEN: the consumers start with the phase bit already set (`producer_start`, copied from
/// the producer's line): the first wait on each fresh full barrier returns at once and the
/// consumers read and release stages before any copy has landed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_bitwise_bad_consumer_phase_set(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(1 << LOG_THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let win = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(win | BAR_BYTE, 1 << LOG_COLS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win | BAR_BYTE);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + (RING_BYTE | st.index() << LOG_TILE_BYTES),
                input.add((t << LOG_TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >> LOG_COLS == 1 {
        let lane = tid & LANE_MASK;
        let smem = dynamic_shared_base::<f32>();
        let mut acc = 0.0f32;
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = (RING_BYTE >> 2) | st.index() << LOG_TILE;
            for row in 0..1u32 << LOG_ROWS {
                acc += *smem.add((stage | row << LOG_COLS | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b << LOG_COLS | lane) as usize) = acc;
    }
}

/// BROKEN: the double buffer stages the next tile into buffer `k & 1`, the one being read in
/// the same iteration (the parity of the tile being staged was meant), so warp 1 overwrites
/// the rows warp 0 is summing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_bitwise_bad_same_parity_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(1 << LOG_THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x();
    let smem = dynamic_shared_base::<f32>();
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    let stage = |buf_bit: u32, t: u32| {
        let src = input.add((t << LOG_TILE) as usize);
        let buf = buf_bit << LOG_TILE;
        for j in 0..1u32 << (LOG_TILE - LOG_THREADS) {
            let e = j << LOG_THREADS | tid;
            *smem.add((buf | e) as usize) = *src.add(e as usize);
        }
    };
    if n > 0 {
        stage(0, b);
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..n {
        if k + 1 < n {
            stage(k & 1, b + (k + 1) * g);
        }
        if tid >> LOG_COLS == 0 {
            let buf = (k & 1) << LOG_TILE;
            for row in 0..1u32 << LOG_ROWS {
                acc += *smem.add((buf | row << LOG_COLS | tid) as usize);
            }
        }
        barrier();
    }
    if tid >> LOG_COLS == 0 {
        *out.add((b << LOG_COLS | tid) as usize) = acc;
    }
}

/// BROKEN: the consumer mask is `0xFFFF_FFFE_0000_0000`, bit 32 missing: 31 threads release
/// a pipeline initialised for the mask's intended 32 (the count is written as a constant), so
/// no empty barrier completes and the producer hangs when the ring wraps; column 0 is never
/// written either.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_bitwise_bad_mask_missing_bit(input: *const f32, tiles: u32, out: *mut f32) {
    const CONSUMERS: u64 = 0xFFFF_FFFE_0000_0000;
    block_threads(1 << LOG_THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let win = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(win | BAR_BYTE, 1 << LOG_COLS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win | BAR_BYTE);
    let b = block_idx_x();
    let g = grid_dim_x();

    if has_bit(PRODUCER_MASK, tid) {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + (RING_BYTE | st.index() << LOG_TILE_BYTES),
                input.add((t << LOG_TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if has_bit(CONSUMERS, tid) {
        let lane = tid & LANE_MASK;
        let smem = dynamic_shared_base::<f32>();
        let mut acc = 0.0f32;
        let mut st = PipelineState::<STAGES>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = (RING_BYTE >> 2) | st.index() << LOG_TILE;
            for row in 0..1u32 << LOG_ROWS {
                acc += *smem.add((stage | row << LOG_COLS | lane) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b << LOG_COLS | lane) as usize) = acc;
    }
}
