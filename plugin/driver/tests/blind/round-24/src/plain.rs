//! Straight-line pipeline kernels: everything written out in the entry function.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_four_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_two_stages_bars_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    // Barriers at the window's start, the ring 128 bytes further.
    let ring_off: u32 = 128;
    let ring = dynamic_shared_base::<u8>().add(ring_off as usize) as *const f32;
    if tid == 0 {
        Pipeline::<2>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 63 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + ring_off + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    }
    if tid < 32 {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let base = state.index() as usize * TILE_FLOATS + tid as usize;
            acc += *ring.add(base) + *ring.add(base + 32) + *ring.add(base + 64) + *ring.add(base + 96);
            acc += *ring.add(base + 128) + *ring.add(base + 160) + *ring.add(base + 192) + *ring.add(base + 224);
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 7 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<7>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<7>::attach(bars);
    if tid == 32 {
        let mut s = PipelineState::<7>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&s);
            pipe.producer_expect_tx(&s, TILE_BYTES);
            bulk_copy_global_to_shared(window + s.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&s));
            s.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(s);
    } else if tid < 32 {
        let mut s = PipelineState::<7>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&s);
            let stage = ring.add(s.index() as usize * TILE_FLOATS + tid as usize);
            let mut r = 0;
            while r < 8 {
                acc += *stage.add(r * 32);
                r += 1;
            }
            pipe.consumer_release(&s);
            s.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_consumers_second_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 3 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    if tid == 0 {
        let mut s = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&s);
            pipe.producer_expect_tx(&s, TILE_BYTES);
            bulk_copy_global_to_shared(window + s.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&s));
            s.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(s);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut s = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&s);
            let stage = ring.add(s.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&s);
            s.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles + g - 1 - b) / g;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut s = PipelineState::<4>::producer_start();
        let mut left = mine;
        let mut src = input.add(b as usize * TILE_FLOATS);
        while left > 0 {
            pipe.producer_acquire(&s);
            pipe.producer_expect_tx(&s, TILE_BYTES);
            bulk_copy_global_to_shared(window + s.index() * TILE_BYTES, src as *const u8, TILE_BYTES, pipe.producer_barrier(&s));
            s.advance();
            src = src.add(g as usize * TILE_FLOATS);
            left -= 1;
        }
        pipe.producer_tail(s);
    } else if tid < 32 {
        let mut s = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&s);
            let stage = ring.add(s.index() as usize * TILE_FLOATS);
            for r in (0..8).rev() {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&s);
            s.advance();
            left -= 1;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_for_counted(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(1024);
    let bars = window;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles + g - 1 - b) / g;
    if tid == 0 {
        Pipeline::<5>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<5>::attach(bars);
    if tid == 32 {
        let mut s = PipelineState::<5>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&s);
            pipe.producer_expect_tx(&s, TILE_BYTES);
            bulk_copy_global_to_shared(window + 4096 + s.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&s));
            s.advance();
        }
        pipe.producer_tail(s);
    } else if tid < 32 {
        let mut s = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&s);
            let stage = ring.add(s.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&s);
            s.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_bad_expect_two_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_bad_no_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_bad_bars_in_last_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    // Barriers tucked into "spare" room: but that is the last stage of the ring.
    let bars = window + 3 * TILE_BYTES + 512;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_bad_consumer_extra_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    let g = grid_dim_x();
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        // "round up" the last tile
        while t < tiles + g {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_bad_init_for_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        // every thread of the block "takes part"
        Pipeline::<4>::init(bars, 64);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_bad_two_producers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 || tid == 33 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_bad_bars_at_window_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    // Eight stages fill the window; the barriers go right after them.
    let bars = window + 8 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<8>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<8>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<8>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<8>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_plain_bad_copy_stride_half_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            // stage stride written in floats' worth of half a tile
            bulk_copy_global_to_shared(window + state.index() * (TILE_FLOATS as u32 * 2), input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}
