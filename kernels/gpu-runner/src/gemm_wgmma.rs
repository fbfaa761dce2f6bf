//! `gemm_bf16_wgmma`'s cases, inputs, host reference and tolerance (GPU-free; the launch is in
//! [`crate::gemm_wgmma_gpu`]).
//!
//! The kernel computes `C = A·Bᵀ` with A `m × k` and B `n × k`, both bf16 row-major (B is
//! K-major, as a linear layer stores its weights), C `m × n` f32.
//!
//! Tolerance: the inputs are bf16, so every product `a·b` is exact in f32 (8 + 8 significant
//! bits); only the `k`-term sums round. Any order of f32 additions is within
//! `k · 2⁻²⁴ · Σ|a·b|` of the exact sum (the standard bound, first order), which the reference
//! computes in f64. The check allows twice that: a wrong tile, swizzle or stage gives errors of
//! the order of `Σ|a·b|` itself, thousands of times larger.

use half::bf16;

/// Rows of C per block and columns of C per block (the kernel's tile).
pub const TILE_M: usize = 128;
pub const TILE_N: usize = 128;
/// The box of both tensor maps: 64 values of K (128 bytes, the swizzle's row) by 128 rows.
pub const BOX_K: u32 = 64;
pub const BOX_ROWS: u32 = 128;
/// Threads per block: two consumer warpgroups and the producer warp.
pub const BLOCK_THREADS: u32 = 288;
/// Dynamic shared memory per block: 1024 bytes of alignment slack, 4 stages of A and B tiles
/// (16 KiB each), the 8 mbarriers.
pub const SHARED_BYTES: u32 = 1024 + 4 * 2 * 16384 + 64;

/// One product's dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmShape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

impl GemmShape {
    pub const fn new(m: usize, n: usize, k: usize) -> GemmShape {
        GemmShape { m, n, k }
    }

    /// The launch grid: one block per 128×128 tile of C (x over columns, y over rows).
    pub fn grid(&self) -> (u32, u32) {
        (self.n.div_ceil(TILE_N) as u32, self.m.div_ceil(TILE_M) as u32)
    }

    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// Why the kernel cannot take this shape, if it cannot: the tensor maps' row strides
    /// (`k` bf16 values) must be multiples of 16 bytes.
    pub fn unsupported(&self) -> Option<String> {
        if self.m == 0 || self.n == 0 || self.k == 0 {
            return Some(format!("{self}: every dimension must be positive"));
        }
        if !self.k.is_multiple_of(8) {
            return Some(format!(
                "{self}: k must be a multiple of 8 (rows of bf16 start on 16-byte boundaries)"
            ));
        }
        None
    }
}

impl std::fmt::Display for GemmShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)
    }
}

/// Small shapes checked in full: tails in every dimension, one and several k tiles, a k that
/// is not a multiple of the 64-wide stage.
pub fn correctness_shapes() -> Vec<GemmShape> {
    vec![
        GemmShape::new(128, 128, 64),
        GemmShape::new(256, 384, 512),
        GemmShape::new(130, 200, 72),
        GemmShape::new(1, 256, 1024),
        GemmShape::new(77, 1000, 264),
    ]
}

/// The shapes: square, prefill-like, and decode-like (m ∈ {1, 16, 64, 128}).
pub fn timing_shapes() -> Vec<GemmShape> {
    let mut shapes = vec![
        GemmShape::new(4096, 4096, 4096),
        GemmShape::new(8192, 8192, 8192),
        GemmShape::new(4096, 4096, 14336),
    ];
    shapes.extend([1, 16, 64, 128].map(|m| GemmShape::new(m, 14336, 4096)));
    shapes
}

/// Random bf16 values in [-1, 1).
pub fn random_bf16(rng: &mut fastrand::Rng, len: usize) -> Vec<bf16> {
    (0..len).map(|_| bf16::from_f32(rng.f32() * 2.0 - 1.0)).collect()
}

/// One element of the exact product, and the bound on its f32 rounding ([module docs](self)).
pub fn reference_element(a: &[bf16], b: &[bf16], shape: GemmShape, row: usize, column: usize) -> (f64, f64) {
    let a_row = &a[row * shape.k..(row + 1) * shape.k];
    let b_row = &b[column * shape.k..(column + 1) * shape.k];
    let (mut sum, mut magnitude) = (0.0f64, 0.0f64);
    for (x, y) in a_row.iter().zip(b_row) {
        let product = x.to_f64() * y.to_f64();
        sum += product;
        magnitude += product.abs();
    }
    let tolerance = 2.0 * shape.k as f64 * f64::from(f32::EPSILON) / 2.0 * magnitude;
    (sum, tolerance.max(f64::from(f32::MIN_POSITIVE)))
}

/// The elements a check visits: all of them for small products, else `samples` spread over C
/// with every block's corners among them.
pub fn checked_elements(shape: GemmShape, samples: usize, rng: &mut fastrand::Rng) -> Vec<(usize, usize)> {
    if shape.m * shape.n <= samples {
        return (0..shape.m).flat_map(|r| (0..shape.n).map(move |c| (r, c))).collect();
    }
    let mut elements = vec![(0, 0), (shape.m - 1, shape.n - 1), (0, shape.n - 1), (shape.m - 1, 0)];
    while elements.len() < samples {
        elements.push((rng.usize(0..shape.m), rng.usize(0..shape.n)));
    }
    elements
}

/// The result of checking C.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub checked: usize,
    pub failures: usize,
    /// The worst error as a fraction of its element's tolerance (≤ 1 passes).
    pub worst_fraction: f64,
    pub first_failure: Option<String>,
}

/// Compares `c` with the reference at `elements`; NaN fails.
pub fn check(a: &[bf16], b: &[bf16], c: &[f32], shape: GemmShape, elements: &[(usize, usize)]) -> Check {
    let mut result = Check { checked: 0, failures: 0, worst_fraction: 0.0, first_failure: None };
    for &(row, column) in elements {
        let (expected, tolerance) = reference_element(a, b, shape, row, column);
        let got = f64::from(c[row * shape.n + column]);
        let fraction = (got - expected).abs() / tolerance;
        result.checked += 1;
        if fraction.is_nan() || fraction > 1.0 {
            result.failures += 1;
            result.first_failure.get_or_insert_with(|| {
                format!("C[{row}][{column}] = {got}, expected {expected} ± {tolerance:.3e}")
            });
        }
        if fraction.is_nan() {
            result.worst_fraction = f64::INFINITY;
        } else {
            result.worst_fraction = result.worst_fraction.max(fraction);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(a: &[bf16], b: &[bf16], shape: GemmShape) -> Vec<f32> {
        let mut c = vec![0.0; shape.m * shape.n];
        for r in 0..shape.m {
            for col in 0..shape.n {
                c[r * shape.n + col] = reference_element(a, b, shape, r, col).0 as f32;
            }
        }
        c
    }

    #[test]
    fn a_correct_product_passes_and_a_transposed_b_fails() {
        let shape = GemmShape::new(3, 3, 16);
        let mut rng = fastrand::Rng::with_seed(7);
        let (a, b) = (random_bf16(&mut rng, 3 * 16), random_bf16(&mut rng, 3 * 16));
        let c = product(&a, &b, shape);
        let all = checked_elements(shape, 100, &mut rng);
        assert_eq!(all.len(), 9);
        assert_eq!(check(&a, &b, &c, shape, &all).failures, 0);
        // A·B read as if B were k × n instead of n × k: what a wrong map or descriptor gives.
        let mut wrong = c.clone();
        for (r, row) in wrong.chunks_mut(3).enumerate() {
            for (col, value) in row.iter_mut().enumerate() {
                *value = (0..16).map(|i| a[r * 16 + i].to_f32() * b[i * 3 + col].to_f32()).sum();
            }
        }
        assert!(check(&a, &b, &wrong, shape, &all).failures > 0);
    }

    #[test]
    fn the_tolerance_grows_with_k_and_an_error_of_one_ulp_of_the_sum_passes() {
        let mut rng = fastrand::Rng::with_seed(3);
        let short = GemmShape::new(1, 1, 64);
        let long = GemmShape::new(1, 1, 4096);
        let (a, b) = (random_bf16(&mut rng, 4096), random_bf16(&mut rng, 4096));
        let (_, t_short) = reference_element(&a[..64], &b[..64], short, 0, 0);
        let (exact, t_long) = reference_element(&a, &b, long, 0, 0);
        assert!(t_long > 10.0 * t_short, "{t_long} vs {t_short}");
        let nudged = [(exact as f32) * (1.0 + f32::EPSILON)];
        assert_eq!(check(&a, &b, &nudged, long, &[(0, 0)]).failures, 0);
        assert_eq!(check(&a, &b, &[f32::NAN], long, &[(0, 0)]).failures, 1);
    }

    #[test]
    fn shapes_the_tensor_maps_cannot_describe_are_refused_by_name() {
        assert!(GemmShape::new(4, 4, 12).unsupported().unwrap().contains("4x4x12"));
        assert_eq!(GemmShape::new(1, 14336, 4096).unsupported(), None);
        assert_eq!(GemmShape::new(130, 200, 72).grid(), (2, 2));
    }

    #[test]
    fn large_shapes_are_sampled_with_their_corners() {
        let mut rng = fastrand::Rng::with_seed(1);
        let elements = checked_elements(GemmShape::new(4096, 4096, 4096), 64, &mut rng);
        assert_eq!(elements.len(), 64);
        assert!(elements.contains(&(4095, 4095)));
    }
}
