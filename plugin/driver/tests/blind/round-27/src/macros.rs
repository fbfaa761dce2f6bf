//! `macro_rules!` templates (whole kernels, per-tile bodies) and const-generic bodies.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

macro_rules! pipeline_kernel {
    (
        $(#[$meta:meta])*
        $name:ident,
        stages: $S:expr,
        bars: $bars:expr,
        ring: $ring:expr,
        producer: $ptid:expr,
        consumers: |$ct:ident| $cons:expr,
        column: |$kt:ident| $col:expr,
        expect: $exp:expr,
        copy: $copy:expr,
        releasers: $rc:expr $(,)?
    ) => {
        $(#[$meta])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            const S: u32 = $S;
            block_threads(64);
            dynamic_shared_bytes(8192);
            let window = dynamic_shared_window_address();
            let tid = thread_idx_x();
            if tid == 0 {
                Pipeline::<S>::init(window + $bars, $rc);
            }
            barrier();
            let pipe = Pipeline::<S>::attach(window + $bars);
            let (b, g) = (block_idx_x(), grid_dim_x());
            let is_consumer = {
                let $ct = tid;
                $cons
            };
            if tid == $ptid {
                let mut st = PipelineState::<S>::producer_start();
                let mut t = b;
                while t < tiles {
                    pipe.producer_acquire(&st);
                    pipe.producer_expect_tx(&st, $exp);
                    bulk_copy_global_to_shared(
                        window + $ring + st.index() * TILE_BYTES,
                        input.add(t as usize * TILE) as *const u8,
                        $copy,
                        pipe.producer_barrier(&st),
                    );
                    st.advance();
                    t += g;
                }
                pipe.producer_tail(st);
            } else if is_consumer {
                let col: usize = {
                    let $kt = tid;
                    $col
                };
                let ring = dynamic_shared_base::<u8>().add($ring as usize) as *const f32;
                let mut st = PipelineState::<S>::new();
                let mut acc = 0.0f32;
                let mut t = b;
                while t < tiles {
                    pipe.consumer_wait(&st);
                    let stage = ring.add(st.index() as usize * TILE);
                    for r in 0..8 {
                        acc += *stage.add(r * 32 + col);
                    }
                    pipe.consumer_release(&st);
                    st.advance();
                    t += g;
                }
                *out.add(b as usize * 32 + col) = acc;
            }
        }
    };
}

pipeline_kernel! {
    /// Macro template: three stages after the barriers, warp 0 consumes, thread 32 produces.
    r27_mac_three_stages,
    stages: 3, bars: 0, ring: 1024, producer: 32,
    consumers: |t| t < 32, column: |t| t as usize,
    expect: TILE_BYTES, copy: TILE_BYTES, releasers: 32,
}

pipeline_kernel! {
    /// Macro template: five stages, barriers near the window's end at byte 8000.
    r27_mac_five_stages_top_bars,
    stages: 5, bars: 8000, ring: 2048, producer: 32,
    consumers: |t| t < 32, column: |t| t as usize,
    expect: TILE_BYTES, copy: TILE_BYTES, releasers: 32,
}

pipeline_kernel! {
    /// Macro template: thread 0 produces, warp 1 consumes.
    r27_mac_warp1_consumes,
    stages: 4, bars: 5120, ring: 1024, producer: 0,
    consumers: |t| t >= 32, column: |t| (t - 32) as usize,
    expect: TILE_BYTES, copy: TILE_BYTES, releasers: 32,
}

pipeline_kernel! {
    /// Macro template: odd lanes of both warps consume (column `tid / 2`), thread 0 produces.
    r27_mac_odd_threads,
    stages: 2, bars: 16, ring: 4096, producer: 0,
    consumers: |t| t % 2 == 1, column: |t| (t / 2) as usize,
    expect: TILE_BYTES, copy: 256 * 4, releasers: 64 / 2,
}

// ---------------------------------------------------------------- per-tile macros

macro_rules! produce_tile {
    ($pipe:expr, $st:expr, $dst:expr, $src:expr) => {{
        $pipe.producer_acquire(&$st);
        $pipe.producer_expect_tx(&$st, TILE_BYTES);
        bulk_copy_global_to_shared($dst + $st.index() * TILE_BYTES, $src as *const u8, TILE_BYTES, $pipe.producer_barrier(&$st));
        $st.advance();
    }};
}

macro_rules! consume_tile {
    ($pipe:expr, $st:expr, $ring:expr, $col:expr) => {{
        $pipe.consumer_wait(&$st);
        let stage = $ring.add($st.index() as usize * TILE);
        let mut v = 0.0f32;
        for r in 0..8 {
            v += *stage.add(r * 32 + $col);
        }
        $pipe.consumer_release(&$st);
        $st.advance();
        v
    }};
}

/// Hand-written roles whose per-tile bodies are macros.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_mac_tile_macros(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 1024, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 1024);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_tile!(pipe, st, window + 2048, input.add(t as usize * TILE));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += consume_tile!(pipe, st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------- const-generic body

#[inline(always)]
unsafe fn body<const S: u32, const BARS: u32, const RING: u32, const PRODUCER: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARS);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let consumer_first = if PRODUCER < 32 { 32 } else { 0 };
    if tid == PRODUCER {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_tile!(pipe, st, window + RING, input.add(t as usize * TILE));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= consumer_first && tid < consumer_first + 32 {
        let ring = dynamic_shared_base::<u8>().add(RING as usize) as *const f32;
        let col = (tid - consumer_first) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += consume_tile!(pipe, st, ring, col);
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// Const-generic body: four stages, barriers first, producer thread 40.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_mac_generic_producer_40(input: *const f32, tiles: u32, out: *mut f32) {
    body::<4, 0, 1024, 40>(input, tiles, out);
}

/// Const-generic body: six stages, barriers last, producer thread 7 (warp 1 consumes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_mac_generic_producer_7(input: *const f32, tiles: u32, out: *mut f32) {
    body::<6, 6144, 0, 7>(input, tiles, out);
}

// ---------------------------------------------------------------- broken

pipeline_kernel! {
    /// Broken: seven stages from byte 2048 end at 9216, past the 8 KiB window.
    r27_mac_bad_ring_past_window,
    stages: 7, bars: 0, ring: 2048, producer: 32,
    consumers: |t| t < 32, column: |t| t as usize,
    expect: TILE_BYTES, copy: TILE_BYTES, releasers: 32,
}

pipeline_kernel! {
    /// Broken: the barriers start at byte 1028, four bytes past an 8-byte boundary.
    r27_mac_bad_bars_misaligned,
    stages: 4, bars: 1028, ring: 2048, producer: 32,
    consumers: |t| t < 32, column: |t| t as usize,
    expect: TILE_BYTES, copy: TILE_BYTES, releasers: 32,
}

pipeline_kernel! {
    /// Broken: the barriers at byte 2048 lie inside the ring (1024..5120): stage 1's copy lands
    /// on them.
    r27_mac_bad_bars_inside_ring,
    stages: 4, bars: 2048, ring: 1024, producer: 32,
    consumers: |t| t < 32, column: |t| t as usize,
    expect: TILE_BYTES, copy: TILE_BYTES, releasers: 32,
}

pipeline_kernel! {
    /// Broken: the copy moves half a tile while the stage expects a whole one; the full barrier
    /// never completes.
    r27_mac_bad_copy_half_tile,
    stages: 4, bars: 0, ring: 1024, producer: 32,
    consumers: |t| t < 32, column: |t| t as usize,
    expect: TILE_BYTES, copy: TILE_BYTES / 2, releasers: 32,
}

pipeline_kernel! {
    /// Broken: the consumers are "every thread after the producer", threads 33..64: 31 releasing
    /// threads on barriers that count 32 (and column 0 is never written).
    r27_mac_bad_consumers_after_producer,
    stages: 4, bars: 64, ring: 2048, producer: 32,
    consumers: |t| t > 32, column: |t| (t - 32) as usize,
    expect: TILE_BYTES, copy: TILE_BYTES, releasers: 32,
}

macro_rules! consume_tile_late_wait {
    ($pipe:expr, $st:expr, $ring:expr, $col:expr) => {{
        let stage = $ring.add($st.index() as usize * TILE);
        let mut v = 0.0f32;
        for r in 0..8 {
            v += *stage.add(r * 32 + $col);
        }
        $pipe.consumer_wait(&$st);
        $pipe.consumer_release(&$st);
        $st.advance();
        v
    }};
}

/// Broken: the per-tile macro sums the column before its `consumer_wait`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_mac_bad_macro_reads_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 1024, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 1024);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_tile!(pipe, st, window + 2192, input.add(t as usize * TILE));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(548);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += consume_tile_late_wait!(pipe, st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
