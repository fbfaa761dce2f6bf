//! References of the row-wise kernels (one row of a row-major matrix at a time).

/// `x / sqrt(mean(x²) + eps) * weight`, per row of a `rows × cols` matrix.
pub fn rms_norm(x: &[f32], weight: &[f32], rows: usize, cols: usize, eps: f32) -> Vec<f32> {
    assert_eq!(x.len(), rows * cols, "rms_norm: x is not rows × cols");
    assert_eq!(weight.len(), cols, "rms_norm: weight is not cols long");
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks_exact(cols.max(1)).take(rows) {
        let mean_square = row.iter().map(|v| f64::from(*v) * f64::from(*v)).sum::<f64>() / cols as f64;
        let inverse_rms = 1.0 / (mean_square + f64::from(eps)).sqrt();
        out.extend(row.iter().zip(weight).map(|(v, w)| (f64::from(*v) * inverse_rms) as f32 * w));
    }
    out
}

/// `e^(x - max) / sum(e^(x - max))` per row of a `rows × cols` matrix (`cols > 0`).
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
