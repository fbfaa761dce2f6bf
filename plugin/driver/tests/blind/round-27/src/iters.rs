//! Closures and iterator adaptors: `map`, `fold`, `sum`, `step_by`, `chunks_exact`, `zip`,
//! `enumerate`, `for_each`, `take_while`, array views.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use core::slice;

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// Producer shared by several kernels of this module: plain loop, four stages.
#[inline(always)]
unsafe fn producer4(pipe: &Pipeline<4>, ring: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<4>::producer_start();
    let g = grid_dim_x();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += g;
    }
    pipe.producer_tail(st);
}

/// `(0..8).map(..).sum()` over the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_map_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    if tid == 32 {
        producer4(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc += (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// `fold` carrying the accumulator through the rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_fold_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 4096 + 1024, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 5120);
    if tid == 32 {
        producer4(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc = (0..8usize).fold(acc, |a, r| a + *stage.add(r * 32 + c));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// A slice over the stage, `iter().skip(c).step_by(32).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_slice_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 256, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 256);
    if tid == 32 {
        producer4(&pipe, window + 3072, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(768) as *const f32;
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = slice::from_raw_parts(ring.add(st.index() as usize * TILE), TILE);
            acc += tile.iter().skip(c).step_by(32).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// `chunks_exact(32)` gives the rows; each consumer picks its column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_chunks_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 64, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 64);
    if tid == 32 {
        producer4(&pipe, window + 2048, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512) as *const f32;
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = slice::from_raw_parts(ring.add(st.index() as usize * TILE), TILE);
            for row in tile.chunks_exact(32) {
                acc += row[c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Upper and lower halves zipped: rows `r` and `r + 4` in one pass.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_zip_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 6144, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 6144);
    if tid == 32 {
        producer4(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE + c);
            acc += (0..4usize).zip(4..8usize).map(|(lo, hi)| *stage.add(lo * 32) + *stage.add(hi * 32)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Both tile loops are `step_by(..).for_each(closure)` capturing the state by `&mut`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_for_each_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        (b..tiles).step_by(g).for_each(|t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let c = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        (b..tiles).step_by(g).for_each(|_| {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// The stage pointer comes from a closure over the ring, called with the state each tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_stage_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 1024, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 1024);
    if tid == 32 {
        producer4(&pipe, window + 2048, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512) as *const f32;
        let stage_of = |st: &PipelineState<4>| ring.add(st.index() as usize * TILE);
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stage_of(&st);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// The ring viewed as `[[[f32; 32]; 8]; 4]`; rows by `iter().enumerate()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_array_view_enumerate(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 5120, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 5120);
    if tid == 32 {
        producer4(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let view = &*(dynamic_shared_base::<f32>().add(256) as *const [[[f32; 32]; 8]; 4]);
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &view[st.index() as usize];
            let mut part = 0.0f32;
            for (r, row) in tile.iter().enumerate() {
                if r < 8 {
                    part += row[c];
                }
            }
            acc += part;
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Tile numbers from `(0..).map(..).take_while(..)` in both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_take_while_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 4096, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 4096);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = move || (0u32..).map(move |k| b + k * g).take_while(move |&t| t < tiles);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in mine() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let c = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _t in mine() {
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

/// The column iterator is built before the wait and summed after it (lazy: nothing is read
/// before `sum`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_lazy_built_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 128, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 128);
    if tid == 32 {
        producer4(&pipe, window + 4096, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let stage = ring.add(st.index() as usize * TILE + c);
            let column = (0..8usize).map(move |r| unsafe { *stage.add(r * 32) });
            pipe.consumer_wait(&st);
            acc += column.sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Thread 0 produces; threads `1..=32` consume (`RangeInclusive::contains`), column `tid - 1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_range_contains_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    if tid == 0 {
        producer4(&pipe, window + 1024, input, tiles);
    } else if (1..=32).contains(&tid) {
        let ring = dynamic_shared_base::<f32>().add(256);
        let c = (tid - 1) as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc += (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// Broken: the stage index is read once before the tile loop and captured by the row closure;
/// every tile is read from stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_bad_hoisted_index_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 6144, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 6144);
    if tid == 32 {
        producer4(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let idx = st.index() as usize;
        let row = move |r: usize| unsafe { *ring.add(idx * TILE + r * 32 + c) };
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += (0..8).map(row).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Broken: the consumers' range starts one grid step late (`b + g`), so they take one tile fewer
/// than the producer copies; its tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_bad_step_by_late_start(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in (b..tiles).step_by(g as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let c = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in (b + g..tiles).step_by(g as usize) {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc += (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Broken: the slice over the stage is two tiles long, so each column sums 16 values, eight of
/// them from the next stage (or past the ring).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_bad_slice_two_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 256, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 256);
    if tid == 32 {
        producer4(&pipe, window + 1296, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(324) as *const f32;
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = slice::from_raw_parts(ring.add(st.index() as usize * TILE), 2 * TILE);
            acc += tile.iter().skip(c).step_by(32).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Broken: the consumers' `take_while` keeps `t <= tiles`; block 0's consumers wait for a tile
/// that is never copied.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_bad_take_while_le(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 4096, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 4096);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for t in (0u32..).map(|k| b + k * g).take_while(|&t| t < tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let c = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _t in (0u32..).map(|k| b + k * g).take_while(|&t| t <= tiles) {
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

/// Broken: the array view is indexed with the next stage, `(index + 1) % 4`, which the
/// consumers never waited for.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_bad_view_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 5120 + 512, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 5632);
    if tid == 32 {
        producer4(&pipe, window + 1536, input, tiles);
    } else if tid < 32 {
        let view = &*(dynamic_shared_base::<f32>().add(384) as *const [[[f32; 32]; 8]; 4]);
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &view[(st.index() as usize + 1) % 4];
            acc += tile.iter().map(|row| row[c]).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Broken: thread 0 produces and `1..32` consume: 31 releasing threads for barriers that count
/// 32 (and column 31 is never written).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_bad_range_exclusive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    if tid == 0 {
        producer4(&pipe, window + 1024, input, tiles);
    } else if (1..32).contains(&tid) {
        let ring = dynamic_shared_base::<f32>().add(256);
        let c = (tid - 1) as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc += (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Broken: the per-tile step is a closure taking the state by value; the caller never gets the
/// advanced state back, so it waits on stage 0 every tile and stages 1 to 3 stay unreleased.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_bad_closure_state_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 64, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 64);
    if tid == 32 {
        producer4(&pipe, window + 2048, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512) as *const f32;
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let step = |mut s: PipelineState<4>| -> f32 {
            pipe.consumer_wait(&s);
            let stage = unsafe { ring.add(s.index() as usize * TILE) };
            let v = (0..8).map(|r| unsafe { *stage.add(r * 32 + c) }).sum::<f32>();
            pipe.consumer_release(&s);
            s.advance();
            v
        };
        let st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += step(st);
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Broken: the consumers skip the release of their last tile, believing the producer's tail
/// reclaims it; the tail waits for that release forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_iter_bad_last_not_released(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 128, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 128);
    if tid == 32 {
        producer4(&pipe, window + 4096, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let n = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        (0..n).enumerate().for_each(|(k, _)| {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            acc += (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            if (k as u32) + 1 < n {
                pipe.consumer_release(&st);
            }
            st.advance();
        });
        *out.add(b as usize * 32 + c) = acc;
    }
}
