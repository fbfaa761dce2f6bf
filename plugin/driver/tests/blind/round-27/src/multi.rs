//! Two pipelines, scratch shared memory beside the ring, a thread with two roles, consumers
//! straddling the warps.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF_BYTES: u32 = 512;

/// Two pipelines: A carries rows 0..4 of each tile, B rows 4..8; one producer each (threads
/// 32 and 33); warp 0 waits on both, reads both, releases both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_two_pipes_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let (bars_a, bars_b) = (window, window + 64);
    let (ring_a, ring_b) = (window + 1024, window + 3072);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(bars_a, 32);
        Pipeline::<4>::init(bars_b, 32);
    }
    barrier();
    let pa = Pipeline::<4>::attach(bars_a);
    let pb = Pipeline::<4>::attach(bars_b);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pa.producer_acquire(&st);
            pa.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(ring_a + st.index() * HALF_BYTES, input.add(t as usize * TILE) as *const u8, HALF_BYTES, pa.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pa.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pb.producer_acquire(&st);
            pb.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(ring_b + st.index() * HALF_BYTES, input.add(t as usize * TILE + 128) as *const u8, HALF_BYTES, pb.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pb.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let (ra, rb) = (base.add(256), base.add(768));
        let mut sa = PipelineState::<4>::new();
        let mut sb = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pa.consumer_wait(&sa);
            pb.consumer_wait(&sb);
            let (xa, xb) = (ra.add(sa.index() as usize * 128), rb.add(sb.index() as usize * 128));
            for r in 0..4 {
                acc += *xa.add(r * 32 + tid as usize);
                acc += *xb.add(r * 32 + tid as usize);
            }
            pa.consumer_release(&sa);
            pb.consumer_release(&sb);
            sa.advance();
            sb.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Two pipelines split the block's tiles by parity, each with its own producer and 16
/// consumers of two columns each; the four partial sums per column are joined in scratch
/// beside the rings after a block barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_two_pipes_by_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let (bars_a, bars_b) = (window + 7168, window + 7168 + 64);
    let (ring_a, ring_b) = (window, window + 3072);
    let scratch = dynamic_shared_base::<f32>().add(1536);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<3>::init(bars_a, 16);
        Pipeline::<3>::init(bars_b, 16);
    }
    barrier();
    let pa = Pipeline::<3>::attach(bars_a);
    let pb = Pipeline::<3>::attach(bars_b);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pa.producer_acquire(&st);
            pa.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_a + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pa.producer_barrier(&st));
            st.advance();
            t += 2 * g;
        }
        pa.producer_tail(st);
    } else if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b + g;
        while t < tiles {
            pb.producer_acquire(&st);
            pb.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_b + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pb.producer_barrier(&st));
            st.advance();
            t += 2 * g;
        }
        pb.producer_tail(st);
    } else if (1..17).contains(&tid) {
        let j = (tid - 1) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let (mut lo, mut hi) = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            pa.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                lo += *s.add(r * 32 + j);
                hi += *s.add(r * 32 + j + 16);
            }
            pa.consumer_release(&st);
            st.advance();
            t += 2 * g;
        }
        *scratch.add(j) = lo;
        *scratch.add(j + 16) = hi;
    } else if (33..49).contains(&tid) {
        let j = (tid - 33) as usize;
        let ring = dynamic_shared_base::<f32>().add(768);
        let mut st = PipelineState::<3>::new();
        let (mut lo, mut hi) = (0.0f32, 0.0f32);
        let mut t = b + g;
        while t < tiles {
            pb.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                lo += *s.add(r * 32 + j);
                hi += *s.add(r * 32 + j + 16);
            }
            pb.consumer_release(&st);
            st.advance();
            t += 2 * g;
        }
        *scratch.add(32 + j) = lo;
        *scratch.add(48 + j) = hi;
    }
    barrier();
    if tid < 32 {
        *out.add((b * 32 + tid) as usize) = *scratch.add(tid as usize) + *scratch.add(32 + tid as usize);
    }
}

/// Consumer lane `l` sums columns `2(l % 16)`, `+1` of rows `4(l / 16)..+4`; partials go to
/// scratch after the ring, and after a block barrier warp 1 adds the row halves and stores.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_scratch_after_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let scratch = dynamic_shared_base::<f32>().add(1280);
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
    } else if tid < 32 {
        let c0 = 2 * (tid % 16) as usize;
        let h = (tid / 16) as usize;
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let (mut a0, mut a1) = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 4 * h..4 * h + 4 {
                a0 += *s.add(r * 32 + c0);
                a1 += *s.add(r * 32 + c0 + 1);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *scratch.add(h * 32 + c0) = a0;
        *scratch.add(h * 32 + c0 + 1) = a1;
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        *out.add(b as usize * 32 + c) = *scratch.add(c) + *scratch.add(32 + c);
    }
}

/// Thread 0 is the producer and also consumer of column 0: each pass it copies tile `k`, then
/// consumes it; its own release of tile `k - 4` comes before its acquire of tile `k`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_two_roles_interleaved(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 4096, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 4096);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid < 32 {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut cons = PipelineState::<4>::new();
        let mut prod = PipelineState::<4>::producer_start();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            if tid == 0 {
                pipe.producer_acquire(&prod);
                pipe.producer_expect_tx(&prod, TILE_BYTES);
                bulk_copy_global_to_shared(window + prod.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&prod));
                prod.advance();
            }
            pipe.consumer_wait(&cons);
            let s = ring.add(cons.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&cons);
            cons.advance();
            t += g;
        }
        if tid == 0 {
            pipe.producer_tail(prod);
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The 32 consumers are threads 16..48, straddling both warps; thread 0 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_straddling_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 63 {
        Pipeline::<4>::init(window + 5120, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 5120);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
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
    } else if tid >= 16 && tid < 48 {
        let c = (tid - 16) as usize;
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Scratch before the barriers: consumers park their sums at the window's start, and after a
/// block barrier warp 1 stores them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_scratch_before_bars(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window + 256;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let scratch = dynamic_shared_base::<f32>();
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
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *scratch.add(tid as usize) = acc;
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        *out.add(b as usize * 32 + c) = *scratch.add(c);
    }
}

// ---------------------------------------------------------------- broken

/// Broken two-pipeline body; `mode` picks the defect of each entry (0: B's stage released on A,
/// 1: both pipelines on one set of barriers, 2: ring B starting inside ring A).
#[inline(always)]
unsafe fn two_pipes_broken<const MODE: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars_a = window;
    let bars_b = if MODE == 1 { window } else { window + 64 };
    let ring_a = window + 1024;
    let ring_b_at: u32 = if MODE == 2 { 2560 } else { 3072 };
    let ring_b = window + ring_b_at;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(bars_a, 32);
        Pipeline::<4>::init(bars_b, 32);
    }
    barrier();
    let pa = Pipeline::<4>::attach(bars_a);
    let pb = Pipeline::<4>::attach(bars_b);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pa.producer_acquire(&st);
            pa.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(ring_a + st.index() * HALF_BYTES, input.add(t as usize * TILE) as *const u8, HALF_BYTES, pa.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pa.producer_tail(st);
    } else if tid == 33 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pb.producer_acquire(&st);
            pb.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(ring_b + st.index() * HALF_BYTES, input.add(t as usize * TILE + 128) as *const u8, HALF_BYTES, pb.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pb.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let (ra, rb) = (base.add(256), base.add(ring_b_at as usize / 4));
        let mut sa = PipelineState::<4>::new();
        let mut sb = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pa.consumer_wait(&sa);
            pb.consumer_wait(&sb);
            let (xa, xb) = (ra.add(sa.index() as usize * 128), rb.add(sb.index() as usize * 128));
            for r in 0..4 {
                acc += *xa.add(r * 32 + tid as usize);
                acc += *xb.add(r * 32 + tid as usize);
            }
            pa.consumer_release(&sa);
            if MODE == 0 {
                pa.consumer_release(&sb);
            } else {
                pb.consumer_release(&sb);
            }
            sa.advance();
            sb.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: pipeline B's stage is released on pipeline A (a copy-paste slip); B's producer hangs
/// once its ring is full.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_bad_release_on_other_pipe(input: *const f32, tiles: u32, out: *mut f32) {
    two_pipes_broken::<0>(input, tiles, out);
}

/// Broken: both pipelines are set up on the same barriers; every full barrier gets two
/// arrivals and two copies per phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_bad_shared_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    two_pipes_broken::<1>(input, tiles, out);
}

/// Broken: ring B starts at byte 2560, inside ring A (whose last stage is 2560..3072); B's stage
/// 0 copies overwrite A's stage 3.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_bad_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    two_pipes_broken::<2>(input, tiles, out);
}

/// Broken: warp 1 reads the consumers' partial sums from scratch without the block barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_bad_scratch_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let scratch = dynamic_shared_base::<f32>().add(1444);
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
    } else if tid < 32 {
        let c0 = 2 * (tid % 16) as usize;
        let h = (tid / 16) as usize;
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let (mut a0, mut a1) = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 4 * h..4 * h + 4 {
                a0 += *s.add(r * 32 + c0);
                a1 += *s.add(r * 32 + c0 + 1);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *scratch.add(h * 32 + c0) = a0;
        *scratch.add(h * 32 + c0 + 1) = a1;
    }
    if tid >= 32 {
        let c = (tid - 32) as usize;
        *out.add(b as usize * 32 + c) = *scratch.add(c) + *scratch.add(32 + c);
    }
}

/// Broken: the consumers keep their running sums in scratch at the window's start, where the
/// pipeline's barriers are; the first store corrupts `full[0..4]` and `empty[0..4]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_bad_scratch_over_bars(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let bars = window;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let scratch = dynamic_shared_base::<f32>();
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
        *scratch.add(tid as usize) = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            let mut part = 0.0f32;
            for r in 0..8 {
                part += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            *scratch.add(tid as usize) += part;
            t += g;
        }
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        *out.add(b as usize * 32 + c) = *scratch.add(c);
    }
}

/// Broken: thread 0 is producer and consumer of column 0, and runs its whole producer loop
/// before consuming: on the fifth tile it waits for its own release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_bad_two_roles_producer_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 4096, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 4096);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut prod = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&prod);
            pipe.producer_expect_tx(&prod, TILE_BYTES);
            bulk_copy_global_to_shared(window + prod.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&prod));
            prod.advance();
            t += g;
        }
        pipe.producer_tail(prod);
    }
    if tid < 32 {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let mut cons = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&cons);
            let s = ring.add(cons.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&cons);
            cons.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: pipeline B's consumers step by `g` instead of `2 * g`, taking twice the tiles B's
/// producer copies; they wait for a fill that never comes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_multi_bad_parity_consumer_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let (bars_a, bars_b) = (window + 7168, window + 7168 + 64);
    let (ring_a, ring_b) = (window, window + 3072);
    let scratch = dynamic_shared_base::<f32>().add(1536);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<3>::init(bars_a, 16);
        Pipeline::<3>::init(bars_b, 16);
    }
    barrier();
    let pa = Pipeline::<3>::attach(bars_a);
    let pb = Pipeline::<3>::attach(bars_b);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pa.producer_acquire(&st);
            pa.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_a + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pa.producer_barrier(&st));
            st.advance();
            t += 2 * g;
        }
        pa.producer_tail(st);
    } else if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b + g;
        while t < tiles {
            pb.producer_acquire(&st);
            pb.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_b + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pb.producer_barrier(&st));
            st.advance();
            t += 2 * g;
        }
        pb.producer_tail(st);
    } else if (1..17).contains(&tid) {
        let j = (tid - 1) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let (mut lo, mut hi) = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            pa.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                lo += *s.add(r * 32 + j);
                hi += *s.add(r * 32 + j + 16);
            }
            pa.consumer_release(&st);
            st.advance();
            t += 2 * g;
        }
        *scratch.add(j) = lo;
        *scratch.add(j + 16) = hi;
    } else if (33..49).contains(&tid) {
        let j = (tid - 33) as usize;
        let ring = dynamic_shared_base::<f32>().add(768);
        let mut st = PipelineState::<3>::new();
        let (mut lo, mut hi) = (0.0f32, 0.0f32);
        let mut t = b + g;
        while t < tiles {
            pb.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                lo += *s.add(r * 32 + j);
                hi += *s.add(r * 32 + j + 16);
            }
            pb.consumer_release(&st);
            st.advance();
            t += g;
        }
        *scratch.add(32 + j) = lo;
        *scratch.add(48 + j) = hi;
    }
    barrier();
    if tid < 32 {
        *out.add((b * 32 + tid) as usize) = *scratch.add(tid as usize) + *scratch.add(32 + tid as usize);
    }
}
