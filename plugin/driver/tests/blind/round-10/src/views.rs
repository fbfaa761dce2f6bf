//! Style "view": plain shared memory seen through Rust's abstractions: slices, `chunks_exact`,
//! iterator adaptors, a struct holding the shared pointer, closures and const generics.

use core::slice;

use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, launch, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;

/// Correct: the tile is a `&mut [f32]` over shared memory, staged with `step_by(64)`; after the
/// barrier warp 0 sums its column with `skip(c).step_by(32).sum()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_slices(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let base = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { slice::from_raw_parts(input.add(t as usize * TILE), TILE) };
        {
            let tile = unsafe { slice::from_raw_parts_mut(base, TILE) };
            for i in (tid..TILE).step_by(64) {
                tile[i] = src[i];
            }
        }
        barrier();
        if tid < COLS {
            let tile = unsafe { slice::from_raw_parts(base as *const f32, TILE) };
            acc += tile.iter().skip(tid).step_by(COLS).sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: the staged tile read as rows with `chunks_exact(32)`; staging with
/// `get_unchecked_mut` on a slice.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_chunks(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let base = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        let tile = unsafe { slice::from_raw_parts_mut(base, TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *tile.get_unchecked_mut(i) = *src.add(i) };
            i += 64;
        }
        barrier();
        if tid < COLS {
            let tile = unsafe { slice::from_raw_parts(base as *const f32, TILE) };
            for row in tile.chunks_exact(COLS) {
                acc += row[tid];
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// A staging buffer in shared memory and the thread that uses it.
struct Staging {
    base: *mut f32,
    tid: usize,
    threads: usize,
}

impl Staging {
    unsafe fn fill(&self, src: *const f32) {
        let mut i = self.tid;
        while i < TILE {
            unsafe { *self.base.add(i) = *src.add(i) };
            i += self.threads;
        }
    }

    unsafe fn column(&self, c: usize) -> f32 {
        (0..8).map(|r| unsafe { *self.base.add(r * COLS + c) }).sum()
    }

    fn reads(&self) -> bool {
        self.tid < COLS
    }
}

/// Correct: a `Staging` struct holds the shared pointer and the thread index; its methods stage
/// and sum, the kernel places the barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_struct(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let staging = Staging { base: dynamic_shared_base::<f32>(), tid: thread_idx_x() as usize, threads: 64 };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { staging.fill(input.add(t as usize * TILE)) };
        barrier();
        if staging.reads() {
            acc += unsafe { staging.column(staging.tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if staging.reads() {
        unsafe { *out.add(block_idx_x() as usize * COLS + staging.tid) = acc };
    }
}

impl Staging {
    /// Waits for the staged tile, but only where somebody reads it.
    fn publish(&self) {
        if self.reads() {
            barrier();
        }
    }
}

/// Broken: as `r10_view_struct`, with the publishing barrier behind the struct's `publish`,
/// which lets only the reading warp wait: a barrier under a divergent branch in a helper. Warp
/// 0's publish barrier pairs with warp 1's end-of-tile barrier and warp 1 restages early.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_struct_reader_publish(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let staging = Staging { base: dynamic_shared_base::<f32>(), tid: thread_idx_x() as usize, threads: 64 };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { staging.fill(input.add(t as usize * TILE)) };
        staging.publish();
        if staging.reads() {
            acc += unsafe { staging.column(staging.tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if staging.reads() {
        unsafe { *out.add(block_idx_x() as usize * COLS + staging.tid) = acc };
    }
}

/// Correct: closures for staging and summing, capturing the shared pointer and the thread
/// index; the barriers stay in the kernel.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_closures(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let stage = |t: u32| {
        let src = unsafe { input.add(t as usize * TILE) };
        for k in 0..4 {
            let i = tid + 64 * k;
            unsafe { *s.add(i) = *src.add(i) };
        }
    };
    let column = |c: usize| -> f32 {
        let mut sum = 0.0;
        for r in 0..8 {
            sum += unsafe { *s.add(r * COLS + c) };
        }
        sum
    };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage(t);
        barrier();
        if tid < COLS {
            acc += column(tid);
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the closures again, but the barrier moved into `stage`, *before* its stores ("wait
/// until everybody is done with the buffer"). That protects the restaging but nothing orders the
/// stores before warp 0's reads right after it (read-before-write race).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_closure_barrier_first(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let stage = |t: u32| {
        barrier();
        let src = unsafe { input.add(t as usize * TILE) };
        for k in 0..4 {
            let i = tid + 64 * k;
            unsafe { *s.add(i) = *src.add(i) };
        }
    };
    let column = |c: usize| -> f32 {
        let mut sum = 0.0;
        for r in 0..8 {
            sum += unsafe { *s.add(r * COLS + c) };
        }
        sum
    };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        stage(t);
        if tid < COLS {
            acc += column(tid);
        }
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// The kernel's body for `THREADS` threads and tiles of `ROWS` rows of 32.
#[inline(always)]
unsafe fn generic_body<const THREADS: usize, const ROWS: usize>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * ROWS * COLS) };
        let mut i = tid;
        while i < ROWS * COLS {
            unsafe { *s.add(i) = *src.add(i) };
            i += THREADS;
        }
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += unsafe { *s.add(r * COLS + tid) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: the body as a const-generic function, instantiated for the launch (64 threads,
/// 8 rows).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_const_generic(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe { generic_body::<64, 8>(input, tiles, out) };
}

/// Staging ring in plain shared memory: tile `j` of the block goes to slot `j % SLOTS`, with
/// a single barrier per tile (after staging). With two or more slots the restaging of
/// iteration `j + 1` writes a slot nobody reads in that interval; the barrier of iteration `j`
/// orders it after the reads of the slot in iteration `j + 1 - SLOTS`.
#[inline(always)]
unsafe fn slot_ring<const SLOTS: usize>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    let mut j = 0usize;
    while t < tiles {
        let slot = unsafe { s.add((j % SLOTS) * TILE) };
        let src = unsafe { input.add(t as usize * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *slot.add(i) = *src.add(i) };
            i += 64;
        }
        barrier();
        if tid < COLS {
            for r in 0..8 {
                acc += unsafe { *slot.add(r * COLS + tid) };
            }
        }
        j += 1;
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: the slot ring with two slots (one barrier per tile suffices).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_slot_ring_two(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe { slot_ring::<2>(input, tiles, out) };
}

/// Broken: the slot ring instantiated with one slot: every tile is staged into the buffer warp 0
/// may still be summing (no barrier between the reads of tile `j` and the stores of tile `j + 1`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_slot_ring_one(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    unsafe { slot_ring::<1>(input, tiles, out) };
}

/// Correct: each thread sums one column over half the rows (`tid / 2` is the column,
/// `tid % 2` the row parity) and the partials are written as a slice, `parts[tid]`; warp 0 adds
/// each column's pair via `chunks_exact(2)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_pair_chunks(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let column = tid / 2;
    let parity = tid % 2;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let tile = unsafe { slice::from_raw_parts(input.add(t as usize * TILE), TILE) };
        acc += tile.iter().skip(parity * COLS + column).step_by(2 * COLS).sum::<f32>();
        t += grid_dim_x();
    }
    let parts = dynamic_shared_base::<f32>();
    unsafe { *parts.add(tid) = acc };
    barrier();
    if tid < COLS {
        let pairs = unsafe { slice::from_raw_parts(parts as *const f32, 64) };
        let pair = pairs.chunks_exact(2).nth(tid).unwrap_or(&[0.0, 0.0]);
        let total = pair[0] + pair[1];
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = total };
    }
}

/// Broken: `r10_view_pair_chunks` with the partial stored at `parts[column]` (the column, not
/// the thread): threads `2c` and `2c + 1` write the same slot with different values in the
/// same instruction (write-write race: one half of every column is lost).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_pair_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let column = tid / 2;
    let parity = tid % 2;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let tile = unsafe { slice::from_raw_parts(input.add(t as usize * TILE), TILE) };
        acc += tile.iter().skip(parity * COLS + column).step_by(2 * COLS).sum::<f32>();
        t += grid_dim_x();
    }
    let parts = dynamic_shared_base::<f32>();
    unsafe { *parts.add(column) = acc };
    barrier();
    if tid < COLS {
        let total = unsafe { *parts.add(tid) };
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = total };
    }
}

/// Broken: staged with `copy_nonoverlapping` (four floats a thread) and summed at once with an
/// iterator; the barrier is only at the end of the tile, so warp 0's `sum` reads elements
/// warp 1 copies in the same interval.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_copy_then_sum_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let base = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { core::ptr::copy_nonoverlapping(input.add(t as usize * TILE + 4 * tid), base.add(4 * tid), 4) };
        if tid < COLS {
            let tile = unsafe { slice::from_raw_parts(base as *const f32, TILE) };
            acc += tile.iter().skip(tid).step_by(COLS).sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: the same `copy_nonoverlapping` staging with the barrier in its place.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_view_copy_then_sum(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let base = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { core::ptr::copy_nonoverlapping(input.add(t as usize * TILE + 4 * tid), base.add(4 * tid), 4) };
        barrier();
        if tid < COLS {
            let tile = unsafe { slice::from_raw_parts(base as *const f32, TILE) };
            acc += tile.iter().skip(tid).step_by(COLS).sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}
