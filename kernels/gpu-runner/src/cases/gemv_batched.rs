//! `gemv_f16_batched`: GEMV for a batch of activation rows, in entries by width (a host launches
//! the narrowest that holds its batch: ptxas gives an entry its largest body's registers), a
//! warp per group of 8 weight rows, and the `_split` entries whose warps split each group's
//! columns for wide matrices (`kernels/src/gemv.rs`).

use fastrand::Rng;

use super::common::{abs_all, uniform, uniform_halves};
use super::family::{Batched, Family, Param};
use super::gemv::{TIMING as GEMV_TIMING, abs_halves, gemv_tolerance, plant_gemv_specials};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GemvBatched {
    GemvF16Batched,
}

/// Weight rows a warp of `gemv_f16_batched` takes at once (`kernels/src/gemv.rs`).
pub const GEMV_BATCHED_ROWS_PER_WARP: usize = 8;

/// The entries of `gemv_f16_batched` (`kernels/src/gemv.rs`), narrowest first: the activation
/// rows each takes per pass, its name, and the lanes of a warp that share one activation row
/// and sum it together. A host launches the first whose width holds its batch.
pub const GEMV_BATCHED_WIDTHS: [(usize, &str, usize); 5] = [
    (1, "gemv_f16_batched_1", 32),
    (2, "gemv_f16_batched_2", 16),
    (4, "gemv_f16_batched_4", 32),
    (8, "gemv_f16_batched_8", 32),
    (16, "gemv_f16_batched", 16),
];

/// The entries of `gemv_f16_batched` that split each group's columns across the warps of a
/// block (`kernels/src/gemv.rs`), narrowest first, with their activation rows per pass: for
/// wide matrices, where a warp per group leaves too few warps.
pub const GEMV_BATCHED_SPLIT_ENTRIES: [(usize, &str); 3] =
    [(1, "gemv_f16_batched_1_split"), (2, "gemv_f16_batched_2_split"), (4, "gemv_f16_batched_4_split")];

/// Correctness `(batch, rows, cols, grid)`, blocks of 256: no activations; one; every entry's
/// width (1, 2, 4, 8, 16), full and partly used, on the 16-byte and the one-weight path, with
/// rows that leave a group partly filled; 17 (two passes of the widest entry's 16); a grid
/// smaller than the groups.
#[rustfmt::skip]
const CORRECTNESS: [(usize, usize, usize, Option<usize>); 16] = [
    (0, 5, 8, None), (1, 1, 1, None), (1, 5, 13, None), (1, 9, 4096, None),
    (2, 5, 13, None), (2, 9, 4096, None), (4, 6, 999, None), (3, 33, 4096, None),
    (5, 17, 1000, None), (8, 20, 999, None), (12, 13, 4104, None), (16, 17, 1001, None),
    (16, 7, 4096, None), (17, 9, 4096, None), (4, 1000, 4104, Some(7)), (16, 1000, 4096, Some(3)),
];
/// Correctness of the split entries `(batch, rows, cols, block, grid)`: each width full and
/// partly used, both paths, one warp (no shared memory), two to eight, a grid smaller than the
/// groups, a batch in passes.
#[rustfmt::skip]
const CORRECTNESS_SPLIT: [(usize, usize, usize, u32, Option<usize>); 8] = [
    (1, 9, 4096, 128, None), (1, 5, 13, 64, None), (2, 17, 1001, 256, None), (2, 9, 4096, 32, None),
    (3, 33, 4104, 128, None), (4, 6, 999, 64, None), (4, 1000, 4096, 256, Some(7)), (7, 20, 4096, 128, None),
];
/// Special values on 4 activation rows of 14 weight rows, `(cols, offset)`, blocks of 128, on
/// a warp per group and split.
const SPECIAL_SHAPE: (usize, usize) = (4, 14);
const SPECIAL: [(usize, usize); 3] = [(1000, 0), (4096, 0), (4096, 1)];
/// Timing: `gemv_f16`'s two large shapes for 1, 2, 4, 8 and 16 activation rows (the weights,
/// 112 MiB, dominate the traffic up to 16 rows: x and y add at most 1 MiB), in blocks of 128
/// and 256, split too up to a batch of 4.
const TIMING_BATCHES: [usize; 5] = [1, 2, 4, 8, 16];
const TIMING_BLOCKS: [u32; 2] = [128, 256];
const TIMING_SPLIT_UP_TO: usize = 4;

/// The [`GEMV_BATCHED_WIDTHS`] row for `batch` activation rows: the narrowest width that holds
/// it, the 16-wide entry (in passes) beyond 16; an empty batch takes the narrowest.
fn gemv_batched_width(batch: usize) -> (usize, &'static str, usize) {
    narrowest_holding(&GEMV_BATCHED_WIDTHS, |(width, ..)| *width, batch)
}

/// The first row of `table` (narrowest first) whose `width` holds `batch`, the last (the
/// widest, run in passes) when none does.
fn narrowest_holding<T: Copy>(table: &[T], width: impl Fn(&T) -> usize, batch: usize) -> T {
    let widest = table[table.len() - 1];
    *table.iter().find(|row| batch <= width(row)).unwrap_or(&widest)
}

/// The entry of `gemv_f16_batched` that a batch of `batch` activation rows launches.
pub fn gemv_batched_entry(batch: usize) -> &'static str {
    gemv_batched_width(batch).1
}

/// The split entry ([`GEMV_BATCHED_SPLIT_ENTRIES`]) for a batch: the narrowest that holds it,
/// the widest (in passes) beyond; and its width.
fn gemv_batched_split_width(batch: usize) -> (usize, &'static str) {
    narrowest_holding(&GEMV_BATCHED_SPLIT_ENTRIES, |(width, _)| *width, batch)
}

/// The split entry of `gemv_f16_batched` that a batch of `batch` activation rows launches.
pub fn gemv_batched_split_entry(batch: usize) -> &'static str {
    gemv_batched_split_width(batch).1
}

/// The lanes that share one activation row in the entry [`gemv_batched_entry`] picks.
pub fn gemv_batched_segment_lanes(batch: usize) -> usize {
    gemv_batched_width(batch).2
}

/// A launch of the split entries on `shape`: a block of `block` threads per group of 8 weight
/// rows (or `grid` blocks striding over the groups), its warps' partial sums meeting in
/// `4 · warps · 8 · width` bytes of shared memory (none for one warp).
pub fn gemv_batched_split_launch(
    Batched { batch, rows, .. }: Batched,
    block: u32,
    grid: Option<usize>,
) -> Launch {
    let warps = block as usize / 32;
    let width = gemv_batched_split_width(batch).0;
    let shared = if warps > 1 { 4 * warps * GEMV_BATCHED_ROWS_PER_WARP * width } else { 0 };
    let groups = rows.div_ceil(GEMV_BATCHED_ROWS_PER_WARP);
    Launch {
        column_split: true,
        ..Launch::linear(grid.unwrap_or(groups), block, u32::try_from(shared).expect("a few KiB"))
    }
}

impl Family for GemvBatched {
    type Shape = Batched;

    /// Every width's entry and every split entry.
    fn entries(self) -> Vec<&'static str> {
        GEMV_BATCHED_WIDTHS
            .iter()
            .map(|(_, entry, _)| *entry)
            .chain(GEMV_BATCHED_SPLIT_ENTRIES.iter().map(|(_, entry)| *entry))
            .collect()
    }

    /// The narrowest width that holds the batch ([`gemv_batched_entry`]), split or not.
    fn case_entry(self, Batched { batch, .. }: Batched, launch: &Launch) -> &'static str {
        if launch.column_split { gemv_batched_split_entry(batch) } else { gemv_batched_entry(batch) }
    }

    /// The issue sets no figure for a batch; the table shows it beside one row's.
    fn roofline(self) -> Roofline {
        Roofline::Bandwidth { target: None }
    }

    /// A warp per group of weight rows: the grid that gives each warp one group. Warp
    /// reductions only, no shared memory.
    fn launch(self, Batched { rows, .. }: Batched, block: u32, grid: Option<usize>) -> Launch {
        let groups = rows.div_ceil(GEMV_BATCHED_ROWS_PER_WARP);
        Launch::linear(grid.unwrap_or(groups.div_ceil(block as usize / 32).max(1)), block, 0)
    }

    /// `rows * cols` halves, `batch * cols` floats in, `batch * rows` out.
    fn params(self, Batched { batch, rows, cols }: Batched) -> Vec<Param> {
        use Param::{Count, Halves, Input, Output};
        vec![Halves, Input(0), Output, Count(rows), Count(cols), Count(batch)]
    }

    fn correctness_cases(self, _sms: usize) -> Vec<Case> {
        let mut cases = self.by_contract(
            CORRECTNESS.map(|(batch, rows, cols, grid)| (Batched { batch, rows, cols }, 256, grid)),
        );
        for (batch, rows, cols, block, grid) in CORRECTNESS_SPLIT {
            let shape = Batched { batch, rows, cols };
            cases.push(self.case(shape, gemv_batched_split_launch(shape, block, grid)));
        }
        cases
    }

    fn special_cases(self) -> Vec<Case> {
        let (batch, rows) = SPECIAL_SHAPE;
        let mut cases = Vec::new();
        for (cols, offset) in SPECIAL {
            let shape = Batched { batch, rows, cols };
            cases.push(self.special(shape, self.launch(shape, 128, None), offset));
            cases.push(self.special(shape, gemv_batched_split_launch(shape, 128, None), offset));
        }
        cases
    }

    fn timing_cases(self, _sms: usize) -> Vec<Case> {
        let mut cases = Vec::new();
        for (rows, cols) in GEMV_TIMING {
            for batch in TIMING_BATCHES {
                let shape = Batched { batch, rows, cols };
                for block in TIMING_BLOCKS {
                    cases.push(self.case(shape, self.launch(shape, block, None)));
                    if batch <= TIMING_SPLIT_UP_TO {
                        cases.push(self.case(shape, gemv_batched_split_launch(shape, block, None)));
                    }
                }
            }
        }
        cases
    }

    fn work(self, Batched { batch, rows, cols }: Batched) -> Work {
        Work::of(2 * rows * cols + 4 * batch * cols + 4 * batch * rows, 2 * batch * rows * cols)
    }

    fn random_inputs(self, Batched { batch, rows, cols }: Batched, rng: &mut Rng) -> Inputs {
        Inputs {
            floats: vec![uniform(rng, batch * cols, -1.0, 1.0)],
            halves: Some(uniform_halves(rng, rows * cols)),
            scalar: 0.0,
        }
    }

    /// Activation row 0 as gemv_f16's x against its special weight rows; row 1 holds a NaN (all
    /// of its outputs NaN), row 2 an infinity (±inf or NaN by the weights).
    fn plant_specials(
        self,
        Batched { batch, rows, cols }: Batched,
        _: &Launch,
        inputs: &mut Inputs,
        rng: &mut Rng,
    ) {
        let f = &mut inputs.floats;
        let weights = inputs.halves.as_mut().expect("gemv_f16_batched has half weights");
        if batch >= 1 {
            plant_gemv_specials(weights, &mut f[0][..cols], rows, cols, rng);
        }
        if batch >= 3 && cols >= 3 {
            f[0][cols + 2] = f32::NAN;
            f[0][2 * cols + 1] = f32::INFINITY;
        }
    }

    fn output_len(self, Batched { batch, rows, .. }: Batched, _: &Launch) -> usize {
        batch * rows
    }

    /// As gemv_f16, for each activation row.
    fn expected(self, Batched { batch, rows, cols }: Batched, launch: &Launch, inputs: &Inputs) -> Expected {
        let (x, block) = (&inputs.floats[0], launch.block.0 as usize);
        let weights = inputs.halves.as_deref().expect("gemv_f16_batched has half weights");
        let reference =
            |weights: &[u16], x: &[f32]| kernels_reference::gemv_f16_batched(weights, x, rows, cols, batch);
        Expected {
            values: reference(weights, x),
            tolerance: gemv_tolerance(cols, block),
            magnitudes: Some(reference(&abs_halves(weights), &abs_all(x))),
        }
    }

    fn identity(self) -> (Kernel, &'static str) {
        (Kernel::GemvF16Batched, "gemv_f16_batched")
    }
}
