//! Group H: several copies per stage.

#[allow(unused_imports)]
use super::*;


#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_two_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALF: u32 = TILE_BYTES / 2;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let dst = window + RING + st.index() * TILE_BYTES;
                let from = src(input, t);
                bulk_copy_global_to_shared(dst, from, HALF, pipe.producer_barrier(&st));
                bulk_copy_global_to_shared(dst + HALF, from.add(HALF as usize), HALF, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_quarters_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const PARTS: u32 = 4;
    const PART: u32 = TILE_BYTES / PARTS;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, PARTS * PART);
                let dst = window + RING + st.index() * TILE_BYTES;
                let from = src(input, b + k * g);
                for q in 0..PARTS {
                    bulk_copy_global_to_shared(dst + q * PART, from.add((q * PART) as usize), PART, pipe.producer_barrier(&st));
                }
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_halves_from_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const HALVES: u32 = 2;
    const HALF: u32 = TILE_BYTES / HALVES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for k in 0..n {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let dst = window + RING + st.index() * TILE_BYTES;
                let from = src(input, b + k * g);
                // BUG: `1..HALVES` copies only the second half; the full barrier waits for 512 more bytes.
                for h in 1..HALVES {
                    bulk_copy_global_to_shared(dst + h * HALF, from.add((h * HALF) as usize), HALF, pipe.producer_barrier(&st));
                }
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..n {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_thirds_unaligned(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    // BUG: a third of a tile is 341 bytes: neither the size nor the second destination is a multiple of 16.
    const FIRST: u32 = TILE_BYTES / 3;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let dst = window + RING + st.index() * TILE_BYTES;
                let from = src(input, t);
                bulk_copy_global_to_shared(dst, from, FIRST, pipe.producer_barrier(&st));
                bulk_copy_global_to_shared(dst + FIRST, from.add(FIRST as usize), TILE_BYTES - FIRST, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_size_1020(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    // BUG: "all but the last float": 1020 bytes, not a multiple of 16.
    const BYTES: u32 = (TILE - 1) * 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_dest_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                // BUG: "prefetch into the next slot": the copy lands in a stage consumers may be reading.
                let slot = (st.index() + 1) % S;
                bulk_copy_global_to_shared(window + RING + slot * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_stage_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                // BUG: a byte offset added to a float pointer: stage 2 starts 9 KiB in, past the window.
                let stage = ring.add((st.index() * TILE_BYTES) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_two_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    let loads = (n + 1) / 2;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for j in 0..loads {
                let first = 2 * j;
                let count = if first + 1 < n { 2 } else { 1 };
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, count * TILE_BYTES);
                let dst = window + RING + st.index() * STAGE_BYTES;
                bulk_copy_global_to_shared(dst, src(input, b + first * g), TILE_BYTES, pipe.producer_barrier(&st));
                if count == 2 {
                    bulk_copy_global_to_shared(dst + TILE_BYTES, src(input, b + (first + 1) * g), TILE_BYTES, pipe.producer_barrier(&st));
                }
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for j in 0..loads {
                let count = if 2 * j + 1 < n { 2 } else { 1 };
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * 2 * TILE) as usize);
                for r in 0..count * ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_copy_bad_two_tiles_one_announced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let pairs = owned(tiles) / 2;
    unsafe {
        if tid == 32 {
            let mut st = PipelineState::<S>::producer_start();
            for j in 0..pairs {
                pipe.producer_acquire(&st);
                // BUG: announces one tile for a stage that receives two.
                pipe.producer_expect_tx(&st, TILE_BYTES);
                let dst = window + RING + st.index() * STAGE_BYTES;
                bulk_copy_global_to_shared(dst, src(input, b + 2 * j * g), TILE_BYTES, pipe.producer_barrier(&st));
                bulk_copy_global_to_shared(dst + TILE_BYTES, src(input, b + (2 * j + 1) * g), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = ring_base();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            for _ in 0..pairs {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * 2 * TILE) as usize);
                for r in 0..2 * ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}
