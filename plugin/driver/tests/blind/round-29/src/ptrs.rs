//! Raw pointers and slices: a stage viewed as an array of rows, `byte_add`, slices from
//! `from_raw_parts` indexed and `get_unchecked`, a walking pointer, volatile reads and writes.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// The standard producer loop of a four-stage ring at window byte `ring`.
#[inline(always)]
unsafe fn feed(pipe: &Pipeline<4>, ring: u32, input: *const f32, tiles: u32) {
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
}

/// Each stage viewed as `&[[f32; 32]; 8]`; the column is a `map` over its rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_rows_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        feed(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let rows = &*(stages.add(st.index() as usize * TILE) as *const [[f32; 32]; 8]);
            acc += rows.iter().map(|row| row[c]).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Stage pointers stepped in bytes with `byte_add`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_byte_add(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        feed(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().byte_add(1024) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.byte_add(st.index() as usize * TILE_BYTES as usize);
            for r in 0..8 {
                acc += *stage.byte_add(r * 128 + 4 * tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// The stage as a slice from `from_raw_parts`, indexed by row and column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_slice_indexed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        feed(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = core::slice::from_raw_parts(stages.add(st.index() as usize * TILE), TILE);
            for r in 0..8 {
                acc += tile[r * 32 + c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// The stage as a slice read with `get_unchecked`; warp 1 consumes, thread 0 copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_get_unchecked(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    barrier();
    if tid == 0 {
        feed(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = core::slice::from_raw_parts(ring.add(st.index() as usize * TILE), TILE);
            for r in 0..8 {
                acc += *tile.get_unchecked(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// A pointer walks down the column a row at a time until it reaches the stage's end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_walk_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        feed(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            let end = stage.add(TILE);
            let mut p = stage.add(tid as usize);
            while p < end {
                acc += *p;
                p = p.add(32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Volatile reads of the stage and a `write` of the result.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_volatile_reads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 63 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 63 {
        feed(&pipe, window + 2048, input, tiles);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE + tid as usize);
            for r in 0..8 {
                acc += core::ptr::read_volatile(stage.add(r * 32));
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        out.add((block_idx_x() * 32 + tid) as usize).write(acc);
    }
}

/// The walking pointer takes one step more than the tile has rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_bad_walk_nine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        feed(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            let end = stage.add(TILE);
            let mut p = stage.add(tid as usize);
            while p <= end {
                acc += *p;
                p = p.add(32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// The stage pointer is one tile back from the next state's stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_bad_back_from_next(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        feed(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let mut next = st;
            next.advance();
            let stage = stages.add(next.index() as usize * TILE).sub(TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st = next;
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Stage pointers scaled by the tile's bytes on a float pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_bad_bytes_as_floats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        feed(&pipe, window + 2048, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_BYTES as usize);
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

/// The consumers keep their own stage pointer, stepping it a tile at a time and wrapping it
/// after three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_bad_own_pointer_wrap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        feed(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
        let last = ring.add(3 * TILE);
        let mut stage = ring;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            stage = stage.add(TILE);
            if stage == last {
                stage = ring;
            }
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Results written transposed, at `c * 8 + b`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_bad_out_transposed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        feed(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = core::slice::from_raw_parts(stages.add(st.index() as usize * TILE), TILE);
            for r in 0..8 {
                acc += tile[r * 32 + c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(c * grid_dim_x() as usize + block_idx_x() as usize) = acc;
    }
}

/// The copy source skips a 4-byte header in front of each tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_ptr_bad_source_header(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let bytes = input as *const u8;
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, bytes.add(t as usize * TILE_BYTES as usize + 4), TILE_BYTES, pipe.producer_barrier(&st));
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
