//! Pipelines in less usual shared-memory layouts: two tiles per stage, half-tile stages, two
//! pipelines side by side, a seven-stage ring that fills the window behind its barriers.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF: usize = 128;
const HALF_BYTES: u32 = 512;
const COLS: usize = 32;
const ROWS: usize = 8;

/// Tiles of block `b` among `g` blocks.
#[inline(always)]
fn block_share(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

#[inline(always)]
fn source(input: *const f32, float_offset: usize) -> *const u8 {
    input.wrapping_add(float_offset).cast::<u8>()
}

/// Stages of 2 KiB holding up to two tiles each: the producer announces `n · 1024` bytes for the
/// `n` tiles it copies into a stage, and the consumers step through the same pairs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_lay_two_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    const BARS: u32 = S * STAGE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = block_share(tiles, b, g);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut j = 0u32;
        while j < mine {
            let n = if mine - j >= 2 { 2 } else { 1 };
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, n * TILE_BYTES);
            let mut q = 0u32;
            while q < n {
                let t = b + (j + q) * g;
                bulk_copy_global_to_shared(
                    win + st.index() * STAGE_BYTES + q * TILE_BYTES,
                    source(input, t as usize * TILE),
                    TILE_BYTES,
                    pipe.producer_barrier(&st),
                );
                q += 1;
            }
            st.advance();
            j += n;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut j = 0u32;
        while j < mine {
            let n = if mine - j >= 2 { 2 } else { 1 };
            pipe.consumer_wait(&st);
            let stage = st.index() as usize * 2 * TILE;
            for q in 0..n as usize {
                for r in 0..ROWS {
                    // SAFETY: tile `q` of the waited two-tile stage.
                    acc += unsafe { *ring.add(stage + q * TILE + r * COLS + tid as usize) };
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            j += n;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// Stages of half a tile (four rows): six of them from byte 1024, barriers at byte 0; every tile
/// is two items, its top half then its bottom half.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_lay_half_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 6;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win, 32) } else { Pipeline::<S>::attach(win) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let items = 2 * block_share(tiles, b, g);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut item = 0u32;
        while item < items {
            let t = b + (item >> 1) * g;
            let half = (item & 1) as usize;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(
                win + RING + st.index() * HALF_BYTES,
                source(input, t as usize * TILE + half * HALF),
                HALF_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            item += 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        // SAFETY: byte 1024 of the window.
        let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..items {
            pipe.consumer_wait(&st);
            let stage = st.index() as usize * HALF;
            for r in 0..ROWS / 2 {
                // SAFETY: row `r` of the waited half-tile stage.
                acc += unsafe { *ring.add(stage + r * COLS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// Two pipelines: `top` carries rows 0..4 of each tile, `bottom` rows 4..8, each with its own
/// producer thread (32 and 33), two 512-byte stages and barriers; warp 0 consumes both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_lay_two_pipelines(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    const RING_TOP: u32 = 0;
    const RING_BOTTOM: u32 = 1024;
    const BARS_TOP: u32 = 2048;
    const BARS_BOTTOM: u32 = BARS_TOP + 16 * S;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let top = if tid == 32 { Pipeline::<S>::init(win + BARS_TOP, 32) } else { Pipeline::<S>::attach(win + BARS_TOP) };
    let bottom = if tid == 33 {
        Pipeline::<S>::init(win + BARS_BOTTOM, 32)
    } else {
        Pipeline::<S>::attach(win + BARS_BOTTOM)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            top.producer_acquire(&st);
            top.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(
                win + RING_TOP + st.index() * HALF_BYTES,
                source(input, t as usize * TILE),
                HALF_BYTES,
                top.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        top.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            bottom.producer_acquire(&st);
            bottom.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(
                win + RING_BOTTOM + st.index() * HALF_BYTES,
                source(input, t as usize * TILE + HALF),
                HALF_BYTES,
                bottom.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        bottom.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let c = tid as usize;
        let mut st_top = PipelineState::<S>::new();
        let mut st_bottom = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            top.consumer_wait(&st_top);
            let at = RING_TOP as usize / 4 + st_top.index() as usize * HALF + c;
            for r in 0..4 {
                // SAFETY: the waited stage of the top ring.
                acc += unsafe { *smem.add(at + r * COLS) };
            }
            top.consumer_release(&st_top);
            st_top.advance();

            bottom.consumer_wait(&st_bottom);
            let at = RING_BOTTOM as usize / 4 + st_bottom.index() as usize * HALF + c;
            for r in 0..4 {
                // SAFETY: the waited stage of the bottom ring.
                acc += unsafe { *smem.add(at + r * COLS) };
            }
            bottom.consumer_release(&st_bottom);
            st_bottom.advance();
            t += g;
        }
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = acc };
    }
}

/// Barriers in the first 112 bytes, seven stages from byte 1024 to the window's end; the loader
/// is lane 31 of warp 0 and warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_lay_barriers_front_seven(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 7;
    const RING: u32 = 1024;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 31 { Pipeline::<S>::init(win, 32) } else { Pipeline::<S>::attach(win) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 31 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING + st.index() * TILE_BYTES,
                source(input, t as usize * TILE),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        // SAFETY: byte 1024 of the window.
        let ring = unsafe { dynamic_shared_base::<f32>().add(256) };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let mut r = ROWS;
            while r > 0 {
                r -= 1;
                // SAFETY: row `r` of the waited stage.
                acc += unsafe { *ring.add(st.index() as usize * TILE + r * COLS + c) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = acc };
    }
}

/// Half-tile stages of 512 bytes, barriers right behind the four of them. BROKEN: the copy moves
/// a whole tile (1024 bytes, announced as such) into a 512-byte stage: it overwrites the next
/// stage, and the last stage's copy runs over the ring's end into the barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_lay_copy_overruns_half_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = S * HALF_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let items = 2 * block_share(tiles, b, g);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for item in 0..items {
            let t = b + (item / 2) * g;
            let half = (item % 2) as usize;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * HALF_BYTES,
                source(input, t as usize * TILE + half * HALF),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..items {
            pipe.consumer_wait(&st);
            for r in 0..4 {
                // SAFETY: row `r` of the waited half-tile stage.
                acc += unsafe { *ring.add(st.index() as usize * HALF + r * COLS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// Four 1 KiB stages at byte 0. BROKEN: the barriers are placed "after the last stage" at
/// `(S - 1) · 1024`, which is the start of the last stage: the copy into stage 3 overwrites the
/// pipeline's mbarriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_lay_barriers_inside_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = (S - 1) * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win + BARS, 32) } else { Pipeline::<S>::attach(win + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                source(input, t as usize * TILE),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *ring.add(st.index() as usize * TILE + r * COLS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// Thread 0 publishes the block's tile count in a `u32` header right after the ring, and the
/// barriers follow the header. BROKEN: the header is 4 bytes, so the mbarriers start at byte
/// 4100, not on an 8-byte boundary.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_lay_barriers_after_header(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const HEADER: u32 = S * TILE_BYTES;
    const BARS: u32 = HEADER + 4;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let b = block_idx_x();
    let g = grid_dim_x();
    // SAFETY: byte 4096 of the window, 4-byte aligned.
    let header = unsafe { dynamic_shared_base::<u8>().add(HEADER as usize) }.cast::<u32>();
    let pipe = if tid == 0 {
        // SAFETY: only thread 0 writes the header, before the barrier.
        unsafe { *header = block_share(tiles, b, g) };
        Pipeline::<S>::init(win + BARS, 32)
    } else {
        Pipeline::<S>::attach(win + BARS)
    };
    barrier();
    // SAFETY: written before the barrier, only read after it.
    let mine = unsafe { *header };
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + st.index() * TILE_BYTES,
                source(input, (b + k * g) as usize * TILE),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *ring.add(st.index() as usize * TILE + r * COLS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        // SAFETY: `tid < 32`.
        unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
    }
}

/// One loader thread feeds two pipelines, top and bottom halves of each tile. BROKEN: the
/// bottom half's copy is given `top.producer_barrier(..)` (a copy-paste slip): the top *full*
/// barrier gets twice the bytes it expects and the bottom one none, so consumers hang on it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_lay_crossed_pipelines(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    const RING_TOP: u32 = 0;
    const RING_BOTTOM: u32 = 1024;
    const BARS_TOP: u32 = 2048;
    const BARS_BOTTOM: u32 = 2048 + 16 * S;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let (top, bottom) = if tid == 32 {
        (Pipeline::<S>::init(win + BARS_TOP, 32), Pipeline::<S>::init(win + BARS_BOTTOM, 32))
    } else {
        (Pipeline::<S>::attach(win + BARS_TOP), Pipeline::<S>::attach(win + BARS_BOTTOM))
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st_top = PipelineState::<S>::producer_start();
        let mut st_bottom = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            top.producer_acquire(&st_top);
            top.producer_expect_tx(&st_top, HALF_BYTES);
            bulk_copy_global_to_shared(
                win + RING_TOP + st_top.index() * HALF_BYTES,
                source(input, t as usize * TILE),
                HALF_BYTES,
                top.producer_barrier(&st_top),
            );
            st_top.advance();

            bottom.producer_acquire(&st_bottom);
            bottom.producer_expect_tx(&st_bottom, HALF_BYTES);
            bulk_copy_global_to_shared(
                win + RING_BOTTOM + st_bottom.index() * HALF_BYTES,
                source(input, t as usize * TILE + HALF),
                HALF_BYTES,
                top.producer_barrier(&st_bottom),
            );
            st_bottom.advance();
            t += g;
        }
        top.producer_tail(st_top);
        bottom.producer_tail(st_bottom);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let c = tid as usize;
        let mut st_top = PipelineState::<S>::new();
        let mut st_bottom = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            top.consumer_wait(&st_top);
            for r in 0..4 {
                // SAFETY: the waited top stage.
                acc += unsafe { *smem.add(st_top.index() as usize * HALF + r * COLS + c) };
            }
            top.consumer_release(&st_top);
            st_top.advance();
            bottom.consumer_wait(&st_bottom);
            for r in 0..4 {
                // SAFETY: the waited bottom stage.
                acc += unsafe { *smem.add(RING_BOTTOM as usize / 4 + st_bottom.index() as usize * HALF + r * COLS + c) };
            }
            bottom.consumer_release(&st_bottom);
            st_bottom.advance();
            t += g;
        }
        // SAFETY: `c < 32`.
        unsafe { *out.add(b as usize * COLS + c) = acc };
    }
}

/// Seven stages from byte 1024 behind the barriers; after the pipeline, consumers park their
/// totals in a row "after the ring" and warp 1 writes them out. BROKEN: the ring ends at the
/// window's last byte, so that row lies at bytes 8192..8320, outside the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r14_lay_partials_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 7;
    const RING: usize = 256;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let pipe = if tid == 32 { Pipeline::<S>::init(win, 32) } else { Pipeline::<S>::attach(win) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let smem = dynamic_shared_base::<f32>();
    let parked = smem.wrapping_add(RING + S as usize * TILE);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + 1024 + st.index() * TILE_BYTES,
                source(input, t as usize * TILE),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                // SAFETY: inside the waited stage.
                acc += unsafe { *smem.add(RING + st.index() as usize * TILE + r * COLS + tid as usize) };
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        // SAFETY: meant as the row after the ring (it is past the window).
        unsafe { *parked.add(tid as usize) = acc };
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        // SAFETY: as above.
        unsafe { *out.add(b as usize * COLS + c) = *parked.add(c) };
    }
}
