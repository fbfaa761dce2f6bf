//! Style `consttime`: written by a cryptography team under constant-time discipline. Data
//! never chooses a branch or an address: selections go through all-ones/all-zeros masks
//! (`ct_mask`, `ct_select`), indices are masked into range rather than checked, loops run a
//! public, fixed number of trips with out-of-range work masked off, and buffers that held data
//! are zeroized (volatile stores) before the block leaves. Branches on public values (thread
//! index, tile count) are allowed, as in any constant-time code.

use core::ptr::write_volatile;

use crate::device::geometry::{block_idx_x, grid_dim_x, thread_idx_x};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

const THREADS: u32 = 64;
const SMEM: u32 = 8192;
const TILE_WORDS: u32 = 256;
const TILE_SHIFT: u32 = 10; // log2(bytes per tile)
const TILE_BYTES: u32 = 1 << TILE_SHIFT;
const LANES: u32 = 32;
const ROWS: u32 = 8;
const RING_BASE: u32 = 1024;

/// All ones when `bit` is 1, all zeros when it is 0.
#[inline(always)]
fn ct_mask(bit: u32) -> u32 {
    0u32.wrapping_sub(bit & 1)
}

/// 1 when `a < b`, else 0, without a comparison the compiler could turn into a branch.
#[inline(always)]
fn ct_lt(a: u32, b: u32) -> u32 {
    ((a as u64).wrapping_sub(b as u64) >> 63) as u32
}

/// `mask ? a : b` for an all-ones/all-zeros `mask`.
#[inline(always)]
fn ct_select(mask: u32, a: u32, b: u32) -> u32 {
    (a & mask) | (b & !mask)
}

/// `x` where `mask` is all ones, `+0.0` where it is zero.
#[inline(always)]
fn ct_keep(mask: u32, x: f32) -> f32 {
    f32::from_bits(x.to_bits() & mask)
}

/// Sum of the 8 words `column, column + 32, …` of a tile, fixed trip count.
#[inline(always)]
unsafe fn column_words(tile: *const f32, column: u32) -> f32 {
    let mut acc = 0.0f32;
    let mut r = 0u32;
    while r < ROWS {
        acc += *tile.add((r * LANES + column) as usize);
        r += 1;
    }
    acc
}

/// Four stages, producer thread 32, consumers 0..32. The column is `tid & 31` and the stage's
/// word offset `index << 8`: shifts and masks, as everywhere in this codebase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_consttime_masked_columns(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);

    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING_BASE >> 2) as usize);
    if tid == 32 {
        Pipeline::<STAGES>::init(win, LANES);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING_BASE + (st.index() << TILE_SHIFT),
                input.add((t * TILE_WORDS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let column = tid & (LANES - 1);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_words(ring.add((st.index() << 8) as usize), column);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(((b << 5) | column) as usize) = acc;
    }
}

/// Plain shared memory, fixed trip count: every block runs `ceil(tiles / grid)` trips (public),
/// and a trip past the block's last tile loads tile 0 (an in-range address) and masks its
/// contribution to zero. Each thread sums half a column; the halves meet in `partials`.
/// The staging buffer is zeroized at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_consttime_fixed_trips(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);

    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let buf = dynamic_shared_base::<f32>();
    let partials = buf.add(TILE_WORDS as usize);
    let column = tid & (LANES - 1);
    let half = tid >> 5;
    let trips = tiles.div_ceil(g);

    let mut acc = 0.0f32;
    let mut k = 0u32;
    while k < trips {
        let t = b + k * g;
        let valid = ct_mask(ct_lt(t, tiles));
        let t_safe = ct_select(valid, t, 0);
        let src = input.add((t_safe * TILE_WORDS) as usize);
        let mut w = tid;
        while w < TILE_WORDS {
            *buf.add(w as usize) = *src.add(w as usize);
            w += THREADS;
        }
        barrier();
        let mut part = 0.0f32;
        let mut r = half * (ROWS / 2);
        while r < (half + 1) * (ROWS / 2) {
            part += *buf.add((r * LANES + column) as usize);
            r += 1;
        }
        acc += ct_keep(valid, part);
        barrier();
        k += 1;
    }
    *partials.add(tid as usize) = acc;
    barrier();
    if tid < LANES {
        *out.add(((b << 5) | tid) as usize) = *partials.add(tid as usize) + *partials.add((tid + LANES) as usize);
    }
    barrier();
    // Zeroize everything this block staged.
    let mut w = tid;
    while w < TILE_WORDS + THREADS {
        write_volatile(buf.add(w as usize), 0.0);
        w += THREADS;
    }
}

/// Two stages; when both roles are done (a block barrier after the producer's drain and the
/// consumers' last release), every thread zeroizes its share of the ring with volatile stores.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_consttime_zeroize_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);

    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING_BASE >> 2) as usize);
    if tid == 0 {
        Pipeline::<STAGES>::init(win, LANES);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING_BASE + (st.index() << TILE_SHIFT),
                input.add((t * TILE_WORDS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let column = tid & (LANES - 1);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_words(ring.add((st.index() << 8) as usize), column);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(((b << 5) | column) as usize) = acc;
    }
    barrier();
    let mut w = tid;
    while w < STAGES * TILE_WORDS {
        write_volatile(ring.add(w as usize), 0.0);
        w += THREADS;
    }
}

/// Four stages; the stage index is masked into range (`index & (STAGES - 1)`) wherever it
/// becomes an address, so that no value of it can reach outside the ring (a Spectre-style
/// index mask, free for a power-of-two ring).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_consttime_index_masking(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const STAGE_MASK: u32 = STAGES - 1;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);

    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING_BASE >> 2) as usize);
    if tid == 32 {
        Pipeline::<STAGES>::init(win, LANES);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let slot = st.index() & STAGE_MASK;
            bulk_copy_global_to_shared(
                win + RING_BASE + (slot << TILE_SHIFT),
                input.add((t * TILE_WORDS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let column = tid & (LANES - 1);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let slot = st.index() & STAGE_MASK;
            acc += column_words(ring.add((slot << 8) as usize), column);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(((b << 5) | column) as usize) = acc;
    }
}

/// BROKEN: the producer picks its buffer branch-free as "the other one" (`index ^ 1`), a
/// ping-pong habit from the plain double-buffered version: each tile lands in the stage the
/// consumers are not waiting on, so they read the previous tile (or an unwritten stage) and
/// the copy overwrites a stage that may still be read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_consttime_bad_flip_stage(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);

    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING_BASE >> 2) as usize);
    if tid == 0 {
        Pipeline::<STAGES>::init(win, LANES);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING_BASE + ((st.index() ^ 1) << TILE_SHIFT),
                input.add((t * TILE_WORDS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let column = tid & (LANES - 1);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_words(ring.add((st.index() << 8) as usize), column);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(((b << 5) | column) as usize) = acc;
    }
}

/// BROKEN: each consumer clears its column of the stage before using it ("never read a
/// buffer you did not initialise") — but before `consumer_wait`: the producer runs ahead, so
/// the tile has usually landed already and the consumer zeroes its own data.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_consttime_bad_clear_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);

    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING_BASE >> 2) as usize);
    if tid == 32 {
        Pipeline::<STAGES>::init(win, LANES);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING_BASE + (st.index() << TILE_SHIFT),
                input.add((t * TILE_WORDS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let column = tid & (LANES - 1);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let tile = ring.add((st.index() << 8) as usize);
            let mut r = 0u32;
            while r < ROWS {
                write_volatile(tile.add((r * LANES + column) as usize), 0.0);
                r += 1;
            }
            pipe.consumer_wait(&st);
            acc += column_words(tile, column);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(((b << 5) | column) as usize) = acc;
    }
}

/// BROKEN: the consumers run a fixed, public trip count — the largest number of tiles a block
/// may ever own, `MAX_TRIPS = 16` — masking trips past the block's tiles, so that their timing
/// does not depend on `tiles`. The producer copies only the real tiles: the consumers wait on
/// trip 9 for a stage nobody fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_consttime_bad_padded_trips(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const MAX_TRIPS: u32 = 16;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);

    let tid = thread_idx_x();
    let win = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING_BASE >> 2) as usize);
    if tid == 32 {
        Pipeline::<STAGES>::init(win, LANES);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(win);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                win + RING_BASE + (st.index() << TILE_SHIFT),
                input.add((t * TILE_WORDS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let column = tid & (LANES - 1);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut k = 0u32;
        while k < MAX_TRIPS {
            let valid = ct_mask(ct_lt(b + k * g, tiles));
            pipe.consumer_wait(&st);
            acc += ct_keep(valid, column_words(ring.add((st.index() << 8) as usize), column));
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        *out.add(((b << 5) | column) as usize) = acc;
    }
}

/// BROKEN: "wipe as you go": after its half-column sum each thread zeroizes the four words it
/// staged, with no barrier between the block's reads of the tile and the wipe, so slower
/// threads read words another thread has already zeroed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_consttime_bad_wipe_unordered(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);

    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let buf = dynamic_shared_base::<f32>();
    let partials = buf.add(TILE_WORDS as usize);
    let column = tid & (LANES - 1);
    let half = tid >> 5;

    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add((t * TILE_WORDS) as usize);
        let mut w = tid;
        while w < TILE_WORDS {
            *buf.add(w as usize) = *src.add(w as usize);
            w += THREADS;
        }
        barrier();
        let mut r = half * (ROWS / 2);
        while r < (half + 1) * (ROWS / 2) {
            acc += *buf.add((r * LANES + column) as usize);
            r += 1;
        }
        let mut w = tid;
        while w < TILE_WORDS {
            write_volatile(buf.add(w as usize), 0.0);
            w += THREADS;
        }
        barrier();
        t += g;
    }
    *partials.add(tid as usize) = acc;
    barrier();
    if tid < LANES {
        *out.add(((b << 5) | tid) as usize) = *partials.add(tid as usize) + *partials.add((tid + LANES) as usize);
    }
}
