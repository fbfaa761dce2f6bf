//! Plain shared memory behind abstractions: structs with pointer fields and methods, a trait,
//! const generics, `#[inline(never)]` helpers, closures, iterator adaptors, signed index
//! arithmetic, register arrays, `match` on warp roles, 16-byte vector moves.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x, warp_id};

const TILE_FLOATS: usize = 256;
const COLUMNS: usize = 32;
const ROWS: usize = 8;

/// Four floats moved as one 16-byte access.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad([f32; 4]);

#[derive(Clone, Copy)]
struct SharedTile {
    data: *mut f32,
}

impl SharedTile {
    #[inline(always)]
    unsafe fn load(self, src: *const f32, tid: usize) {
        for k in 0..4 {
            unsafe { *self.data.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
    }

    #[inline(always)]
    unsafe fn column(self, column: usize) -> f32 {
        (0..ROWS).map(|row| unsafe { *self.data.add(column + COLUMNS * row) }).sum()
    }

    /// Loads the tile and waits for the whole block, so that no caller can forget the barrier.
    #[inline(always)]
    unsafe fn load_synced(self, src: *const f32, tid: usize) {
        unsafe { self.load(src, tid) };
        barrier();
    }
}

/// A struct with a pointer field and methods; the kernel holds the barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_tile_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile = SharedTile { data: dynamic_shared_base() };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { tile.load(input.add(t as usize * TILE_FLOATS), tid) };
        barrier();
        if tid < COLUMNS {
            acc += unsafe { tile.column(tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// The same struct, with the barrier moved into the load.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_tile_struct_synced_load(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile = SharedTile { data: dynamic_shared_base() };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { tile.load_synced(input.add(t as usize * TILE_FLOATS), tid) };
        if tid < COLUMNS {
            acc += unsafe { tile.column(tid) };
        }
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

trait ColumnFold {
    unsafe fn fold(&self, tile: *const f32, column: usize) -> f32;
}

struct Pairwise;

impl ColumnFold for Pairwise {
    #[inline(always)]
    unsafe fn fold(&self, tile: *const f32, column: usize) -> f32 {
        let at = |row: usize| unsafe { *tile.add(column + COLUMNS * row) };
        ((at(0) + at(1)) + (at(2) + at(3))) + ((at(4) + at(5)) + (at(6) + at(7)))
    }
}

#[inline(always)]
unsafe fn fold_tiles<F: ColumnFold>(fold: &F, input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        for k in 0..4 {
            unsafe { *tile.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
        barrier();
        if tid < COLUMNS {
            acc += unsafe { fold.fold(tile, tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// A generic body over a trait that folds a column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_trait_pairwise(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { fold_tiles(&Pairwise, input, tiles, out) };
}

#[inline(always)]
unsafe fn run_slots<const SLOTS: usize>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x() as usize;
    let slots: *mut f32 = dynamic_shared_base();
    let step = grid_dim_x() as usize;
    let tiles = tiles as usize;
    let mut acc = 0.0f32;
    let mut round = block_idx_x() as usize;
    while round < tiles {
        for j in 0..SLOTS {
            let t = round + j * step;
            if t < tiles {
                let src = unsafe { input.add(t * TILE_FLOATS) };
                let slot = unsafe { slots.add(j * TILE_FLOATS) };
                for k in 0..4 {
                    unsafe { *slot.add(tid + 64 * k) = *src.add(tid + 64 * k) };
                }
            }
        }
        barrier();
        if tid < COLUMNS {
            for j in 0..SLOTS {
                if round + j * step < tiles {
                    let slot = unsafe { slots.add(j * TILE_FLOATS) };
                    for row in 0..ROWS {
                        acc += unsafe { *slot.add(tid + COLUMNS * row) };
                    }
                }
            }
        }
        barrier();
        round += SLOTS * step;
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// A const-generic body: four tiles staged per round into four slots.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_const_slots(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { run_slots::<4>(input, tiles, out) };
}

/// Four slots again, staged with 16-byte moves; the slot address is computed in bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_slots_byte_stride(input: *const f32, tiles: u32, out: *mut f32) {
    const SLOTS: usize = 4;
    const SLOT_FLOATS: usize = TILE_FLOATS;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let bytes: *mut u8 = dynamic_shared_base();
    let slot = |j: usize| unsafe { bytes.add(j * SLOT_FLOATS).cast::<Quad>() };
    let step = grid_dim_x() as usize;
    let tiles = tiles as usize;
    let mut acc = 0.0f32;
    let mut round = block_idx_x() as usize;
    while round < tiles {
        for j in 0..SLOTS {
            let t = round + j * step;
            if t < tiles {
                let src = unsafe { input.add(t * TILE_FLOATS).cast::<Quad>() };
                unsafe { *slot(j).add(tid) = *src.add(tid) };
            }
        }
        barrier();
        if tid < COLUMNS {
            for j in 0..SLOTS {
                if round + j * step < tiles {
                    let floats = slot(j).cast::<f32>();
                    for row in 0..ROWS {
                        acc += unsafe { *floats.add(tid + COLUMNS * row) };
                    }
                }
            }
        }
        barrier();
        round += SLOTS * step;
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

#[inline(never)]
unsafe fn copy_tile(dst: *mut f32, src: *const f32, tid: usize) {
    let mut i = tid;
    while i < TILE_FLOATS {
        unsafe { *dst.add(i) = *src.add(i) };
        i += 64;
    }
}

#[inline(never)]
unsafe fn sum_column(tile: *const f32, column: usize) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += unsafe { *tile.add(column + COLUMNS * row) };
    }
    sum
}

/// Staging and summing in `#[inline(never)]` helpers, the barriers between the calls.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_inline_never(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        unsafe { copy_tile(tile, input.add(t as usize * TILE_FLOATS), tid) };
        barrier();
        if tid < COLUMNS {
            acc += unsafe { sum_column(tile, tid) };
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Closures for the staging and the column sum; the tiles come from an iterator adaptor chain.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_closures(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let first = block_idx_x();
    let step = grid_dim_x();
    let stage = |t: u32| {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        for k in 0..4 {
            unsafe { *tile.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
    };
    let column_sum = |column: usize| -> f32 {
        let mut sum = 0.0f32;
        for row in 0..ROWS {
            sum += unsafe { *tile.add(column + COLUMNS * row) };
        }
        sum
    };
    let mut acc = 0.0f32;
    for t in (0u32..).map(|j| first + j * step).take_while(|&t| t < tiles) {
        stage(t);
        barrier();
        if tid < COLUMNS {
            acc += column_sum(tid);
        }
        barrier();
    }
    if tid < COLUMNS {
        unsafe { *out.add(first as usize * COLUMNS + tid) = acc };
    }
}

/// Closures again; the closure that sums also holds the barrier that lets the next tile in.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_closure_sum_then_sync(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let sum_and_release = |acc: &mut f32| {
        for row in 0..ROWS {
            *acc += unsafe { *tile.add(tid + COLUMNS * row) };
        }
        // The tile may be overwritten once everybody is here.
        barrier();
    };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        for k in 0..4 {
            unsafe { *tile.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
        barrier();
        if tid < COLUMNS {
            sum_and_release(&mut acc);
        }
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Signed indices, walked downwards with `offset`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_signed_reverse(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let me = thread_idx_x() as i32;
    let tile: *mut f32 = dynamic_shared_base();
    let tiles = tiles as i32;
    let step = grid_dim_x() as i32;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as i32;
    while t < tiles {
        let src = unsafe { input.offset(t as isize * TILE_FLOATS as isize) };
        let mut i = TILE_FLOATS as i32 - 1 - me;
        while i >= 0 {
            unsafe { *tile.offset(i as isize) = *src.offset(i as isize) };
            i -= 64;
        }
        barrier();
        if me < COLUMNS as i32 {
            let mut row = ROWS as i32 - 1;
            while row >= 0 {
                acc += unsafe { *tile.offset((me + COLUMNS as i32 * row) as isize) };
                row -= 1;
            }
        }
        barrier();
        t += step;
    }
    if me < COLUMNS as i32 {
        unsafe { *out.offset((block_idx_x() as i32 * COLUMNS as i32 + me) as isize) = acc };
    }
}

/// Signed indices; each thread of warp 0 pairs with the thread 32 above it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_signed_partner(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let me = thread_idx_x() as i32;
    let column = me % COLUMNS as i32;
    let half = me / COLUMNS as i32;
    let partial: *mut f32 = dynamic_shared_base();
    let tile = unsafe { partial.add(COLUMNS) };
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as i32;
    while t < tiles as i32 {
        let src = unsafe { input.offset(t as isize * TILE_FLOATS as isize) };
        for k in 0..4 {
            let i = (me + 64 * k) as isize;
            unsafe { *tile.offset(i) = *src.offset(i) };
        }
        barrier();
        for row in half * 4..half * 4 + 4 {
            acc += unsafe { *tile.offset((column + COLUMNS as i32 * row) as isize) };
        }
        barrier();
        t += grid_dim_x() as i32;
    }
    let partner = me - COLUMNS as i32;
    if half == 1 {
        unsafe { *partial.offset(partner as isize) = acc };
    }
    barrier();
    if half == 0 {
        let total = acc + unsafe { *partial.offset(partner as isize) };
        unsafe { *out.offset((block_idx_x() as i32 * COLUMNS as i32 + column) as isize) = total };
    }
}

/// Register arrays: each thread loads four floats, stores them transposed (column-major, one
/// column's eight rows contiguous), and warp 0 reads its column back into eight registers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_register_transpose(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        let mut regs = [0.0f32; 4];
        for (k, r) in regs.iter_mut().enumerate() {
            *r = unsafe { *src.add(tid * 4 + k) };
        }
        for (k, r) in regs.iter().enumerate() {
            let e = tid * 4 + k;
            unsafe { *s.add((e % COLUMNS) * ROWS + e / COLUMNS) = *r };
        }
        barrier();
        if tid < COLUMNS {
            let mut column = [0.0f32; ROWS];
            for (row, c) in column.iter_mut().enumerate() {
                *c = unsafe { *s.add(tid * ROWS + row) };
            }
            acc += column.iter().sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// The transposed store with shifts and masks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_register_transpose_shift(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let s: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        let regs: [f32; 4] = core::array::from_fn(|k| unsafe { *src.add(tid * 4 + k) });
        for (k, r) in regs.into_iter().enumerate() {
            let e = tid * 4 + k;
            unsafe { *s.add(((e & 31) << 3) | (e >> 6)) = r };
        }
        barrier();
        if tid < COLUMNS {
            let column: [f32; ROWS] = core::array::from_fn(|row| unsafe { *s.add((tid << 3) | row) });
            acc += column.iter().sum::<f32>();
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Both warps sum half a column, chosen by `match` on the warp; warp 1 hands its half over.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_match_warp_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let lane = tid % 32;
    let tile: *mut f32 = dynamic_shared_base();
    let partial = unsafe { tile.add(TILE_FLOATS) };
    let half_sum = |rows: core::ops::Range<usize>| -> f32 {
        rows.map(|row| unsafe { *tile.add(lane + COLUMNS * row) }).sum()
    };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        for k in 0..4 {
            unsafe { *tile.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
        barrier();
        let mine = match warp_id() {
            0 => half_sum(0..4),
            _ => {
                let s = half_sum(4..8);
                unsafe { *partial.add(lane) = s };
                s
            }
        };
        barrier();
        if warp_id() == 0 {
            acc += mine + unsafe { *partial.add(lane) };
        }
        t += grid_dim_x();
    }
    if warp_id() == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + lane) = acc };
    }
}

/// Both warps sum half of every column over all tiles; at the end warp 1's halves go into the
/// tile buffer, which is no longer needed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_partials_in_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let lane = tid % 32;
    let warp = tid / 32;
    let tile: *mut f32 = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        // Everybody is done with the previous tile.
        barrier();
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        for k in 0..4 {
            unsafe { *tile.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
        barrier();
        for row in warp * 4..warp * 4 + 4 {
            acc += unsafe { *tile.add(lane + COLUMNS * row) };
        }
        t += grid_dim_x();
    }
    if warp == 1 {
        unsafe { *tile.add(lane) = acc };
    }
    barrier();
    if warp == 0 {
        let total = acc + unsafe { *tile.add(lane) };
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + lane) = total };
    }
}

/// 16-byte vector moves from global memory into the shared tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_quad_loads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut Quad = dynamic_shared_base();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) as *const Quad };
        unsafe { *tile.add(tid) = *src.add(tid) };
        barrier();
        if tid < COLUMNS {
            let floats = tile as *const f32;
            for row in 0..ROWS {
                acc += unsafe { *floats.add(tid + COLUMNS * row) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + tid) = acc };
    }
}

/// Warp 0 sums; the results go through shared memory so that warp 1 does the global stores.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r12_obj_output_by_warp_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as usize;
    let tile: *mut f32 = dynamic_shared_base();
    let results = unsafe { tile.add(TILE_FLOATS) };
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let src = unsafe { input.add(t as usize * TILE_FLOATS) };
        for k in 0..4 {
            unsafe { *tile.add(tid + 64 * k) = *src.add(tid + 64 * k) };
        }
        barrier();
        if tid < COLUMNS {
            for row in 0..ROWS {
                acc += unsafe { *tile.add(tid + COLUMNS * row) };
            }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLUMNS {
        unsafe { *results.add(tid) = acc };
    } else {
        let column = tid - COLUMNS;
        unsafe { *out.add(block_idx_x() as usize * COLUMNS + column) = *results.add(column) };
    }
}
