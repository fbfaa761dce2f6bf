//! Decode-style matrix-vector product over half-precision weights.

use crate::device::launch::block_threads_at_most;
use crate::device::math::{f16_bits_to_f32, fma};
use crate::device::reduce::{block_sum, segment_sum};
use crate::device::row::FourFloats;
use crate::device::strided::{strided, strided_by};
use crate::device::unrolled::unrolled;
use crate::device::{
    WARP_SIZE, barrier, block_dim_x, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x,
    warp_id,
};

/// Eight IEEE binary16 values, aligned so that one 16-byte load fetches them.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct EightHalves([u16; 8]);

/// Whether the 16-byte path applies: `cols` a multiple of 8 and `weights` and `x` 16-byte
/// aligned, so that every row of both starts 16-byte aligned.
#[inline(always)]
fn sixteen_byte_path(weights: *const u16, x: *const f32, cols: usize) -> bool {
    cols.is_multiple_of(8) && (weights as usize).is_multiple_of(16) && (x as usize).is_multiple_of(16)
}

/// Columns `8 * chunk .. 8 * chunk + 8` of a weight row, in one 16-byte load.
///
/// # Safety
/// `row` is 16-byte aligned and holds at least `8 * chunk + 8` halves.
#[inline(always)]
unsafe fn eight_halves(row: *const u16, chunk: usize) -> [u16; 8] {
    // SAFETY: the caller's contract.
    unsafe { (*(row as *const EightHalves).add(chunk)).0 }
}

/// Columns `8 * chunk .. 8 * chunk + 8` of an activation row, in two 16-byte loads.
///
/// # Safety
/// `row` is 16-byte aligned and holds at least `8 * chunk + 8` floats.
#[inline(always)]
unsafe fn eight_floats(row: *const f32, chunk: usize) -> [f32; 8] {
    let quads = row as *const FourFloats;
    // SAFETY: the caller's contract.
    let (low, high) = unsafe { ((*quads.add(2 * chunk)).0, (*quads.add(2 * chunk + 1)).0) };
    [low[0], low[1], low[2], low[3], high[0], high[1], high[2], high[3]]
}

/// `y[r] = sum_c f16(weights[r][c]) * x[c]` for `r < rows`: the projection a transformer runs
/// once per generated token. `weights` is row-major IEEE binary16 (`rows × cols`, as raw
/// bits); products are accumulated in `f32` with fused multiply-adds.
///
/// A block per row: each thread accumulates its share of the row, then the block adds the
/// threads' sums ([`block_sum`]). A row's loads are spread over the whole block, so a row is
/// done after few round trips to memory, and the last, partly filled wave of rows (the GPU
/// runs as many rows at once as blocks fit) is short. When `cols` is a multiple of 8 and
/// `weights` and `x` are 16-byte aligned, each thread loads eight weights and eight `x` values
/// at a time (three 16-byte loads), several chunks in flight ([`strided`]); otherwise one
/// weight at a time, so any half-aligned `weights` and `f32`-aligned `x` work.
///
/// Special values, as PyTorch's `torch.mv(weights.float(), x)`: an infinite or NaN weight
/// widens exactly (`cvt.f32.f16`), so `y[r]` is NaN when a product is NaN (a NaN weight or
/// `x`, `inf · 0`) or the products hold both infinities, and ±inf when they hold one; subnormal
/// halves and `x` values count at their value. `rows = 0` writes nothing; `cols = 0` gives 0.
///
/// Launch: one-dimensional; a block per row (grid-stride over rows, so any grid works);
/// `blockDim.x` a multiple of 32, at most 1024; dynamic shared memory 128 bytes (the block
/// reduction's scratch).
///
/// # Safety
/// `weights` points to `rows * cols` halves, `x` to `cols` floats and `y` to `rows` floats of
/// device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
) {
    let scratch = dynamic_shared_base::<f32>();
    let (thread, threads) = (thread_idx_x() as usize, block_dim_x() as usize);
    let vectorised = sixteen_byte_path(weights, x, cols);

    let mut row = block_idx_x() as usize;
    while row < rows {
        let w_row = weights.wrapping_add(row * cols);
        let mut acc = 0.0f32;
        if vectorised {
            strided(
                thread,
                cols / 8,
                threads,
                // SAFETY: `chunk * 8 + 7 < cols`; the 16-byte path starts every row aligned.
                |chunk| unsafe {
                    let xs = eight_floats(x, chunk);
                    (eight_halves(w_row, chunk), xs)
                },
                |_, (halves, xs): ([u16; 8], [f32; 8])| {
                    for k in 0..8 {
                        acc = fma(f16_bits_to_f32(halves[k]), xs[k], acc);
                    }
                },
            );
        } else {
            strided(
                thread,
                cols,
                threads,
                // SAFETY: `row < rows`, and `strided` passes columns below `cols`.
                |c| unsafe { (*w_row.add(c), *x.add(c)) },
                |_, (bits, x_c)| acc = fma(f16_bits_to_f32(bits), x_c, acc),
            );
        }
        let total = block_sum(acc, scratch);
        if thread == 0 {
            // SAFETY: `row < rows`.
            unsafe { *y.add(row) = total };
        }
        row += grid_dim_x() as usize;
    }
}

/// `y[b][r] = sum_c f16(weights[r][c]) * x[b][c]` for `b < batch`, `r < rows`: the same
/// projection for `batch` activation rows at once (speculative decoding, a few sequences
/// decoded together). `x` is row-major `batch × cols` floats, `y` row-major `batch × rows`.
/// Each weight is read once per pass of 16 activation rows; larger batches take more passes.
/// [`gemv_f16_batched_1`], `_2`, `_4` and `_8` compute the same for smaller batches (passes of
/// 1, 2, 4 and 8 activation rows), faster: a host picks the narrowest entry whose width holds
/// its batch.
///
/// Why five entries: ptxas gives an entry the registers of its largest body, and registers
/// decide how many warps (so how many loads) an SM holds at once. One entry with a body per
/// width gave the one-row body the sixteen-row body's 255 registers, and 82 % of copy on
/// 14336 × 4096; in an entry of its own it takes 96 and reaches 92-94 %, PyTorch's time
/// (`kernels/gpu-runner/results/h200-gemv-batched.txt`).
///
/// A warp per group of 8 weight rows, grid-stride over the groups: at each chunk index a lane
/// loads the 16-byte chunk of every row of its group (all in flight at once), widens them once,
/// and multiplies each into one accumulator per (row, activation row) it owns; then a sum over
/// the lanes that share the activation row. This entry splits the warp into two segments of
/// 16 lanes, each taking 8 of the 16 activation rows over a share of the columns (the segments
/// load the same weight chunks, fetched once per warp instruction), so that the accumulators
/// stay at 64 registers and each activation chunk (from L1) serves the group's 8 rows; `_2`
/// splits it the same way, one activation row per segment; `_1`, `_4` and `_8` give each lane
/// every activation row of the pass. Accumulator slots past the pass's count read the last
/// activation row and are never stored.
///
/// Special values: as [`gemv_f16`], for each activation row (PyTorch's
/// `x @ weights.float().T`): an infinite or NaN weight widens exactly, so `y[b][r]` is NaN
/// where a product is NaN or the products hold both infinities, ±inf where they hold one.
/// `batch = 0` or `rows = 0` writes nothing; `cols = 0` gives 0.
///
/// Sixteen activation rows in `f32` fused multiply-adds are near the H200's FP32 limit
/// (16 · 14336 · 4096 FMAs take about 28 us), so a pass of 16 stays well below the memory
/// roofline. Only the one-row entry reaches it; on 14336 × 4096, `_2` runs at about 81 % of
/// copy, `_4` 68 %, `_8` 50 % and this entry 36 %.
///
/// Launch (every width): one-dimensional; `blockDim.x` a multiple of 32, at most 256 (up to 255
/// registers per thread); any grid (a grid of `rows / (8 · warps per block)` blocks, rounded
/// up, gives each warp one group); no shared memory. (`_1_split`, `_2_split` and `_4_split`
/// differ: a block per group, see [`gemv_f16_batched_1_split`].) The 16-byte path needs `cols`
/// a multiple of 8 and `weights` and `x` 16-byte aligned, as [`gemv_f16`]; otherwise one
/// weight at a time (any half-aligned `weights`, `f32`-aligned `x`).
///
/// # Safety
/// `weights` points to `rows * cols` halves, `x` to `batch * cols` floats and `y` to
/// `batch * rows` floats of device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16_batched(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    in_passes::<8, 2, false>(weights, x, y, rows, cols, batch);
}

/// [`gemv_f16_batched`] in passes of one activation row: the entry for a batch of 1.
///
/// # Safety
/// As [`gemv_f16_batched`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16_batched_1(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    in_passes::<1, 1, false>(weights, x, y, rows, cols, batch);
}

/// [`gemv_f16_batched`] in passes of two activation rows: the entry for a batch of 2.
///
/// # Safety
/// As [`gemv_f16_batched`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16_batched_2(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    in_passes::<1, 2, false>(weights, x, y, rows, cols, batch);
}

/// [`gemv_f16_batched`] in passes of four activation rows: the entry for a batch of 3 or 4.
///
/// # Safety
/// As [`gemv_f16_batched`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16_batched_4(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    in_passes::<4, 1, false>(weights, x, y, rows, cols, batch);
}

/// [`gemv_f16_batched`] in passes of eight activation rows: the entry for a batch of 5 to 8.
///
/// # Safety
/// As [`gemv_f16_batched`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16_batched_8(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    in_passes::<8, 1, false>(weights, x, y, rows, cols, batch);
}

/// [`gemv_f16_batched_1`] for wide matrices: a block per group of 8 weight rows, all its warps
/// splitting the group's columns (warp `w` takes every `warps`-th of the chunk indices a warp
/// would take alone), their sums meeting in shared memory and added in warp order. A warp per
/// group leaves too few warps on a wide matrix (4096 × 14336 has 512 groups: 4 warps per
/// SM); split four ways it has 2048. Its own entry because ptxas gives an entry its largest
/// body's registers: beside the warp-per-group body it raised `_1` from 96 registers to 134
/// and `_2` from 110 to 230.
///
/// Launch: one-dimensional; `blockDim.x` a multiple of 32, at most 256; any grid (`rows / 8`
/// blocks, rounded up, gives each block one group); dynamic shared memory `4 · warps · 8 ·
/// width` bytes (`width` the entry's activation rows per pass: 1 here, 2 and 4 for `_2_split`
/// and `_4_split`), none for one warp. Paths and special values as [`gemv_f16_batched`].
///
/// # Safety
/// As [`gemv_f16_batched`].
#[kernel_verifier::unverified(
    reason = "the partial sums' read in `store_warp_sums` is indexed by `warp * items + item`, runtime sizes (the block's warps and the dynamic shared memory the launch gives, `4 * warps * 8 * width` bytes), so the race check cannot show per thread that it stays inside the window: not proven by the current model"
)]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16_batched_1_split(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    in_passes::<1, 1, true>(weights, x, y, rows, cols, batch);
}

/// Two activation rows per pass with [`gemv_f16_batched_1_split`]'s column split. Unlike
/// [`gemv_f16_batched_2`], every lane holds both activation rows (32 lanes per row, 226
/// registers): on 4096 × 14336 that took 35.8 us where two segments of 16 lanes took 64.6 us
/// (H200, interleaved); on tall matrices the segments win, so `_2` keeps them.
///
/// # Safety
/// As [`gemv_f16_batched`].
#[kernel_verifier::unverified(
    reason = "the partial sums' read in `store_warp_sums` is indexed by `warp * items + item`, runtime sizes (the block's warps and the dynamic shared memory the launch gives, `4 * warps * 8 * width` bytes), so the race check cannot show per thread that it stays inside the window: not proven by the current model"
)]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16_batched_2_split(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    in_passes::<2, 1, true>(weights, x, y, rows, cols, batch);
}

/// [`gemv_f16_batched_4`] with [`gemv_f16_batched_1_split`]'s column split.
///
/// # Safety
/// As [`gemv_f16_batched`].
#[kernel_verifier::unverified(
    reason = "the partial sums' read in `store_warp_sums` is indexed by `warp * items + item`, runtime sizes (the block's warps and the dynamic shared memory the launch gives, `4 * warps * 8 * width` bytes), so the race check cannot show per thread that it stays inside the window: not proven by the current model"
)]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16_batched_4_split(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    in_passes::<4, 1, true>(weights, x, y, rows, cols, batch);
}

/// The batched product in passes of `PER_LANE · SEGMENTS` activation rows (the last may have
/// fewer), each pass over all the weights ([`Pass::run`]).
#[inline(always)]
fn in_passes<const PER_LANE: usize, const SEGMENTS: usize, const SPLIT: bool>(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    batch: usize,
) {
    // Every batched entry's contract: at most 256 threads a block (the verifier then compares
    // 256 threads, not the hardware's 1024).
    block_threads_at_most(256);
    let sixteen_bytes = sixteen_byte_path(weights, x, cols);
    let mut first = 0;
    while first < batch {
        let pass = Pass {
            weights,
            x: x.wrapping_add(first * cols),
            y: y.wrapping_add(first * rows),
            rows,
            cols,
            count: (batch - first).min(PER_LANE * SEGMENTS),
        };
        if sixteen_bytes {
            pass.run::<PER_LANE, SEGMENTS, 8, GROUP_ROWS, SPLIT>();
        } else {
            pass.run::<PER_LANE, SEGMENTS, 1, GROUP_ROWS, SPLIT>();
        }
        first += pass.count;
    }
}

/// Weight rows a warp takes at once in the batched product.
const GROUP_ROWS: usize = 8;

/// One pass of the batched product over the weights: `count` (at least 1) activation rows of
/// `x` into as many rows of `y` (`y` row-major with `rows` columns).
struct Pass {
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
    count: usize,
}

impl Pass {
    /// The pass with the warp's lanes in `SEGMENTS` segments of `32 / SEGMENTS` lanes, segment
    /// `s` taking activation rows `s * PER_LANE ..` (`PER_LANE * SEGMENTS >= count`) over
    /// [`GROUP_ROWS`] weight rows, `WIDTH` columns per load (8: the 16-byte path; 1: one weight
    /// at a time). A segment's lanes stride over the column chunks together: a warp per group,
    /// or with `SPLIT` every warp of the block on the block's group, each taking its share of
    /// the chunk indices, their sums added through shared memory ([`store_warp_sums`]).
    ///
    /// The loop over chunk indices takes one at a time ([`strided_by`] with one in flight):
    /// the loads in flight are the group's rows, issued together before any is used. (Two
    /// chunk indices at a time measured slower: the loads' registers cost more warps.)
    ///
    /// `ROWS` is always [`GROUP_ROWS`]; a parameter so that the written-out slot loops past it
    /// (`unrolled!` writes 16, each behind `if R < ROWS`) index a generic length, which clippy
    /// does not take for out-of-bounds indexing.
    #[inline(always)]
    fn run<
        const PER_LANE: usize,
        const SEGMENTS: usize,
        const WIDTH: usize,
        const ROWS: usize,
        const SPLIT: bool,
    >(
        &self,
    ) {
        let Pass { weights, x, y, rows, cols, count } = *self;
        let (warps, warp) = ((block_dim_x() / WARP_SIZE) as usize, warp_id() as usize);
        // SPLIT: every warp of the block shares the block's group, warp `w` starting at chunk
        // index `w · segment_lanes`, all striding by `warps · segment_lanes`. Otherwise a warp
        // per group, striding by `segment_lanes` (constants here, so that the entries without
        // the split keep their code).
        let (groups_per_block, group_in_block, column_warps, column_warp) =
            if SPLIT { (1, 0, warps, warp) } else { (warps, warp, 1, 0) };
        let segment_lanes = WARP_SIZE as usize / SEGMENTS;
        let (segment, column_lane) = (lane_id() as usize / segment_lanes, lane_id() as usize % segment_lanes);
        // Activation rows past `count` reload the last one; their sums are never stored.
        let first_activation = segment * PER_LANE;
        let mut x_rows = [x; PER_LANE];
        unrolled!(P < PER_LANE => {
            x_rows[P] = x.wrapping_add((first_activation + P).min(count - 1) * cols);
        });
        let partials = dynamic_shared_base::<f32>();
        let mut group = block_idx_x() as usize * groups_per_block + group_in_block;
        while group * ROWS < rows {
            let first_row = group * ROWS;
            // Rows past the end reload the last row; their sums are never stored.
            let mut w_rows = [weights; ROWS];
            unrolled!(R < ROWS => {
                w_rows[R] = weights.wrapping_add((first_row + R).min(rows - 1) * cols);
            });
            let mut acc = [[0.0f32; PER_LANE]; ROWS];
            strided_by::<1, GroupChunk<WIDTH, ROWS>>(
                column_warp * segment_lanes + column_lane,
                cols / WIDTH,
                column_warps * segment_lanes,
                // SAFETY: `chunk * WIDTH + WIDTH <= cols`; the rows are the matrix's; on the
                // 16-byte path every row starts 16-byte aligned.
                |chunk| unsafe { load_group::<WIDTH, ROWS>(&w_rows, chunk) },
                // SAFETY: as for the loads; the rows are `x`'s, which on the 16-byte path
                // start 16-byte aligned too.
                |chunk, GroupChunk(halves)| unsafe { accumulate(&mut acc, &halves, &x_rows, chunk) },
            );
            let slots = PER_LANE * SEGMENTS;
            unrolled!(R < ROWS => {
                unrolled!(P < PER_LANE => {
                    let total = segment_sum(acc[R][P], segment_lanes as u32);
                    let activation = first_activation + P;
                    // Spread the stores over the segment's lanes.
                    if column_lane == (R * PER_LANE + P) % segment_lanes {
                        if column_warps == 1 {
                            if activation < count && first_row + R < rows {
                                // SAFETY: `activation < count` and `first_row + R < rows`.
                                unsafe { *y.add(activation * rows + first_row + R) = total };
                            }
                        } else {
                            // SAFETY: the contract gives `warps · ROWS · slots` floats.
                            unsafe { *partials.add((column_warp * ROWS + R) * slots + activation) = total };
                        }
                    }
                });
            });
            if column_warps > 1 {
                let store = |item: usize, total: f32| {
                    let (row, activation) = (first_row + item / slots, item % slots);
                    if activation < count && row < rows {
                        // SAFETY: `activation < count` and `row < rows`.
                        unsafe { *y.add(activation * rows + row) = total };
                    }
                };
                // SAFETY: every warp wrote its partials above; the contract's shared memory.
                unsafe { store_warp_sums(partials, column_warps, ROWS * slots, store) };
            }
            group += grid_dim_x() as usize * groups_per_block;
        }
    }
}

/// After every warp of the block wrote its `items` partial sums at `partials[warp · items
/// ..]`: `store(item, total)` for each item, the warps' partials added in warp order, the
/// items spread over the block's threads; barriers before (the writes) and after (so the next
/// group's writes wait for these reads). Every thread of the block calls it.
///
/// # Safety
/// `partials` is this block's shared memory of at least `warps · items` floats.
#[inline(always)]
unsafe fn store_warp_sums(partials: *mut f32, warps: usize, items: usize, mut store: impl FnMut(usize, f32)) {
    barrier();
    let mut item = thread_idx_x() as usize;
    while item < items {
        let mut total = 0.0f32;
        for warp in 0..warps {
            // SAFETY: `warp · items + item < warps · items`, the caller's contract.
            total += unsafe { *partials.add(warp * items + item) };
        }
        store(item, total);
        item += block_dim_x() as usize;
    }
    barrier();
}

/// Columns `WIDTH * chunk ..` of each of the rows `w_rows`, all loads issued before any is used.
///
/// # Safety
/// Each row holds at least `WIDTH * chunk + WIDTH` halves; 16-byte aligned when `WIDTH` is 8.
#[inline(always)]
unsafe fn load_group<const WIDTH: usize, const ROWS: usize>(
    w_rows: &[*const u16; ROWS],
    chunk: usize,
) -> GroupChunk<WIDTH, ROWS> {
    let mut halves = GroupChunk::default();
    unrolled!(R < ROWS => {
        // SAFETY: the caller's contract.
        halves.0[R] = unsafe { load_chunk::<u16, WIDTH>(w_rows[R], chunk) };
    });
    halves
}

/// The halves a lane loads at one chunk index: `WIDTH` columns of each of `ROWS` rows.
#[derive(Clone, Copy)]
struct GroupChunk<const WIDTH: usize, const ROWS: usize>([[u16; WIDTH]; ROWS]);

impl<const WIDTH: usize, const ROWS: usize> Default for GroupChunk<WIDTH, ROWS> {
    fn default() -> Self {
        GroupChunk([[0; WIDTH]; ROWS])
    }
}

/// Adds the products of one chunk into `acc[row][activation]`: each weight half of `halves`
/// widened once, times the same columns of each activation row of `x_rows`.
///
/// # Safety
/// Each row of `x_rows` holds at least `WIDTH * chunk + WIDTH` floats; 16-byte aligned when
/// `WIDTH` is 8.
#[inline(always)]
unsafe fn accumulate<const WIDTH: usize, const ROWS: usize, const PER_LANE: usize>(
    acc: &mut [[f32; PER_LANE]; ROWS],
    halves: &[[u16; WIDTH]; ROWS],
    x_rows: &[*const f32; PER_LANE],
    chunk: usize,
) {
    let mut w = [[0.0f32; WIDTH]; ROWS];
    unrolled!(R < ROWS => {
        for k in 0..WIDTH {
            w[R][k] = f16_bits_to_f32(halves[R][k]);
        }
    });
    unrolled!(P < PER_LANE => {
        // SAFETY: the caller's contract.
        let xs = unsafe { load_chunk::<f32, WIDTH>(x_rows[P], chunk) };
        unrolled!(R < ROWS => {
            for k in 0..WIDTH {
                acc[R][P] = fma(w[R][k], xs[k], acc[R][P]);
            }
        });
    });
}

/// An element type of the batched product's rows: weight halves and activation floats.
trait RowElement: Copy + Default {
    /// Elements `8 * chunk .. 8 * chunk + 8` of `row`, in 16-byte loads.
    ///
    /// # Safety
    /// `row` is 16-byte aligned and holds at least `8 * chunk + 8` elements.
    unsafe fn eight(row: *const Self, chunk: usize) -> [Self; 8];
}

impl RowElement for u16 {
    #[inline(always)]
    unsafe fn eight(row: *const u16, chunk: usize) -> [u16; 8] {
        // SAFETY: the caller's contract.
        unsafe { eight_halves(row, chunk) }
    }
}

impl RowElement for f32 {
    #[inline(always)]
    unsafe fn eight(row: *const f32, chunk: usize) -> [f32; 8] {
        // SAFETY: the caller's contract.
        unsafe { eight_floats(row, chunk) }
    }
}

/// Elements `WIDTH * chunk ..` of a row: 16-byte loads when `WIDTH` is 8, one element when
/// it is 1.
///
/// # Safety
/// `row` holds at least `WIDTH * chunk + WIDTH` elements; 16-byte aligned when `WIDTH` is 8.
#[inline(always)]
unsafe fn load_chunk<T: RowElement, const WIDTH: usize>(row: *const T, chunk: usize) -> [T; WIDTH] {
    let mut values = [T::default(); WIDTH];
    // SAFETY: the caller's contract.
    unsafe {
        if WIDTH == 8 {
            let eight = T::eight(row, chunk);
            // Element by element: `copy_from_slice` brings a length check (and its panic path)
            // into a generic body where only `WIDTH == 8` reaches this line.
            #[allow(clippy::manual_memcpy)]
            for k in 0..WIDTH {
                values[k] = eight[k];
            }
        } else {
            values[0] = *row.add(chunk);
        }
    }
    values
}
