//! Style "stage": plain shared memory and block barriers, written the way a CUDA programmer
//! would write a first version: `while` loops over the block's tiles, a staging loop with a
//! per-thread counter, and one warp that sums the columns.

use crate::device::{barrier, block_dim_x, block_idx_x, dynamic_shared_base, grid_dim_x, launch, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;

/// Correct: stage the tile with a per-thread counter (step 64), barrier, warp 0 sums its column,
/// barrier before the buffer is staged again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_basic(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *s.add(i) = *src.add(i) };
            i += THREADS;
        }
        barrier();
        if tid < COLS {
            let mut k = 0;
            while k < ROWS {
                acc += unsafe { *s.add(tid + COLS * k) };
                k += 1;
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: as `r10_stage_basic` without the second barrier. Warp 1 stages the next tile into
/// the buffer while warp 0 still sums the current one (write-after-read race).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_no_second_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *s.add(i) = *src.add(i) };
            i += THREADS;
        }
        barrier();
        if tid < COLS {
            let mut k = 0;
            while k < ROWS {
                acc += unsafe { *s.add(tid + COLS * k) };
                k += 1;
            }
        }
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: a two-dimensional view (warp, lane). Each warp stages four rows of the tile; each
/// thread then sums the four rows the *other* warp staged (barrier in between), and the two
/// halves are combined through a scratch area after the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_warp_rows(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let warp = tid / 32;
    let lane = tid % 32;
    let s = dynamic_shared_base::<f32>();
    let scratch = unsafe { s.add(TILE) };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        for r in 0..4 {
            let row = 4 * warp + r;
            unsafe { *s.add(row * COLS + lane) = *src.add(row * COLS + lane) };
        }
        barrier();
        let other = 1 - warp;
        for r in 0..4 {
            acc += unsafe { *s.add((4 * other + r) * COLS + lane) };
        }
        barrier();
        t += grid_dim_x();
    }
    unsafe { *scratch.add(tid) = acc };
    barrier();
    if warp == 0 {
        let total = unsafe { *scratch.add(lane) + *scratch.add(lane + 32) };
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = total };
    }
}

/// Broken: `r10_stage_warp_rows` with only the barrier at the end of the tile: each thread
/// reads the rows the other warp stages in the same interval (read-before-write race).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_warp_rows_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let warp = tid / 32;
    let lane = tid % 32;
    let s = dynamic_shared_base::<f32>();
    let scratch = unsafe { s.add(TILE) };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        for r in 0..4 {
            let row = 4 * warp + r;
            unsafe { *s.add(row * COLS + lane) = *src.add(row * COLS + lane) };
        }
        let other = 1 - warp;
        for r in 0..4 {
            acc += unsafe { *s.add((4 * other + r) * COLS + lane) };
        }
        barrier();
        t += grid_dim_x();
    }
    unsafe { *scratch.add(tid) = acc };
    barrier();
    if warp == 0 {
        let total = unsafe { *scratch.add(lane) + *scratch.add(lane + 32) };
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = total };
    }
}

/// Correct: no launch declaration; every stride is `block_dim_x()`, so the kernel is right
/// for any one-dimensional block of at least one thread (64 in the run).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_dim_stride(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let threads = block_dim_x() as usize;
    let s = dynamic_shared_base::<f32>();
    // Column sums live in shared memory next to the tile, one slot per column.
    let sums = unsafe { s.add(TILE) };
    let mut c = tid;
    while c < COLS {
        unsafe { *sums.add(c) = 0.0 };
        c += threads;
    }
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *s.add(i) = *src.add(i) };
            i += threads;
        }
        barrier();
        let mut c = tid;
        while c < COLS {
            let mut column = 0.0f32;
            for k in 0..ROWS {
                column += unsafe { *s.add(c + COLS * k) };
            }
            unsafe { *sums.add(c) += column };
            c += threads;
        }
        barrier();
        t += grid_dim_x();
    }
    let mut c = tid;
    while c < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + c) = *sums.add(c) };
        c += threads;
    }
}

/// Broken: warp 1 has nothing to sum, so it `continue`s right after staging and skips the
/// second barrier. Its next staging barrier then pairs with warp 0's end-of-tile barrier: warp 1
/// runs a tile ahead and overwrites the buffer warp 0 is summing (barrier under a divergent
/// branch, race).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_stager_skips_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *s.add(i) = *src.add(i) };
            i += THREADS;
        }
        barrier();
        t += grid_dim_x();
        if tid >= COLS {
            continue;
        }
        for k in 0..ROWS {
            acc += unsafe { *s.add(tid + COLS * k) };
        }
        barrier();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Number of tiles block `b` handles.
#[inline(always)]
fn tiles_of_block(tiles: u32, b: u32, grid: u32) -> u32 {
    if b >= tiles { 0 } else { (tiles - b + grid - 1) / grid }
}

/// Correct: double buffering with one barrier per tile. Tile `j + 1` is staged into buffer
/// `(j + 1) % 2` while warp 0 sums buffer `j % 2`; the barrier at the end of the iteration
/// separates both from the next iteration's accesses.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let grid = grid_dim_x();
    let n = tiles_of_block(tiles, b, grid);
    let s = dynamic_shared_base::<f32>();
    let stage = |j: u32, buffer: usize| {
        let src = unsafe { input.add((b + j * grid) as usize * TILE) };
        let dst = unsafe { s.add(buffer * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *dst.add(i) = *src.add(i) };
            i += THREADS;
        }
    };
    let mut acc = 0.0f32;
    if n > 0 {
        stage(0, 0);
    }
    barrier();
    let mut j = 0;
    while j < n {
        if j + 1 < n {
            stage(j + 1, ((j + 1) % 2) as usize);
        }
        if tid < COLS {
            let cur = unsafe { s.add((j % 2) as usize * TILE) };
            for k in 0..ROWS {
                acc += unsafe { *cur.add(tid + COLS * k) };
            }
        }
        barrier();
        j += 1;
    }
    if tid < COLS {
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Broken: the double buffer with the next tile staged into the buffer being summed
/// (`j % 2` for both): the stores overwrite the current tile before (and while) warp 0 reads
/// it, so sums mix two tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_double_buffer_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    let grid = grid_dim_x();
    let n = tiles_of_block(tiles, b, grid);
    let s = dynamic_shared_base::<f32>();
    let stage = |j: u32, buffer: usize| {
        let src = unsafe { input.add((b + j * grid) as usize * TILE) };
        let dst = unsafe { s.add(buffer * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *dst.add(i) = *src.add(i) };
            i += THREADS;
        }
    };
    let mut acc = 0.0f32;
    if n > 0 {
        stage(0, 0);
    }
    barrier();
    let mut j = 0;
    while j < n {
        let slot = (j % 2) as usize;
        if j + 1 < n {
            stage(j + 1, slot);
        }
        if tid < COLS {
            let cur = unsafe { s.add(slot * TILE) };
            for k in 0..ROWS {
                acc += unsafe { *cur.add(tid + COLS * k) };
            }
        }
        barrier();
        j += 1;
    }
    if tid < COLS {
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Correct: no staging at all; each thread sums one column over half the rows straight from
/// global memory, and the two warps' partials meet in shared memory after one barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_partials_two_warps(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let column = tid % 32;
    let half = tid / 32;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        for r in 0..4 {
            acc += unsafe { *src.add((half * 4 + r) * COLS + column) };
        }
        t += grid_dim_x();
    }
    let parts = dynamic_shared_base::<f32>();
    unsafe { *parts.add(tid) = acc };
    barrier();
    if tid < COLS {
        let total = unsafe { *parts.add(tid) + *parts.add(tid + 32) };
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = total };
    }
}

/// Broken: both warps accumulate into the same 32 slots with a read-modify-write
/// (`parts[column] += acc`) in one barrier interval: threads `c` and `c + 32` race and one
/// partial can be lost.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_partials_shared_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let column = tid % 32;
    let half = tid / 32;
    let parts = dynamic_shared_base::<f32>();
    if tid < COLS {
        unsafe { *parts.add(tid) = 0.0 };
    }
    barrier();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        for r in 0..4 {
            acc += unsafe { *src.add((half * 4 + r) * COLS + column) };
        }
        t += grid_dim_x();
    }
    unsafe { *parts.add(column) += acc };
    barrier();
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = *parts.add(tid) };
    }
}

/// Correct: `loop` with a uniform `break`, the barriers under a uniform `if tiles > 0` and a
/// uniform early return for blocks without tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_uniform_exit(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let b = block_idx_x();
    if b >= tiles {
        if tid < COLS {
            unsafe { *out.add(b as usize * COLS + tid) = 0.0 };
        }
        return;
    }
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = b;
    loop {
        if t >= tiles {
            break;
        }
        let src = unsafe { input.add(t as usize * TILE) };
        unsafe {
            *s.add(tid) = *src.add(tid);
            *s.add(tid + 64) = *src.add(tid + 64);
            *s.add(tid + 128) = *src.add(tid + 128);
            *s.add(tid + 192) = *src.add(tid + 192);
        }
        barrier();
        if tid < COLS {
            for k in 0..ROWS {
                acc += unsafe { *s.add(tid + COLS * k) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(b as usize * COLS + tid) = acc };
    }
}

/// Broken: each tile gets "its own" slot, indexed by the global tile number, so that no
/// second barrier is needed. Tiles reach 63: slot 63 starts at byte 64512 of an 8 KiB window
/// (out-of-bounds shared memory: the stores fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_slot_per_tile(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        let slot = unsafe { s.add(t as usize * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *slot.add(i) = *src.add(i) };
            i += THREADS;
        }
        barrier();
        if tid < COLS {
            for k in 0..ROWS {
                acc += unsafe { *slot.add(tid + COLS * k) };
            }
        }
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the barrier that should publish the staged tile sits inside the readers' branch.
/// Warp 0's barrier pairs with warp 1's barrier of the *next* tile (a different `bar.sync`
/// instruction, the same barrier 0), so warp 1 stages ahead and overwrites the tile warp 0
/// reads (barrier under a divergent branch).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_barrier_in_reader(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let s = dynamic_shared_base::<f32>();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        let mut i = tid;
        while i < TILE {
            unsafe { *s.add(i) = *src.add(i) };
            i += THREADS;
        }
        if tid < COLS {
            barrier();
            for k in 0..ROWS {
                acc += unsafe { *s.add(tid + COLS * k) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken (subtle): `r10_stage_warp_rows` with the partials written over the start of the tile
/// buffer and the end-of-tile barrier skipped on the last tile ("the loop is over, nobody
/// restages"). The skip is uniform, but after the last tile warp 0 writes `s[0..32]` (row 0)
/// while warp 1 may still be reading row 0 (write-after-read race on the last tile only).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_stage_warp_rows_last_barrier_skipped(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    let tid = thread_idx_x() as usize;
    let warp = tid / 32;
    let lane = tid % 32;
    let s = dynamic_shared_base::<f32>();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE) };
        for r in 0..4 {
            let row = 4 * warp + r;
            unsafe { *s.add(row * COLS + lane) = *src.add(row * COLS + lane) };
        }
        barrier();
        let other = 1 - warp;
        for r in 0..4 {
            acc += unsafe { *s.add((4 * other + r) * COLS + lane) };
        }
        if t + grid < tiles {
            barrier();
        }
        t += grid;
    }
    unsafe { *s.add(tid) = acc };
    barrier();
    if warp == 0 {
        let total = unsafe { *s.add(lane) + *s.add(lane + 32) };
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = total };
    }
}
