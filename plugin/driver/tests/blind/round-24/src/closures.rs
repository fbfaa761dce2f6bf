//! Pipeline kernels whose steps are closures: per-tile bodies, column readers, step functions.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const N: usize = 256;
const NB: u32 = 1024;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_column_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * NB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let g = grid_dim_x();
    if tid == 32 {
        let src = |t: u32| input.add(t as usize * N) as *const u8;
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(window + st.index() * NB, src(t), NB, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let column = |stage: *const f32| -> f32 {
            let mut s = 0.0;
            for r in 0..8 {
                s += *stage.add(r * 32 + tid as usize);
            }
            s
        };
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(smem.add(st.index() as usize * N));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_step_closures_mut_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * NB;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut push = |t: u32| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(window + st.index() * NB, input.add(t as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            st.advance();
        };
        let mut t = b;
        while t < tiles {
            push(t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut pop = || {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            let mut s = 0.0;
            for r in 0..8 {
                s += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            s
        };
        let mut t = b;
        while t < tiles {
            acc += pop();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_for_each_consumer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * NB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles + g - 1 - b) / g;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        (0..mine).for_each(|k| {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(window + st.index() * NB, input.add(t as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        (0..mine).for_each(|_| {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_fold_consumer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>().add(512);
    if tid == 0 {
        Pipeline::<6>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<6>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles + g - 1 - b) / g;
    if tid == 32 {
        let mut st = PipelineState::<6>::producer_start();
        let mut t = b;
        for _ in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(window + 2048 + st.index() * NB, input.add(t as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<6>::new();
        let acc = (0..mine).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            let mut s = acc;
            for r in 0..8 {
                s += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            s
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

fn run_tiles(tiles: u32, mut body: impl FnMut(u32)) {
    let mut t = block_idx_x();
    while t < tiles {
        body(t);
        t += grid_dim_x();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_run_tiles_driver(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * NB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        run_tiles(tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(window + st.index() * NB, input.add(t as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        run_tiles(tiles, |_| {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            acc += (0..8).map(|r| *stage.add(r * 32 + tid as usize)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_dst_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 5 * NB;
    let dst = |s: &PipelineState<5>| window + s.index() * NB;
    let stage = |s: &PipelineState<5>| smem.add(s.index() as usize * N) as *const f32;
    if tid == 0 {
        Pipeline::<5>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<5>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<5>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(dst(&st), input.add(t as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = stage(&st);
            for r in 0..8 {
                acc += *p.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_bad_captured_first_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * NB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(window + st.index() * NB, input.add(t as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let stage = smem.add(st.index() as usize * N);
        let column = || (0..8).fold(0.0f32, |s, r| s + *stage.add(r * 32 + tid as usize));
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column();
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_bad_for_each_skips_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * NB;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles + g - 1 - b) / g;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        (0..mine).for_each(|k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(window + st.index() * NB, input.add((b + k * g) as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        (0..mine).for_each(|k| {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            // the last tile needs no release: nobody refills it
            if k + 1 < mine {
                pipe.consumer_release(&st);
            }
            st.advance();
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_bad_push_skips_copy_on_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * NB;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut push = |t: u32| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            // skip a copy that would start past the last full tile
            if t + g < tiles {
                bulk_copy_global_to_shared(window + st.index() * NB, input.add(t as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            }
            st.advance();
        };
        let mut t = b;
        while t < tiles {
            push(t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
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

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_bad_dst_closure_off_by_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 5 * NB;
    // stage s lives at s + 1 tiles: the first tile is "reserved"
    let dst = |s: &PipelineState<5>| window + (s.index() + 1) * NB;
    let stage = |s: &PipelineState<5>| smem.add(s.index() as usize * N) as *const f32;
    if tid == 0 {
        Pipeline::<5>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<5>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<5>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(dst(&st), input.add(t as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = stage(&st);
            for r in 0..8 {
                acc += *p.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_clo_bad_fold_release_then_read(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>().add(512);
    if tid == 0 {
        Pipeline::<2>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles + g - 1 - b) / g;
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        for _ in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, NB);
            bulk_copy_global_to_shared(window + 2048 + st.index() * NB, input.add(t as usize * N) as *const u8, NB, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<2>::new();
        let acc = (0..mine).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * N);
            let first = *stage.add(tid as usize);
            pipe.consumer_release(&st);
            let mut s = acc + first;
            for r in 1..8 {
                s += *stage.add(r * 32 + tid as usize);
            }
            st.advance();
            s
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
