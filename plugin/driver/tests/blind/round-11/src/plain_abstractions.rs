//! Plain shared memory behind abstractions: structs with pointer fields and methods, traits with
//! associated constants, const-generic and `#[inline(never)]` helpers, closures, `match` on
//! warp roles, signed index arithmetic, register arrays with the device API's segment shuffles.
//! Only ordinary shared memory and block barriers; no pipeline.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const COLS: usize = 32;

#[inline(always)]
fn shfl_xor(value: f32, mask: u32) -> f32 {
    let result: f32;
    // SAFETY: register-only shuffle; the whole warp is converged at every call.
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

/// A one-tile staging buffer in shared memory, seen by one thread.
struct Staging {
    smem: *mut f32,
    tid: usize,
}

impl Staging {
    fn new() -> Self {
        Staging { smem: dynamic_shared_base::<f32>(), tid: thread_idx_x() as usize }
    }

    /// Stores this thread's four elements (strided by 64) of `tile`, then publishes the tile.
    unsafe fn fill(&self, tile: *const f32) {
        for k in 0..4 {
            let i = self.tid + 64 * k;
            unsafe { *self.smem.add(i) = *tile.add(i) };
        }
        barrier();
    }

    /// Sum of column `c` of the staged tile.
    unsafe fn column(&self, c: usize) -> f32 {
        (0..8).map(|r| unsafe { *self.smem.add(c + COLS * r) }).sum()
    }

    /// Everybody is done reading; the buffer may be refilled.
    fn done(&self) {
        barrier();
    }
}

/// Correct: a `Staging` struct whose `fill` stores and publishes the tile, `column` reads it and
/// `done` is the trailing barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_staging_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let staging = Staging::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        unsafe { staging.fill(input.add(t * TILE)) };
        if staging.tid < COLS {
            acc += unsafe { staging.column(staging.tid) };
        }
        staging.done();
        t += grid_dim_x() as usize;
    }
    if staging.tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + staging.tid) = acc };
    }
}

trait Combine {
    const IDENTITY: f32;
    fn combine(a: f32, b: f32) -> f32;
}

struct Add;

impl Combine for Add {
    const IDENTITY: f32 = 0.0;
    fn combine(a: f32, b: f32) -> f32 {
        a + b
    }
}

#[inline(always)]
unsafe fn fold_column<C: Combine>(s: *const f32, c: usize) -> f32 {
    let mut v = C::IDENTITY;
    for r in 0..8 {
        v = C::combine(v, unsafe { *s.add(c + COLS * r) });
    }
    v
}

/// Correct: a generic column fold over a `Combine` trait (here addition), staged and ordered
/// like the plain loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_trait_combine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = Add::IDENTITY;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        for k in 0..4 {
            unsafe { *s.add(tid + 64 * k) = *input.add(t * TILE + tid + 64 * k) };
        }
        barrier();
        if tid < COLS {
            acc = Add::combine(acc, unsafe { fold_column::<Add>(s, tid) });
        }
        barrier();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Copies `PER` contiguous floats per thread from `src` to `dst`.
#[inline(never)]
unsafe fn stage_contiguous<const PER: usize>(dst: *mut f32, src: *const f32, tid: usize) {
    for k in 0..PER {
        unsafe { *dst.add(tid * PER + k) = *src.add(tid * PER + k) };
    }
}

/// Sum of the first `ROWS` rows of column `c`.
#[inline(never)]
unsafe fn column_rows<const ROWS: usize>(s: *const f32, c: usize) -> f32 {
    let mut v = 0.0;
    for r in 0..ROWS {
        v += unsafe { *s.add(c + COLS * r) };
    }
    v
}

/// Correct: const-generic, non-inlined helpers stage four contiguous floats per thread and sum
/// the eight rows of a column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_const_generic_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        unsafe { stage_contiguous::<4>(s, input.add(t * TILE), tid) };
        barrier();
        if tid < COLS {
            acc += unsafe { column_rows::<8>(s, tid) };
        }
        barrier();
        t += grid_dim_x() as usize;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: staging and the column read are closures capturing the shared pointer; barriers stay
/// in the kernel body.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_closures(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let stage = |t: usize| {
        for k in 0..4 {
            unsafe { *s.add(tid + 64 * k) = *input.add(t * TILE + tid + 64 * k) };
        }
    };
    let column = |c: usize| -> f32 { (0..8).map(|r| unsafe { *s.add(c + COLS * r) }).sum() };
    let mut acc = 0.0f32;
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        stage(t);
        barrier();
        if tid < COLS {
            acc += column(tid);
        }
        barrier();
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Correct: staging walks the tile backwards with signed offsets (`255 - tid - 64k`, a
/// permutation of the tile), reading back with `offset` from the base.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_signed_mirror(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as isize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as isize;
    while t < tiles as isize {
        let tile = unsafe { input.offset(t * TILE as isize) };
        for k in 0..4isize {
            let i = 255 - tid - 64 * k;
            unsafe { *s.offset(i) = *tile.offset(i) };
        }
        barrier();
        if tid < COLS as isize {
            for r in 0..8isize {
                acc += unsafe { *s.offset(tid + 32 * r) };
            }
        }
        barrier();
        t += grid_dim_x() as isize;
    }
    if tid < COLS as isize {
        unsafe { *out.offset(block_idx_x() as isize * 32 + tid) = acc };
    }
}

/// Correct: roles by `match` on the warp: warp 1 stages the whole tile (eight contiguous floats
/// per thread), warp 0 sums; barriers on both sides of the read are reached by everyone.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_match_warp_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let warp = tid >> 5;
    let lane = tid & 31;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        match warp {
            1 => {
                for k in 0..8 {
                    unsafe { *s.add(lane * 8 + k) = *input.add(t * TILE + lane * 8 + k) };
                }
            }
            _ => {}
        }
        barrier();
        match warp {
            0 => {
                for r in 0..8 {
                    acc += unsafe { *s.add(lane + COLS * r) };
                }
            }
            _ => {}
        }
        barrier();
        t += grid_dim_x() as usize;
    }
    if warp == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = acc };
    }
}

/// Correct: thread `tid` reads row `tid & 7` of the four columns `4 * (tid >> 3)..+4` into a
/// register array each tile; at the end `segment_sum(_, 8)` adds the eight rows held by eight
/// neighbouring lanes, and the lane of row 0 writes the four columns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_segment_sum_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let row = tid & 7;
    let group = tid >> 3;
    let mut acc = [0.0f32; 4];
    for t in (block_idx_x() as usize..tiles as usize).step_by(grid_dim_x() as usize) {
        for k in 0..4 {
            unsafe { *s.add(tid + 64 * k) = *input.add(t * TILE + tid + 64 * k) };
        }
        barrier();
        for (j, a) in acc.iter_mut().enumerate() {
            *a += unsafe { *s.add(group * 4 + j + COLS * row) };
        }
        barrier();
    }
    let mut totals = [0.0f32; 4];
    for (total, a) in totals.iter_mut().zip(acc.iter()) {
        *total = segment_sum(*a, 8);
    }
    if row == 0 {
        for (j, total) in totals.iter().enumerate() {
            unsafe { *out.add(block_idx_x() as usize * COLS + group * 4 + j) = *total };
        }
    }
}

/// Rows a warp sums, as a trait with associated constants and a default method.
trait RowSet {
    const FIRST: usize;
    const COUNT: usize;
    unsafe fn sum(s: *const f32, col: usize) -> f32 {
        let mut v = 0.0;
        for r in Self::FIRST..Self::FIRST + Self::COUNT {
            v += unsafe { *s.add(col + COLS * r) };
        }
        v
    }
}

struct Top;
struct Bottom;

impl RowSet for Top {
    const FIRST: usize = 0;
    const COUNT: usize = 4;
}

impl RowSet for Bottom {
    const FIRST: usize = 4;
    const COUNT: usize = 4;
}

/// Correct: per tile, each warp sums half the rows (`Top`/`Bottom` row sets), parks the partial
/// in a scratch area after the tile, and warp 0 adds both partials after a second barrier. Two
/// barriers per tile suffice: the next tile's staging barrier orders warp 0's scratch reads before
/// warp 1's next scratch store.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_two_barrier_combine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let scratch = unsafe { s.add(TILE) };
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid & 31, tid >> 5);
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        for k in 0..4 {
            unsafe { *s.add(tid + 64 * k) = *input.add(t * TILE + tid + 64 * k) };
        }
        barrier();
        let part = if half == 0 { unsafe { Top::sum(s, col) } } else { unsafe { Bottom::sum(s, col) } };
        unsafe { *scratch.add(tid) = part };
        barrier();
        if half == 0 {
            acc += unsafe { *scratch.add(col) + *scratch.add(col + COLS) };
        }
        t += grid_dim_x() as usize;
    }
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: the `Staging` variant puts its barrier at the start of `fill` ("wait until the last
/// tile is consumed") and none after the stores, so warp 0 reads warp 1's elements before they are
/// written (read-after-write race).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_struct_barrier_before_fill(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    struct Buffer {
        smem: *mut f32,
        tid: usize,
    }
    impl Buffer {
        unsafe fn fill(&self, tile: *const f32) {
            barrier();
            for k in 0..4 {
                let i = self.tid + 64 * k;
                unsafe { *self.smem.add(i) = *tile.add(i) };
            }
        }
        unsafe fn column(&self) -> f32 {
            (0..8).map(|r| unsafe { *self.smem.add(self.tid + COLS * r) }).sum()
        }
    }
    let buffer = Buffer { smem: dynamic_shared_base::<f32>(), tid: thread_idx_x() as usize };
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        unsafe { buffer.fill(input.add(t * TILE)) };
        if buffer.tid < COLS {
            acc += unsafe { buffer.column() };
        }
        t += grid_dim_x() as usize;
    }
    if buffer.tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + buffer.tid) = acc };
    }
}

/// Broken: the pair-shuffle kernel lets the odd lane of each pair `continue` after the shuffle
/// ("it keeps nothing"), skipping the trailing barrier: a barrier divergent inside every warp.
/// The odd lanes' next staging barrier pairs with the even lanes' trailing one, and the odd lanes
/// read the next tile while the even lanes are still staging it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_odd_lanes_continue(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let col = tid >> 1;
    let parity = tid & 1;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        for k in 0..4 {
            unsafe { *s.add(tid + 64 * k) = *input.add(t * TILE + tid + 64 * k) };
        }
        barrier();
        let mut v = 0.0f32;
        for r in (parity..8).step_by(2) {
            v += unsafe { *s.add(col + COLS * r) };
        }
        let total = v + shfl_xor(v, 1);
        t += grid_dim_x() as usize;
        if parity == 1 {
            continue;
        }
        acc += total;
        barrier();
    }
    if parity == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}

/// Broken: the "mirrored" staging index is written `(32 - tid).abs() + 64k`: threads `32 - d`
/// and `32 + d` store to one slot and slots `33..64` (+64k) are never written, so warp 0 sums
/// uninitialised or previous-tile values.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_signed_fold_collision(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as isize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as isize;
    while t < tiles as isize {
        let tile = unsafe { input.offset(t * TILE as isize) };
        for k in 0..4isize {
            let i = (32 - tid).abs() + 64 * k;
            unsafe { *s.offset(i) = *tile.offset(i) };
        }
        barrier();
        if tid < 32 {
            for r in 0..8isize {
                acc += unsafe { *s.offset(tid + 32 * r) };
            }
        }
        barrier();
        t += grid_dim_x() as isize;
    }
    if tid < 32 {
        unsafe { *out.offset(block_idx_x() as isize * 32 + tid) = acc };
    }
}

/// Broken: a double-buffered kernel calls `column_rows::<9>` (one row too many): row 8 of slot 0
/// is the start of slot 1, which the prefetch is writing at that moment (race), and row 8 of
/// slot 1 is never-written shared memory (wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_const_rows_nine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let grid = grid_dim_x() as usize;
    let mut acc = 0.0f32;
    let mut slot = 0usize;
    let mut t = block_idx_x() as usize;
    if t < tiles as usize {
        unsafe { stage_contiguous::<4>(s, input.add(t * TILE), tid) };
    }
    barrier();
    while t < tiles as usize {
        let next = t + grid;
        if next < tiles as usize {
            unsafe { stage_contiguous::<4>(s.add((slot ^ 1) * TILE), input.add(next * TILE), tid) };
        }
        if tid < COLS {
            acc += unsafe { column_rows::<9>(s.add(slot * TILE), tid) };
        }
        barrier();
        slot ^= 1;
        t = next;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: warp 1 leaves the loop (`return`) when a closure says the current tile is the last,
/// before staging it: its half of the last tile (the odd rows) keeps the previous tile's data,
/// and the last two barriers are reached by warp 0 only.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_closure_warp1_leaves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let grid = grid_dim_x() as usize;
    let is_last = |t: usize| t + grid >= tiles as usize;
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        if tid >= COLS && is_last(t) {
            // Warp 1 only stages; nothing is left for it to do.
            return;
        }
        for k in 0..4 {
            unsafe { *s.add(tid + 64 * k) = *input.add(t * TILE + tid + 64 * k) };
        }
        barrier();
        if tid < COLS {
            for r in 0..8 {
                acc += unsafe { *s.add(tid + COLS * r) };
            }
        }
        barrier();
        t += grid;
    }
    if tid < COLS {
        unsafe { *out.add(block_idx_x() as usize * COLS + tid) = acc };
    }
}

/// Broken: the two-warp combine without its second barrier: warp 0 reads warp 1's partial from
/// the scratch area right after storing its own (read-after-write race, stale partials).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_abs_combine_missing_barrier(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let scratch = unsafe { s.add(TILE) };
    let tid = thread_idx_x() as usize;
    let (col, half) = (tid & 31, tid >> 5);
    let mut acc = 0.0f32;
    let mut t = block_idx_x() as usize;
    while t < tiles as usize {
        for k in 0..4 {
            unsafe { *s.add(tid + 64 * k) = *input.add(t * TILE + tid + 64 * k) };
        }
        barrier();
        let part = if half == 0 { unsafe { Top::sum(s, col) } } else { unsafe { Bottom::sum(s, col) } };
        unsafe { *scratch.add(tid) = part };
        if half == 0 {
            acc += unsafe { *scratch.add(col) + *scratch.add(col + COLS) };
        }
        barrier();
        t += grid_dim_x() as usize;
    }
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    }
}
