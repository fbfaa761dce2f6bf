//! Plain shared memory, loop styles: `while` loops, `loop` with `break`, `for` over ranges and
//! `step_by`, halving strides, arrays held in registers and a hand-written warp shuffle. Only
//! ordinary shared memory and block barriers; no pipeline.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const THREADS: usize = 64;

/// Butterfly shuffle of one float within the warp (all 32 lanes take part).
#[inline(always)]
fn shfl_xor(value: f32, mask: u32) -> f32 {
    let result: f32;
    // SAFETY: register-only shuffle; every caller keeps the whole warp converged.
    unsafe {
        core::arch::asm!(
            "shfl.sync.bfly.b32 {r}, {v}, {m}, 0x1f, 0xffffffff;",
            r = out(reg32) result,
            v = in(reg32) value,
            m = in(reg32) mask,
            options(nomem, nostack),
        );
    }
    result
}

/// Correct: one tile at a time with `while` loops: every thread stages four floats, a barrier
/// publishes the tile, warp 0 sums its column, and a second barrier keeps the next staging off
/// the tile still being read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_stage_tile_while(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let tile = unsafe { input.add(t as usize * TILE) };
        let mut k = 0;
        while k < 4 {
            unsafe { *s.add(tid + THREADS * k) = *tile.add(tid + THREADS * k) };
            k += 1;
        }
        barrier();
        if tid < COLS {
            let mut row = 0;
            while row < ROWS {
                acc += unsafe { *s.add(tid + COLS * row) };
                row += 1;
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: stages up to eight of the block's tiles at once (the whole 8 KiB window), each with a
/// `step_by(64)` loop; warp `h` sums slots `4h..4h + 4`, and after the last batch warp 1 hands its
/// partials to warp 0 through slot 0, behind a barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_batches_of_eight(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let grid = grid_dim_x() as usize;
    let tiles = tiles as usize;
    let col = tid & 31;
    let half = tid >> 5;
    let mut acc = 0.0f32;
    let mut first = block_idx_x() as usize;
    while first < tiles {
        for slot in 0..8 {
            let t = first + slot * grid;
            if t < tiles {
                for i in (tid..TILE).step_by(THREADS) {
                    unsafe { *s.add(slot * TILE + i) = *input.add(t * TILE + i) };
                }
            }
        }
        barrier();
        for slot in half * 4..half * 4 + 4 {
            if first + slot * grid < tiles {
                for row in 0..ROWS {
                    acc += unsafe { *s.add(slot * TILE + col + COLS * row) };
                }
            }
        }
        barrier();
        first += 8 * grid;
    }
    if half == 1 {
        unsafe { *s.add(col) = acc };
    }
    barrier();
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc + *s.add(col) };
    }
}

/// Correct: `loop` with `break` for both the tile loop and the column loop; each thread moves
/// four contiguous floats through a register array before storing them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_loop_break_registers(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    loop {
        if t >= tiles {
            break;
        }
        let tile = unsafe { input.add(t as usize * TILE) };
        let mut regs = [0.0f32; 4];
        for (k, r) in regs.iter_mut().enumerate() {
            *r = unsafe { *tile.add(tid * 4 + k) };
        }
        for (k, r) in regs.iter().enumerate() {
            unsafe { *s.add(tid * 4 + k) = *r };
        }
        barrier();
        if tid < COLS {
            let mut row = 0;
            loop {
                acc += unsafe { *s.add(tid + COLS * row) };
                row += 1;
                if row == ROWS {
                    break;
                }
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: every thread works; thread `tid` owns column `tid >> 1` and the rows of parity
/// `tid & 1`, and the two threads of a column (neighbouring lanes of one warp) add their sums
/// with one shuffle at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_shuffle_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let col = tid >> 1;
    let parity = tid & 1;
    let mut acc = 0.0f32;
    for t in (block_idx_x()..tiles).step_by(grid_dim_x() as usize) {
        let tile = unsafe { input.add(t as usize * TILE) };
        for i in (tid..TILE).step_by(THREADS) {
            unsafe { *s.add(i) = *tile.add(i) };
        }
        barrier();
        for row in (parity..ROWS).step_by(2) {
            acc += unsafe { *s.add(col + COLS * row) };
        }
        barrier();
    }
    let total = acc + shfl_xor(acc, 1);
    if parity == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = total };
    }
}

/// Correct: no shared memory at all; warp 0 reads its column straight from global memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_registers_only(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    if tid >= COLS {
        return;
    }
    let mut acc = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        for row in 0..ROWS {
            acc += unsafe { *input.add(t * TILE + tid + COLS * row) };
        }
    }
    unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
}

/// Correct: a tree over the staged tile with a halving stride and a barrier after every level
/// (128, then 64), then warp 0 adds the last two rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_halving_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            unsafe { *s.add(tid + THREADS * k) = *input.add(t as usize * TILE + tid + THREADS * k) };
        }
        barrier();
        let mut stride = TILE / 2;
        while stride > COLS {
            for i in (tid..stride).step_by(THREADS) {
                unsafe { *s.add(i) += *s.add(i + stride) };
            }
            barrier();
            stride /= 2;
        }
        if tid < COLS {
            acc += unsafe { *s.add(tid) + *s.add(tid + COLS) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the barrier after warp 0's reads is missing, so warp 1 stages the next tile (its
/// half: the odd rows) while warp 0 is still summing the current one (write-after-read race).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_no_trailing_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        for k in 0..4 {
            unsafe { *s.add(tid + THREADS * k) = *input.add(t * TILE + tid + THREADS * k) };
        }
        barrier();
        if tid < COLS {
            for row in 0..ROWS {
                acc += unsafe { *s.add(tid + COLS * row) };
            }
        }
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the trailing barrier sits inside `if tid < 32`, so warp 0 passes two barriers per
/// tile and warp 1 one; the barriers pair up wrongly and warp 1 restages its half of the tile
/// while warp 0 reads it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_barrier_in_warp0(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            unsafe { *s.add(tid + THREADS * k) = *input.add(t as usize * TILE + tid + THREADS * k) };
        }
        barrier();
        if tid < COLS {
            for row in 0..ROWS {
                acc += unsafe { *s.add(tid + COLS * row) };
            }
            // Only the readers need to wait before the next tile overwrites this one.
            barrier();
        }
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the halving tree puts its barrier at the top of each level instead of the bottom, so
/// nothing orders the last level's stores (warp 1 writes `s[32..64]`) before warp 0 reads them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_tree_barrier_on_top(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            unsafe { *s.add(tid + THREADS * k) = *input.add(t as usize * TILE + tid + THREADS * k) };
        }
        let mut stride = TILE / 2;
        while stride > COLS {
            // Wait for the staging, or for the previous level.
            barrier();
            for i in (tid..stride).step_by(THREADS) {
                unsafe { *s.add(i) += *s.add(i + stride) };
            }
            stride /= 2;
        }
        if tid < COLS {
            acc += unsafe { *s.add(tid) + *s.add(tid + COLS) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the staging slot is computed from the tile index instead of 0, so every tile past the
/// first of block 0 lands 8 KiB or more into shared memory, past the 8 KiB the launch provides
/// (up to 63 KiB in): out-of-bounds shared stores.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_slot_by_tile_index(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        let slot = unsafe { s.add(t * TILE) };
        for k in 0..4 {
            unsafe { *slot.add(tid + THREADS * k) = *input.add(t * TILE + tid + THREADS * k) };
        }
        barrier();
        if tid < COLS {
            for row in 0..ROWS {
                acc += unsafe { *slot.add(tid + COLS * row) };
            }
        }
        barrier();
        t += grid_dim_x() as usize;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: warp 1 hands its partial sums to warp 0 through `s[0..32]` without a barrier between
/// the store and warp 0's load (read-after-write race: warp 0 may add the last tile's data).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_loop_partials_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let col = tid & 31;
    let half = tid >> 5;
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4 {
            unsafe { *s.add(tid + THREADS * k) = *input.add(t as usize * TILE + tid + THREADS * k) };
        }
        barrier();
        for row in half * 4..half * 4 + 4 {
            acc += unsafe { *s.add(col + COLS * row) };
        }
        barrier();
        t += grid_dim_x();
    }
    if half == 1 {
        unsafe { *s.add(col) = acc };
    }
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc + *s.add(col) };
    }
}
