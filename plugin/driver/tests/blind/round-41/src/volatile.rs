//! Raw-memory staging: `core::ptr::copy_nonoverlapping` quads from global into shared memory,
//! `write_volatile`/`read_volatile` for every shared access the author wants the compiler to keep,
//! and `MaybeUninit` arrays as per-thread snapshots of a staged column, filled element by
//! element and read with `assume_init` once every element is written.
//!
//! Launch: 64 threads, 8 blocks, 8192 bytes of dynamic shared memory.

use core::mem::MaybeUninit;
use core::ptr::{copy_nonoverlapping, read_volatile, write_volatile};

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const RING_BYTES: u32 = STAGES * TILE_BYTES;
const BARRIER_BYTES: u32 = 2 * 8 * STAGES;

/// Copies column `c` of the staged tile at `tile` into a `MaybeUninit` snapshot, row by row.
#[inline(always)]
unsafe fn snapshot_column(tile: *const f32, c: usize) -> [f32; 8] {
    let mut snap = MaybeUninit::<[f32; 8]>::uninit();
    let dst = snap.as_mut_ptr() as *mut f32;
    for r in 0..8 {
        copy_nonoverlapping(tile.add(r * 32 + c), dst.add(r), 1);
    }
    snap.assume_init()
}

#[inline(always)]
fn total(values: [f32; 8]) -> f32 {
    let mut sum = 0.0;
    for v in values {
        sum += v;
    }
    sum
}

/// Plain: each thread `copy_nonoverlapping`s its quad of the tile into shared memory, a block
/// barrier, warp 0 sums its column with `read_volatile`, a block barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_volatile_copy_quads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tile = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        copy_nonoverlapping(src.add(4 * tid), tile.add(4 * tid), 4);
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += read_volatile(tile.add(r * 32 + tid));
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        write_volatile(out.add(b as usize * 32 + tid), acc);
    }
}

/// Plain: staging with `write_volatile` (four strided elements per thread), then warp 0 fills a
/// `MaybeUninit<[f32; 8]>` with its column through `read_volatile` and sums it after
/// `assume_init`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_volatile_uninit_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tile = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        for k in 0..4 {
            let e = tid + 64 * k;
            write_volatile(tile.add(e), *src.add(e));
        }
        barrier();
        if tid < 32 {
            let mut column = MaybeUninit::<[f32; 8]>::uninit();
            let slots = column.as_mut_ptr() as *mut f32;
            for r in 0..8 {
                slots.add(r).write(read_volatile(tile.add(r * 32 + tid)));
            }
            acc += total(column.assume_init());
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// Pipeline: consumers snapshot their column of the stage into a `MaybeUninit` array between
/// `consumer_wait` and `consumer_release`, and sum the snapshot after the release (it is in
/// registers by then).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_volatile_ring_snapshot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let snap = snapshot_column(ring.add(state.index() as usize * TILE_FLOATS), c);
            pipe.consumer_release(&state);
            state.advance();
            acc += total(snap);
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Pipeline, then plain scratch: consumers `write_volatile` their sums into 32 floats beside the
/// ring and its barriers (byte 4352); after the roles a block barrier, and warp 0 (the
/// producer's warp) `read_volatile`s them and writes the output.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_volatile_partials_after_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    const SCRATCH_BYTE: usize = 4352;
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let scratch = dynamic_shared_base::<u8>().add(SCRATCH_BYTE) as *mut f32;
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += total(snapshot_column(ring.add(state.index() as usize * TILE_FLOATS), c));
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        write_volatile(scratch.add(c), acc);
    }
    barrier();
    if tid < 32 {
        *out.add(b as usize * 32 + tid as usize) = read_volatile(scratch.add(tid as usize));
    }
}

/// BROKEN: `copy_nonoverlapping`'s count given as the quad's bytes (16) instead of its floats
/// (4). The staged tile sits at the top of the window (byte 7168), and threads 61..63 copy past
/// byte 8192.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_volatile_bad_copy_count_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tile = dynamic_shared_base::<u8>().add((WINDOW_BYTES - TILE_BYTES) as usize) as *mut f32;
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        copy_nonoverlapping(src.add(4 * tid), tile.add(4 * tid), size_of::<[f32; 4]>());
        barrier();
        if tid < 32 {
            for r in 0..8 {
                acc += read_volatile(tile.add(r * 32 + tid));
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// BROKEN: the author took `write_volatile` plus a `compiler_fence` for enough ordering between
/// staging and reading; there is no block barrier there, so warp 0 reads the odd rows warp 1
/// stores before warp 1 stores them (the barrier after the read stays).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_volatile_bad_fence_not_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tile = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        for k in 0..4 {
            let e = tid + 64 * k;
            write_volatile(tile.add(e), *src.add(e));
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
        if tid < 32 {
            for r in 0..8 {
                acc += read_volatile(tile.add(r * 32 + tid));
            }
        }
        barrier();
        t += g;
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid) = acc;
    }
}

/// BROKEN: consumers release and advance first and only then snapshot "their" stage, through
/// the advanced state's index: every tile's column is read from the next stage (and after the
/// release), so the sums are of the wrong tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_volatile_bad_snapshot_after_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            pipe.consumer_release(&state);
            state.advance();
            let snap = snapshot_column(ring.add(state.index() as usize * TILE_FLOATS), c);
            acc += total(snap);
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// BROKEN: as `r41_volatile_partials_after_ring` with its scratch at byte 6144, but without the
/// block barrier between the consumers' `write_volatile` and warp 0's `read_volatile`: threads
/// 1..31 read the scratch while the consumers are still in their tile loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_volatile_bad_partials_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    const SCRATCH_BYTE: usize = 6144;
    let window = dynamic_shared_window_address();
    let bars = window + RING_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let scratch = dynamic_shared_base::<u8>().add(SCRATCH_BYTE) as *mut f32;
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            acc += total(snapshot_column(ring.add(state.index() as usize * TILE_FLOATS), c));
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        write_volatile(scratch.add(c), acc);
    }
    if tid < 32 {
        *out.add(b as usize * 32 + tid as usize) = read_volatile(scratch.add(tid as usize));
    }
}

const _: () = assert!(RING_BYTES + BARRIER_BYTES <= 4352);
