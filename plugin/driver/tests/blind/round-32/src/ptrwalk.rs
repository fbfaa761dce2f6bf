//! Pointer arithmetic: stages located with `add`/`byte_add`, columns walked by stepping a
//! pointer a row at a time (forwards against an end pointer, or backwards with `sub` and
//! `offset_from`), rows viewed through `*const [f32; 32]`, sources walked with `wrapping_add`,
//! and window addresses recovered from pointer distances.
//!
//! Every kernel: barriers at window byte 0 (unless it says otherwise), a ring of 1 KiB
//! stages, thread 0 produces, threads 32..63 consume (consumer `c = tid - 32` sums column `c`).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;
const CONSUMERS: u32 = 32;

/// Four stages at byte 1024; each consumer walks its column with a pointer up to the stage's end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_walk_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let end = stage.add(TILE_FLOATS);
            let mut p = stage.add(c);
            while p < end {
                acc += *p;
                p = p.wrapping_add(COLS);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Three stages at byte 4096; the stage pointer is the window's base moved by `byte_add`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_byte_add_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 4096;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, CONSUMERS) } else { Pipeline::<3>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let base = dynamic_shared_base::<f32>() as *const f32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.byte_add((RING + st.index() * TILE_BYTES) as usize);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 256; consumers index the held stage as an array of row pointers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_row_pointers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 256;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let rows = ring.add(st.index() as usize * TILE_FLOATS) as *const [f32; 32];
            for r in 0..ROWS {
                acc += (*rows.add(r))[c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; the producer walks its source pointer by the grid's stride.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_source_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let stride = grid_dim_x() as usize * TILE_FLOATS;
        let mut src = input.wrapping_add(block_idx_x() as usize * TILE_FLOATS);
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            src = src.wrapping_add(stride);
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        let dst = out.add(block_idx_x() as usize * COLS).add(c);
        *dst = acc;
    }
}

/// Four stages at byte 1024; consumers walk their column from the last row back with `sub`,
/// stopping once `offset_from` says the pointer is in the first row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_reverse_walk(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let mut p = stage.add((ROWS - 1) * COLS + c);
            loop {
                acc += *p;
                if p.offset_from(stage) < COLS as isize {
                    break;
                }
                p = p.sub(COLS);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; the stage pointer is moved by `byte_add` of the stage's floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_bad_byte_add_floats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.byte_add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; the column walk runs while the pointer is at or before the
/// stage's end pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_bad_walk_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let last = stage.add(ROWS * COLS);
            let mut p = stage.add(c);
            while p <= last {
                acc += *p;
                p = p.wrapping_add(COLS);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; the backward column walk starts from the stage's end row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_bad_reverse_from_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let mut p = stage.add(ROWS * COLS + c);
            loop {
                acc += *p;
                if p.offset_from(stage) < COLS as isize {
                    break;
                }
                p = p.sub(COLS);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 4096 with the barriers placed right after the ring's last stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_bad_barriers_after_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: usize = 4096;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let ring = base.byte_add(RING);
    let bars = ring.add(4 * TILE_FLOATS);
    let bars_window = window + bars.cast::<u8>().offset_from(base.cast::<u8>()) as u32;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars_window, CONSUMERS) } else { Pipeline::<4>::attach(bars_window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(window + RING as u32 + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; consumers load the first row of their column before the wait,
/// to start the sum early, and the other rows after it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_ptr_bad_read_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src.cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let mut p = stage.add(c);
            let first = *p;
            pipe.consumer_wait(&st);
            acc += first;
            for _ in 1..ROWS {
                p = p.add(COLS);
                acc += *p;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}
