//! Unusual control flow: early returns, `match` on warp and lane, reversed counts, `!=` bounds.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// Idle threads return right after the setup barrier; the rest fall through to their roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_flow_early_return_idle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 4096 + 2048, 32);
    }
    barrier();
    if tid > 32 {
        return;
    }
    let pipe = Pipeline::<4>::attach(window + 6144);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
        return;
    }
    let ring = dynamic_shared_base::<f32>().add(256);
    let mut st = PipelineState::<4>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        pipe.consumer_wait(&st);
        let s = ring.add(st.index() as usize * TILE);
        for r in 0..8 {
            acc += *s.add(r * 32 + tid as usize);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += g;
    }
    *out.add((b * 32 + tid) as usize) = acc;
}

/// Roles by `match (tid >> 5, tid & 31)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_flow_match_warp_lane(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    match (tid >> 5, tid & 31) {
        (1, 0) => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        (0, lane) => {
            let ring = dynamic_shared_base::<f32>().add(256);
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let s = ring.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *s.add(r * 32 + lane as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * 32 + lane) as usize) = acc;
        }
        _ => {}
    }
}

/// Consumers only count their tiles, with `(0..n).rev()`; the producer counts up.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_flow_rev_count_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 64, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 64);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..n {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 2048 + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _left in (0..n).rev() {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The producer copies the block's tiles last to first; a column sum does not depend on the
/// order.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_flow_producer_reverse_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 128, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 128);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut k = n;
        while k > 0 {
            k -= 1;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 4096 + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < n {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// Broken: the producer arm is `(0, 0)`, lane 0 of warp 0, so the consumer arm `(0, lane)` is
/// left with 31 lanes for barriers that count 32 (and column 0 is never written).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_flow_bad_producer_in_warp0(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    match (tid >> 5, tid & 31) {
        (0, 0) => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        (0, lane) => {
            let ring = dynamic_shared_base::<f32>().add(256);
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let s = ring.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *s.add(r * 32 + lane as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * 32 + lane) as usize) = acc;
        }
        _ => {}
    }
}

/// Broken: the consumer waits on a copy of its state advanced one stage ahead, reads and
/// releases the current one; on its last tile it waits for a tile that is never copied.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_flow_bad_wait_on_next(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 64, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 64);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 2048 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let mut next = st;
            next.advance();
            pipe.consumer_wait(&next);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st = next;
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the producer returns before copying its last tile (meant to skip only the tail's
/// wait); the consumers wait for that tile forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_flow_bad_producer_returns_before_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 6144, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 6144);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            if t + g >= tiles {
                return;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the consumers' loop runs `while t != tiles`; from `b > 0` the stride of 8 steps past
/// 64 and the consumers wait for tiles nobody copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_flow_bad_ne_bound_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 128, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 128);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 4096 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t != tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
