//! The wgmma GEMM entries' special values on the host: what the reference (and so every GPU
//! run) expects where A, B or the bias hold NaN, infinities, values near the bf16 maximum or
//! subnormals, and on empty and one-element shapes. These are PyTorch's semantics for
//! `torch.matmul` / `F.linear` on the same bf16 values, checked here without a GPU.

use gpu_runner::cases::{Case, Kernel, Shape, Values, expected, inputs, launch_for, special_cases};
use gpu_runner::gemm_wgmma::BLOCK_THREADS;

const ENTRIES: [Kernel; 4] = [
    Kernel::GemmBf16Wgmma,
    Kernel::GemmBf16WgmmaBias,
    Kernel::GemmBf16WgmmaBf16,
    Kernel::GemmBf16WgmmaBiasBf16,
];

fn special(kernel: Kernel, m: usize, n: usize, k: usize) -> Case {
    let shape = Shape::Gemm { m, n, k };
    Case {
        values: Values::Special,
        ..Case::new(kernel, shape, launch_for(kernel, shape, BLOCK_THREADS, None))
    }
}

#[test]
fn every_entry_has_special_value_cases_with_a_zero_k() {
    for kernel in ENTRIES {
        let cases = special_cases(kernel);
        assert!(cases.len() >= 3, "{kernel}");
        assert!(cases.iter().any(|c| matches!(c.shape, Shape::Gemm { k: 0, .. })), "{kernel}");
    }
}

#[test]
fn nan_infinities_and_overflow_land_where_pytorch_puts_them() {
    let mut rng = fastrand::Rng::with_seed(5);
    for kernel in ENTRIES {
        let epilogue = kernel.wgmma_variant().unwrap();
        let (m, n, k) = (9, 17, 3);
        let case = special(kernel, m, n, k);
        let data = inputs(&case, &mut rng);
        let c = expected(&case, &data).values;
        let at = |i: usize, j: usize| c[i * n + j];
        // The columns whose bias is not special (7, 8, 9 are NaN, +inf, -inf with a bias).
        let plain = [0, 1, 2, 3, 6, 10];
        assert!(plain.iter().all(|&j| at(0, j).is_nan()), "{kernel}: a NaN in A's row 0");
        assert!((0..m).all(|i| at(i, 4).is_nan()), "{kernel}: B's row 4 all NaN");
        assert!(at(1, 0).is_nan(), "{kernel}: inf · 0");
        assert_eq!(at(1, 1), f32::INFINITY, "{kernel}: inf · 1");
        assert!(at(2, 1).is_nan(), "{kernel}: inf · 1 + -inf · 1");
        assert_eq!(at(3, 2), f32::INFINITY, "{kernel}: two bf16 maxima overflow the f32 sum");
        assert_eq!(at(5, 3), f32::INFINITY, "{kernel}: a row of +inf against ones");
        if !epilogue.bias {
            assert!(at(4, 3) != 0.0 && at(4, 3).abs() < 1e-36, "{kernel}: the subnormals' sum {}", at(4, 3));
        }
        // 255.75 · 2^120: finite in f32, +inf once rounded to bf16.
        let rounds_up = if epilogue.bf16_output { f32::INFINITY } else { 255.75 * 2f32.powi(120) };
        assert_eq!(at(6, 2), rounds_up, "{kernel}");
        assert!(plain.iter().all(|&j| at(7, j).is_finite()), "{kernel}: an ordinary row");
        if epilogue.bias {
            assert!((0..m).all(|i| at(i, 7).is_nan()), "{kernel}: a NaN bias");
            assert!(at(7, 8) == f32::INFINITY && at(7, 9) == f32::NEG_INFINITY, "{kernel}: ±inf bias");
            assert!(at(5, 9).is_nan() || at(5, 9) == f32::NEG_INFINITY, "{kernel}: +inf row with -inf bias");
        } else {
            assert!([7, 8, 9].iter().all(|&j| at(7, j).is_finite()), "{kernel}");
        }
    }
}

#[test]
fn a_zero_k_gives_the_bias_or_zero_and_empty_shapes_give_nothing() {
    let mut rng = fastrand::Rng::with_seed(6);
    for kernel in ENTRIES {
        let case = special(kernel, 3, 12, 0);
        let data = inputs(&case, &mut rng);
        let c = expected(&case, &data).values;
        for (i, value) in c.iter().enumerate() {
            let want = data.floats.get(2).map_or(0.0, |bias| bias[i % 12]);
            assert!(value.to_bits() == want.to_bits() || (value.is_nan() && want.is_nan()), "{kernel} {i}");
        }
        for (m, n, k) in [(0, 12, 8), (3, 0, 8), (0, 0, 0)] {
            let case = special(kernel, m, n, k);
            let data = inputs(&case, &mut rng);
            assert!(expected(&case, &data).values.is_empty(), "{kernel} {m}x{n}x{k}");
        }
        let case = special(kernel, 1, 1, 1);
        let data = inputs(&case, &mut rng);
        let product = data.floats[0][0] * data.floats[1][0] + data.floats.get(2).map_or(0.0, |b| b[0]);
        let c = expected(&case, &data).values;
        assert!(c[0] == product || (c[0].is_nan() && product.is_nan()), "{kernel}: 1x1x1 {c:?}");
    }
}
