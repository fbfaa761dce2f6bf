//! The catalogue: every kernel entry, its launch contract, the shapes it is checked and timed
//! on, its inputs, its expected output (from `kernels-reference`) and its tolerance.
//!
//! Each kernel family is one module implementing [`Family`] ([`family`]): [`elementwise`],
//! [`block_reduce`], [`rows`], [`gemv`], [`gemv_batched`], [`gemm_tiled`], [`gemm_bf16_wgmma`],
//! [`shared_helper`] and [`pipeline_sum`]; `common` holds the input values several share.
//! [`contract`] holds every PTX entry's launch contract, from its doc comment, which each
//! launch is checked against before the driver sees it.
//! A family's kernels take one kind of shape, as a type, so a case that pairs a kernel with
//! another kind does not compile; [`Kernel`] reaches its family through one `match`
//! (`Kernel::family`), and the functions here dispatch through it.
//!
//! Everything here is host-side and GPU-free, so CI exercises it; `gpu.rs` only moves the
//! buffers this module describes and launches.

use std::fmt;

use family::Catalogued;

pub mod block_reduce;
mod common;
pub mod contract;
pub mod elementwise;
pub mod family;
pub mod gemm_bf16_wgmma;
pub mod gemm_tiled;
pub mod gemv;
pub mod gemv_batched;
pub mod pipeline_sum;
pub mod rows;
pub mod shared_helper;

use crate::compare::Tolerance;
pub use family::{Family, Param, WgmmaVariant};
pub use gemv_batched::{
    GEMV_BATCHED_ROWS_PER_WARP, GEMV_BATCHED_SPLIT_ENTRIES, GEMV_BATCHED_WIDTHS, gemv_batched_entry,
    gemv_batched_segment_lanes, gemv_batched_split_entry, gemv_batched_split_launch,
};
pub use rows::{RMS_NORM_HELD_WEIGHT, RMS_NORM_HELD_WEIGHT_MAX_BLOCK, ROW_PATTERNS, RowPattern};

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
    GemvF16Batched,
    GemmTiled,
    GemmBf16Wgmma,
    GemmBf16WgmmaBias,
    GemmBf16WgmmaBf16,
    GemmBf16WgmmaBiasBf16,
    GemmBf16WgmmaWide,
    GemmBf16WgmmaWideBias,
    GemmBf16WgmmaWideBf16,
    GemmBf16WgmmaWideBiasBf16,
    GemmBf16DecodeBf16,
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
    pub const ALL: [Kernel; 21] = [
        Kernel::VectorAdd,
        Kernel::Saxpy,
        Kernel::SiluMul,
        Kernel::BlockReduceSum,
        Kernel::RmsNorm,
        Kernel::SoftmaxRows,
        Kernel::GemvF16,
        Kernel::GemvF16Batched,
        Kernel::GemmTiled,
        Kernel::GemmBf16Wgmma,
        Kernel::GemmBf16WgmmaBias,
        Kernel::GemmBf16WgmmaBf16,
        Kernel::GemmBf16WgmmaBiasBf16,
        Kernel::GemmBf16WgmmaWide,
        Kernel::GemmBf16WgmmaWideBias,
        Kernel::GemmBf16WgmmaWideBf16,
        Kernel::GemmBf16WgmmaWideBiasBf16,
        Kernel::GemmBf16DecodeBf16,
        Kernel::SharedHelperLocal,
        Kernel::SharedHelperCrossCrate,
        Kernel::PipelineSum,
    ];

    /// The kernel as a member of its family: the one place a kernel is matched.
    fn family(self) -> &'static dyn Catalogued {
        use {
            block_reduce::BlockReduce, elementwise::Elementwise, gemm_bf16_wgmma::GemmBf16Wgmma,
            gemm_tiled::GemmTiled, gemv::Gemv, gemv_batched::GemvBatched, pipeline_sum::PipelineSum,
            rows::Rows, shared_helper::SharedHelper,
        };
        match self {
            Kernel::VectorAdd => &Elementwise::VectorAdd,
            Kernel::Saxpy => &Elementwise::Saxpy,
            Kernel::SiluMul => &Elementwise::SiluMul,
            Kernel::BlockReduceSum => &BlockReduce::BlockReduceSum,
            Kernel::RmsNorm => &Rows::RmsNorm,
            Kernel::SoftmaxRows => &Rows::SoftmaxRows,
            Kernel::GemvF16 => &Gemv::GemvF16,
            Kernel::GemvF16Batched => &GemvBatched::GemvF16Batched,
            Kernel::GemmTiled => &GemmTiled::GemmTiled,
            Kernel::GemmBf16Wgmma => &GemmBf16Wgmma::PLAIN,
            Kernel::GemmBf16WgmmaBias => &GemmBf16Wgmma::BIAS,
            Kernel::GemmBf16WgmmaBf16 => &GemmBf16Wgmma::BF16,
            Kernel::GemmBf16WgmmaBiasBf16 => &GemmBf16Wgmma::BIAS_BF16,
            Kernel::GemmBf16WgmmaWide => &GemmBf16Wgmma::WIDE,
            Kernel::GemmBf16WgmmaWideBias => &GemmBf16Wgmma::WIDE_BIAS,
            Kernel::GemmBf16WgmmaWideBf16 => &GemmBf16Wgmma::WIDE_BF16,
            Kernel::GemmBf16WgmmaWideBiasBf16 => &GemmBf16Wgmma::WIDE_BIAS_BF16,
            Kernel::GemmBf16DecodeBf16 => &GemmBf16Wgmma::DECODE_BF16,
            Kernel::SharedHelperLocal => &SharedHelper::Local,
            Kernel::SharedHelperCrossCrate => &SharedHelper::CrossCrate,
            Kernel::PipelineSum => &PipelineSum::PipelineSum,
        }
    }

    /// The entry's name in the PTX (the kernels are `#[no_mangle]`).
    pub fn entry(self) -> &'static str {
        self.family().entry()
    }

    /// Every PTX entry the kernel's cases launch: its own, for `gemv_f16_batched` the
    /// narrower widths a case picks by its batch, for `rms_norm` the held-weight entry of
    /// cluster launches ([`Case::entry`]).
    pub fn entries(self) -> Vec<&'static str> {
        self.family().entries()
    }

    pub fn from_entry(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.entry() == name)
    }

    /// The targets on the large shapes, as fractions of the copy bandwidth measured in
    /// the same run.
    pub fn roofline(self) -> Roofline {
        self.family().roofline()
    }

    /// The largest ours/PyTorch time ratio the issue allows on the large shape, where it sets
    /// one: rms_norm and softmax_rows at least 1.25× PyTorch's speed, silu_mul as fast.
    pub fn peer_ratio_target(self) -> Option<f64> {
        self.family().peer_ratio_target()
    }

    /// For the entries of the wgmma GEMM (`gemm_bf16_wgmma` and its epilogues): its
    /// [`WgmmaVariant`].
    pub fn wgmma_variant(self) -> Option<WgmmaVariant> {
        self.family().wgmma_variant()
    }

    /// The least fraction of the peer's speed (peer time over ours) the issue asks for on the
    /// timing shape `dims`: 0.6× cuBLAS (through `torch.matmul`) for the wgmma GEMM at 4096³
    /// and 8192³ (issue 14; it sets none at the other GEMM shapes).
    pub fn peer_speed_target_on(self, dims: &[usize]) -> Option<f64> {
        self.family().peer_speed_target_on(dims)
    }

    /// The target on the decode shape `dims` (few long rows), where it sets one: 70 % of
    /// the copy bandwidth at 4 × 32,768 for rms_norm and softmax_rows.
    pub fn decode_target(self, dims: &[usize]) -> Option<f64> {
        self.family().decode_target(dims)
    }

    /// Whether the kernel writes its output over its last float input (SAXPY's `y`) instead of
    /// into an output buffer of its own.
    pub fn writes_in_place(self) -> bool {
        self.family().writes_in_place()
    }

    /// The entry's parameters for a case of `shape`, in order ([`Param`]).
    pub fn params(self, shape: Shape) -> Vec<Param> {
        self.family().params(shape)
    }

    /// Whether PyTorch has a counterpart (the shared-memory helper stencils have none).
    pub fn has_peer(self) -> bool {
        self.family().has_peer()
    }

    /// The dimensions the peer is asked for, given a shape's [`Shape::dims`].
    pub fn peer_dims(self, dims: &[usize]) -> Vec<usize> {
        self.family().peer_dims(dims)
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.entry())
    }
}

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
    /// `batch` activation rows of `cols` floats against one `rows × cols` weight matrix.
    Batched { batch: usize, rows: usize, cols: usize },
}

impl Shape {
    /// The shape's dimensions: `[n]`, `[rows, cols]`, `[m, n, k]`, `[tiles]` or
    /// `[batch, rows, cols]`.
    pub fn dims(&self) -> Vec<usize> {
        match *self {
            Shape::Elements(n) | Shape::Tiles(n) => vec![n],
            Shape::Matrix { rows, cols } => vec![rows, cols],
            Shape::Gemm { m, n, k } => vec![m, n, k],
            Shape::Batched { batch, rows, cols } => vec![batch, rows, cols],
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
            Shape::Batched { batch, rows, cols } => write!(f, "{batch} × {rows}×{cols}"),
        }
    }
}

/// Grid, block and dynamic shared memory of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    pub grid: (u32, u32),
    pub block: (u32, u32),
    pub shared_bytes: u32,
    /// Blocks per cluster along x (a launch attribute; 1: no clusters). The grid's x is a
    /// multiple of it.
    pub cluster: u32,
    /// `gemv_f16_batched` only: the `_split` entries' contract, a block per group of weight
    /// rows whose warps split the columns ([`gemv_batched_split_launch`]).
    pub column_split: bool,
}

impl Launch {
    fn linear(grid: usize, block: u32, shared_bytes: u32) -> Launch {
        let grid = u32::try_from(grid.max(1)).expect("grid fits in u32");
        Launch { grid: (grid, 1), block: (block, 1), shared_bytes, cluster: 1, column_split: false }
    }
}

/// 32-bit registers of one multiprocessor of the H200 (and every sm_90 part), which is also
/// the most one block may use.
pub const REGISTERS_PER_BLOCK: u32 = 65536;

impl Launch {
    /// Whether a kernel using `registers` per thread (as `ptxas -v` reports them) can launch
    /// with this block: the hardware allocates registers per thread in steps of 8, and a block
    /// whose threads need more than [`REGISTERS_PER_BLOCK`] is refused ("too many resources
    /// requested for launch").
    pub fn fits_registers(&self, registers: u32) -> bool {
        let threads = self.block.0 * self.block.1;
        registers.next_multiple_of(8) * threads <= REGISTERS_PER_BLOCK
    }
}

impl fmt::Display for Launch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims = |(x, y): (u32, u32)| if y == 1 { x.to_string() } else { format!("{x}×{y}") };
        write!(f, "<<<{}, {}", dims(self.grid), dims(self.block))?;
        if self.shared_bytes > 0 {
            write!(f, ", {}", self.shared_bytes)?;
        }
        if self.cluster > 1 {
            write!(f, ", cluster {}", self.cluster)?;
        }
        if self.column_split {
            write!(f, ", split")?;
        }
        write!(f, ">>>")
    }
}

/// What a case's inputs hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Values {
    /// Uniform random values in the kernel's ordinary range (never zero).
    Random,
    /// Random values with the special ones a model produces planted among them: `-inf` masks
    /// (one position, strided, a prefix, a whole row, all but one), `+inf`, NaN, values near
    /// `f32::MAX` (whose squares overflow), subnormals, `-0.0`; inf and NaN half weights for
    /// GEMV. [`ROW_PATTERNS`] says which row of a row-wise case holds which.
    Special,
}

/// One launch of one kernel on one shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Case {
    pub kernel: Kernel,
    pub shape: Shape,
    pub launch: Launch,
    pub values: Values,
    /// Elements by which every buffer pointer is moved past its allocation's (256-byte aligned)
    /// start: 1 makes the pointers misaligned for 16-byte vector loads, which every kernel's
    /// contract allows (the vectorised paths check alignment and fall back).
    pub offset: usize,
}

impl Case {
    /// An ordinary case: random values, aligned buffers.
    pub fn new(kernel: Kernel, shape: Shape, launch: Launch) -> Case {
        Case { kernel, shape, launch, values: Values::Random, offset: 0 }
    }

    /// The PTX entry the case launches: the kernel's; for `gemv_f16_batched` the narrowest
    /// width that holds the batch ([`gemv_batched_entry`]); for `rms_norm` split across
    /// clusters in blocks of at most [`RMS_NORM_HELD_WEIGHT_MAX_BLOCK`] threads, the entry that
    /// holds the weight in registers.
    pub fn entry(&self) -> &'static str {
        self.kernel.family().case_entry(self.shape, &self.launch)
    }

    /// How the table names the case's shape: the shape, and what is special about its inputs.
    pub fn label(&self) -> String {
        let mut label = self.shape.to_string();
        if self.values == Values::Special {
            label.push_str(" special");
        }
        if self.offset > 0 {
            label.push_str(&format!(" +{}", self.offset));
        }
        label
    }

    /// How the JSON documents name the case: its kernel, label and launch.
    pub fn id(&self) -> CaseId {
        CaseId {
            kernel: self.kernel.entry().to_owned(),
            shape: self.label(),
            launch: self.launch.to_string(),
        }
    }
}

/// Which case a record of a run is about: its kernel's entry, its shape's label and the launch
/// it ran with. Flattened into the records, so their JSON fields stay `kernel`, `shape`, `launch`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CaseId {
    pub kernel: String,
    pub shape: String,
    pub launch: String,
}

impl CaseId {
    /// Both name the same kernel and shape (any launch).
    pub fn same_shape(&self, other: &CaseId) -> bool {
        self.kernel == other.kernel && self.shape == other.shape
    }
}

/// The launch each kernel's contract asks for, with `block` threads per block where the
/// contract leaves it open and `grid` blocks where any grid works (`None`: one block per unit
/// of work: element, row, tile). A shape of another kind than the kernel's family takes is
/// refused by name (the families' own cases cannot make one).
pub fn launch_for(kernel: Kernel, shape: Shape, block: u32, grid: Option<usize>) -> Launch {
    kernel.family().launch(shape, block, grid)
}

/// The dynamic shared memory a kernel's launches may ask beyond the default 48 KiB, which the
/// runner raises its function's limit to before any launch.
pub fn dynamic_shared_limit(kernel: Kernel) -> Option<u32> {
    kernel.family().dynamic_shared_limit()
}

/// Whether `kernel` can split its rows across the blocks of a cluster (`rms_norm`,
/// `softmax_rows`, in clusters of up to 16 blocks: more than 8 needs the function's opt-in,
/// which the GPU side gives them).
pub fn splits_rows_across_clusters(kernel: Kernel) -> bool {
    kernel.family().splits_rows_across_clusters()
}

/// The correctness cases of a kernel: sizes that are not multiples of the block, empty and
/// one-element inputs, rows longer than a block, grids smaller than the work (grid-stride
/// loops) and larger than it, then its special-value cases. `sms` is the device's
/// multiprocessor count.
pub fn correctness_cases(kernel: Kernel, sms: usize) -> Vec<Case> {
    let mut cases = kernel.family().correctness_cases(sms);
    cases.extend(special_cases(kernel));
    cases
}

/// Every kernel's correctness cases for `sms` multiprocessors, in catalogue order, each with its
/// inputs (drawn from `rng` in that order) and its expected output: what the tests hold the
/// catalogue and the emulated kernels to.
pub fn checked_correctness_cases(
    sms: usize,
    rng: &mut fastrand::Rng,
) -> impl Iterator<Item = (Case, Inputs, Expected)> + '_ {
    Kernel::ALL.into_iter().flat_map(move |kernel| correctness_cases(kernel, sms)).map(move |case| {
        let data = inputs(&case, rng);
        let expected = expected(&case, &data);
        (case, data, expected)
    })
}

/// The special-value cases of a kernel (see [`Values::Special`]): its fast and its fallback
/// paths, and misaligned pointers where the contract allows them. The runner also compares
/// these with PyTorch's outputs on the same inputs.
pub fn special_cases(kernel: Kernel) -> Vec<Case> {
    kernel.family().special_cases()
}

/// Cases a row kernel runs as a chain of two launches, the second reading the first's output
/// (`Gpu::run_chained`), with programmatic dependent launch and without: the two must give the
/// same bits ([`rows`]). None for the other kernels.
pub fn chained_cases(kernel: Kernel) -> Vec<Case> {
    kernel.family().chained_cases()
}

/// Decode shapes: few rows, as a model generating one token at a time sees them, timed over
/// graphs of [`crate::timing::DECODE_LAUNCHES`] launches ([`rows`]). None for the other
/// kernels.
pub fn decode_cases(kernel: Kernel) -> Vec<Case> {
    kernel.family().decode_cases()
}

/// The large shape a kernel is timed on, and the launches tried on it (the table reports the
/// fastest). Shapes are several times the H200's 60 MB L2, so the timings measure memory.
pub fn timing_cases(kernel: Kernel, sms: usize) -> Vec<Case> {
    kernel.family().timing_cases(sms)
}

/// Bytes a kernel must move through device memory at the least (each input read once, each
/// output written once) and the floating-point operations it must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Work {
    pub bytes: u64,
    pub flops: u64,
}

impl Work {
    fn of(bytes: usize, flops: usize) -> Work {
        Work { bytes: bytes as u64, flops: flops as u64 }
    }
}

pub fn work(kernel: Kernel, shape: Shape) -> Work {
    kernel.family().work(shape)
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

impl Inputs {
    /// Float inputs only.
    fn plain(floats: Vec<Vec<f32>>) -> Inputs {
        Inputs { floats, halves: None, scalar: 0.0 }
    }
}

/// The inputs of a case: random ([`random_inputs`]), with special values planted where the
/// case asks for them ([`plant_specials`]).
pub fn inputs(case: &Case, rng: &mut fastrand::Rng) -> Inputs {
    let mut inputs = random_inputs(case.kernel, case.shape, rng);
    if case.values == Values::Special {
        plant_specials(case, &mut inputs, rng);
    }
    inputs
}

/// Random inputs for a case (never zeros: they hide unwritten outputs and wrong indexing).
/// Sums take inputs in `[0, 1)`, so that their error bound is relative to the sum itself.
pub fn random_inputs(kernel: Kernel, shape: Shape, rng: &mut fastrand::Rng) -> Inputs {
    kernel.family().random_inputs(shape, rng)
}

/// Plants the special values of a [`Values::Special`] case into random `inputs`. Where a
/// kernel sums, the planting follows the launch, so that some partial sums meet one special
/// value each (NaN, `+inf`, an overflow of two near-`MAX` terms, `inf - inf`, subnormals)
/// and the others stay finite.
pub fn plant_specials(case: &Case, inputs: &mut Inputs, rng: &mut fastrand::Rng) {
    case.kernel.family().plant_specials(case, inputs, rng)
}

/// What a case must produce, and how closely.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    pub values: Vec<f32>,
    pub tolerance: Tolerance,
    /// For [`Tolerance::SumBound`]: per element, the sum of its terms' absolute values.
    pub magnitudes: Option<Vec<f32>>,
}

impl Expected {
    /// Bitwise equal to `values`.
    fn exact(values: Vec<f32>) -> Expected {
        Expected { values, tolerance: Tolerance::Exact, magnitudes: None }
    }

    /// Within `rel` of `values`, relatively. Below the normal range the approximate
    /// `ex2`/`rcp`/`rsqrt` and the reference's rounding may differ by more than a relative
    /// bound allows; there the bound is absolute, 2^-126.
    fn relative(values: Vec<f32>, rel: f64) -> Expected {
        Expected {
            values,
            tolerance: Tolerance::Relative { rel, abs: f64::from(f32::MIN_POSITIVE) },
            magnitudes: None,
        }
    }
}

/// The number of output elements a case writes.
pub fn output_len(case: &Case) -> usize {
    case.kernel.family().output_len(case)
}

/// The reference output of a case and the tolerance it is held to.
///
/// Each family's [`Family::expected`] says why its tolerance is what it is: exact where the
/// kernel does the reference's IEEE operations in the same order (`vector_add`, `saxpy`, the
/// shared-memory helpers); relative where `ex2`/`rsqrt`/`rcp.approx` enter (`silu_mul`,
/// `rms_norm`, `softmax_rows`); for sums (`block_reduce_sum`, `pipeline_sum`, `gemv_f16`,
/// `gemv_f16_batched`, the GEMMs) the recursive summation bound over the longest chain of
/// `f32` additions in the kernel's launch.
///
/// Special values are held to the same tolerance: NaN only where the reference is NaN, an
/// infinity only where the reference has the same infinity (see [`crate::compare`]).
pub fn expected(case: &Case, inputs: &Inputs) -> Expected {
    case.kernel.family().expected(case, inputs)
}

/// For a GEMM case too large to check in full ([`cheap_to_check`]): the reference at
/// `samples` elements of C (its four corners among them, the rest drawn from `rng`), as the
/// indices into C and their [`Expected`] values, tolerance and magnitudes. `None` for other
/// kernels.
pub fn sampled_expected(
    case: &Case,
    inputs: &Inputs,
    samples: usize,
    rng: &mut fastrand::Rng,
) -> Option<(Vec<usize>, Expected)> {
    case.kernel.family().sampled_expected(case, inputs, samples, rng)
}

/// Whether checking a case's output on the host is cheap enough to do after timing it (the
/// 4096³ GEMM's reference is 69 G multiply-adds in `f64`; its smaller cases are checked).
pub fn cheap_to_check(case: &Case) -> bool {
    match case.shape {
        Shape::Gemm { m, n, k } => m * n * k <= 1 << 27,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_the_member_of_its_family_that_names_it() {
        for kernel in Kernel::ALL {
            assert_eq!(kernel.family().kernel(), kernel);
        }
    }
}
