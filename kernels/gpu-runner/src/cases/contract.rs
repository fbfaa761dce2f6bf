//! The launch contract of every PTX entry the runner launches, as data: the block shapes the
//! entry supports, the dynamic shared memory it needs as a function of the launch, the grid
//! and the clusters it takes, each figure taken from the entry's own doc comment in
//! `kernels/src` (quoted in [`CONTRACTS`], and a test holds each quote to that file), with the
//! device's limits on top ([`MAX_BLOCK_THREADS`] …). Where a doc states nothing about a part of
//! the launch, the table says `Unstated` and nothing is refused there.
//!
//! Every launch the runner makes goes through [`check`] before the driver sees it
//! (`gpu.rs`): a launch outside its entry's contract is a [`Refusal`] naming the entry, the
//! launch, what the contract requires and the fix, and never reaches the GPU (a `gemv_f16`
//! launched without its 128 bytes of dynamic shared memory read out of bounds there).
//! [`launch_out_of_contract`] makes one launch per entry that breaks its contract
//! ([`out_of_contract_case`]) through a given launch path, and records whether each was refused:
//! the main run passes its own and fails unless all are.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Case, Kernel, Launch, Shape, Values, correctness_cases, decode_cases};

/// Threads per block on sm_90 (the H200): every contract's blocks are within it, "any block
/// size" included.
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// The largest `gridDim.x` (2³¹ − 1) and `gridDim.y` on sm_90.
pub const MAX_GRID: (u32, u32) = (i32::MAX as u32, 65_535);
/// Dynamic shared memory one block may ask for on sm_90 once its function's limit is raised:
/// 227 KiB (`kernels/src/gemm_wgmma.rs`: "A block may have at most 227 KiB of shared memory on
/// sm_90").
pub const MAX_DYNAMIC_SHARED_BYTES: u32 = 227 * 1024;
/// The largest cluster on the H200 (above 8, "non-portable", with the function's opt-in).
pub const MAX_CLUSTER_BLOCKS: u32 = 16;

/// The block shapes an entry supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// Any block (within the device's limits).
    Any,
    /// One-dimensional (`blockDim.y = 1`), any size.
    OneDimensional,
    /// One-dimensional, `blockDim.x` a power of two, at most `max`.
    PowerOfTwo { max: u32 },
    /// One-dimensional, `blockDim.x` a multiple of `multiple`, at most `max`.
    MultipleOf { multiple: u32, max: u32 },
    /// Exactly `blockDim = (x, y)`.
    Exactly(u32, u32),
}

/// The dynamic shared memory an entry needs, as a function of its launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {
    /// The doc states nothing (the kernel declares no dynamic shared memory).
    Unstated,
    /// The doc states none.
    None,
    /// A constant number of bytes.
    Bytes(u32),
    /// `blockDim.x · bytes` bytes.
    PerThread(u32),
    /// `plain` bytes without clusters, `clustered` in clusters.
    ClusterBytes { plain: u32, clustered: u32 },
    /// `4 · warps · 8 · width` bytes, none for one warp (the split GEMVs' partial sums).
    WarpPartials { width: u32 },
}

/// The grid an entry takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// Any grid.
    Any,
    /// One-dimensional (`gridDim.y = 1`), any size.
    OneDimensional,
    /// One-dimensional, one tile of `blockDim.x` elements per block, covering the shape's `n`.
    CoversElements,
    /// `(⌈n / columns⌉, ⌈m / rows⌉)` blocks of a GEMM shape, at least one each way.
    GemmTiles { rows: u32, columns: u32 },
}

/// The clusters an entry may be launched in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clusters {
    /// The doc states nothing.
    Unstated,
    /// Clusters of up to `max` blocks along x (a launch attribute), or none.
    UpTo(u32),
}

/// One entry's launch contract and where its figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contract {
    pub entry: &'static str,
    pub block: Block,
    pub shared: Shared,
    pub grid: Grid,
    pub clusters: Clusters,
    /// The file of the entry's doc comment, under `kernels/src`.
    pub file: &'static str,
    /// The doc's words each figure is taken from (whitespace and comment markers aside).
    pub quotes: &'static [&'static str],
}

/// The element-wise entries: the module's doc allows any grid and block; no entry's doc
/// mentions shared memory or clusters.
const ELEMENTWISE: Contract = Contract {
    entry: "vector_add",
    block: Block::Any,
    shared: Shared::Unstated,
    grid: Grid::Any,
    clusters: Clusters::Unstated,
    file: "elementwise.rs",
    quotes: &["grid-stride: any grid and block size works"],
};
const RMS_NORM_QUOTES: &[&str] = &[
    "Launch: one-dimensional; a block per row (grid-stride over rows, so any grid works); \
     `blockDim.x` a multiple of 32, at most 1024; dynamic shared memory 128 bytes",
    "launched in clusters of `n` blocks (2 to 16, a launch attribute)",
    "Dynamic shared memory is then 256 bytes",
];
/// `rms_norm`: 128 bytes (the block reduction's scratch), 256 in clusters of 2 to 16.
const RMS_NORM: Contract = Contract {
    entry: "rms_norm",
    block: Block::MultipleOf { multiple: 32, max: 1024 },
    shared: Shared::ClusterBytes { plain: 128, clustered: 256 },
    grid: Grid::OneDimensional,
    clusters: Clusters::UpTo(16),
    file: "rms_norm.rs",
    quotes: RMS_NORM_QUOTES,
};
/// The batched GEMVs by width ("Launch (every width)"): warp reductions, no shared memory.
const GEMV_BATCHED: Contract = Contract {
    entry: "gemv_f16_batched",
    block: Block::MultipleOf { multiple: 32, max: 256 },
    shared: Shared::None,
    grid: Grid::OneDimensional,
    clusters: Clusters::Unstated,
    file: "gemv.rs",
    quotes: &[
        "Launch (every width): one-dimensional; `blockDim.x` a multiple of 32, at most 256",
        "any grid",
        "no shared memory",
    ],
};
/// The split GEMVs: `_1_split`'s doc gives every split width's launch.
const GEMV_BATCHED_SPLIT: Contract = Contract {
    entry: "gemv_f16_batched_1_split",
    block: Block::MultipleOf { multiple: 32, max: 256 },
    shared: Shared::WarpPartials { width: 1 },
    grid: Grid::OneDimensional,
    clusters: Clusters::Unstated,
    file: "gemv.rs",
    quotes: &[
        "Launch: one-dimensional; `blockDim.x` a multiple of 32, at most 256; any grid",
        "dynamic shared memory `4 · warps · 8 · width` bytes (`width` the entry's activation rows \
         per pass: 1 here, 2 and 4 for `_2_split` and `_4_split`), none for one warp",
    ],
};
/// The wgmma GEMM: `gemm_bf16_wgmma`'s doc; its epilogue entries "differ only in their
/// epilogue" (the module's doc). The doc gives the block as `blockDim.x = 288` alone: read as
/// `(288, 1)` (the kernel's roles come from `threadIdx.x` only).
const GEMM_BF16_WGMMA: Contract = Contract {
    entry: "gemm_bf16_wgmma",
    block: Block::Exactly(288, 1),
    shared: Shared::Bytes(132_160),
    grid: Grid::GemmTiles { rows: 128, columns: 128 },
    clusters: Clusters::Unstated,
    file: "gemm_wgmma.rs",
    quotes: &[
        "Launch: grid `(⌈n / 128⌉, ⌈m / 128⌉)`, `blockDim.x = 288`; dynamic shared memory \
         `GEMM_BF16_WGMMA_SHARED_BYTES` = 132 160 bytes",
        "a launch of one block stores nothing",
        "four entries that differ only in their epilogue",
    ],
};
/// The wide wgmma GEMM: `gemm_bf16_wgmma_wide`'s doc (the rest of its contract is the narrow
/// entry's); its epilogues' docs send the reader to it for the launch.
const GEMM_BF16_WGMMA_WIDE: Contract = Contract {
    entry: "gemm_bf16_wgmma_wide",
    shared: Shared::Bytes(197_696),
    grid: Grid::GemmTiles { rows: 128, columns: 256 },
    quotes: &[
        "Launch: grid `(⌈n / 256⌉, ⌈m / 128⌉)`, `blockDim.x = 288`; dynamic shared memory \
         `GEMM_BF16_WGMMA_WIDE_SHARED_BYTES` = 197 696 bytes",
        "with the tile of [`gemm_bf16_wgmma_wide`] (and its launch)",
    ],
    ..GEMM_BF16_WGMMA
};
/// The decode GEMM: `gemm_bf16_decode_bf16`'s doc.
const GEMM_BF16_DECODE: Contract = Contract {
    entry: "gemm_bf16_decode_bf16",
    block: Block::Exactly(512, 1),
    shared: Shared::Bytes(16_384),
    grid: Grid::GemmTiles { rows: 16, columns: 16 },
    clusters: Clusters::Unstated,
    file: "gemm_decode.rs",
    quotes: &["Launch: grid `(⌈n / 16⌉, ⌈m / 16⌉)` (at least one block each way), `blockDim.x = 512`; \
         dynamic shared memory `DECODE_SHARED_BYTES` = 16 384 bytes"],
};
/// The shared-memory helpers: a float of shared memory per thread, one tile per block.
const SHARED_HELPER: Contract = Contract {
    entry: "shared_memory_helper_local",
    block: Block::OneDimensional,
    shared: Shared::PerThread(4),
    grid: Grid::CoversElements,
    clusters: Clusters::Unstated,
    file: "shared_helper.rs",
    quotes: &[
        "Launch: one-dimensional, one tile per block, `gridDim.x * blockDim.x >= n`; dynamic \
         shared memory `blockDim.x * 4` bytes.",
        "Launch and special values: as [`shared_memory_helper_local`].",
    ],
};

/// Every entry's contract: the one place the runner's launch rules live.
pub const CONTRACTS: [Contract; 29] = [
    ELEMENTWISE,
    Contract { entry: "saxpy", ..ELEMENTWISE },
    Contract { entry: "silu_mul", ..ELEMENTWISE },
    // The tree reduction halves the active threads per step: a power-of-two block, a float of
    // shared memory per thread.
    Contract {
        entry: "block_reduce_sum",
        block: Block::PowerOfTwo { max: 1024 },
        shared: Shared::PerThread(4),
        grid: Grid::OneDimensional,
        clusters: Clusters::Unstated,
        file: "reduction.rs",
        quotes: &["Launch: one-dimensional; `blockDim.x` a power of two (at most 1024); dynamic shared \
                   memory `blockDim.x * 4` bytes."],
    },
    RMS_NORM,
    // The held weight's registers: blocks of at most 512 threads; otherwise as rms_norm.
    Contract {
        entry: "rms_norm_held_weight",
        block: Block::MultipleOf { multiple: 32, max: 512 },
        quotes: &[
            "Launch: as [`rms_norm`], but `blockDim.x` at most 512",
            RMS_NORM_QUOTES[0],
            RMS_NORM_QUOTES[1],
            RMS_NORM_QUOTES[2],
        ],
        ..RMS_NORM
    },
    // 128 bytes, 384 in clusters (the exchange's (maximum, sum) pairs).
    Contract {
        entry: "softmax_rows",
        shared: Shared::ClusterBytes { plain: 128, clustered: 384 },
        file: "softmax.rs",
        quotes: &[
            "Launch: one-dimensional; a block per row (grid-stride over rows); `blockDim.x` a \
             multiple of 32, at most 1024; dynamic shared memory 128 bytes.",
            "launched in clusters of `n` blocks (2 to 16, a launch attribute)",
            "Dynamic shared memory is then 384 bytes",
        ],
        ..RMS_NORM
    },
    // 128 bytes: the block reduction's scratch. The doc mentions no clusters.
    Contract {
        entry: "gemv_f16",
        block: Block::MultipleOf { multiple: 32, max: 1024 },
        shared: Shared::Bytes(128),
        grid: Grid::OneDimensional,
        clusters: Clusters::Unstated,
        file: "gemv.rs",
        quotes: &["Launch: one-dimensional; a block per row (grid-stride over rows, so any grid works); \
                   `blockDim.x` a multiple of 32, at most 1024; dynamic shared memory 128 bytes (the \
                   block reduction's scratch)."],
    },
    GEMV_BATCHED,
    Contract { entry: "gemv_f16_batched_1", ..GEMV_BATCHED },
    Contract { entry: "gemv_f16_batched_2", ..GEMV_BATCHED },
    Contract { entry: "gemv_f16_batched_4", ..GEMV_BATCHED },
    Contract { entry: "gemv_f16_batched_8", ..GEMV_BATCHED },
    GEMV_BATCHED_SPLIT,
    Contract {
        entry: "gemv_f16_batched_2_split",
        shared: Shared::WarpPartials { width: 2 },
        ..GEMV_BATCHED_SPLIT
    },
    Contract {
        entry: "gemv_f16_batched_4_split",
        shared: Shared::WarpPartials { width: 4 },
        ..GEMV_BATCHED_SPLIT
    },
    // 16×16 threads, a block per 16×16 tile of C, the two tiles' 2048 bytes.
    Contract {
        entry: "gemm_tiled",
        block: Block::Exactly(16, 16),
        shared: Shared::Bytes(2048),
        grid: Grid::GemmTiles { rows: 16, columns: 16 },
        clusters: Clusters::Unstated,
        file: "gemm.rs",
        quotes: &["Launch: `blockDim = (16, 16)`, `gridDim = (ceil(n / 16), ceil(m / 16))`; dynamic shared \
                   memory `2 * 16 * 16 * 4 = 2048` bytes."],
    },
    GEMM_BF16_WGMMA,
    Contract { entry: "gemm_bf16_wgmma_bias", ..GEMM_BF16_WGMMA },
    Contract { entry: "gemm_bf16_wgmma_bf16", ..GEMM_BF16_WGMMA },
    Contract { entry: "gemm_bf16_wgmma_bias_bf16", ..GEMM_BF16_WGMMA },
    GEMM_BF16_WGMMA_WIDE,
    Contract { entry: "gemm_bf16_wgmma_wide_bias", ..GEMM_BF16_WGMMA_WIDE },
    Contract { entry: "gemm_bf16_wgmma_wide_bf16", ..GEMM_BF16_WGMMA_WIDE },
    Contract { entry: "gemm_bf16_wgmma_wide_bias_bf16", ..GEMM_BF16_WGMMA_WIDE },
    GEMM_BF16_DECODE,
    SHARED_HELPER,
    Contract { entry: "shared_memory_helper_cross_crate", ..SHARED_HELPER },
    // A producer warp and four consumer warps; the ring's 4 × 4096 bytes, its barriers and the
    // reduction's scratch.
    Contract {
        entry: "pipeline_sum",
        block: Block::Exactly(160, 1),
        shared: Shared::Bytes(16_576),
        grid: Grid::OneDimensional,
        clusters: Clusters::Unstated,
        file: "pipeline_sum.rs",
        quotes: &["Launch: one-dimensional, `blockDim.x = 160`; dynamic shared memory `4 * 4096 + 64 + \
                   128 = 16 576` bytes."],
    },
];

impl Contract {
    /// Every number the contract's rules hold (maxima, multiples, exact sizes, bytes, tiles,
    /// cluster sizes): each must appear in its quotes.
    pub fn figures(&self) -> Vec<u32> {
        let mut figures = match self.block {
            Block::Any | Block::OneDimensional => vec![],
            Block::PowerOfTwo { max } => vec![max],
            Block::MultipleOf { multiple, max } => vec![multiple, max],
            // A `y` of 1 is a one-dimensional block, which a doc may state in words or not at all.
            Block::Exactly(x, 1) => vec![x],
            Block::Exactly(x, y) => vec![x, y],
        };
        figures.extend(match self.shared {
            Shared::Unstated | Shared::None => vec![],
            Shared::Bytes(bytes) | Shared::PerThread(bytes) => vec![bytes],
            Shared::ClusterBytes { plain, clustered } => vec![plain, clustered],
            Shared::WarpPartials { width } => vec![4, 8, width],
        });
        if let Grid::GemmTiles { rows, columns } = self.grid {
            figures.extend(if rows == columns { vec![rows] } else { vec![columns, rows] });
        }
        if let Clusters::UpTo(max) = self.clusters {
            figures.push(max);
        }
        figures
    }
}

/// The contract of `entry`, if the table has one.
pub fn contract(entry: &str) -> Option<&'static Contract> {
    CONTRACTS.iter().find(|contract| contract.entry == entry)
}

/// A launch refused before the driver: the entry, the launch, what its contract requires and
/// how to launch it instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub entry: &'static str,
    pub launch: Launch,
    pub requirement: String,
    pub fix: String,
    pub source: Source,
}

/// Where a refused requirement comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The entry's doc comment, in this file of `kernels/src`.
    Doc(&'static str),
    /// The device's limits.
    Device,
    /// The runner's table, which has no contract for the entry.
    NoContract,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Launch { grid, block, shared_bytes, cluster, .. } = self.launch;
        let cluster = if cluster > 1 { format!("clusters of {cluster}") } else { "no clusters".to_owned() };
        let source = match self.source {
            Source::Doc(file) => format!("kernels/src/{file}, {}'s doc comment", self.entry),
            Source::Device => "the device's limits, sm_90".to_owned(),
            Source::NoContract => "gpu-runner's cases/contract.rs".to_owned(),
        };
        write!(
            f,
            "{} refused before the driver: grid {}×{}, block {}×{}, {shared_bytes} bytes of dynamic shared \
             memory, {cluster}; its contract requires {} ({source}); fix: {}",
            self.entry, grid.0, grid.1, block.0, block.1, self.requirement, self.fix
        )
    }
}

impl std::error::Error for Refusal {}

/// What a broken rule requires, and the fix.
type Broken = Option<(String, String)>;

fn broken(requirement: String, fix: String) -> Broken {
    Some((requirement, fix))
}

/// Whether `entry` may be launched as `case.launch` on `case.shape`: the entry's block, grid,
/// clusters and dynamic shared memory, then the device's limits, the first rule broken refused
/// (naming the doc or the device). An entry without a contract is refused too.
pub fn check(entry: &'static str, case: &Case) -> Result<(), Refusal> {
    let refuse = |(requirement, fix): (String, String), source: Source| Refusal {
        entry,
        launch: case.launch,
        requirement,
        fix,
        source,
    };
    let Some(contract) = contract(entry) else {
        let requirement = "a launch contract, and the runner's table has none for it".to_owned();
        let fix = "add the entry's contract, from its doc comment, to CONTRACTS".to_owned();
        return Err(refuse((requirement, fix), Source::NoContract));
    };
    let rules = [
        contract.block.broken(case.launch.block),
        contract.grid.broken(case),
        contract.clusters.broken(case.launch.cluster),
        contract.shared.broken(&case.launch),
    ];
    if let Some(rule) = rules.into_iter().flatten().next() {
        return Err(refuse(rule, Source::Doc(contract.file)));
    }
    match device_limits(&case.launch) {
        Some(rule) => Err(refuse(rule, Source::Device)),
        None => Ok(()),
    }
}

/// The limits of sm_90 (the H200) every launch keeps.
fn device_limits(launch: &Launch) -> Broken {
    let Launch { grid, block, shared_bytes, cluster, .. } = *launch;
    let threads = u64::from(block.0) * u64::from(block.1);
    if threads == 0 || threads > u64::from(MAX_BLOCK_THREADS) {
        return broken(
            format!("1 to {MAX_BLOCK_THREADS} threads per block"),
            format!("launch at most {MAX_BLOCK_THREADS} threads per block"),
        );
    }
    if grid.0 == 0 || grid.1 == 0 || grid.0 > MAX_GRID.0 || grid.1 > MAX_GRID.1 {
        return broken(
            format!("a grid of 1 to {} × 1 to {} blocks", MAX_GRID.0, MAX_GRID.1),
            "launch at least one block each way, within the device's grid".to_owned(),
        );
    }
    if shared_bytes > MAX_DYNAMIC_SHARED_BYTES {
        return broken(
            format!("at most {MAX_DYNAMIC_SHARED_BYTES} bytes of dynamic shared memory per block"),
            "ask for less dynamic shared memory".to_owned(),
        );
    }
    if cluster == 0 || cluster > MAX_CLUSTER_BLOCKS || !grid.0.is_multiple_of(cluster) {
        return broken(
            format!("clusters of 1 to {MAX_CLUSTER_BLOCKS} blocks whose size divides gridDim.x"),
            format!("launch gridDim.x as a multiple of a cluster of at most {MAX_CLUSTER_BLOCKS} blocks"),
        );
    }
    None
}

impl Block {
    fn broken(self, (x, y): (u32, u32)) -> Broken {
        let fits = match self {
            Block::Any => true,
            Block::OneDimensional => y == 1,
            Block::PowerOfTwo { max } => y == 1 && x.is_power_of_two() && x <= max,
            Block::MultipleOf { multiple, max } => y == 1 && x.is_multiple_of(multiple) && x <= max,
            Block::Exactly(ex, ey) => (x, y) == (ex, ey),
        };
        if fits {
            return None;
        }
        let threads = x.saturating_mul(y).max(1);
        let (requirement, suggested) = match self {
            Block::Any | Block::OneDimensional => ("a one-dimensional block".to_owned(), (threads, 1)),
            Block::PowerOfTwo { max } => (
                format!("a one-dimensional block, blockDim.x a power of two, at most {max}"),
                (1 << threads.min(max).ilog2(), 1),
            ),
            Block::MultipleOf { multiple, max } => (
                format!("a one-dimensional block, blockDim.x a multiple of {multiple}, at most {max}"),
                ((threads / multiple * multiple).clamp(multiple, max), 1),
            ),
            Block::Exactly(ex, ey) => (format!("blockDim = ({ex}, {ey})"), (ex, ey)),
        };
        broken(requirement, format!("launch blockDim = ({}, {})", suggested.0, suggested.1))
    }

    /// A block shape this rule refuses, for an out-of-contract launch: past the device's
    /// threads per block where any block is allowed.
    pub fn unsupported(self) -> (u32, u32) {
        match self {
            Block::Any => (2 * MAX_BLOCK_THREADS, 1),
            Block::OneDimensional => (32, 2),
            Block::PowerOfTwo { max } => (max - max / 4, 1),
            Block::MultipleOf { multiple, max } => (max + multiple, 1),
            Block::Exactly(x, 1) => (x + 32, 1),
            Block::Exactly(x, y) => (x * y, 1),
        }
    }
}

impl Shared {
    /// The bytes a launch needs, and how they are counted (empty for a constant).
    pub fn minimum(self, launch: &Launch) -> (u32, String) {
        let threads = launch.block.0;
        match self {
            Shared::Unstated | Shared::None => (0, "none".to_owned()),
            Shared::Bytes(bytes) => (bytes, String::new()),
            Shared::PerThread(bytes) => {
                (threads * bytes, format!("blockDim.x · {bytes} = {threads} · {bytes}"))
            }
            Shared::ClusterBytes { clustered, .. } if launch.cluster > 1 => {
                (clustered, format!("{clustered} bytes in clusters"))
            }
            Shared::ClusterBytes { plain, .. } => (plain, format!("{plain} bytes without clusters")),
            Shared::WarpPartials { width } => {
                let warps = threads / 32;
                let bytes = if warps > 1 { 4 * warps * 8 * width } else { 0 };
                (bytes, format!("4 · warps · 8 · width = 4 · {warps} · 8 · {width}, none for one warp"))
            }
        }
    }

    fn broken(self, launch: &Launch) -> Broken {
        let (bytes, counted) = self.minimum(launch);
        if launch.shared_bytes >= bytes {
            return None;
        }
        let counted = if counted.is_empty() { counted } else { format!(" ({counted})") };
        broken(
            format!("at least {bytes} bytes of dynamic shared memory{counted}"),
            format!("launch with {bytes} bytes of dynamic shared memory"),
        )
    }
}

impl Grid {
    fn broken(self, case: &Case) -> Broken {
        let (grid, block) = (case.launch.grid, case.launch.block);
        match (self, case.shape) {
            (Grid::Any, _) => None,
            (Grid::OneDimensional, _) if grid.1 == 1 => None,
            (Grid::OneDimensional, _) => broken(
                "a one-dimensional grid".to_owned(),
                format!("launch gridDim = ({}, 1)", grid.0 * grid.1),
            ),
            (Grid::CoversElements, Shape::Elements(n)) => {
                if grid.1 == 1 && u64::from(grid.0) * u64::from(block.0) >= n as u64 {
                    return None;
                }
                let blocks = n.div_ceil(block.0.max(1) as usize).max(1);
                broken(
                    format!("a one-dimensional grid covering n = {n}: gridDim.x · blockDim.x ≥ n"),
                    format!("launch gridDim = ({blocks}, 1)"),
                )
            }
            (Grid::GemmTiles { rows, columns }, Shape::Gemm { m, n, .. }) => {
                let tiles = |len: usize, tile: u32| len.div_ceil(tile as usize).max(1);
                let wanted = (tiles(n, columns), tiles(m, rows));
                if (grid.0 as usize, grid.1 as usize) == wanted {
                    return None;
                }
                broken(
                    format!(
                        "gridDim = (⌈n / {columns}⌉, ⌈m / {rows}⌉), at least one block each way, for m = {m}, n = {n}"
                    ),
                    format!("launch gridDim = ({}, {})", wanted.0, wanted.1),
                )
            }
            (rule, shape) => broken(
                format!("a shape its grid rule ({rule:?}) is stated for, not {shape}"),
                "launch it on the catalogue's kind of shape".to_owned(),
            ),
        }
    }
}

impl Clusters {
    fn broken(self, cluster: u32) -> Broken {
        match self {
            Clusters::UpTo(max) if cluster > max => broken(
                format!("clusters of at most {max} blocks"),
                format!("launch in clusters of 2 to {max} blocks, or none"),
            ),
            _ => None,
        }
    }
}

/// One launch of `entry` (one of `kernel`'s) outside its contract, made from the first
/// catalogue case that launches it (correctness, special-value or decode cases on `sms`
/// multiprocessors, random values, aligned buffers): without dynamic shared memory where its
/// contract asks for some on that case's launch, else with a block shape its contract does
/// not support ([`Block::unsupported`]: past the device's 1024 threads where the doc allows any
/// block). `None` when the entry has no contract or no case launches it.
pub fn out_of_contract_case(kernel: Kernel, entry: &str, sms: usize) -> Option<Case> {
    let contract = contract(entry)?;
    let launching: Vec<Case> = correctness_cases(kernel, sms)
        .into_iter()
        .chain(decode_cases(kernel))
        .filter(|case| case.entry() == entry)
        .map(|case| Case { values: Values::Random, offset: 0, ..case })
        .collect();
    let without_shared = launching
        .iter()
        .find(|case| contract.shared.minimum(&case.launch).0 > 0)
        .map(|case| Case { launch: Launch { shared_bytes: 0, ..case.launch }, ..*case });
    let case = without_shared.or_else(|| {
        let case = launching.first()?;
        Some(Case { launch: Launch { block: contract.block.unsupported(), ..case.launch }, ..*case })
    })?;
    // Neither change moves a case to another entry; a test holds that too.
    (case.entry() == entry).then_some(case)
}

/// What the main run's out-of-contract launches gave, recorded in its JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContractRun {
    /// The entries the run launches.
    pub entries: usize,
    /// Their out-of-contract launches refused by their contract before the driver.
    pub refused: usize,
    pub launches: Vec<OutOfContract>,
}

/// One out-of-contract launch and what came of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutOfContract {
    pub entry: String,
    /// The launch, as the tables write it (empty when none could be made).
    pub launch: String,
    pub refused: bool,
    /// The refusal, or what happened instead.
    pub outcome: String,
}

impl ContractRun {
    /// The run's summary line.
    pub fn line(&self) -> String {
        format!(
            "launch contracts: {} entries, {} out-of-contract launches refused",
            self.entries, self.refused
        )
    }

    /// Whether every entry had an out-of-contract launch and each was refused.
    pub fn all_refused(&self) -> bool {
        self.refused == self.entries && self.launches.iter().all(|launch| launch.refused)
    }

    /// The launches that were not refused.
    pub fn not_refused(&self) -> impl Iterator<Item = &OutOfContract> {
        self.launches.iter().filter(|launch| !launch.refused)
    }
}

/// For each entry of `kernels`, its [`out_of_contract_case`] passed to `launch` (the runner's
/// own launch path), which must fail with a [`Refusal`] naming that entry (through any
/// context); a launch that ran, failed otherwise, or could not be made is not refused.
pub fn launch_out_of_contract(
    kernels: &[Kernel],
    sms: usize,
    mut launch: impl FnMut(&Case) -> anyhow::Result<()>,
) -> ContractRun {
    let mut launches = Vec::new();
    for &kernel in kernels {
        for entry in kernel.entries() {
            let Some(case) = out_of_contract_case(kernel, entry, sms) else {
                let outcome = "no catalogue case launches it: no out-of-contract launch made".to_owned();
                launches.push(OutOfContract {
                    entry: entry.to_owned(),
                    launch: String::new(),
                    refused: false,
                    outcome,
                });
                continue;
            };
            let (refused, outcome) = match launch(&case) {
                Ok(()) => (false, "NOT refused: the launch reached the driver and ran".to_owned()),
                Err(error) => match error.downcast_ref::<Refusal>() {
                    Some(refusal) if refusal.entry == entry => (true, refusal.to_string()),
                    _ => (false, format!("NOT refused by its contract; it failed otherwise: {error:#}")),
                },
            };
            launches.push(OutOfContract {
                entry: entry.to_owned(),
                launch: case.launch.to_string(),
                refused,
                outcome,
            });
        }
    }
    let refused = launches.iter().filter(|launch| launch.refused).count();
    ContractRun { entries: launches.len(), refused, launches }
}
