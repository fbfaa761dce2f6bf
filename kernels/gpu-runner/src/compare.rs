//! Comparing a kernel's output with its reference: the tolerance each kernel states, the worst
//! error found, and the checks that catch elements a kernel never wrote or wrote past the end.
//!
//! Outputs are poisoned before every launch with [`POISON`], a NaN with a payload no arithmetic
//! produces, and allocated [`GUARD`] elements longer than the kernel may write. An element still
//! holding the poison was never written; a guard element that lost it was written out of bounds.

use std::fmt;

/// The bit pattern every output element holds before a launch: a quiet NaN with a payload that
/// no floating-point operation produces (operations return the canonical NaN or propagate an
/// input's payload, and no input carries this one).
pub const POISON: u32 = 0x7fc0_dead;

/// Elements allocated past the end of every output buffer, poisoned, to catch writes past it.
pub const GUARD: usize = 64;

/// `values` followed by [`GUARD`] poisoned elements: an output or input buffer as allocated.
pub fn with_guard(values: &[f32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(values.len() + GUARD);
    out.extend_from_slice(values);
    out.extend(std::iter::repeat_n(f32::from_bits(POISON), GUARD));
    out
}

/// How many of the guard elements past an output's end lost their poison: written out of
/// bounds.
pub fn written_past_end(guard: &[f32]) -> usize {
    guard.iter().filter(|v| v.to_bits() != POISON).count()
}

/// What a kernel's output may differ from its reference by, element by element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// Bitwise equal (the same operation with the same rounding: IEEE add, fused multiply-add).
    Exact,
    /// `|got - expected| <= abs + rel * |expected|`: for kernels whose error is multiplicative
    /// (approximate `exp` and `rsqrt`, a few roundings per element).
    Relative { rel: f64, abs: f64 },
    /// A sum of `terms` products accumulated in `f32` in any order, against the exact sum:
    /// `|got - expected| <= terms * f32::EPSILON * magnitude`, where `magnitude` is the sum of
    /// the absolute values of the products (the classic worst-case bound of recursive
    /// summation; `terms` counts the additions on the longest chain, plus one for the product).
    SumBound { terms: usize },
    /// A [`Tolerance::SumBound`] sum rounded once more, to bfloat16 (8 significant bits), as
    /// it is stored: the sum's bound `B` plus half an ulp of bf16 of the rounded value,
    /// `|got - expected| <= B + max(2⁻⁸ · (|expected| + B), 2⁻¹³⁴)` (the second term: half
    /// the spacing of bf16's subnormals). Its error is reported as a fraction of that bound.
    SumBoundThenBf16 { terms: usize },
}

impl Tolerance {
    /// The tolerance against PyTorch's output for the same input: the kernel's own, except
    /// that "exact" allows two ulps (PyTorch may contract or reorder the same operations
    /// differently; the host reference holds the kernel to exactness).
    pub fn against_peer(self) -> Tolerance {
        match self {
            Tolerance::Exact => Tolerance::Relative { rel: 2.0 * f64::from(f32::EPSILON), abs: 0.0 },
            other => other,
        }
    }
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tolerance::Exact => write!(f, "exact"),
            Tolerance::Relative { rel, abs } => write!(f, "rel ≤ {rel:.0e} (+{abs:.0e})"),
            Tolerance::SumBound { terms } => write!(f, "≤ {terms}·eps·Σ|terms|"),
            Tolerance::SumBoundThenBf16 { terms } => write!(f, "≤ {terms}·eps·Σ|terms| + ½ ulp of bf16"),
        }
    }
}

/// The outcome of one comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub tolerance: Tolerance,
    /// Elements compared.
    pub len: usize,
    /// The worst error, in the tolerance's own unit: ulps for [`Tolerance::Exact`], relative
    /// error for [`Tolerance::Relative`], error over `eps · magnitude` for
    /// [`Tolerance::SumBound`].
    pub worst: f64,
    /// Where the worst error is (`None` when nothing was compared).
    pub worst_index: Option<usize>,
    /// Elements outside the tolerance (NaN where the reference is not NaN counts).
    pub out_of_tolerance: usize,
    /// Elements still holding [`POISON`]: never written.
    pub unwritten: usize,
    /// Guard elements past the end that lost their poison: written out of bounds.
    pub written_past_end: usize,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.out_of_tolerance == 0 && self.unwritten == 0 && self.written_past_end == 0
    }

    /// One line for the table: "pass", or "FAIL" and why, with the worst error.
    pub fn summary(&self) -> String {
        let worst = match self.tolerance {
            Tolerance::Exact => format!("{} ulp", self.worst),
            Tolerance::Relative { .. } => format!("rel {:.1e}", self.worst),
            Tolerance::SumBound { .. } => format!("{:.2}·eps·Σ", self.worst),
            Tolerance::SumBoundThenBf16 { .. } => format!("{:.2} of the bound", self.worst),
        };
        if self.passed() {
            return format!("pass ({worst})");
        }
        let mut why = Vec::new();
        if self.out_of_tolerance > 0 {
            why.push(format!("{} off (worst {worst} at {:?})", self.out_of_tolerance, self.worst_index));
        }
        if self.unwritten > 0 {
            why.push(format!("{} unwritten", self.unwritten));
        }
        if self.written_past_end > 0 {
            why.push(format!("{} written past the end", self.written_past_end));
        }
        format!("FAIL: {}", why.join(", "))
    }
}

/// Why a comparison could not be made at all.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CompareError {
    #[error("the output holds {got} elements but {expected} + {GUARD} guard elements were expected")]
    Length { got: usize, expected: usize },
    #[error("{tolerance} needs one magnitude per element: {got} given for {expected} elements")]
    Magnitudes { tolerance: Tolerance, got: usize, expected: usize },
}

/// Compares `output` (the kernel's buffer: `expected.len()` elements, then [`GUARD`] guard
/// elements) with `expected` under `tolerance`. `magnitudes` are needed by
/// [`Tolerance::SumBound`] only: per element, the sum of the absolute values of its terms.
pub fn compare(
    output: &[f32],
    expected: &[f32],
    tolerance: Tolerance,
    magnitudes: Option<&[f32]>,
) -> Result<Comparison, CompareError> {
    if output.len() != expected.len() + GUARD {
        return Err(CompareError::Length { got: output.len(), expected: expected.len() });
    }
    if let Tolerance::SumBound { .. } | Tolerance::SumBoundThenBf16 { .. } = tolerance {
        let got = magnitudes.map_or(0, <[f32]>::len);
        if got != expected.len() {
            return Err(CompareError::Magnitudes { tolerance, got, expected: expected.len() });
        }
    }
    let (body, guard) = output.split_at(expected.len());
    let mut comparison = Comparison {
        tolerance,
        len: expected.len(),
        worst: 0.0,
        worst_index: None,
        out_of_tolerance: 0,
        unwritten: 0,
        written_past_end: written_past_end(guard),
    };
    for (i, (&got, &want)) in body.iter().zip(expected).enumerate() {
        if got.to_bits() == POISON {
            comparison.unwritten += 1;
            continue;
        }
        let (error, within) = element_error(got, want, tolerance, magnitudes.map(|m| m[i]));
        if !within {
            comparison.out_of_tolerance += 1;
        }
        if comparison.worst_index.is_none() || worse(error, comparison.worst) {
            comparison.worst = error;
            comparison.worst_index = Some(i);
        }
    }
    Ok(comparison)
}

/// Whether error `a` is worse than `b`: a NaN error ranks above every number.
fn worse(a: f64, b: f64) -> bool {
    match (a.is_nan(), b.is_nan()) {
        (true, false) => true,
        (false, false) => a > b,
        _ => false,
    }
}

/// `difference` in units of `unit`: none when both are 0, infinitely many when only the unit
/// is.
fn in_units_of(difference: f64, unit: f64) -> f64 {
    if unit > 0.0 {
        difference / unit
    } else if difference == 0.0 {
        0.0
    } else {
        f64::INFINITY
    }
}

/// One element's error in the tolerance's unit, and whether it is within the tolerance.
fn element_error(got: f32, want: f32, tolerance: Tolerance, magnitude: Option<f32>) -> (f64, bool) {
    if want.is_nan() || got.is_nan() {
        // A NaN matches only a NaN reference, and only under exact comparison of NaN-ness.
        let both = want.is_nan() && got.is_nan();
        return (if both { 0.0 } else { f64::NAN }, both);
    }
    if want.is_infinite() || got.is_infinite() {
        // An infinity matches only the same infinity; no bound admits a finite value for it.
        let same = got == want;
        return (if same { 0.0 } else { f64::INFINITY }, same);
    }
    match tolerance {
        Tolerance::Exact => {
            let ulps = ulp_distance(got, want);
            (ulps as f64, ulps == 0)
        }
        Tolerance::Relative { rel, abs } => {
            let difference = (f64::from(got) - f64::from(want)).abs();
            let scale = f64::from(want).abs();
            let relative = if scale > 0.0 { difference / scale } else { difference };
            (relative, difference <= abs + rel * scale)
        }
        Tolerance::SumBound { terms } => {
            let difference = (f64::from(got) - f64::from(want)).abs();
            let unit = f64::from(f32::EPSILON) * f64::from(magnitude.unwrap_or(0.0));
            let in_units = in_units_of(difference, unit);
            (in_units, in_units <= terms as f64)
        }
        Tolerance::SumBoundThenBf16 { terms } => {
            let difference = (f64::from(got) - f64::from(want)).abs();
            let sum_bound = terms as f64 * f64::from(f32::EPSILON) * f64::from(magnitude.unwrap_or(0.0));
            // Half an ulp of bf16 is 2⁻⁸ of the value, but never less than half the spacing of
            // bf16's subnormals (2⁻¹³³), where the rounding's error stops being relative.
            let half_ulp = ((f64::from(want).abs() + sum_bound) / 256.0).max(2f64.powi(-134));
            let bound = sum_bound + half_ulp;
            let fraction = in_units_of(difference, bound);
            (fraction, fraction <= 1.0)
        }
    }
}

/// How many representable `f32` values lie between `a` and `b` (0 when bitwise equal; +0 and
/// -0 are one apart, so that a sign error in a zero is visible).
pub fn ulp_distance(a: f32, b: f32) -> u64 {
    // Map the bit patterns onto a line where adjacent floats are adjacent integers.
    fn ordered(x: f32) -> i64 {
        let bits = i64::from(x.to_bits() as i32);
        if bits < 0 { -(bits & 0x7fff_ffff) - 1 } else { bits }
    }
    ordered(a).abs_diff(ordered(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_counts_ulps() {
        assert_eq!(ulp_distance(1.0, 1.0), 0);
        assert_eq!(ulp_distance(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
        assert_eq!(ulp_distance(0.0, -0.0), 1);
        assert_eq!(ulp_distance(-f32::MIN_POSITIVE, f32::MIN_POSITIVE), 2 * 0x0080_0000 + 1);
        let one_off = f32::from_bits(2.0f32.to_bits() + 1);
        let c = compare(&with_guard(&[1.0, one_off]), &[1.0, 2.0], Tolerance::Exact, None).unwrap();
        assert!(!c.passed());
        assert_eq!((c.out_of_tolerance, c.worst, c.worst_index), (1, 1.0, Some(1)));
        assert!(c.summary().starts_with("FAIL: 1 off"), "{}", c.summary());
    }

    #[test]
    fn unwritten_and_out_of_bounds_elements_fail() {
        let mut output = with_guard(&[1.0, f32::from_bits(POISON)]);
        let c = compare(&output, &[1.0, 2.0], Tolerance::Exact, None).unwrap();
        assert_eq!((c.unwritten, c.written_past_end, c.passed()), (1, 0, false));

        output[1] = 2.0;
        output[2 + GUARD - 1] = 0.0;
        let c = compare(&output, &[1.0, 2.0], Tolerance::Exact, None).unwrap();
        assert_eq!((c.unwritten, c.written_past_end, c.passed()), (0, 1, false));
        assert!(c.summary().contains("written past the end"));
    }

    #[test]
    fn nan_fails_unless_the_reference_is_nan() {
        let tolerance = Tolerance::Relative { rel: 1e-3, abs: 0.0 };
        let c = compare(&with_guard(&[f32::NAN, 1.0]), &[1.0, 1.0], tolerance, None).unwrap();
        assert!(!c.passed());
        assert!(c.worst.is_nan());
        assert_eq!(c.worst_index, Some(0));
        let c = compare(&with_guard(&[f32::NAN]), &[f32::NAN], tolerance, None).unwrap();
        assert!(c.passed());
    }

    #[test]
    fn infinities_match_only_the_same_infinity() {
        let tolerance = Tolerance::Relative { rel: 1e-3, abs: 1.0 };
        let inf = f32::INFINITY;
        let same = compare(&with_guard(&[inf, -inf]), &[inf, -inf], tolerance, None).unwrap();
        assert!(same.passed(), "{}", same.summary());
        for (got, want) in [(inf, -inf), (f32::MAX, inf), (inf, f32::MAX)] {
            let c = compare(&with_guard(&[got]), &[want], tolerance, None).unwrap();
            assert!(!c.passed(), "{got} passed for {want}");
        }
        let sums = Tolerance::SumBound { terms: 4 };
        let c = compare(&with_guard(&[inf]), &[inf], sums, Some(&[inf])).unwrap();
        assert!(c.passed(), "{}", c.summary());
    }

    #[test]
    fn relative_tolerance_is_multiplicative() {
        let tolerance = Tolerance::Relative { rel: 1e-5, abs: 0.0 };
        let c = compare(&with_guard(&[1000.005, 0.0]), &[1000.0, 0.0], tolerance, None).unwrap();
        assert!(c.passed(), "{}", c.summary());
        let c = compare(&with_guard(&[1000.02, 0.0]), &[1000.0, 0.0], tolerance, None).unwrap();
        assert!(!c.passed());
        // Zero expected, non-zero got: nothing but `abs` admits it.
        let c = compare(&with_guard(&[1e-30]), &[0.0], tolerance, None).unwrap();
        assert!(!c.passed());
    }

    #[test]
    fn sum_bound_scales_with_the_magnitude_and_the_terms() {
        let eps = f32::EPSILON;
        // An error of 3 eps against a magnitude of 1 passes with 4 terms, not with 2.
        let got = with_guard(&[1.0 + 3.0 * eps]);
        let pass = compare(&got, &[1.0], Tolerance::SumBound { terms: 4 }, Some(&[1.0])).unwrap();
        assert!(pass.passed(), "{}", pass.summary());
        assert!((pass.worst - 3.0).abs() < 1e-9);
        let fail = compare(&got, &[1.0], Tolerance::SumBound { terms: 2 }, Some(&[1.0])).unwrap();
        assert!(!fail.passed());
        // A zero magnitude admits only an exact zero.
        let zero = compare(&with_guard(&[1e-38]), &[0.0], Tolerance::SumBound { terms: 9 }, Some(&[0.0]));
        assert!(!zero.unwrap().passed());
    }

    #[test]
    fn a_bf16_output_may_be_off_by_half_a_bf16_ulp_and_no_more() {
        let tolerance = Tolerance::SumBoundThenBf16 { terms: 2 };
        // 1 + 2⁻⁸ lies halfway between the bf16 values 1 and 1 + 2⁻⁷: either rounding passes.
        let exact = 1.0 + 1.0 / 256.0;
        for stored in [1.0, 1.0 + 1.0 / 128.0] {
            let c = compare(&with_guard(&[stored]), &[exact], tolerance, Some(&[1.0])).unwrap();
            assert!(c.passed(), "{stored}: {}", c.summary());
        }
        // One bf16 ulp past that is out.
        let c = compare(&with_guard(&[1.0 + 2.0 / 128.0]), &[exact], tolerance, Some(&[1.0])).unwrap();
        assert!(!c.passed(), "{}", c.summary());
        // The plain sum bound holds it to f32's precision.
        let sums = Tolerance::SumBound { terms: 2 };
        assert!(!compare(&with_guard(&[1.0]), &[exact], sums, Some(&[1.0])).unwrap().passed());
        let missing = compare(&with_guard(&[1.0]), &[1.0], tolerance, None);
        assert!(matches!(missing, Err(CompareError::Magnitudes { got: 0, expected: 1, .. })));
    }

    #[test]
    fn a_subnormal_bf16_output_may_be_off_by_half_the_subnormal_spacing_and_no_more() {
        let tolerance = Tolerance::SumBoundThenBf16 { terms: 2 };
        // 2.5 · 2⁻¹³³ lies halfway between the bf16 subnormals 2 · 2⁻¹³³ and 3 · 2⁻¹³³.
        let spacing = f32::from_bits(1 << 16);
        let exact = 2.5 * spacing;
        for stored in [2.0 * spacing, 3.0 * spacing] {
            let c = compare(&with_guard(&[stored]), &[exact], tolerance, Some(&[exact])).unwrap();
            assert!(c.passed(), "{stored}: {}", c.summary());
        }
        let c = compare(&with_guard(&[4.0 * spacing]), &[exact], tolerance, Some(&[exact])).unwrap();
        assert!(!c.passed(), "{}", c.summary());
    }

    #[test]
    fn malformed_calls_are_errors() {
        assert_eq!(
            compare(&[1.0], &[1.0], Tolerance::Exact, None),
            Err(CompareError::Length { got: 1, expected: 1 })
        );
        let missing = compare(&with_guard(&[1.0]), &[1.0], Tolerance::SumBound { terms: 1 }, None);
        assert!(matches!(missing, Err(CompareError::Magnitudes { got: 0, expected: 1, .. })));
    }
}
