//! The row kernels, `rms_norm` and `softmax_rows`: a block per row, or a row split across the
//! blocks of a cluster that combine their sums and maxima through distributed shared memory
//! (`rms_norm` then launches its held-weight entry where its registers fit); the decode shapes
//! (few long rows) and the chained cases (programmatic dependent launch) are theirs.

use fastrand::Rng;

use super::common::{subnormal, uniform};
use super::family::{Family, Matrix, Param};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    RmsNorm,
    SoftmaxRows,
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

/// `rms_norm`'s entry for rows split across clusters: the block's share of the weight held in
/// registers, loaded with the row instead of after its reduction (`kernels/src/rms_norm.rs`).
pub const RMS_NORM_HELD_WEIGHT: &str = "rms_norm_held_weight";

/// The largest block [`RMS_NORM_HELD_WEIGHT`]'s contract allows: its registers do not fit a
/// block of 1024 threads.
pub const RMS_NORM_HELD_WEIGHT_MAX_BLOCK: u32 = 512;

/// Correctness, a block per row, `(rows, cols, block, grid)`: sizes off the block size, rows
/// longer than a block, a grid smaller than the rows.
#[rustfmt::skip]
const CORRECTNESS: [(usize, usize, u32, Option<usize>); 7] = [
    (0, 64, 32, None), (1, 1, 32, None), (3, 100, 64, None), (7, 4099, 256, None),
    (64, 33, 32, None), (5, 2048, 1024, None), (300, 128, 128, Some(16)),
];
/// Correctness, rows split across clusters, `(rows, cols, block, cluster, clusters)`: segments
/// on the one-read path, on the two-read path (longer than 16 floats per thread), of mixed
/// paths (`cols` not a multiple of 4), empty segments (fewer columns than blocks), clusters
/// striding over rows.
#[rustfmt::skip]
const CORRECTNESS_CLUSTERS: [(usize, usize, u32, u32, Option<usize>); 9] = [
    (1, 1, 32, 2, None), (2, 5, 32, 8, None), (3, 100, 64, 2, None),
    (7, 4099, 256, 4, None), (5, 32768, 256, 8, None), (4, 32768, 128, 4, None),
    (3, 32768, 128, 16, None), (2, 100, 32, 16, None), (64, 2048, 128, 2, Some(8)),
];
/// Special values, one row per [`ROW_PATTERNS`] entry, `(cols, block, offset)`: the one-read
/// paths (vectorised, scalar when misaligned), the two-pass path (rows longer than 16 floats
/// per thread), one-element rows.
const SPECIAL: [(usize, u32, usize); 6] =
    [(1, 32, 0), (1000, 128, 0), (4096, 256, 0), (4096, 256, 1), (20000, 256, 0), (4099, 128, 0)];
/// Special values with rows split across a cluster, `(cols, block, cluster, offset)`: masks and
/// special values in some blocks' segments only (a masked prefix fills whole segments with
/// -inf).
const SPECIAL_CLUSTERS: [(usize, u32, u32, usize); 3] =
    [(4096, 256, 4, 0), (20000, 256, 8, 0), (4099, 128, 4, 1)];
/// Chained, a block per row with large and small blocks and a short grid, `(rows, cols, block,
/// grid)`.
const CHAINED: [(usize, usize, u32, Option<usize>); 2] = [(4, 4096, 1024, None), (300, 128, 128, Some(16))];
/// Chained, rows split across clusters on the one-read and two-read paths (the held-weight
/// entry of `rms_norm` among them), `(rows, cols, block, cluster)`.
const CHAINED_CLUSTERS: [(usize, usize, u32, u32); 3] =
    [(4, 32768, 256, 8), (7, 4099, 256, 4), (4, 32768, 1024, 8)];
/// Decode shapes `(rows, cols)`, each with a block per row of each of `DECODE_BLOCKS` and split
/// across clusters as `DECODE_CLUSTERS` says, `(block, cluster)`.
const DECODE: [(usize, usize); 6] = [(1, 4096), (1, 32768), (4, 32768), (16, 8192), (64, 4096), (64, 32768)];
const DECODE_BLOCKS: [u32; 2] = [256, 1024];
const DECODE_CLUSTERS: [(u32, u32); 7] =
    [(256, 4), (1024, 4), (256, 8), (512, 8), (1024, 8), (128, 16), (256, 16)];
/// The timing shape and its blocks.
const TIMING: Matrix = Matrix { rows: 16384, cols: 4096 };
const TIMING_BLOCKS: [u32; 4] = [128, 256, 512, 1024];

impl Rows {
    /// Dynamic shared memory of a launch in clusters: the block reduction's 32 floats, then
    /// the slots through which the cluster's blocks exchange their partial results
    /// (`device::cluster::ClusterExchange`, two sets of a slot per block of up to 16): a float
    /// per slot for `rms_norm`'s sum (256 bytes in all), a (maximum, sum) pair for
    /// `softmax_rows` (384 bytes).
    pub fn cluster_shared_bytes(self) -> u32 {
        let slot_floats = if self == Rows::SoftmaxRows { 2 } else { 1 };
        4 * (32 + slot_floats * 2 * 16)
    }

    /// The kernel launched in clusters of `cluster` blocks, each cluster splitting a row: a
    /// cluster per row, or `clusters` clusters striding over the rows.
    pub fn cluster_launch(
        self,
        Matrix { rows, .. }: Matrix,
        block: u32,
        cluster: u32,
        clusters: Option<usize>,
    ) -> Launch {
        let clusters = clusters.unwrap_or(rows).max(1);
        let shared_bytes = self.cluster_shared_bytes();
        Launch { cluster, ..Launch::linear(clusters * cluster as usize, block, shared_bytes) }
    }
}

impl Family for Rows {
    type Shape = Matrix;

    /// `rms_norm` also launches its held-weight entry.
    fn entries(self) -> Vec<&'static str> {
        match self {
            Rows::RmsNorm => vec![self.entry(), RMS_NORM_HELD_WEIGHT],
            Rows::SoftmaxRows => vec![self.entry()],
        }
    }

    /// `rms_norm` split across clusters in blocks of at most
    /// [`RMS_NORM_HELD_WEIGHT_MAX_BLOCK`] threads launches the entry that holds the weight in
    /// registers.
    fn case_entry(self, _: Matrix, launch: &Launch) -> &'static str {
        match self {
            Rows::RmsNorm if launch.cluster > 1 && launch.block.0 <= RMS_NORM_HELD_WEIGHT_MAX_BLOCK => {
                RMS_NORM_HELD_WEIGHT
            }
            _ => self.entry(),
        }
    }

    fn roofline(self) -> Roofline {
        Roofline::Bandwidth { target: Some(0.90) }
    }

    /// At least 1.25× PyTorch's speed.
    fn peer_ratio_target(self) -> Option<f64> {
        Some(1.0 / 1.25)
    }

    /// 70 % of the copy bandwidth at 4 × 32,768.
    fn decode_target(self, dims: &[usize]) -> Option<f64> {
        (dims == [4, 32768]).then_some(0.70)
    }

    /// In clusters of up to 16 blocks: more than 8 needs the function's opt-in, which the GPU
    /// side gives them.
    fn splits_rows_across_clusters(self) -> bool {
        true
    }

    /// A block per row; 128 bytes for the block reduction.
    fn launch(self, Matrix { rows, .. }: Matrix, block: u32, grid: Option<usize>) -> Launch {
        Launch::linear(grid.unwrap_or(rows), block, 128)
    }

    /// `rows * cols` floats in and out, `cols` weights for `rms_norm` (and its `eps`).
    fn params(self, Matrix { rows, cols }: Matrix) -> Vec<Param> {
        use Param::{Count, Input, Output, Scalar};
        match self {
            Rows::RmsNorm => vec![Input(0), Input(1), Output, Count(rows), Count(cols), Scalar],
            Rows::SoftmaxRows => vec![Input(0), Output, Count(rows), Count(cols)],
        }
    }

    fn correctness_cases(self, _sms: usize) -> Vec<Case> {
        let per_row = CORRECTNESS.map(|(rows, cols, block, grid)| (Matrix { rows, cols }, block, grid));
        let mut cases = self.by_contract(per_row);
        for (rows, cols, block, cluster, clusters) in CORRECTNESS_CLUSTERS {
            let shape = Matrix { rows, cols };
            cases.push(self.case(shape, self.cluster_launch(shape, block, cluster, clusters)));
        }
        cases
    }

    fn special_cases(self) -> Vec<Case> {
        let rows = ROW_PATTERNS.len();
        let per_row = SPECIAL.map(|(cols, block, offset)| (Matrix { rows, cols }, block, None, offset));
        let mut cases = self.specials_by_contract(per_row);
        for (cols, block, cluster, offset) in SPECIAL_CLUSTERS {
            let shape = Matrix { rows, cols };
            cases.push(self.special(shape, self.cluster_launch(shape, block, cluster, None), offset));
        }
        cases
    }

    fn timing_cases(self, _sms: usize) -> Vec<Case> {
        self.by_contract(TIMING_BLOCKS.map(|block| (TIMING, block, None)))
    }

    /// Decode shapes: few rows, as a model generating one token at a time sees them (1–64 rows
    /// of 4,096–32,768 columns). They fit in the L2 and last a few microseconds, so they are
    /// timed over graphs of [`crate::timing::DECODE_LAUNCHES`] launches and judged against a
    /// copy of their own bytes timed the same way; the table reports them apart. Each is tried
    /// with a block per row and with each row split across a cluster of 4, 8 or 16 blocks (16,
    /// the H200's largest, needs the function's opt-in to non-portable cluster sizes: the
    /// H200's processor clusters hold 16 or more multiprocessors, not every sm_90 part's do).
    fn decode_cases(self) -> Vec<Case> {
        let mut cases = Vec::new();
        for (rows, cols) in DECODE {
            let shape = Matrix { rows, cols };
            for block in DECODE_BLOCKS {
                cases.push(self.case(shape, self.launch(shape, block, None)));
            }
            for (block, cluster) in DECODE_CLUSTERS {
                cases.push(self.case(shape, self.cluster_launch(shape, block, cluster, None)));
            }
        }
        cases
    }

    /// Cases run as a chain of two launches, the second reading the first's output
    /// (`Gpu::run_chained`), with programmatic dependent launch and without: the two must give
    /// the same bits. Few blocks, so that the second launch's blocks find free multiprocessors
    /// while the first still runs.
    fn chained_cases(self) -> Vec<Case> {
        let mut cases =
            self.by_contract(CHAINED.map(|(rows, cols, block, grid)| (Matrix { rows, cols }, block, grid)));
        for (rows, cols, block, cluster) in CHAINED_CLUSTERS {
            let shape = Matrix { rows, cols };
            cases.push(self.case(shape, self.cluster_launch(shape, block, cluster, None)));
        }
        cases
    }

    fn work(self, Matrix { rows, cols }: Matrix) -> Work {
        match self {
            Rows::RmsNorm => Work::of(2 * 4 * rows * cols + 4 * cols, 4 * rows * cols),
            Rows::SoftmaxRows => Work::of(2 * 4 * rows * cols, 5 * rows * cols),
        }
    }

    fn random_inputs(self, Matrix { rows, cols }: Matrix, rng: &mut Rng) -> Inputs {
        match self {
            Rows::RmsNorm => Inputs {
                floats: vec![uniform(rng, rows * cols, -4.0, 4.0), uniform(rng, cols, 0.5, 1.5)],
                halves: None,
                scalar: 1e-5,
            },
            Rows::SoftmaxRows => Inputs::plain(vec![uniform(rng, rows * cols, -8.0, 8.0)]),
        }
    }

    /// Row `r` holds [`ROW_PATTERNS`]`[r % 10]`.
    fn plant_specials(self, Matrix { cols, .. }: Matrix, _: &Launch, inputs: &mut Inputs, rng: &mut Rng) {
        for (r, row) in inputs.floats[0].chunks_mut(cols.max(1)).enumerate() {
            plant_row_pattern(row, ROW_PATTERNS[r % ROW_PATTERNS.len()], rng);
        }
    }

    fn output_len(self, Matrix { rows, cols }: Matrix, _: &Launch) -> usize {
        rows * cols
    }

    /// Relative 1e-5: `rsqrt.approx`/`ex2.approx` (about 2^-22) plus an `f32` sum over the row
    /// of at most (cols / block + 10) additions of positive terms.
    fn expected(self, Matrix { rows, cols }: Matrix, _: &Launch, inputs: &Inputs) -> Expected {
        use kernels_reference as reference;
        let f = &inputs.floats;
        match self {
            Rows::RmsNorm => {
                Expected::relative(reference::rms_norm(&f[0], &f[1], rows, cols, inputs.scalar), 1e-5)
            }
            Rows::SoftmaxRows => Expected::relative(reference::softmax_rows(&f[0], rows, cols), 1e-5),
        }
    }

    fn identity(self) -> (Kernel, &'static str) {
        match self {
            Rows::RmsNorm => (Kernel::RmsNorm, "rms_norm"),
            Rows::SoftmaxRows => (Kernel::SoftmaxRows, "softmax_rows"),
        }
    }
}

/// Fills `row` with [`RowPattern`] `pattern` (its ordinary values are kept where the pattern
/// leaves them).
fn plant_row_pattern(row: &mut [f32], pattern: RowPattern, rng: &mut Rng) {
    let cols = row.len();
    let any = |rng: &mut Rng| rng.usize(0..cols);
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
