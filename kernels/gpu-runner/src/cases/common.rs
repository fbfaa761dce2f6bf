//! What several kernel families share: random input values (uniform, bf16-exact, half weights),
//! the special values planted among them, the magnitudes of a sum's terms and the GEMM
//! reference at sampled elements.

use half::{bf16, f16};

use super::family::{Elements, Family, Gemm};
use super::{Case, Expected};
use crate::compare::Tolerance;

/// Special values on element-wise inputs, `(n, offset)` in blocks of 128: one element, a size
/// on the vectorised path and one misaligned for it.
const SPECIAL_ELEMENTS: [(usize, usize); 3] = [(1, 0), (1000, 0), (1001, 1)];

/// The special-value cases of a family of element-wise kernels ([`SPECIAL_ELEMENTS`]).
pub(super) fn special_elements<F: Family<Shape = Elements>>(family: F) -> Vec<Case> {
    family.specials_by_contract(SPECIAL_ELEMENTS.map(|(n, offset)| (Elements { n }, 128, None, offset)))
}

pub(super) fn uniform(rng: &mut fastrand::Rng, len: usize, low: f32, high: f32) -> Vec<f32> {
    (0..len).map(|_| low + (high - low) * rng.f32()).collect()
}

/// [`uniform`] values rounded to bf16 (nearest even), as the f32 values they widen to.
pub(super) fn uniform_bf16(rng: &mut fastrand::Rng, len: usize, low: f32, high: f32) -> Vec<f32> {
    (0..len).map(|_| bf16::from_f32(low + (high - low) * rng.f32()).to_f32()).collect()
}

/// `len` uniform weights in `[-1, 1)` as IEEE binary16 bits (GEMV's weights).
pub(super) fn uniform_halves(rng: &mut fastrand::Rng, len: usize) -> Vec<u16> {
    uniform(rng, len, -1.0, 1.0).into_iter().map(|v| f16::from_f32(v).to_bits()).collect()
}

/// A subnormal `f32` of random magnitude and sign.
pub(super) fn subnormal(rng: &mut fastrand::Rng) -> f32 {
    let value = f32::from_bits(rng.u32(1..0x0080_0000));
    if rng.bool() { value } else { -value }
}

/// One of the special values an element-wise input may hold.
fn special_element(rng: &mut fastrand::Rng) -> f32 {
    match rng.u32(0..9) {
        0 => f32::NEG_INFINITY,
        1 => f32::INFINITY,
        2 => f32::NAN,
        3 => f32::MAX,
        4 => -f32::MAX,
        5 => 0.75 * f32::MAX,
        6 => -0.0,
        7 => f32::MIN_POSITIVE,
        _ => subnormal(rng),
    }
}

/// Replaces about a third of `values` with special ones, so that every pairing of two inputs
/// (inf + -inf, MAX + MAX, NaN with anything, subnormal sums) occurs somewhere.
pub(super) fn sprinkle_specials(values: &mut [f32], rng: &mut fastrand::Rng) {
    for value in values {
        if rng.u32(0..3) == 0 {
            *value = special_element(rng);
        }
    }
}

/// Plants one special value per unit of a sum's partition (`start(u)` is where unit `u` begins,
/// `len` its length): unit 0 a NaN, unit 1 `+inf`, unit 2 two terms of `0.75 · MAX` (their sum
/// overflows), unit 3 `-inf` and `+inf` (NaN), unit 4 subnormals only; the rest stay finite.
pub(super) fn plant_sum_specials(values: &mut [f32], start: impl Fn(usize) -> usize, len: usize) {
    let mut set = |index: usize, value: f32| {
        if let Some(slot) = values.get_mut(index) {
            *slot = value;
        }
    };
    set(start(0), f32::NAN);
    set(start(1), f32::INFINITY);
    set(start(2), 0.75 * f32::MAX);
    set(start(2) + 1, 0.75 * f32::MAX);
    set(start(3), f32::NEG_INFINITY);
    set(start(3) + 1, f32::INFINITY);
    let mut rng = fastrand::Rng::with_seed(len as u64);
    for index in start(4)..start(4) + len {
        set(index, subnormal(&mut rng).abs());
    }
}

pub(super) fn abs_all(values: &[f32]) -> Vec<f32> {
    values.iter().map(|v| v.abs()).collect()
}

/// The product `A·B` (`m × k` by `k × n`) at `samples` elements of C (its four corners among
/// them, the rest drawn from `rng`), summed in f64, as the indices into C and their
/// [`Expected`] values and magnitudes under `tolerance`; `b_at(c, l)` is B's element at row `l`
/// and column `c`. `None` for an empty C.
pub(super) fn sampled_product(
    a: &[f32],
    b_at: &dyn Fn(usize, usize) -> f32,
    Gemm { m, n, k }: Gemm,
    tolerance: Tolerance,
    (samples, rng): (usize, &mut fastrand::Rng),
) -> Option<(Vec<usize>, Expected)> {
    if m == 0 || n == 0 {
        return None;
    }
    let mut indices = vec![0, n - 1, (m - 1) * n, m * n - 1];
    while indices.len() < samples.max(4) {
        indices.push(rng.usize(0..m * n));
    }
    let (mut values, mut magnitudes) = (Vec::new(), Vec::new());
    for &index in &indices {
        let (r, c) = (index / n, index % n);
        let (mut sum, mut magnitude) = (0.0f64, 0.0f64);
        for l in 0..k {
            let product = f64::from(a[r * k + l]) * f64::from(b_at(c, l));
            sum += product;
            magnitude += product.abs();
        }
        values.push(sum as f32);
        magnitudes.push(magnitude as f32);
    }
    Some((indices, Expected { values, tolerance, magnitudes: Some(magnitudes) }))
}
