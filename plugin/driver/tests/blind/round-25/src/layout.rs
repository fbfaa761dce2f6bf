//! Shared-memory layouts written in different ways: a #[repr(C)] struct with offset_of!, byte
//! pointers, typed tile pointers, size_of, shifts, a ring at the window's end.

use core::mem::{offset_of, size_of};

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

type Tile = [f32; 256];
const TILE_BYTES: u32 = size_of::<Tile>() as u32;

#[repr(C)]
struct Smem4 {
    ring: [Tile; 4],
    bars: [u64; 8],
}

#[inline(always)]
unsafe fn src_tile(input: *const f32, t: u32) -> *const u8 {
    input.cast::<Tile>().add(t as usize).cast()
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_repr_c_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const BARS: u32 = offset_of!(Smem4, bars) as u32;
    let smem = dynamic_shared_base::<Smem4>();
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARS);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + offset_of!(Smem4, ring) as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src_tile(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile: *const Tile = (&raw const (*smem).ring).cast::<Tile>().add(st.index() as usize);
            for r in 0..8 {
                acc += (*tile)[r * 32 + tid as usize];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_byte_pointer_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const RING: usize = 1024;
    const ROW: usize = 128;
    let window = dynamic_shared_window_address();
    let bytes = dynamic_shared_base::<u8>();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + (RING + st.index() as usize * TILE_BYTES as usize) as u32,
                input.cast::<u8>().add(t as usize * TILE_BYTES as usize),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let col_bytes = tid as usize * size_of::<f32>();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = bytes.add(RING + st.index() as usize * TILE_BYTES as usize);
            for r in 0..8 {
                acc += *stage.add(r * ROW + col_bytes).cast::<f32>();
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_typed_tile_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let ring = dynamic_shared_base::<Tile>();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src_tile(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &*ring.add(st.index() as usize);
            let c = tid as usize;
            acc += tile[c] + tile[c + 32] + tile[c + 64] + tile[c + 96] + tile[c + 128] + tile[c + 160] + tile[c + 192] + tile[c + 224];
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_ring_at_window_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const WINDOW: u32 = 8192;
    const RING_AT: u32 = WINDOW - S * TILE_BYTES;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING_AT + st.index() * TILE_BYTES, src_tile(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().byte_add(RING_AT as usize);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * 256 + tid as usize);
            for r in 0..8 {
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_shifted_indices(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING_OFF: u32 = 2048;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 1024;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << 10);
            bulk_copy_global_to_shared(window + RING_OFF + (st.index() << 10), input.add((t as usize) << 8).cast(), 1 << 10, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add((RING_OFF >> 2) as usize);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = ring.add(((st.index() as usize) << 8) | tid as usize);
            for r in 0..8usize {
                acc += *p.add(r << 5);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(((b << 5) | tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_bad_barriers_after_flag_word(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    // a 4-byte flag word, then the barriers
    const BARS: u32 = offset_of!(Smem4, bars) as u32 + size_of::<u32>() as u32;
    let smem = dynamic_shared_base::<Smem4>();
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARS);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + offset_of!(Smem4, ring) as u32 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, src_tile(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile: *const Tile = (&raw const (*smem).ring).cast::<Tile>().add(st.index() as usize);
            for r in 0..8 {
                acc += (*tile)[r * 32 + tid as usize];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[repr(C)]
struct SmemBarsFirst {
    bars: [u64; 16],
    ring: [Tile; 8],
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_bad_struct_eight_stages_after_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 8;
    const RING: u32 = offset_of!(SmemBarsFirst, ring) as u32;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + offset_of!(SmemBarsFirst, bars) as u32, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src_tile(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<SmemBarsFirst>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &(*smem).ring[st.index() as usize];
            for r in 0..8 {
                acc += tile[r * 32 + tid as usize];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_bad_ring_end_off_by_a_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const WINDOW: u32 = 8192;
    const RING_AT: u32 = WINDOW - (S - 1) * TILE_BYTES;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING_AT + st.index() * TILE_BYTES, src_tile(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().byte_add(RING_AT as usize);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * 256 + tid as usize);
            for r in 0..8 {
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_bad_copy_shift_nine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING_OFF: u32 = 2048;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 1024;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1 << 10);
            bulk_copy_global_to_shared(window + RING_OFF + (st.index() << 9), input.add((t as usize) << 8).cast(), 1 << 10, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add((RING_OFF >> 2) as usize);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = ring.add(((st.index() as usize) << 8) | tid as usize);
            for r in 0..8usize {
                acc += *p.add(r << 5);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(((b << 5) | tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_lay_bad_byte_pointer_column_unscaled(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const RING: usize = 1024;
    const ROW: usize = 128;
    let window = dynamic_shared_window_address();
    let bytes = dynamic_shared_base::<u8>();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + (RING + st.index() as usize * TILE_BYTES as usize) as u32,
                input.cast::<u8>().add(t as usize * TILE_BYTES as usize),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = bytes.add(RING + st.index() as usize * TILE_BYTES as usize);
            for r in 0..8 {
                acc += *stage.add(r * ROW + tid as usize).cast::<f32>();
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
