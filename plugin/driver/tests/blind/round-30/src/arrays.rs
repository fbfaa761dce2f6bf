//! Arrays and slices: stage and destination tables built with `core::array::from_fn`, an array
//! of two pipelines, a stage seen as `[[f32; 32]; 8]` rows, slices over a stage or the ring cut
//! with `split_at` and `chunks_exact`, and per-row partials kept in an array.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};
use core::array::from_fn;
use core::slice::from_raw_parts;

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROW: usize = 32;

#[inline(always)]
unsafe fn source(input: *const f32, tile: u32) -> *const u8 {
    input.add(tile as usize * TILE_FLOATS) as *const u8
}

/// The launch contract, and the barriers at window byte `bars` set up by thread 0.
#[inline(always)]
unsafe fn prologue<const S: u32>(bars: u32, consumers: u32) -> Pipeline<S> {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let at = dynamic_shared_window_address() + bars;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(at, consumers);
    }
    barrier();
    Pipeline::<S>::attach(at)
}

// ---- correct ----

/// Destinations and stage pointers tabled once with `array::from_fn`; four stages at byte 2048.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_from_fn_tables(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: usize = 2048;
    let pipe = prologue::<4>(6144, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        let destinations: [u32; 4] = from_fn(|i| window + RING as u32 + i as u32 * TILE_BYTES);
        let mut state = PipelineState::<4>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let to = destinations[state.index() as usize];
            bulk_copy_global_to_shared(to, source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let stages: [*const f32; 4] = from_fn(|i| smem.add(RING / 4 + i * TILE_FLOATS) as *const f32);
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let stage = stages[state.index() as usize];
            for row in 0..8 {
                sum += *stage.add(row * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// The held stage as a slice, cut in two halves with `split_at`, rows walked with
/// `chunks_exact(32)` chained over both halves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_split_halves(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = prologue::<3>(3072, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 63 {
        let mut state = PipelineState::<3>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let tile = from_raw_parts(smem.add(state.index() as usize * TILE_FLOATS) as *const f32, TILE_FLOATS);
            let (top, bottom) = tile.split_at(TILE_FLOATS / 2);
            sum += top.chunks_exact(ROW).chain(bottom.chunks_exact(ROW)).map(|row| row[column]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// An array of two pipelines, each a two-stage ring with its own barriers: the block's even
/// tiles go through the first and its odd tiles through the second.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_two_pipelines(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    let pipes: [Pipeline<2>; 2] = from_fn(|p| {
        let at = window + 4096 + p as u32 * 32;
        if tid == 0 { Pipeline::<2>::init(at, 32) } else { Pipeline::<2>::attach(at) }
    });
    barrier();
    if tid == 32 {
        let mut states = [PipelineState::<2>::producer_start(); 2];
        for (k, t) in (block..tiles).step_by(grid as usize).enumerate() {
            let p = k & 1;
            let state = &mut states[p];
            pipes[p].producer_acquire(state);
            pipes[p].producer_expect_tx(state, TILE_BYTES);
            let to = window + p as u32 * 2048 + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(to, source(input, t), TILE_BYTES, pipes[p].producer_barrier(state));
            state.advance();
        }
        for (pipe, state) in pipes.iter().zip(states) {
            pipe.producer_tail(state);
        }
    } else if tid < 32 {
        let column = tid as usize;
        let mut states = [PipelineState::<2>::new(); 2];
        let mut sum = 0.0f32;
        for (k, _) in (block..tiles).step_by(grid as usize).enumerate() {
            let p = k & 1;
            let state = &mut states[p];
            pipes[p].consumer_wait(state);
            let stage = smem.add(p * 512 + state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum += *stage.add(row * ROW + column);
            }
            pipes[p].consumer_release(state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// The stage viewed as eight rows of 32 floats through a pointer cast; five stages at 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_rows_view(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = prologue::<5>(0, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<5>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + 1024 + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<5>::new();
        let mut sum = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let rows = &*(smem.add(256 + state.index() as usize * TILE_FLOATS) as *const [[f32; ROW]; 8]);
            sum += rows.iter().map(|row| row[column]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// Per-row partials in an array, folded once at the end; seven stages, barriers at the top.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_row_partials(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = prologue::<7>(8192 - 112, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 1 {
        let mut state = PipelineState::<7>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut partial = [0.0f32; 8];
        let mut state = PipelineState::<7>::new();
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * TILE_FLOATS);
            for (row, p) in partial.iter_mut().enumerate() {
                *p += *stage.add(row * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * ROW + column) = partial.iter().sum();
    }
}

/// The whole ring as one slice, the held stage a sub-slice of it; sixteen consumers sum two
/// columns each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_ring_slice_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: usize = 2;
    let pipe = prologue::<2>(0, 16);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        let destinations: [u32; STAGES] = from_fn(|i| window + 4096 + i as u32 * TILE_BYTES);
        let mut state = PipelineState::<2>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(destinations[state.index() as usize], source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if (32..48).contains(&tid) {
        let lane = (tid - 32) as usize;
        let ring = from_raw_parts(smem.add(1024) as *const f32, STAGES * TILE_FLOATS);
        let mut sums = (0.0f32, 0.0f32);
        let mut state = PipelineState::<2>::new();
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let at = state.index() as usize * TILE_FLOATS;
            let stage = &ring[at..at + TILE_FLOATS];
            for row in stage.chunks_exact(ROW) {
                sums.0 += row[lane];
                sums.1 += row[lane + 16];
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        let dst = out.add(block as usize * ROW);
        *dst.add(lane) = sums.0;
        *dst.add(lane + 16) = sums.1;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_bad_table_base(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = prologue::<4>(0, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 0 {
        let destinations: [u32; 4] = from_fn(|i| window + (i as u32 + 1) * TILE_BYTES);
        let mut state = PipelineState::<4>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(destinations[state.index() as usize], source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let stages: [*const f32; 4] = from_fn(|i| smem.add(i * TILE_FLOATS) as *const f32);
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let stage = stages[state.index() as usize];
            for row in 0..8 {
                sum += *stage.add(row * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_bad_split_rest(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = prologue::<4>(4096, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 63 {
        let mut state = PipelineState::<4>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let ring = from_raw_parts(smem as *const f32, 4 * TILE_FLOATS);
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let (_, stage) = ring.split_at(state.index() as usize * TILE_FLOATS);
            sum += stage.chunks_exact(ROW).map(|row| row[column]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_bad_release_first_pipe(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    let pipes: [Pipeline<2>; 2] = from_fn(|p| {
        let at = window + 4096 + p as u32 * 32;
        if tid == 0 { Pipeline::<2>::init(at, 32) } else { Pipeline::<2>::attach(at) }
    });
    barrier();
    if tid == 32 {
        let mut states = [PipelineState::<2>::producer_start(); 2];
        for (k, t) in (block..tiles).step_by(grid as usize).enumerate() {
            let p = k & 1;
            let state = &mut states[p];
            pipes[p].producer_acquire(state);
            pipes[p].producer_expect_tx(state, TILE_BYTES);
            let to = window + p as u32 * 2048 + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(to, source(input, t), TILE_BYTES, pipes[p].producer_barrier(state));
            state.advance();
        }
        for (pipe, state) in pipes.iter().zip(states) {
            pipe.producer_tail(state);
        }
    } else if tid < 32 {
        let column = tid as usize;
        let mut states = [PipelineState::<2>::new(); 2];
        let mut sum = 0.0f32;
        for (k, _) in (block..tiles).step_by(grid as usize).enumerate() {
            let p = k & 1;
            let state = &mut states[p];
            let pipe = &pipes[p];
            pipe.consumer_wait(state);
            let stage = smem.add(p * 512 + state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum += *stage.add(row * ROW + column);
            }
            pipes[0].consumer_release(state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_bad_padded_rows(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = prologue::<5>(0, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut state = PipelineState::<5>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + 1024 + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<5>::new();
        let mut sum = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let rows = &*(smem.add(256 + state.index() as usize * TILE_FLOATS) as *const [[f32; ROW + 1]; 8]);
            sum += rows.iter().map(|row| row[column]).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_bad_packed_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    let pipes: [Pipeline<2>; 2] = from_fn(|p| {
        let at = window + 4096 + p as u32 * 16;
        if tid == 0 { Pipeline::<2>::init(at, 32) } else { Pipeline::<2>::attach(at) }
    });
    barrier();
    if tid == 32 {
        let mut states = [PipelineState::<2>::producer_start(); 2];
        for (k, t) in (block..tiles).step_by(grid as usize).enumerate() {
            let p = k & 1;
            let state = &mut states[p];
            pipes[p].producer_acquire(state);
            pipes[p].producer_expect_tx(state, TILE_BYTES);
            let to = window + p as u32 * 2048 + state.index() * TILE_BYTES;
            bulk_copy_global_to_shared(to, source(input, t), TILE_BYTES, pipes[p].producer_barrier(state));
            state.advance();
        }
        for (pipe, state) in pipes.iter().zip(states) {
            pipe.producer_tail(state);
        }
    } else if tid < 32 {
        let column = tid as usize;
        let mut states = [PipelineState::<2>::new(); 2];
        let mut sum = 0.0f32;
        for (k, _) in (block..tiles).step_by(grid as usize).enumerate() {
            let p = k & 1;
            let state = &mut states[p];
            pipes[p].consumer_wait(state);
            let stage = smem.add(p * 512 + state.index() as usize * TILE_FLOATS);
            for row in 0..8 {
                sum += *stage.add(row * ROW + column);
            }
            pipes[p].consumer_release(state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_arr_bad_zip_halves(input: *const f32, tiles: u32, out: *mut f32) {
    let pipe = prologue::<3>(3072, 32);
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let (tid, block, grid) = (thread_idx_x(), block_idx_x(), grid_dim_x());
    if tid == 63 {
        let mut state = PipelineState::<3>::producer_start();
        for t in (block..tiles).step_by(grid as usize) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        for _ in (block..tiles).step_by(grid as usize) {
            pipe.consumer_wait(&state);
            let tile = from_raw_parts(smem.add(state.index() as usize * TILE_FLOATS) as *const f32, TILE_FLOATS);
            let (top, bottom) = tile.split_at(TILE_FLOATS / 2);
            sum += top.iter().zip(bottom).step_by(ROW).skip(column).map(|(a, b)| a + b).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}
