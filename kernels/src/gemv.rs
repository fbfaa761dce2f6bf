//! Decode-style matrix-vector product over half-precision weights.

use crate::device::math::{f16_bits_to_f32, fma};
use crate::device::reduce::{block_sum, segment_sum};
use crate::device::row::FourFloats;
use crate::device::strided::{strided, strided_by};
use crate::device::unrolled::unrolled;
use crate::device::{
    WARP_SIZE, block_dim_x, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, thread_idx_x, warp_id,
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
/// Each weight is read once for up to 16 activation rows; larger batches run in passes of 16.
///
/// A warp per group of 8 weight rows, grid-stride over the groups: at each chunk index a lane
/// loads the 16-byte chunk of every row of its group (all in flight at once), widens them once,
/// and multiplies each into one accumulator per (row, activation row) it owns; then a sum over
/// the lanes that share the activation row. A lane owns up to 4 activation rows: a pass of up
/// to 4 gives each lane all of them, a pass of 5 to 8 splits the warp into two segments of 16
/// lanes (4 activation rows each), 9 to 16 into four of 8 lanes. Each activation chunk (from
/// L1) thus serves the group's 8 rows, and the accumulators stay at 32 registers; the segments
/// load the same weight chunks, fetched once per warp instruction. The pass's count picks a
/// monomorphised body (1, 2 or 4 activation rows per lane, 1, 2 or 4 segments), so the
/// accumulators are constant-indexed registers; slots past the count read the last activation
/// row and are never stored.
///
/// Special values: as [`gemv_f16`], for each activation row (PyTorch's
/// `x @ weights.float().T`): an infinite or NaN weight widens exactly, so `y[b][r]` is NaN
/// where a product is NaN or the products hold both infinities, ±inf where they hold one.
/// `batch = 0` or `rows = 0` writes nothing; `cols = 0` gives 0.
///
/// Not yet at the roofline: on the H200, 14336 × 4096 in 34 us for one activation row (80 % of
/// copy, PyTorch 30 us) to 115 us for sixteen; ptxas gives the one entry its largest body's 255
/// registers, with 8 bytes spilled (`kernels/gpu-runner/results/h200-gemv-batched.txt`).
///
/// Launch: one-dimensional; `blockDim.x` a multiple of 32, at most 256 (255 registers per
/// thread); any grid (a grid of
/// `rows / (rows per group · warps per block)` blocks, rounded up, gives each warp one group);
/// no shared memory. The 16-byte path needs `cols` a multiple of 8 and `weights` and `x` 16-byte
/// aligned, as [`gemv_f16`]; otherwise one weight at a time (any half-aligned `weights`,
/// `f32`-aligned `x`).
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
    let sixteen_bytes = sixteen_byte_path(weights, x, cols);
    let mut first = 0;
    while first < batch {
        let pass = Pass {
            weights,
            x: x.wrapping_add(first * cols),
            y: y.wrapping_add(first * rows),
            rows,
            cols,
            count: (batch - first).min(16),
        };
        // Up to 4 activation rows per lane; more split the warp's lanes into 2 or 4 segments,
        // each taking 4 activation rows over a share of the columns, so that the accumulators
        // stay at 32 registers and each weight chunk a lane loads feeds 4 activation rows.
        match (pass.count, sixteen_bytes) {
            (1, true) => pass.run::<1, 1, 8, 8, 2>(),
            (2, true) => pass.run::<2, 1, 8, 8, 2>(),
            (3..=4, true) => pass.run::<4, 1, 8, 8, 1>(),
            (5..=8, true) => pass.run::<4, 2, 8, 8, 1>(),
            (_, true) => pass.run::<4, 4, 8, 8, 1>(),
            (1, false) => pass.run::<1, 1, 1, 8, 2>(),
            (2, false) => pass.run::<2, 1, 1, 8, 2>(),
            (3..=4, false) => pass.run::<4, 1, 1, 8, 1>(),
            (5..=8, false) => pass.run::<4, 2, 1, 8, 1>(),
            (_, false) => pass.run::<4, 4, 1, 8, 1>(),
        }
        first += pass.count;
    }
}

/// One pass of [`gemv_f16_batched`] over the weights: `count` (1..=16) activation rows of `x`
/// into as many rows of `y` (`y` row-major with `rows` columns).
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
    /// `ROWS` weight rows, `WIDTH` columns per load (8: the 16-byte path; 1: one weight at a
    /// time). A segment's lanes stride over the column chunks together; the segments load the
    /// same weight chunks, which the memory system serves once per warp instruction.
    ///
    /// The loop over chunk indices takes `IN_FLIGHT` at a time ([`strided_by`]): the loads in
    /// flight are the group's rows at that many chunk indices, issued together before any is
    /// used. Two for 1 or 2 activation rows per lane, whose accumulators leave the registers
    /// for them (with few weight rows in all, few warps must keep the memory busy); one above.
    #[inline(always)]
    fn run<
        const PER_LANE: usize,
        const SEGMENTS: usize,
        const WIDTH: usize,
        const ROWS: usize,
        const IN_FLIGHT: usize,
    >(
        &self,
    ) {
        let Pass { weights, x, y, rows, cols, count } = *self;
        let warps = (block_dim_x() / WARP_SIZE) as usize;
        let segment_lanes = WARP_SIZE as usize / SEGMENTS;
        let (segment, column_lane) = (lane_id() as usize / segment_lanes, lane_id() as usize % segment_lanes);
        // Activation rows past `count` reload the last one; their sums are never stored.
        let first_activation = segment * PER_LANE;
        let mut x_rows = [x; PER_LANE];
        unrolled!(P < PER_LANE => {
            x_rows[P] = x.wrapping_add((first_activation + P).min(count - 1) * cols);
        });
        let mut group = block_idx_x() as usize * warps + warp_id() as usize;
        while group * ROWS < rows {
            let first_row = group * ROWS;
            // Rows past the end reload the last row; their sums are never stored.
            let mut w_rows = [weights; ROWS];
            unrolled!(R < ROWS => {
                w_rows[R] = weights.wrapping_add((first_row + R).min(rows - 1) * cols);
            });
            let mut acc = [[0.0f32; PER_LANE]; ROWS];
            strided_by::<IN_FLIGHT, GroupChunk<WIDTH, ROWS>>(
                column_lane,
                cols / WIDTH,
                segment_lanes,
                |chunk| {
                    let mut halves = GroupChunk::default();
                    unrolled!(R < ROWS => {
                        // SAFETY: `chunk * WIDTH + WIDTH <= cols`; the row is one of the
                        // matrix's; on the 16-byte path every row starts 16-byte aligned.
                        halves.0[R] = unsafe { load_halves::<WIDTH>(w_rows[R], chunk) };
                    });
                    halves
                },
                |chunk, GroupChunk(halves)| {
                    let mut w = [[0.0f32; WIDTH]; ROWS];
                    unrolled!(R < ROWS => {
                        for k in 0..WIDTH {
                            w[R][k] = f16_bits_to_f32(halves[R][k]);
                        }
                    });
                    unrolled!(P < PER_LANE => {
                        // SAFETY: the row is one of `x`'s, `chunk * WIDTH + WIDTH <= cols`;
                        // on the 16-byte path every row of `x` starts 16-byte aligned.
                        let xs = unsafe { load_floats::<WIDTH>(x_rows[P], chunk) };
                        unrolled!(R < ROWS => {
                            for k in 0..WIDTH {
                                acc[R][P] = fma(w[R][k], xs[k], acc[R][P]);
                            }
                        });
                    });
                },
            );
            unrolled!(R < ROWS => {
                unrolled!(P < PER_LANE => {
                    let total = segment_sum(acc[R][P], segment_lanes as u32);
                    let activation = first_activation + P;
                    // Spread the stores over the segment's lanes.
                    if column_lane == (R * PER_LANE + P) % segment_lanes && activation < count && first_row + R < rows {
                        // SAFETY: `activation < count` and `first_row + R < rows`.
                        unsafe { *y.add(activation * rows + first_row + R) = total };
                    }
                });
            });
            group += grid_dim_x() as usize * warps;
        }
    }
}

/// The halves a lane loads at one chunk index: `WIDTH` columns of each of `ROWS` rows.
#[derive(Clone, Copy)]
struct GroupChunk<const WIDTH: usize, const ROWS: usize>([[u16; WIDTH]; ROWS]);

impl<const WIDTH: usize, const ROWS: usize> Default for GroupChunk<WIDTH, ROWS> {
    fn default() -> Self {
        GroupChunk([[0; WIDTH]; ROWS])
    }
}

/// Columns `WIDTH * chunk ..` of a weight row: one 16-byte load when `WIDTH` is 8, one half
/// when it is 1.
///
/// # Safety
/// `row` holds at least `WIDTH * chunk + WIDTH` halves; 16-byte aligned when `WIDTH` is 8.
#[inline(always)]
unsafe fn load_halves<const WIDTH: usize>(row: *const u16, chunk: usize) -> [u16; WIDTH] {
    let mut halves = [0u16; WIDTH];
    // SAFETY: the caller's contract.
    unsafe {
        if WIDTH == 8 {
            let eight = eight_halves(row, chunk);
            // Element by element: `copy_from_slice` brings a length check (and its panic path)
            // into a generic body where only `WIDTH == 8` reaches this line.
            #[allow(clippy::manual_memcpy)]
            for k in 0..WIDTH {
                halves[k] = eight[k];
            }
        } else {
            halves[0] = *row.add(chunk);
        }
    }
    halves
}

/// Columns `WIDTH * chunk ..` of an activation row, as [`load_halves`].
///
/// # Safety
/// `row` holds at least `WIDTH * chunk + WIDTH` floats; 16-byte aligned when `WIDTH` is 8.
#[inline(always)]
unsafe fn load_floats<const WIDTH: usize>(row: *const f32, chunk: usize) -> [f32; WIDTH] {
    let mut floats = [0.0f32; WIDTH];
    // SAFETY: the caller's contract.
    unsafe {
        if WIDTH == 8 {
            let eight = eight_floats(row, chunk);
            // Element by element: `copy_from_slice` brings a length check (and its panic path)
            // into a generic body where only `WIDTH == 8` reaches this line.
            #[allow(clippy::manual_memcpy)]
            for k in 0..WIDTH {
                floats[k] = eight[k];
            }
        } else {
            floats[0] = *row.add(chunk);
        }
    }
    floats
}
