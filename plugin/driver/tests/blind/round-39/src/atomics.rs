//! Style `atomics`: partial results meet in shared memory through `core::sync::atomic`
//! (`AtomicU32::from_ptr` over a float's bits, added with `AtomicU32::update`), and work can be handed
//! out by an atomic counter. Threads split the data freely (two threads per column, a row segment
//! per lane, items claimed from a queue) and let the atomics combine it; block barriers only fence
//! the zeroing before and the reading after.
//!
//! Pipeline kernels: 64 threads, thread 32 produces, threads 0..31 consume; the ring at window
//! byte 0, the barriers right after it, the accumulators after those.

use core::sync::atomic::{AtomicU32, Ordering};

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

/// `*slot += value`, atomically, for a float in shared memory.
#[inline(always)]
unsafe fn atomic_add_f32(slot: *mut f32, value: f32) {
    // SAFETY: `slot` is 4-byte aligned shared memory, accessed only atomically while others add.
    let bits = unsafe { AtomicU32::from_ptr(slot.cast()) };
    bits.update(Ordering::Relaxed, Ordering::Relaxed, |old| (f32::from_bits(old) + value).to_bits());
}

#[inline(always)]
fn tiles_of_block(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

/// No pipeline: each thread reads its half of a column (rows of its parity) straight from global
/// memory, and the two halves of each column meet in a shared accumulator.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_atomics_two_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let acc = dynamic_shared_base::<f32>();
    if tid < COLS {
        *acc.add(tid) = 0.0;
    }
    barrier();

    let (c, half) = (tid % COLS, tid / COLS);
    let mut sum = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * TILE);
        for r in (half..ROWS).step_by(2) {
            sum += *tile.add(c + COLS * r);
        }
        t += g;
    }
    atomic_add_f32(acc.add(c), sum);
    barrier();
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = *acc.add(tid);
    }
}

/// No pipeline: the block stages each tile with one 16-byte store per thread, then each thread
/// adds four rows of its column (warp 0 rows 0..3, warp 1 rows 4..7); at the end the two warps'
/// sums meet atomically in accumulators beside the staging buffer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_atomics_staged_quads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let staging = dynamic_shared_base::<[f32; 4]>();
    let acc = dynamic_shared_base::<f32>().add(TILE);
    if tid < COLS {
        *acc.add(tid) = 0.0;
    }
    barrier();

    let (c, warp) = (tid % COLS, tid / COLS);
    let mut sum = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE).cast::<[f32; 4]>();
        *staging.add(tid) = *src.add(tid);
        barrier();
        let tile = staging.cast::<f32>();
        for r in 4 * warp..4 * warp + 4 {
            sum += *tile.add(c + COLS * r);
        }
        barrier();
        t += g;
    }
    atomic_add_f32(acc.add(c), sum);
    barrier();
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = *acc.add(tid);
    }
}

/// Four stages; each consumer lane reads eight consecutive floats of the stage (row `lane / 4`,
/// columns `8 · (lane % 4) ..`), keeps eight partial column sums, and adds them atomically into
/// the block's accumulators after the mainloop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_atomics_row_segments(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let acc = dynamic_shared_base::<u8>().add((S * TILE_BYTES + pipeline_barrier_bytes(S)) as usize).cast::<f32>();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    if tid < COLS as u32 {
        *acc.add(tid as usize) = 0.0;
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let mut write = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, TILE_BYTES);
            bulk_copy_global_to_shared(window + write.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&write));
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let ring = dynamic_shared_base::<f32>();
        let lane = tid as usize;
        let first = COLS * (lane / 4) + 8 * (lane % 4);
        let mut part = [0.0f32; 8];
        let mut read = PipelineState::<S>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let segment = ring.add(read.index() as usize * TILE + first);
            for (j, p) in part.iter_mut().enumerate() {
                *p += *segment.add(j);
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        let column = 8 * (lane % 4);
        for (j, p) in part.iter().enumerate() {
            atomic_add_f32(acc.add(column + j), *p);
        }
    }
    barrier();
    if tid < COLS as u32 {
        *out.add(b as usize * COLS + tid as usize) = *acc.add(tid as usize);
    }
}

/// No pipeline: a work queue. The items are (k-tile, column) pairs; threads claim them with
/// `fetch_add` on a shared counter until the queue is empty, sum the column from global memory
/// and add it atomically into that column's accumulator.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_atomics_work_queue(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let counter = dynamic_shared_base::<u32>();
    let acc = dynamic_shared_base::<f32>().add(4);
    if tid == 0 {
        *counter = 0;
    }
    if tid < COLS {
        *acc.add(tid) = 0.0;
    }
    barrier();

    let items = tiles_of_block(tiles, b, g) * COLS as u32;
    let next = AtomicU32::from_ptr(counter);
    loop {
        let item = next.fetch_add(1, Ordering::Relaxed);
        if item >= items {
            break;
        }
        let (k, c) = (item / COLS as u32, (item % COLS as u32) as usize);
        let tile = input.add((b + k * g) as usize * TILE);
        let mut sum = 0.0f32;
        for r in 0..ROWS {
            sum += *tile.add(c + COLS * r);
        }
        atomic_add_f32(acc.add(c), sum);
    }
    barrier();
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = *acc.add(tid);
    }
}

/// BROKEN: the two halves of each column are added with a plain `+=` ("they are only two
/// threads"): threads `c` and `c + 32` read-modify-write the same shared float between the same
/// barriers, a race (racecheck), and a lost update gives a wrong sum.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_atomics_bad_plain_increment(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tid = thread_idx_x() as usize;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let acc = dynamic_shared_base::<f32>();
    if tid < COLS {
        *acc.add(tid) = 0.0;
    }
    barrier();

    let (c, half) = (tid % COLS, tid / COLS);
    let mut sum = 0.0f32;
    let mut t = b;
    while t < tiles {
        let tile = input.add(t as usize * TILE);
        for r in (half..ROWS).step_by(2) {
            sum += *tile.add(c + COLS * r);
        }
        t += g;
    }
    *acc.add(c) += sum;
    barrier();
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = *acc.add(tid);
    }
}

/// BROKEN: the row segments were widened to 16 floats for 16 consumer lanes (`LANES`), but the
/// pipeline is still initialised for a warp of 32 releasing threads: each empty barrier gets 16
/// of its 32 arrivals, the producer waits for its fifth stage forever: the launch hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_atomics_bad_sixteen_lanes(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    const LANES: u32 = 16;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let acc = dynamic_shared_base::<u8>().add((S * TILE_BYTES + pipeline_barrier_bytes(S)) as usize).cast::<f32>();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    if tid < COLS as u32 {
        *acc.add(tid as usize) = 0.0;
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let mut write = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, TILE_BYTES);
            bulk_copy_global_to_shared(window + write.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&write));
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else if tid < LANES {
        let ring = dynamic_shared_base::<f32>();
        let lane = tid as usize;
        let first = COLS * (lane / 2) + 16 * (lane % 2);
        let mut part = [0.0f32; 16];
        let mut read = PipelineState::<S>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let segment = ring.add(read.index() as usize * TILE + first);
            for (j, p) in part.iter_mut().enumerate() {
                *p += *segment.add(j);
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        let column = 16 * (lane % 2);
        for (j, p) in part.iter().enumerate() {
            atomic_add_f32(acc.add(column + j), *p);
        }
    }
    barrier();
    if tid < COLS as u32 {
        *out.add(b as usize * COLS + tid as usize) = *acc.add(tid as usize);
    }
}

/// BROKEN: no block barrier between the consumers' atomic adds and warp 1's stores of the
/// accumulators ("the producer's tail returns only after the last release"): threads 33..63 run
/// no tail and read the accumulators at once, and even thread 32's tail returns before the
/// consumers' adds, which follow their last release: a race, and zeros or partial sums written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_atomics_bad_unsynced_epilogue(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let acc = dynamic_shared_base::<u8>().add((S * TILE_BYTES + pipeline_barrier_bytes(S)) as usize).cast::<f32>();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    if tid < COLS as u32 {
        *acc.add(tid as usize) = 0.0;
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid < CONSUMERS {
        let ring = dynamic_shared_base::<f32>();
        let lane = tid as usize;
        let first = COLS * (lane / 4) + 8 * (lane % 4);
        let mut part = [0.0f32; 8];
        let mut read = PipelineState::<S>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let segment = ring.add(read.index() as usize * TILE + first);
            for (j, p) in part.iter_mut().enumerate() {
                *p += *segment.add(j);
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        let column = 8 * (lane % 4);
        for (j, p) in part.iter().enumerate() {
            atomic_add_f32(acc.add(column + j), *p);
        }
    } else {
        if tid == PRODUCER {
            let mut write = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&write);
                pipe.producer_expect_tx(&write, TILE_BYTES);
                bulk_copy_global_to_shared(window + write.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&write));
                write.advance();
                t += g;
            }
            pipe.producer_tail(write);
        }
        let c = (tid - PRODUCER) as usize;
        *out.add(b as usize * COLS + c) = *acc.add(c);
    }
}

/// BROKEN: the accumulators sit in the window's last 32 floats, and the epilogue indexes them
/// with the lane's first float in the tile row, `lane * 8 + j`, instead of its column
/// `8 * (lane % 4) + j`: lanes 4..31 add up to 224 floats past the accumulators, past the
/// 8192-byte window: the atomic adds fault.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_atomics_bad_segment_index(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let acc = dynamic_shared_base::<f32>().add(SMEM_BYTES as usize / 4 - COLS);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    if tid < COLS as u32 {
        *acc.add(tid as usize) = 0.0;
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let mut write = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, TILE_BYTES);
            bulk_copy_global_to_shared(window + write.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&write));
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let ring = dynamic_shared_base::<f32>();
        let lane = tid as usize;
        let first = COLS * (lane / 4) + 8 * (lane % 4);
        let mut part = [0.0f32; 8];
        let mut read = PipelineState::<S>::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let segment = ring.add(read.index() as usize * TILE + first);
            for (j, p) in part.iter_mut().enumerate() {
                *p += *segment.add(j);
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        for (j, p) in part.iter().enumerate() {
            atomic_add_f32(acc.add(lane * 8 + j), *p);
        }
    }
    barrier();
    if tid < COLS as u32 {
        *out.add(b as usize * COLS + tid as usize) = *acc.add(tid as usize);
    }
}
