//! Loops of every shape around the same protocol: count-downs, `loop` with `break`, labelled
//! loops, do-while, reversed ranges, rows written out with `unrolled!`.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

#[inline(always)]
fn owned(tiles: u32) -> u32 {
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tiles > b { (tiles - b).div_ceil(g) } else { 0 }
}

#[inline(always)]
unsafe fn tile_ptr(input: *const f32, k: u32) -> *const u8 {
    input.add((block_idx_x() + k * grid_dim_x()) as usize * TILE).cast()
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_count_down(input: *const f32, tiles: u32, out: *mut f32) {
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
    let mine = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut left = mine;
        let mut src = input.add(block_idx_x() as usize * TILE);
        let stride = grid_dim_x() as usize * TILE;
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            src = src.add(stride);
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid as usize);
            let mut r = 8;
            while r > 0 {
                r -= 1;
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_loop_with_break(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    const RING: u32 = 1024;
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid as usize);
            unrolled!(R < 8 => {
                acc += *p.add(R * 32);
            });
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_labelled_rounds(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 2048;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let mine = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut k = 0;
        'all: loop {
            for _stage in 0..S {
                if k == mine {
                    break 'all;
                }
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_ptr(input, k), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                k += 1;
            }
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        'all: loop {
            for _stage in 0..S {
                if k == mine {
                    break 'all;
                }
                pipe.consumer_wait(&st);
                let p = ring.add(st.index() as usize * TILE + tid as usize);
                for r in 0..8 {
                    acc += *p.add(r * 32);
                }
                pipe.consumer_release(&st);
                st.advance();
                k += 1;
            }
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_do_while(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = dynamic_shared_window_address();
    let bars = window + 6 * 1024;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let mine = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        if mine > 0 {
            let mut k = 0;
            loop {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_ptr(input, k), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                k += 1;
                if k == mine {
                    break;
                }
            }
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        if mine > 0 {
            let mut k = 0;
            loop {
                pipe.consumer_wait(&st);
                let p = ring.add(st.index() as usize * TILE + tid as usize);
                for r in 0..8 {
                    acc += *p.add(r * 32);
                }
                pipe.consumer_release(&st);
                st.advance();
                k += 1;
                if k == mine {
                    break;
                }
            }
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_reversed_consumer_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + 5120, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + 5120);
    let mine = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_ptr(input, k), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        // tiles remaining, counted down; the ring hands them over in order anyway
        for _remaining in (1..=mine).rev() {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid as usize);
            unrolled!(R < 8 => {
                acc += *p.add(R * 32);
            });
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_bad_count_down_stops_at_one(input: *const f32, tiles: u32, out: *mut f32) {
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
    let mine = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut left = mine;
        let mut src = input.add(block_idx_x() as usize * TILE);
        let stride = grid_dim_x() as usize * TILE;
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            src = src.add(stride);
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 1 {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid as usize);
            let mut r = 8;
            while r > 0 {
                r -= 1;
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_bad_break_before_last_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    const RING: u32 = 1024;
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        if t < tiles {
            loop {
                pipe.consumer_wait(&st);
                let p = ring.add(st.index() as usize * TILE + tid as usize);
                unrolled!(R < 8 => {
                    acc += *p.add(R * 32);
                });
                t += g;
                if t >= tiles {
                    // last tile: nothing more to wait for
                    break;
                }
                pipe.consumer_release(&st);
                st.advance();
            }
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_bad_producer_state_per_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 2048;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let mine = owned(tiles);
    if tid == 32 {
        let mut last = PipelineState::<S>::producer_start();
        for k in 0..mine {
            let mut st = PipelineState::<S>::producer_start();
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_ptr(input, k), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            last = st;
        }
        pipe.producer_tail(last);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid as usize);
            for r in 0..8 {
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_bad_block_barrier_in_consumer_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = dynamic_shared_window_address();
    let bars = window + 6 * 1024;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let mine = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_ptr(input, k), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid as usize);
            for r in 0..8 {
                acc += *p.add(r * 32);
            }
            // keep the consumers in step before handing the stage back
            barrier();
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_loop_bad_do_while_checks_after(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + 5120, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + 5120);
    let mine = owned(tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_ptr(input, k), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        loop {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid as usize);
            for r in 0..8 {
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
            if k > mine {
                break;
            }
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}
