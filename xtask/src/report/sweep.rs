//! The report's "GEMM vs cuBLAS, shape sweep" section: the GPU run's sweep (`gpu-runner`'s
//! `gemm_sweep`) as a bar per shape of our speed over cuBLAS's with lines at 1 and at the
//! minimum, its table, and the verifier's verdict on each wgmma entry: the run's own (read from
//! the verify reports it was given), else the local kernels build's, said so.

use anyhow::Result;
use gpu_runner::gemm_sweep::{GemmSweep, VerifierVerdicts};
use gpu_runner::report::RunDocument;

use super::{Loaded, charts, escape, missing, source_line};

/// What produces the sweep.
pub(super) const HOW_GEMM_SWEEP: &str = "just gpu (gemm_bf16_wgmma_bf16 among the kernels, timed; from a bundle: just report --gpu-run last-run.json)";
/// What produces the verify reports.
const HOW_VERDICTS: &str = "just kernels";

/// The section: the sweep of `run`, and the verdicts it recorded or else `local`'s.
pub(super) fn section(
    run: Option<&Loaded<RunDocument>>,
    local: Option<&Loaded<VerifierVerdicts>>,
) -> Result<String> {
    let Some((source, sweep)) = run.and_then(|r| Some((&r.source, r.data.gemm_sweep.as_ref()?))) else {
        return Ok(missing("gemm-sweep", "GEMM shape sweep", HOW_GEMM_SWEEP));
    };
    let minimum = sweep.minimum().map(|(_, ratio)| ratio);
    let bars: Vec<charts::Bar> = sweep
        .points
        .iter()
        .filter_map(|p| {
            let ratio = p.ratio()?;
            Some(charts::Bar {
                label: format!("{} {}", p.shape(), p.category.label()),
                value: ratio,
                flagged: ratio < 1.0 || !p.passed,
            })
        })
        .collect();
    let marks: Vec<f64> = [1.0].into_iter().chain(minimum).collect();
    let chart = charts::bar_chart(
        "gemm-sweep",
        1000,
        &charts::Bars {
            title: "our speed / cuBLAS's (cuBLAS time over ours; lines at 1 and at the minimum)",
            axis: "ratio",
            bars: &bars,
            base: 0.0,
            marks: &marks,
        },
    )?;
    let against = sweep.peer_call.as_deref().unwrap_or("no peer");
    Ok(format!(
        r#"{}<p class="note">{} against {}; red: slower than cuBLAS, or a failed check.</p><p class="summary" id="gemm-sweep-summary">{}</p>{chart}{}{}"#,
        source_line(source),
        escape(&sweep.entry),
        escape(against),
        escape(&sweep.minimum_line()),
        table(sweep),
        verdicts(sweep.verifier.as_ref(), local),
    ))
}

/// The sweep's table, one row per shape.
fn table(sweep: &GemmSweep) -> String {
    let number =
        |value: Option<f64>, digits: usize| value.map_or("—".to_owned(), |v| format!("{v:.digits$}"));
    let mut rows = String::new();
    for p in &sweep.points {
        let cells = [
            number(p.ours_ms, 4),
            number(p.cublas_ms, 4),
            number(p.ours_ms.map(|t| p.tflops(t)), 1),
            number(p.cublas_ms.map(|t| p.tflops(t)), 1),
            number(p.ratio(), 2),
        ];
        rows.push_str(&format!(
            r#"<tr data-sweep-shape="{shape}"><td class="text">{shape}</td><td class="text">{}</td>{}<td class="text">{}</td></tr>"#,
            p.category.label(),
            cells.iter().map(|c| format!("<td>{c}</td>")).collect::<String>(),
            if p.passed { "pass" } else { "FAIL" },
            shape = p.shape(),
        ));
    }
    format!(
        r#"<table id="gemm-sweep-table"><thead><tr><th class="text">shape</th><th class="text">kind</th><th>ours ms</th><th>cuBLAS ms</th><th>ours TFLOP/s</th><th>cuBLAS TFLOP/s</th><th>ratio</th><th class="text">check</th></tr></thead><tbody>{rows}</tbody></table>"#
    )
}

/// The verdicts the run recorded, else the local build's (said so), else what produces them.
fn verdicts(recorded: Option<&VerifierVerdicts>, local: Option<&Loaded<VerifierVerdicts>>) -> String {
    let (note, verdicts) = match (recorded, local) {
        (Some(v), _) => (format!("the run's verify reports, <code>{}</code>", escape(&v.source)), v),
        (None, Some(loaded)) => (
            format!(
                "the local kernels build's verify reports, <code>{}</code> (the run recorded none: they may belong to another build than the one measured)",
                escape(&loaded.source)
            ),
            &loaded.data,
        ),
        (None, None) => {
            return missing("gemm-verdicts", "verifier verdicts for the GEMM entries", HOW_VERDICTS);
        }
    };
    let rows: String = verdicts
        .entries
        .iter()
        .map(|e| {
            format!(
                r#"<tr data-gemm-entry="{}"><td class="text">{0}</td><td class="text">{}</td><td class="text reason">{}</td></tr>"#,
                escape(&e.entry),
                escape(&e.verdict),
                escape(e.detail.as_deref().unwrap_or("")),
            )
        })
        .collect();
    format!(
        r#"<p class="note">The verifier's verdict on each GEMM entry, from {note}.</p><table id="gemm-verdicts"><thead><tr><th class="text">entry</th><th class="text">verdict</th><th class="text">detail</th></tr></thead><tbody>{rows}</tbody></table>"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{BAR, BAR_FLAGGED, count_filled};

    /// A small run document with a sweep of three shapes: 0.8 and 1.25 of cuBLAS's speed, one
    /// without a peer.
    fn run(with_sweep: bool, verifier: serde_json::Value) -> Loaded<RunDocument> {
        let point = |category: &str, m: usize, ours: f64, cublas: Option<f64>| {
            serde_json::json!({"category": category, "m": m, "n": 4096, "k": 4096,
                               "ours_ms": ours, "cublas_ms": cublas, "passed": true})
        };
        let mut document = serde_json::json!({
            "device": "NVIDIA H200", "seed": 1, "multiprocessors": 132, "copy_bytes_per_s": 4.2e12,
            "rows": [], "verdicts": [], "peers": [],
        });
        if with_sweep {
            document["gemm_sweep"] = serde_json::json!({
                "entry": "gemm_bf16_wgmma_bf16", "peer_call": "torch.matmul (bf16, A·Bᵀ, cuBLAS)",
                "points": [point("square", 4096, 0.25, Some(0.2)), point("decode", 8, 0.02, Some(0.025)),
                           point("odd", 1000, 0.1, None)],
                "verifier": verifier,
            });
        }
        Loaded { source: "run.json".to_owned(), data: serde_json::from_value(document).unwrap() }
    }

    fn opted_out() -> serde_json::Value {
        serde_json::json!({"source": "verify-reports", "entries": [
            {"entry": "gemm_bf16_wgmma", "verdict": "opted_out", "detail": "reason: <not proven>"},
            {"entry": "gemm_bf16_wgmma_bf16", "verdict": "verified", "detail": null}]})
    }

    #[test]
    fn the_sweep_is_charted_with_its_minimum_and_tabled_with_the_verdicts() {
        let html = section(Some(&run(true, opted_out())), None).unwrap();
        // A bar per shape timed on both sides; the one slower than cuBLAS in red.
        assert_eq!(count_filled(&html, BAR), 1, "{html}");
        assert_eq!(count_filled(&html, BAR_FLAGGED), 1, "{html}");
        assert!(html.contains(r#"<svg data-chart="gemm-sweep""#));
        assert!(
            html.contains(
                r#"id="gemm-sweep-summary">minimum ratio over the sweep: 0.80 (4096×4096×4096); left out (untimed, no peer or failed): 1000×4096×4096</p>"#
            ),
            "{html}"
        );
        // 2·4096³ FLOP in 0.25 ms: 549.8 TFLOP/s; in 0.2 ms: 687.2.
        assert!(
            html.contains(
                r#"<tr data-sweep-shape="4096×4096×4096"><td class="text">4096×4096×4096</td><td class="text">square</td><td>0.2500</td><td>0.2000</td><td>549.8</td><td>687.2</td><td>0.80</td><td class="text">pass</td></tr>"#
            ),
            "{html}"
        );
        assert!(html.contains("<td>1.25</td>") && html.contains("<td>—</td>"), "{html}");
        // The verdicts as the report gives them, escaped.
        assert!(html.contains("the run's verify reports, <code>verify-reports</code>"), "{html}");
        assert!(
            html.contains(r#"<tr data-gemm-entry="gemm_bf16_wgmma"><td class="text">gemm_bf16_wgmma</td><td class="text">opted_out</td><td class="text reason">reason: &lt;not proven&gt;</td></tr>"#),
            "{html}"
        );
        assert!(!html.contains("data-missing"), "{html}");
    }

    #[test]
    fn verdicts_fall_back_to_the_local_build_or_say_what_writes_them() {
        let local = Loaded {
            source: "kernels/target/verify-reports".to_owned(),
            data: serde_json::from_value::<VerifierVerdicts>(opted_out()).unwrap(),
        };
        let html = section(Some(&run(true, serde_json::Value::Null)), Some(&local)).unwrap();
        assert!(html.contains("the local kernels build's verify reports"), "{html}");
        assert!(html.contains(r#"data-gemm-entry="gemm_bf16_wgmma_bf16""#), "{html}");
        let html = section(Some(&run(true, serde_json::Value::Null)), None).unwrap();
        assert!(html.contains(r#"data-missing="gemm-verdicts""#) && html.contains("just kernels"), "{html}");
    }

    #[test]
    fn a_run_without_a_sweep_says_what_produces_one() {
        for html in
            [section(Some(&run(false, serde_json::Value::Null)), None).unwrap(), section(None, None).unwrap()]
        {
            assert!(html.starts_with(r#"<p class="missing" data-missing="gemm-sweep">No GEMM shape sweep yet: run <code>just gpu"#), "{html}");
            assert!(!html.contains("<svg"), "{html}");
        }
    }

    #[test]
    fn the_report_reads_the_verdicts_the_verifier_writes() {
        // The driver's own report type, written as the driver writes it, read by the runner's
        // reader: the two agree on the fields the verdicts need.
        use plugin::build_report::{CrateReport, Finding, ScopeReport, Verdict};
        let scope = |kernel: &str, verdict: Verdict| ScopeReport {
            kernel: kernel.to_owned(),
            functions: 1,
            blocks: 1,
            operations: 1,
            opaque_operations: 0,
            verdict,
            adaptations: 0,
            rejections: 0,
            findings: Vec::new(),
            import_seconds: 0.0,
            verify_seconds: 0.0,
            gaps: Vec::new(),
            opt_out: None,
        };
        let mut report = CrateReport::new("kernels".to_owned());
        report.push(ScopeReport {
            opt_out: Some("not proven".to_owned()),
            ..scope("gemm_bf16_wgmma", Verdict::OptedOut)
        });
        report.push(scope("gemm_bf16_wgmma_bias", Verdict::Verified));
        report.push(ScopeReport {
            rejections: 1,
            findings: vec![Finding {
                rule: "consumer-order".to_owned(),
                message: "read before the wait".to_owned(),
                file: "src/a.rs".to_owned(),
                line: 7,
            }],
            ..scope("gemm_bf16_wgmma_bf16", Verdict::Rejected)
        });
        report.push(scope("gemm_bf16_wgmma_bias_bf16", Verdict::Unverified));
        for wide in ["gemm_bf16_wgmma_wide", "gemm_bf16_wgmma_wide_bias", "gemm_bf16_wgmma_wide_bf16"] {
            report.push(scope(wide, Verdict::Verified));
        }
        let dir = tempfile::tempdir().unwrap();
        report.write_into(dir.path()).unwrap();
        let read = gpu_runner::gemm_sweep::read_verdicts(dir.path()).unwrap();
        let words: Vec<(&str, &str, Option<&str>)> = read
            .entries
            .iter()
            .map(|e| (e.entry.as_str(), e.verdict.as_str(), e.detail.as_deref()))
            .collect();
        assert_eq!(
            words[..7],
            [
                ("gemm_bf16_wgmma", "opted_out", Some("reason: not proven")),
                ("gemm_bf16_wgmma_bias", "verified", None),
                (
                    "gemm_bf16_wgmma_bf16",
                    "rejected",
                    Some("1 rejection(s), first consumer-order: read before the wait")
                ),
                ("gemm_bf16_wgmma_bias_bf16", "unverified", None),
                ("gemm_bf16_wgmma_wide", "verified", None),
                ("gemm_bf16_wgmma_wide_bias", "verified", None),
                ("gemm_bf16_wgmma_wide_bf16", "verified", None),
            ]
        );
        // The entries the build did not report are named missing, with the fix.
        let missing: Vec<(&str, &str)> =
            read.entries[7..].iter().map(|e| (e.entry.as_str(), e.verdict.as_str())).collect();
        assert_eq!(
            missing,
            [("gemm_bf16_wgmma_wide_bias_bf16", "missing"), ("gemm_bf16_decode_bf16", "missing")]
        );
    }
}
