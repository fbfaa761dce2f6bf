//! Plain, free-standing pipeline kernels: the whole protocol written out in the kernel body,
//! with different ring depths and placements of the ring and its barriers.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id,
    thread_idx_x, warp_id,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_four_stages_bars_after_ring(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_two_stages_bars_first(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_AT: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = tiles.saturating_sub(b).div_ceil(g);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING_AT + st.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE_FLOATS).cast::<u8>();
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(RING_AT as usize).cast::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let mut r = 0;
            while r < ROWS {
                acc += *stage.add(r * COLS + tid as usize);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * COLS + tid as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_seven_stages_full_window(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 7;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 7 * 1024;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 63 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    }
    if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let base = st.index() as usize * TILE_FLOATS + tid as usize;
            acc += *ring.add(base)
                + *ring.add(base + 32)
                + *ring.add(base + 64)
                + *ring.add(base + 96)
                + *ring.add(base + 128)
                + *ring.add(base + 160)
                + *ring.add(base + 192)
                + *ring.add(base + 224);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_single_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 1024;
    if tid == 0 {
        Pipeline::<1>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<1>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<1>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<1>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let mut part = 0.0f32;
            for r in 0..ROWS {
                part += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            acc += part;
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_warp_roles_three_stages(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const RING: u32 = 2048;
    let window = dynamic_shared_window_address();
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let warp = warp_id();
    let lane = lane_id();
    if warp == 1 && lane == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if warp == 0 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + lane as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + lane) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_bad_consumer_starts_at_phase_one(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        // Same start as the producer: "both sides begin on the first stage".
        let mut st = PipelineState::<S>::producer_start();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_bad_no_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + tid as usize);
            }
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_bad_expect_half_tile(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const RING_AT: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = tiles.saturating_sub(b).div_ceil(g);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES / 2);
            let dst = window + RING_AT + st.index() * TILE_BYTES;
            let src = input.add(t as usize * TILE_FLOATS).cast::<u8>();
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(RING_AT as usize).cast::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * COLS + tid as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_bad_consumers_one_tile_more(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const RING: u32 = 2048;
    let window = dynamic_shared_window_address();
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let warp = warp_id();
    let lane = lane_id();
    if warp == 1 && lane == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if warp == 0 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        // "<=" so that the last tile is included
        while t <= tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + lane as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + lane) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_basic_bad_producer_starts_at_phase_zero(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        // every state starts at stage 0, phase 0
        let mut st = PipelineState::<S>::new();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
