//! Written by someone tuning for latency: registers instead of shared re-reads, prologues,
//! prefetching, unrolling, several rings.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::{COLUMNS, ROWS, TILE_BYTES, TILE_FLOATS};
use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

/// Sum of the eight rows of column `p` (a pointer to the column's first element), unrolled.
#[inline(always)]
unsafe fn column8(p: *const f32) -> f32 {
    let a = *p + *p.add(32);
    let b = *p.add(64) + *p.add(96);
    let c = *p.add(128) + *p.add(160);
    let d = *p.add(192) + *p.add(224);
    (a + b) + (c + d)
}

#[inline(always)]
unsafe fn tile_src(input: *const f32, tile: u32) -> *const u8 {
    input.add(tile as usize * TILE_FLOATS) as *const u8
}

/// The column goes into registers while the stage is held; the adds run after the release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_register_tile(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let p = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut w = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            p.producer_acquire(&w);
            p.producer_expect_tx(&w, TILE_BYTES);
            bulk_copy_global_to_shared(base + w.index() * TILE_BYTES, tile_src(input, t), TILE_BYTES, p.producer_barrier(&w));
            w.advance();
            t += g;
        }
        p.producer_tail(w);
    } else if tid < 32 {
        let mut r = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            p.consumer_wait(&r);
            let col = smem.add(r.index() as usize * TILE_FLOATS + tid as usize);
            let regs: [f32; ROWS] = core::array::from_fn(|k| *col.add(k * COLUMNS));
            p.consumer_release(&r);
            r.advance();
            acc += regs.iter().sum::<f32>();
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// CUTLASS's consumer order: the previous stage is released only after the current one has
/// been waited for and read; the last stage is released after the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_release_prev_late(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let p = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut w = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            p.producer_acquire(&w);
            p.producer_expect_tx(&w, TILE_BYTES);
            bulk_copy_global_to_shared(base + w.index() * TILE_BYTES, tile_src(input, t), TILE_BYTES, p.producer_barrier(&w));
            w.advance();
            t += g;
        }
        p.producer_tail(w);
    } else if tid < 32 {
        let mut r = PipelineState::<S>::new();
        let mut prev = r;
        let mut holding = false;
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            p.consumer_wait(&r);
            acc += column8(smem.add(r.index() as usize * TILE_FLOATS + tid as usize));
            if holding {
                p.consumer_release(&prev);
            }
            prev = r;
            holding = true;
            r.advance();
            t += g;
        }
        if holding {
            p.consumer_release(&prev);
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// Two rings of two stages: even local tiles go through `a`, odd ones through `b`; one thread
/// feeds both, the consumers drain them in the same order.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_two_pipes_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    const RING: u32 = S * TILE_BYTES;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let ring_a = base;
    let ring_b = base + RING;
    let bars_a = base + 2 * RING;
    let bars_b = bars_a + pipeline_barrier_bytes(S);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars_a, 32);
        Pipeline::<S>::init(bars_b, 32);
    }
    barrier();
    let a = Pipeline::<S>::attach(bars_a);
    let bp = Pipeline::<S>::attach(bars_b);
    let (blk, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut wa = PipelineState::<S>::producer_start();
        let mut wb = PipelineState::<S>::producer_start();
        let mut t = blk;
        while t < tiles {
            a.producer_acquire(&wa);
            a.producer_expect_tx(&wa, TILE_BYTES);
            bulk_copy_global_to_shared(ring_a + wa.index() * TILE_BYTES, tile_src(input, t), TILE_BYTES, a.producer_barrier(&wa));
            wa.advance();
            let u = t + g;
            if u < tiles {
                bp.producer_acquire(&wb);
                bp.producer_expect_tx(&wb, TILE_BYTES);
                bulk_copy_global_to_shared(
                    ring_b + wb.index() * TILE_BYTES,
                    tile_src(input, u),
                    TILE_BYTES,
                    bp.producer_barrier(&wb),
                );
                wb.advance();
            }
            t = u + g;
        }
        a.producer_tail(wa);
        bp.producer_tail(wb);
    } else if tid < 32 {
        let smem_b = smem.add(S as usize * TILE_FLOATS);
        let mut ra = PipelineState::<S>::new();
        let mut rb = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = blk;
        while t < tiles {
            a.consumer_wait(&ra);
            acc += column8(smem.add(ra.index() as usize * TILE_FLOATS + tid as usize));
            a.consumer_release(&ra);
            ra.advance();
            let u = t + g;
            if u < tiles {
                bp.consumer_wait(&rb);
                acc += column8(smem_b.add(rb.index() as usize * TILE_FLOATS + tid as usize));
                bp.consumer_release(&rb);
                rb.advance();
            }
            t = u + g;
        }
        *out.add(blk as usize * COLUMNS + tid as usize) = acc;
    }
}

/// The producer's first round skips the acquire (a fresh ring is empty: waiting on it would
/// return at once) and then runs the steady-state loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_prologue(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let p = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let count = (tiles - b).div_ceil(g);
    if tid == 32 {
        let mut w = PipelineState::<S>::producer_start();
        let ahead = count.min(S);
        let mut i = 0;
        while i < ahead {
            p.producer_expect_tx(&w, TILE_BYTES);
            bulk_copy_global_to_shared(
                base + w.index() * TILE_BYTES,
                tile_src(input, b + i * g),
                TILE_BYTES,
                p.producer_barrier(&w),
            );
            w.advance();
            i += 1;
        }
        while i < count {
            p.producer_acquire(&w);
            p.producer_expect_tx(&w, TILE_BYTES);
            bulk_copy_global_to_shared(
                base + w.index() * TILE_BYTES,
                tile_src(input, b + i * g),
                TILE_BYTES,
                p.producer_barrier(&w),
            );
            w.advance();
            i += 1;
        }
        p.producer_tail(w);
    } else if tid < 32 {
        let mut r = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..count {
            p.consumer_wait(&r);
            acc += column8(smem.add(r.index() as usize * TILE_FLOATS + tid as usize));
            p.consumer_release(&r);
            r.advance();
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// Slot 0 of shared memory holds the barriers; stage `s` lives in slot `s + 1`, on both sides.
#[inline(always)]
fn slot_address(base: u32, stage: u32) -> u32 {
    base + (stage + 1) * TILE_BYTES
}

#[inline(always)]
unsafe fn slot_pointer(smem: *const f32, stage: u32) -> *const f32 {
    smem.add((stage as usize + 1) * TILE_FLOATS)
}

/// Barriers first, then the ring, both sides computing a stage's slot through helpers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_offset_slots(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let p = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut w = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            p.producer_acquire(&w);
            p.producer_expect_tx(&w, TILE_BYTES);
            bulk_copy_global_to_shared(slot_address(base, w.index()), tile_src(input, t), TILE_BYTES, p.producer_barrier(&w));
            w.advance();
            t += g;
        }
        p.producer_tail(w);
    } else if tid < 32 {
        let mut r = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            p.consumer_wait(&r);
            acc += column8(slot_pointer(smem, r.index()).add(tid as usize));
            p.consumer_release(&r);
            r.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// The barriers sit in the first KiB and the ring after them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_ring_offset_mismatch(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const RING_OFFSET: u32 = TILE_BYTES;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base;
    let ring = base + RING_OFFSET;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let p = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut w = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            p.producer_acquire(&w);
            p.producer_expect_tx(&w, TILE_BYTES);
            bulk_copy_global_to_shared(ring + w.index() * TILE_BYTES, tile_src(input, t), TILE_BYTES, p.producer_barrier(&w));
            w.advance();
            t += g;
        }
        p.producer_tail(w);
    } else if tid < 32 {
        let mut r = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            p.consumer_wait(&r);
            acc += column8(smem.add(r.index() as usize * TILE_FLOATS + tid as usize));
            p.consumer_release(&r);
            r.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// The first row of the next tile is loaded early, to hide shared-memory latency.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_peek_next(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let p = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut w = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            p.producer_acquire(&w);
            p.producer_expect_tx(&w, TILE_BYTES);
            bulk_copy_global_to_shared(base + w.index() * TILE_BYTES, tile_src(input, t), TILE_BYTES, p.producer_barrier(&w));
            w.advance();
            t += g;
        }
        p.producer_tail(w);
    } else if tid < 32 {
        let c = tid as usize;
        let mut r = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut peeked: Option<f32> = None;
        let mut t = b;
        while t < tiles {
            p.consumer_wait(&r);
            let col = smem.add(r.index() as usize * TILE_FLOATS + c);
            let first = match peeked {
                Some(v) => v,
                None => *col,
            };
            let rest = *col.add(32) + *col.add(64) + *col.add(96) + *col.add(128) + *col.add(160) + *col.add(192) + *col.add(224);
            p.consumer_release(&r);
            r.advance();
            peeked = if t + g < tiles { Some(*smem.add(r.index() as usize * TILE_FLOATS + c)) } else { None };
            acc += first + rest;
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// The producer moves its state on as soon as the stage's barrier is known.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_early_advance(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let p = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut w = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            p.producer_acquire(&w);
            p.producer_expect_tx(&w, TILE_BYTES);
            let full = p.producer_barrier(&w);
            w.advance();
            bulk_copy_global_to_shared(base + w.index() * TILE_BYTES, tile_src(input, t), TILE_BYTES, full);
            t += g;
        }
        p.producer_tail(w);
    } else if tid < 32 {
        let mut r = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            p.consumer_wait(&r);
            acc += column8(smem.add(r.index() as usize * TILE_FLOATS + tid as usize));
            p.consumer_release(&r);
            r.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// Both states are made together, up front.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_state_pair(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let p = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let [mut w, mut r] = [PipelineState::<S>::producer_start(); 2];
    if tid == 32 {
        let mut t = b;
        while t < tiles {
            p.producer_acquire(&w);
            p.producer_expect_tx(&w, TILE_BYTES);
            bulk_copy_global_to_shared(base + w.index() * TILE_BYTES, tile_src(input, t), TILE_BYTES, p.producer_barrier(&w));
            w.advance();
            t += g;
        }
        p.producer_tail(w);
    } else if tid < 32 {
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            p.consumer_wait(&r);
            acc += column8(smem.add(r.index() as usize * TILE_FLOATS + tid as usize));
            p.consumer_release(&r);
            r.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + tid as usize) = acc;
    }
}

/// The consumers take three tiles per trip round their loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fast_unroll3(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let base = dynamic_shared_window_address();
    let bars = base + S * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let p = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut w = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            p.producer_acquire(&w);
            p.producer_expect_tx(&w, TILE_BYTES);
            bulk_copy_global_to_shared(base + w.index() * TILE_BYTES, tile_src(input, t), TILE_BYTES, p.producer_barrier(&w));
            w.advance();
            t += g;
        }
        p.producer_tail(w);
    } else if tid < 32 {
        let c = tid as usize;
        let mut r = PipelineState::<S>::new();
        let (mut x, mut y, mut z) = (0.0f32, 0.0f32, 0.0f32);
        let mut t = b;
        while t + 2 * g < tiles {
            p.consumer_wait(&r);
            x += column8(smem.add(r.index() as usize * TILE_FLOATS + c));
            p.consumer_release(&r);
            r.advance();
            p.consumer_wait(&r);
            y += column8(smem.add(r.index() as usize * TILE_FLOATS + c));
            p.consumer_release(&r);
            r.advance();
            p.consumer_wait(&r);
            z += column8(smem.add(r.index() as usize * TILE_FLOATS + c));
            p.consumer_release(&r);
            r.advance();
            t += 3 * g;
        }
        *out.add(b as usize * COLUMNS + c) = x + y + z;
    }
}
