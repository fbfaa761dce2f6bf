//! Macros and const generics: one generic pipeline body instantiated by a macro with different
//! depths, layouts and thread roles; an `unrolled!` row sum over a const-generic row count; a
//! stage filled in const-generic parts.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// A pipeline of `S` stages at window byte `RING`, barriers at `BARS`, thread `PRODUCER`
/// copying, threads `FIRST..FIRST + 32` summing, `init` told `COUNT` releasing threads.
#[inline(always)]
unsafe fn ring_body<const S: u32, const RING: u32, const BARS: u32, const PRODUCER: u32, const FIRST: u32, const COUNT: u32>(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<S>::init(window + BARS, COUNT) } else { Pipeline::<S>::attach(window + BARS) };
    barrier();
    if tid == PRODUCER {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= FIRST && tid < FIRST + 32 {
        let col = (tid - FIRST) as usize;
        let stages = dynamic_shared_base::<u8>().add(RING as usize) as *const f32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

macro_rules! ring_kernel {
    ($(#[$doc:meta])* $name:ident: stages $s:literal, ring $ring:literal, bars $bars:literal, producer $p:literal, consumers_from $f:literal, count $count:literal) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            block_threads(64);
            dynamic_shared_bytes(8192);
            ring_body::<$s, $ring, $bars, $p, $f, $count>(input, tiles, out)
        }
    };
}

ring_kernel! {
    /// Two stages at the window's start, barriers at byte 2048; thread 32 copies, warp 0 sums.
    r29_mac_depth2: stages 2, ring 0, bars 2048, producer 32, consumers_from 0, count 32
}

ring_kernel! {
    /// Three stages after 1 KiB of barriers; thread 0 copies, warp 1 sums.
    r29_mac_depth3: stages 3, ring 1024, bars 0, producer 0, consumers_from 32, count 32
}

ring_kernel! {
    /// Five stages from byte 2048, barriers at byte 1024; thread 63 copies, warp 0 sums.
    r29_mac_depth5: stages 5, ring 2048, bars 1024, producer 63, consumers_from 0, count 32
}

ring_kernel! {
    /// Six stages from byte 512, barriers at byte 128; thread 0 copies, warp 1 sums.
    r29_mac_depth6_warp1: stages 6, ring 512, bars 128, producer 0, consumers_from 32, count 32
}

/// Sum of column `col` over the first `ROWS` rows, written out by `unrolled!`.
#[inline(always)]
unsafe fn column_rows<const ROWS: usize>(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0f32;
    unrolled!(R < ROWS => {
        s += *stage.add(R * 32 + col);
    });
    s
}

#[inline(always)]
unsafe fn rows_body<const ROWS: usize>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_rows::<ROWS>(ring.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

macro_rules! rows_kernel {
    ($(#[$doc:meta])* $name:ident, $rows:literal) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            block_threads(64);
            dynamic_shared_bytes(8192);
            rows_body::<$rows>(input, tiles, out)
        }
    };
}

rows_kernel! {
    /// Four stages; the column sum is eight rows written out by `unrolled!`.
    r29_mac_unrolled_rows, 8
}

/// Each stage filled by `PARTS` copies of `PART_BYTES`, under one announcement of a tile.
#[inline(always)]
unsafe fn parts_body<const PARTS: usize, const PART_BYTES: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 63 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = ring + st.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE) as *const u8;
            unrolled!(P < PARTS => {
                bulk_copy_global_to_shared(dst + P as u32 * PART_BYTES, src.add(P * PART_BYTES as usize), PART_BYTES, pipe.producer_barrier(&st));
            });
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_rows::<8>(stages.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

macro_rules! parts_kernel {
    ($(#[$doc:meta])* $name:ident, $parts:literal x $bytes:literal) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            block_threads(64);
            dynamic_shared_bytes(8192);
            parts_body::<$parts, $bytes>(input, tiles, out)
        }
    };
}

parts_kernel! {
    /// Each stage filled by two 512-byte copies written out by `unrolled!`.
    r29_mac_two_part_stage, 2 x 512
}

ring_kernel! {
    /// Eight stages from byte 1024: the last stage lies past the 8 KiB window.
    r29_mac_bad_depth8_past_window: stages 8, ring 1024, bars 0, producer 32, consumers_from 0, count 32
}

ring_kernel! {
    /// Barriers at window byte 4, off an mbarrier's 8-byte alignment.
    r29_mac_bad_bars_at_four: stages 4, ring 1024, bars 4, producer 32, consumers_from 0, count 32
}

ring_kernel! {
    /// `init` told 64 releasing threads while one warp of 32 releases.
    r29_mac_bad_count_whole_block: stages 4, ring 1024, bars 0, producer 32, consumers_from 0, count 64
}

parts_kernel! {
    /// Four parts of 128 bytes fill half of each announced tile.
    r29_mac_bad_parts_short, 4 x 128
}

rows_kernel! {
    /// The `unrolled!` column sum is instantiated with seven rows.
    r29_mac_bad_unrolled_seven_rows, 7
}

ring_kernel! {
    /// The ring and the barriers both start at window byte 0.
    r29_mac_bad_ring_on_barriers: stages 4, ring 0, bars 0, producer 32, consumers_from 0, count 32
}
