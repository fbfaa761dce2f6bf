//! Style `split`: a two-phase kernel, a pipelined main loop over split rows, then an epilogue
//! through shared scratch.
//!
//! The consumers of warp 0 do not each own a whole column: lane `l` takes a share of the rows
//! (a half or a quarter of them) for two or four columns, so each column's sum exists in pieces
//! on several lanes when the tile loop ends. After the roles' branches, the pieces are parked in
//! a scratch area placed beside the ring and its barriers, the whole block meets at one
//! `barrier()`, and the owners of the output columns add the pieces up. Producer and consumer
//! bodies are small free functions; layout constants are per kernel.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const BLOCK: u32 = 64;
const SMEM: u32 = 8192;

/// The producer: the block's tiles into the ring at window address `ring`.
#[inline(always)]
unsafe fn fill_ring<const S: u32>(pipe: &Pipeline<S>, ring: u32, input: *const f32, tiles: u32) {
    let g = grid_dim_x();
    let mut state = PipelineState::<S>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring + state.index() * TILE_BYTES,
            input.add(t as usize * TILE_FLOATS) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        t += g;
    }
    pipe.producer_tail(state);
}

/// Rows `first..first + count` of columns `k` and `k + 16` of a tile.
#[inline(always)]
unsafe fn rows_of_two_columns(tile: *const f32, first: usize, count: usize, k: usize) -> (f32, f32) {
    let mut low = 0.0f32;
    let mut high = 0.0f32;
    let mut r = first;
    while r < first + count {
        low += *tile.add(r * COLUMNS + k);
        high += *tile.add(r * COLUMNS + k + 16);
        r += 1;
    }
    (low, high)
}

/// The consumers' loop for lanes that each own half the rows (`h = lane / 16`) of columns
/// `lane % 16` and `lane % 16 + 16`.
#[inline(always)]
unsafe fn consume_halves<const S: u32>(pipe: &Pipeline<S>, ring: *const f32, tiles: u32, lane: usize) -> (f32, f32) {
    let g = grid_dim_x();
    let h = lane / 16;
    let k = lane % 16;
    let mut state = PipelineState::<S>::new();
    let (mut low, mut high) = (0.0f32, 0.0f32);
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&state);
        let (l, hi) = rows_of_two_columns(ring.add(state.index() as usize * TILE_FLOATS), 4 * h, 4, k);
        pipe.consumer_release(&state);
        state.advance();
        low += l;
        high += hi;
        t += g;
    }
    (low, high)
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Four stages, barriers at 0, ring at 1024..5120, scratch (32 floats) at 6144. The upper-half
/// lanes (16..32) park their two pieces; after the block barrier the lower-half lanes add them
/// to their own and write both columns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_split_halves_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    const SCRATCH: usize = 6144;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    let mut piece = (0.0f32, 0.0f32);
    if tid == 32 {
        fill_ring(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        piece = consume_halves(&pipe, ring, tiles, tid as usize);
    }

    let scratch = dynamic_shared_base::<f32>().add(SCRATCH / 4);
    let k = (tid % 16) as usize;
    if tid >= 16 && tid < 32 {
        *scratch.add(k) = piece.0;
        *scratch.add(16 + k) = piece.1;
    }
    barrier();
    if tid < 16 {
        let b = block_idx_x() as usize;
        *out.add(b * COLUMNS + k) = piece.0 + *scratch.add(k);
        *out.add(b * COLUMNS + k + 16) = piece.1 + *scratch.add(16 + k);
    }
}

/// Three stages, barriers at 0, ring at 2048..5120, scratch (64 floats) at 5120. Every
/// consumer lane parks both pieces by (half, column); after the barrier, thread `c` of warp 0
/// adds the two halves of column `c`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_split_full_scratch(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const BARS: u32 = 0;
    const RING: u32 = 2048;
    const SCRATCH: usize = 5120;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let scratch = dynamic_shared_base::<f32>().add(SCRATCH / 4);

    if tid == 32 {
        fill_ring(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let (low, high) = consume_halves(&pipe, ring, tiles, tid as usize);
        let h = (tid / 16) as usize;
        let k = (tid % 16) as usize;
        *scratch.add(h * COLUMNS + k) = low;
        *scratch.add(h * COLUMNS + k + 16) = high;
    }
    barrier();
    if tid < 32 {
        let c = tid as usize;
        let b = block_idx_x() as usize;
        *out.add(b * COLUMNS + c) = *scratch.add(c) + *scratch.add(COLUMNS + c);
    }
}

/// Five stages, ring at 0..5120, barriers at 5120, scratch (64 floats) at 6144; the epilogue
/// is run by warp 1 (the producer's warp), thread `32 + c` writing column `c`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_split_epilogue_warp1(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    const RING: u32 = 0;
    const BARS: u32 = 5120;
    const SCRATCH: usize = 6144;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let scratch = dynamic_shared_base::<f32>().add(SCRATCH / 4);

    if tid == 32 {
        fill_ring(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let (low, high) = consume_halves(&pipe, ring, tiles, tid as usize);
        let h = (tid / 16) as usize;
        let k = (tid % 16) as usize;
        *scratch.add(h * COLUMNS + k) = low;
        *scratch.add(h * COLUMNS + k + 16) = high;
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        let b = block_idx_x() as usize;
        *out.add(b * COLUMNS + c) = *scratch.add(c) + *scratch.add(COLUMNS + c);
    }
}

/// Two stages, barriers at 0, ring at 1024..3072, scratch (128 floats) at 4096; producer thread
/// 40. Lane `l` owns rows `2q, 2q + 1` (`q = l / 8`) of the four columns `j, j + 8, j + 16,
/// j + 24` (`j = l % 8`); the four quarters of each column are added after the barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_split_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    const SCRATCH: usize = 4096;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let scratch = dynamic_shared_base::<f32>().add(SCRATCH / 4);

    if tid == 40 {
        fill_ring(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let q = (tid / 8) as usize;
        let j = (tid % 8) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let g = grid_dim_x();
        let mut acc = [0.0f32; 4];
        let mut state = PipelineState::<STAGES>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let tile = ring.add(state.index() as usize * TILE_FLOATS);
            for m in 0..4 {
                let col = j + 8 * m;
                acc[m] += *tile.add((2 * q) * COLUMNS + col) + *tile.add((2 * q + 1) * COLUMNS + col);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        for m in 0..4 {
            *scratch.add(q * COLUMNS + j + 8 * m) = acc[m];
        }
    }
    barrier();
    if tid < 32 {
        let c = tid as usize;
        let b = block_idx_x() as usize;
        let total = (*scratch.add(c) + *scratch.add(COLUMNS + c))
            + (*scratch.add(2 * COLUMNS + c) + *scratch.add(3 * COLUMNS + c));
        *out.add(b * COLUMNS + c) = total;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// BROKEN: the epilogue of `r37_split_epilogue_warp1` without its block barrier: warp 1's idle
/// threads read the scratch as soon as they get there, long before warp 0 has parked its pieces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_split_bad_no_epilogue_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
    const RING: u32 = 0;
    const BARS: u32 = 5120;
    const SCRATCH: usize = 6144;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let scratch = dynamic_shared_base::<f32>().add(SCRATCH / 4);

    if tid == 32 {
        fill_ring(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let (low, high) = consume_halves(&pipe, ring, tiles, tid as usize);
        let h = (tid / 16) as usize;
        let k = (tid % 16) as usize;
        *scratch.add(h * COLUMNS + k) = low;
        *scratch.add(h * COLUMNS + k + 16) = high;
    }
    if tid >= 32 {
        let c = (tid - 32) as usize;
        let b = block_idx_x() as usize;
        *out.add(b * COLUMNS + c) = *scratch.add(c) + *scratch.add(COLUMNS + c);
    }
}

/// BROKEN: the ring was deepened to seven stages (1024..8192) and the scratch still sits "right
/// after the ring", at byte 8192: the parked pieces are written and read past the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_split_bad_scratch_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 7;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    const SCRATCH: usize = (RING + STAGES * TILE_BYTES) as usize;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    let mut piece = (0.0f32, 0.0f32);
    if tid == 32 {
        fill_ring(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        piece = consume_halves(&pipe, ring, tiles, tid as usize);
    }

    let scratch = dynamic_shared_base::<f32>().add(SCRATCH / 4);
    let k = (tid % 16) as usize;
    if tid >= 16 && tid < 32 {
        *scratch.add(k) = piece.0;
        *scratch.add(16 + k) = piece.1;
    }
    barrier();
    if tid < 16 {
        let b = block_idx_x() as usize;
        *out.add(b * COLUMNS + k) = piece.0 + *scratch.add(k);
        *out.add(b * COLUMNS + k + 16) = piece.1 + *scratch.add(16 + k);
    }
}

/// BROKEN: the half's rows are walked with an inclusive range, `4h ..= 4h + 4`: row 4 is
/// counted by both halves and the upper half reads a ninth row, past its stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_split_bad_rows_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    const SCRATCH: usize = 6144;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    let mut piece = (0.0f32, 0.0f32);
    if tid == 32 {
        fill_ring(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let h = (tid / 16) as usize;
        let k = (tid % 16) as usize;
        let g = grid_dim_x();
        let mut state = PipelineState::<STAGES>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let tile = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 4 * h..=4 * h + 4 {
                piece.0 += *tile.add(r * COLUMNS + k);
                piece.1 += *tile.add(r * COLUMNS + k + 16);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
    }

    let scratch = dynamic_shared_base::<f32>().add(SCRATCH / 4);
    let k = (tid % 16) as usize;
    if tid >= 16 && tid < 32 {
        *scratch.add(k) = piece.0;
        *scratch.add(16 + k) = piece.1;
    }
    barrier();
    if tid < 16 {
        let b = block_idx_x() as usize;
        *out.add(b * COLUMNS + k) = piece.0 + *scratch.add(k);
        *out.add(b * COLUMNS + k + 16) = piece.1 + *scratch.add(16 + k);
    }
}

/// BROKEN: the halves are combined on every tile instead of once, through the scratch and two
/// block barriers inside the consumers' loop; the producer thread (and warp 1) never reaches
/// them, so the consumers wait at the first barrier while the producer waits for releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_split_bad_barrier_per_tile(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    const SCRATCH: usize = 6144;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);

    if tid == 32 {
        fill_ring(&pipe, window + RING, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let scratch = dynamic_shared_base::<f32>().add(SCRATCH / 4);
        let h = (tid / 16) as usize;
        let k = (tid % 16) as usize;
        let g = grid_dim_x();
        let (mut low, mut high) = (0.0f32, 0.0f32);
        let mut state = PipelineState::<STAGES>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let (l, hi) = rows_of_two_columns(ring.add(state.index() as usize * TILE_FLOATS), 4 * h, 4, k);
            pipe.consumer_release(&state);
            state.advance();
            if h == 1 {
                *scratch.add(k) = l;
                *scratch.add(16 + k) = hi;
            }
            barrier();
            if h == 0 {
                low += l + *scratch.add(k);
                high += hi + *scratch.add(16 + k);
            }
            barrier();
            t += g;
        }
        if h == 0 {
            let b = block_idx_x() as usize;
            *out.add(b * COLUMNS + k) = low;
            *out.add(b * COLUMNS + k + 16) = high;
        }
    }
}
