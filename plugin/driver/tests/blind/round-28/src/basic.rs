//! Straight-line pipeline kernels: one function per kernel, `while` tile loops, the roles split
//! by an `if` on the thread index.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: u32 = 1024;
const FLOATS: usize = 256;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_four_stage_warp1(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE);
            let dst = window + state.index() * TILE;
            let src = input.add((t * 256) as usize) as *const u8;
            bulk_copy_global_to_shared(dst, src, TILE, pipe.producer_barrier(&state));
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add((b * 32) as usize + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_two_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<2>::init(window + 2048, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(window + 2048);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(
                window + st.index() * 1024,
                input.add(t as usize * 256) as *const u8,
                1024,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    }
    if tid >= 32 {
        let lane = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut sum = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let base = smem.add(st.index() as usize * 256 + lane);
            let mut r = 0;
            while r < 8 {
                sum += *base.add(r * 32);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + lane) = sum;
    }
}

/// Barriers at the start of the window, the ring from byte 1024 on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_three_stage_bars_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE,
                input.add(t as usize * FLOATS) as *const u8,
                TILE,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(RING as usize / 4 + st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_six_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 6 * TILE;
    if tid == 0 {
        let _ = Pipeline::<6>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<6>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<6>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<6>::new();
        let mut acc = [0.0f32; 2];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * FLOATS);
            for row in 0..4 {
                acc[0] += *stage.add(row * 32 + col);
                acc[1] += *stage.add((row + 4) * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc[0] + acc[1];
    }
}

/// The producer is the block's last thread; warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_producer_last_thread(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    if tid == 63 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 63 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let col = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_for_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        for t in (b..tiles).step_by(g as usize) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _t in (b..tiles).step_by(g as usize) {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_counted_mine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * TILE;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        for _k in 0..mine {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// Announces two tiles per stage but copies one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_bad_expect_double(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * TILE);
            bulk_copy_global_to_shared(window + state.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&state));
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = smem.add(state.index() as usize * FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add((b * 32) as usize + c) = acc;
    }
}

/// The consumers never release their stage: the producer waits on the empty barrier forever
/// once the ring has gone round.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_bad_no_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The empty barriers are initialised for the whole block, but only warp 1 releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_bad_release_count_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * TILE;
    let pipe = if tid == 0 { Pipeline::<2>::init(bars, 64) } else { Pipeline::<2>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// Releases the stage first and reads it afterwards: the producer refills it under the reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_bad_read_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * TILE;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            pipe.consumer_release(&st);
            let stage = smem.add(st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The consumers start from the producer's state (parity 1): their first waits return at once,
/// before any copy has landed. Ring at byte 2560 so that no other kernel's leftovers match.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_bad_consumer_producer_start(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 2560;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + RING + 4 * TILE;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::producer_start();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(RING as usize / 4 + st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// Barriers placed at three tiles, inside a four-stage ring: the fourth stage's copy lands on them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_bad_bars_inside_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The consumers' loop test is `<=`: one wait more than the producer fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_basic_bad_consumer_extra_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * FLOATS) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t <= tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * FLOATS);
            for row in 0..8 {
                acc += *stage.add(row * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}
