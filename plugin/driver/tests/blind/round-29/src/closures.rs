//! Closures and iterator adaptors: `map`/`sum`, `fold`, `for_each` tile loops, `step_by` ranges,
//! slice iterators, closures for sources and destinations.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// Consumers sum a column with `(0..8).map(..).sum()`; four stages, thread 32 copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_map_sum(input: *const f32, tiles: u32, out: *mut f32) {
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
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            acc += (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Consumers fold the rows into their running total; three stages, thread 0 copies, warp 1 sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_fold_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let pipe = if tid == 0 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc = (0..8usize).fold(acc, |a, r| a + *stage.add(r * 32 + c));
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Both tile loops are `(0..mine).for_each(..)` closures capturing the state; two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_for_each_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let ring = window + 512;
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        (0..mine).for_each(|k| {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(128);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        (0..mine).for_each(|_| {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Tile loops over `(b..tiles).step_by(g)`; five stages after 1 KiB of barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_step_by_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<5>::init(window, 32) } else { Pipeline::<5>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let mut st = PipelineState::<5>::producer_start();
        for t in (b..tiles).step_by(g) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        for _ in (b..tiles).step_by(g) {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            acc += (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Consumers sum their column through a slice iterator, `skip(c).step_by(32)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_slice_iter(input: *const f32, tiles: u32, out: *mut f32) {
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
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = core::slice::from_raw_parts(stages.add(st.index() as usize * TILE), TILE);
            acc += tile.iter().skip(c).step_by(32).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Sources, destinations and the column read are closures built once before the roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_closure_helpers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 5120;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let ring = window + 1024;
    let src = |t: u32| input.add(t as usize * TILE) as *const u8;
    let dst = |st: &PipelineState<4>| ring + st.index() * TILE_BYTES;
    let column = |stage: *const f32, c: usize| (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
    if tid == 63 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(dst(&st), src(t), TILE_BYTES, pipe.producer_barrier(&st));
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
            acc += column(stages.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// The column closure captures the stage pointer taken from the fresh state before the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_bad_captured_stage(input: *const f32, tiles: u32, out: *mut f32) {
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
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let stage = stages.add(st.index() as usize * TILE);
        let column = || (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column();
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// The column closure maps over nine rows of each staged tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_bad_map_nine_rows(input: *const f32, tiles: u32, out: *mut f32) {
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
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            acc += (0..9).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// The consumers' `for_each` runs over `1..mine`, the producer's over `0..mine`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_bad_for_each_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let ring = window + 512;
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        (0..mine).for_each(|k| {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(128);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        (1..mine).for_each(|_| {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// The slice iterator skips by the column and then steps by eight.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_bad_skip_step_eight(input: *const f32, tiles: u32, out: *mut f32) {
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
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = core::slice::from_raw_parts(stages.add(st.index() as usize * TILE), TILE);
            acc += tile.iter().skip(c).step_by(8).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// The destination closure wraps to the stage after the one the producer acquired.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_bad_dst_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 5120;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let ring = window + 1024;
    let src = |t: u32| input.add(t as usize * TILE) as *const u8;
    let dst = |st: &PipelineState<4>| ring + ((st.index() + 1) % 4) * TILE_BYTES;
    if tid == 63 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(dst(&st), src(t), TILE_BYTES, pipe.producer_barrier(&st));
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
            acc += (0..8).map(|r| *stage.add(r * 32 + tid as usize)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = acc;
    }
}

/// Consumers fold over their tiles reading and releasing each stage, with no wait for it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_clo_bad_fold_no_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let pipe = if tid == 0 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    barrier();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let acc = (0..mine).fold(0.0f32, |acc, _| {
            let stage = ring.add(st.index() as usize * TILE);
            let v = (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            acc + v
        });
        *out.add(b as usize * 32 + c) = acc;
    }
}
