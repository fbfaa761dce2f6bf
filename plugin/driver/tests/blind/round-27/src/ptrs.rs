//! Pointer and offset arithmetic: `byte_add`, `offset`, `sub`, integer round trips, 64-bit and
//! 32-bit signed offsets, constant tables, pointer tables, row views, 16-byte quads.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

#[inline(always)]
unsafe fn produce(pipe: &Pipeline<4>, ring: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<4>::producer_start();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut t = b;
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += g;
    }
    pipe.producer_tail(st);
}

macro_rules! prologue {
    ($bars:expr) => {{
        block_threads(64);
        dynamic_shared_bytes(8192);
        let window = dynamic_shared_window_address();
        if thread_idx_x() == 0 {
            Pipeline::<4>::init(window + $bars, 32);
        }
        barrier();
        (window, Pipeline::<4>::attach(window + $bars))
    }};
}

/// Stage pointer by `byte_add` of the stage's bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_byte_add_stage(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(0);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().byte_add(1024);
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.byte_add(st.index() as usize * TILE_BYTES as usize);
            for r in 0..8 {
                acc += *stage.byte_add(r * 128 + tid as usize * 4);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Signed `offset` steps for the stage and the element.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_offset_isize(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(4096 + 1024);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().offset(256) as *const f32;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.offset(st.index() as isize * TILE as isize);
            let mut r: isize = 0;
            while r < 8 {
                acc += *stage.offset(r * 32 + tid as isize);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Stage pointer measured back from the ring's end with `sub`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_sub_from_end(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(64);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 2048, input, tiles);
    } else if tid < 32 {
        let end = dynamic_shared_base::<f32>().add(512 + 4 * TILE) as *const f32;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = end.sub((4 - st.index() as usize) * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Copy destinations and stage offsets computed in `u64`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_u64_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(256);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b as u64;
        while t < tiles as u64 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = (window as u64 + 2048 + st.index() as u64 * 1024) as u32;
            let src = (input as u64 + t * 1024) as *const u8;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g as u64;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<u8>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b as u64;
        while t < tiles as u64 {
            pipe.consumer_wait(&st);
            let off: u64 = 2048 + st.index() as u64 * 1024 + tid as u64 * 4;
            for r in 0..8u64 {
                acc += *(base.add((off + r * 128) as usize) as *const f32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g as u64;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Destinations and stage offsets in signed 32-bit arithmetic.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_i32_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(7168);
    let tid = thread_idx_x() as i32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles as i32 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let off: i32 = 3072 + st.index() as i32 * 1024;
            bulk_copy_global_to_shared((window as i32 + off) as u32, input.offset(t as isize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>() as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles as i32 {
            pipe.consumer_wait(&st);
            let first: i32 = 768 + st.index() as i32 * 256 + tid;
            for r in 0..8i32 {
                acc += *base.offset((first + r * 32) as isize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.offset((b * 32 + tid) as isize) = acc;
    }
}

const STAGE_AT: [u32; 4] = [1024, 2048, 3072, 4096];

/// Stage byte offsets from a constant table, for the copy and for the reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_const_table(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(0);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + STAGE_AT[st.index() as usize], input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.byte_add(STAGE_AT[st.index() as usize] as usize);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Consumers pick their stage from a local array of four stage pointers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_pointer_table(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(5120);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
        let stages: [*const f32; 4] = [ring, ring.add(TILE), ring.add(2 * TILE), ring.add(3 * TILE)];
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages[st.index() as usize];
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Each stage viewed as `[[f32; 32]; 8]` rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_rows_view(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(6144);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256) as *const [[f32; 32]; 8];
        let c = tid as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let rows = ring.add(st.index() as usize);
            for r in 0..8 {
                acc += (*rows)[r][c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// The stage pointer through a `usize` round trip.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_usize_round_trip(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(128);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 4096, input, tiles);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>() as usize;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = (base + 4096 + st.index() as usize * 1024) as *const f32;
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// 16-byte quads: lane `4q + k` reads rows `2k, 2k + 1` of columns `4q..4q + 4`, and segments
/// of four lanes add their rows at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_quad_loads(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(0);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let q = (tid / 4) as usize;
        let k = (tid % 4) as usize;
        let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = [0.0f32; 4];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for rr in 0..2 {
                let quad = *(stage.add((2 * k + rr) * 32 + 4 * q) as *const [f32; 4]);
                for j in 0..4 {
                    acc[j] += quad[j];
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        let mut sums = [0.0f32; 4];
        for j in 0..4 {
            sums[j] = segment_sum(acc[j], 4);
        }
        if k == 0 {
            for j in 0..4 {
                *out.add(b as usize * 32 + 4 * q + j) = sums[j];
            }
        }
    }
}

// ---------------------------------------------------------------- broken

/// Broken: the stage step given to `byte_add` is the tile's float count (256), not its bytes;
/// stages 1 to 3 are read a quarter of the way into stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_bad_byte_add_floats(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(0);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 1104, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().byte_add(1104);
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.byte_add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: measured back from the ring's end with `3 - index` instead of `4 - index`, every
/// read lands one stage late (past the ring for the last stage).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_bad_sub_off_by_one(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(64);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 1568, input, tiles);
    } else if tid < 32 {
        let end = dynamic_shared_base::<f32>().add(392 + 4 * TILE) as *const f32;
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = end.sub((3 - st.index() as usize) * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the 64-bit destination arithmetic leaves out the ring's offset, so stage 0 is copied
/// over the pipeline's own barriers at the window's start.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_bad_u64_ring_on_bars(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(0);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b as u64;
        while t < tiles as u64 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = (window as u64 + st.index() as u64 * 1024) as u32;
            let src = (input as u64 + t * 1024) as *const u8;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g as u64;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<u8>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b as u64;
        while t < tiles as u64 {
            pipe.consumer_wait(&st);
            let off: u64 = st.index() as u64 * 1024 + tid as u64 * 4;
            for r in 0..8u64 {
                acc += *(base.add((off + r * 128) as usize) as *const f32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g as u64;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the ring starts right after three stages' barriers and an 8-byte tile counter, at
/// byte 56: every bulk copy's destination is only 8-byte aligned.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_bad_i32_ring_after_counter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    const BARS: i32 = 16 * STAGES as i32;
    const RING: i32 = BARS + 8;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x() as i32;
    if tid == 0 {
        Pipeline::<STAGES>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles as i32 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let off: i32 = RING + st.index() as i32 * 1024;
            bulk_copy_global_to_shared((window as i32 + off) as u32, input.offset(t as isize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<u8>() as *const u8;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles as i32 {
            pipe.consumer_wait(&st);
            let first: i32 = RING + st.index() as i32 * 1024 + tid * 4;
            for r in 0..8i32 {
                acc += *(base.offset((first + r * 128) as isize) as *const f32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.offset((b * 32 + tid) as isize) = acc;
    }
}

const STAGE_AT_TYPO: [u32; 4] = [2048, 3072, 4096, 1024];

/// Broken: the consumers' constant table of stage offsets is rotated by one against the
/// destinations the producer computes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_bad_table_rotated(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(0);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>();
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.byte_add(STAGE_AT_TYPO[st.index() as usize] as usize);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the consumers turn the 32-bit shared-window address of the stage into a pointer,
/// as if it were the generic address; the loads go to a small generic address and fault.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_bad_window_as_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(128);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, window + 4096, input, tiles);
    } else if tid < 32 {
        let (b, g) = (block_idx_x(), grid_dim_x());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = (window + 4096 + st.index() * TILE_BYTES) as usize as *const f32;
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the bulk copy's global source skips a 2-float header that the input does not have:
/// the source is only 8-byte aligned (and every tile shifted by two floats).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_ptr_bad_source_header(input: *const f32, tiles: u32, out: *mut f32) {
    let (window, pipe) = prologue!(5120);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(2 + t as usize * TILE);
            bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, src as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
