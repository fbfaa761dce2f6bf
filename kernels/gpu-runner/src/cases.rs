//! The catalogue: every kernel entry, its launch contract, the shapes it is checked and timed
//! on, its inputs, its expected output (from `kernels-reference`) and its tolerance.
//!
//! Everything here is host-side and GPU-free, so CI exercises it; `gpu.rs` only moves the
//! buffers this module describes and launches.

use std::fmt;

use half::{bf16, f16};

use crate::compare::Tolerance;
use crate::gemm_wgmma::{self, GemmShape};

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
    pub const ALL: [Kernel; 16] = [
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
            Kernel::GemvF16Batched => "gemv_f16_batched",
            Kernel::GemmTiled => "gemm_tiled",
            Kernel::GemmBf16Wgmma => "gemm_bf16_wgmma",
            Kernel::GemmBf16WgmmaBias => "gemm_bf16_wgmma_bias",
            Kernel::GemmBf16WgmmaBf16 => "gemm_bf16_wgmma_bf16",
            Kernel::GemmBf16WgmmaBiasBf16 => "gemm_bf16_wgmma_bias_bf16",
            Kernel::SharedHelperLocal => "shared_memory_helper_local",
            Kernel::SharedHelperCrossCrate => "shared_memory_helper_cross_crate",
            Kernel::PipelineSum => "pipeline_sum",
        }
    }

    /// Every PTX entry the kernel's cases launch: its own, for `gemv_f16_batched` the
    /// narrower widths a case picks by its batch, for `rms_norm` the held-weight entry of
    /// cluster launches ([`Case::entry`]).
    pub fn entries(self) -> Vec<&'static str> {
        match self {
            Kernel::GemvF16Batched => GEMV_BATCHED_WIDTHS
                .iter()
                .map(|(_, entry, _)| *entry)
                .chain(GEMV_BATCHED_SPLIT_ENTRIES.iter().map(|(_, entry)| *entry))
                .collect(),
            Kernel::RmsNorm => vec![self.entry(), RMS_NORM_HELD_WEIGHT],
            _ => vec![self.entry()],
        }
    }

    pub fn from_entry(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.entry() == name)
    }

    /// The targets on the large shapes, as fractions of the copy bandwidth measured in
    /// the same run.
    pub fn roofline(self) -> Roofline {
        match self {
            Kernel::VectorAdd | Kernel::Saxpy | Kernel::SiluMul => Roofline::Bandwidth { target: Some(0.96) },
            Kernel::GemvF16 => Roofline::Bandwidth { target: Some(0.88) },
            Kernel::RmsNorm | Kernel::SoftmaxRows => Roofline::Bandwidth { target: Some(0.90) },
            Kernel::BlockReduceSum | Kernel::PipelineSum => Roofline::Bandwidth { target: Some(0.70) },
            // The issue sets no figure for a batch; the table shows it beside one row's.
            Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate | Kernel::GemvF16Batched => {
                Roofline::Bandwidth { target: None }
            }
            Kernel::GemmTiled
            | Kernel::GemmBf16Wgmma
            | Kernel::GemmBf16WgmmaBias
            | Kernel::GemmBf16WgmmaBf16
            | Kernel::GemmBf16WgmmaBiasBf16 => Roofline::Arithmetic,
        }
    }

    /// The largest ours/PyTorch time ratio the issue allows on the large shape, where it sets
    /// one: rms_norm and softmax_rows at least 1.25× PyTorch's speed, silu_mul as fast.
    pub fn peer_ratio_target(self) -> Option<f64> {
        match self {
            Kernel::RmsNorm | Kernel::SoftmaxRows => Some(1.0 / 1.25),
            Kernel::SiluMul => Some(1.0),
            _ => None,
        }
    }

    /// For the entries of the wgmma GEMM (`gemm_bf16_wgmma` and its epilogues): its
    /// [`WgmmaEpilogue`].
    pub fn wgmma_epilogue(self) -> Option<WgmmaEpilogue> {
        let (bias, bf16_output) = match self {
            Kernel::GemmBf16Wgmma => (false, false),
            Kernel::GemmBf16WgmmaBias => (true, false),
            Kernel::GemmBf16WgmmaBf16 => (false, true),
            Kernel::GemmBf16WgmmaBiasBf16 => (true, true),
            _ => return None,
        };
        Some(WgmmaEpilogue { bias, bf16_output })
    }

    /// The least fraction of the peer's speed (peer time over ours) the issue asks for on the
    /// timing shape `dims`: 0.6× cuBLAS (through `torch.matmul`) for the wgmma GEMM at 4096³
    /// and 8192³ (issue 14; it sets none at the other GEMM shapes).
    pub fn peer_speed_target_on(self, dims: &[usize]) -> Option<f64> {
        let square = matches!(dims, [4096, 4096, 4096] | [8192, 8192, 8192]);
        (self == Kernel::GemmBf16Wgmma && square).then_some(0.6)
    }

    /// The target on the decode shape `dims` (few long rows), where it sets one: 70 % of
    /// the copy bandwidth at 4 × 32,768 for rms_norm and softmax_rows.
    pub fn decode_target(self, dims: &[usize]) -> Option<f64> {
        let row_kernel = matches!(self, Kernel::RmsNorm | Kernel::SoftmaxRows);
        (row_kernel && dims == [4, 32768]).then_some(0.70)
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.entry())
    }
}

/// What a wgmma GEMM entry does after the product: add an f32 bias per column of C, store C
/// as bf16 (rounded to nearest even) rather than f32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgmmaEpilogue {
    pub bias: bool,
    pub bf16_output: bool,
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

/// What row `r` of a special-value case of `rms_norm` or `softmax_rows` holds:
/// `ROW_PATTERNS[r % ROW_PATTERNS.len()]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowPattern {
    Ordinary,
    /// One `-inf` at a random column.
    MaskOne,
    /// `-inf` at every third column.
    MaskStrided,
    /// `-inf` in the first half of the row (causal-mask style), at least one column.
    MaskPrefix,
    /// Every column `-inf`: softmax gives NaN for the whole row, as PyTorch does.
    MaskAll,
    /// Every column but one `-inf`.
    MaskAllButOne,
    /// One `+inf`.
    PositiveInfinity,
    /// One NaN.
    Nan,
    /// Magnitudes near `f32::MAX`: squares and differences overflow.
    NearMax,
    /// Subnormal magnitudes only.
    Subnormal,
}

/// The row patterns of a special-value case, in row order (repeating).
pub const ROW_PATTERNS: [RowPattern; 10] = [
    RowPattern::Ordinary,
    RowPattern::MaskOne,
    RowPattern::MaskStrided,
    RowPattern::MaskPrefix,
    RowPattern::MaskAll,
    RowPattern::MaskAllButOne,
    RowPattern::PositiveInfinity,
    RowPattern::Nan,
    RowPattern::NearMax,
    RowPattern::Subnormal,
];

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
        match (self.kernel, self.shape) {
            (Kernel::GemvF16Batched, Shape::Batched { batch, .. }) if self.launch.column_split => {
                gemv_batched_split_entry(batch)
            }
            (Kernel::GemvF16Batched, Shape::Batched { batch, .. }) => gemv_batched_entry(batch),
            (Kernel::RmsNorm, _)
                if self.launch.cluster > 1 && self.launch.block.0 <= RMS_NORM_HELD_WEIGHT_MAX_BLOCK =>
            {
                RMS_NORM_HELD_WEIGHT
            }
            _ => self.kernel.entry(),
        }
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
        (Kernel::GemvF16, Shape::Matrix { rows, .. }) => Launch::linear(grid.unwrap_or(rows), block, 128),
        (Kernel::GemvF16Batched, Shape::Batched { rows, .. }) => {
            // A warp per group of weight rows: the grid that gives each warp one group.
            let groups = rows.div_ceil(GEMV_BATCHED_ROWS_PER_WARP);
            Launch::linear(grid.unwrap_or(groups.div_ceil(block as usize / 32).max(1)), block, 0)
        }
        (Kernel::GemmTiled, Shape::Gemm { m, n, .. }) => {
            let tiles = |len: usize| u32::try_from(len.div_ceil(16).max(1)).expect("grid fits in u32");
            Launch {
                grid: (tiles(n), tiles(m)),
                block: (16, 16),
                shared_bytes: 2048,
                cluster: 1,
                column_split: false,
            }
        }
        (
            Kernel::GemmBf16Wgmma
            | Kernel::GemmBf16WgmmaBias
            | Kernel::GemmBf16WgmmaBf16
            | Kernel::GemmBf16WgmmaBiasBf16,
            Shape::Gemm { m, n, .. },
        ) => {
            let grid = GemmShape::new(m, n, 1).grid();
            Launch {
                grid,
                block: (gemm_wgmma::BLOCK_THREADS, 1),
                shared_bytes: gemm_wgmma::SHARED_BYTES,
                cluster: 1,
                column_split: false,
            }
        }
        (Kernel::PipelineSum, Shape::Tiles(tiles)) => {
            Launch::linear(grid.unwrap_or(tiles), 160, 4 * 4096 + 64 + 128)
        }
        (kernel, shape) => panic!("{kernel} takes no {shape:?}: the catalogue pairs them wrongly"),
    }
}

/// The dynamic shared memory a kernel's launches may ask beyond the default 48 KiB, which the
/// runner raises its function's limit to before any launch.
pub fn dynamic_shared_limit(kernel: Kernel) -> Option<u32> {
    kernel.wgmma_epilogue().map(|_| gemm_wgmma::SHARED_BYTES)
}

/// Weight rows a warp of `gemv_f16_batched` takes at once (`kernels/src/gemv.rs`).
pub const GEMV_BATCHED_ROWS_PER_WARP: usize = 8;

/// The entries of `gemv_f16_batched` (`kernels/src/gemv.rs`), narrowest first: the activation
/// rows each takes per pass, its name, and the lanes of a warp that share one activation row
/// and sum it together. A host launches the first whose width holds its batch.
pub const GEMV_BATCHED_WIDTHS: [(usize, &str, usize); 5] = [
    (1, "gemv_f16_batched_1", 32),
    (2, "gemv_f16_batched_2", 16),
    (4, "gemv_f16_batched_4", 32),
    (8, "gemv_f16_batched_8", 32),
    (16, "gemv_f16_batched", 16),
];

/// The [`GEMV_BATCHED_WIDTHS`] row for `batch` activation rows: the narrowest width that holds
/// it, the 16-wide entry (in passes) beyond 16; an empty batch takes the narrowest.
fn gemv_batched_width(batch: usize) -> (usize, &'static str, usize) {
    narrowest_holding(&GEMV_BATCHED_WIDTHS, |(width, ..)| *width, batch)
}

/// The first row of `table` (narrowest first) whose `width` holds `batch`, the last (the
/// widest, run in passes) when none does.
fn narrowest_holding<T: Copy>(table: &[T], width: impl Fn(&T) -> usize, batch: usize) -> T {
    let widest = table[table.len() - 1];
    *table.iter().find(|row| batch <= width(row)).unwrap_or(&widest)
}

/// The entry of `gemv_f16_batched` that a batch of `batch` activation rows launches.
pub fn gemv_batched_entry(batch: usize) -> &'static str {
    gemv_batched_width(batch).1
}

/// The entries of `gemv_f16_batched` that split each group's columns across the warps of a
/// block (`kernels/src/gemv.rs`), narrowest first, with their activation rows per pass: for
/// wide matrices, where a warp per group leaves too few warps.
pub const GEMV_BATCHED_SPLIT_ENTRIES: [(usize, &str); 3] =
    [(1, "gemv_f16_batched_1_split"), (2, "gemv_f16_batched_2_split"), (4, "gemv_f16_batched_4_split")];

/// The split entry ([`GEMV_BATCHED_SPLIT_ENTRIES`]) for a batch: the narrowest that holds it,
/// the widest (in passes) beyond; and its width.
fn gemv_batched_split_width(batch: usize) -> (usize, &'static str) {
    narrowest_holding(&GEMV_BATCHED_SPLIT_ENTRIES, |(width, _)| *width, batch)
}

/// The split entry of `gemv_f16_batched` that a batch of `batch` activation rows launches.
pub fn gemv_batched_split_entry(batch: usize) -> &'static str {
    gemv_batched_split_width(batch).1
}

/// A launch of `gemv_f16_batched`'s split entries on `shape`: a block of `block` threads per
/// group of 8 weight rows (or `grid` blocks striding over the groups), its warps' partial sums
/// meeting in `4 · warps · 8 · width` bytes of shared memory (none for one warp).
pub fn gemv_batched_split_launch(shape: Shape, block: u32, grid: Option<usize>) -> Launch {
    let Shape::Batched { batch, rows, .. } = shape else {
        panic!("gemv_f16_batched takes a batch, not {shape:?}")
    };
    let warps = block as usize / 32;
    let width = gemv_batched_split_width(batch).0;
    let shared = if warps > 1 { 4 * warps * GEMV_BATCHED_ROWS_PER_WARP * width } else { 0 };
    let groups = rows.div_ceil(GEMV_BATCHED_ROWS_PER_WARP);
    Launch {
        column_split: true,
        ..Launch::linear(grid.unwrap_or(groups), block, u32::try_from(shared).expect("a few KiB"))
    }
}

/// The lanes that share one activation row in the entry [`gemv_batched_entry`] picks.
pub fn gemv_batched_segment_lanes(batch: usize) -> usize {
    gemv_batched_width(batch).2
}

/// `rms_norm`'s entry for rows split across clusters: the block's share of the weight held in
/// registers, loaded with the row instead of after its reduction (`kernels/src/rms_norm.rs`).
pub const RMS_NORM_HELD_WEIGHT: &str = "rms_norm_held_weight";

/// The largest block [`RMS_NORM_HELD_WEIGHT`]'s contract allows: its registers do not fit a
/// block of 1024 threads.
pub const RMS_NORM_HELD_WEIGHT_MAX_BLOCK: u32 = 512;

/// Dynamic shared memory of `rms_norm` and `softmax_rows` launched in clusters: the block
/// reduction's 32 floats, then the slots through which the cluster's blocks exchange their
/// partial results (`device::cluster::ClusterExchange`, two sets of a slot per block of up to
/// 16): a float per slot for `rms_norm`'s sum (256 bytes in all), a (maximum, sum) pair for
/// `softmax_rows` (384 bytes).
pub fn row_cluster_shared_bytes(kernel: Kernel) -> u32 {
    let slot_floats = if kernel == Kernel::SoftmaxRows { 2 } else { 1 };
    4 * (32 + slot_floats * 2 * 16)
}

/// Whether `kernel` can split its rows across the blocks of a cluster (`rms_norm`,
/// `softmax_rows`, in clusters of up to 16 blocks: more than 8 needs the function's opt-in,
/// which the GPU side gives them).
pub fn splits_rows_across_clusters(kernel: Kernel) -> bool {
    matches!(kernel, Kernel::RmsNorm | Kernel::SoftmaxRows)
}

/// A row kernel (`rms_norm`, `softmax_rows`) launched in clusters of `cluster` blocks, each
/// cluster splitting a row: a cluster per row, or `clusters` clusters striding over the rows.
pub fn cluster_launch(
    kernel: Kernel,
    shape: Shape,
    block: u32,
    cluster: u32,
    clusters: Option<usize>,
) -> Launch {
    let (true, Shape::Matrix { rows, .. }) = (splits_rows_across_clusters(kernel), shape) else {
        panic!("{kernel} on {shape:?} is not a row kernel that can split rows across a cluster")
    };
    let clusters = clusters.unwrap_or(rows).max(1);
    let shared_bytes = row_cluster_shared_bytes(kernel);
    Launch { cluster, ..Launch::linear(clusters * cluster as usize, block, shared_bytes) }
}

/// The correctness cases of a kernel: sizes that are not multiples of the block, empty and
/// one-element inputs, rows longer than a block, grids smaller than the work (grid-stride
/// loops) and larger than it. `sms` is the device's multiprocessor count.
pub fn correctness_cases(kernel: Kernel, sms: usize) -> Vec<Case> {
    let case = |shape, launch| Case::new(kernel, shape, launch);
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
            // Rows split across clusters: segments on the one-read path, on the two-read path
            // (longer than 16 floats per thread), of mixed paths (`cols` not a multiple of 4),
            // empty segments (fewer columns than blocks), clusters striding over rows.
            for (rows, cols, block, cluster, clusters) in [
                (1, 1, 32, 2, None),
                (2, 5, 32, 8, None),
                (3, 100, 64, 2, None),
                (7, 4099, 256, 4, None),
                (5, 32768, 256, 8, None),
                (4, 32768, 128, 4, None),
                (3, 32768, 128, 16, None),
                (2, 100, 32, 16, None),
                (64, 2048, 128, 2, Some(8)),
            ] {
                let shape = Shape::Matrix { rows, cols };
                cases.push(case(shape, cluster_launch(kernel, shape, block, cluster, clusters)));
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
        Kernel::GemvF16Batched => {
            // No activations; one; every entry's width (1, 2, 4, 8, 16), full and partly used,
            // on the 16-byte and the one-weight path, with rows that leave a group partly
            // filled; 17 (two passes of the widest entry's 16); a grid smaller than the groups.
            for (batch, rows, cols, grid) in [
                (0, 5, 8, None),
                (1, 1, 1, None),
                (1, 5, 13, None),
                (1, 9, 4096, None),
                (2, 5, 13, None),
                (2, 9, 4096, None),
                (4, 6, 999, None),
                (3, 33, 4096, None),
                (5, 17, 1000, None),
                (8, 20, 999, None),
                (12, 13, 4104, None),
                (16, 17, 1001, None),
                (16, 7, 4096, None),
                (17, 9, 4096, None),
                (4, 1000, 4104, Some(7)),
                (16, 1000, 4096, Some(3)),
            ] {
                let shape = Shape::Batched { batch, rows, cols };
                cases.push(case(shape, launch_for(kernel, shape, 256, grid)));
            }
            // The split entries: each width full and partly used, both paths, one warp (no
            // shared memory), two to eight, a grid smaller than the groups, a batch in passes.
            for (batch, rows, cols, block, grid) in [
                (1, 9, 4096, 128, None),
                (1, 5, 13, 64, None),
                (2, 17, 1001, 256, None),
                (2, 9, 4096, 32, None),
                (3, 33, 4104, 128, None),
                (4, 6, 999, 64, None),
                (4, 1000, 4096, 256, Some(7)),
                (7, 20, 4096, 128, None),
            ] {
                let shape = Shape::Batched { batch, rows, cols };
                cases.push(case(shape, gemv_batched_split_launch(shape, block, grid)));
            }
        }
        Kernel::GemmTiled => {
            for (m, n, k) in [(1, 1, 1), (5, 7, 0), (17, 19, 23), (64, 64, 64), (100, 70, 300)] {
                let shape = Shape::Gemm { m, n, k };
                cases.push(case(shape, launch_for(kernel, shape, 256, None)));
            }
        }
        Kernel::GemmBf16Wgmma
        | Kernel::GemmBf16WgmmaBias
        | Kernel::GemmBf16WgmmaBf16
        | Kernel::GemmBf16WgmmaBiasBf16 => {
            // Tails in every dimension, one and several k tiles, a k that is not a multiple of
            // the 64-wide stage, one row.
            for (m, n, k) in
                [(128, 128, 64), (256, 384, 512), (130, 200, 72), (1, 256, 1024), (77, 1000, 264)]
                    .into_iter()
                    // One row, one column, k = 1 and k not a multiple of 8 (rows at a padded pitch);
                    // an empty C (one block that stores nothing); k = 0 (C = 0, or the bias).
                    .chain([(1, 1, 1), (129, 1, 3), (2, 130, 1), (0, 130, 64), (70, 0, 64), (70, 130, 0)])
            {
                let shape = Shape::Gemm { m, n, k };
                cases.push(case(shape, launch_for(kernel, shape, gemm_wgmma::BLOCK_THREADS, None)));
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
    cases.extend(special_cases(kernel));
    cases
}

/// The special-value cases of a kernel (see [`Values::Special`]): its fast and its fallback
/// paths, and misaligned pointers where the contract allows them. The runner also compares
/// these with PyTorch's outputs on the same inputs.
pub fn special_cases(kernel: Kernel) -> Vec<Case> {
    let special = |shape, launch, offset| Case { kernel, shape, launch, values: Values::Special, offset };
    let rows = ROW_PATTERNS.len();
    let mut cases = Vec::new();
    match kernel {
        Kernel::VectorAdd | Kernel::Saxpy | Kernel::SiluMul => {
            for (n, offset) in [(1, 0), (1000, 0), (1001, 1)] {
                let shape = Shape::Elements(n);
                cases.push(special(shape, launch_for(kernel, shape, 128, None), offset));
            }
        }
        Kernel::BlockReduceSum => {
            for (n, grid, block, offset) in [(1, 1, 32, 0), (5000, 8, 64, 0), (5001, 6, 128, 1)] {
                let shape = Shape::Elements(n);
                cases.push(special(shape, launch_for(kernel, shape, block, Some(grid)), offset));
            }
        }
        Kernel::RmsNorm | Kernel::SoftmaxRows => {
            // One-read paths (vectorised, scalar when misaligned), the two-pass path (rows
            // longer than 16 floats per thread), one-element rows.
            for (cols, block, offset) in
                [(1, 32, 0), (1000, 128, 0), (4096, 256, 0), (4096, 256, 1), (20000, 256, 0), (4099, 128, 0)]
            {
                let shape = Shape::Matrix { rows, cols };
                cases.push(special(shape, launch_for(kernel, shape, block, None), offset));
            }
            // Rows split across a cluster: masks and special values in some blocks' segments
            // only (a masked prefix fills whole segments with -inf).
            for (cols, block, cluster, offset) in [(4096, 256, 4, 0), (20000, 256, 8, 0), (4099, 128, 4, 1)] {
                let shape = Shape::Matrix { rows, cols };
                cases.push(special(shape, cluster_launch(kernel, shape, block, cluster, None), offset));
            }
        }
        Kernel::GemvF16 => {
            for (cols, offset) in [(1000, 0), (4096, 0), (4096, 1)] {
                let shape = Shape::Matrix { rows: 14, cols };
                cases.push(special(shape, launch_for(kernel, shape, 128, None), offset));
            }
        }
        Kernel::GemvF16Batched => {
            for (cols, offset) in [(1000, 0), (4096, 0), (4096, 1)] {
                let shape = Shape::Batched { batch: 4, rows: 14, cols };
                cases.push(special(shape, launch_for(kernel, shape, 128, None), offset));
                cases.push(special(shape, gemv_batched_split_launch(shape, 128, None), offset));
            }
        }
        Kernel::GemmTiled => {
            let shape = Shape::Gemm { m: 17, n: 19, k: 23 };
            cases.push(special(shape, launch_for(kernel, shape, 256, None), 0));
        }
        // Tails, several k tiles, a k of 3, and k = 0 with the bias's specials alone (see
        // `gemm_wgmma::plant_specials`). No misaligned case: the tensor maps need 16-byte
        // aligned rows.
        Kernel::GemmBf16Wgmma
        | Kernel::GemmBf16WgmmaBias
        | Kernel::GemmBf16WgmmaBf16
        | Kernel::GemmBf16WgmmaBiasBf16 => {
            for (m, n, k) in [(130, 200, 72), (200, 130, 1000), (9, 17, 3), (70, 130, 0)] {
                let shape = Shape::Gemm { m, n, k };
                cases.push(special(shape, launch_for(kernel, shape, gemm_wgmma::BLOCK_THREADS, None), 0));
            }
        }
        Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate => {
            for (n, offset) in [(1, 0), (1000, 0), (1001, 1)] {
                let shape = Shape::Elements(n);
                cases.push(special(shape, launch_for(kernel, shape, 128, None), offset));
            }
        }
        Kernel::PipelineSum => {
            // Bulk copies need 16-byte aligned sources: no misaligned case.
            let shape = Shape::Tiles(16);
            cases.push(special(shape, launch_for(kernel, shape, 160, Some(8)), 0));
        }
    }
    cases
}

/// Cases a row kernel runs as a chain of two launches, the second reading the first's output
/// (`Gpu::run_chained`), with programmatic dependent launch and without: the two must give the
/// same bits. Few blocks, so that the second launch's blocks find free multiprocessors while
/// the first still runs: a block per row with large and small blocks and a short grid, and
/// rows split across clusters on the one-read and two-read paths (the held-weight entry of
/// `rms_norm` among them).
pub fn chained_cases(kernel: Kernel) -> Vec<Case> {
    let mut cases = Vec::new();
    if let Kernel::RmsNorm | Kernel::SoftmaxRows = kernel {
        for (rows, cols, block, grid) in [(4, 4096, 1024, None), (300, 128, 128, Some(16))] {
            let shape = Shape::Matrix { rows, cols };
            cases.push(Case::new(kernel, shape, launch_for(kernel, shape, block, grid)));
        }
        for (rows, cols, block, cluster) in [(4, 32768, 256, 8), (7, 4099, 256, 4), (4, 32768, 1024, 8)] {
            let shape = Shape::Matrix { rows, cols };
            cases.push(Case::new(kernel, shape, cluster_launch(kernel, shape, block, cluster, None)));
        }
    }
    cases
}

/// Decode shapes: few rows, as a model generating one token at a time sees them (1–64 rows of
/// 4,096–32,768 columns). They fit in the L2 and last a few microseconds, so they are timed
/// over graphs of [`crate::timing::DECODE_LAUNCHES`] launches and judged against a copy of
/// their own bytes timed the same way; the table reports them apart. Each is tried with a
/// block per row and with each row split across a cluster of 4, 8 or 16 blocks (16, the
/// H200's largest, needs the function's opt-in to non-portable cluster sizes: the H200's
/// processor clusters hold 16 or more multiprocessors, not every sm_90 part's do).
pub fn decode_cases(kernel: Kernel) -> Vec<Case> {
    let mut cases = Vec::new();
    if let Kernel::RmsNorm | Kernel::SoftmaxRows = kernel {
        for (rows, cols) in [(1, 4096), (1, 32768), (4, 32768), (16, 8192), (64, 4096), (64, 32768)] {
            let shape = Shape::Matrix { rows, cols };
            for block in [256, 1024] {
                cases.push(Case::new(kernel, shape, launch_for(kernel, shape, block, None)));
            }
            for (block, cluster) in [(256, 4), (1024, 4), (256, 8), (512, 8), (1024, 8), (128, 16), (256, 16)]
            {
                cases.push(Case::new(kernel, shape, cluster_launch(kernel, shape, block, cluster, None)));
            }
        }
    }
    cases
}

/// The large shape a kernel is timed on, and the launches tried on it (the table reports the
/// fastest). Shapes are several times the H200's 60 MB L2, so the timings measure memory.
pub fn timing_cases(kernel: Kernel, sms: usize) -> Vec<Case> {
    let case = |shape, launch| Case::new(kernel, shape, launch);
    let grids = |per_sm: &[usize]| per_sm.iter().map(|k| Some(k * sms)).collect::<Vec<_>>();
    let mut cases = Vec::new();
    match kernel {
        Kernel::VectorAdd | Kernel::Saxpy | Kernel::SiluMul => {
            // 2^26 floats: 256 MiB per array.
            let shape = Shape::Elements(1 << 26);
            for grid in grids(&[4, 8, 16]).into_iter().chain([None]) {
                cases.push(case(shape, launch_for(kernel, shape, 256, grid)));
            }
            // Fewer, larger blocks: the same threads per multiprocessor.
            for (block, per_sm) in [(512, 2), (1024, 1), (1024, 2)] {
                cases.push(case(shape, launch_for(kernel, shape, block, Some(per_sm * sms))));
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
                // 64 threads: each thread has two batches of four 16-byte chunks in flight
                // on a 4096-column row, and a block's reduction is two warps.
                for block in [64, 128, 256] {
                    cases.push(case(shape, launch_for(kernel, shape, block, None)));
                }
                // Fewer, longer-lived blocks (grid-stride over rows).
                for grid in grids(&[8, 16]) {
                    cases.push(case(shape, launch_for(kernel, shape, 128, grid)));
                }
            }
        }
        Kernel::GemvF16Batched => {
            // gemv_f16's two large shapes for 1, 2, 4, 8 and 16 activation rows: the weights
            // (112 MiB) dominate the traffic up to 16 rows (x and y add at most 1 MiB).
            for (rows, cols) in [(14336, 4096), (4096, 14336)] {
                for batch in [1, 2, 4, 8, 16] {
                    let shape = Shape::Batched { batch, rows, cols };
                    for block in [128, 256] {
                        cases.push(case(shape, launch_for(kernel, shape, block, None)));
                        if batch <= 4 {
                            cases.push(case(shape, gemv_batched_split_launch(shape, block, None)));
                        }
                    }
                }
            }
        }
        Kernel::GemmTiled => {
            let shape = Shape::Gemm { m: 4096, n: 4096, k: 4096 };
            cases.push(case(shape, launch_for(kernel, shape, 256, None)));
        }
        Kernel::GemmBf16WgmmaBias | Kernel::GemmBf16WgmmaBf16 | Kernel::GemmBf16WgmmaBiasBf16 => {
            // The epilogues beside the plain entry: the square shape, and the decode-like one
            // whose C is largest against its work.
            for (m, n, k) in [(4096, 4096, 4096), (128, 14336, 4096)] {
                let shape = Shape::Gemm { m, n, k };
                cases.push(case(shape, launch_for(kernel, shape, gemm_wgmma::BLOCK_THREADS, None)));
            }
        }
        Kernel::GemmBf16Wgmma => {
            // Issue 14's shapes: square, prefill-like, and decode-like (m ∈ {1, 16, 64, 128}
            // rows against a 14336 × 4096 weight; still more than the L2 through the weight).
            let square = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 4096, 14336)];
            let decode = [1, 16, 64, 128].map(|m| (m, 14336, 4096));
            for (m, n, k) in square.into_iter().chain(decode) {
                let shape = Shape::Gemm { m, n, k };
                cases.push(case(shape, launch_for(kernel, shape, gemm_wgmma::BLOCK_THREADS, None)));
            }
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
        (Kernel::GemvF16Batched, Shape::Batched { batch, rows, cols }) => {
            w(2 * rows * cols + 4 * batch * cols + 4 * batch * rows, 2 * batch * rows * cols)
        }
        (Kernel::GemmTiled, Shape::Gemm { m, n, k }) => {
            Work { bytes: f * (m * k + k * n + m * n) as u64, flops: 2 * (m * n * k) as u64 }
        }
        // bf16 A and B; C f32 or bf16; the bias n floats.
        (kernel, Shape::Gemm { m, n, k }) if kernel.wgmma_epilogue().is_some() => {
            let epilogue = kernel.wgmma_epilogue().expect("a wgmma entry");
            let c_bytes = if epilogue.bf16_output { 2 } else { 4 };
            let bias_bytes = if epilogue.bias { 4 * n } else { 0 };
            w(2 * (m * k + n * k) + c_bytes * m * n + bias_bytes, 2 * m * n * k)
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

/// [`uniform`] values rounded to bf16 (nearest even), as the f32 values they widen to.
fn uniform_bf16(rng: &mut fastrand::Rng, len: usize, low: f32, high: f32) -> Vec<f32> {
    (0..len).map(|_| bf16::from_f32(low + (high - low) * rng.f32()).to_f32()).collect()
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
        (Kernel::GemvF16Batched, Shape::Batched { batch, rows, cols }) => Inputs {
            floats: vec![uniform(rng, batch * cols, -1.0, 1.0)],
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
        // A (m × k) and the K-major B (n × k), bf16 values held as the f32 they widen to
        // exactly; the runner uploads their bf16 bits.
        (kernel, Shape::Gemm { m, n, k }) if kernel.wgmma_epilogue().is_some() => {
            let mut floats = vec![uniform_bf16(rng, m * k, -1.0, 1.0), uniform_bf16(rng, n * k, -1.0, 1.0)];
            if kernel.wgmma_epilogue().is_some_and(|e| e.bias) {
                floats.push(uniform(rng, n, -1.0, 1.0));
            }
            plain(floats)
        }
        (Kernel::PipelineSum, Shape::Tiles(t)) => {
            plain(vec![uniform(rng, t * kernels_reference::PIPELINE_TILE_FLOATS, 0.0, 1.0)])
        }
        (kernel, shape) => panic!("{kernel} takes no {shape:?}"),
    }
}

/// A subnormal `f32` of random magnitude and sign.
fn subnormal(rng: &mut fastrand::Rng) -> f32 {
    let value = f32::from_bits(rng.u32(1..0x0080_0000));
    if rng.bool() { value } else { -value }
}

/// One of the special values an element-wise input may hold.
fn special_element(rng: &mut fastrand::Rng) -> f32 {
    match rng.u32(0..9) {
        0 => f32::NEG_INFINITY,
        1 => f32::INFINITY,
        2 => f32::NAN,
        3 => f32::MAX,
        4 => -f32::MAX,
        5 => 0.75 * f32::MAX,
        6 => -0.0,
        7 => f32::MIN_POSITIVE,
        _ => subnormal(rng),
    }
}

/// Replaces about a third of `values` with special ones, so that every pairing of two inputs
/// (inf + -inf, MAX + MAX, NaN with anything, subnormal sums) occurs somewhere.
fn sprinkle_specials(values: &mut [f32], rng: &mut fastrand::Rng) {
    for value in values {
        if rng.u32(0..3) == 0 {
            *value = special_element(rng);
        }
    }
}

/// Fills `row` with [`RowPattern`] `pattern` (its ordinary values are kept where the pattern
/// leaves them).
fn plant_row_pattern(row: &mut [f32], pattern: RowPattern, rng: &mut fastrand::Rng) {
    let cols = row.len();
    let any = |rng: &mut fastrand::Rng| rng.usize(0..cols);
    match pattern {
        RowPattern::Ordinary => {}
        RowPattern::MaskOne => row[any(rng)] = f32::NEG_INFINITY,
        RowPattern::MaskStrided => row.iter_mut().step_by(3).for_each(|v| *v = f32::NEG_INFINITY),
        RowPattern::MaskPrefix => row[..cols.div_ceil(2)].fill(f32::NEG_INFINITY),
        RowPattern::MaskAll => row.fill(f32::NEG_INFINITY),
        RowPattern::MaskAllButOne => {
            let keep = any(rng);
            row.iter_mut().enumerate().filter(|(c, _)| *c != keep).for_each(|(_, v)| *v = f32::NEG_INFINITY);
        }
        RowPattern::PositiveInfinity => row[any(rng)] = f32::INFINITY,
        RowPattern::Nan => row[any(rng)] = f32::NAN,
        RowPattern::NearMax => {
            row.iter_mut().for_each(|v| *v = v.signum() * f32::MAX * (0.5 + 0.5 * rng.f32()))
        }
        RowPattern::Subnormal => row.iter_mut().for_each(|v| *v = subnormal(rng)),
    }
}

/// Plants the special values of a [`Values::Special`] case into random `inputs`. Where a
/// kernel sums, the planting follows the launch, so that some partial sums meet one special
/// value each (NaN, `+inf`, an overflow of two near-`MAX` terms, `inf - inf`, subnormals)
/// and the others stay finite.
pub fn plant_specials(case: &Case, inputs: &mut Inputs, rng: &mut fastrand::Rng) {
    let f = &mut inputs.floats;
    match (case.kernel, case.shape) {
        (Kernel::VectorAdd | Kernel::Saxpy | Kernel::SiluMul, _) => {
            f.iter_mut().for_each(|values| sprinkle_specials(values, rng));
        }
        (Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate, _) => sprinkle_specials(&mut f[0], rng),
        (Kernel::RmsNorm | Kernel::SoftmaxRows, Shape::Matrix { cols, .. }) => {
            for (r, row) in f[0].chunks_mut(cols.max(1)).enumerate() {
                plant_row_pattern(row, ROW_PATTERNS[r % ROW_PATTERNS.len()], rng);
            }
        }
        (Kernel::BlockReduceSum, Shape::Elements(n)) => {
            // Element `i` belongs to block `(i mod grid·block) / block`.
            let block = case.launch.block.0 as usize;
            plant_sum_specials(&mut f[0], |unit| unit * block, block.min(n));
        }
        (Kernel::PipelineSum, Shape::Tiles(_)) => {
            // Tile `t` belongs to block `t mod grid`.
            let tile = kernels_reference::PIPELINE_TILE_FLOATS;
            plant_sum_specials(&mut f[0], |unit| unit * tile, tile);
        }
        (Kernel::GemvF16, Shape::Matrix { rows, cols }) => {
            let weights = inputs.halves.as_mut().expect("gemv_f16 has half weights");
            plant_gemv_specials(weights, &mut f[0], rows, cols, rng);
        }
        (Kernel::GemvF16Batched, Shape::Batched { batch, rows, cols }) => {
            // Activation row 0 as gemv_f16's x against its special weight rows; row 1 holds a
            // NaN (all of its outputs NaN), row 2 an infinity (±inf or NaN by the weights).
            let weights = inputs.halves.as_mut().expect("gemv_f16_batched has half weights");
            if batch >= 1 {
                plant_gemv_specials(weights, &mut f[0][..cols], rows, cols, rng);
            }
            if batch >= 3 && cols >= 3 {
                f[0][cols + 2] = f32::NAN;
                f[0][2 * cols + 1] = f32::INFINITY;
            }
        }
        (Kernel::GemmTiled, Shape::Gemm { m, n, k }) => {
            // Row 0 of `a` holds a NaN, row 1 an infinity met by a zero in column 0 of `b`
            // (inf · 0 = NaN there, ±inf elsewhere), row 2 subnormals only.
            let (a, b) = f.split_at_mut(1);
            let (a, b) = (&mut a[0], &mut b[0]);
            if m >= 3 && k >= 2 && n >= 1 {
                a[0] = f32::NAN;
                a[k + 1] = f32::INFINITY;
                b[n] = 0.0;
                a[2 * k..3 * k].iter_mut().for_each(|v| *v = subnormal(rng));
            }
        }
        (kernel, Shape::Gemm { m, n, k }) if kernel.wgmma_epilogue().is_some() => {
            let (a, rest) = f.split_at_mut(1);
            let (b, bias) = rest.split_at_mut(1);
            let bias = bias.first_mut().map(Vec::as_mut_slice);
            gemm_wgmma::plant_specials(&mut a[0], &mut b[0], bias, GemmShape::new(m, n, k), rng);
        }
        (kernel, shape) => panic!("{kernel} takes no {shape:?}"),
    }
}

/// Plants one special value per unit of a sum's partition (`start(u)` is where unit `u` begins,
/// `len` its length): unit 0 a NaN, unit 1 `+inf`, unit 2 two terms of `0.75 · MAX` (their sum
/// overflows), unit 3 `-inf` and `+inf` (NaN), unit 4 subnormals only; the rest stay finite.
fn plant_sum_specials(values: &mut [f32], start: impl Fn(usize) -> usize, len: usize) {
    let mut set = |index: usize, value: f32| {
        if let Some(slot) = values.get_mut(index) {
            *slot = value;
        }
    };
    set(start(0), f32::NAN);
    set(start(1), f32::INFINITY);
    set(start(2), 0.75 * f32::MAX);
    set(start(2) + 1, 0.75 * f32::MAX);
    set(start(3), f32::NEG_INFINITY);
    set(start(3) + 1, f32::INFINITY);
    let mut rng = fastrand::Rng::with_seed(len as u64);
    for index in start(4)..start(4) + len {
        set(index, subnormal(&mut rng).abs());
    }
}

/// GEMV's special rows, by `r % 7`: ordinary; `+inf` at column 1; `-inf` at column 0, where
/// `x` is 0 (NaN); `+inf` and `-inf` (NaN or ±inf, by the signs of `x`); a NaN; subnormal
/// halves only; the largest half (65504) everywhere. `x` holds a subnormal and a `-0.0`.
fn plant_gemv_specials(
    weights: &mut [u16],
    x: &mut [f32],
    rows: usize,
    cols: usize,
    rng: &mut fastrand::Rng,
) {
    const POSITIVE_INFINITY: u16 = 0x7c00;
    const NEGATIVE_INFINITY: u16 = 0xfc00;
    const NAN: u16 = 0x7e00;
    const LARGEST: u16 = 0x7bff;
    if cols < 5 {
        return;
    }
    x[0] = 0.0;
    x[3] = subnormal(rng);
    x[4] = -0.0;
    for r in 0..rows {
        let row = &mut weights[r * cols..(r + 1) * cols];
        match r % 7 {
            1 => row[1] = POSITIVE_INFINITY,
            2 => row[0] = NEGATIVE_INFINITY,
            3 => (row[1], row[2]) = (POSITIVE_INFINITY, NEGATIVE_INFINITY),
            4 => row[rng.usize(0..cols)] = NAN,
            5 => row.iter_mut().for_each(|w| *w = rng.u16(1..0x0400) | if rng.bool() { 0x8000 } else { 0 }),
            6 => row.iter_mut().for_each(|w| *w = LARGEST | if rng.bool() { 0x8000 } else { 0 }),
            _ => {}
        }
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
        (_, Shape::Batched { batch, rows, .. }) => batch * rows,
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
/// - sums (`block_reduce_sum`, `pipeline_sum`, `gemv_f16`, `gemv_f16_batched`, `gemm_tiled`): the recursive
///   summation bound over the longest chain of `f32` additions in the kernel's launch.
///
/// Special values are held to the same tolerance: NaN only where the reference is NaN, an
/// infinity only where the reference has the same infinity (see [`crate::compare`]).
pub fn expected(case: &Case, inputs: &Inputs) -> Expected {
    use kernels_reference as reference;
    let exact = |values| Expected { values, tolerance: Tolerance::Exact, magnitudes: None };
    // Below the normal range the approximate `ex2`/`rcp`/`rsqrt` and the reference's rounding
    // may differ by more than a relative bound allows; there the bound is absolute, 2^-126.
    let relative = |values, rel| Expected {
        values,
        tolerance: Tolerance::Relative { rel, abs: f64::from(f32::MIN_POSITIVE) },
        magnitudes: None,
    };
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
                // Each thread accumulates about cols / block products (up to 8 more in whole
                // chunks), then the block reduction's ten shuffle levels.
                tolerance: Tolerance::SumBound { terms: cols.div_ceil(block) + 8 + 10 + 1 },
                magnitudes: Some(reference::gemv_f16(&abs_weights, &abs_all(&f[0]), rows, cols)),
            }
        }
        (Kernel::GemvF16Batched, Shape::Batched { batch, rows, cols }) => {
            let weights = inputs.halves.as_deref().expect("gemv_f16_batched has half weights");
            let abs_weights: Vec<u16> = weights.iter().map(|bits| bits & 0x7fff).collect();
            Expected {
                values: reference::gemv_f16_batched(weights, &f[0], rows, cols, batch),
                // As gemv_f16, for each activation row.
                tolerance: Tolerance::SumBound { terms: cols.div_ceil(block) + 8 + 10 + 1 },
                magnitudes: Some(reference::gemv_f16_batched(
                    &abs_weights,
                    &abs_all(&f[0]),
                    rows,
                    cols,
                    batch,
                )),
            }
        }
        (Kernel::GemmTiled, Shape::Gemm { m, n, k }) => Expected {
            values: reference::gemm(&f[0], &f[1], m, n, k),
            tolerance: Tolerance::SumBound { terms: k + 1 },
            magnitudes: Some(reference::gemm(&abs_all(&f[0]), &abs_all(&f[1]), m, n, k)),
        },
        (kernel, Shape::Gemm { m, n, k }) if kernel.wgmma_epilogue().is_some() => {
            // B is n × k (K-major); the reference multiplies by a k × n matrix.
            let b = transpose(&f[1], n, k);
            let mut expected = Expected {
                values: reference::gemm(&f[0], &b, m, n, k),
                tolerance: Tolerance::SumBound { terms: 0 },
                magnitudes: Some(reference::gemm(&abs_all(&f[0]), &abs_all(&b), m, n, k)),
            };
            apply_wgmma_epilogue(kernel, k, f.get(2).map(Vec::as_slice), n, &mut expected);
            expected
        }
        (kernel, shape) => panic!("{kernel} takes no {shape:?}"),
    }
}

/// `gemm_bf16_wgmma`'s tolerance: bf16 inputs make every product exact in f32 (8 + 8
/// significant bits), so only the `k` additions of the f32 accumulation round, in an order the
/// tensor cores choose: the recursive-summation bound over `k` terms, plus one for the
/// reference's own rounding to f32. A wrong tile, swizzle or stage errs by the order of the
/// terms' magnitude itself, thousands of times more.
///
/// The epilogues: a bias is one more term of the sum (its magnitude joins the terms'), added
/// in f32 (one more rounding); C stored as bf16 adds half an ulp of bf16 on top of that bound
/// ([`Tolerance::SumBoundThenBf16`]).
fn gemm_bf16_tolerance(kernel: Kernel, k: usize) -> Tolerance {
    let epilogue = kernel.wgmma_epilogue().unwrap_or(WgmmaEpilogue { bias: false, bf16_output: false });
    let terms = k + 1 + usize::from(epilogue.bias);
    if epilogue.bf16_output { Tolerance::SumBoundThenBf16 { terms } } else { Tolerance::SumBound { terms } }
}

/// Turns the reference product `expected` (f32 values rounded from f64, their magnitudes) of a
/// wgmma entry into the entry's: the bias of each column added (`bias`, `n` floats) and the
/// tolerance its epilogue asks for. A bf16 C is compared with the unrounded reference (the
/// tolerance holds the rounding), except where rounding it to bf16 overflows: there the
/// reference is that infinity, as PyTorch's `.to(torch.bfloat16)` gives and a finite value
/// cannot stand for.
fn apply_wgmma_epilogue(kernel: Kernel, k: usize, bias: Option<&[f32]>, n: usize, expected: &mut Expected) {
    expected.tolerance = gemm_bf16_tolerance(kernel, k);
    if let Some(bias) = bias.filter(|_| kernel.wgmma_epilogue().is_some_and(|e| e.bias)) {
        let magnitudes = expected.magnitudes.as_mut().expect("sums have magnitudes");
        for (i, (value, magnitude)) in expected.values.iter_mut().zip(magnitudes.iter_mut()).enumerate() {
            let column_bias = bias[i % n];
            *value = (f64::from(*value) + f64::from(column_bias)) as f32;
            *magnitude += column_bias.abs();
        }
    }
    if kernel.wgmma_epilogue().is_some_and(|e| e.bf16_output) {
        for value in expected.values.iter_mut().filter(|v| v.is_finite()) {
            let rounded = bf16::from_f32(*value).to_f32();
            if rounded.is_infinite() {
                *value = rounded;
            }
        }
    }
}

/// The `cols × rows` transpose of a row-major `rows × cols` matrix.
fn transpose(values: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; values.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = values[r * cols + c];
        }
    }
    out
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
    let Shape::Gemm { m, n, k } = case.shape else { return None };
    if m == 0 || n == 0 {
        return None;
    }
    let f = &inputs.floats;
    // Element (r, c) is the dot product of A's row r and B's column c: B's row c when B is
    // K-major (gemm_bf16_wgmma), its column c when B is k × n (gemm_tiled).
    let (b_at, tolerance): (Box<dyn Fn(usize, usize) -> f32>, Tolerance) = match case.kernel {
        kernel if kernel.wgmma_epilogue().is_some() => {
            (Box::new(|c, l| f[1][c * k + l]), gemm_bf16_tolerance(kernel, k))
        }
        Kernel::GemmTiled => (Box::new(|c, l| f[1][l * n + c]), Tolerance::SumBound { terms: k + 1 }),
        _ => return None,
    };
    let mut indices = vec![0, n - 1, (m - 1) * n, m * n - 1];
    while indices.len() < samples.max(4) {
        indices.push(rng.usize(0..m * n));
    }
    let (mut values, mut magnitudes) = (Vec::new(), Vec::new());
    for &index in &indices {
        let (r, c) = (index / n, index % n);
        let (mut sum, mut magnitude) = (0.0f64, 0.0f64);
        for l in 0..k {
            let product = f64::from(f[0][r * k + l]) * f64::from(b_at(c, l));
            sum += product;
            magnitude += product.abs();
        }
        values.push(sum as f32);
        magnitudes.push(magnitude as f32);
    }
    let mut expected = Expected { values, tolerance, magnitudes: Some(magnitudes) };
    if let Some(bias) = f.get(2).filter(|_| case.kernel.wgmma_epilogue().is_some_and(|e| e.bias)) {
        // The samples as one row of C whose columns are their own: each gets its column's bias.
        let at_samples: Vec<f32> = indices.iter().map(|&i| bias[i % n]).collect();
        apply_wgmma_epilogue(case.kernel, k, Some(&at_samples), at_samples.len(), &mut expected);
    }
    Some((indices, expected))
}

/// Whether checking a case's output on the host is cheap enough to do after timing it (the
/// 4096³ GEMM's reference is 69 G multiply-adds in `f64`; its smaller cases are checked).
pub fn cheap_to_check(case: &Case) -> bool {
    match case.shape {
        Shape::Gemm { m, n, k } => m * n * k <= 1 << 27,
        _ => true,
    }
}
