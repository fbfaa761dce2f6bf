//! Iterators and slices: tile loops over ranges and adaptors, stages viewed as slices and rows.

use core::slice;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROW_BYTES: u32 = 128;

type Rows = [[f32; 32]; 8];

#[inline(always)]
fn my_tiles(tiles: u32) -> core::iter::StepBy<core::ops::Range<u32>> {
    (block_idx_x()..tiles).step_by(grid_dim_x() as usize)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_slice_skip_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(smem.add(st.index() as usize * TILE), TILE);
            acc += stage.iter().skip(tid as usize).step_by(32).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_chunks_exact_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    const RING: usize = 1024;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING as u32 + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(RING).cast::<f32>();
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(ring.add(st.index() as usize * TILE), TILE);
            for row in stage.chunks_exact(32) {
                acc += row[c];
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_rows_array_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let bars = window + 5 * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<Rows>();
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let rows: &Rows = &*ring.add(st.index() as usize);
            acc += rows.iter().map(|row| row[c]).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32) as usize + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_while_let_row_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 2 * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut it = my_tiles(tiles);
        while let Some(t) = it.next() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE).cast::<u8>();
            for row in 0..8u32 {
                bulk_copy_global_to_shared(
                    window + st.index() * TILE_BYTES + row * ROW_BYTES,
                    src.add((row * ROW_BYTES) as usize),
                    ROW_BYTES,
                    pipe.producer_barrier(&st),
                );
            }
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut it = my_tiles(tiles);
        while let Some(_t) = it.next() {
            pipe.consumer_wait(&st);
            let p = smem.add(st.index() as usize * TILE + tid as usize);
            for r in (0..8).rev() {
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_enumerate_tiles_rows_zip(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 7168;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = tiles.saturating_sub(b).div_ceil(g) as usize;
    const RING: u32 = 2048;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for (k, t) in (0..mine).zip((b..tiles).step_by(g as usize)) {
            let _ = k;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = [0.0f32; 8];
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for (r, a) in acc.iter_mut().enumerate() {
                *a += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc.iter().sum();
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_bad_slice_with_ninth_row(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    // rows plus one spare row of padding
    const VIEW: usize = TILE + 32;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(smem.add(st.index() as usize * TILE), VIEW);
            acc += stage.iter().skip(tid as usize).step_by(32).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_bad_views_summed_after_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    const RING: usize = 1024;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING as u32 + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(RING).cast::<f32>();
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut seen: [&[f32]; 8] = [&[]; 8];
        let mut n = 0;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            if n < 8 {
                seen[n] = slice::from_raw_parts(ring.add(st.index() as usize * TILE), TILE);
                n += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        let acc: f32 = seen[..n].iter().map(|tile| tile.chunks_exact(32).map(|row| row[c]).sum::<f32>()).sum();
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_bad_consumer_skips_first_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let bars = window + 5 * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in (b..tiles).step_by(g as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<Rows>();
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        // tiles after our first one
        for _ in (b..tiles).step_by(g as usize).skip(1) {
            pipe.consumer_wait(&st);
            let rows: &Rows = &*ring.add(st.index() as usize);
            acc += rows.iter().map(|row| row[c]).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32) as usize + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_bad_row_copies_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 2 * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut it = my_tiles(tiles);
        while let Some(t) = it.next() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE).cast::<u8>();
            for row in 1..8u32 {
                bulk_copy_global_to_shared(
                    window + st.index() * TILE_BYTES + row * ROW_BYTES,
                    src.add((row * ROW_BYTES) as usize),
                    ROW_BYTES,
                    pipe.producer_barrier(&st),
                );
            }
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut it = my_tiles(tiles);
        while let Some(_t) = it.next() {
            pipe.consumer_wait(&st);
            let p = smem.add(st.index() as usize * TILE + tid as usize);
            for r in (0..8).rev() {
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_iter_bad_consecutive_run_for_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    const RING: usize = 1024;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in my_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING as u32 + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(RING).cast::<f32>();
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in my_tiles(tiles) {
            pipe.consumer_wait(&st);
            let stage = slice::from_raw_parts(ring.add(st.index() as usize * TILE), TILE);
            acc += stage.iter().skip(c * 8).take(8).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}
