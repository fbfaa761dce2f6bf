//! `gemm_bf16_wgmma` and its epilogue entries `_bias`, `_bf16` and `_bias_bf16`, the same
//! four with 128×256 tiles (`gemm_bf16_wgmma_wide…`), and `gemm_bf16_decode_bf16` (the same
//! product for few rows of A, on `mma.sync`, bf16 C): `C = A·Bᵀ`
//! with bf16 A (`m × k`) and K-major B (`n × k`) through tensor maps and `wgmma`, C f32 or
//! bf16, an f32 bias per column added or not. The launch contract itself (tile, box, block,
//! shared memory, pitch, special values) is [`crate::gemm_wgmma`].

use half::bf16;

use fastrand::Rng;

use super::common::{abs_all, sampled_product, uniform, uniform_bf16};
use super::family::{Family, Gemm, Param, Sampled, WgmmaVariant};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};
use crate::compare::Tolerance;
use crate::gemm_wgmma::{self, GemmShape};

/// One of the nine entries: four epilogues, each with the 128×128 and the 128×256 tile, and
/// the decode entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmBf16Wgmma(WgmmaVariant);

impl GemmBf16Wgmma {
    const fn of(bias: bool, bf16_output: bool, wide: bool) -> GemmBf16Wgmma {
        GemmBf16Wgmma(WgmmaVariant { bias, bf16_output, wide, decode: false })
    }
    pub const PLAIN: GemmBf16Wgmma = GemmBf16Wgmma::of(false, false, false);
    pub const BIAS: GemmBf16Wgmma = GemmBf16Wgmma::of(true, false, false);
    pub const BF16: GemmBf16Wgmma = GemmBf16Wgmma::of(false, true, false);
    pub const BIAS_BF16: GemmBf16Wgmma = GemmBf16Wgmma::of(true, true, false);
    pub const WIDE: GemmBf16Wgmma = GemmBf16Wgmma::of(false, false, true);
    pub const WIDE_BIAS: GemmBf16Wgmma = GemmBf16Wgmma::of(true, false, true);
    pub const WIDE_BF16: GemmBf16Wgmma = GemmBf16Wgmma::of(false, true, true);
    pub const WIDE_BIAS_BF16: GemmBf16Wgmma = GemmBf16Wgmma::of(true, true, true);
    pub const DECODE_BF16: GemmBf16Wgmma =
        GemmBf16Wgmma(WgmmaVariant { bias: false, bf16_output: true, wide: false, decode: true });
}

/// Correctness `(m, n, k)`: tails in every dimension, one and several k tiles, a k that is not
/// a multiple of the 64-wide stage, one row.
const CORRECTNESS: [(usize, usize, usize); 5] =
    [(128, 128, 64), (256, 384, 512), (130, 200, 72), (1, 256, 1024), (77, 1000, 264)];
/// Correctness at the edges: one row, one column, k = 1 and k not a multiple of 8 (rows at a
/// padded pitch); an empty C (one block that stores nothing); k = 0 (C = 0, or the bias).
const CORRECTNESS_EDGES: [(usize, usize, usize); 6] =
    [(1, 1, 1), (129, 1, 3), (2, 130, 1), (0, 130, 64), (70, 0, 64), (70, 130, 0)];
/// Special values: tails, several k tiles, a k of 3, and k = 0 with the bias's specials alone
/// (see [`gemm_wgmma::plant_specials`]). No misaligned case: the tensor maps need 16-byte
/// aligned rows.
const SPECIAL: [(usize, usize, usize); 4] = [(130, 200, 72), (200, 130, 1000), (9, 17, 3), (70, 130, 0)];
/// Issue 14's timing shapes for the plain entry: square, prefill-like, and decode-like
/// (`DECODE_ROWS` rows against a 14336 × 4096 weight; still more than the L2 through the
/// weight).
const TIMING_SQUARE: [(usize, usize, usize); 3] =
    [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 4096, 14336)];
const TIMING_DECODE_ROWS: [usize; 4] = [1, 16, 64, 128];
/// The epilogues beside the plain entry: the square shape, and the decode-like one whose C is
/// largest against its work.
const TIMING_EPILOGUES: [(usize, usize, usize); 2] = [(4096, 4096, 4096), (128, 14336, 4096)];
/// The decode entry's correctness shapes: one to 16 rows of A and more (a second and third
/// block row), tails of the 32 rows of B a block takes, k from 0 to past one block step (1024
/// values) and not a multiple of 8 (the last chunk masked, the pitch's padding never read), an
/// empty C.
const DECODE_CORRECTNESS: [(usize, usize, usize); 12] = [
    (1, 1, 1),
    (3, 17, 5),
    (16, 130, 72),
    (9, 1000, 264),
    (16, 256, 1024),
    (8, 4096, 4096),
    (17, 70, 1030),
    (40, 33, 2049),
    (1, 14336, 4096),
    (0, 130, 64),
    (70, 0, 64),
    (5, 130, 0),
];
/// The decode entry's timing shapes: decode batches against a feed-forward weight (117 MB,
/// past the L2; the sweep adds the 8 × 4096 × 4096, whose weight fits it).
const DECODE_TIMING: [(usize, usize, usize); 3] = [(1, 14336, 4096), (8, 14336, 4096), (16, 14336, 4096)];

impl GemmBf16Wgmma {
    fn epilogue(self) -> WgmmaVariant {
        self.0
    }

    /// Whether this is the plain epilogue (f32 C, no bias), at either tile.
    fn plain(self) -> bool {
        !self.0.bias && !self.0.bf16_output
    }

    /// The tolerance: bf16 inputs make every product exact in f32 (8 + 8 significant bits), so
    /// only the `k` additions of the f32 accumulation round, in an order the tensor cores
    /// choose: the recursive-summation bound over `k` terms, plus one for the reference's own
    /// rounding to f32. A wrong tile, swizzle or stage errs by the order of the terms'
    /// magnitude itself, thousands of times more.
    ///
    /// The epilogues: a bias is one more term of the sum (its magnitude joins the terms'), added
    /// in f32 (one more rounding); C stored as bf16 adds half an ulp of bf16 on top of that
    /// bound ([`Tolerance::SumBoundThenBf16`]).
    fn tolerance(self, k: usize) -> Tolerance {
        let epilogue = self.epilogue();
        let terms = k + 1 + usize::from(epilogue.bias);
        if epilogue.bf16_output {
            Tolerance::SumBoundThenBf16 { terms }
        } else {
            Tolerance::SumBound { terms }
        }
    }

    /// Turns the reference product `expected` (f32 values rounded from f64, their magnitudes)
    /// into the entry's: the bias of each column added (`bias`, `n` floats) and the tolerance
    /// its epilogue asks for. A bf16 C is compared with the unrounded reference (the tolerance
    /// holds the rounding), except where rounding it to bf16 overflows: there the reference is
    /// that infinity, as PyTorch's `.to(torch.bfloat16)` gives and a finite value cannot stand
    /// for.
    fn apply_epilogue(self, k: usize, bias: Option<&[f32]>, n: usize, expected: &mut Expected) {
        expected.tolerance = self.tolerance(k);
        if let Some(bias) = bias.filter(|_| self.epilogue().bias) {
            let magnitudes = expected.magnitudes.as_mut().expect("sums have magnitudes");
            for (i, (value, magnitude)) in expected.values.iter_mut().zip(magnitudes.iter_mut()).enumerate() {
                let column_bias = bias[i % n];
                *value = (f64::from(*value) + f64::from(column_bias)) as f32;
                *magnitude += column_bias.abs();
            }
        }
        if self.epilogue().bf16_output {
            for value in expected.values.iter_mut().filter(|v| v.is_finite()) {
                let rounded = bf16::from_f32(*value).to_f32();
                if rounded.is_infinite() {
                    *value = rounded;
                }
            }
        }
    }
}

impl Family for GemmBf16Wgmma {
    type Shape = Gemm;

    /// Compute-bound: FLOP/s, judged against the peer only.
    fn roofline(self) -> Roofline {
        Roofline::Arithmetic
    }

    /// 0.6× cuBLAS (through `torch.matmul`) for the plain entry at 4096³ and 8192³ (issue 14;
    /// it sets none at the other GEMM shapes).
    fn peer_speed_target_on(self, dims: &[usize]) -> Option<f64> {
        let square = matches!(dims, [4096, 4096, 4096] | [8192, 8192, 8192]);
        (self == GemmBf16Wgmma::PLAIN && square).then_some(0.6)
    }

    fn wgmma_variant(self) -> Option<WgmmaVariant> {
        Some(self.epilogue())
    }

    /// The ring, past the default 48 KiB (the decode entry's 16 KiB need no raise).
    fn dynamic_shared_limit(self) -> Option<u32> {
        (!self.0.decode).then(|| gemm_wgmma::shared_bytes(self.0.wide))
    }

    /// A block per 128×128 (or, wide, 128×256) tile of C, [`gemm_wgmma::BLOCK_THREADS`]
    /// threads, the ring's shared memory.
    fn launch(self, Gemm { m, n, .. }: Gemm, _block: u32, _grid: Option<usize>) -> Launch {
        if self.0.decode {
            return Launch {
                grid: GemmShape::new(m, n, 1).decode_grid(),
                block: (gemm_wgmma::DECODE_BLOCK_THREADS, 1),
                shared_bytes: gemm_wgmma::DECODE_SHARED_BYTES,
                cluster: 1,
                column_split: false,
            };
        }
        Launch {
            grid: GemmShape::new(m, n, 1).grid(gemm_wgmma::tile_n(self.0.wide)),
            block: (gemm_wgmma::BLOCK_THREADS, 1),
            shared_bytes: gemm_wgmma::shared_bytes(self.0.wide),
            cluster: 1,
            column_split: false,
        }
    }

    /// The maps describe A (k × m) and B (k × n) bf16 with the box and swizzle the kernel
    /// reads; C holds m·n floats (plus guards), or bf16 values for a bf16 epilogue; the bias
    /// `n` floats; `m`, `n`, `k` as `u32`.
    fn params(self, Gemm { m, n, k }: Gemm) -> Vec<Param> {
        if self.0.decode {
            let pitch = gemm_wgmma::row_pitch(k);
            return vec![
                Param::MatrixA,
                Param::MatrixB,
                Param::Output,
                Param::Count32(m),
                Param::Count32(n),
                Param::Count32(k),
                Param::Count32(pitch),
            ];
        }
        let mut params = vec![Param::TensorMapA, Param::TensorMapB, Param::Output];
        if self.epilogue().bias {
            params.push(Param::Bias);
        }
        params.extend([Param::Count32(m), Param::Count32(n), Param::Count32(k)]);
        params
    }

    fn correctness_cases(self, _sms: usize) -> Vec<Case> {
        let shapes: Vec<_> = if self.0.decode {
            DECODE_CORRECTNESS.to_vec()
        } else {
            CORRECTNESS.into_iter().chain(CORRECTNESS_EDGES).collect()
        };
        let shapes = shapes.into_iter();
        self.by_contract(shapes.map(|(m, n, k)| (Gemm { m, n, k }, gemm_wgmma::BLOCK_THREADS, None)))
    }

    fn special_cases(self) -> Vec<Case> {
        self.specials_by_contract(
            SPECIAL.map(|(m, n, k)| (Gemm { m, n, k }, gemm_wgmma::BLOCK_THREADS, None, 0)),
        )
    }

    fn timing_cases(self, _sms: usize) -> Vec<Case> {
        let shapes: Vec<(usize, usize, usize)> = if self.0.decode {
            DECODE_TIMING.to_vec()
        } else if self.plain() {
            let decode = TIMING_DECODE_ROWS.map(|m| (m, 14336, 4096));
            TIMING_SQUARE.into_iter().chain(decode).collect()
        } else {
            TIMING_EPILOGUES.to_vec()
        };
        self.by_contract(
            shapes.into_iter().map(|(m, n, k)| (Gemm { m, n, k }, gemm_wgmma::BLOCK_THREADS, None)),
        )
    }

    /// bf16 A and B; C f32 or bf16; the bias n floats.
    fn work(self, Gemm { m, n, k }: Gemm) -> Work {
        let epilogue = self.epilogue();
        let c_bytes = if epilogue.bf16_output { 2 } else { 4 };
        let bias_bytes = if epilogue.bias { 4 * n } else { 0 };
        Work::of(2 * (m * k + n * k) + c_bytes * m * n + bias_bytes, 2 * m * n * k)
    }

    /// A (m × k) and the K-major B (n × k), bf16 values held as the f32 they widen to exactly;
    /// the runner uploads their bf16 bits.
    fn random_inputs(self, Gemm { m, n, k }: Gemm, rng: &mut Rng) -> Inputs {
        let mut floats = vec![uniform_bf16(rng, m * k, -1.0, 1.0), uniform_bf16(rng, n * k, -1.0, 1.0)];
        if self.epilogue().bias {
            floats.push(uniform(rng, n, -1.0, 1.0));
        }
        Inputs::plain(floats)
    }

    fn plant_specials(self, Gemm { m, n, k }: Gemm, _: &Launch, inputs: &mut Inputs, rng: &mut Rng) {
        let (a, rest) = inputs.floats.split_at_mut(1);
        let (b, bias) = rest.split_at_mut(1);
        let bias = bias.first_mut().map(Vec::as_mut_slice);
        gemm_wgmma::plant_specials(&mut a[0], &mut b[0], bias, GemmShape::new(m, n, k), rng);
    }

    fn output_len(self, Gemm { m, n, .. }: Gemm, _: &Launch) -> usize {
        m * n
    }

    /// B is n × k (K-major); the reference multiplies by a k × n matrix.
    fn expected(self, Gemm { m, n, k }: Gemm, _: &Launch, inputs: &Inputs) -> Expected {
        let f = &inputs.floats;
        let b = transpose(&f[1], n, k);
        let mut expected = Expected {
            values: kernels_reference::gemm(&f[0], &b, m, n, k),
            tolerance: Tolerance::SumBound { terms: 0 },
            magnitudes: Some(kernels_reference::gemm(&abs_all(&f[0]), &abs_all(&b), m, n, k)),
        };
        self.apply_epilogue(k, f.get(2).map(Vec::as_slice), n, &mut expected);
        expected
    }

    /// B is K-major: element (r, c) is the dot product of A's row r and B's row c.
    fn sampled_expected(self, shape: Gemm, inputs: &Inputs, samples: usize, rng: &mut Rng) -> Sampled {
        let (f, n, k) = (&inputs.floats, shape.n, shape.k);
        let b_at = |c: usize, l: usize| f[1][c * k + l];
        let (indices, mut expected) =
            sampled_product(&f[0], &b_at, shape, self.tolerance(k), (samples, rng))?;
        if let Some(bias) = f.get(2).filter(|_| self.epilogue().bias) {
            // The samples as one row of C whose columns are their own: each gets its column's bias.
            let at_samples: Vec<f32> = indices.iter().map(|&i| bias[i % n]).collect();
            self.apply_epilogue(k, Some(&at_samples), at_samples.len(), &mut expected);
        }
        Some((indices, expected))
    }

    fn identity(self) -> (Kernel, &'static str) {
        let WgmmaVariant { bias, bf16_output, wide, decode } = self.0;
        if decode {
            return (Kernel::GemmBf16DecodeBf16, "gemm_bf16_decode_bf16");
        }
        match (wide, bias, bf16_output) {
            (false, false, false) => (Kernel::GemmBf16Wgmma, "gemm_bf16_wgmma"),
            (false, true, false) => (Kernel::GemmBf16WgmmaBias, "gemm_bf16_wgmma_bias"),
            (false, false, true) => (Kernel::GemmBf16WgmmaBf16, "gemm_bf16_wgmma_bf16"),
            (false, true, true) => (Kernel::GemmBf16WgmmaBiasBf16, "gemm_bf16_wgmma_bias_bf16"),
            (true, false, false) => (Kernel::GemmBf16WgmmaWide, "gemm_bf16_wgmma_wide"),
            (true, true, false) => (Kernel::GemmBf16WgmmaWideBias, "gemm_bf16_wgmma_wide_bias"),
            (true, false, true) => (Kernel::GemmBf16WgmmaWideBf16, "gemm_bf16_wgmma_wide_bf16"),
            (true, true, true) => (Kernel::GemmBf16WgmmaWideBiasBf16, "gemm_bf16_wgmma_wide_bias_bf16"),
        }
    }
}

/// The `cols × rows` transpose of a row-major `rows × cols` matrix.
fn transpose(values: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; values.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = values[r * cols + c];
        }
    }
    out
}
