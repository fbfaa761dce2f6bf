//! The performance person: many stages, split copies, tiles held in registers.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;

/// Seven stages: as deep as 8 KiB allows with the barriers after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_performance_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 7;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let (mut a0, mut a1) = (0.0f32, 0.0f32);
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            a0 += *stage.add(c) + *stage.add(c + 64) + *stage.add(c + 128) + *stage.add(c + 192);
            a1 += *stage.add(c + 32) + *stage.add(c + 96) + *stage.add(c + 160) + *stage.add(c + 224);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = a0 + a1;
    }
}

/// Each tile as four 256-byte copies on one barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_performance_split_four(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const PARTS: u32 = 4;
    const PART_BYTES: u32 = TILE_BYTES / PARTS;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, PARTS * PART_BYTES);
            let src = input.add(t as usize * TILE_FLOATS).cast::<u8>();
            let dst = window + st.index() * TILE_BYTES;
            let bar = pipe.producer_barrier(&st);
            for p in 0..PARTS {
                bulk_copy_global_to_shared(dst + p * PART_BYTES, src.add((p * PART_BYTES) as usize), PART_BYTES, bar);
            }
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(c + 32 * k);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// The consumer loads its eight values into registers, releases at once, then adds.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_performance_register_tile(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 6;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            let mut regs = [0.0f32; 8];
            unrolled!(K < 8 => {
                regs[K] = *stage.add(c + 32 * K);
            });
            pipe.consumer_release(&st);
            st.advance();
            unrolled!(K < 8 => {
                acc += regs[K];
            });
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Every thread consumes (64 releases per stage); thread 0 also produces, `S` tiles ahead,
/// refilling each stage right after its own release of it. Warp `w` sums rows `4w..4w+4`;
/// the halves meet in a scratch area after the barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_performance_fused_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const BARS: u32 = S * TILE_BYTES;
    const SCRATCH: u32 = BARS + 2 * 8 * S;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<S>::init(window + BARS, 64);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + BARS);
    let first = block_idx_x();
    let stride = grid_dim_x();
    let mut pst = PipelineState::<S>::producer_start();
    let mut tp = first;
    if tid == 0 {
        for _ in 0..S {
            if tp < tiles {
                pipe.producer_acquire(&pst);
                pipe.producer_expect_tx(&pst, TILE_BYTES);
                bulk_copy_global_to_shared(window + pst.index() * TILE_BYTES, input.add(tp as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&pst));
                pst.advance();
                tp += stride;
            }
        }
    }
    let c = (tid & 31) as usize;
    let row0 = 4 * (tid >> 5) as usize;
    let mut cst = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut tc = first;
    while tc < tiles {
        pipe.consumer_wait(&cst);
        let stage = smem.add(cst.index() as usize * TILE_FLOATS);
        for k in 0..4 {
            acc += *stage.add(c + 32 * (row0 + k));
        }
        pipe.consumer_release(&cst);
        cst.advance();
        tc += stride;
        if tid == 0 && tp < tiles {
            pipe.producer_acquire(&pst);
            pipe.producer_expect_tx(&pst, TILE_BYTES);
            bulk_copy_global_to_shared(window + pst.index() * TILE_BYTES, input.add(tp as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&pst));
            pst.advance();
            tp += stride;
        }
    }
    if tid == 0 {
        pipe.producer_tail(pst);
    }
    let scratch = smem.add((SCRATCH / 4) as usize);
    if tid >= 32 {
        *scratch.add(c) = acc;
    }
    barrier();
    if tid < 32 {
        *out.add(first as usize * 32 + c) = acc + *scratch.add(c);
    }
}

/// BROKEN: eight stages fill the whole 8 KiB, and the barriers go right after them, past the
/// end of the dynamic shared memory the launch gives.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_performance_eight_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 8;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(c + 32 * k);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// BROKEN: the register-tile trick, but only the first half is loaded before the release;
/// the second half is read from the stage after it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_performance_half_loaded_before_release(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 6;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            let mut regs = [0.0f32; 4];
            unrolled!(K < 4 => {
                regs[K] = *stage.add(c + 32 * K);
            });
            pipe.consumer_release(&st);
            unrolled!(K < 4 => {
                acc += regs[K] + *stage.add(c + 32 * (K + 4));
            });
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// BROKEN: "fewer, bigger copies": each stage's copy moves two tiles (2 KiB) into a 1 KiB
/// stage, writing over the next stage, which may hold a tile not yet read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_performance_copy_spans_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const RING: u32 = 1024;
    const COPY_BYTES: u32 = 2 * TILE_BYTES;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bytes = dynamic_shared_base::<u8>();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, COPY_BYTES);
            let src = input.add(t as usize * TILE_FLOATS).cast::<u8>();
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src, COPY_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = bytes.add((RING + st.index() * TILE_BYTES) as usize).cast::<f32>();
            for k in 0..8 {
                acc += *stage.add(c + 32 * k);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// BROKEN: the producer "prefetches into the next slot": its copy lands in stage
/// `(index + 1) % S`, not the stage it acquired.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r7_performance_prefetch_next_slot(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 5;
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let slot = (st.index() + 1) % S;
            bulk_copy_global_to_shared(window + slot * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            for k in 0..8 {
                acc += *stage.add(c + 32 * k);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}
