//! Style `mac`: the protocol written as `macro_rules!`. Small step macros (`fill!`, `take!`,
//! `column!`, `columns!`, `each_tile!`) expand into the kernels' bodies, and one generator macro
//! (`ring_kernel!`) stamps out whole kernels from a few knobs (stage count, ring offset, producer
//! thread, first consumer thread). The broken kernels are wrong knobs and wrong macro arguments.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;

/// Declares the launch contract and binds the geometry every kernel of the module uses.
macro_rules! prelude {
    ($tid:ident, $window:ident, $base:ident, $b:ident, $g:ident) => {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let $tid = thread_idx_x();
        let $window = dynamic_shared_window_address();
        let $base = dynamic_shared_base::<f32>();
        let $b = block_idx_x();
        let $g = grid_dim_x();
    };
}

/// One producer step: acquire, announce one tile, copy tile `$t` into the state's stage of the
/// ring at window byte `$ring`, advance.
macro_rules! fill {
    ($pipe:expr, $st:ident, $window:expr, $ring:expr, $input:expr, $t:expr) => {{
        $pipe.producer_acquire(&$st);
        $pipe.producer_expect_tx(&$st, TILE_BYTES);
        bulk_copy_global_to_shared(
            $window + $ring + $st.index() * TILE_BYTES,
            $input.add($t as usize * TILE_FLOATS as usize) as *const u8,
            TILE_BYTES,
            $pipe.producer_barrier(&$st),
        );
        $st.advance();
    }};
}

/// The same step for a stage of `$floats` floats: the announcement is in bytes.
macro_rules! fill_floats {
    ($pipe:expr, $st:ident, $window:expr, $ring:expr, $input:expr, $t:expr, $floats:expr) => {{
        $pipe.producer_acquire(&$st);
        $pipe.producer_expect_tx(&$st, $floats * 4);
        bulk_copy_global_to_shared(
            $window + $ring + $st.index() * TILE_BYTES,
            $input.add($t as usize * TILE_FLOATS as usize) as *const u8,
            TILE_BYTES,
            $pipe.producer_barrier(&$st),
        );
        $st.advance();
    }};
}

/// Sum of the listed rows of column `$col` of the stage at float pointer `$stage`.
macro_rules! column {
    ($stage:expr, $col:expr; $($row:literal)*) => {{
        let stage: *const f32 = $stage;
        0.0f32 $(+ *stage.add($row * 32 + $col as usize))*
    }};
}

/// Adds column `$first + j` of the stage into `$acc[j]` for every listed `j`.
macro_rules! columns {
    ($stage:expr, $first:expr, $acc:ident; $($j:literal)*) => {
        $( $acc[$j] += column!($stage, $first as usize + $j; 0 1 2 3 4 5 6 7); )*
    };
}

/// One consumer step: wait, sum column `$col` of the stage, release, advance; the sum is the value.
macro_rules! take {
    ($pipe:expr, $st:ident, $base:expr, $ring:expr, $col:expr) => {{
        $pipe.consumer_wait(&$st);
        let stage = $base.add((($ring + $st.index() * TILE_BYTES) / 4) as usize);
        let v = column!(stage, $col; 0 1 2 3 4 5 6 7);
        $pipe.consumer_release(&$st);
        $st.advance();
        v
    }};
}

/// `while` loop over this block's tiles, written once for both roles.
macro_rules! each_tile {
    ($t:ident in $first:expr, step $step:expr, below $end:expr => $body:block) => {{
        let mut $t = $first;
        while $t < $end {
            $body
            $t += $step;
        }
    }};
}

/// A whole kernel: `stages` stages from window byte `ring`, barriers at byte 0 (thread 0 sets
/// them up for 32 consumers), one producer thread, 32 consumers from thread `consumers`.
macro_rules! ring_kernel {
    ($name:ident, stages: $stages:literal, ring: $ring:expr, producer: $producer:expr, consumers: $lo:expr) => {
        #[unsafe(no_mangle)]
        #[allow(unused_comparisons)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            prelude!(tid, window, base, b, g);
            let pipe = if tid == 0 {
                Pipeline::<$stages>::init(window, 32)
            } else {
                Pipeline::<$stages>::attach(window)
            };
            barrier();
            if tid == $producer {
                let mut st = PipelineState::<$stages>::producer_start();
                let mut t = b;
                while t < tiles {
                    fill!(pipe, st, window, $ring, input, t);
                    t += g;
                }
                pipe.producer_tail(st);
            } else if tid >= $lo && tid < $lo + 32 {
                let col = tid - $lo;
                let mut st = PipelineState::<$stages>::new();
                let mut acc = 0.0f32;
                let mut t = b;
                while t < tiles {
                    acc += take!(pipe, st, base, $ring, col);
                    t += g;
                }
                *out.add((b * 32 + col) as usize) = acc;
            }
        }
    };
}

// ---- correct ----

ring_kernel!(r31_mac_ring_four, stages: 4, ring: 128, producer: 32, consumers: 0);

ring_kernel!(r31_mac_ring_six_high, stages: 6, ring: 128, producer: 0, consumers: 32);

/// Three stages from byte 64, both roles in `for … step_by` loops around the step macros.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_mac_steps(input: *const f32, tiles: u32, out: *mut f32) {
    prelude!(tid, window, base, b, g);
    const RING: u32 = 64;
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        for t in (b..tiles).step_by(g as usize) {
            fill!(pipe, st, window, RING, input, t);
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        for _ in (b..tiles).step_by(g as usize) {
            acc += take!(pipe, st, base, RING, tid);
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Eight consumers (threads 8 to 15), four columns each, written out by `columns!`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_mac_quads(input: *const f32, tiles: u32, out: *mut f32) {
    prelude!(tid, window, base, b, g);
    const RING: u32 = 128;
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 8) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 40 {
        let mut st = PipelineState::<4>::producer_start();
        each_tile!(t in b, step g, below tiles => {
            fill!(pipe, st, window, RING, input, t);
        });
        pipe.producer_tail(st);
    } else if tid >= 8 && tid < 16 {
        let first = (tid - 8) * 4;
        let mut acc = [0.0f32; 4];
        let mut st = PipelineState::<4>::new();
        each_tile!(t in b, step g, below tiles => {
            pipe.consumer_wait(&st);
            let stage: *const f32 = base.add(((RING + st.index() * TILE_BYTES) / 4) as usize);
            columns!(stage, first, acc; 0 1 2 3);
            pipe.consumer_release(&st);
            st.advance();
        });
        columns_out(out, b * 32 + first, &acc);
    }
}

#[inline(always)]
unsafe fn columns_out(out: *mut f32, at: u32, acc: &[f32; 4]) {
    for j in 0..4 {
        *out.add(at as usize + j) = acc[j];
    }
}

/// Five stages; both roles step through `each_tile!`, the consumers keep the rows in a local.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_mac_tile_loop(input: *const f32, tiles: u32, out: *mut f32) {
    prelude!(tid, window, base, b, g);
    const RING: u32 = 128;
    let pipe = if tid == 0 { Pipeline::<5>::init(window, 32) } else { Pipeline::<5>::attach(window) };
    barrier();
    if tid == 63 {
        let mut st = PipelineState::<5>::producer_start();
        each_tile!(t in b, step g, below tiles => {
            fill!(pipe, st, window, RING, input, t);
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        each_tile!(t in b, step g, below tiles => {
            pipe.consumer_wait(&st);
            let stage = base.add(((RING + st.index() * TILE_BYTES) / 4) as usize);
            let mut rows = [0.0f32; 8];
            for r in 0..8 {
                rows[r] = *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            for v in rows {
                acc += v;
            }
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---- broken ----

// Eight stages of 1 KiB after 128 bytes of barriers end at byte 8320: past the 8 KiB window.
ring_kernel!(r31_mac_bad_ring_eight, stages: 8, ring: 128, producer: 32, consumers: 0);

// The ring starts after a barrier area sized for two stages, but the pipeline has four: stage 0
// lands on the *empty* barriers (bytes 32 to 63).
ring_kernel!(r31_mac_bad_ring_on_barriers, stages: 4, ring: pipeline_barrier_bytes(2), producer: 32, consumers: 0);

/// Rows listed 0 to 8: the ninth row is the first row of the next stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_mac_bad_rows_nine(input: *const f32, tiles: u32, out: *mut f32) {
    prelude!(tid, window, base, b, g);
    const RING: u32 = 128;
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        each_tile!(t in b, step g, below tiles => {
            fill!(pipe, st, window, RING, input, t);
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        each_tile!(t in b, step g, below tiles => {
            pipe.consumer_wait(&st);
            let stage = base.add(((RING + st.index() * TILE_BYTES) / 4) as usize);
            acc += column!(stage, tid; 0 1 2 3 4 5 6 7 8);
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// `fill_floats!` takes the stage's size in floats; it is handed the tile's bytes, so it
/// announces 4096 bytes for a 1024-byte copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_mac_bad_floats_as_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    prelude!(tid, window, base, b, g);
    const RING: u32 = 128;
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        each_tile!(t in b, step g, below tiles => {
            fill_floats!(pipe, st, window, RING, input, t, TILE_BYTES);
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        each_tile!(t in b, step g, below tiles => {
            acc += take!(pipe, st, base, RING, tid);
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Sixteen consumers, two columns each, but the barriers still count 32 releasing threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_mac_bad_half_warp_count(input: *const f32, tiles: u32, out: *mut f32) {
    prelude!(tid, window, base, b, g);
    const RING: u32 = 128;
    const CONSUMERS: u32 = 32;
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        each_tile!(t in b, step g, below tiles => {
            fill!(pipe, st, window, RING, input, t);
        });
        pipe.producer_tail(st);
    } else if tid < 16 {
        let first = tid * 2;
        let mut acc = [0.0f32; 2];
        let mut st = PipelineState::<4>::new();
        each_tile!(t in b, step g, below tiles => {
            pipe.consumer_wait(&st);
            let stage: *const f32 = base.add(((RING + st.index() * TILE_BYTES) / 4) as usize);
            columns!(stage, first, acc; 0 1);
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add((b * 32 + first) as usize) = acc[0];
        *out.add((b * 32 + first + 1) as usize) = acc[1];
    }
}
