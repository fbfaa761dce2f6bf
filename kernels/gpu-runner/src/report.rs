//! Turning measurements into the tables `just gpu` prints: per kernel, one row per case (shape,
//! launch, result, median time, achieved rate, fraction of the roofline, peer ratio), then a
//! summary of each kernel's large shape against the issue's targets.

use std::fmt::Write as _;

use serde::{Deserialize, Deserializer, Serialize};

use crate::cases::contract::ContractRun;
use crate::cases::{CaseId, Kernel, Roofline, Work};
use crate::gemm_dispatch;
use crate::gemm_sweep::{self, EntryTime, GemmSweep, SweepPoint, SweepShape, VerifierVerdicts};
use crate::gemm_wgmma::GemmShape;
use crate::peer::{PeerTiming, peer_dims};
use crate::timing::{Method, fraction_of_same_copy};

/// Where a run happened and on which inputs: the device's name and the seed of the random
/// inputs (flattened into both documents the runner writes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOn {
    pub device: String,
    pub seed: u64,
}

/// What `--json FILE` writes for a run, and what `just report` charts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDocument {
    #[serde(flatten)]
    pub run: RunOn,
    pub multiprocessors: usize,
    /// The device-to-device copy bandwidth of the run (none in a launch-once run).
    pub copy_bytes_per_s: Option<f64>,
    pub rows: Vec<Row>,
    pub verdicts: Vec<Verdict>,
    pub peers: Vec<PeerTiming>,
    /// The GEMM shape sweep against cuBLAS ([`gemm_sweep`]); none in a run without
    /// `gemm_bf16_wgmma_bf16`, a launch-once run, or a file from before the sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemm_sweep: Option<GemmSweep>,
    /// Each entry's out-of-contract launch and whether its contract refused it
    /// ([`crate::cases::contract`]); none in a file from before the contracts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_contracts: Option<ContractRun>,
}

/// JSON has no NaN: serde_json writes an untimed case's NaN median as `null`, read back as NaN.
fn nan_when_null<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(deserializer)?.unwrap_or(f64::NAN))
}

/// One measured case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    #[serde(flatten)]
    pub case: CaseId,
    pub dims: Vec<usize>,
    pub passed: bool,
    pub result: String,
    /// Median time per launch, in milliseconds (`method` says how it was timed).
    #[serde(deserialize_with = "nan_when_null")]
    pub median_ms: f64,
    #[serde(flatten)]
    pub work: Work,
    /// A timing shape (large, several times the L2, or a decode shape) rather than a
    /// correctness edge case.
    pub timing_shape: bool,
    /// A decode shape: few rows, inside the L2, judged by the decode targets.
    pub decode: bool,
    /// How `median_ms` was timed (none in a launch-once run, or in a file from before graphs).
    #[serde(default)]
    pub method: Option<Method>,
    /// For a decode shape: the median time of a device copy of the same traffic, timed the
    /// same way ([`crate::timing`]); its "of copy" is against this rather than the 1 GiB copy.
    #[serde(default)]
    pub same_bytes_copy_ms: Option<f64>,
}

/// What the row achieved: bytes per second, FLOP per second.
pub fn rates(work: Work, median_ms: f64) -> (f64, f64) {
    let seconds = median_ms * 1e-3;
    (work.bytes as f64 / seconds, work.flops as f64 / seconds)
}

impl Row {
    /// Achieved bandwidth over the copy bandwidth measured in the same run: for a decode
    /// shape, over a copy of its own traffic timed the same way, where one was timed; else
    /// over the large copy's bandwidth.
    pub fn fraction_of_copy(&self, copy_bytes_per_s: f64) -> f64 {
        match self.same_bytes_copy_ms {
            Some(copy_ms) if self.decode => fraction_of_same_copy(self.median_ms, copy_ms),
            _ => rates(self.work, self.median_ms).0 / copy_bytes_per_s,
        }
    }
}

/// The peer's time for the shape of `row`, if it was timed.
pub fn peer_for<'a>(row: &Row, peers: &'a [PeerTiming]) -> Option<&'a PeerTiming> {
    let dims = match Kernel::from_entry(&row.case.kernel) {
        Some(kernel) => peer_dims(kernel, &row.dims),
        None => row.dims.clone(),
    };
    peers.iter().find(|p| p.kernel == row.case.kernel && p.dims == dims)
}

fn human_rate(kernel: Kernel, row: &Row) -> String {
    let (bytes, flops) = rates(row.work, row.median_ms);
    match kernel.roofline() {
        Roofline::Bandwidth { .. } => format!("{:.0} GB/s", bytes / 1e9),
        Roofline::Arithmetic => format!("{:.2} TFLOP/s", flops / 1e12),
    }
}

/// The table of one kernel's rows.
pub fn kernel_table(kernel: Kernel, rows: &[Row], copy_bytes_per_s: f64, peers: &[PeerTiming]) -> String {
    let header = ["shape", "launch", "result", "median", "rate", "of copy", "peer", "ours/peer"];
    let mut lines: Vec<[String; 8]> = vec![header.map(str::to_owned)];
    for row in rows.iter().filter(|r| r.case.kernel == kernel.entry()) {
        // An untimed row (a launch-once run, a chained check) shows dashes, not NaN.
        let timed = !row.median_ms.is_nan();
        let fraction = match kernel.roofline() {
            Roofline::Bandwidth { .. } if timed => {
                format!("{:.0} %", 100.0 * row.fraction_of_copy(copy_bytes_per_s))
            }
            _ => "—".to_owned(),
        };
        let (peer, ratio) = match peer_for(row, peers) {
            Some(p) if row.timing_shape => {
                (format!("{:.4} ms", p.median_ms), format!("{:.2}", row.median_ms / p.median_ms))
            }
            _ => ("—".to_owned(), "—".to_owned()),
        };
        lines.push([
            row.case.shape.clone(),
            row.case.launch.clone(),
            row.result.clone(),
            if timed { format!("{:.4} ms", row.median_ms) } else { "—".to_owned() },
            if timed { human_rate(kernel, row) } else { "—".to_owned() },
            fraction,
            peer,
            ratio,
        ]);
    }
    let mut table = render(&format!("{kernel}"), &lines);
    table.push_str(&timing_notes(rows.iter().filter(|r| r.case.kernel == kernel.entry())));
    table
}

/// What a table's figures mean: how each was timed, and what the decode rows' "of copy" is
/// measured against.
fn timing_notes<'a>(rows: impl Iterator<Item = &'a Row>) -> String {
    let mut methods: Vec<(Method, bool)> = Vec::new();
    let mut same_copy = false;
    for row in rows {
        if let Some(method) = row.method
            && !methods.contains(&(method, row.decode))
        {
            methods.push((method, row.decode));
        }
        same_copy |= row.decode && row.same_bytes_copy_ms.is_some();
    }
    let mut notes = String::new();
    for (method, decode) in methods {
        let which = if decode { "decode shapes" } else { "other shapes" };
        let _ = writeln!(notes, "  timed ({which}): {}", method.describe());
    }
    if same_copy {
        let _ = writeln!(
            notes,
            "  decode shapes' \"of copy\": a device copy of the same bytes timed the same way, over the kernel's time; \
             other shapes': the 1 GiB copy's bandwidth"
        );
    }
    notes
}

/// A target of the issue and whether the kernel met it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub kernel: String,
    pub shape: String,
    #[serde(deserialize_with = "nan_when_null")]
    pub median_ms: f64,
    pub rate: String,
    pub fraction_of_copy: Option<f64>,
    pub peer_call: Option<String>,
    pub ours_over_peer: Option<f64>,
    /// The targets that apply, each with whether it is met: e.g. ("≥ 85 % of copy", true).
    pub targets: Vec<(String, bool)>,
}

/// For each kernel, its fastest row on each timing shape, judged against the issue's targets.
pub fn verdicts(rows: &[Row], copy_bytes_per_s: f64, peers: &[PeerTiming]) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    for kernel in Kernel::ALL {
        let mut shapes: Vec<&str> = Vec::new();
        for row in rows.iter().filter(|r| r.case.kernel == kernel.entry() && r.timing_shape) {
            if !shapes.contains(&row.case.shape.as_str()) {
                shapes.push(&row.case.shape);
            }
        }
        for shape in shapes {
            let best = rows
                .iter()
                .filter(|r| r.case.kernel == kernel.entry() && r.timing_shape && r.case.shape == shape)
                .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms))
                .expect("the shape came from these rows");
            let peer = peer_for(best, peers);
            let ratio = peer.map(|p| best.median_ms / p.median_ms);
            let mut targets = vec![("correct".to_owned(), best.passed)];
            let fraction = match kernel.roofline() {
                Roofline::Bandwidth { target } => {
                    let fraction = best.fraction_of_copy(copy_bytes_per_s);
                    let target = if best.decode { kernel.decode_target(&best.dims) } else { target };
                    if let Some(target) = target {
                        targets.push((format!("≥ {:.0} % of copy", target * 100.0), fraction >= target));
                    }
                    Some(fraction)
                }
                Roofline::Arithmetic => None,
            };
            if let Some(limit) = kernel.peer_ratio_target().filter(|_| !best.decode) {
                let what = if limit < 1.0 {
                    format!("≥ {:.2}× peer's speed", 1.0 / limit)
                } else {
                    "≤ peer's time".to_owned()
                };
                targets.push((what, ratio.is_some_and(|r| r <= limit)));
            }
            if let Some(speed) = kernel.peer_speed_target_on(&best.dims) {
                let what = format!("≥ {speed:.2}× peer's speed");
                targets.push((what, ratio.is_some_and(|r| r * speed <= 1.0)));
            }
            verdicts.push(Verdict {
                kernel: kernel.entry().to_owned(),
                shape: shape.to_owned(),
                median_ms: best.median_ms,
                rate: format!("{} with {}", human_rate(kernel, best), best.case.launch),
                fraction_of_copy: fraction,
                peer_call: peer.map(|p| p.call.clone()),
                ours_over_peer: ratio,
                targets,
            });
        }
    }
    verdicts
}

/// The summary table of the verdicts.
pub fn summary_table(verdicts: &[Verdict]) -> String {
    let header = ["kernel", "shape", "median", "rate (best launch)", "of copy", "ours/peer", "targets"];
    let mut lines: Vec<[String; 7]> = vec![header.map(str::to_owned)];
    for v in verdicts {
        let targets: Vec<String> = v
            .targets
            .iter()
            .map(|(what, met)| format!("{what}: {}", if *met { "met" } else { "MISSED" }))
            .collect();
        lines.push([
            v.kernel.clone(),
            v.shape.clone(),
            format!("{:.4} ms", v.median_ms),
            v.rate.clone(),
            v.fraction_of_copy.map_or("—".to_owned(), |f| format!("{:.0} %", 100.0 * f)),
            match (&v.ours_over_peer, &v.peer_call) {
                (Some(r), Some(call)) => format!("{r:.2} ({call})"),
                _ => "—".to_owned(),
            },
            targets.join("; "),
        ]);
    }
    render("summary: large shapes against the targets", &lines)
}

/// The sweep of `shapes` as the run measured it on a GPU of `multiprocessors`: per shape, the
/// fastest timed row of each of [`gemm_sweep::ENTRIES`], "ours" the time of the one the
/// dispatcher picks ([`gemm_dispatch::wgmma_entry`]; the check passed only if every row of
/// every entry on the shape passed), and the peer's time on the same dimensions (asked for
/// the narrow entry).
pub fn sweep_of(
    shapes: &[SweepShape],
    rows: &[Row],
    peers: &[PeerTiming],
    verifier: Option<VerifierVerdicts>,
    multiprocessors: usize,
) -> GemmSweep {
    let mut peer_call = None;
    let points = shapes
        .iter()
        .map(|shape| {
            let of_entry = |entry: Kernel| -> Vec<&Row> {
                rows.iter()
                    .filter(|r| r.case.kernel == entry.entry() && r.timing_shape && r.dims == shape.dims())
                    .collect()
            };
            let fastest = |of_shape: &[&Row]| -> Option<f64> {
                of_shape.iter().map(|r| r.median_ms).filter(|ms| ms.is_finite()).min_by(f64::total_cmp)
            };
            let narrow_rows = of_entry(gemm_sweep::ENTRIES[0]);
            let peer = narrow_rows.first().and_then(|row| peer_for(row, peers));
            if let Some(peer) = peer {
                peer_call.get_or_insert_with(|| peer.call.clone());
            }
            let gemm = GemmShape::new(shape.m, shape.n, shape.k);
            let epilogue =
                gemm_sweep::ENTRIES[0].wgmma_variant().expect("the sweep's entries are wgmma entries");
            let picked = gemm_dispatch::wgmma_entry(gemm, multiprocessors, epilogue);
            let mut passed = true;
            let mut entries = Vec::new();
            for entry in gemm_sweep::ENTRIES.into_iter().filter(|entry| gemm_sweep::sweeps(*entry, shape)) {
                let of_shape = of_entry(entry);
                passed &= !of_shape.is_empty() && of_shape.iter().all(|r| r.passed);
                entries.push(EntryTime { entry: entry.entry().to_owned(), ms: fastest(&of_shape) });
            }
            SweepPoint {
                category: shape.category,
                m: shape.m,
                n: shape.n,
                k: shape.k,
                ours_ms: fastest(&of_entry(picked)),
                entry: Some(picked.entry().to_owned()),
                entries,
                cublas_ms: peer.map(|p| p.median_ms),
                passed,
            }
        })
        .collect();
    let entry = gemm_sweep::ENTRIES.map(Kernel::entry).join(", ");
    GemmSweep { entry, peer_call, points, verifier }
}

/// The sweep's table (shape, the dispatcher's pick, each entry's time, ours and cuBLAS in ms
/// and TFLOP/s, the speed ratio), its minimum and the verifier's verdict on each wgmma entry.
pub fn sweep_table(sweep: &GemmSweep) -> String {
    let header = [
        "shape",
        "kind",
        "picked",
        "128×128",
        "128×256",
        "decode",
        "ours",
        "cuBLAS",
        "ours TFLOP/s",
        "cuBLAS TFLOP/s",
        "ratio",
        "check",
    ];
    let mut lines: Vec<[String; 12]> = vec![header.map(str::to_owned)];
    let ms = |t: Option<f64>| t.map_or("—".to_owned(), |t| format!("{t:.4} ms"));
    for p in &sweep.points {
        let rate = |t: Option<f64>| t.map_or("—".to_owned(), |t| format!("{:.1}", p.tflops(t)));
        let entry_ms = |entry: Kernel| p.entries.iter().find(|e| e.entry == entry.entry()).and_then(|e| e.ms);
        let picked = match p.entry.as_deref() {
            Some(entry) if entry.contains("_wide") => "128×256",
            Some(entry) if entry.contains("_decode") => "decode",
            Some(_) => "128×128",
            None => "—",
        };
        lines.push([
            p.shape().to_string(),
            p.category.label().to_owned(),
            picked.to_owned(),
            ms(entry_ms(gemm_sweep::ENTRIES[0])),
            ms(entry_ms(gemm_sweep::ENTRIES[1])),
            ms(entry_ms(gemm_sweep::ENTRIES[2])),
            ms(p.ours_ms),
            ms(p.cublas_ms),
            rate(p.ours_ms),
            rate(p.cublas_ms),
            p.ratio().map_or("—".to_owned(), |r| format!("{r:.2}")),
            if p.passed { "pass" } else { "FAIL" }.to_owned(),
        ]);
    }
    let title = format!(
        "GEMM vs cuBLAS, shape sweep: {} against {}",
        sweep.entry,
        match &sweep.peer_call {
            Some(call) => call.as_str(),
            None => "no peer",
        }
    );
    let mut table = render(&title, &lines);
    let _ = writeln!(
        table,
        "  ratio: cuBLAS's time over ours (our speed as a fraction of cuBLAS's; 1 is as fast)"
    );
    let _ = writeln!(table, "  {}", sweep.minimum_line());
    match &sweep.verifier {
        Some(verdicts) => {
            let _ = writeln!(table, "  verifier's verdicts ({}):", verdicts.source);
            for line in verdicts.lines() {
                let _ = writeln!(table, "    {line}");
            }
        }
        None => {
            let _ = writeln!(
                table,
                "  verifier's verdicts: not given (--verify-reports DIR, the kernels build's kernels/target/verify-reports)"
            );
        }
    }
    table
}

/// Renders rows as an aligned plain-text table under a title.
fn render<const N: usize>(title: &str, lines: &[[String; N]]) -> String {
    let mut widths = [0usize; N];
    for line in lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = format!("\n== {title}\n");
    for (i, line) in lines.iter().enumerate() {
        let cells: Vec<String> = line
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell}{}", " ".repeat(w - cell.chars().count())))
            .collect();
        let _ = writeln!(out, "  {}", cells.join("  ").trim_end());
        if i == 0 {
            let _ = writeln!(out, "  {}", widths.map(|w| "-".repeat(w)).join("  "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peer::PeerMethod;

    fn row(kernel: Kernel, shape: &str, dims: Vec<usize>, launch: &str, ms: f64, bytes: u64) -> Row {
        Row {
            case: CaseId {
                kernel: kernel.entry().to_owned(),
                shape: shape.to_owned(),
                launch: launch.to_owned(),
            },
            dims,
            passed: true,
            result: "pass (0 ulp)".to_owned(),
            median_ms: ms,
            work: Work { bytes, flops: 0 },
            timing_shape: true,
            decode: false,
            method: Some(Method { launches: 10, repeats: 30 }),
            same_bytes_copy_ms: None,
        }
    }

    #[test]
    fn an_untimed_row_shows_dashes_not_nan() {
        let untimed = Row {
            timing_shape: false,
            method: None,
            ..row(Kernel::RmsNorm, "4×32768 chained", vec![4, 32768], "<<<32, 256>>>", f64::NAN, 1 << 20)
        };
        let table = kernel_table(Kernel::RmsNorm, &[untimed], 4e12, &[]);
        assert!(!table.contains("NaN"), "{table}");
        assert!(table.contains("4×32768 chained"), "{table}");
    }

    #[test]
    fn verdicts_take_the_fastest_launch_and_judge_the_targets() {
        // 4e9 bytes: 1 ms is 4 TB/s, 80 % of a 5 TB/s copy; 2 ms is 40 %.
        let rows = [
            row(Kernel::SoftmaxRows, "a", vec![2, 3], "<<<2, 64>>>", 2.0, 4_000_000_000),
            row(Kernel::SoftmaxRows, "a", vec![2, 3], "<<<2, 128>>>", 1.0, 4_000_000_000),
            row(Kernel::VectorAdd, "b", vec![8], "<<<1, 256>>>", 1.25, 4_000_000_000),
        ];
        let peers = [PeerTiming {
            kernel: "softmax_rows".to_owned(),
            dims: vec![2, 3],
            call: "torch.softmax".to_owned(),
            median_ms: 0.8,
            method: Some(PeerMethod { launches: 10, timed: "graph".to_owned() }),
        }];
        let v = verdicts(&rows, 5e12, &peers);
        assert_eq!(v.len(), 2);
        let add = &v[0];
        assert_eq!(add.kernel, "vector_add");
        assert!((add.fraction_of_copy.unwrap() - 0.64).abs() < 1e-12);
        assert_eq!(add.targets, [("correct".to_owned(), true), ("≥ 96 % of copy".to_owned(), false)]);
        let softmax = &v[1];
        assert_eq!(softmax.median_ms, 1.0);
        assert!(softmax.rate.ends_with("<<<2, 128>>>"));
        assert!((softmax.ours_over_peer.unwrap() - 1.25).abs() < 1e-12);
        assert_eq!(
            softmax.targets,
            [
                ("correct".to_owned(), true),
                ("≥ 90 % of copy".to_owned(), false),
                ("≥ 1.25× peer's speed".to_owned(), false)
            ]
        );
        let table = summary_table(&v);
        assert!(table.contains("≥ 1.25× peer's speed: MISSED"), "{table}");
        assert!(table.contains("80 %"), "{table}");
    }

    #[test]
    fn decode_shapes_are_judged_by_the_decode_target_only() {
        // 4 × 32,768 floats in and out: 1 MiB; in 1 µs that is 1 TB/s, 20 % of 5 TB/s.
        let mut decode = row(Kernel::RmsNorm, "4×32768", vec![4, 32768], "<<<4, 1024, 128>>>", 1e-3, 1 << 20);
        decode.decode = true;
        let mut other = decode.clone();
        (other.case.shape, other.dims) = ("64×32768".to_owned(), vec![64, 32768]);
        let v = verdicts(&[decode, other], 5e12, &[]);
        assert_eq!(v[0].targets, [("correct".to_owned(), true), ("≥ 70 % of copy".to_owned(), false)]);
        // No target at the other decode shape, and no peer target at either.
        assert_eq!(v[1].targets, [("correct".to_owned(), true)]);
    }

    #[test]
    fn decode_shapes_are_judged_against_a_copy_of_their_own_bytes() {
        // 1 MiB in 1 µs is 20 % of a 5 TB/s large copy; a copy of the same bytes timed the same
        // way taking 0.8 µs puts the kernel at 80 % of it.
        let mut decode = row(Kernel::RmsNorm, "4×32768", vec![4, 32768], "<<<4, 1024, 128>>>", 1e-3, 1 << 20);
        decode.decode = true;
        assert!((decode.fraction_of_copy(5e12) - 0.2097152).abs() < 1e-9);
        decode.same_bytes_copy_ms = Some(0.8e-3);
        decode.method = Some(Method { launches: 100, repeats: 30 });
        assert!((decode.fraction_of_copy(5e12) - 0.8).abs() < 1e-12);
        let v = verdicts(std::slice::from_ref(&decode), 5e12, &[]);
        assert_eq!(v[0].targets, [("correct".to_owned(), true), ("≥ 70 % of copy".to_owned(), true)]);
        // A large shape ignores a same-bytes copy and stays against the large copy.
        let mut large = decode.clone();
        large.decode = false;
        assert!((large.fraction_of_copy(5e12) - 0.2097152).abs() < 1e-9);
        // The table says how its figures were timed and what decode rows are judged against.
        let table = kernel_table(Kernel::RmsNorm, &[decode], 5e12, &[]);
        assert!(table.contains("80 %"), "{table}");
        assert!(
            table
                .contains("timed (decode shapes): median of 30 event pairs, each around a CUDA graph of 100"),
            "{table}"
        );
        assert!(table.contains("a device copy of the same bytes timed the same way"), "{table}");
    }

    #[test]
    fn a_missing_peer_fails_a_peer_target_and_tables_align() {
        let rows = [row(Kernel::SiluMul, "n=8", vec![8], "<<<1, 256>>>", 1.0, 1)];
        let v = verdicts(&rows, 1.0, &[]);
        assert_eq!(v[0].targets.last().unwrap(), &("≤ peer's time".to_owned(), false));
        let table = kernel_table(Kernel::SiluMul, &rows, 1.0, &[]);
        let lines: Vec<&str> = table.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(lines[0], "== silu_mul");
        // Header, rule and row start their second column at the same place.
        let column = lines[1].find("launch").unwrap();
        assert_eq!(&lines[3][column..column + 1], "<");
    }

    #[test]
    fn a_run_document_reads_back_with_untimed_medians_as_nan() {
        let mut untimed = row(Kernel::Saxpy, "n=1", vec![1], "<<<1, 256>>>", f64::NAN, 12);
        untimed.timing_shape = false;
        let timed = row(Kernel::Saxpy, "n=8", vec![8], "<<<1, 256>>>", 0.5, 96);
        let verdicts = verdicts(&[untimed.clone(), timed.clone()], 1e12, &[]);
        let document = RunDocument {
            run: RunOn { device: "test".to_owned(), seed: 1 },
            multiprocessors: 132,
            copy_bytes_per_s: Some(1e12),
            rows: vec![untimed, timed],
            verdicts,
            peers: vec![],
            gemm_sweep: None,
            launch_contracts: None,
        };
        let json = serde_json::to_string(&document).unwrap();
        assert!(json.contains(r#""median_ms":null"#), "{json}");
        let back: RunDocument = serde_json::from_str(&json).unwrap();
        assert!(back.rows[0].median_ms.is_nan());
        assert_eq!((&back.rows[1], &back.verdicts), (&document.rows[1], &document.verdicts));
    }

    #[test]
    fn the_wgmma_gemm_is_held_to_six_tenths_of_cublas_at_the_square_shapes_only() {
        let gemm = |dims: Vec<usize>, ms: f64| {
            let shape = format!("{}×{}×{}", dims[0], dims[1], dims[2]);
            row(Kernel::GemmBf16Wgmma, &shape, dims, "<<<32×32, 288, 132160>>>", ms, 1)
        };
        let peer = |dims: Vec<usize>| PeerTiming {
            kernel: "gemm_bf16_wgmma".to_owned(),
            dims,
            call: "torch.matmul".to_owned(),
            median_ms: 1.0,
            method: Some(PeerMethod { launches: 10, timed: "graph".to_owned() }),
        };
        let rows = [
            gemm(vec![4096, 4096, 4096], 1.6),
            gemm(vec![8192, 8192, 8192], 1.7),
            gemm(vec![1, 14336, 4096], 3.0),
        ];
        let peers = [peer(vec![4096, 4096, 4096]), peer(vec![8192, 8192, 8192]), peer(vec![1, 14336, 4096])];
        let v = verdicts(&rows, 1.0, &peers);
        let speed = "≥ 0.60× peer's speed".to_owned();
        // 1 / 1.6 = 0.625 of the peer's speed: met; 1 / 1.7 = 0.59: missed; no target at m = 1.
        assert_eq!(v[0].targets, [("correct".to_owned(), true), (speed.clone(), true)]);
        assert_eq!(v[1].targets, [("correct".to_owned(), true), (speed, false)]);
        assert_eq!(v[2].targets, [("correct".to_owned(), true)]);
        assert!(v[0].rate.contains("TFLOP/s"), "{}", v[0].rate);
    }

    #[test]
    fn the_sweep_takes_the_dispatched_entrys_fastest_row_and_the_peer_of_each_shape() {
        use crate::gemm_sweep::{Category, ENTRIES};
        const ENTRY: Kernel = ENTRIES[0];
        let shapes = [
            SweepShape { category: Category::Square, m: 4096, n: 4096, k: 4096 },
            SweepShape { category: Category::Decode, m: 8, n: 4096, k: 4096 },
            SweepShape { category: Category::Odd, m: 1000, n: 3000, k: 1000 },
        ];
        let gemm = |dims: [usize; 3], ms: f64| {
            let shape = format!("{}×{}×{}", dims[0], dims[1], dims[2]);
            row(ENTRY, &shape, dims.to_vec(), "<<<32×32, 288, 132160>>>", ms, 1)
        };
        let mut failed = gemm([8, 4096, 4096], 0.05);
        failed.passed = false;
        let wide = |dims: [usize; 3], ms: f64| {
            let shape = format!("{}×{}×{}", dims[0], dims[1], dims[2]);
            row(ENTRIES[1], &shape, dims.to_vec(), "<<<16×32, 288, 197696>>>", ms, 1)
        };
        let decode = |dims: [usize; 3], ms: f64| {
            let shape = format!("{}×{}×{}", dims[0], dims[1], dims[2]);
            row(ENTRIES[2], &shape, dims.to_vec(), "<<<256, 512, 16384>>>", ms, 1)
        };
        let rows = [
            decode([8, 4096, 4096], 0.015),
            gemm([4096, 4096, 4096], 0.30),
            gemm([4096, 4096, 4096], 0.25),
            wide([4096, 4096, 4096], 0.24),
            wide([4096, 4096, 4096], 0.22),
            // The plain entry on the same shape is not the sweep's.
            row(Kernel::GemmBf16Wgmma, "4096×4096×4096", vec![4096; 3], "<<<32×32, 288, 132160>>>", 0.1, 1),
            gemm([8, 4096, 4096], 0.02),
            failed,
        ];
        let peer = |dims: Vec<usize>, ms: f64| PeerTiming {
            kernel: ENTRY.entry().to_owned(),
            dims,
            call: "torch.matmul (bf16, A·Bᵀ, cuBLAS)".to_owned(),
            median_ms: ms,
            method: Some(PeerMethod { launches: 10, timed: "graph".to_owned() }),
        };
        let peers = [peer(vec![4096; 3], 0.2), peer(vec![8, 4096, 4096], 0.01)];
        let sweep = sweep_of(&shapes, &rows, &peers, None, 132);
        assert_eq!(sweep.entry, "gemm_bf16_wgmma_bf16, gemm_bf16_wgmma_wide_bf16, gemm_bf16_decode_bf16");
        assert_eq!(sweep.peer_call.as_deref(), Some("torch.matmul (bf16, A·Bᵀ, cuBLAS)"));
        // 4096³ runs on the wide tile (1024 narrow tiles on 132 multiprocessors): its fastest row.
        let square = &sweep.points[0];
        assert_eq!((square.ours_ms, square.cublas_ms, square.passed), (Some(0.22), Some(0.2), true));
        assert_eq!(square.entry.as_deref(), Some("gemm_bf16_wgmma_wide_bf16"));
        let times: Vec<Option<f64>> = square.entries.iter().map(|e| e.ms).collect();
        assert_eq!(times, [Some(0.25), Some(0.22)]);
        assert!((square.ratio().unwrap() - 0.2 / 0.22).abs() < 1e-12);
        // The decode entry is timed beside the tiles only on few rows (the square shape's
        // entries are the two tiles alone).
        assert_eq!(square.entries.len(), 2);
        // 8 rows run on the decode entry: its fastest row's time, but a failed row of the shape
        // (and the wide entry's missing rows) fail the point.
        assert_eq!(sweep.points[1].entry.as_deref(), Some("gemm_bf16_decode_bf16"));
        assert_eq!((sweep.points[1].ours_ms, sweep.points[1].passed), (Some(0.015), false));
        let times: Vec<Option<f64>> = sweep.points[1].entries.iter().map(|e| e.ms).collect();
        assert_eq!(times, [Some(0.02), None, Some(0.015)]);
        // A shape the run did not time: no times, not passed.
        assert_eq!(
            (sweep.points[2].ours_ms, sweep.points[2].cublas_ms, sweep.points[2].passed),
            (None, None, false)
        );
        let table = sweep_table(&sweep);
        assert!(
            table.contains(
                "== GEMM vs cuBLAS, shape sweep: gemm_bf16_wgmma_bf16, gemm_bf16_wgmma_wide_bf16, gemm_bf16_decode_bf16 against torch.matmul"
            ),
            "{table}"
        );
        assert!(
            table.contains(
                "4096×4096×4096  square  128×256  0.2500 ms  0.2200 ms  —          0.2200 ms  0.2000 ms  624.7"
            ),
            "{table}"
        );
        assert!(table.contains("minimum ratio over the sweep: 0.91 (4096×4096×4096)"), "{table}");
        assert!(table.contains("FAIL") && table.contains("verifier's verdicts: not given"), "{table}");
    }

    #[test]
    fn pipeline_rows_match_peers_asked_in_floats() {
        let rows = [row(Kernel::PipelineSum, "2 tiles", vec![2], "<<<1, 160>>>", 1.0, 8192)];
        let peers = [PeerTiming {
            kernel: "pipeline_sum".to_owned(),
            dims: vec![2048],
            call: "torch.sum".to_owned(),
            median_ms: 2.0,
            method: Some(PeerMethod { launches: 10, timed: "graph".to_owned() }),
        }];
        assert_eq!(peer_for(&rows[0], &peers).unwrap().median_ms, 2.0);
    }
}
