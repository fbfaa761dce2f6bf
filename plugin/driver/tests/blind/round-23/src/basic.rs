//! Straight-line pipeline kernels: one function per kernel, `while` tile loops, one producer
//! thread and one consumer warp.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// Four stages at the start of the window, barriers right after; thread 0 produces, warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_four_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Two stages; warp 0 consumes, thread 32 produces; ring after the barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_two_stages_bars_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<u8>();
    let ring_off: u32 = 1024;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(window, 32) } else { Pipeline::<S>::attach(window) };
    barrier();
    let blk = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = blk;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + ring_off + st.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE) as *const u8;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0;
        let mut t = blk;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(ring_off as usize + st.index() as usize * TILE_BYTES as usize) as *const f32;
            let mut r = 0;
            while r < 8 {
                sum += *stage.add(lane + r * 32);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        *out.add(blk as usize * 32 + lane) = sum;
    }
}

/// Seven stages (7 KiB of ring, barriers in the last KiB); producer thread 0, consumers warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 7;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 7168;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE + c);
            acc += *stage + *stage.add(32) + *stage.add(64) + *stage.add(96);
            acc += *stage.add(128) + *stage.add(160) + *stage.add(192) + *stage.add(224);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Three stages, the tile loop counted by a `for` over the block's own tile count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_three_stages_counted(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles - b + g - 1) / g;
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Four stages; the full barrier is told to expect two tiles for a single tile's copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_bad_expect_double(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 2 * TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Four stages; the empty barriers are initialised for the whole block but only warp 1 releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_bad_init_whole_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 64) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Two stages, warp 0 consumes; the producer is started like a consumer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_bad_producer_fresh_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<u8>();
    let ring_off: u32 = 1024;
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(window, 32) } else { Pipeline::<S>::attach(window) };
    barrier();
    let blk = block_idx_x();
    let step = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::new();
        let mut t = blk;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + ring_off + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += step;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut st = PipelineState::<S>::new();
        let mut sum = 0.0;
        let mut t = blk;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(ring_off as usize + st.index() as usize * TILE_BYTES as usize) as *const f32;
            let mut r = 0;
            while r < 8 {
                sum += *stage.add(lane + r * 32);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += step;
        }
        *out.add(blk as usize * 32 + lane) = sum;
    }
}

/// Seven stages; the consumers stop one tile before the producer does.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_bad_consumer_short_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 7;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 7168;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t + g < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE + c);
            acc += *stage + *stage.add(32) + *stage.add(64) + *stage.add(96);
            acc += *stage.add(128) + *stage.add(160) + *stage.add(192) + *stage.add(224);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Three stages counted by `for`; the consumers read only seven of the eight rows of each tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_bad_seven_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = (tiles - b + g - 1) / g;
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 1..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Four stages; the consumers read a row of the stage before waiting for it to be full.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_bad_first_row_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let stage = ring.add(st.index() as usize * TILE);
            let first = *stage.add(c);
            pipe.consumer_wait(&st);
            acc += first;
            for r in 1..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Eight stages of a whole tile each; the barriers go after the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_basic_bad_eight_full_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 8;
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}
