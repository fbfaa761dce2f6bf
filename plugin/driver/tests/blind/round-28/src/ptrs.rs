//! Raw-pointer arithmetic of many kinds: `byte_add`, `offset`, integer round trips, shifted
//! window addresses, tables of stage pointers, volatile reads, pointers walked back from a
//! stage's end.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TB: u32 = 1024;
const TF: usize = 256;

macro_rules! standard_producer {
    ($pipe:ident, $S:literal, $window:expr, $input:expr, $tiles:expr, $dest:expr) => {{
        let mut st = PipelineState::<$S>::producer_start();
        let mut t = block_idx_x();
        while t < $tiles {
            $pipe.producer_acquire(&st);
            $pipe.producer_expect_tx(&st, TB);
            let dst: u32 = $dest(&st);
            bulk_copy_global_to_shared(dst, $input.add(t as usize * TF) as *const u8, TB, $pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        $pipe.producer_tail(st);
    }};
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_byte_add(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bytes = dynamic_shared_base::<u8>();
    let bars = window + 4 * TB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 4, window, input, tiles, |s: &PipelineState<4>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = bytes.byte_add(st.index() as usize * TB as usize) as *const f32;
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_offset_isize(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + 3 * TB;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 3, window, input, tiles, |s: &PipelineState<3>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = (tid - 32) as isize;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.offset(st.index() as isize * TF as isize);
            let mut r: isize = 0;
            while r < 8 {
                acc += *stage.offset(r * 32 + col);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_usize_roundtrip(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as usize;
    let bars = window + 4 * TB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 4, window, input, tiles, |s: &PipelineState<4>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = (base + st.index() as usize * TB as usize) as *const f32;
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_shifted_destination(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + (2 << 10);
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 2, window, input, tiles, |s: &PipelineState<2>| window + (s.index() << 10));
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() as usize) << 8);
            for r in 0..8 {
                acc += *stage.add((r << 5) + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_stage_table(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + 4 * TB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 4, window, input, tiles, |s: &PipelineState<4>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let stages: [*const f32; 4] = [base, base.add(TF), base.add(2 * TF), base.add(3 * TF)];
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages[st.index() as usize];
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_read_volatile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 6 * TB;
    if tid == 0 {
        Pipeline::<6>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<6>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 6, window, input, tiles, |s: &PipelineState<6>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<6>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TF);
            for r in 0..8 {
                acc += core::ptr::read_volatile(stage.add(r * 32 + col));
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_walk_back_from_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 3 * TB;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 3, window, input, tiles, |s: &PipelineState<3>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            // last row's element of the column, then walk up a row at a time
            let mut p = ring.add(st.index() as usize * TF + 7 * 32 + col);
            acc += *p;
            for _ in 0..7 {
                p = p.sub(32);
                acc += *p;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// The stage table is built one entry rotated: entry `s` points at stage `s + 1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_bad_rotated_table(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + 4 * TB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 4, window, input, tiles, |s: &PipelineState<4>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let stages: [*const f32; 4] = [base.add(TF), base.add(2 * TF), base.add(3 * TF), base];
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages[st.index() as usize];
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// The destination shifts the stage index by 9 (512-byte stages) while the copies are 1 KiB:
/// each copy overwrites half of the next stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_bad_shift_nine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + (4 << 10);
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 4, window, input, tiles, |s: &PipelineState<4>| window + (s.index() << 9));
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() as usize) << 7);
            for r in 0..8 {
                acc += *stage.add((r << 5) + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// `byte_add` is handed the stage's offset in floats: stage `s` is read at byte `256·s`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_bad_byte_add_in_floats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 4, window, input, tiles, |s: &PipelineState<4>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.byte_add(st.index() as usize * TF);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// The consumers build their stage pointer from the 32-bit window address (the copy's
/// operand) instead of the generic shared pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_bad_window_as_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 2 * TB;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 2, window, input, tiles, |s: &PipelineState<2>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = (window + st.index() * TB) as usize as *const f32;
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// The first row is read "early", before the wait, to overlap it with the barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_bad_prefetch_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: usize = 3072;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().wrapping_add(RING / 4);
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    if tid == 0 {
        standard_producer!(pipe, 4, window, input, tiles, |s: &PipelineState<4>| window + RING as u32 + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let stage = ring.add(st.index() as usize * TF);
            let first = core::ptr::read_volatile(stage.add(col));
            pipe.consumer_wait(&st);
            let mut s = first;
            for r in 1..8 {
                s += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            acc += s;
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// Walking back from the stage's end, the first element read is `end - (r * 32 + col)` with
/// `r = 0`: column 0 reads the first float of the next stage, and every column is mirrored.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_ptr_bad_end_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 3 * TB;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    if tid == 0 {
        standard_producer!(pipe, 3, window, input, tiles, |s: &PipelineState<3>| window + s.index() * TB);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let end = ring.add(st.index() as usize * TF + TF);
            for r in 0..8 {
                acc += *end.sub(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}
