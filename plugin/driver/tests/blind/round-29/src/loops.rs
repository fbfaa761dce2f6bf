//! Plain loops: `while` and `for` tile loops written inline in the kernel, one pipeline, rings of
//! two to seven stages, different producer threads and consumer groups.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// Four stages after 1 KiB of barriers; thread 32 copies, warp 0 sums one column per lane.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_basic_four(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring + st.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            let mut r = 0;
            while r < 8 {
                acc += *stage.add(r * 32 + tid as usize);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Two stages at the window's start, barriers after them; thread 0 copies, warp 1 sums, both
/// counting the block's tiles with a `for` loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_for_count_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let bars = window + 2 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<2>::init(bars, 32) } else { Pipeline::<2>::attach(bars) };
    barrier();
    let mine = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Seven stages filling the first 7 KiB, barriers behind them; lane 0 of warp 1 copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let warp = tid / 32;
    let lane = tid % 32;
    let window = dynamic_shared_window_address();
    let bars = window + 7 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<7>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<7>::attach(bars);
    if warp == 1 && lane == 0 {
        let mut st = PipelineState::<7>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    }
    if warp == 0 {
        let base = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<7>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(st.index() as usize * TILE + lane as usize);
            for r in 0..8 {
                acc += *stage.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + lane) as usize) = acc;
    }
}

/// Three stages after 64 bytes of barriers; both roles count down the tiles left.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 63 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    let ring = window + 64;
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 63 {
        let mut st = PipelineState::<3>::producer_start();
        let mut left = mine;
        let mut t = b;
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(16);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            let mut r = 8;
            while r > 0 {
                r -= 1;
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Sixteen consumer threads, two columns each (`c` and `c + 16`); thread 63 copies into a ring
/// in the window's upper half.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_sixteen_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 16) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 4096;
    if tid == 63 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 16 {
        let stages = dynamic_shared_base::<f32>().add(1024);
        let c = tid as usize;
        let mut st = PipelineState::<4>::new();
        let (mut lo, mut hi) = (0.0f32, 0.0f32);
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                lo += *stage.add(r * 32 + c);
                hi += *stage.add(r * 32 + c + 16);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let o = out.add(block_idx_x() as usize * 32);
        *o.add(c) = lo;
        *o.add(c + 16) = hi;
    }
}

/// Warp 1 splits each tile by row (lane % 8) and column octet (lane / 8), keeps eight partial
/// sums per lane and combines the rows with a segmented shuffle at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_segmented_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 256;
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let lane = (tid - 32) as usize;
        let row = lane % 8;
        let octet = lane / 8;
        let stages = dynamic_shared_base::<f32>().add(64);
        let mut st = PipelineState::<4>::new();
        let mut acc = [0.0f32; 8];
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE + row * 32 + octet * 8);
            for j in 0..8 {
                acc[j] += *stage.add(j);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        for j in 0..8 {
            let total = segment_sum(acc[j], 8);
            if row == 0 {
                *out.add(block_idx_x() as usize * 32 + octet * 8 + j) = total;
            }
        }
    }
}

/// As `r29_loop_basic_four`, but the consumers never release a stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_bad_no_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Consumers start their ring position from `producer_start`, waiting on parity 1 first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_bad_parity_start(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::producer_start();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Two-stage `for` loops where the consumers run one tile more than the producer copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_bad_extra_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let bars = window + 2 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<2>::init(bars, 32) } else { Pipeline::<2>::attach(bars) };
    barrier();
    let mine = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine + 1 {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// The producer announces two tiles' bytes for each single-tile copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_bad_expect_double(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 7 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 2 * TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..8 {
                acc += *base.add(st.index() as usize * TILE + r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Threads 32 and 33 both run the producer loop of one pipeline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_bad_two_producers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 || tid == 33 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Ring at the window's start with the barriers placed at byte 3072, inside the fourth stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_loop_bad_ring_overlaps_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 3 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
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
        let stages = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}
