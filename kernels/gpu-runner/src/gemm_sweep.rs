//! The GEMM shape sweep (issue 29, item 5): the wgmma GEMM against cuBLAS on the shapes a model
//! runs, side by side in the main run. GPU-free: the shapes ([`SWEEP`]), their cases (checked
//! against the kernel's launch contract), the summary a run records ([`GemmSweep`]: per shape
//! our time, cuBLAS's, the speed ratio, and the minimum over the sweep), and the verifier's
//! verdict on each wgmma entry, read from the kernels build's verify reports.
//!
//! Which entries: [`ENTRIES`], `gemm_bf16_wgmma_bf16` and `gemm_bf16_wgmma_wide_bf16`, bf16 A
//! and B in and C stored as bf16: the peer's `torch.matmul` on bf16 operands returns bf16, so
//! this is the like-for-like product (the f32-output entries write twice C's bytes, which
//! cuBLAS is not asked to). The shapes run as timing cases of both entries in the main run
//! (`main.rs` adds those the catalogue lacks), timed as every timing case is
//! ([`crate::timing`]) and checked at sampled elements; "ours" on a shape is the time of the
//! entry the dispatcher picks for it ([`crate::gemm_dispatch`]), and both entries' times are
//! kept beside it. The peer times `torch.matmul` on random bf16 operands of the same shapes and
//! distribution, the same way. [`crate::report::sweep_of`] gathers both from the run's rows
//! and peer timings.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::cases::{Case, Kernel, Shape, launch_for};
use crate::gemm_wgmma::{BLOCK_THREADS, GemmShape};

/// The entries the sweep times, narrow tile first (see the module's documentation for why
/// these); the decode entry only on the shapes [`sweeps`] gives it.
pub const ENTRIES: [Kernel; 3] =
    [Kernel::GemmBf16WgmmaBf16, Kernel::GemmBf16WgmmaWideBf16, Kernel::GemmBf16DecodeBf16];

/// The most rows of A the sweep times the decode entry on: past the dispatcher's limit
/// ([`crate::gemm_dispatch::DECODE_MAX_ROWS`]) too, so that the run shows where the wgmma tiles
/// overtake it; far past it the decode entry reads B once per 16 rows and only costs time.
pub const DECODE_SWEEP_MAX_ROWS: usize = 64;

/// Whether the sweep times `entry` on `shape`: the wgmma entries everywhere, the decode entry
/// on few rows of A.
pub fn sweeps(entry: Kernel, shape: &SweepShape) -> bool {
    entry != Kernel::GemmBf16DecodeBf16 || shape.m <= DECODE_SWEEP_MAX_ROWS
}

/// What a model runs a product of this shape for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// m = n = k: the classic benchmark.
    Square,
    /// Many tokens at once through a layer's weights (the prompt's forward pass).
    Prefill,
    /// A large C from a short sum: little work per byte of C.
    ShortK,
    /// Few rows against a wide weight: few tiles of C for 132 multiprocessors.
    TallWide,
    /// A batch of m tokens generating one each against a layer's weights.
    Decode,
    /// Sizes off the 128 × 128 tile and the 64-wide stage in every dimension.
    Odd,
}

impl Category {
    pub const ALL: [Category; 6] = [
        Category::Square,
        Category::Prefill,
        Category::ShortK,
        Category::TallWide,
        Category::Decode,
        Category::Odd,
    ];

    /// How tables name it.
    pub fn label(self) -> &'static str {
        match self {
            Category::Square => "square",
            Category::Prefill => "prefill",
            Category::ShortK => "short k",
            Category::TallWide => "tall/wide",
            Category::Decode => "decode",
            Category::Odd => "odd",
        }
    }
}

/// One product of the sweep: `C (m × n) = A (m × k) · Bᵀ` with B `n × k` (a layer's weight).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepShape {
    pub category: Category,
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

const fn shape(category: Category, m: usize, n: usize, k: usize) -> SweepShape {
    SweepShape { category, m, n, k }
}

/// The decode batches of the sweep, each against the 14336 × 4096 weight of a feed-forward
/// layer (n = 14336, k = 4096).
pub const DECODE_ROWS: [usize; 6] = [1, 8, 16, 32, 64, 128];

/// The sweep: the shapes (6144³, 512×4096×14336, 2048×8192×2048, 256×14336×4096,
/// 8192×8192×1024, 8×4096×4096) among the square ones, prefill through a 4096-wide model's
/// layers, decode batches, and odd sizes large enough to time (6 to 140 GFLOP; rows a multiple
/// of 8 values, so that neither side's operands need a pitch the other lacks).
pub const SWEEP: [SweepShape; 18] = {
    use Category::*;
    [
        shape(Square, 4096, 4096, 4096),
        shape(Square, 6144, 6144, 6144),
        shape(Square, 8192, 8192, 8192),
        shape(Prefill, 512, 4096, 14336),
        shape(Prefill, 2048, 8192, 2048),
        shape(Prefill, 4096, 14336, 4096),
        shape(ShortK, 8192, 8192, 1024),
        shape(TallWide, 256, 14336, 4096),
        shape(Decode, DECODE_ROWS[0], 14336, 4096),
        shape(Decode, DECODE_ROWS[1], 14336, 4096),
        shape(Decode, DECODE_ROWS[2], 14336, 4096),
        shape(Decode, DECODE_ROWS[3], 14336, 4096),
        shape(Decode, DECODE_ROWS[4], 14336, 4096),
        shape(Decode, DECODE_ROWS[5], 14336, 4096),
        shape(Decode, 8, 4096, 4096),
        shape(Odd, 1000, 3000, 1000),
        shape(Odd, 3000, 5000, 3000),
        shape(Odd, 4097, 4095, 4104),
    ]
};

impl SweepShape {
    /// Floating-point operations of the product: a multiply and an add per term.
    pub fn flops(&self) -> u64 {
        2 * self.m as u64 * self.n as u64 * self.k as u64
    }

    /// The runner's shape.
    pub fn shape(&self) -> Shape {
        Shape::Gemm { m: self.m, n: self.n, k: self.k }
    }

    pub fn dims(&self) -> [usize; 3] {
        [self.m, self.n, self.k]
    }
}

impl std::fmt::Display for SweepShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}×{}×{}", self.m, self.n, self.k)
    }
}

/// The cases of `shapes` on `entry` (one of [`ENTRIES`]), launched by its contract, or the
/// contract's refusal of the first shape it cannot take ([`GemmShape::check`], naming the entry
/// and the shape).
pub fn cases(shapes: &[SweepShape], entry: Kernel) -> Result<Vec<Case>, String> {
    shapes
        .iter()
        .filter(|s| sweeps(entry, s))
        .map(|s| {
            GemmShape::new(s.m, s.n, s.k).check(entry.entry())?;
            Ok(Case::new(entry, s.shape(), launch_for(entry, s.shape(), BLOCK_THREADS, None)))
        })
        .collect()
}

/// One entry's time on a shape of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryTime {
    pub entry: String,
    /// Its median time per launch (the fastest of its rows on the shape); none where it did
    /// not run.
    pub ms: Option<f64>,
}

/// What a run measured on one shape of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub category: Category,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Our median time per launch: the time of the entry the dispatcher picks ([`Self::entry`]);
    /// none where it did not run.
    pub ours_ms: Option<f64>,
    /// The entry the dispatcher picks for the shape (older runs, timing one entry: none).
    #[serde(default)]
    pub entry: Option<String>,
    /// Every timed entry's time on the shape, in [`ENTRIES`]' order (older runs: empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<EntryTime>,
    /// The peer's median time per call on the same shape; none without a peer.
    pub cublas_ms: Option<f64>,
    /// Every row of every entry on this shape passed its check.
    pub passed: bool,
}

impl SweepPoint {
    pub fn shape(&self) -> SweepShape {
        SweepShape { category: self.category, m: self.m, n: self.n, k: self.k }
    }

    /// TFLOP/s at `ms` per product.
    pub fn tflops(&self, ms: f64) -> f64 {
        self.shape().flops() as f64 / (ms * 1e-3) / 1e12
    }

    /// Our speed as a fraction of cuBLAS's (its time over ours: 1 is as fast, below 1 slower),
    /// where both were timed.
    pub fn ratio(&self) -> Option<f64> {
        match (self.ours_ms, self.cublas_ms) {
            (Some(ours), Some(cublas)) if ours > 0.0 && ours.is_finite() && cublas.is_finite() => {
                Some(cublas / ours)
            }
            _ => None,
        }
    }
}

/// The sweep as a run records it (`RunDocument::gemm_sweep`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GemmSweep {
    /// The entries timed ([`ENTRIES`]), by name, joined with ", " (older runs: the one entry).
    pub entry: String,
    /// What the peer called, in its words (none without a peer).
    pub peer_call: Option<String>,
    pub points: Vec<SweepPoint>,
    /// The verifier's verdicts on the wgmma entries, where the run was given the build's
    /// verify reports.
    pub verifier: Option<VerifierVerdicts>,
}

impl GemmSweep {
    /// The lowest ratio over the points that were timed on both sides and passed their check,
    /// with its point.
    pub fn minimum(&self) -> Option<(&SweepPoint, f64)> {
        self.points
            .iter()
            .filter(|p| p.passed)
            .filter_map(|p| Some((p, p.ratio()?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The points left out of the minimum: no time on one side, or a failed check.
    pub fn left_out(&self) -> Vec<&SweepPoint> {
        self.points.iter().filter(|p| !p.passed || p.ratio().is_none()).collect()
    }

    /// The line under the table: `minimum ratio over the sweep: X (shape)`, and what was left
    /// out of it.
    pub fn minimum_line(&self) -> String {
        let mut line = match self.minimum() {
            Some((point, ratio)) => {
                format!("minimum ratio over the sweep: {ratio:.2} ({})", point.shape())
            }
            None => "minimum ratio over the sweep: none (no shape timed on both sides and passed)".to_owned(),
        };
        let left: Vec<String> = self.left_out().iter().map(|p| p.shape().to_string()).collect();
        if !left.is_empty() {
            line.push_str(&format!("; left out (untimed, no peer or failed): {}", left.join(", ")));
        }
        line
    }
}

/// The verifier's verdict on one wgmma entry, as the kernels build's verify report gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryVerdict {
    pub entry: String,
    /// The report's word for it (`verified`, `opted_out`, `unverified`, `rejected`,
    /// `skipped`), or `missing` where no report holds the entry.
    pub verdict: String,
    /// For anything but `verified`: the opt-out's reason, or the rejections or gaps.
    pub detail: Option<String>,
}

/// The wgmma entries' verdicts and the folder they were read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifierVerdicts {
    pub source: String,
    pub entries: Vec<EntryVerdict>,
}

impl VerifierVerdicts {
    /// One line per entry: `entry: verdict (detail)`.
    pub fn lines(&self) -> Vec<String> {
        self.entries
            .iter()
            .map(|e| match &e.detail {
                Some(detail) => format!("{}: {} ({detail})", e.entry, e.verdict),
                None => format!("{}: {}", e.entry, e.verdict),
            })
            .collect()
    }
}

/// The fields of the driver's crate report (`plugin::build_report::CrateReport`) the verdicts
/// need; the others are ignored.
#[derive(Deserialize)]
struct CrateFile {
    scopes: Vec<ScopeFile>,
}

#[derive(Deserialize)]
struct ScopeFile {
    kernel: String,
    verdict: String,
    #[serde(default)]
    opt_out: Option<String>,
    #[serde(default)]
    findings: Vec<FindingFile>,
    #[serde(default)]
    gaps: Vec<FindingFile>,
}

#[derive(Deserialize)]
struct FindingFile {
    rule: String,
    message: String,
}

/// What a scope's verdict needs said beside it: the opt-out's reason, or its first rejection
/// or gap and how many there are.
fn detail(scope: &ScopeFile) -> Option<String> {
    if let Some(reason) = &scope.opt_out {
        return Some(format!("reason: {reason}"));
    }
    let (what, findings) =
        if scope.findings.is_empty() { ("gap", &scope.gaps) } else { ("rejection", &scope.findings) };
    let first = findings.first()?;
    Some(format!("{} {what}(s), first {}: {}", findings.len(), first.rule, first.message))
}

/// The verdict on every wgmma entry ([`Kernel::wgmma_variant`]) in the crate reports of a
/// kernels build (`kernels/target/verify-reports/*.json`, one per crate).
pub fn read_verdicts(dir: &Path) -> Result<VerifierVerdicts> {
    let listing = std::fs::read_dir(dir).with_context(|| {
        format!(
            "no verify reports at {}: build the kernels with `just kernels` (it writes them there)",
            dir.display()
        )
    })?;
    let mut scopes = Vec::new();
    for entry in listing {
        let path = entry.with_context(|| format!("listing {}", dir.display()))?.path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let report: CrateFile = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a verify report; delete it and rebuild the kernels with `just kernels`",
                path.display()
            )
        })?;
        scopes.extend(report.scopes);
    }
    if scopes.is_empty() {
        bail!("no verify report in {}: build the kernels with `just kernels`", dir.display());
    }
    let entries = Kernel::ALL
        .into_iter()
        .filter(|k| k.wgmma_variant().is_some())
        .map(|kernel| match scopes.iter().find(|s| s.kernel == kernel.entry()) {
            Some(scope) => EntryVerdict {
                entry: kernel.entry().to_owned(),
                verdict: scope.verdict.clone(),
                detail: if scope.verdict == "verified" { None } else { detail(scope) },
            },
            None => EntryVerdict {
                entry: kernel.entry().to_owned(),
                verdict: "missing".to_owned(),
                detail: Some(format!(
                    "no scope of this name in {}: rebuild with `just kernels`",
                    dir.display()
                )),
            },
        })
        .collect();
    Ok(VerifierVerdicts { source: dir.display().to_string(), entries })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::work;

    #[test]
    fn the_sweep_covers_every_category_with_its_flops() {
        assert!(SWEEP.len() >= 12);
        for category in Category::ALL {
            assert!(SWEEP.iter().any(|s| s.category == category), "no {} shape", category.label());
        }
        for s in SWEEP {
            // 2·m·n·k, and the same count the runner's rows carry for the entry.
            assert_eq!(s.flops(), 2 * (s.m * s.n * s.k) as u64, "{s}");
            for entry in ENTRIES {
                assert_eq!(work(entry, s.shape()).flops, s.flops(), "{s}");
            }
            // Rows of 16 bytes on both sides: no pitch for ours that the peer's operands lack.
            assert_eq!(s.k % 8, 0, "{s}");
            // Large enough to time: at least a few microseconds on the H200.
            assert!(s.flops() >= 100_000_000, "{s}");
        }
        assert_eq!(SWEEP[1].flops(), 2 * 6144u64.pow(3));
        assert_eq!(SWEEP.iter().filter(|s| s.category == Category::Square).count(), 3);
        let decode: Vec<usize> =
            SWEEP.iter().filter(|s| s.category == Category::Decode && s.n == 14336).map(|s| s.m).collect();
        assert_eq!(decode, DECODE_ROWS);
        // The measured shapes are all in it.
        for dims in [
            [6144; 3],
            [512, 4096, 14336],
            [2048, 8192, 2048],
            [256, 14336, 4096],
            [8192, 8192, 1024],
            [8, 4096, 4096],
        ] {
            assert!(SWEEP.iter().any(|s| s.dims() == dims), "{dims:?}");
        }
        // Odd shapes leave tails of the 128 × 128 tile in m and n, and of the 64-wide stage in k.
        for s in SWEEP.iter().filter(|s| s.category == Category::Odd) {
            assert!(s.m % 128 != 0 && s.n % 128 != 0 && s.k % 64 != 0, "{s}");
        }
        for (entry, grid) in ENTRIES.into_iter().zip([(32, 32), (16, 32)]) {
            let cases = cases(&SWEEP, entry).unwrap();
            assert_eq!(cases.len(), SWEEP.len());
            assert!(cases.iter().all(|c| c.kernel == entry && c.launch.block == (BLOCK_THREADS, 1)));
            assert_eq!(cases[0].launch.grid, grid, "{entry}");
        }
    }

    #[test]
    fn a_shape_outside_the_contract_is_refused_by_the_kernels_check() {
        let too_wide = shape(Category::Odd, 4, 1 << 32, 8);
        let error = cases(&[SWEEP[0], too_wide], ENTRIES[0]).unwrap_err();
        assert_eq!(error, GemmShape::new(4, 1 << 32, 8).check(ENTRIES[0].entry()).unwrap_err());
        assert!(
            error.starts_with("gemm_bf16_wgmma_bf16: shape 4x4294967296x8: n = 4294967296 does not fit"),
            "{error}"
        );
        assert!(error.ends_with("split the product into smaller ones"), "{error}");
    }

    fn point(m: usize, ours: Option<f64>, cublas: Option<f64>, passed: bool) -> SweepPoint {
        SweepPoint {
            category: Category::Decode,
            m,
            n: 4096,
            k: 4096,
            ours_ms: ours,
            entry: None,
            entries: Vec::new(),
            cublas_ms: cublas,
            passed,
        }
    }

    #[test]
    fn the_summary_names_the_minimum_and_its_shape() {
        let sweep = GemmSweep {
            entry: ENTRIES[0].entry().to_owned(),
            peer_call: Some("torch.matmul".to_owned()),
            points: vec![
                point(1, Some(0.02), Some(0.01), true),   // 0.50
                point(8, Some(0.01), Some(0.008), true),  // 0.80
                point(16, Some(0.04), Some(0.01), false), // 0.25, but failed
                point(32, Some(0.01), None, true),        // no peer
                point(64, Some(0.01), Some(0.012), true), // 1.20
            ],
            verifier: None,
        };
        let (at, ratio) = sweep.minimum().unwrap();
        assert_eq!((at.m, ratio), (1, 0.5));
        assert_eq!(sweep.points[4].ratio(), Some(1.2));
        // 2·8·4096·4096 FLOP in 0.01 ms: 26.8 TFLOP/s.
        assert!((sweep.points[1].tflops(0.01) - 26.843545600).abs() < 1e-6);
        assert_eq!(
            sweep.minimum_line(),
            "minimum ratio over the sweep: 0.50 (1×4096×4096); left out (untimed, no peer or failed): \
             16×4096×4096, 32×4096×4096"
        );
        let empty = GemmSweep { points: vec![point(1, None, Some(0.1), true)], ..sweep };
        assert!(empty.minimum().is_none());
        assert!(empty.minimum_line().starts_with("minimum ratio over the sweep: none"));
    }

    #[test]
    fn verdicts_are_read_from_the_build_reports_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let report = serde_json::json!({
            "crate": "kernels", "import_seconds": 0.1, "verify_seconds": 0.1, "compile_seconds": 1.0,
            "scopes": [
                {"kernel": "gemm_bf16_wgmma", "verdict": "verified", "functions": 3},
                {"kernel": "gemm_bf16_wgmma_bias", "verdict": "opted_out", "opt_out": "not proven"},
                {"kernel": "gemm_bf16_wgmma_bf16", "verdict": "unverified",
                 "gaps": [{"rule": "undecided", "message": "the layout", "file": "a.rs", "line": 3}]},
                {"kernel": "gemm_bf16_wgmma_wide", "verdict": "verified", "functions": 3},
                {"kernel": "vector_add", "verdict": "skipped"}
            ]
        });
        std::fs::write(dir.path().join("kernels.json"), report.to_string()).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a report").unwrap();
        let verdicts = read_verdicts(dir.path()).unwrap();
        let missing = |entry: &str| {
            format!(
                "{entry}: missing (no scope of this name in {}: rebuild with `just kernels`)",
                dir.path().display()
            )
        };
        assert_eq!(
            verdicts.lines(),
            [
                "gemm_bf16_wgmma: verified".to_owned(),
                "gemm_bf16_wgmma_bias: opted_out (reason: not proven)".to_owned(),
                "gemm_bf16_wgmma_bf16: unverified (1 gap(s), first undecided: the layout)".to_owned(),
                missing("gemm_bf16_wgmma_bias_bf16"),
                "gemm_bf16_wgmma_wide: verified".to_owned(),
                missing("gemm_bf16_wgmma_wide_bias"),
                missing("gemm_bf16_wgmma_wide_bf16"),
                missing("gemm_bf16_wgmma_wide_bias_bf16"),
                missing("gemm_bf16_decode_bf16"),
            ]
        );
        std::fs::write(dir.path().join("broken.json"), "{").unwrap();
        let error = format!("{:#}", read_verdicts(dir.path()).unwrap_err());
        assert!(
            error.contains("broken.json is not a verify report") && error.contains("just kernels"),
            "{error}"
        );
        let error = format!("{:#}", read_verdicts(&dir.path().join("absent")).unwrap_err());
        assert!(error.contains("absent") && error.contains("just kernels"), "{error}");
    }
}
