//! `gemv_f16`: `y = W·x` with f16 weights and f32 accumulation, a block per row of `W` and a
//! block reduction. Its special weights are shared with `gemv_f16_batched`.

use fastrand::Rng;

use super::common::{abs_all, subnormal, uniform, uniform_halves};
use super::family::{Family, Grid, Matrix, Param};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};
use crate::compare::Tolerance;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gemv {
    GemvF16,
}

/// Correctness `(rows, cols, grid)`, blocks of 256: sizes off the 16-byte chunk, rows longer
/// than a block, a grid smaller than the rows.
#[rustfmt::skip]
const CORRECTNESS: [(usize, usize, Option<usize>); 7] = [
    (0, 8, None), (1, 1, None), (5, 13, None), (33, 4096, None),
    (100, 1000, None), (17, 1001, None), (1000, 4104, Some(7)),
];
/// Special values on 14 rows (twice the 7 special rows), `(cols, offset)`, blocks of 128.
const SPECIAL_ROWS: usize = 14;
const SPECIAL: [(usize, usize); 3] = [(1000, 0), (4096, 0), (4096, 1)];
/// The two large shapes, `(rows, cols)`.
pub(super) const TIMING: [(usize, usize); 2] = [(14336, 4096), (4096, 14336)];
/// 64 threads: each thread has two batches of four 16-byte chunks in flight on a 4096-column
/// row, and a block's reduction is two warps.
const TIMING_BLOCKS: [u32; 3] = [64, 128, 256];
/// Fewer, longer-lived blocks of 128 (grid-stride over rows).
const TIMING_GRIDS: [Grid; 2] = [Grid::PerSm(8), Grid::PerSm(16)];

impl Family for Gemv {
    type Shape = Matrix;

    /// A block per row; 128 bytes for the block reduction.
    fn launch(self, Matrix { rows, .. }: Matrix, block: u32, grid: Option<usize>) -> Launch {
        Launch::linear(grid.unwrap_or(rows), block, 128)
    }

    /// `rows * cols` halves, `cols` floats in, `rows` floats out.
    fn params(self, Matrix { rows, cols }: Matrix) -> Vec<Param> {
        vec![Param::Halves, Param::Input(0), Param::Output, Param::Count(rows), Param::Count(cols)]
    }

    fn correctness_cases(self, _sms: usize) -> Vec<Case> {
        self.by_contract(CORRECTNESS.map(|(rows, cols, grid)| (Matrix { rows, cols }, 256, grid)))
    }

    fn special_cases(self) -> Vec<Case> {
        let special = |(cols, offset)| (Matrix { rows: SPECIAL_ROWS, cols }, 128, None, offset);
        self.specials_by_contract(SPECIAL.map(special))
    }

    fn timing_cases(self, sms: usize) -> Vec<Case> {
        let launches = TIMING.into_iter().flat_map(|(rows, cols)| {
            let shape = Matrix { rows, cols };
            let blocks = TIMING_BLOCKS.map(|block| (shape, block, None));
            blocks.into_iter().chain(TIMING_GRIDS.map(|grid| (shape, 128, Some(grid.blocks(sms)))))
        });
        self.by_contract(launches)
    }

    /// The target for GEMV.
    fn roofline(self) -> Roofline {
        Roofline::Bandwidth { target: Some(0.88) }
    }

    fn work(self, Matrix { rows, cols }: Matrix) -> Work {
        Work::of(2 * rows * cols + 4 * cols + 4 * rows, 2 * rows * cols)
    }

    fn random_inputs(self, Matrix { rows, cols }: Matrix, rng: &mut Rng) -> Inputs {
        Inputs {
            floats: vec![uniform(rng, cols, -1.0, 1.0)],
            halves: Some(uniform_halves(rng, rows * cols)),
            scalar: 0.0,
        }
    }

    fn plant_specials(self, Matrix { rows, cols }: Matrix, _: &Launch, inputs: &mut Inputs, rng: &mut Rng) {
        let weights = inputs.halves.as_mut().expect("gemv_f16 has half weights");
        plant_gemv_specials(weights, &mut inputs.floats[0], rows, cols, rng);
    }

    fn output_len(self, Matrix { rows, .. }: Matrix, _: &Launch) -> usize {
        rows
    }

    /// The recursive summation bound: each thread accumulates about cols / block products (up
    /// to 8 more in whole chunks), then the block reduction's ten shuffle levels.
    fn expected(self, Matrix { rows, cols }: Matrix, launch: &Launch, inputs: &Inputs) -> Expected {
        let (x, block) = (&inputs.floats[0], launch.block.0 as usize);
        let weights = inputs.halves.as_deref().expect("gemv_f16 has half weights");
        Expected {
            values: kernels_reference::gemv_f16(weights, x, rows, cols),
            tolerance: gemv_tolerance(cols, block),
            magnitudes: Some(kernels_reference::gemv_f16(&abs_halves(weights), &abs_all(x), rows, cols)),
        }
    }

    fn identity(self) -> (Kernel, &'static str) {
        (Kernel::GemvF16, "gemv_f16")
    }
}

/// The summation bound of a GEMV launched in blocks of `block` threads over `cols` columns.
pub(super) fn gemv_tolerance(cols: usize, block: usize) -> Tolerance {
    Tolerance::SumBound { terms: cols.div_ceil(block) + 8 + 10 + 1 }
}

/// The magnitudes of binary16 weights (their sign bits cleared).
pub(super) fn abs_halves(weights: &[u16]) -> Vec<u16> {
    weights.iter().map(|bits| bits & 0x7fff).collect()
}

/// GEMV's special rows, by `r % 7`: ordinary; `+inf` at column 1; `-inf` at column 0, where
/// `x` is 0 (NaN); `+inf` and `-inf` (NaN or ±inf, by the signs of `x`); a NaN; subnormal
/// halves only; the largest half (65504) everywhere. `x` holds a subnormal and a `-0.0`.
pub(super) fn plant_gemv_specials(
    weights: &mut [u16],
    x: &mut [f32],
    rows: usize,
    cols: usize,
    rng: &mut Rng,
) {
    const POSITIVE_INFINITY: u16 = 0x7c00;
    const NEGATIVE_INFINITY: u16 = 0xfc00;
    const NAN: u16 = 0x7e00;
    const LARGEST: u16 = 0x7bff;
    if cols < 5 {
        return;
    }
    x[0] = 0.0;
    x[3] = subnormal(rng);
    x[4] = -0.0;
    for r in 0..rows {
        let row = &mut weights[r * cols..(r + 1) * cols];
        match r % 7 {
            1 => row[1] = POSITIVE_INFINITY,
            2 => row[0] = NEGATIVE_INFINITY,
            3 => (row[1], row[2]) = (POSITIVE_INFINITY, NEGATIVE_INFINITY),
            4 => row[rng.usize(0..cols)] = NAN,
            5 => row.iter_mut().for_each(|w| *w = rng.u16(1..0x0400) | if rng.bool() { 0x8000 } else { 0 }),
            6 => row.iter_mut().for_each(|w| *w = LARGEST | if rng.bool() { 0x8000 } else { 0 }),
            _ => {}
        }
    }
}
