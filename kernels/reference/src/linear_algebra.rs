//! References of the matrix kernels.

use half::f16;

/// `y[r] = sum_c f16(weights[r·cols + c]) · x[c]`, with `weights` as IEEE binary16 bits,
/// accumulated in `f64`.
pub fn gemv_f16(weights: &[u16], x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    assert_eq!(weights.len(), rows * cols, "gemv_f16: weights are not rows × cols");
    assert_eq!(x.len(), cols, "gemv_f16: x is not cols long");
    (0..rows)
        .map(|r| {
            let row = &weights[r * cols..(r + 1) * cols];
            let dot: f64 =
                row.iter().zip(x).map(|(w, x)| f64::from(f16::from_bits(*w).to_f32()) * f64::from(*x)).sum();
            dot as f32
        })
        .collect()
}

/// `y[b·rows + r] = sum_c f16(weights[r·cols + c]) · x[b·cols + c]` for `b < batch`: the
/// matrix-vector product for `batch` activation rows (row-major `batch × cols`) against one
/// matrix of binary16 weights, accumulated in `f64`; the output is row-major `batch × rows`.
pub fn gemv_f16_batched(weights: &[u16], x: &[f32], rows: usize, cols: usize, batch: usize) -> Vec<f32> {
    assert_eq!(weights.len(), rows * cols, "gemv_f16_batched: weights are not rows × cols");
    assert_eq!(x.len(), batch * cols, "gemv_f16_batched: x is not batch × cols");
    let mut y = Vec::with_capacity(batch * rows);
    for b in 0..batch {
        let activations = &x[b * cols..(b + 1) * cols];
        for r in 0..rows {
            let row = &weights[r * cols..(r + 1) * cols];
            let dot: f64 = row
                .iter()
                .zip(activations)
                .map(|(w, x)| f64::from(f16::from_bits(*w).to_f32()) * f64::from(*x))
                .sum();
            y.push(dot as f32);
        }
    }
    y
}

/// `c = a · b` for row-major `a` (`m × k`) and `b` (`k × n`), accumulated in `f64`.
pub fn gemm(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    assert_eq!(a.len(), m * k, "gemm: a is not m × k");
    assert_eq!(b.len(), k * n, "gemm: b is not k × n");
    let mut c = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            // From +0.0, as a zeroed accumulator and torch.matmul start (`Sum` for floats starts
            // from -0.0, which an empty k would return).
            let dot = (0..k).fold(0.0f64, |sum, l| sum + f64::from(a[i * k + l]) * f64::from(b[l * n + j]));
            c[i * n + j] = dot as f32;
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemv_decodes_half_precision_weights() {
        let bits = |v: f32| f16::from_f32(v).to_bits();
        let weights = [bits(1.0), bits(-2.0), bits(0.5), bits(65504.0), bits(0.0), bits(1.0)];
        let y = gemv_f16(&weights, &[1.0, 2.0, 4.0], 2, 3);
        assert_eq!(y, [1.0 - 4.0 + 2.0, 65504.0 + 4.0]);
    }

    #[test]
    fn batched_gemv_gives_one_output_row_per_activation_row() {
        let bits = |v: f32| f16::from_f32(v).to_bits();
        // Weights [[1, -2], [0.5, inf]]; activations [1, 2] and [4, 0].
        let weights = [bits(1.0), bits(-2.0), bits(0.5), 0x7c00];
        let y = gemv_f16_batched(&weights, &[1.0, 2.0, 4.0, 0.0], 2, 2, 2);
        assert_eq!(y[..3], [1.0 - 4.0, 0.5 + f32::INFINITY, 4.0]);
        // inf · 0 is NaN, as in PyTorch.
        assert!(y[3].is_nan());
        assert_eq!(gemv_f16_batched(&weights, &[], 2, 2, 0), []);
    }

    #[test]
    fn gemm_matches_a_worked_example() {
        // [1 2 3]   [7  8 ]   [ 58  64]
        // [4 5 6] · [9  10] = [139 154]
        //           [11 12]
        let c = gemm(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0], 2, 2, 3);
        assert_eq!(c, [58.0, 64.0, 139.0, 154.0]);
    }

    #[test]
    fn gemm_with_empty_inner_dimension_is_zero() {
        assert_eq!(gemm(&[], &[], 2, 2, 0), [0.0; 4]);
        // +0.0, as PyTorch gives for an empty k, not -0.0.
        assert!(gemm(&[], &[], 1, 1, 0)[0].is_sign_positive());
    }
}
