//! Pipeline kernels that lean on iterator adaptors: `step_by` tile loops, `map`/`sum` over
//! rows, slices over a stage with `skip`/`step_by`/`chunks_exact`, `zip`, `enumerate`, `rev`.

use core::slice;

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const TILE_BYTES: u32 = 1024;
const TILE: usize = 256;

struct Ctx<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    ring: *const f32,
    tid: u32,
    b: u32,
    g: u32,
}

#[inline(always)]
fn ctx<const S: u32>(producer: u32, bars: u32) -> Ctx<S> {
    let window = device::dynamic_shared_window_address();
    let tid = device::thread_idx_x();
    let pipe = if tid == producer { Pipeline::<S>::init(window + bars, 32) } else { Pipeline::<S>::attach(window + bars) };
    device::barrier();
    Ctx { pipe, window, ring: device::dynamic_shared_base::<f32>(), tid, b: device::block_idx_x(), g: device::grid_dim_x() }
}

#[inline(always)]
unsafe fn produce_all<const S: u32>(cx: &Ctx<S>, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<S>::producer_start();
    for t in (cx.b..tiles).step_by(cx.g as usize) {
        cx.pipe.producer_acquire(&st);
        cx.pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(cx.window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, cx.pipe.producer_barrier(&st));
        st.advance();
    }
    cx.pipe.producer_tail(st);
}

/// `step_by` tile loops in both roles; rows summed by `map` + `sum`; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_step_by_map_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<4>(0, 4096);
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _t in (cx.b..tiles).step_by(cx.g as usize) {
            cx.pipe.consumer_wait(&st);
            let stage = cx.ring.add(st.index() as usize * TILE);
            acc += (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// A slice over the stage summed with `skip(col).step_by(32)`; five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_slice_skip_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<5>(0, 5 * TILE_BYTES);
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        for _t in (cx.b..tiles).step_by(cx.g as usize) {
            cx.pipe.consumer_wait(&st);
            let tile = slice::from_raw_parts(cx.ring.add(st.index() as usize * TILE), TILE);
            acc += tile.iter().skip(c).step_by(32).sum::<f32>();
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// The stage's slice cut into rows by `chunks_exact(32)`; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_chunks_exact_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<3>(0, 3 * TILE_BYTES);
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        for _t in (cx.b..tiles).step_by(cx.g as usize) {
            cx.pipe.consumer_wait(&st);
            let tile = slice::from_raw_parts(cx.ring.add(st.index() as usize * TILE), TILE);
            acc += tile.chunks_exact(32).map(|row| row[c]).sum::<f32>();
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// Consumers zip a counted range with the tile iterator; rows walked with `rev`; six stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_zip_rev(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<6>(0, 6 * TILE_BYTES);
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mine = (tiles - cx.b).div_ceil(cx.g);
        let mut st = PipelineState::<6>::new();
        let mut acc = 0.0f32;
        for (_k, _t) in (0..mine).zip((cx.b..tiles).step_by(cx.g as usize)) {
            cx.pipe.consumer_wait(&st);
            let stage = cx.ring.add(st.index() as usize * TILE);
            for r in (0..8).rev() {
                acc += *stage.add(r * 32 + c);
            }
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// Producer loop with `enumerate`, consumers over warp 0; two stages at the window's end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_enumerate_two(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<2>(32, 0);
    let ring_at = 6144u32;
    if cx.tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut copied = 0u32;
        for (_k, t) in (cx.b..tiles).step_by(cx.g as usize).enumerate() {
            cx.pipe.producer_acquire(&st);
            cx.pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(cx.window + ring_at + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, cx.pipe.producer_barrier(&st));
            st.advance();
            copied += 1;
        }
        let _ = copied;
        cx.pipe.producer_tail(st);
    } else if cx.tid < 32 {
        let c = cx.tid as usize;
        let ring = cx.ring.add(ring_at as usize / 4);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        for _t in (cx.b..tiles).step_by(cx.g as usize) {
            cx.pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc += (0..8).fold(0.0, |s, r| s + *stage.add(r * 32 + c));
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// Array of eight row offsets zipped with the stage; seven stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_row_offsets_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<7>(0, 7 * TILE_BYTES);
    const ROWS: [usize; 8] = [0, 32, 64, 96, 128, 160, 192, 224];
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mut st = PipelineState::<7>::new();
        let mut acc = 0.0f32;
        for _t in (cx.b..tiles).step_by(cx.g as usize) {
            cx.pipe.consumer_wait(&st);
            let stage = cx.ring.add(st.index() as usize * TILE + c);
            acc += ROWS.iter().map(|&o| *stage.add(o)).sum::<f32>();
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// Slice over the stage with `step_by(32)` taken before `skip(col)`; five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_bad_step_then_skip(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<5>(0, 5 * TILE_BYTES);
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        for _t in (cx.b..tiles).step_by(cx.g as usize) {
            cx.pipe.consumer_wait(&st);
            let tile = slice::from_raw_parts(cx.ring.add(st.index() as usize * TILE), TILE);
            acc += tile.iter().step_by(32).skip(c).sum::<f32>();
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// The stage cut into chunks of 64 floats; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_bad_chunks_of_64(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<3>(0, 3 * TILE_BYTES);
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        for _t in (cx.b..tiles).step_by(cx.g as usize) {
            cx.pipe.consumer_wait(&st);
            let tile = slice::from_raw_parts(cx.ring.add(st.index() as usize * TILE), TILE);
            acc += tile.chunks_exact(64).map(|row| row[c]).sum::<f32>();
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// Consumers over an inclusive tile range; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_bad_inclusive_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<4>(0, 4096);
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _t in (cx.b..=tiles).step_by(cx.g as usize) {
            cx.pipe.consumer_wait(&st);
            let stage = cx.ring.add(st.index() as usize * TILE);
            acc += (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// Consumers zip the tiles with a tile number counted from one; six stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_bad_zip_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<6>(0, 6 * TILE_BYTES);
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mine = (tiles - cx.b).div_ceil(cx.g);
        let mut st = PipelineState::<6>::new();
        let mut acc = 0.0f32;
        for (_k, _t) in (1..mine).zip((cx.b..tiles).step_by(cx.g as usize)) {
            cx.pipe.consumer_wait(&st);
            let stage = cx.ring.add(st.index() as usize * TILE);
            for r in (0..8).rev() {
                acc += *stage.add(r * 32 + c);
            }
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}

/// `map` + `sum` over the rows, offsets taken from the stage start; seven stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_iter_bad_rows_without_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = ctx::<7>(0, 7 * TILE_BYTES);
    if cx.tid == 0 {
        produce_all(&cx, input, tiles);
    } else if cx.tid >= 32 {
        let c = cx.tid as usize - 32;
        let mut st = PipelineState::<7>::new();
        let mut acc = 0.0f32;
        for _t in (cx.b..tiles).step_by(cx.g as usize) {
            cx.pipe.consumer_wait(&st);
            let stage = cx.ring.add(st.index() as usize * TILE);
            acc += (0..8usize).map(|r| *stage.add(r * 32)).sum::<f32>();
            cx.pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(cx.b as usize * 32 + c) = acc;
    }
}
