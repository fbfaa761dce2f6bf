//! Persona: "C in Rust". Byte pointers and byte offsets, `while` loops with explicit counters,
//! `u64` arithmetic, casts everywhere, everything in the kernel body.
#![allow(unsafe_op_in_unsafe_fn)]
#![allow(clippy::all)]

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const ROW_BYTES: u32 = 128;

// ---------------------------------------------------------------------------------------------
// Correct: 7 stages. Barriers at byte 0 (112 bytes), ring at byte 128. Producer is thread 1,
// consumers are warp 1 (tid 32..63). Every shared read is `*(sm + byte_offset) as f32`.
// ---------------------------------------------------------------------------------------------
const N7: u32 = 7;
const BAR_OFS7: u32 = 0;
const RING_OFS7: u32 = 128;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_c_bytes_7stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid: u32 = thread_idx_x();
    let sm: *mut u8 = dynamic_shared_base::<u8>();
    let sw: u32 = dynamic_shared_window_address();
    let inb: *const u8 = input as *const u8;

    if tid == 0 {
        Pipeline::<N7>::init(sw + BAR_OFS7, 32);
    }
    barrier();
    let p = Pipeline::<N7>::attach(sw + BAR_OFS7);

    if tid == 1 {
        let mut st = PipelineState::<N7>::producer_start();
        let mut t: u32 = block_idx_x();
        while t < tiles {
            p.producer_acquire(&st);
            p.producer_expect_tx(&st, TILE_BYTES);
            let dst: u32 = sw + RING_OFS7 + st.index() * TILE_BYTES;
            let src: *const u8 = inb.add((t as usize) * (TILE_BYTES as usize));
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, p.producer_barrier(&st));
            st.advance();
            t = t + grid_dim_x();
        }
        p.producer_tail(st);
    }
    if tid >= 32 {
        let c: u32 = tid - 32;
        let mut st = PipelineState::<N7>::new();
        let mut v: f32 = 0.0;
        let mut t: u32 = block_idx_x();
        while t < tiles {
            p.consumer_wait(&st);
            let stage_ofs: u32 = RING_OFS7 + st.index() * TILE_BYTES;
            let mut r: u32 = 0;
            while r < 8 {
                let ofs: u32 = stage_ofs + r * ROW_BYTES + c * 4;
                v = v + *(sm.add(ofs as usize) as *const f32);
                r = r + 1;
            }
            p.consumer_release(&st);
            st.advance();
            t = t + grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + c) as usize) = v;
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 2 stages, the block's tile count computed up front in u64, loops over `i < mine`.
// ---------------------------------------------------------------------------------------------
const N2: u64 = 2;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_c_u64_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid: u64 = thread_idx_x() as u64;
    let b: u64 = block_idx_x() as u64;
    let g: u64 = grid_dim_x() as u64;
    let nt: u64 = tiles as u64;
    let mine: u64 = if b < nt { (nt - b + g - 1) / g } else { 0 };
    let sm: *mut u8 = dynamic_shared_base::<u8>();
    let sw: u64 = dynamic_shared_window_address() as u64;
    let bar_ofs: u64 = N2 * TILE_BYTES as u64;

    if tid == 0 {
        Pipeline::<2>::init((sw + bar_ofs) as u32, 32);
    }
    barrier();
    let p = Pipeline::<2>::attach((sw + bar_ofs) as u32);

    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut i: u64 = 0;
        while i < mine {
            let t: u64 = b + i * g;
            p.producer_acquire(&st);
            p.producer_expect_tx(&st, TILE_BYTES);
            let dst: u64 = sw + (st.index() as u64) * (TILE_BYTES as u64);
            let src: *const u8 = (input as *const u8).add((t * TILE_BYTES as u64) as usize);
            bulk_copy_global_to_shared(dst as u32, src, TILE_BYTES, p.producer_barrier(&st));
            st.advance();
            i += 1;
        }
        p.producer_tail(st);
    } else if tid >= 32 {
        let c: u64 = tid - 32;
        let mut st = PipelineState::<2>::new();
        let mut v: f32 = 0.0;
        let mut i: u64 = 0;
        while i < mine {
            p.consumer_wait(&st);
            let base: *const u8 = sm.add(((st.index() as u64) * (TILE_BYTES as u64)) as usize);
            let mut r: u64 = 0;
            while r < 8 {
                v += *(base.add((r * ROW_BYTES as u64 + c * 4) as usize) as *const f32);
                r += 1;
            }
            p.consumer_release(&st);
            st.advance();
            i += 1;
        }
        *out.add((b * 32 + c) as usize) = v;
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: early exit done right: a block with no tile writes zeros and leaves before anything
// is initialised (the whole block leaves together). Then 4 stages, producer thread 63.
// ---------------------------------------------------------------------------------------------
const N4: u32 = 4;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_c_early_exit(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid: u32 = thread_idx_x();
    let bid: u32 = block_idx_x();
    if bid >= tiles {
        if tid < 32 {
            *out.add((bid * 32 + tid) as usize) = 0.0;
        }
        return;
    }
    let sm: *mut u8 = dynamic_shared_base::<u8>();
    let sw: u32 = dynamic_shared_window_address();
    let bar: u32 = sw + N4 * TILE_BYTES;

    if tid == 0 {
        Pipeline::<N4>::init(bar, 32);
    }
    barrier();
    let p = Pipeline::<N4>::attach(bar);

    if tid == 63 {
        let mut st = PipelineState::<N4>::producer_start();
        let mut t: u32 = bid;
        while t < tiles {
            p.producer_acquire(&st);
            p.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                sw + st.index() * TILE_BYTES,
                (input as *const u8).add(t as usize * 1024),
                TILE_BYTES,
                p.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
        }
        p.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<N4>::new();
        let mut v: f32 = 0.0;
        let mut t: u32 = bid;
        while t < tiles {
            p.consumer_wait(&st);
            let mut ofs: u32 = st.index() * TILE_BYTES + tid * 4;
            let end: u32 = ofs + TILE_BYTES;
            while ofs < end {
                v += *(sm.add(ofs as usize) as *const f32);
                ofs += ROW_BYTES;
            }
            p.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((bid * 32 + tid) as usize) = v;
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: ring-buffer habit `slot = (head + 1) % N` for the copy's destination: each tile lands
// in the stage after the one whose barrier it completes.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_c_dst_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid: u32 = thread_idx_x();
    let bid: u32 = block_idx_x();
    let sm: *mut u8 = dynamic_shared_base::<u8>();
    let sw: u32 = dynamic_shared_window_address();
    let bar: u32 = sw + N4 * TILE_BYTES;

    if tid == 0 {
        Pipeline::<N4>::init(bar, 32);
    }
    barrier();
    let p = Pipeline::<N4>::attach(bar);

    if tid == 32 {
        let mut st = PipelineState::<N4>::producer_start();
        let mut t: u32 = bid;
        while t < tiles {
            p.producer_acquire(&st);
            p.producer_expect_tx(&st, TILE_BYTES);
            let slot: u32 = (st.index() + 1) % N4;
            bulk_copy_global_to_shared(
                sw + slot * TILE_BYTES,
                (input as *const u8).add(t as usize * 1024),
                TILE_BYTES,
                p.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
        }
        p.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<N4>::new();
        let mut v: f32 = 0.0;
        let mut t: u32 = bid;
        while t < tiles {
            p.consumer_wait(&st);
            let mut r: u32 = 0;
            while r < 8 {
                v += *(sm.add((st.index() * TILE_BYTES + r * ROW_BYTES + tid * 4) as usize) as *const f32);
                r += 1;
            }
            p.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((bid * 32 + tid) as usize) = v;
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the copy's slot is taken from the global tile number (`t % N`) instead of the state;
// with a grid stride of 8 and 4 stages every tile of a block goes to the same slot.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_c_dst_from_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid: u32 = thread_idx_x();
    let bid: u32 = block_idx_x();
    let sm: *mut u8 = dynamic_shared_base::<u8>();
    let sw: u32 = dynamic_shared_window_address();
    let bar: u32 = sw + N4 * TILE_BYTES;

    if tid == 0 {
        Pipeline::<N4>::init(bar, 32);
    }
    barrier();
    let p = Pipeline::<N4>::attach(bar);

    if tid == 32 {
        let mut st = PipelineState::<N4>::producer_start();
        let mut t: u32 = bid;
        while t < tiles {
            p.producer_acquire(&st);
            p.producer_expect_tx(&st, TILE_BYTES);
            let slot: u32 = t % N4;
            bulk_copy_global_to_shared(
                sw + slot * TILE_BYTES,
                (input as *const u8).add(t as usize * 1024),
                TILE_BYTES,
                p.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
        }
        p.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<N4>::new();
        let mut v: f32 = 0.0;
        let mut t: u32 = bid;
        while t < tiles {
            p.consumer_wait(&st);
            let mut r: u32 = 0;
            while r < 8 {
                v += *(sm.add((st.index() * TILE_BYTES + r * ROW_BYTES + tid * 4) as usize) as *const f32);
                r += 1;
            }
            p.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((bid * 32 + tid) as usize) = v;
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: stage size written as `TILE_FLOATS * 2` (half-precision habit): stages are 512 bytes
// apart but each copy is 1024 bytes, so copies spill into the next stage and the last stage's
// copy lands on the barriers placed after the (too small) ring.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_c_half_stride(input: *const f32, tiles: u32, out: *mut f32) {
    const TILE_FLOATS: u32 = 256;
    const STAGE_BYTES: u32 = TILE_FLOATS * 2;
    block_threads(64);
    let tid: u32 = thread_idx_x();
    let bid: u32 = block_idx_x();
    let sm: *mut u8 = dynamic_shared_base::<u8>();
    let sw: u32 = dynamic_shared_window_address();
    let bar: u32 = sw + N4 * STAGE_BYTES;

    if tid == 0 {
        Pipeline::<N4>::init(bar, 32);
    }
    barrier();
    let p = Pipeline::<N4>::attach(bar);

    if tid == 32 {
        let mut st = PipelineState::<N4>::producer_start();
        let mut t: u32 = bid;
        while t < tiles {
            p.producer_acquire(&st);
            p.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                sw + st.index() * STAGE_BYTES,
                (input as *const u8).add((t * TILE_BYTES) as usize),
                TILE_BYTES,
                p.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
        }
        p.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<N4>::new();
        let mut v: f32 = 0.0;
        let mut t: u32 = bid;
        while t < tiles {
            p.consumer_wait(&st);
            let mut r: u32 = 0;
            while r < 8 {
                v += *(sm.add((st.index() * STAGE_BYTES + r * ROW_BYTES + tid * 4) as usize) as *const f32);
                r += 1;
            }
            p.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((bid * 32 + tid) as usize) = v;
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: consumer loop rewritten as do-while with the exit test placed before the release: the
// last tile's stage is never released, so the producer's tail waits forever.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_c_do_while_break(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid: u32 = thread_idx_x();
    let bid: u32 = block_idx_x();
    let nb: u32 = grid_dim_x();
    if bid >= tiles {
        if tid < 32 {
            *out.add((bid * 32 + tid) as usize) = 0.0;
        }
        return;
    }
    let sm: *mut u8 = dynamic_shared_base::<u8>();
    let sw: u32 = dynamic_shared_window_address();
    let bar: u32 = sw + N4 * TILE_BYTES;

    if tid == 0 {
        Pipeline::<N4>::init(bar, 32);
    }
    barrier();
    let p = Pipeline::<N4>::attach(bar);

    if tid == 32 {
        let mut st = PipelineState::<N4>::producer_start();
        let mut t: u32 = bid;
        while t < tiles {
            p.producer_acquire(&st);
            p.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                sw + st.index() * TILE_BYTES,
                (input as *const u8).add(t as usize * 1024),
                TILE_BYTES,
                p.producer_barrier(&st),
            );
            st.advance();
            t += nb;
        }
        p.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<N4>::new();
        let mut v: f32 = 0.0;
        let mut t: u32 = bid;
        loop {
            p.consumer_wait(&st);
            let mut r: u32 = 0;
            while r < 8 {
                v += *(sm.add((st.index() * TILE_BYTES + r * ROW_BYTES + tid * 4) as usize) as *const f32);
                r += 1;
            }
            t += nb;
            if t >= tiles {
                break;
            }
            p.consumer_release(&st);
            st.advance();
        }
        *out.add((bid * 32 + tid) as usize) = v;
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the producer walks every tile `0..tiles` (the block partition forgotten), the
// consumers walk the block's tiles: the producer blocks on a stage nobody releases.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_c_producer_all_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid: u32 = thread_idx_x();
    let bid: u32 = block_idx_x();
    let sm: *mut u8 = dynamic_shared_base::<u8>();
    let sw: u32 = dynamic_shared_window_address();
    let bar: u32 = sw + N4 * TILE_BYTES;

    if tid == 0 {
        Pipeline::<N4>::init(bar, 32);
    }
    barrier();
    let p = Pipeline::<N4>::attach(bar);

    if tid == 32 {
        let mut st = PipelineState::<N4>::producer_start();
        let mut t: u32 = 0;
        while t < tiles {
            p.producer_acquire(&st);
            p.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                sw + st.index() * TILE_BYTES,
                (input as *const u8).add(t as usize * 1024),
                TILE_BYTES,
                p.producer_barrier(&st),
            );
            st.advance();
            t += 1;
        }
        p.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<N4>::new();
        let mut v: f32 = 0.0;
        let mut t: u32 = bid;
        while t < tiles {
            p.consumer_wait(&st);
            let mut r: u32 = 0;
            while r < 8 {
                v += *(sm.add((st.index() * TILE_BYTES + r * ROW_BYTES + tid * 4) as usize) as *const f32);
                r += 1;
            }
            p.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((bid * 32 + tid) as usize) = v;
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: classic prefetch. Thread 0 is a consumer like lanes 1..31 and also the producer: it
// fills the first N3 stages in a prologue, then after consuming tile k refills the freed stage
// with tile k + N3. 3 stages.
// ---------------------------------------------------------------------------------------------
const N3: u32 = 3;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_c_prefetch_lookahead(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid: u32 = thread_idx_x();
    let bid: u32 = block_idx_x();
    let nb: u32 = grid_dim_x();
    let sm: *mut u8 = dynamic_shared_base::<u8>();
    let sw: u32 = dynamic_shared_window_address();
    let bar: u32 = sw + N3 * TILE_BYTES;
    let n: u32 = if bid < tiles { (tiles - bid + nb - 1) / nb } else { 0 };

    if tid == 0 {
        Pipeline::<N3>::init(bar, 32);
    }
    barrier();
    let p = Pipeline::<N3>::attach(bar);
    if tid >= 32 {
        return;
    }

    let mut ps = PipelineState::<N3>::producer_start();
    if tid == 0 {
        let mut k: u32 = 0;
        while k < N3 && k < n {
            p.producer_acquire(&ps);
            p.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(
                sw + ps.index() * TILE_BYTES,
                (input as *const u8).add(((bid + k * nb) * TILE_BYTES) as usize),
                TILE_BYTES,
                p.producer_barrier(&ps),
            );
            ps.advance();
            k += 1;
        }
    }

    let mut cs = PipelineState::<N3>::new();
    let mut v: f32 = 0.0;
    let mut k: u32 = 0;
    while k < n {
        p.consumer_wait(&cs);
        let mut r: u32 = 0;
        while r < 8 {
            v += *(sm.add((cs.index() * TILE_BYTES + r * ROW_BYTES + tid * 4) as usize) as *const f32);
            r += 1;
        }
        p.consumer_release(&cs);
        cs.advance();
        if tid == 0 && k + N3 < n {
            p.producer_acquire(&ps);
            p.producer_expect_tx(&ps, TILE_BYTES);
            bulk_copy_global_to_shared(
                sw + ps.index() * TILE_BYTES,
                (input as *const u8).add(((bid + (k + N3) * nb) * TILE_BYTES) as usize),
                TILE_BYTES,
                p.producer_barrier(&ps),
            );
            ps.advance();
        }
        k += 1;
    }
    if tid == 0 {
        p.producer_tail(ps);
    }
    *out.add((bid * 32 + tid) as usize) = v;
}
