//! Properties of the references on random shapes and values, special ones included (`-inf`
//! masks, `+inf`, NaN, values near `f32::MAX`, subnormals): what PyTorch's semantics promise
//! for every input, checked without a GPU.

use half::f16;
use kernels_reference::{block_partial_sums, gemv_f16, gemv_f16_batched, rms_norm, silu, softmax_rows};
use proptest::prelude::*;

/// A value as a model's activations hold them: mostly ordinary, sometimes special.
fn activation() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -10.0f32..10.0,
        2 => Just(f32::NEG_INFINITY),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NAN),
        1 => (0.5f32..1.0).prop_map(|m| m * f32::MAX),
        1 => (1u32..0x0080_0000).prop_map(f32::from_bits),
    ]
}

/// A matrix of `rows × cols` activations.
fn matrix() -> impl Strategy<Value = (Vec<f32>, usize, usize)> {
    (1usize..5, 1usize..40).prop_flat_map(|(rows, cols)| {
        (proptest::collection::vec(activation(), rows * cols), Just(rows), Just(cols))
    })
}

/// A matrix of ordinary values only.
fn ordinary_matrix() -> impl Strategy<Value = (Vec<f32>, usize, usize)> {
    (1usize..5, 1usize..40).prop_flat_map(|(rows, cols)| {
        (proptest::collection::vec(-10.0f32..10.0, rows * cols), Just(rows), Just(cols))
    })
}

proptest! {
    #[test]
    fn softmax_rows_follow_pytorch_on_special_values((x, rows, cols) in matrix()) {
        let out = softmax_rows(&x, rows, cols);
        for (row, got) in x.chunks(cols).zip(out.chunks(cols)) {
            let poisoned = row.iter().any(|v| v.is_nan() || *v == f32::INFINITY)
                || row.iter().all(|v| *v == f32::NEG_INFINITY);
            if poisoned {
                prop_assert!(got.iter().all(|v| v.is_nan()), "{row:?} → {got:?}");
                continue;
            }
            for (v, p) in row.iter().zip(got) {
                prop_assert!((0.0..=1.0).contains(p), "{row:?} → {got:?}");
                if *v == f32::NEG_INFINITY {
                    prop_assert_eq!(*p, 0.0, "a masked position must give 0");
                }
            }
            let total: f64 = got.iter().map(|p| f64::from(*p)).sum();
            prop_assert!((total - 1.0).abs() <= 1e-5 * cols as f64, "sum {total}: {row:?}");
        }
    }

    #[test]
    fn softmax_rows_ignore_a_shift_of_the_row((x, rows, cols) in ordinary_matrix(), shift in -8.0f32..8.0) {
        let shifted: Vec<f32> = x.iter().map(|v| v + shift).collect();
        let (a, b) = (softmax_rows(&x, rows, cols), softmax_rows(&shifted, rows, cols));
        for (p, q) in a.iter().zip(&b) {
            prop_assert!((p - q).abs() <= 1e-5 * p.max(1e-30) + 1e-7, "{p} vs {q}");
        }
    }

    #[test]
    fn rms_norm_follows_pytorch_on_special_values((x, rows, cols) in matrix()) {
        let weight = vec![1.0f32; cols];
        let out = rms_norm(&x, &weight, rows, cols, 1e-5);
        for (row, got) in x.chunks(cols).zip(out.chunks(cols)) {
            let sum_of_squares: f64 = row.iter().map(|v| f64::from(*v) * f64::from(*v)).sum();
            if row.iter().any(|v| v.is_nan()) {
                prop_assert!(got.iter().all(|v| v.is_nan()), "{row:?} → {got:?}");
            } else if (sum_of_squares as f32).is_infinite() {
                // The f32 sum of squares overflows: inverse rms 0, so ±0, and NaN at ±inf.
                for (v, o) in row.iter().zip(got) {
                    if v.is_infinite() {
                        prop_assert!(o.is_nan(), "{v} → {o}");
                    } else {
                        prop_assert_eq!(*o, 0.0, "{} in an overflowing row", v);
                    }
                }
            } else {
                // Normalised: the mean square of the outputs is below 1 (eps only lowers it).
                prop_assert!(got.iter().all(|o| o.is_finite()));
                let mean_square: f64 =
                    got.iter().map(|o| f64::from(*o) * f64::from(*o)).sum::<f64>() / cols as f64;
                prop_assert!(mean_square <= 1.0 + 1e-5, "mean square {mean_square}: {row:?}");
            }
        }
    }

    #[test]
    fn rms_norm_ignores_the_scale_of_the_row((x, rows, cols) in ordinary_matrix(), scale in 0.25f32..4.0) {
        let weight = vec![1.5f32; cols];
        let scaled: Vec<f32> = x.iter().map(|v| v * scale).collect();
        let (a, b) = (rms_norm(&x, &weight, rows, cols, 0.0), rms_norm(&scaled, &weight, rows, cols, 0.0));
        for (p, q) in a.iter().zip(&b) {
            // An all-zero row is 0/0 at any scale.
            prop_assert_eq!(p.is_nan(), q.is_nan());
            if !p.is_nan() {
                prop_assert!((p - q).abs() <= 1e-5 * p.abs().max(1e-6), "{p} vs {q}");
            }
        }
    }

    #[test]
    fn gemv_is_nan_or_infinite_exactly_where_its_products_are(
        (weights, x, rows, cols) in (1usize..6, 1usize..24).prop_flat_map(|(rows, cols)| (
            proptest::collection::vec(
                prop_oneof![
                    6 => (-1.0f32..1.0).prop_map(|v| f16::from_f32(v).to_bits()),
                    1 => Just(0x7c00u16),
                    1 => Just(0xfc00u16),
                    1 => Just(0x7e00u16),
                    1 => 1u16..0x0400,
                    1 => Just(0x7bffu16),
                ],
                rows * cols,
            ),
            proptest::collection::vec(prop_oneof![4 => -2.0f32..2.0, 1 => Just(0.0f32)], cols),
            Just(rows),
            Just(cols),
        ))
    ) {
        let y = gemv_f16(&weights, &x, rows, cols);
        for (r, got) in y.iter().enumerate() {
            let products: Vec<f64> = (0..cols)
                .map(|c| f64::from(f16::from_bits(weights[r * cols + c]).to_f32()) * f64::from(x[c]))
                .collect();
            let nan = products.iter().any(|p| p.is_nan())
                || (products.contains(&f64::INFINITY) && products.contains(&f64::NEG_INFINITY));
            let infinite = products.iter().any(|p| p.is_infinite());
            if nan {
                prop_assert!(got.is_nan(), "row {r}: {got}");
            } else if infinite {
                let sign = products.iter().find(|p| p.is_infinite()).unwrap().signum() as f32;
                prop_assert_eq!(*got, sign * f32::INFINITY, "row {}", r);
            } else {
                prop_assert!(got.is_finite(), "row {r}: {got}");
            }
        }
    }

    #[test]
    fn batched_gemv_is_the_gemv_of_each_activation_row(
        (weights, x, rows, cols, batch) in (1usize..5, 1usize..20, 0usize..5).prop_flat_map(|(rows, cols, batch)| (
            proptest::collection::vec(
                prop_oneof![
                    6 => (-1.0f32..1.0).prop_map(|v| f16::from_f32(v).to_bits()),
                    1 => Just(0x7c00u16),
                    1 => Just(0xfc00u16),
                    1 => Just(0x7e00u16),
                    1 => 1u16..0x0400,
                ],
                rows * cols,
            ),
            proptest::collection::vec(
                prop_oneof![6 => -2.0f32..2.0, 1 => Just(0.0f32), 1 => Just(f32::NAN), 1 => Just(f32::INFINITY)],
                batch * cols,
            ),
            Just(rows),
            Just(cols),
            Just(batch),
        ))
    ) {
        // Special values follow from gemv_f16's (the property above) row by row.
        let y = gemv_f16_batched(&weights, &x, rows, cols, batch);
        prop_assert_eq!(y.len(), batch * rows);
        for b in 0..batch {
            let single = gemv_f16(&weights, &x[b * cols..(b + 1) * cols], rows, cols);
            for (r, (got, want)) in y[b * rows..(b + 1) * rows].iter().zip(&single).enumerate() {
                prop_assert_eq!(got.to_bits(), want.to_bits(), "activation row {}, weight row {}", b, r);
            }
        }
    }

    #[test]
    fn partial_sums_keep_nan_and_add_up(
        input in proptest::collection::vec(prop_oneof![9 => 0.0f32..1.0, 1 => Just(f32::NAN)], 0..300),
        grid in 1usize..6,
        block in 1usize..9,
    ) {
        let partials = block_partial_sums(&input, grid, block);
        prop_assert_eq!(partials.len(), grid);
        for (b, partial) in partials.iter().enumerate() {
            let has_nan = input.iter().enumerate().any(|(i, v)| v.is_nan() && (i % (grid * block)) / block == b);
            prop_assert_eq!(partial.is_nan(), has_nan, "block {}", b);
        }
        if !input.iter().any(|v| v.is_nan()) {
            let total: f64 = input.iter().map(|v| f64::from(*v)).sum();
            let sum: f64 = partials.iter().map(|p| f64::from(*p)).sum();
            prop_assert!((total - sum).abs() <= 1e-6 * total.max(1.0));
        }
    }

    #[test]
    fn silu_never_makes_nan_from_finite_input(g in prop_oneof![-f32::MAX..f32::MAX, -200.0f32..200.0]) {
        let s = silu(g);
        prop_assert!(!s.is_nan(), "silu({g}) = {s}");
        // silu(g) lies between g and 0 for g < 0, and between g/2 and g for g > 0.
        if g > 0.0 {
            prop_assert!(s <= g && s >= 0.5 * g, "silu({g}) = {s}");
        } else {
            prop_assert!(s <= 0.0 && s >= g, "silu({g}) = {s}");
        }
    }
}

/// A bf16 value as the wgmma GEMM's operands hold them (widened to f32): mostly ordinary,
/// sometimes NaN, an infinity, zero, near the bf16 maximum, or subnormal.
fn bf16_operand() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => (-2.0f32..2.0).prop_map(|v| half::bf16::from_f32(v).to_f32()),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(f32::NAN),
        1 => Just(0.0f32),
        1 => (0x7f00u16..0x7f80).prop_map(|bits| half::bf16::from_bits(bits).to_f32()),
        1 => (1u16..0x0080).prop_map(|bits| half::bf16::from_bits(bits | 0x8000).to_f32()),
    ]
}

proptest! {
    #[test]
    fn gemm_on_bf16_specials_is_nan_or_infinite_exactly_where_its_products_are(
        (a, b, m, n, k) in (1usize..5, 1usize..5, 0usize..6).prop_flat_map(|(m, n, k)| (
            proptest::collection::vec(bf16_operand(), m * k),
            proptest::collection::vec(bf16_operand(), k * n),
            Just(m),
            Just(n),
            Just(k),
        ))
    ) {
        // What torch.matmul gives on these values: NaN where a product is NaN (a NaN operand,
        // inf · 0) or products of both infinities meet; that infinity where one sign of
        // infinite product does; else the exact sum rounded once, which overflows to ±inf
        // from half an ulp past f32::MAX on. An empty k gives 0.
        let c = kernels_reference::gemm(&a, &b, m, n, k);
        let overflow = f64::from(f32::MAX) + 2f64.powi(103);
        for i in 0..m {
            for j in 0..n {
                let got = c[i * n + j];
                let products: Vec<f64> =
                    (0..k).map(|l| f64::from(a[i * k + l]) * f64::from(b[l * n + j])).collect();
                let nan = products.iter().any(|p| p.is_nan())
                    || (products.contains(&f64::INFINITY) && products.contains(&f64::NEG_INFINITY));
                if nan {
                    prop_assert!(got.is_nan(), "({i}, {j}): {got}");
                } else if let Some(infinite) = products.iter().find(|p| p.is_infinite()) {
                    prop_assert_eq!(got, *infinite as f32, "({}, {})", i, j);
                } else {
                    let sum: f64 = products.iter().sum();
                    prop_assert_eq!(got.is_infinite(), sum.abs() >= overflow, "({}, {}): {} from {}", i, j, got, sum);
                    if k == 0 {
                        prop_assert_eq!(got, 0.0);
                    }
                }
            }
        }
    }
}
