//! Kernel-tree C habits carried into Rust: lower-case struct names, `#define`-style constants,
//! small `static inline` helpers with explicit `u32` arithmetic, an ops table of plain
//! functions, `while` loops over an explicit cursor, and one-letter locals where the kernel
//! tree would use them (`i`, `t`, `cpu`).
#![allow(non_camel_case_types)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const NR_THREADS: u32 = 64;
const SHMEM_SZ: u32 = 8192;
const TILE_NR_FLOATS: usize = 256;
const TILE_SZ: u32 = 1024;
const NR_COLS: usize = 32;
const NR_ROWS: usize = 8;
const NR_CONSUMERS: u32 = 32;

/// A tile ring: `RING_NR` stages of `TILE_SZ` bytes from window byte 0, barriers right after.
struct tile_ring<const RING_NR: u32> {
    pipe: Pipeline<RING_NR>,
    win: u32,
}

#[inline(always)]
fn tile_ring_bar_off(nr: u32) -> u32 {
    nr * TILE_SZ
}

#[inline(always)]
unsafe fn tile_src(input: *const f32, t: u32) -> *const u8 {
    input.add(t as usize * TILE_NR_FLOATS) as *const u8
}

#[inline(always)]
unsafe fn col_sum(slot: *const f32, col: usize) -> f32 {
    let mut acc = 0.0f32;
    let mut i = 0;
    while i < NR_ROWS {
        acc += *slot.add(i * NR_COLS + col);
        i += 1;
    }
    acc
}

/// The classic `ring_setup()`: cpu 0 initialises, everyone syncs.
#[inline(always)]
unsafe fn tile_ring_setup<const RING_NR: u32>(cpu: u32) -> tile_ring<RING_NR> {
    let win = dynamic_shared_window_address();
    let bars = win + tile_ring_bar_off(RING_NR);
    let pipe = if cpu == 0 {
        Pipeline::<RING_NR>::init(bars, NR_CONSUMERS)
    } else {
        Pipeline::<RING_NR>::attach(bars)
    };
    barrier();
    tile_ring { pipe, win }
}

/// ring4: the default four-slot ring; warp 0 consumes, thread 32 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_linux_ring4(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NR_THREADS);
    dynamic_shared_bytes(SHMEM_SZ);
    let cpu = thread_idx_x();
    let r = tile_ring_setup::<4>(cpu);
    let shm = dynamic_shared_base::<f32>();

    if cpu == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            r.pipe.producer_acquire(&st);
            r.pipe.producer_expect_tx(&st, TILE_SZ);
            bulk_copy_global_to_shared(r.win + st.index() * TILE_SZ, tile_src(input, t), TILE_SZ, r.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        r.pipe.producer_tail(st);
    } else if cpu < NR_CONSUMERS {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            r.pipe.consumer_wait(&st);
            acc += col_sum(shm.add(st.index() as usize * TILE_NR_FLOATS), cpu as usize);
            r.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NR_COLS + cpu as usize) = acc;
    }
}

/// ring2: a double buffer, the producer parked on the last thread of warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_linux_ring2_lastcpu(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NR_THREADS);
    dynamic_shared_bytes(SHMEM_SZ);
    let cpu = thread_idx_x();
    let r = tile_ring_setup::<2>(cpu);
    let shm = dynamic_shared_base::<f32>();

    if cpu == NR_THREADS - 1 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            r.pipe.producer_acquire(&st);
            r.pipe.producer_expect_tx(&st, TILE_SZ);
            bulk_copy_global_to_shared(r.win + st.index() * TILE_SZ, tile_src(input, t), TILE_SZ, r.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        r.pipe.producer_tail(st);
    } else if cpu < NR_CONSUMERS {
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            r.pipe.consumer_wait(&st);
            acc += col_sum(shm.add(st.index() as usize * TILE_NR_FLOATS), cpu as usize);
            r.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NR_COLS + cpu as usize) = acc;
    }
}

#[inline(always)]
unsafe fn ring3_produce(r: &tile_ring<3>, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<3>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        r.pipe.producer_acquire(&st);
        r.pipe.producer_expect_tx(&st, TILE_SZ);
        bulk_copy_global_to_shared(r.win + st.index() * TILE_SZ, tile_src(input, t), TILE_SZ, r.pipe.producer_barrier(&st));
        st.advance();
        t += grid_dim_x();
    }
    r.pipe.producer_tail(st);
}

#[inline(always)]
unsafe fn ring3_consume(r: &tile_ring<3>, tiles: u32, out: *mut f32) {
    let shm = dynamic_shared_base::<f32>();
    let cpu = thread_idx_x();
    let mut st = PipelineState::<3>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        r.pipe.consumer_wait(&st);
        acc += col_sum(shm.add(st.index() as usize * TILE_NR_FLOATS), cpu as usize);
        r.pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    *out.add(block_idx_x() as usize * NR_COLS + cpu as usize) = acc;
}

/// Three slots, the loops in `ring3_produce()` / `ring3_consume()` handlers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_linux_ring3_handlers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NR_THREADS);
    dynamic_shared_bytes(SHMEM_SZ);
    let cpu = thread_idx_x();
    let r = tile_ring_setup::<3>(cpu);
    if cpu == 32 {
        ring3_produce(&r, input, tiles);
    } else if cpu < NR_CONSUMERS {
        ring3_consume(&r, tiles, out);
    }
}

/// Per-cpu partials in shared memory: each thread sums half of the rows of its column over the
/// block's tiles straight from global memory, then cpu < 32 folds the two halves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_linux_percpu_fold(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NR_THREADS);
    dynamic_shared_bytes(SHMEM_SZ);
    let cpu = thread_idx_x();
    let percpu = dynamic_shared_base::<f32>();
    let col = (cpu % 32) as usize;
    let half = (cpu / 32) as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let base = input.add(t as usize * TILE_NR_FLOATS);
        let mut i = half * 4;
        while i < half * 4 + 4 {
            acc += *base.add(i * NR_COLS + col);
            i += 1;
        }
        t += grid_dim_x();
    }
    *percpu.add(cpu as usize) = acc;
    barrier();
    if cpu < 32 {
        *out.add(block_idx_x() as usize * NR_COLS + col) = *percpu.add(col) + *percpu.add(col + 32);
    }
}

/// ring4, the producer announcing each slot's payload before its copy.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_linux_ring4_announce(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NR_THREADS);
    dynamic_shared_bytes(SHMEM_SZ);
    let cpu = thread_idx_x();
    let r = tile_ring_setup::<4>(cpu);
    let shm = dynamic_shared_base::<f32>();

    if cpu == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            r.pipe.producer_acquire(&st);
            r.pipe.producer_expect_tx(&st, TILE_NR_FLOATS as u32);
            bulk_copy_global_to_shared(r.win + st.index() * TILE_SZ, tile_src(input, t), TILE_SZ, r.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        r.pipe.producer_tail(st);
    } else if cpu < NR_CONSUMERS {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            r.pipe.consumer_wait(&st);
            acc += col_sum(shm.add(st.index() as usize * TILE_NR_FLOATS), cpu as usize);
            r.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NR_COLS + cpu as usize) = acc;
    }
}

/// ring4 whose consumers walk up to the block's last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_linux_ring4_walk(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NR_THREADS);
    dynamic_shared_bytes(SHMEM_SZ);
    let cpu = thread_idx_x();
    let r = tile_ring_setup::<4>(cpu);
    let shm = dynamic_shared_base::<f32>();
    let last = tiles - 1;

    if cpu == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            r.pipe.producer_acquire(&st);
            r.pipe.producer_expect_tx(&st, TILE_SZ);
            bulk_copy_global_to_shared(r.win + st.index() * TILE_SZ, tile_src(input, t), TILE_SZ, r.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        r.pipe.producer_tail(st);
    } else if cpu < NR_CONSUMERS {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t <= last + 1 {
            r.pipe.consumer_wait(&st);
            acc += col_sum(shm.add(st.index() as usize * TILE_NR_FLOATS), cpu as usize);
            r.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NR_COLS + cpu as usize) = acc;
    }
}

/// ring4 with the ring setup open-coded in the kernel body.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_linux_ring4_open_coded(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NR_THREADS);
    dynamic_shared_bytes(SHMEM_SZ);
    let cpu = thread_idx_x();
    let win = dynamic_shared_window_address();
    let bars = win + tile_ring_bar_off(4);
    barrier();
    let pipe = if cpu == 0 { Pipeline::<4>::init(bars, NR_CONSUMERS) } else { Pipeline::<4>::attach(bars) };
    let shm = dynamic_shared_base::<f32>();

    if cpu == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_SZ);
            bulk_copy_global_to_shared(win + st.index() * TILE_SZ, tile_src(input, t), TILE_SZ, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if cpu < NR_CONSUMERS {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += col_sum(shm.add(st.index() as usize * TILE_NR_FLOATS), cpu as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * NR_COLS + cpu as usize) = acc;
    }
}

/// Per-cpu partials with the fold open-coded after the store.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r52_linux_percpu_fold_inline(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NR_THREADS);
    dynamic_shared_bytes(SHMEM_SZ);
    let cpu = thread_idx_x();
    let percpu = dynamic_shared_base::<f32>();
    let col = (cpu % 32) as usize;
    let half = (cpu / 32) as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let base = input.add(t as usize * TILE_NR_FLOATS);
        let mut i = half * 4;
        while i < half * 4 + 4 {
            acc += *base.add(i * NR_COLS + col);
            i += 1;
        }
        t += grid_dim_x();
    }
    *percpu.add(cpu as usize) = acc;
    if cpu < 32 {
        *out.add(block_idx_x() as usize * NR_COLS + col) = *percpu.add(col) + *percpu.add(col + 32);
    }
}
