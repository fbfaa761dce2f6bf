//! Several pipelines and unusual ring layouts: two pipelines with a producer each, one producer
//! feeding two pipelines with half tiles, stages filled by two copies or holding two tiles,
//! row-by-row copies, consumer results parked in scratch beside the ring.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF_BYTES: u32 = 512;

#[inline(always)]
fn mine_of(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

#[inline(always)]
unsafe fn column(stage: *const f32, rows: core::ops::Range<usize>, col: usize) -> f32 {
    let mut s = 0.0;
    for r in rows {
        s += *stage.add(r * 32 + col);
    }
    s
}

/// Even tiles through pipeline A (thread 32), odd tiles through pipeline B (thread 33); warp 0
/// takes them alternately.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_even_odd_pipes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (pa, pb) = if tid == 0 {
        (Pipeline::<2>::init(window, 32), Pipeline::<2>::init(window + 64, 32))
    } else {
        (Pipeline::<2>::attach(window), Pipeline::<2>::attach(window + 64))
    };
    barrier();
    let ring_a = window + 1024;
    let ring_b = window + 3072;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0;
        while k < mine {
            pa.producer_acquire(&st);
            pa.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_a + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pa.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        pa.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 1;
        while k < mine {
            pb.producer_acquire(&st);
            pb.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_b + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pb.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        pb.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let stages_a = base.add(256);
        let stages_b = base.add(768);
        let mut sa = PipelineState::<2>::new();
        let mut sb = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        for k in 0..mine {
            if k % 2 == 0 {
                pa.consumer_wait(&sa);
                acc += column(stages_a.add(sa.index() as usize * TILE), 0..8, tid as usize);
                pa.consumer_release(&sa);
                sa.advance();
            } else {
                pb.consumer_wait(&sb);
                acc += column(stages_b.add(sb.index() as usize * TILE), 0..8, tid as usize);
                pb.consumer_release(&sb);
                sb.advance();
            }
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Each stage filled by two 512-byte copies (rows 0-3, rows 4-7) under one announcement.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_two_copies_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
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
            let dst = ring + st.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE);
            bulk_copy_global_to_shared(dst, src as *const u8, HALF_BYTES, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(dst + HALF_BYTES, src.add(128) as *const u8, HALF_BYTES, pipe.producer_barrier(&st));
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
            acc += column(stages.add(st.index() as usize * TILE), 0..8, tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Stages of 2 KiB holding two of the block's tiles; the last stage may hold one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_two_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 6144;
    let pipe = if tid == 0 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut k = 0;
        while k < mine {
            let n = (mine - k).min(2);
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, n * TILE_BYTES);
            for j in 0..n {
                let t = b + (k + j) * g;
                bulk_copy_global_to_shared(window + st.index() * 2 * TILE_BYTES + j * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            }
            st.advance();
            k += n;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < mine {
            let n = (mine - k).min(2);
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 2 * TILE);
            for j in 0..n as usize {
                acc += column(stage.add(j * TILE), 0..8, tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k += n;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// One producer feeds two pipelines, rows 0-3 of each tile to A and rows 4-7 to B; warp 0
/// waits on both, sums both halves and releases both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_split_halves_two_pipes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (pa, pb) = if tid == 0 {
        (Pipeline::<4>::init(window, 32), Pipeline::<4>::init(window + 64, 32))
    } else {
        (Pipeline::<4>::attach(window), Pipeline::<4>::attach(window + 64))
    };
    barrier();
    let ring_a = window + 1024;
    let ring_b = window + 3072;
    if tid == 32 {
        let mut sa = PipelineState::<4>::producer_start();
        let mut sb = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            let src = input.add(t as usize * TILE);
            pa.producer_acquire(&sa);
            pa.producer_expect_tx(&sa, HALF_BYTES);
            bulk_copy_global_to_shared(ring_a + sa.index() * HALF_BYTES, src as *const u8, HALF_BYTES, pa.producer_barrier(&sa));
            sa.advance();
            pb.producer_acquire(&sb);
            pb.producer_expect_tx(&sb, HALF_BYTES);
            bulk_copy_global_to_shared(ring_b + sb.index() * HALF_BYTES, src.add(128) as *const u8, HALF_BYTES, pb.producer_barrier(&sb));
            sb.advance();
            t += grid_dim_x();
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let (stages_a, stages_b) = (base.add(256), base.add(768));
        let mut sa = PipelineState::<4>::new();
        let mut sb = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pa.consumer_wait(&sa);
            pb.consumer_wait(&sb);
            acc += column(stages_a.add(sa.index() as usize * 128), 0..4, tid as usize);
            acc += column(stages_b.add(sb.index() as usize * 128), 0..4, tid as usize);
            pa.consumer_release(&sa);
            pb.consumer_release(&sb);
            sa.advance();
            sb.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Warp 0 consumes and parks its column totals after the ring; after a block barrier warp 1
/// writes them out.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_scratch_after_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    let base = dynamic_shared_base::<f32>();
    let scratch = base.add(1536);
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
        let stages = base.add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(stages.add(st.index() as usize * TILE), 0..8, tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *scratch.add(tid as usize) = acc;
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        *out.add(block_idx_x() as usize * 32 + c) = *scratch.add(c);
    }
}

/// Each stage filled by eight 128-byte row copies from a counted loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_row_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = ring + st.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE);
            for r in 0..8u32 {
                bulk_copy_global_to_shared(dst + r * 128, src.add(r as usize * 32) as *const u8, 128, pipe.producer_barrier(&st));
            }
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
            acc += column(stages.add(st.index() as usize * TILE), 0..8, tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Two half-tile pipelines; the consumers release A twice (for A's state and B's) and B never.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_bad_release_a_twice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (pa, pb) = if tid == 0 {
        (Pipeline::<4>::init(window, 32), Pipeline::<4>::init(window + 64, 32))
    } else {
        (Pipeline::<4>::attach(window), Pipeline::<4>::attach(window + 64))
    };
    barrier();
    let ring_a = window + 1024;
    let ring_b = window + 3072;
    if tid == 32 {
        let mut sa = PipelineState::<4>::producer_start();
        let mut sb = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            let src = input.add(t as usize * TILE);
            pa.producer_acquire(&sa);
            pa.producer_expect_tx(&sa, HALF_BYTES);
            bulk_copy_global_to_shared(ring_a + sa.index() * HALF_BYTES, src as *const u8, HALF_BYTES, pa.producer_barrier(&sa));
            sa.advance();
            pb.producer_acquire(&sb);
            pb.producer_expect_tx(&sb, HALF_BYTES);
            bulk_copy_global_to_shared(ring_b + sb.index() * HALF_BYTES, src.add(128) as *const u8, HALF_BYTES, pb.producer_barrier(&sb));
            sb.advance();
            t += grid_dim_x();
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let (stages_a, stages_b) = (base.add(256), base.add(768));
        let mut sa = PipelineState::<4>::new();
        let mut sb = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pa.consumer_wait(&sa);
            pb.consumer_wait(&sb);
            acc += column(stages_a.add(sa.index() as usize * 128), 0..4, tid as usize);
            acc += column(stages_b.add(sb.index() as usize * 128), 0..4, tid as usize);
            pa.consumer_release(&sa);
            pa.consumer_release(&sb);
            sa.advance();
            sb.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Even/odd pipelines whose rings are placed one stage apart, so A's second stage is B's first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_bad_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (pa, pb) = if tid == 0 {
        (Pipeline::<2>::init(window, 32), Pipeline::<2>::init(window + 64, 32))
    } else {
        (Pipeline::<2>::attach(window), Pipeline::<2>::attach(window + 64))
    };
    barrier();
    let ring_a = window + 1024;
    let ring_b = window + 2048;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0;
        while k < mine {
            pa.producer_acquire(&st);
            pa.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_a + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pa.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        pa.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 1;
        while k < mine {
            pb.producer_acquire(&st);
            pb.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_b + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pb.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        pb.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let stages_a = base.add(256);
        let stages_b = base.add(512);
        let mut sa = PipelineState::<2>::new();
        let mut sb = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        for k in 0..mine {
            if k % 2 == 0 {
                pa.consumer_wait(&sa);
                acc += column(stages_a.add(sa.index() as usize * TILE), 0..8, tid as usize);
                pa.consumer_release(&sa);
                sa.advance();
            } else {
                pb.consumer_wait(&sb);
                acc += column(stages_b.add(sb.index() as usize * TILE), 0..8, tid as usize);
                pb.consumer_release(&sb);
                sb.advance();
            }
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Two half copies per stage, both landing at the stage's start.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_bad_halves_same_dest(input: *const f32, tiles: u32, out: *mut f32) {
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
            let dst = ring + st.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE);
            bulk_copy_global_to_shared(dst, src as *const u8, HALF_BYTES, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(dst, src.add(128) as *const u8, HALF_BYTES, pipe.producer_barrier(&st));
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
            acc += column(stages.add(st.index() as usize * TILE), 0..8, tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Totals parked after the ring and read back by warp 1 with no block barrier in between.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_bad_scratch_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    let base = dynamic_shared_base::<f32>();
    let scratch = base.add(1536);
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
        let stages = base.add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(stages.add(st.index() as usize * TILE), 0..8, tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *scratch.add(tid as usize) = acc;
    }
    if tid >= 32 {
        let c = (tid - 32) as usize;
        *out.add(block_idx_x() as usize * 32 + c) = *scratch.add(c);
    }
}

/// Row copies from a loop of seven passes under one tile's announcement.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_bad_row_copies_seven(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = ring + st.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE);
            for r in 1..8u32 {
                bulk_copy_global_to_shared(dst + r * 128, src.add(r as usize * 32) as *const u8, 128, pipe.producer_barrier(&st));
            }
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
            acc += column(stages.add(st.index() as usize * TILE), 0..8, tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Even/odd pipelines whose barriers are initialised at the same window address.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_mu_bad_shared_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (pa, pb) = if tid == 0 {
        (Pipeline::<2>::init(window, 32), Pipeline::<2>::init(window, 32))
    } else {
        (Pipeline::<2>::attach(window), Pipeline::<2>::attach(window))
    };
    barrier();
    let ring_a = window + 1024;
    let ring_b = window + 3072;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0;
        while k < mine {
            pa.producer_acquire(&st);
            pa.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_a + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pa.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        pa.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 1;
        while k < mine {
            pb.producer_acquire(&st);
            pb.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_b + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pb.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        pb.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let stages_a = base.add(256);
        let stages_b = base.add(768);
        let mut sa = PipelineState::<2>::new();
        let mut sb = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        for k in 0..mine {
            if k % 2 == 0 {
                pa.consumer_wait(&sa);
                acc += column(stages_a.add(sa.index() as usize * TILE), 0..8, tid as usize);
                pa.consumer_release(&sa);
                sa.advance();
            } else {
                pb.consumer_wait(&sb);
                acc += column(stages_b.add(sb.index() as usize * TILE), 0..8, tid as usize);
                pb.consumer_release(&sb);
                sb.advance();
            }
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
