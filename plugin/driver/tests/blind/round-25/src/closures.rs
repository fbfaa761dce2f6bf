//! Closures: stage pointers, copies and column sums written as closures over the kernel's locals.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const FLOATS: usize = 256;
const BYTES: u32 = 1024;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_stage_and_dest_closures(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let dest = |st: &PipelineState<S>| window + st.index() * BYTES;
    let stage = |st: &PipelineState<S>| smem.add(st.index() as usize * FLOATS) as *const f32;
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(dest(&st), input.add(t as usize * FLOATS) as *const u8, BYTES, pipe.producer_barrier(&st));
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
            let p = stage(&st);
            for r in 0..8 {
                acc += *p.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_step_closures_mut_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + 3072, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + 3072);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut copy_one = |t: u32| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * FLOATS).cast(), BYTES, pipe.producer_barrier(&st));
            st.advance();
        };
        let mut t = b;
        while t < tiles {
            copy_one(t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let col = tid as usize;
        let mut take_one = || -> f32 {
            pipe.consumer_wait(&st);
            let p = smem.add(st.index() as usize * FLOATS + col);
            let s = *p + *p.add(32) + *p.add(64) + *p.add(96) + *p.add(128) + *p.add(160) + *p.add(192) + *p.add(224);
            pipe.consumer_release(&st);
            st.advance();
            s
        };
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += take_one();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_for_each_over_tiles(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    const RING: u32 = 512;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        (b..tiles).step_by(g).for_each(|t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * BYTES, input.add(t as usize * FLOATS).cast(), BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        (b..tiles).step_by(g).for_each(|_| {
            pipe.consumer_wait(&st);
            let p = smem.add(st.index() as usize * FLOATS);
            for r in 0..8 {
                acc += *p.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_column_sum_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = dynamic_shared_window_address();
    let bars = window + 6 * BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let column_sum = |tile: *const f32, c: usize| -> f32 { (0..8).map(|r| unsafe { *tile.add(r * 32 + c) }).sum() };
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * FLOATS) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(smem.add(st.index() as usize * FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_fold_consumer(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles - b + g - 1) / g;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            let t = b + k * g;
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * FLOATS) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let total = (0..mine).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let p = smem.add(st.index() as usize * FLOATS + tid as usize);
            let mut s = acc;
            for r in 0..8 {
                s += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            s
        });
        *out.add((b * 32 + tid) as usize) = total;
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_bad_captured_stage_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
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
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * FLOATS) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let stage = smem.add(st.index() as usize * FLOATS);
        let sum_col = || -> f32 {
            let mut s = 0.0;
            for r in 0..8 {
                s += *stage.add(r * 32 + tid as usize);
            }
            s
        };
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += sum_col();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_bad_copy_closure_no_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + 3072, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + 3072);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut copy_one = |t: u32| {
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * FLOATS).cast(), BYTES, pipe.producer_barrier(&st));
            st.advance();
        };
        let mut t = b;
        while t < tiles {
            copy_one(t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let col = tid as usize;
        let mut take_one = || -> f32 {
            pipe.consumer_wait(&st);
            let p = smem.add(st.index() as usize * FLOATS + col);
            let s = *p + *p.add(32) + *p.add(64) + *p.add(96) + *p.add(128) + *p.add(160) + *p.add(192) + *p.add(224);
            pipe.consumer_release(&st);
            st.advance();
            s
        };
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += take_one();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_bad_two_halves_one_expect_each(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    const RING: u32 = 512;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let half = |st: &PipelineState<S>, src: *const f32, h: u32| {
            pipe.producer_expect_tx(st, BYTES / 2);
            bulk_copy_global_to_shared(
                window + RING + st.index() * BYTES + h * (BYTES / 2),
                src.add(h as usize * FLOATS / 2).cast(),
                BYTES / 2,
                pipe.producer_barrier(st),
            );
        };
        (b..tiles).step_by(g).for_each(|t| {
            pipe.producer_acquire(&st);
            let src = input.add(t as usize * FLOATS);
            half(&st, src, 0);
            half(&st, src, 1);
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        (b..tiles).step_by(g).for_each(|_| {
            pipe.consumer_wait(&st);
            let p = smem.add(st.index() as usize * FLOATS);
            for r in 0..8 {
                acc += *p.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_bad_column_sum_seven_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = dynamic_shared_window_address();
    let bars = window + 6 * BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let column_sum = |tile: *const f32, c: usize| -> f32 { (1..8).map(|r| unsafe { *tile.add(r * 32 + c) }).sum() };
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * FLOATS) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_sum(smem.add(st.index() as usize * FLOATS), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_clo_bad_fold_skips_advance(input: *const f32, tiles: u32, out: *mut f32) {
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
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles - b + g - 1) / g;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            let t = b + k * g;
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * FLOATS) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        // the state is moved into the closure by value: each call works on the closure's copy
        let st0 = PipelineState::<S>::new();
        let total = (0..mine).fold(0.0f32, move |acc, _| {
            let st = st0;
            pipe.consumer_wait(&st);
            let p = smem.add(st.index() as usize * FLOATS + tid as usize);
            let mut s = acc;
            for r in 0..8 {
                s += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            s
        });
        *out.add((b * 32 + tid) as usize) = total;
    }
}
