//! One row of a row-major matrix held in registers across a block, so that a row-wise kernel
//! (RMSNorm, softmax) reads each element from memory once instead of once per pass.
//!
//! Each thread keeps up to [`ROW_FLOATS_PER_THREAD`] floats of the row in [`ROW_CHUNKS`]
//! chunks of four: chunk `k` of thread `t` is the 16-byte group `t + k·blockDim.x`, one
//! `ld.v4`/`st.v4`. That needs the row's length to be a multiple of 4 and every pointer 16-byte
//! aligned; [`RowLayout::new`] says whether a launch qualifies, and kernels take their
//! two-read path otherwise. The loops below run over constant counts, so the compiler unrolls
//! them and the values never leave registers.
//!
//! Register budget: a 1024-thread block allows 64 registers per thread. A kernel should run
//! its one-read rows in a loop of their own (not beside its two-read path in one loop body):
//! the per-chunk offsets are loop-invariant and get hoisted, so both paths' offsets would
//! otherwise stay live together.

use super::cluster::{block_rank_in_cluster, cluster_block_count};
use super::geometry::{block_dim_x, thread_idx_x};

/// Chunks of four floats a thread holds.
pub const ROW_CHUNKS: usize = 4;
/// Floats of a row a thread holds: a block of 1024 threads holds rows of 16,384 floats.
pub const ROW_FLOATS_PER_THREAD: usize = 4 * ROW_CHUNKS;

/// Four floats, aligned so that one 16-byte load or store moves them.
#[repr(C, align(16))]
#[derive(Clone, Copy, Default)]
pub struct FourFloats(pub [f32; 4]);

/// A thread's share of one row, in registers.
pub type RowValues = [[f32; 4]; ROW_CHUNKS];

/// How the threads of a block split rows of `cols` floats held in registers.
#[derive(Clone, Copy)]
pub struct RowLayout {
    thread: usize,
    threads: usize,
    cols: usize,
}

impl RowLayout {
    /// The layout for rows of `cols` floats, or `None` when the block cannot hold such a row
    /// (`cols > 16 · blockDim.x`), `cols` is not a multiple of 4, or a pointer in `pointers`
    /// is not 16-byte aligned (each row then starts aligned too).
    #[inline(always)]
    pub fn new(cols: usize, pointers: &[usize]) -> Option<RowLayout> {
        let threads = block_dim_x() as usize;
        let fits = cols <= ROW_FLOATS_PER_THREAD * threads;
        let aligned = cols.is_multiple_of(4) && pointers.iter().all(|p| p.is_multiple_of(16));
        (fits && aligned).then(|| RowLayout { thread: thread_idx_x() as usize, threads, cols })
    }

    /// The first column of this thread's chunk `chunk` (at or past the row's end for chunks
    /// the row does not reach).
    #[inline(always)]
    fn first_column(&self, chunk: usize) -> usize {
        4 * (self.thread + chunk * self.threads)
    }

    /// Loads this thread's share of the row at `row`; chunks past the row's end hold `fill`.
    ///
    /// # Safety
    /// `row` points to `cols` readable floats, 16-byte aligned.
    #[inline(always)]
    pub unsafe fn load(&self, row: *const f32, fill: f32) -> RowValues {
        let mut values = [[fill; 4]; ROW_CHUNKS];
        for (chunk, slot) in values.iter_mut().enumerate() {
            let first = self.first_column(chunk);
            if first < self.cols {
                // SAFETY: `first + 3 < cols` (cols is a multiple of 4) and `row + first` is
                // 16-byte aligned.
                *slot = unsafe { *(row.add(first) as *const FourFloats) }.0;
            }
        }
        values
    }

    /// Stores this thread's share of the row to `row`, each element times `scale` of its
    /// column when `scale` is given. The chunk of `scale` is loaded right before its chunk is
    /// stored, so that only four of its values are live at a time.
    ///
    /// # Safety
    /// `row` points to `cols` writable floats and `scale` (if given) to `cols` readable ones,
    /// both 16-byte aligned.
    #[inline(always)]
    pub unsafe fn store(&self, row: *mut f32, values: &RowValues, scale: Option<*const f32>) {
        for (chunk, slot) in values.iter().enumerate() {
            let first = self.first_column(chunk);
            if first < self.cols {
                let mut out = *slot;
                if let Some(scale) = scale {
                    // SAFETY: as for `row`.
                    let f = unsafe { *(scale.add(first) as *const FourFloats) };
                    // Spelled out: an iterator here was left as a loop over local memory.
                    out = [out[0] * f.0[0], out[1] * f.0[1], out[2] * f.0[2], out[3] * f.0[3]];
                }
                // SAFETY: as in `load`.
                unsafe { *(row.add(first) as *mut FourFloats) = FourFloats(out) };
            }
        }
    }

    /// Calls `f(value)` for each element of `values` inside the row, in chunk order.
    #[inline(always)]
    pub fn for_each(&self, values: &RowValues, mut f: impl FnMut(f32)) {
        for (chunk, slot) in values.iter().enumerate() {
            if self.first_column(chunk) < self.cols {
                slot.iter().for_each(|v| f(*v));
            }
        }
    }

    /// Replaces every element `v` of `values` by `f(v, w)`, `w` the element of `others` in the
    /// same place.
    #[inline(always)]
    pub fn zip_map(values: &mut RowValues, others: &RowValues, f: impl Fn(f32, f32) -> f32) {
        for (chunk, other) in values.iter_mut().zip(others) {
            for (value, w) in chunk.iter_mut().zip(other) {
                *value = f(*value, *w);
            }
        }
    }

    /// Replaces every element `v` of `values` by `f(v)` (chunks past the row's end too: they
    /// are never stored).
    #[inline(always)]
    pub fn map(values: &mut RowValues, f: impl Fn(f32) -> f32) {
        for chunk in values.iter_mut() {
            for value in chunk.iter_mut() {
                *value = f(*value);
            }
        }
    }
}

/// The columns `start..start + len` of every row that this block handles. In a launch without
/// clusters that is the whole row. In clusters of `n` blocks (a cluster per row), the block of
/// rank `k` takes the `k`-th of `n` segments of `ceil(cols / n)` columns rounded up to a
/// multiple of 4, so that every segment starts 16-byte aligned when the row does; the last
/// segments may be shorter or empty.
#[derive(Clone, Copy)]
pub struct RowSegment {
    pub start: usize,
    pub len: usize,
    cols: usize,
}

impl RowSegment {
    #[inline(always)]
    pub fn of_this_block(cols: usize) -> RowSegment {
        // Never 0; `max` lets the compiler drop the division's panic path.
        let blocks = (cluster_block_count() as usize).max(1);
        let segment = cols.div_ceil(blocks).next_multiple_of(4);
        let start = (block_rank_in_cluster() as usize * segment).min(cols);
        RowSegment { start, len: segment.min(cols - start), cols }
    }

    /// The layout holding this segment of every row in registers ([`RowLayout::new`] for
    /// `len` floats), where `pointers` (moved to the segment's start) are 16-byte aligned and
    /// every row starts 16-byte aligned too (`cols` a multiple of 4); `None` otherwise.
    #[inline(always)]
    pub fn layout(&self, pointers: &[usize]) -> Option<RowLayout> {
        if self.cols.is_multiple_of(4) { RowLayout::new(self.len, pointers) } else { None }
    }
}
