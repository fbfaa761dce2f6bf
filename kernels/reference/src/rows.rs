//! References of the row-wise kernels (one row of a row-major matrix at a time).

/// `x / sqrt(mean(x²) + eps) * weight`, per row of a `rows × cols` matrix.
///
/// The sum of squares is an `f32` quantity, as in PyTorch: when it overflows `f32` (a row
/// holding an infinity, or values near `f32::MAX`), `1 / sqrt(inf) = 0`, so the row's finite
/// elements give ±0 and its infinities NaN. A NaN makes its whole row NaN. (The sum itself is
/// taken in `f64` and rounded to `f32`, so it overflows exactly when the true sum does.)
pub fn rms_norm(x: &[f32], weight: &[f32], rows: usize, cols: usize, eps: f32) -> Vec<f32> {
    assert_eq!(x.len(), rows * cols, "rms_norm: x is not rows × cols");
    assert_eq!(weight.len(), cols, "rms_norm: weight is not cols long");
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks_exact(cols.max(1)).take(rows) {
        let sum_of_squares = row.iter().map(|v| f64::from(*v) * f64::from(*v)).sum::<f64>() as f32;
        let mean_square = f64::from(sum_of_squares) / cols as f64;
        let inverse_rms = 1.0 / (mean_square + f64::from(eps)).sqrt();
        out.extend(row.iter().zip(weight).map(|(v, w)| (f64::from(*v) * inverse_rms) as f32 * w));
    }
    out
}

/// `e^(x - max) / sum(e^(x - max))` per row of a `rows × cols` matrix (`cols > 0`).
///
/// As PyTorch's `torch.softmax`: a `-inf` gives 0 (`e^-inf`); a row whose maximum is `-inf`
/// (fully masked) or `+inf`, or that holds a NaN, is NaN throughout (`-inf - -inf`,
/// `inf - inf` and NaN all reach the sum).
pub fn softmax_rows(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    assert_eq!(x.len(), rows * cols, "softmax_rows: x is not rows × cols");
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks_exact(cols.max(1)).take(rows) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exps: Vec<f64> = row.iter().map(|v| f64::from(v - max).exp()).collect();
        let sum: f64 = exps.iter().sum();
        out.extend(exps.iter().map(|e| (e / sum) as f32));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rms_norm_of_a_constant_row_is_the_weight() {
        let out = rms_norm(&[3.0; 4], &[1.0, 2.0, 0.5, -1.0], 1, 4, 0.0);
        assert_eq!(out, [1.0, 2.0, 0.5, -1.0]);
    }

    #[test]
    fn rms_norm_is_per_row() {
        // Row 2 is row 1 scaled by 10: normalised, they agree.
        let out = rms_norm(&[1.0, -2.0, 10.0, -20.0], &[1.0, 1.0], 2, 2, 0.0);
        assert!((out[0] - out[2]).abs() < 1e-6 && (out[1] - out[3]).abs() < 1e-6);
        assert!((out[0] - 1.0 / 2.5f32.sqrt()).abs() < 1e-6);
    }

    const INF: f32 = f32::INFINITY;

    #[test]
    fn softmax_masked_positions_are_zero_and_the_rest_a_softmax() {
        // One -inf, a strided mask and a prefix mask: the masked positions give exactly 0 and
        // the others the softmax of the unmasked values alone.
        let out = softmax_rows(&[-INF, 0.0, 0.0, -INF, 1.0, -INF, 1.0, -INF, -INF, -INF, 2.0, 2.0], 3, 4);
        assert_eq!(&out[..4], [0.0, 0.5, 0.5, 0.0]);
        assert_eq!(&out[4..8], [0.5, 0.0, 0.5, 0.0]);
        assert_eq!(&out[8..], [0.0, 0.0, 0.5, 0.5]);
        // All but one masked: a one-hot row.
        assert_eq!(softmax_rows(&[-INF, -INF, 7.0, -INF], 1, 4), [0.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn softmax_fully_masked_nan_and_infinite_rows_are_nan() {
        for row in [[-INF, -INF, -INF], [1.0, f32::NAN, 2.0], [1.0, INF, 2.0], [-INF, f32::NAN, -INF]] {
            let out = softmax_rows(&row, 1, 3);
            assert!(out.iter().all(|v| v.is_nan()), "{row:?} gave {out:?}");
        }
        // Rows are independent: a NaN row leaves its neighbour alone.
        let out = softmax_rows(&[f32::NAN, 0.0, 0.0, 0.0], 2, 2);
        assert!(out[0].is_nan() && out[1].is_nan());
        assert_eq!(&out[2..], [0.5, 0.5]);
    }

    #[test]
    fn softmax_near_max_and_subnormal_rows_stay_finite() {
        // -MAX - MAX overflows to -inf, whose exponential is 0.
        assert_eq!(softmax_rows(&[f32::MAX, -f32::MAX, 0.0], 1, 3), [1.0, 0.0, 0.0]);
        let tiny = f32::from_bits(1);
        assert_eq!(softmax_rows(&[tiny, -tiny], 1, 2), [0.5, 0.5]);
        assert_eq!(softmax_rows(&[-3.0], 1, 1), [1.0]);
        assert!(softmax_rows(&[], 0, 5).is_empty());
    }

    #[test]
    fn rms_norm_overflowing_rows_give_zero_and_nan_at_infinities() {
        // 1e20² overflows f32: the row's inverse rms is 0.
        let out = rms_norm(&[1e20, 1.0, -2.0], &[1.0; 3], 1, 3, 1e-5);
        assert_eq!(out, [0.0, 0.0, -0.0]);
        let out = rms_norm(&[INF, 1.0, -INF, 3.0], &[1.0; 2], 2, 2, 1e-5);
        assert!(out[0].is_nan() && out[2].is_nan());
        assert_eq!((out[1], out[3]), (0.0, 0.0));
        let out = rms_norm(&[f32::MAX, f32::MAX], &[1.0; 2], 1, 2, 0.0);
        assert_eq!(out, [0.0, 0.0]);
    }

    #[test]
    fn rms_norm_nan_rows_are_nan_and_subnormals_survive() {
        let out = rms_norm(&[1.0, f32::NAN, 2.0, 2.0], &[1.0; 2], 2, 2, 0.0);
        assert!(out[0].is_nan() && out[1].is_nan());
        assert_eq!(&out[2..], [1.0, 1.0]);
        // eps dominates a subnormal row's mean square: outputs are x / sqrt(eps), not 0.
        let tiny = f32::from_bits(1000);
        let out = rms_norm(&[tiny, -tiny], &[1.0; 2], 1, 2, 1e-6);
        assert_eq!(out, [(f64::from(tiny) * 1e3) as f32, -(f64::from(tiny) * 1e3) as f32]);
        assert!(out[0] > 0.0);
        assert!(rms_norm(&[], &[], 3, 0, 1e-5).is_empty());
    }

    #[test]
    fn softmax_rows_sum_to_one_and_survive_large_inputs() {
        let out = softmax_rows(&[1000.0, 1000.0, 0.0, 1.0, 2.0, 3.0], 2, 3);
        assert_eq!(&out[..2], [0.5, 0.5]);
        assert_eq!(out[2], 0.0);
        let second: f32 = out[3..].iter().sum();
        assert!((second - 1.0).abs() < 1e-6);
        assert!(out[3] < out[4] && out[4] < out[5]);
    }
}
