//! References of the element-wise kernels.

/// `a[i] + b[i]`.
pub fn vector_add(a: &[f32], b: &[f32]) -> Vec<f32> {
    assert_eq!(a.len(), b.len(), "vector_add: inputs differ in length");
    a.iter().zip(b).map(|(a, b)| a + b).collect()
}

/// `alpha * x[i] + y[i]`, fused (one rounding), as the kernel's `fma`.
pub fn saxpy(alpha: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
    assert_eq!(x.len(), y.len(), "saxpy: inputs differ in length");
    x.iter().zip(y).map(|(x, y)| alpha.mul_add(*x, *y)).collect()
}

/// The SiLU (swish) activation `g / (1 + e^-g)`.
pub fn silu(g: f32) -> f32 {
    g / (1.0 + (-g).exp())
}

/// `silu(gate[i]) * up[i]`.
pub fn silu_mul(gate: &[f32], up: &[f32]) -> Vec<f32> {
    assert_eq!(gate.len(), up.len(), "silu_mul: inputs differ in length");
    gate.iter().zip(up).map(|(g, u)| silu(*g) * u).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saxpy_is_fused() {
        // 1 + 2^-23 squared is 1 + 2^-22 + 2^-46: the unfused product rounds the last term
        // away, the fused one keeps it against -(1 + 2^-22).
        let a = 1.0 + f32::EPSILON;
        let fused = saxpy(a, &[a], &[-(1.0 + 2.0 * f32::EPSILON)]);
        assert_eq!(fused, [2.0f32.powi(-46)]);
    }

    #[test]
    fn silu_known_values() {
        assert_eq!(silu(0.0), 0.0);
        assert!((silu(1.0) - 0.731_058_6).abs() < 1e-6);
        // Large negative inputs vanish instead of producing NaN.
        assert_eq!(silu(-200.0), -0.0);
        assert_eq!(silu_mul(&[2.0], &[3.0]), [3.0 * 2.0 / (1.0 + (-2.0f32).exp())]);
    }

    #[test]
    fn vector_add_adds() {
        assert_eq!(vector_add(&[1.0, 2.0], &[0.5, -2.0]), [1.5, 0.0]);
        assert!(vector_add(&[], &[]).is_empty());
    }
}
