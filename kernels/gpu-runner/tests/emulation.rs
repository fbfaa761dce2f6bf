//! The comparison code on CI, without a GPU: each kernel's algorithm emulated on the CPU in
//! `f32`, in the kernel's own order of operations (thread partitions, batched strided loops,
//! shared-memory trees, warp butterflies), is checked against the `f64`/plain references through
//! the same catalogue, tolerances and `compare` the GPU run uses. Every correctness case must
//! pass, and a one-ulp-scale corruption of any output must fail, so the tolerances can neither
//! be too tight for the kernels' arithmetic nor too loose to notice a wrong element.

use gpu_runner::cases::{
    Case, Inputs, Kernel, Shape, checked_correctness_cases, expected, gemv_batched_segment_lanes, inputs,
    special_cases,
};
use gpu_runner::compare::{Tolerance, compare, with_guard};
use kernels_reference::PIPELINE_TILE_FLOATS;

const WARP: usize = 32;

/// `__shfl_xor` butterfly: every lane ends with the same sum, added in the kernel's order.
fn warp_reduce(lanes: [f32; WARP], op: impl Fn(f32, f32) -> f32) -> f32 {
    segment_reduce(&lanes, op)
}

/// `device::reduce::segment_sum`'s butterfly over one segment of lanes (a power of two of
/// them): the value its first lane ends with.
fn segment_reduce(lanes: &[f32], op: impl Fn(f32, f32) -> f32) -> f32 {
    let mut lanes = lanes.to_vec();
    let mut mask = lanes.len() / 2;
    while mask > 0 {
        let before = lanes.clone();
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

/// The segment `(start, len)` of a row that each block of a cluster handles
/// (`device::row::RowSegment`): the whole row without clusters.
fn segments(case: &Case, cols: usize) -> Vec<(usize, usize)> {
    let blocks = case.launch.cluster as usize;
    let segment = cols.div_ceil(blocks).next_multiple_of(4);
    (0..blocks)
        .map(|rank| {
            let start = (rank * segment).min(cols);
            (start, segment.min(cols - start))
        })
        .collect()
}

/// Whether a block of `rms_norm` or `softmax_rows` holds its segment of `len` floats of rows
/// of `cols` in registers (`device::row::RowSegment::layout`: 16 floats per thread in 16-byte
/// groups, so `len` and `cols` multiples of 4 and the buffers, 256-byte aligned plus `offset`
/// floats, 16-byte aligned; a segment starts at a multiple of 4 columns) rather than reading
/// it twice.
fn one_read(case: &Case, cols: usize, len: usize) -> bool {
    let aligned = cols.is_multiple_of(4) && len.is_multiple_of(4) && case.offset.is_multiple_of(4);
    len <= 16 * case.launch.block.0 as usize && aligned
}

/// The columns of a segment of `len` floats (of a row of `cols`) thread `t` visits, in its order: on the one-read
/// path its 16-byte groups `t + k·block`, on the two-read path the strided loop.
fn row_columns(case: &Case, cols: usize, len: usize, t: usize) -> Box<dyn Iterator<Item = usize>> {
    let block = case.launch.block.0 as usize;
    if !one_read(case, cols, len) {
        return Box::new(strided(t, len, block));
    }
    let columns = (0..16).map(move |slot| 4 * (t + slot / 4 * block) + slot % 4);
    Box::new(columns.filter(move |c| *c < len))
}

/// `device::cluster::cluster_sum`/`cluster_max`: the blocks' values unchanged for a cluster of
/// one; otherwise lane `r` of a warp holds block `r`'s value, the rest the identity, and a
/// butterfly combines them.
fn cluster_reduce(values: &[f32], identity: f32, op: impl Fn(f32, f32) -> f32) -> f32 {
    if let [value] = values {
        return *value;
    }
    let mut lanes = [identity; WARP];
    lanes[..values.len()].copy_from_slice(values);
    warp_reduce(lanes, op)
}

/// The kernels' `exp`: `2^(x·log2 e)` (the device's `ex2.approx` is a close relative of exp2).
fn device_exp(x: f32) -> f32 {
    (x * std::f32::consts::LOG2_E).exp2()
}

/// Each thread's online (maximum, sum) pair over its strided columns of `segment`. `fixed:
/// false` is the update before the masked-row fix: while a thread's maximum is still `-inf`, a
/// `-inf` adds `e^(-inf - -inf)` = NaN.
fn online_pairs(segment: &[f32], block: usize, fixed: bool) -> Vec<(f32, f32)> {
    (0..block)
        .map(|t| {
            strided(t, segment.len(), block).fold((f32::NEG_INFINITY, 0.0f32), |(max, sum), c| {
                let v = segment[c];
                if v > max {
                    (v, sum * device_exp(max - v) + 1.0)
                } else {
                    let base = if fixed && max == f32::NEG_INFINITY { 0.0 } else { max };
                    (max, sum + device_exp(v - base))
                }
            })
        })
        .collect()
}

/// The two-read softmax of one row by one block: the threads' online pairs, combined by the
/// block.
fn online_softmax(row: &[f32], block: usize, fixed: bool) -> Vec<f32> {
    let pairs = online_pairs(row, block, fixed);
    let maxima: Vec<f32> = pairs.iter().map(|p| p.0).collect();
    let row_max = block_reduce(&maxima, f32::NEG_INFINITY, f32::max);
    let scaled: Vec<f32> = pairs.iter().map(|(max, sum)| sum * device_exp(max - row_max)).collect();
    let inverse_sum = 1.0 / block_reduce(&scaled, 0.0, |a, b| a + b);
    row.iter().map(|v| device_exp(v - row_max) * inverse_sum).collect()
}

/// `rms_norm` on one row: each block's sum of squares over its segment, then the cluster's.
fn rms_norm_row(case: &Case, row: &[f32], weight: &[f32], eps: f32) -> Vec<f32> {
    let block = case.launch.block.0 as usize;
    let partials: Vec<f32> = segments(case, row.len())
        .into_iter()
        .map(|(start, len)| {
            let segment = &row[start..start + len];
            let squares: Vec<f32> = (0..block)
                .map(|t| row_columns(case, row.len(), len, t).fold(0.0, |s, c| s + segment[c] * segment[c]))
                .collect();
            block_reduce(&squares, 0.0, |a, b| a + b)
        })
        .collect();
    let total = cluster_reduce(&partials, 0.0, |a, b| a + b);
    let inverse_rms = 1.0 / (total / row.len() as f32 + eps).sqrt();
    row.iter().zip(weight).map(|(v, w)| v * inverse_rms * w).collect()
}

/// `softmax_rows` on one row: each block's maximum over its segment and its sum of
/// exponentials relative to it (on its path: exponentials held in registers, taken from 0 in a
/// block of `-inf` only, or the threads' online pairs rescaled to the block's maximum, a
/// thread without a finite maximum weighing 0), combined across the cluster as
/// `ClusterExchange::max_and_sum` does; then each block scales its exponentials
/// (`segment_scale`), or reads its segment again.
fn softmax_row(case: &Case, row: &[f32]) -> Vec<f32> {
    let block = case.launch.block.0 as usize;
    let parts: Vec<(usize, &[f32], bool)> = segments(case, row.len())
        .into_iter()
        .map(|(s, len)| (s, &row[s..s + len], one_read(case, row.len(), len)))
        .collect();
    let weight = |max: f32, relative_to: f32| {
        if max == f32::NEG_INFINITY { 0.0 } else { device_exp(max - relative_to) }
    };
    // Both paths' thread maxima ignore NaN (`max`, and `v > max` is false for NaN).
    let blocks: Vec<(f32, f32)> = parts
        .iter()
        .map(|(_, segment, one_read)| {
            let maxima: Vec<f32> = (0..block)
                .map(|t| {
                    row_columns(case, row.len(), segment.len(), t)
                        .fold(f32::NEG_INFINITY, |m, c| m.max(segment[c]))
                })
                .collect();
            let segment_max = block_reduce(&maxima, f32::NEG_INFINITY, f32::max);
            let base = if segment_max == f32::NEG_INFINITY { 0.0 } else { segment_max };
            let sums: Vec<f32> = if *one_read {
                (0..block)
                    .map(|t| {
                        row_columns(case, row.len(), segment.len(), t)
                            .fold(0.0, |s, c| s + device_exp(segment[c] - base))
                    })
                    .collect()
            } else {
                online_pairs(segment, block, true).iter().map(|(m, s)| s * weight(*m, segment_max)).collect()
            };
            (segment_max, block_reduce(&sums, 0.0, |a, b| a + b))
        })
        .collect();
    let maxima: Vec<f32> = blocks.iter().map(|b| b.0).collect();
    let row_max = cluster_reduce(&maxima, f32::NEG_INFINITY, f32::max);
    let row_sum = if let [(_, sum)] = blocks[..] {
        sum
    } else {
        let weighted: Vec<f32> = blocks.iter().map(|(m, s)| s * weight(*m, row_max)).collect();
        cluster_reduce(&weighted, 0.0, |a, b| a + b)
    };
    let inverse_sum = 1.0 / row_sum;
    let mut out = vec![0.0; row.len()];
    for ((start, segment, one_read), (segment_max, _)) in parts.iter().zip(&blocks) {
        for (c, v) in segment.iter().enumerate() {
            out[start + c] = if *one_read {
                let base = if *segment_max == f32::NEG_INFINITY { 0.0 } else { *segment_max };
                let scale = if *segment_max == row_max {
                    inverse_sum
                } else {
                    device_exp(segment_max - row_max) * inverse_sum
                };
                device_exp(v - base) * scale
            } else {
                device_exp(v - row_max) * inverse_sum
            };
        }
    }
    out
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
        (Kernel::RmsNorm, Shape::Matrix { rows, cols }) => f[0]
            .chunks(cols.max(1))
            .take(rows)
            .flat_map(|row| rms_norm_row(case, row, &f[1], data.scalar))
            .collect(),
        (Kernel::SoftmaxRows, Shape::Matrix { rows, cols }) => {
            f[0].chunks(cols.max(1)).take(rows).flat_map(|row| softmax_row(case, row)).collect()
        }
        (Kernel::GemvF16, Shape::Matrix { rows, cols }) => gemv(case, data, &f[0], rows, cols),
        (Kernel::GemvF16Batched, Shape::Batched { batch, rows, cols }) => (0..batch)
            .flat_map(|b| {
                // The split entries have 32 lanes per activation row in every warp of the block.
                let (lanes, warps) = if case.launch.column_split {
                    (32, case.launch.block.0 as usize / 32)
                } else {
                    (gemv_batched_segment_lanes(batch), 1)
                };
                gemv_segment(case, data, &f[0][b * cols..(b + 1) * cols], rows, cols, lanes, warps)
            })
            .collect(),
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
        (kernel, Shape::Gemm { m, n, k }) if kernel.wgmma_variant().is_some() => {
            let epilogue = kernel.wgmma_variant().unwrap();
            // Each warpgroup's accumulator adds one k16 step's products at a time to its f32
            // sum (the order inside a step is the tensor cores'; the products of bf16 values
            // are exact in f32). B is K-major: element (i, j) is A's row i by B's row j.
            let mut c = vec![0.0f32; m * n];
            for i in 0..m {
                for j in 0..n {
                    let (a, b) = (&f[0][i * k..(i + 1) * k], &f[1][j * k..(j + 1) * k]);
                    let mut sum = a.chunks(16).zip(b.chunks(16)).fold(0.0f32, |acc, (x, y)| {
                        acc + x.iter().zip(y).fold(0.0f32, |step, (p, q)| p.mul_add(*q, step))
                    });
                    // The epilogue: the column's bias added in f32, then one rounding to bf16.
                    if epilogue.bias {
                        sum += f[2][j];
                    }
                    if epilogue.bf16_output {
                        sum = half::bf16::from_f32(sum).to_f32();
                    }
                    c[i * n + j] = sum;
                }
            }
            c
        }
        (kernel, shape) => panic!("{kernel} takes no {shape:?}"),
    }
}

/// `gemv_f16` on the activations `x`: each thread's fused multiply-adds over its strided
/// chunks (eight weights each when vectorised), then the block reduction.
fn gemv(case: &Case, data: &Inputs, x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let block = case.launch.block.0 as usize;
    let weights = data.halves.as_ref().unwrap();
    let weight = |i: usize| half::f16::from_bits(weights[i]).to_f32();
    // 16-byte loads need `weights` (offset · 2 bytes) and `x` (offset · 4) aligned.
    let vectorised = cols.is_multiple_of(8) && case.offset.is_multiple_of(8);
    (0..rows)
        .map(|r| {
            let sums: Vec<f32> = (0..block)
                .map(|t| {
                    let mut acc = 0.0f32;
                    if vectorised {
                        for chunk in strided(t, cols / 8, block) {
                            for k in 0..8 {
                                let c = chunk * 8 + k;
                                acc = weight(r * cols + c).mul_add(x[c], acc);
                            }
                        }
                    } else {
                        for c in strided(t, cols, block) {
                            acc = weight(r * cols + c).mul_add(x[c], acc);
                        }
                    }
                    acc
                })
                .collect();
            block_reduce(&sums, 0.0, |a, b| a + b)
        })
        .collect()
}

/// `gemv_f16_batched` for one activation row `x`: the `lanes` lanes that share it (the warp
/// or a segment of it) in each of `warps` warps per weight row, each lane's fused
/// multiply-adds over its strided chunks (eight weights each on the 16-byte path; warp `w`'s
/// lanes start at chunk `w · lanes` and stride by `warps · lanes`), the segment's butterfly in
/// each warp, then the warps' sums added in warp order (the split entries).
fn gemv_segment(
    case: &Case,
    data: &Inputs,
    x: &[f32],
    rows: usize,
    cols: usize,
    lanes: usize,
    warps: usize,
) -> Vec<f32> {
    let weights = data.halves.as_ref().unwrap();
    let weight = |i: usize| half::f16::from_bits(weights[i]).to_f32();
    let width = if cols.is_multiple_of(8) && case.offset.is_multiple_of(8) { 8 } else { 1 };
    (0..rows)
        .map(|r| {
            let warp_sum = |warp: usize| {
                let sums: Vec<f32> = (0..lanes)
                    .map(|lane| {
                        let mut acc = 0.0f32;
                        for chunk in strided(warp * lanes + lane, cols / width, warps * lanes) {
                            let columns = chunk * width..(chunk + 1) * width;
                            for (c, x_c) in columns.clone().zip(&x[columns]) {
                                acc = weight(r * cols + c).mul_add(*x_c, acc);
                            }
                        }
                        acc
                    })
                    .collect();
                segment_reduce(&sums, |a, b| a + b)
            };
            if warps == 1 { warp_sum(0) } else { (0..warps).fold(0.0, |total, warp| total + warp_sum(warp)) }
        })
        .collect()
}

#[test]
fn emulated_kernels_pass_and_corrupted_outputs_fail() {
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    for (case, data, want) in checked_correctness_cases(4, &mut rng) {
        let got = emulate(&case, &data);
        let label = format!("{} {} {}", case.kernel, case.label(), case.launch);
        let checked = compare(&with_guard(&got), &want.values, want.tolerance, want.magnitudes.as_deref());
        let checked = checked.unwrap_or_else(|e| panic!("{label}: {e}"));
        assert!(checked.passed(), "{label}: {}", checked.summary());

        // The same output with one element moved must fail: by one ulp for exact kernels,
        // by a relative 1e-3 for relative tolerances, by 1e-3 of its terms' magnitude for
        // sums (all far above the bounds the kernels are held to).
        // A normal element (a subnormal one sits below the absolute part of a relative
        // tolerance) whose terms do not overflow.
        let finite_terms = |i: usize| want.magnitudes.as_ref().is_none_or(|m| m[i].is_finite());
        let Some(index) = got.iter().enumerate().position(|(i, v)| v.is_normal() && finite_terms(i)) else {
            continue;
        };
        let mut corrupted = got;
        corrupted[index] = match want.tolerance {
            Tolerance::Exact => f32::from_bits(corrupted[index].to_bits() + 1),
            Tolerance::Relative { .. } => corrupted[index] * (1.0 + 1e-3),
            Tolerance::SumBound { .. } => {
                corrupted[index] + 1e-3 * want.magnitudes.as_ref().expect("sums have magnitudes")[index]
            }
            // Two bf16 ulps as well: the rounding to bf16 alone is allowed half of one.
            Tolerance::SumBoundThenBf16 { .. } => {
                let magnitude = want.magnitudes.as_ref().expect("sums have magnitudes")[index];
                let value = corrupted[index];
                value + (value.abs() / 64.0 + 1e-3 * magnitude).copysign(value)
            }
        };
        let checked =
            compare(&with_guard(&corrupted), &want.values, want.tolerance, want.magnitudes.as_deref());
        assert!(!checked.unwrap().passed(), "{label}: a corrupted element passed");
    }
}

#[test]
fn special_values_catch_the_unfixed_masked_softmax() {
    // The two-read path with the update from before the fix: a row whose first columns of some
    // thread are -inf (masks, a masked prefix) turns NaN, which the special-value case reports.
    let mut rng = fastrand::Rng::with_seed(7);
    let case = special_cases(Kernel::SoftmaxRows)
        .into_iter()
        .find(|case| matches!(case.shape, Shape::Matrix { cols, .. } if cols > 16 * case.launch.block.0 as usize))
        .expect("a special case with rows too long for registers");
    let Shape::Matrix { rows, cols } = case.shape else { unreachable!() };
    let data = inputs(&case, &mut rng);
    let want = expected(&case, &data);
    let block = case.launch.block.0 as usize;
    let unfixed: Vec<f32> =
        data.floats[0].chunks(cols).take(rows).flat_map(|row| online_softmax(row, block, false)).collect();
    let checked = compare(&with_guard(&unfixed), &want.values, want.tolerance, None).unwrap();
    assert!(!checked.passed(), "the unfixed softmax passed: {}", checked.summary());
    // The masked rows, not the ordinary one, are where it fails: every thread's first column
    // lies in the masked prefix of row 3.
    assert_eq!(gpu_runner::cases::ROW_PATTERNS[3], gpu_runner::cases::RowPattern::MaskPrefix);
    assert!(unfixed[..cols].iter().all(|v| v.is_finite()));
    assert!(unfixed[3 * cols..4 * cols].iter().all(|v| v.is_nan()));
}

#[test]
fn sampled_gemm_checks_pass_the_kernel_order_and_catch_a_transposed_b() {
    // A GEMM too large to check in full is checked at sampled elements: the emulated kernel
    // passes there, and reading B as k × n instead of n × k (a wrong map or descriptor) fails.
    let mut rng = fastrand::Rng::with_seed(11);
    let gemms = Kernel::ALL.into_iter().filter(|k| k.wgmma_variant().is_some() || *k == Kernel::GemmTiled);
    for kernel in gemms {
        let shape = Shape::Gemm { m: 96, n: 96, k: 96 };
        let case = Case::new(kernel, shape, gpu_runner::cases::launch_for(kernel, shape, 256, None));
        let data = inputs(&case, &mut rng);
        let got = emulate(&case, &data);
        let (indices, want) = gpu_runner::cases::sampled_expected(&case, &data, 64, &mut rng).unwrap();
        assert_eq!(indices.len(), 64);
        assert!(indices.contains(&0) && indices.contains(&(96 * 96 - 1)), "the corners are sampled");
        let at = |c: &[f32]| with_guard(&indices.iter().map(|&i| c[i]).collect::<Vec<_>>());
        let checked = compare(&at(&got), &want.values, want.tolerance, want.magnitudes.as_deref()).unwrap();
        assert!(checked.passed(), "{kernel}: {}", checked.summary());
        let mut swapped = data.clone();
        swapped.floats[1] = (0..96 * 96).map(|i| data.floats[1][(i % 96) * 96 + i / 96]).collect();
        let wrong = emulate(&case, &swapped);
        let checked = compare(&at(&wrong), &want.values, want.tolerance, want.magnitudes.as_deref()).unwrap();
        assert!(!checked.passed(), "{kernel}: a transposed B passed the sampled check");
    }
    let other = special_cases(Kernel::SoftmaxRows)[0];
    let data = inputs(&other, &mut rng);
    assert!(gpu_runner::cases::sampled_expected(&other, &data, 64, &mut rng).is_none());
}

#[test]
fn gemm_special_cases_catch_flushed_subnormals_and_a_saturating_bf16_store() {
    // Two ways a GEMM could differ from PyTorch on special values, each caught by the special
    // case: bf16 subnormal operands flushed to zero, and a bf16 store that clamps an
    // overflowing sum to the bf16 maximum instead of rounding it to infinity.
    let mut rng = fastrand::Rng::with_seed(13);
    for (kernel, flush) in [(Kernel::GemmBf16Wgmma, true), (Kernel::GemmBf16WgmmaBf16, false)] {
        let case = special_cases(kernel)[0];
        let data = inputs(&case, &mut rng);
        let want = expected(&case, &data);
        let mut altered = data.clone();
        if flush {
            altered.floats.iter_mut().flatten().filter(|v| v.is_subnormal()).for_each(|v| *v = 0.0);
        }
        let mut got = emulate(&case, &altered);
        if !flush {
            let largest = half::bf16::MAX.to_f32();
            got.iter_mut().filter(|v| v.is_infinite()).for_each(|v| *v = largest.copysign(*v));
        }
        let checked = compare(&with_guard(&got), &want.values, want.tolerance, want.magnitudes.as_deref());
        assert!(!checked.unwrap().passed(), "{kernel}: the altered GEMM passed");
    }
}
