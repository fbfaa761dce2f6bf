//! Iterator adaptors over tiles, rows and sources: `take`, `rev`, `map` + `enumerate`, `chain`,
//! `skip` + `step_by`, `fold` carrying the pipeline state, and `for_each` capturing it.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use core::array::from_fn;
use core::slice::from_raw_parts;

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;

#[inline(always)]
unsafe fn start<const S: u32>(bars: u32, init_by: u32) -> Pipeline<S> {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let at = dynamic_shared_window_address() + bars;
    let pipe = if thread_idx_x() == init_by { Pipeline::<S>::init(at, 32) } else { Pipeline::<S>::attach(at) };
    barrier();
    pipe
}

/// How many of `tiles` this block owns: `block, block + grid, …`.
#[inline(always)]
fn owned(tiles: u32) -> u32 {
    let (block, grid) = (block_idx_x(), grid_dim_x());
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

#[inline(always)]
unsafe fn produce_all<const S: u32>(pipe: &Pipeline<S>, ring: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let from = input.add(t as usize * TILE_FLOATS) as *const u8;
        bulk_copy_global_to_shared(ring + state.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
    }
    pipe.producer_tail(state);
}

// ---- correct ----

/// Both roles take exactly `owned(tiles)` tiles: the producer from an endless `step_by` cut with
/// `take`, the consumers from `0..n`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_take_owned(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<4>(0, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let n = owned(tiles);
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (block_idx_x()..).step_by(grid_dim_x() as usize).take(n as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let from = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + 4096 + state.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = smem.add(1024 + state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum += *stage.add(row * 32 + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// Rows summed bottom-up with `(0..8).rev().map(..).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_rows_rev(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<3>(3072, 0);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    if tid == 0 {
        produce_all(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            sum += (0..8).rev().map(|row| *stage.add(row * 32 + column)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// Sources made by `map` over the block's tiles; the consumers `enumerate` the tiles and keep
/// even and odd tiles in two accumulators.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_sources_enumerate(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<5>(7680, 50);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let mine = (block_idx_x()..tiles).step_by(grid_dim_x() as usize);
    if tid == 50 {
        let sources = mine.map(|t| input.add(t as usize * TILE_FLOATS) as *const u8);
        let mut state = PipelineState::<5>::producer_start();
        for from in sources {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<5>::new();
        let mut sums = [0.0f32; 2];
        for (k, _) in mine.enumerate() {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sums[k & 1] += *stage.add(row * 32 + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sums[0] + sums[1];
    }
}

/// The consumers' tiles as the first tile (if any) chained with the rest.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_chain_first(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<2>(1024, 0);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        produce_all(&pipe, window + 2048, input, tiles);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let first = Some(block).filter(|&b| b < tiles);
        let rest = (block + grid..tiles).step_by(grid as usize);
        let mut state = PipelineState::<2>::new();
        let mut sum = 0.0f32;
        for _ in first.into_iter().chain(rest) {
            pipe.consumer_wait(&state);
            let stage = smem.add(512 + state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum += *stage.add(row * 32 + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

/// The column read as `iter().skip(column).step_by(32)` over the held stage's slice.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_skip_step(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<6>(0, 63);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    if tid == 63 {
        produce_all(&pipe, window + 2048, input, tiles);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<6>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let tile = from_raw_parts(smem.add(512 + state.index() as usize * TILE_FLOATS) as *const f32, TILE_FLOATS);
            sum += tile.iter().skip(column).step_by(32).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// The producer's loop in `for_each` capturing its state; the consumers' loop a `fold` whose
/// accumulator carries the state and the running sum.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_fold_and_for_each(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<4>(4096, 0);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    let mine = (block..tiles).step_by(grid as usize);
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        mine.for_each(|t| {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let from = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, from, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let (_, sum) = mine.fold((PipelineState::<4>::new(), 0.0f32), |(mut state, acc), _| {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            let mut part = 0.0f32;
            for row in 0..8 {
                part += *stage.add(row * 32 + column);
            }
            pipe.consumer_release(&state);
            state.advance();
            (state, acc + part)
        });
        *out.add(block as usize * 32 + column) = sum;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_bad_peeled_twice(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<3>(3072, 0);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        produce_all(&pipe, window, input, tiles);
    } else if tid >= 32 && block < tiles {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<3>::new();
        // The first tile on its own: it starts the sum.
        pipe.consumer_wait(&state);
        let stage = smem.add(state.index() as usize * TILE_FLOATS);
        let mut sum = (0..8).map(|row| *stage.add(row * 32 + column)).sum::<f32>();
        pipe.consumer_release(&state);
        state.advance();
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            sum += (0..8).map(|row| *stage.add(row * 32 + column)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_bad_rows_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<4>(4096, 0);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    if tid == 0 {
        produce_all(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            sum += (0..=8).rev().map(|row| *stage.add(row * 32 + column)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_bad_enumerate_slot(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<3>(4096, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let mine = (block_idx_x()..tiles).step_by(grid_dim_x() as usize);
    if tid == 32 {
        produce_all(&pipe, window, input, tiles);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        for (k, _) in mine.enumerate() {
            pipe.consumer_wait(&state);
            let stage = smem.add((k % 4) * TILE_FLOATS);
            for row in 0..8 {
                sum += *stage.add(row * 32 + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_bad_fold_copy(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<4>(4096, 0);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    let mine = (block..tiles).step_by(grid as usize);
    if tid == 0 {
        produce_all(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let state = PipelineState::<4>::new();
        let sum = mine.fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            let part = (0..8).map(|row| *stage.add(row * 32 + column)).sum::<f32>();
            pipe.consumer_release(&state);
            let mut next = state;
            next.advance();
            acc + part
        });
        *out.add(block as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_bad_rev_destinations(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<4>(4096, 0);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        let slots: [u32; 4] = from_fn(|i| window + i as u32 * TILE_BYTES);
        let mut state = PipelineState::<4>::producer_start();
        for (t, &to) in (block..tiles).step_by(grid as usize).zip(slots.iter().rev().cycle()) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let from = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(to, from, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            sum += (0..8).map(|row| *stage.add(row * 32 + column)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_it_bad_output_transposed(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = start::<3>(3072, 0);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    if tid == 0 {
        produce_all(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            sum += (0..8).map(|row| *stage.add(row * 32 + column)).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(column * grid_dim_x() as usize + block_idx_x() as usize) = sum;
    }
}
