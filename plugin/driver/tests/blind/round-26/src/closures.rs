//! Closures: readers and steps as closures, run by iterator adaptors (`map`, `sum`, `fold`,
//! `for_each`, `step_by`, `chunks`, `skip`), or stored in a struct field.

use core::slice;

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const S: u32 = 4;

#[inline(always)]
fn bars_after_ring<const N: u32>(window: u32) -> u32 {
    window + N * TILE_BYTES
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_map_sum(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<S>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            acc += (0..8usize).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Producer as `(0..mine).for_each`, consumer as `(0..mine).fold`, both closures capturing the
/// state by `&mut`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_fold_and_for_each(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<S>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = (tiles + grid - 1 - block) / grid;
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        (0..mine).for_each(|k| {
            let t = block + k * grid;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let total = (0..mine).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let mut s = 0.0f32;
            for r in 0..8usize {
                s += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            acc + s
        });
        *out.add(block as usize * 32 + c) = total;
    }
}

/// Both roles iterate `(block..tiles).step_by(grid)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_step_by_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 2;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<N>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        for _t in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

struct Reader<F: Fn(*const f32) -> f32> {
    read: F,
}

/// The column reader is a closure stored in a struct field, handed each tile's stage pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_stored_reader(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<S>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let reader = Reader {
            read: |stage: *const f32| {
                let mut s = 0.0f32;
                for r in 0..8usize {
                    s += unsafe { *stage.add(r * 32 + c) };
                }
                s
            },
        };
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += (reader.read)(ring.add(state.index() as usize * TILE_FLOATS));
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// The stage as a slice: `iter().skip(c).step_by(32).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_slice_skip_step(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<N>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            acc += stage.iter().skip(c).step_by(32).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// The stage as a slice cut into rows by `chunks(32)`, each row's element `c` summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_chunks_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<S>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            acc += stage.chunks(32).map(|row| row[c]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// Broken: the reading closure captures the stage pointer computed once before the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_bad_captured_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<S>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let stage = ring.add(state.index() as usize * TILE_FLOATS);
        let column = || (0..8usize).map(|r| unsafe { *stage.add(r * 32 + c) }).sum::<f32>();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += column();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: rows stepped by 33 floats, so the last rows reach into the next stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_bad_row_stride_33(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<S>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            acc += (0..8usize).map(|r| *stage.add(r * 33 + c)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: the column closure maps rows `1..8`, so row 0 is never summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_bad_skips_row_zero(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<S>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            acc += (1..8usize).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: a lazy column iterator is built over the stage, the stage released, then summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_bad_lazy_sum_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 1;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<N>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<N>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<N>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<N>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = slice::from_raw_parts(ring.add(state.index() as usize * TILE_FLOATS), TILE_FLOATS);
            let column = stage.iter().skip(c).step_by(32);
            pipe.consumer_release(&state);
            acc += column.sum::<f32>();
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + c) = acc;
    }
}

/// Broken: the fold closure releases only `if k + 1 < mine`, so the last tile's stage is never
/// released and the producer's tail waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_bad_fold_skips_last_release(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<S>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = (tiles + grid - 1 - block) / grid;
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        (0..mine).for_each(|k| {
            let t = block + k * grid;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let total = (0..mine).fold(0.0f32, |acc, k| {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let s = (0..8usize).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            if k + 1 < mine {
                pipe.consumer_release(&state);
            }
            state.advance();
            acc + s
        });
        *out.add(block as usize * 32 + c) = total;
    }
}

/// Broken: the producer's `for_each` runs over `0..=mine`, one tile more than the consumers take.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_clo_bad_producer_inclusive_range(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = bars_after_ring::<S>(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = (tiles + grid - 1 - block) / grid;
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        (0..=mine).for_each(|k| {
            let t = (block + k * grid) % tiles;
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let mut state = PipelineState::<S>::new();
        let total = (0..mine).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let s = (0..8usize).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            acc + s
        });
        *out.add(block as usize * 32 + c) = total;
    }
}
