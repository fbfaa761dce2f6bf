//! The catalogue: every kernel entry, its launch contract, the shapes it is checked and timed
//! on, its inputs, its expected output (from `kernels-reference`) and its tolerance.
//!
//! Everything here is host-side and GPU-free, so CI exercises it; `gpu.rs` only moves the
//! buffers this module describes and launches.

use std::fmt;

use half::f16;

use crate::compare::Tolerance;

/// Every kernel entry of `kernels.ptx` that the runner drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    VectorAdd,
    Saxpy,
    SiluMul,
    BlockReduceSum,
    RmsNorm,
    SoftmaxRows,
    GemvF16,
    GemmTiled,
    SharedHelperLocal,
    SharedHelperCrossCrate,
    PipelineSum,
}

/// How a kernel's time is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Roofline {
    /// Memory-bound: achieved bytes per second over the measured copy bandwidth, with the
    /// issue's target fraction where it sets one.
    Bandwidth { target: Option<f64> },
    /// Compute-bound (the tiled GEMM): FLOP/s, judged against the peer only.
    Arithmetic,
}

impl Kernel {
    pub const ALL: [Kernel; 11] = [
        Kernel::VectorAdd,
        Kernel::Saxpy,
        Kernel::SiluMul,
        Kernel::BlockReduceSum,
        Kernel::RmsNorm,
        Kernel::SoftmaxRows,
        Kernel::GemvF16,
        Kernel::GemmTiled,
        Kernel::SharedHelperLocal,
        Kernel::SharedHelperCrossCrate,
        Kernel::PipelineSum,
    ];

    /// The entry's name in the PTX (the kernels are `#[no_mangle]`).
    pub fn entry(self) -> &'static str {
        match self {
            Kernel::VectorAdd => "vector_add",
            Kernel::Saxpy => "saxpy",
            Kernel::SiluMul => "silu_mul",
            Kernel::BlockReduceSum => "block_reduce_sum",
            Kernel::RmsNorm => "rms_norm",
            Kernel::SoftmaxRows => "softmax_rows",
            Kernel::GemvF16 => "gemv_f16",
            Kernel::GemmTiled => "gemm_tiled",
            Kernel::SharedHelperLocal => "shared_memory_helper_local",
            Kernel::SharedHelperCrossCrate => "shared_memory_helper_cross_crate",
            Kernel::PipelineSum => "pipeline_sum",
        }
    }

    pub fn from_entry(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.entry() == name)
    }

    /// The targets, as fractions of the copy bandwidth measured in the same run.
    pub fn roofline(self) -> Roofline {
        match self {
            Kernel::VectorAdd | Kernel::Saxpy | Kernel::SiluMul => Roofline::Bandwidth { target: Some(0.85) },
            Kernel::GemvF16 => Roofline::Bandwidth { target: Some(0.80) },
            Kernel::BlockReduceSum | Kernel::PipelineSum | Kernel::RmsNorm | Kernel::SoftmaxRows => {
                Roofline::Bandwidth { target: Some(0.70) }
            }
            Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate => {
                Roofline::Bandwidth { target: None }
            }
            Kernel::GemmTiled => Roofline::Arithmetic,
        }
    }

    /// Whether the issue asks this kernel to be at least as fast as PyTorch's.
    pub fn must_match_peer(self) -> bool {
        matches!(self, Kernel::RmsNorm | Kernel::SoftmaxRows | Kernel::SiluMul)
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.entry())
    }
}

/// The problem size of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `n` elements (element-wise kernels, the block reduction, the shared-memory helpers).
    Elements(usize),
    /// A row-major `rows × cols` matrix (RMSNorm, softmax, GEMV's weights).
    Matrix { rows: usize, cols: usize },
    /// `c (m × n) = a (m × k) · b (k × n)`.
    Gemm { m: usize, n: usize, k: usize },
    /// Whole tiles of [`kernels_reference::PIPELINE_TILE_FLOATS`] floats.
    Tiles(usize),
}

impl Shape {
    /// The shape's dimensions: `[n]`, `[rows, cols]`, `[m, n, k]` or `[tiles]`.
    pub fn dims(&self) -> Vec<usize> {
        match *self {
            Shape::Elements(n) | Shape::Tiles(n) => vec![n],
            Shape::Matrix { rows, cols } => vec![rows, cols],
            Shape::Gemm { m, n, k } => vec![m, n, k],
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Elements(n) => write!(f, "n={n}"),
            Shape::Matrix { rows, cols } => write!(f, "{rows}×{cols}"),
            Shape::Gemm { m, n, k } => write!(f, "{m}×{n}×{k}"),
            Shape::Tiles(t) => write!(f, "{t} tiles"),
        }
    }
}

/// Grid, block and dynamic shared memory of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    pub grid: (u32, u32),
    pub block: (u32, u32),
    pub shared_bytes: u32,
}

impl Launch {
    fn linear(grid: usize, block: u32, shared_bytes: u32) -> Launch {
        let grid = u32::try_from(grid.max(1)).expect("grid fits in u32");
        Launch { grid: (grid, 1), block: (block, 1), shared_bytes }
    }
}

impl fmt::Display for Launch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims = |(x, y): (u32, u32)| if y == 1 { x.to_string() } else { format!("{x}×{y}") };
        write!(f, "<<<{}, {}", dims(self.grid), dims(self.block))?;
        if self.shared_bytes > 0 {
            write!(f, ", {}", self.shared_bytes)?;
        }
        write!(f, ">>>")
    }
}

/// One launch of one kernel on one shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Case {
    pub kernel: Kernel,
    pub shape: Shape,
    pub launch: Launch,
}

/// The launch each kernel's contract asks for, with `block` threads per block where the
/// contract leaves it open and `grid` blocks where any grid works (`None`: one block per unit
/// of work: element, row, tile).
pub fn launch_for(kernel: Kernel, shape: Shape, block: u32, grid: Option<usize>) -> Launch {
    let per_block = |units: usize| grid.unwrap_or(units.div_ceil(block as usize));
    match (kernel, shape) {
        (Kernel::VectorAdd | Kernel::Saxpy | Kernel::SiluMul, Shape::Elements(n)) => {
            Launch::linear(per_block(n), block, 0)
        }
        (Kernel::BlockReduceSum, Shape::Elements(n)) => Launch::linear(per_block(n), block, block * 4),
        (Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate, Shape::Elements(n)) => {
            // One tile per block: the grid must cover `n`.
            Launch::linear(n.div_ceil(block as usize), block, block * 4)
        }
        (Kernel::RmsNorm | Kernel::SoftmaxRows, Shape::Matrix { rows, .. }) => {
            Launch::linear(grid.unwrap_or(rows), block, 128)
        }
        (Kernel::GemvF16, Shape::Matrix { rows, .. }) => {
            let warps = (block / 32) as usize;
            Launch::linear(grid.unwrap_or(rows.div_ceil(warps)), block, 0)
        }
        (Kernel::GemmTiled, Shape::Gemm { m, n, .. }) => {
            let tiles = |len: usize| u32::try_from(len.div_ceil(16).max(1)).expect("grid fits in u32");
            Launch { grid: (tiles(n), tiles(m)), block: (16, 16), shared_bytes: 2048 }
        }
        (Kernel::PipelineSum, Shape::Tiles(tiles)) => {
            Launch::linear(grid.unwrap_or(tiles), 160, 4 * 4096 + 64 + 128)
        }
        (kernel, shape) => panic!("{kernel} takes no {shape:?}: the catalogue pairs them wrongly"),
    }
}

/// The correctness cases of a kernel: sizes that are not multiples of the block, empty and
/// one-element inputs, rows longer than a block, grids smaller than the work (grid-stride
/// loops) and larger than it. `sms` is the device's multiprocessor count.
pub fn correctness_cases(kernel: Kernel, sms: usize) -> Vec<Case> {
    let case = |shape, launch| Case { kernel, shape, launch };
    let mut cases = Vec::new();
    match kernel {
        Kernel::VectorAdd | Kernel::Saxpy | Kernel::SiluMul => {
            for n in [0, 1, 255, 256, 257, 1_000_003] {
                let shape = Shape::Elements(n);
                cases.push(case(shape, launch_for(kernel, shape, 256, None)));
            }
            let shape = Shape::Elements(100_000);
            cases.push(case(shape, launch_for(kernel, shape, 64, Some(3))));
        }
        Kernel::BlockReduceSum => {
            for (n, grid, block) in
                [(0, 1, 32), (1, 1, 32), (1000, 7, 64), (1_048_583, sms, 256), (3_000_001, 2 * sms, 1024)]
            {
                let shape = Shape::Elements(n);
                cases.push(case(shape, launch_for(kernel, shape, block, Some(grid))));
            }
        }
        Kernel::RmsNorm | Kernel::SoftmaxRows => {
            for (rows, cols, block, grid) in [
                (0, 64, 32, None),
                (1, 1, 32, None),
                (3, 100, 64, None),
                (7, 4099, 256, None),
                (64, 33, 32, None),
                (5, 2048, 1024, None),
                (300, 128, 128, Some(16)),
            ] {
                let shape = Shape::Matrix { rows, cols };
                cases.push(case(shape, launch_for(kernel, shape, block, grid)));
            }
        }
        Kernel::GemvF16 => {
            for (rows, cols, grid) in [
                (0, 8, None),
                (1, 1, None),
                (5, 13, None),
                (33, 4096, None),
                (100, 1000, None),
                (17, 1001, None),
                (1000, 4104, Some(7)),
            ] {
                let shape = Shape::Matrix { rows, cols };
                cases.push(case(shape, launch_for(kernel, shape, 256, grid)));
            }
        }
        Kernel::GemmTiled => {
            for (m, n, k) in [(1, 1, 1), (5, 7, 0), (17, 19, 23), (64, 64, 64), (100, 70, 300)] {
                let shape = Shape::Gemm { m, n, k };
                cases.push(case(shape, launch_for(kernel, shape, 256, None)));
            }
        }
        Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate => {
            for (n, block) in [(0, 256), (1, 256), (255, 256), (256, 256), (257, 256), (10_007, 128)] {
                let shape = Shape::Elements(n);
                cases.push(case(shape, launch_for(kernel, shape, block, None)));
            }
        }
        Kernel::PipelineSum => {
            for (tiles, grid) in [(0, 1), (1, 1), (3, 2), (5, 2), (4, 8), (1000, sms)] {
                let shape = Shape::Tiles(tiles);
                cases.push(case(shape, launch_for(kernel, shape, 160, Some(grid))));
            }
        }
    }
    cases
}

/// The large shape a kernel is timed on, and the launches tried on it (the table reports the
/// fastest). Shapes are several times the H200's 60 MB L2, so the timings measure memory.
pub fn timing_cases(kernel: Kernel, sms: usize) -> Vec<Case> {
    let case = |shape, launch| Case { kernel, shape, launch };
    let grids = |per_sm: &[usize]| per_sm.iter().map(|k| Some(k * sms)).collect::<Vec<_>>();
    let mut cases = Vec::new();
    match kernel {
        Kernel::VectorAdd | Kernel::Saxpy | Kernel::SiluMul => {
            // 2^26 floats: 256 MiB per array.
            let shape = Shape::Elements(1 << 26);
            for grid in grids(&[4, 8, 16]).into_iter().chain([None]) {
                cases.push(case(shape, launch_for(kernel, shape, 256, grid)));
            }
        }
        Kernel::BlockReduceSum => {
            let shape = Shape::Elements(1 << 27);
            for (block, grid) in [(256, 4), (256, 8), (512, 4), (1024, 2)] {
                cases.push(case(shape, launch_for(kernel, shape, block, Some(grid * sms))));
            }
        }
        Kernel::RmsNorm | Kernel::SoftmaxRows => {
            let shape = Shape::Matrix { rows: 16384, cols: 4096 };
            for block in [128, 256, 512, 1024] {
                cases.push(case(shape, launch_for(kernel, shape, block, None)));
            }
        }
        Kernel::GemvF16 => {
            for (rows, cols) in [(14336, 4096), (4096, 14336)] {
                let shape = Shape::Matrix { rows, cols };
                for block in [128, 256] {
                    cases.push(case(shape, launch_for(kernel, shape, block, None)));
                }
            }
        }
        Kernel::GemmTiled => {
            let shape = Shape::Gemm { m: 4096, n: 4096, k: 4096 };
            cases.push(case(shape, launch_for(kernel, shape, 256, None)));
        }
        Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate => {
            let shape = Shape::Elements(1 << 26);
            for block in [256, 512] {
                cases.push(case(shape, launch_for(kernel, shape, block, None)));
            }
        }
        Kernel::PipelineSum => {
            let shape = Shape::Tiles(1 << 17);
            for grid in grids(&[1, 2, 4, 8]) {
                cases.push(case(shape, launch_for(kernel, shape, 160, grid)));
            }
        }
    }
    cases
}

/// Bytes a kernel must move through device memory at the least (each input read once, each
/// output written once) and the floating-point operations it must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    pub bytes: u64,
    pub flops: u64,
}

pub fn work(kernel: Kernel, shape: Shape) -> Work {
    let f = 4u64;
    let w = |bytes: usize, flops: usize| Work { bytes: bytes as u64, flops: flops as u64 };
    match (kernel, shape) {
        (Kernel::VectorAdd, Shape::Elements(n)) => w(3 * 4 * n, n),
        (Kernel::Saxpy, Shape::Elements(n)) => w(3 * 4 * n, 2 * n),
        (Kernel::SiluMul, Shape::Elements(n)) => w(3 * 4 * n, 5 * n),
        (Kernel::BlockReduceSum, Shape::Elements(n)) => w(4 * n, n),
        (Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate, Shape::Elements(n)) => {
            w(2 * 4 * n, 4 * n)
        }
        (Kernel::RmsNorm, Shape::Matrix { rows, cols }) => w(2 * 4 * rows * cols + 4 * cols, 4 * rows * cols),
        (Kernel::SoftmaxRows, Shape::Matrix { rows, cols }) => w(2 * 4 * rows * cols, 5 * rows * cols),
        (Kernel::GemvF16, Shape::Matrix { rows, cols }) => {
            w(2 * rows * cols + 4 * cols + 4 * rows, 2 * rows * cols)
        }
        (Kernel::GemmTiled, Shape::Gemm { m, n, k }) => {
            Work { bytes: f * (m * k + k * n + m * n) as u64, flops: 2 * (m * n * k) as u64 }
        }
        (Kernel::PipelineSum, Shape::Tiles(t)) => {
            let floats = t * kernels_reference::PIPELINE_TILE_FLOATS;
            w(4 * floats, floats)
        }
        (kernel, shape) => panic!("{kernel} takes no {shape:?}"),
    }
}

/// The inputs of one case, in the kernel's argument order. Each device buffer is allocated
/// with [`crate::compare::GUARD`] poisoned elements past its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    pub floats: Vec<Vec<f32>>,
    /// GEMV's weights, IEEE binary16 bits.
    pub halves: Option<Vec<u16>>,
    /// SAXPY's `alpha`, RMSNorm's `eps`, the helpers' `scale`; 0 where unused.
    pub scalar: f32,
}

fn uniform(rng: &mut fastrand::Rng, len: usize, low: f32, high: f32) -> Vec<f32> {
    (0..len).map(|_| low + (high - low) * rng.f32()).collect()
}

/// Random inputs for a case (never zeros: they hide unwritten outputs and wrong indexing).
/// Sums take inputs in `[0, 1)`, so that their error bound is relative to the sum itself.
pub fn inputs(kernel: Kernel, shape: Shape, rng: &mut fastrand::Rng) -> Inputs {
    let plain = |floats| Inputs { floats, halves: None, scalar: 0.0 };
    match (kernel, shape) {
        (Kernel::VectorAdd, Shape::Elements(n)) => {
            plain(vec![uniform(rng, n, -4.0, 4.0), uniform(rng, n, -4.0, 4.0)])
        }
        (Kernel::Saxpy, Shape::Elements(n)) => Inputs {
            floats: vec![uniform(rng, n, -4.0, 4.0), uniform(rng, n, -4.0, 4.0)],
            halves: None,
            scalar: 0.5 + 1.5 * rng.f32(),
        },
        (Kernel::SiluMul, Shape::Elements(n)) => {
            plain(vec![uniform(rng, n, -8.0, 8.0), uniform(rng, n, -4.0, 4.0)])
        }
        (Kernel::BlockReduceSum, Shape::Elements(n)) => plain(vec![uniform(rng, n, 0.0, 1.0)]),
        (Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate, Shape::Elements(n)) => {
            Inputs { floats: vec![uniform(rng, n, -4.0, 4.0)], halves: None, scalar: 0.5 + 1.5 * rng.f32() }
        }
        (Kernel::RmsNorm, Shape::Matrix { rows, cols }) => Inputs {
            floats: vec![uniform(rng, rows * cols, -4.0, 4.0), uniform(rng, cols, 0.5, 1.5)],
            halves: None,
            scalar: 1e-5,
        },
        (Kernel::SoftmaxRows, Shape::Matrix { rows, cols }) => {
            plain(vec![uniform(rng, rows * cols, -8.0, 8.0)])
        }
        (Kernel::GemvF16, Shape::Matrix { rows, cols }) => Inputs {
            floats: vec![uniform(rng, cols, -1.0, 1.0)],
            halves: Some(
                uniform(rng, rows * cols, -1.0, 1.0)
                    .into_iter()
                    .map(|v| f16::from_f32(v).to_bits())
                    .collect(),
            ),
            scalar: 0.0,
        },
        (Kernel::GemmTiled, Shape::Gemm { m, n, k }) => {
            plain(vec![uniform(rng, m * k, -1.0, 1.0), uniform(rng, k * n, -1.0, 1.0)])
        }
        (Kernel::PipelineSum, Shape::Tiles(t)) => {
            plain(vec![uniform(rng, t * kernels_reference::PIPELINE_TILE_FLOATS, 0.0, 1.0)])
        }
        (kernel, shape) => panic!("{kernel} takes no {shape:?}"),
    }
}

/// What a case must produce, and how closely.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    pub values: Vec<f32>,
    pub tolerance: Tolerance,
    /// For [`Tolerance::SumBound`]: per element, the sum of its terms' absolute values.
    pub magnitudes: Option<Vec<f32>>,
}

/// The number of output elements a case writes.
pub fn output_len(case: &Case) -> usize {
    match (case.kernel, case.shape) {
        (Kernel::BlockReduceSum | Kernel::PipelineSum, _) => case.launch.grid.0 as usize,
        (_, Shape::Elements(n)) => n,
        (Kernel::GemvF16, Shape::Matrix { rows, .. }) => rows,
        (_, Shape::Matrix { rows, cols }) => rows * cols,
        (_, Shape::Gemm { m, n, .. }) => m * n,
        (_, Shape::Tiles(_)) => unreachable!("only pipeline_sum takes tiles"),
    }
}

fn abs_all(values: &[f32]) -> Vec<f32> {
    values.iter().map(|v| v.abs()).collect()
}

/// The reference output of a case and the tolerance it is held to.
///
/// Tolerances, and why:
/// - `vector_add`, `saxpy`, the shared-memory helpers: exact. The kernel does the same IEEE
///   operations in the same order as the reference (an add; one fused multiply-add; two adds
///   and two multiplies, with no contraction in Rust).
/// - `silu_mul`: relative 2e-6. `ex2.approx` is off by about 2^-22, and rounding `-g·log2 e`
///   (|g| ≤ 8) moves the exponential by up to 2^-21·ln 2 relative; `rcp.approx` adds about
///   2^-23 and a few roundings follow (the H200 measured at most 6.3e-7).
/// - `rms_norm`, `softmax_rows`: relative 1e-5: `rsqrt.approx`/`ex2.approx` (about 2^-22) plus
///   an `f32` sum over the row of at most (cols / block + 10) additions of positive terms.
/// - sums (`block_reduce_sum`, `pipeline_sum`, `gemv_f16`, `gemm_tiled`): the recursive
///   summation bound over the longest chain of `f32` additions in the kernel's launch.
pub fn expected(case: &Case, inputs: &Inputs) -> Expected {
    use kernels_reference as reference;
    let exact = |values| Expected { values, tolerance: Tolerance::Exact, magnitudes: None };
    let relative =
        |values, rel| Expected { values, tolerance: Tolerance::Relative { rel, abs: 0.0 }, magnitudes: None };
    let f = &inputs.floats;
    let (grid, block) = (case.launch.grid.0 as usize, case.launch.block.0 as usize);
    let log2 = |x: usize| x.max(1).ilog2() as usize;
    match (case.kernel, case.shape) {
        (Kernel::VectorAdd, _) => exact(reference::vector_add(&f[0], &f[1])),
        (Kernel::Saxpy, _) => exact(reference::saxpy(inputs.scalar, &f[0], &f[1])),
        (Kernel::SiluMul, _) => relative(reference::silu_mul(&f[0], &f[1]), 2e-6),
        (Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate, _) => {
            exact(reference::blur3_tiles(&f[0], block, inputs.scalar))
        }
        (Kernel::RmsNorm, Shape::Matrix { rows, cols }) => {
            relative(reference::rms_norm(&f[0], &f[1], rows, cols, inputs.scalar), 1e-5)
        }
        (Kernel::SoftmaxRows, Shape::Matrix { rows, cols }) => {
            relative(reference::softmax_rows(&f[0], rows, cols), 1e-5)
        }
        (Kernel::BlockReduceSum, Shape::Elements(n)) => Expected {
            values: reference::block_partial_sums(&f[0], grid, block),
            // Each thread adds its grid-stride elements, then the tree adds log2(block) levels.
            tolerance: Tolerance::SumBound { terms: n.div_ceil(grid * block) + log2(block) + 1 },
            magnitudes: Some(reference::block_partial_sums(&abs_all(&f[0]), grid, block)),
        },
        (Kernel::PipelineSum, Shape::Tiles(tiles)) => Expected {
            values: reference::pipeline_partial_sums(&f[0], grid),
            // Each consumer adds 8 floats per tile of its block, then two warp-sum levels of 5.
            tolerance: Tolerance::SumBound { terms: tiles.div_ceil(grid) * 8 + 10 + 1 },
            magnitudes: Some(reference::pipeline_partial_sums(&abs_all(&f[0]), grid)),
        },
        (Kernel::GemvF16, Shape::Matrix { rows, cols }) => {
            let weights = inputs.halves.as_deref().expect("gemv_f16 has half weights");
            let abs_weights: Vec<u16> = weights.iter().map(|bits| bits & 0x7fff).collect();
            Expected {
                values: reference::gemv_f16(weights, &f[0], rows, cols),
                // Each lane accumulates about cols / 32 products, then five shuffle levels.
                tolerance: Tolerance::SumBound { terms: cols.div_ceil(32) + 8 + 5 + 1 },
                magnitudes: Some(reference::gemv_f16(&abs_weights, &abs_all(&f[0]), rows, cols)),
            }
        }
        (Kernel::GemmTiled, Shape::Gemm { m, n, k }) => Expected {
            values: reference::gemm(&f[0], &f[1], m, n, k),
            tolerance: Tolerance::SumBound { terms: k + 1 },
            magnitudes: Some(reference::gemm(&abs_all(&f[0]), &abs_all(&f[1]), m, n, k)),
        },
        (kernel, shape) => panic!("{kernel} takes no {shape:?}"),
    }
}

/// Whether checking a case's output on the host is cheap enough to do after timing it (the
/// 4096³ GEMM's reference is 69 G multiply-adds in `f64`; its smaller cases are checked).
pub fn cheap_to_check(case: &Case) -> bool {
    match case.shape {
        Shape::Gemm { m, n, k } => m * n * k <= 1 << 27,
        _ => true,
    }
}
