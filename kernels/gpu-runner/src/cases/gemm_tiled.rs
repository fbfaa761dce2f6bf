//! `gemm_tiled`: `C = A·B` in f32 through 16×16 shared-memory tiles, a block per tile of C.

use fastrand::Rng;

use super::common::{abs_all, sampled_product, subnormal, uniform};
use super::family::{Family, Gemm, Param, Sampled};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};
use crate::compare::Tolerance;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GemmTiled {
    GemmTiled,
}

/// Correctness `(m, n, k)`: one element, `k = 0`, tails in every dimension, whole tiles.
const CORRECTNESS: [(usize, usize, usize); 5] =
    [(1, 1, 1), (5, 7, 0), (17, 19, 23), (64, 64, 64), (100, 70, 300)];
/// The special-value case.
const SPECIAL: Gemm = Gemm { m: 17, n: 19, k: 23 };
/// The timing shape.
const TIMING: Gemm = Gemm { m: 4096, n: 4096, k: 4096 };

impl Family for GemmTiled {
    type Shape = Gemm;

    /// Compute-bound: FLOP/s, judged against the peer only.
    fn roofline(self) -> Roofline {
        Roofline::Arithmetic
    }

    /// 16×16 blocks covering C, 2048 bytes for the two tiles.
    fn launch(self, Gemm { m, n, .. }: Gemm, _block: u32, _grid: Option<usize>) -> Launch {
        let tiles = |len: usize| u32::try_from(len.div_ceil(16).max(1)).expect("grid fits in u32");
        Launch {
            grid: (tiles(n), tiles(m)),
            block: (16, 16),
            shared_bytes: 2048,
            cluster: 1,
            column_split: false,
        }
    }

    /// `m*k`, `k*n` and `m*n` floats.
    fn params(self, Gemm { m, n, k }: Gemm) -> Vec<Param> {
        use Param::{Count, Input, Output};
        vec![Input(0), Input(1), Output, Count(m), Count(n), Count(k)]
    }

    fn correctness_cases(self, _sms: usize) -> Vec<Case> {
        self.by_contract(CORRECTNESS.map(|(m, n, k)| (Gemm { m, n, k }, 256, None)))
    }

    fn special_cases(self) -> Vec<Case> {
        self.specials_by_contract([(SPECIAL, 256, None, 0)])
    }

    fn timing_cases(self, _sms: usize) -> Vec<Case> {
        self.by_contract([(TIMING, 256, None)])
    }

    fn work(self, Gemm { m, n, k }: Gemm) -> Work {
        let f = 4u64;
        Work { bytes: f * (m * k + k * n + m * n) as u64, flops: 2 * (m * n * k) as u64 }
    }

    fn random_inputs(self, Gemm { m, n, k }: Gemm, rng: &mut Rng) -> Inputs {
        Inputs::plain(vec![uniform(rng, m * k, -1.0, 1.0), uniform(rng, k * n, -1.0, 1.0)])
    }

    /// Row 0 of `a` holds a NaN, row 1 an infinity met by a zero in column 0 of `b` (inf · 0 =
    /// NaN there, ±inf elsewhere), row 2 subnormals only.
    fn plant_specials(self, Gemm { m, n, k }: Gemm, _: &Launch, inputs: &mut Inputs, rng: &mut Rng) {
        let (a, b) = inputs.floats.split_at_mut(1);
        let (a, b) = (&mut a[0], &mut b[0]);
        if m >= 3 && k >= 2 && n >= 1 {
            a[0] = f32::NAN;
            a[k + 1] = f32::INFINITY;
            b[n] = 0.0;
            a[2 * k..3 * k].iter_mut().for_each(|v| *v = subnormal(rng));
        }
    }

    fn output_len(self, Gemm { m, n, .. }: Gemm, _: &Launch) -> usize {
        m * n
    }

    /// The recursive summation bound over `k` terms.
    fn expected(self, Gemm { m, n, k }: Gemm, _: &Launch, inputs: &Inputs) -> Expected {
        let f = &inputs.floats;
        Expected {
            values: kernels_reference::gemm(&f[0], &f[1], m, n, k),
            tolerance: Tolerance::SumBound { terms: k + 1 },
            magnitudes: Some(kernels_reference::gemm(&abs_all(&f[0]), &abs_all(&f[1]), m, n, k)),
        }
    }

    /// B is `k × n`: element (r, c) is the dot product of A's row r and B's column c.
    fn sampled_expected(self, shape: Gemm, inputs: &Inputs, samples: usize, rng: &mut Rng) -> Sampled {
        let (f, n) = (&inputs.floats, shape.n);
        let tolerance = Tolerance::SumBound { terms: shape.k + 1 };
        sampled_product(&f[0], &|c, l| f[1][l * n + c], shape, tolerance, (samples, rng))
    }

    fn identity(self) -> (Kernel, &'static str) {
        (Kernel::GemmTiled, "gemm_tiled")
    }
}
