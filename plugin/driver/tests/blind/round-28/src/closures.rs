//! Closures and iterator adaptors: column sums through `map`/`sum`, `fold`, `for_each`, slices
//! with `skip`/`step_by`, closures issuing a tile's copy or taking a tile.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: u32 = 1024;
const N: usize = 256;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_map_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            acc += (0..8).map(|r| *stage.add(r * 32 + col)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_fold_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * TILE;
    let pipe = if tid == 0 { Pipeline::<2>::init(bars, 32) } else { Pipeline::<2>::attach(bars) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            acc = (0..8usize).fold(acc, |a, r| a + *stage.add(r * 32 + col));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The producer's copy is issued by a closure that captures the window and the input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_issue_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let issue = |st: &PipelineState<4>, t: u32| {
            let dst = window + st.index() * TILE;
            let src = input.add(t as usize * N) as *const u8;
            bulk_copy_global_to_shared(dst, src, TILE, pipe.producer_barrier(st));
        };
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            issue(&st, t);
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
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

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_slice_skip_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + 3 * TILE;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = core::slice::from_raw_parts(smem.add(st.index() as usize * N), N);
            acc += tile.iter().skip(col).step_by(32).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_for_each_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    let pipe = if tid == 32 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let col = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            (0..8usize).for_each(|r| acc += *stage.add(r * 32 + col));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// Each tile taken by a closure that borrows the consumer's state mutably.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_take_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * TILE;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let take = |st: &mut PipelineState<3>| -> f32 {
            pipe.consumer_wait(st);
            let stage = smem.add(st.index() as usize * N);
            let mut s = 0.0f32;
            for r in 0..8 {
                s += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(st);
            st.advance();
            s
        };
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += take(&mut st);
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// The lazy column iterator is built while the stage is held but summed after the release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_bad_map_summed_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * TILE;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            let column = (0..8).map(|r| *stage.add(r * 32 + col));
            pipe.consumer_release(&st);
            acc += column.sum::<f32>();
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The reader closure captures the stage pointer once, before the tile loop: every tile is
/// read from stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_bad_captured_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let stage = smem.add(st.index() as usize * N);
        let read = || (0..8).map(|r| *stage.add(r * 32 + col)).sum::<f32>();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += read();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// `step_by(32).skip(col)` instead of `skip(col).step_by(32)`: the column is never walked.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_bad_step_then_skip(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + 3 * TILE;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = core::slice::from_raw_parts(smem.add(st.index() as usize * N), N);
            acc += tile.iter().step_by(32).skip(col).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// An inclusive row range: nine rows, the ninth from the next stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_bad_inclusive_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            acc += (0..=8).map(|r| *stage.add(r * 32 + col)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The copy closure passes the tile's length in floats where the copy wants bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_bad_copy_length_in_floats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let issue = |st: &PipelineState<4>, t: u32| {
            let dst = window + st.index() * TILE;
            bulk_copy_global_to_shared(dst, input.add(t as usize * N) as *const u8, N as u32, pipe.producer_barrier(st));
        };
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            issue(&st, t);
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
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

/// A `done` closure releases the stage, and the loop releases it again: two arrivals per
/// consumer, so the producer refills stages still being read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_clo_bad_release_twice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * TILE;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * N) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let done = |st: &PipelineState<2>| pipe.consumer_release(st);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            let mut s = 0.0f32;
            for r in 0..4 {
                s += *stage.add(r * 32 + col);
            }
            done(&st);
            for r in 4..8 {
                s += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            acc += s;
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}
