//! The comparison code on CI, without a GPU: each kernel's algorithm emulated on the CPU in
//! `f32`, in the kernel's own order of operations (thread partitions, batched strided loops,
//! shared-memory trees, warp butterflies), is checked against the `f64`/plain references through
//! the same catalogue, tolerances and `compare` the GPU run uses. Every correctness case must
//! pass, and a one-ulp-scale corruption of any output must fail, so the tolerances can neither
//! be too tight for the kernels' arithmetic nor too loose to notice a wrong element.

use gpu_runner::cases::{Case, Inputs, Kernel, Shape, correctness_cases, expected, inputs};
use gpu_runner::compare::{Tolerance, compare, with_guard};
use kernels_reference::PIPELINE_TILE_FLOATS;

const WARP: usize = 32;

/// `__shfl_xor` butterfly: every lane ends with the same sum, added in the kernel's order.
fn warp_reduce(mut lanes: [f32; WARP], op: impl Fn(f32, f32) -> f32) -> f32 {
    let mut mask = WARP / 2;
    while mask > 0 {
        let before = lanes;
        for (lane, value) in lanes.iter_mut().enumerate() {
            *value = op(before[lane], before[lane ^ mask]);
        }
        mask /= 2;
    }
    lanes[0]
}

/// `device::reduce::block_sum`/`block_max`: a butterfly per warp, then one over the warps'
/// totals (missing warps contribute the identity).
fn block_reduce(values: &[f32], identity: f32, op: impl Fn(f32, f32) -> f32 + Copy) -> f32 {
    let mut totals = [identity; WARP];
    for (warp, chunk) in values.chunks(WARP).enumerate() {
        let lanes: [f32; WARP] = chunk.try_into().expect("blocks are whole warps");
        totals[warp] = warp_reduce(lanes, op);
    }
    warp_reduce(totals, op)
}

/// The indices a thread visits in `device::strided::strided`: the same set, in the same order.
fn strided(first: usize, end: usize, step: usize) -> impl Iterator<Item = usize> {
    (first..end).step_by(step)
}

/// The kernels' `exp`: `2^(x·log2 e)` (the device's `ex2.approx` is a close relative of exp2).
fn device_exp(x: f32) -> f32 {
    (x * std::f32::consts::LOG2_E).exp2()
}

fn emulate(case: &Case, data: &Inputs) -> Vec<f32> {
    let f = &data.floats;
    let (grid, block) = (case.launch.grid.0 as usize, case.launch.block.0 as usize);
    match (case.kernel, case.shape) {
        (Kernel::VectorAdd, _) => f[0].iter().zip(&f[1]).map(|(a, b)| a + b).collect(),
        (Kernel::Saxpy, _) => f[0].iter().zip(&f[1]).map(|(x, y)| data.scalar.mul_add(*x, *y)).collect(),
        (Kernel::SiluMul, _) => {
            f[0].iter().zip(&f[1]).map(|(g, u)| g * (1.0 / (1.0 + device_exp(-g))) * u).collect()
        }
        (Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate, _) => {
            let mut out = Vec::new();
            for tile in f[0].chunks(block) {
                for i in 0..tile.len() {
                    let (l, r) = (tile[i.saturating_sub(1)], tile[(i + 1).min(tile.len() - 1)]);
                    out.push(data.scalar * ((l + tile[i] + r) * (1.0 / 3.0)));
                }
            }
            out
        }
        (Kernel::BlockReduceSum, Shape::Elements(n)) => (0..grid)
            .map(|b| {
                let mut sums: Vec<f32> = (0..block)
                    .map(|t| strided(b * block + t, n, grid * block).map(|i| f[0][i]).fold(0.0, |s, v| s + v))
                    .collect();
                let mut active = block / 2;
                while active > 0 {
                    for t in 0..active {
                        sums[t] += sums[t + active];
                    }
                    active /= 2;
                }
                sums[0]
            })
            .collect(),
        (Kernel::PipelineSum, Shape::Tiles(tiles)) => (0..grid)
            .map(|b| {
                // Thread 0 produces (partial 0), warp 0's other lanes idle, warps 1-4 consume.
                let mut partials = vec![0.0f32; 160];
                for (consumer, partial) in partials[WARP..].iter_mut().enumerate() {
                    for tile in strided(b, tiles, grid) {
                        for k in strided(consumer, PIPELINE_TILE_FLOATS, 128) {
                            *partial += f[0][tile * PIPELINE_TILE_FLOATS + k];
                        }
                    }
                }
                block_reduce(&partials, 0.0, |a, b| a + b)
            })
            .collect(),
        (Kernel::RmsNorm, Shape::Matrix { rows, cols }) => {
            let mut out = Vec::new();
            for row in f[0].chunks(cols.max(1)).take(rows) {
                let squares: Vec<f32> = (0..block)
                    .map(|t| strided(t, cols, block).fold(0.0, |s, c| s + row[c] * row[c]))
                    .collect();
                let total = block_reduce(&squares, 0.0, |a, b| a + b);
                let inverse_rms = 1.0 / (total / cols as f32 + data.scalar).sqrt();
                out.extend(row.iter().zip(&f[1]).map(|(v, w)| v * inverse_rms * w));
            }
            out
        }
        (Kernel::SoftmaxRows, Shape::Matrix { rows, cols }) => {
            let mut out = Vec::new();
            for row in f[0].chunks(cols.max(1)).take(rows) {
                let pairs: Vec<(f32, f32)> = (0..block)
                    .map(|t| {
                        strided(t, cols, block).fold((f32::NEG_INFINITY, 0.0f32), |(max, sum), c| {
                            let v = row[c];
                            if v > max {
                                (v, sum * device_exp(max - v) + 1.0)
                            } else {
                                (max, sum + device_exp(v - max))
                            }
                        })
                    })
                    .collect();
                let maxima: Vec<f32> = pairs.iter().map(|p| p.0).collect();
                let row_max = block_reduce(&maxima, f32::NEG_INFINITY, f32::max);
                let scaled: Vec<f32> =
                    pairs.iter().map(|(max, sum)| sum * device_exp(max - row_max)).collect();
                let inverse_sum = 1.0 / block_reduce(&scaled, 0.0, |a, b| a + b);
                out.extend(row.iter().map(|v| device_exp(v - row_max) * inverse_sum));
            }
            out
        }
        (Kernel::GemvF16, Shape::Matrix { rows, cols }) => {
            let weights = data.halves.as_ref().unwrap();
            let weight = |i: usize| half::f16::from_bits(weights[i]).to_f32();
            (0..rows)
                .map(|r| {
                    let mut lanes = [0.0f32; WARP];
                    for (lane, acc) in lanes.iter_mut().enumerate() {
                        if cols % 8 == 0 {
                            for chunk in strided(lane, cols / 8, WARP) {
                                for k in 0..8 {
                                    let c = chunk * 8 + k;
                                    *acc = weight(r * cols + c).mul_add(f[0][c], *acc);
                                }
                            }
                        } else {
                            for c in strided(lane, cols, WARP) {
                                *acc = weight(r * cols + c).mul_add(f[0][c], *acc);
                            }
                        }
                    }
                    warp_reduce(lanes, |a, b| a + b)
                })
                .collect()
        }
        (Kernel::GemmTiled, Shape::Gemm { m, n, k }) => {
            let mut c = vec![0.0f32; m * n];
            for i in 0..m {
                for j in 0..n {
                    c[i * n + j] =
                        (0..k).fold(0.0f32, |acc, l| f[0][i * k + l].mul_add(f[1][l * n + j], acc));
                }
            }
            c
        }
        (kernel, shape) => panic!("{kernel} takes no {shape:?}"),
    }
}

#[test]
fn emulated_kernels_pass_and_corrupted_outputs_fail() {
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    for kernel in Kernel::ALL {
        for case in correctness_cases(kernel, 4) {
            let data = inputs(kernel, case.shape, &mut rng);
            let want = expected(&case, &data);
            let got = emulate(&case, &data);
            let label = format!("{kernel} {} {}", case.shape, case.launch);
            let checked =
                compare(&with_guard(&got), &want.values, want.tolerance, want.magnitudes.as_deref());
            let checked = checked.unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(checked.passed(), "{label}: {}", checked.summary());

            // The same output with one element moved must fail: by one ulp for exact kernels,
            // by a relative 1e-3 for relative tolerances, by 1e-3 of its terms' magnitude for
            // sums (all far above the bounds the kernels are held to).
            let Some(index) = got.iter().position(|v| *v != 0.0) else { continue };
            let mut corrupted = got;
            corrupted[index] = match want.tolerance {
                Tolerance::Exact => f32::from_bits(corrupted[index].to_bits() + 1),
                Tolerance::Relative { .. } => corrupted[index] * (1.0 + 1e-3),
                Tolerance::SumBound { .. } => {
                    corrupted[index] + 1e-3 * want.magnitudes.as_ref().expect("sums have magnitudes")[index]
                }
            };
            let checked =
                compare(&with_guard(&corrupted), &want.values, want.tolerance, want.magnitudes.as_deref());
            assert!(!checked.unwrap().passed(), "{label}: a corrupted element passed");
        }
    }
}
