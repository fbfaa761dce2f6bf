//! Narrow and signed integers: tile counters in `u8`, shared offsets in `u16`, row walks in
//! `isize`/`i32`, lanes as `tid as i32 - 32`, and `wrapping_*` arithmetic wherever a value is
//! meant to live in its small type. The widths are chosen to fit the launch (64 tiles, 256
//! floats per tile, 64 threads), and converted to `u32`/`usize` only at the pointer.
//!
//! Launch: 64 threads, 8 blocks, 8192 bytes of dynamic shared memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const TILE_FLOATS: u16 = 256;
const TILE_BYTES: u32 = 1024;
const RING_BYTES: u32 = STAGES * TILE_BYTES;

/// A tile's shape in the narrowest types that hold it.
#[derive(Clone, Copy)]
struct TileShape {
    rows: u8,
    cols: u8,
}

const SHAPE: TileShape = TileShape { rows: 8, cols: 32 };

impl TileShape {
    /// Floats of the tile, kept in `u8` arithmetic.
    #[inline(always)]
    fn floats_u8(&self) -> u8 {
        self.rows.wrapping_mul(self.cols)
    }

    #[inline(always)]
    fn bytes(&self) -> u32 {
        self.floats_u8() as u32 * 4
    }
}

/// Tiles of this block, counted in a `u8` (at most 255: `tiles` is 64 in the launch).
#[inline(always)]
fn tiles_of_block(tiles: u32) -> u8 {
    let mut mine: u8 = 0;
    let mut t = block_idx_x();
    let g = grid_dim_x();
    while t < tiles {
        mine = mine.wrapping_add(1);
        t += g;
    }
    mine
}

/// Column `c` of the tile at `tile`, rows walked from 7 down to 0 with an `i32` row.
#[inline(always)]
unsafe fn column_down(tile: *const f32, c: i32) -> f32 {
    let mut sum = 0.0;
    let mut row: i32 = 7;
    while row >= 0 {
        sum += *tile.offset((row * 32 + c) as isize);
        row -= 1;
    }
    sum
}

/// Pipeline with `u8` tile counters: both roles count `k: u8` up to the block's `u8` tile
/// count and compute the tile as `b + k * g` in `u32`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_narrow_u8_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = tiles_of_block(tiles);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut k: u8 = 0;
        while k < mine {
            let t = b + k as u32 * g;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            k = k.wrapping_add(1);
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as i32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut k: u8 = 0;
        while k < mine {
            pipe.consumer_wait(&state);
            acc += column_down(ring.add(state.index() as usize * TILE_FLOATS as usize), c);
            pipe.consumer_release(&state);
            state.advance();
            k = k.wrapping_add(1);
        }
        *out.add((b * 32) as usize + c as usize) = acc;
    }
}

/// Pipeline with signed count-downs: the block's tile count is computed in `i32`
/// (`(tiles - b + g - 1) / g`), both roles run `while left > 0 { …; left -= 1 }`, the
/// consumers are `lane = tid as i32 - 32`, `lane >= 0`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_narrow_i32_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x() as i32;
    let g = (grid_dim_x() as i32).max(1);
    let span = tiles as i32 - b;
    let mine: i32 = if span > 0 { (span + g - 1) / g } else { 0 };
    let lane = tid as i32 - 32;
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t: i32 = b;
        let mut left = mine;
        while left > 0 {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.offset(t as isize * TILE_FLOATS as isize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if lane >= 0 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&state);
            acc += column_down(ring.add(state.index() as usize * TILE_FLOATS as usize), lane);
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.offset((b * 32 + lane) as isize) = acc;
    }
}

/// Plain: staging offsets in `u16` (`tid + 64k` with wrapping arithmetic), row offsets read
/// as `(r << 5) | lane` in `u16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_narrow_u16_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tile = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as u16;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS as usize);
        for k in 0u16..4 {
            let off = tid.wrapping_add(k.wrapping_mul(THREADS as u16));
            *tile.add(off as usize) = *src.add(off as usize);
        }
        barrier();
        if tid < 32 {
            for r in 0u16..8 {
                let off = (r << 5) | tid;
                acc += *tile.add(off as usize);
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add((b * 32) as usize + tid as usize) = acc;
    }
}

/// Plain: staging with an `i32` element index (`e = tid; e < 256; e += 64`) through
/// `offset`, and warp 0 walking its column upwards from row 7 with `isize` steps of -32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_narrow_isize_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tile = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as i32;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS as usize);
        let mut e: i32 = tid;
        while e < TILE_FLOATS as i32 {
            *tile.offset(e as isize) = *src.offset(e as isize);
            e += THREADS as i32;
        }
        barrier();
        if tid < 32 {
            let mut row: isize = 7;
            while row >= 0 {
                acc += *tile.offset(row * 32 + tid as isize);
                row -= 1;
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add((b * 32) as usize + tid as usize) = acc;
    }
}

/// BROKEN: the `expect_tx` announces `SHAPE.bytes()`, whose float count wraps in `u8`
/// arithmetic (8 × 32 = 256 → 0): each full barrier's phase completes on the arrival alone,
/// before the 1024 copied bytes land, which then push the next phase's transaction count below
/// zero so it never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_narrow_bad_u8_tile_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = tiles_of_block(tiles);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut k: u8 = 0;
        while k < mine {
            let t = b + k as u32 * g;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, SHAPE.bytes());
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            k = k.wrapping_add(1);
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as i32;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut k: u8 = 0;
        while k < mine {
            pipe.consumer_wait(&state);
            acc += column_down(ring.add(state.index() as usize * TILE_FLOATS as usize), c);
            pipe.consumer_release(&state);
            state.advance();
            k = k.wrapping_add(1);
        }
        *out.add((b * 32) as usize + c as usize) = acc;
    }
}

/// BROKEN: consumers chosen by `lane > 0` instead of `lane >= 0` with `lane = tid as i32 - 32`:
/// 31 threads release each stage against an `init` of 32, so no empty barrier ever completes and
/// the producer stalls at its fifth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_narrow_bad_signed_lane_gt(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x() as i32;
    let g = (grid_dim_x() as i32).max(1);
    let span = tiles as i32 - b;
    let mine: i32 = if span > 0 { (span + g - 1) / g } else { 0 };
    let lane = tid as i32 - 32;
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t: i32 = b;
        let mut left = mine;
        while left > 0 {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.offset(t as isize * TILE_FLOATS as isize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
            left -= 1;
        }
        pipe.producer_tail(state);
    } else if lane > 0 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&state);
            acc += column_down(ring.add(state.index() as usize * TILE_FLOATS as usize), lane);
            pipe.consumer_release(&state);
            state.advance();
            left -= 1;
        }
        *out.offset((b * 32 + lane) as isize) = acc;
    }
}

/// BROKEN: the staging loop keeps its element index in a `u8` and stops when it wraps back to
/// 0 (`e = e.wrapping_add(64); if e == 0 { break }`). Only thread 0's sequence meets 0; every
/// other thread's index wraps back to its start and the loop never ends.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_narrow_bad_u8_wrap_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tile = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS as usize);
        let mut e: u8 = tid as u8;
        loop {
            *tile.add(e as usize) = *src.add(e as usize);
            e = e.wrapping_add(THREADS as u8);
            if e == 0 {
                break;
            }
        }
        barrier();
        if tid < 32 {
            for r in 0u16..8 {
                acc += *tile.add(((r << 5) | tid as u16) as usize);
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// BROKEN: staging offsets computed in bytes (`quad * 16 + lane_in_quad * 4`, a `u16`) and
/// used as a float index on the `*mut f32` tile, which sits in the window's top KiB (byte
/// 7168): element 255 is stored at float 1020 of the tile, byte 11248, past the 8192-byte window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_narrow_bad_u16_byte_index(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tile = dynamic_shared_base::<f32>().add(((WINDOW_BYTES - TILE_BYTES) / 4) as usize);
    let tid = thread_idx_x() as u16;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS as usize);
        for k in 0u16..4 {
            let e = tid.wrapping_add(k.wrapping_mul(THREADS as u16));
            let quad = e / 4;
            let byte: u16 = quad.wrapping_mul(16) + (e % 4) * 4;
            *tile.add(byte as usize) = *src.add(e as usize);
        }
        barrier();
        if tid < 32 {
            for r in 0u16..8 {
                acc += *tile.add(((r << 5) | tid) as usize);
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add((b * 32) as usize + tid as usize) = acc;
    }
}
