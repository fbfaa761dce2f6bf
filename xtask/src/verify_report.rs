//! The closing lines of a kernels build: how many kernel scopes the compiler-pass plugin
//! verified and skipped, and how long the verifier took against the whole compile.
//!
//! The driver (`kernels-rustc`) writes one JSON report per compiled crate into the folder named
//! by `KERNELS_VERIFY_REPORT_DIR` (the schema is `plugin::build_report`, shared with the writer); this
//! module reads every report there and sums them up. A crate that cargo found fresh keeps its
//! report from the compile that last checked it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The environment variable through which a kernels build tells the driver where to report.
pub use plugin::build_report::REPORT_DIR_VAR;

/// The report folder of a kernels build into `target_dir`.
pub fn report_dir(target_dir: &Path) -> PathBuf {
    target_dir.join("verify-reports")
}

pub use plugin::build_report::{CrateReport, ScopeReport, Verdict};

/// Every crate report in a folder, sorted by crate name.
pub fn read_reports(dir: &Path) -> Result<Vec<CrateReport>> {
    let entries = std::fs::read_dir(dir).with_context(|| {
        format!("no verifier reports in {} (was the build run through kernels-rustc?)", dir.display())
    })?;
    let mut reports = Vec::new();
    for entry in entries {
        let path = entry.with_context(|| format!("listing {}", dir.display()))?.path();
        if path.extension().is_none_or(|extension| extension != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let report: CrateReport = serde_json::from_str(&text).with_context(|| {
            format!("{} is not a verifier report; delete it and rebuild the kernels", path.display())
        })?;
        reports.push(report);
    }
    if reports.is_empty() {
        bail!("no verifier reports in {} (was the build run through kernels-rustc?)", dir.display());
    }
    reports.sort_by(|a, b| a.crate_name.cmp(&b.crate_name));
    Ok(reports)
}

/// The sums over every report of a build.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub verified: usize,
    pub skipped: usize,
    pub rejected: usize,
    pub unverified: usize,
    /// Kernels that accepted an unverified scope, with the reason their attribute states.
    pub opted_out: Vec<(String, String)>,
    pub adaptations: usize,
    pub verify_seconds: f64,
    pub import_seconds: f64,
    pub compile_seconds: f64,
    /// Blocks of every scope the verifier imported or judged (skipped scopes included).
    pub blocks: usize,
    /// The scope the verifier spent longest on, importing and verifying: (kernel, blocks,
    /// seconds).
    pub slowest: Option<(String, usize, f64)>,
    /// Why the unverified and opted-out scopes are not proven: (gap kind, scopes holding it).
    pub gaps: Vec<(String, usize)>,
}

impl Summary {
    pub fn of(reports: &[CrateReport]) -> Summary {
        let scopes = || reports.iter().flat_map(|report| &report.scopes);
        let count = |verdict: Verdict| scopes().filter(|scope| scope.verdict == verdict).count();
        Summary {
            verified: count(Verdict::Verified),
            skipped: count(Verdict::Skipped),
            rejected: count(Verdict::Rejected),
            unverified: count(Verdict::Unverified),
            opted_out: scopes()
                .filter(|scope| scope.verdict == Verdict::OptedOut)
                .map(|scope| (scope.kernel.clone(), scope.opt_out.clone().unwrap_or_default()))
                .collect(),
            adaptations: scopes().map(|scope| scope.adaptations).sum(),
            verify_seconds: reports.iter().map(|report| report.verify_seconds).sum(),
            import_seconds: reports.iter().map(|report| report.import_seconds).sum(),
            compile_seconds: reports.iter().map(|report| report.compile_seconds).sum(),
            blocks: scopes().map(|scope| scope.blocks).sum(),
            slowest: scopes()
                .map(|scope| (scope, scope.import_seconds + scope.verify_seconds))
                .max_by(|(_, a), (_, b)| a.total_cmp(b))
                .map(|(scope, seconds)| (scope.kernel.clone(), scope.blocks, seconds)),
            gaps: gap_kinds(scopes()),
        }
    }

    /// The lines printed at the end of a kernels build.
    pub fn lines(&self) -> Vec<String> {
        let mut counts = vec![
            format!("{} kernel scopes verified", self.verified),
            format!(
                "{} skipped (no shared memory, barrier, copy, fence or assembly: irrelevant)",
                self.skipped
            ),
        ];
        if self.unverified > 0 {
            counts.push(format!("{} unverified", self.unverified));
        }
        if !self.opted_out.is_empty() {
            counts.push(format!("{} opted out", self.opted_out.len()));
        }
        if self.rejected > 0 {
            counts.push(format!("{} rejected", self.rejected));
        }
        let mut lines = vec![format!(
            "verifier: {}; {} shared-memory adaptations accepted",
            counts.join(", "),
            self.adaptations
        )];
        // What users feel: the verifier's share of the build, and its speed per block.
        let spent = self.verify_seconds + self.import_seconds;
        let share = if self.compile_seconds > 0.0 { 100.0 * spent / self.compile_seconds } else { 0.0 };
        let mut timing = format!(
            "verifier: {:.4} s verifying, {:.4} s importing MIR, of {:.1} s compiling the kernel crates \
             ({share:.1} % of the build; {} blocks, {:.0} blocks/s)",
            self.verify_seconds,
            self.import_seconds,
            self.compile_seconds,
            self.blocks,
            if spent > 0.0 { self.blocks as f64 / spent } else { 0.0 }
        );
        if let Some((kernel, blocks, seconds)) = &self.slowest {
            timing.push_str(&format!(
                "; slowest scope: {kernel}, {blocks} blocks in {:.1} ms ({:.1} us a block)",
                seconds * 1e3,
                seconds * 1e6 / (*blocks).max(1) as f64
            ));
        }
        lines.push(timing);
        if !self.gaps.is_empty() {
            let items: Vec<String> =
                self.gaps.iter().map(|(kind, scopes)| format!("{kind} ({scopes} scopes)")).collect();
            lines.push(format!("verifier: unverified by reason: {}", items.join(", ")));
        }
        for (kernel, reason) in &self.opted_out {
            lines.push(format!("verifier: opted out: {kernel}: {reason}"));
        }
        lines
    }
}

/// Each gap kind of the unverified and opted-out scopes, in first-seen order, with how many
/// scopes hold it.
fn gap_kinds<'a>(scopes: impl Iterator<Item = &'a ScopeReport>) -> Vec<(String, usize)> {
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for scope in scopes {
        let mut seen: Vec<&str> = Vec::new();
        for gap in &scope.gaps {
            if seen.contains(&gap.rule.as_str()) {
                continue;
            }
            seen.push(&gap.rule);
            match kinds.iter_mut().find(|(known, _)| *known == gap.rule) {
                Some((_, count)) => *count += 1,
                None => kinds.push((gap.rule.clone(), 1)),
            }
        }
    }
    kinds
}

/// Reads the reports in `dir` and prints the summary lines to stderr.
pub fn print_summary(dir: &Path) -> Result<()> {
    let summary = Summary::of(&read_reports(dir)?);
    for line in summary.lines() {
        eprintln!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNELS: &str = r#"{
      "crate": "kernels",
      "scopes": [
        {"kernel": "pipeline_sum", "functions": 14, "blocks": 80, "operations": 400, "opaque_operations": 2,
         "verdict": "verified", "adaptations": 0, "rejections": 0, "import_seconds": 0.002, "verify_seconds": 0.004},
        {"kernel": "row_cluster", "functions": 9, "blocks": 40, "operations": 200, "opaque_operations": 1,
         "verdict": "unverified", "adaptations": 0, "rejections": 0, "import_seconds": 0.001, "verify_seconds": 0.001,
         "gaps": [{"rule": "inline-assembly", "message": "the import does not model `inline assembly`", "file": "src/device/cluster.rs", "line": 64},
                  {"rule": "undecided", "message": "no launch contract", "file": "", "line": 0}]},
        {"kernel": "gemm_hand_rolled", "functions": 9, "blocks": 40, "operations": 200, "opaque_operations": 1,
         "verdict": "opted_out", "adaptations": 0, "rejections": 0, "import_seconds": 0.001, "verify_seconds": 0.001,
         "gaps": [{"rule": "inline-assembly", "message": "the import does not model `inline assembly`", "file": "src/gemm.rs", "line": 9}],
         "opt_out": "tensor-memory accumulators are not modelled"},
        {"kernel": "saxpy", "functions": 4, "blocks": 9, "operations": 30, "opaque_operations": 0,
         "verdict": "skipped", "adaptations": 0, "rejections": 0, "import_seconds": 0.001, "verify_seconds": 0.0},
        {"kernel": "shared_memory_helper_local", "functions": 7, "blocks": 20, "operations": 90, "opaque_operations": 0,
         "verdict": "verified", "adaptations": 1, "rejections": 0, "import_seconds": 0.001, "verify_seconds": 0.001}
      ],
      "import_seconds": 0.004, "verify_seconds": 0.005, "compile_seconds": 9.5
    }"#;
    const HELPERS: &str = r#"{"crate": "kernel_helpers", "scopes": [], "import_seconds": 0.0,
      "verify_seconds": 0.0, "compile_seconds": 0.5}"#;

    #[test]
    fn the_summary_adds_up_every_crate_report_in_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kernels.json"), KERNELS).unwrap();
        std::fs::write(dir.path().join("kernel_helpers.json"), HELPERS).unwrap();
        // A temporary file of a writer that has not renamed it yet is not a report.
        std::fs::write(dir.path().join(".tmpXYZ"), "{").unwrap();
        let summary = Summary::of(&read_reports(dir.path()).unwrap());
        assert_eq!((summary.verified, summary.skipped, summary.rejected, summary.adaptations), (2, 1, 0, 1));
        assert_eq!(summary.unverified, 1);
        assert!((summary.compile_seconds - 10.0).abs() < 1e-9);
        assert_eq!(summary.blocks, 189);
        let (kernel, blocks, seconds) = summary.slowest.clone().unwrap();
        assert_eq!((kernel.as_str(), blocks), ("pipeline_sum", 80));
        assert!((seconds - 0.006).abs() < 1e-9);
        let lines = summary.lines();
        assert!(lines[0].starts_with("verifier: 2 kernel scopes verified, 1 skipped"), "{}", lines[0]);
        assert!(lines[0].contains("1 unverified, 1 opted out"), "{}", lines[0]);
        assert!(lines[1].contains("of 10.0 s compiling"), "{}", lines[1]);
        // 9 ms of 10 s: the share of the build and the speed per block are what users feel.
        assert!(lines[1].contains("(0.1 % of the build; 189 blocks, 21000 blocks/s)"), "{}", lines[1]);
        assert!(
            lines[1].contains("slowest scope: pipeline_sum, 80 blocks in 6.0 ms (75.0 us a block)"),
            "{}",
            lines[1]
        );
        // What the model leaves out is counted by reason, never passed silently.
        assert_eq!(summary.gaps, vec![("inline-assembly".to_string(), 2), ("undecided".to_string(), 1)]);
        assert!(
            lines[2].starts_with("verifier: unverified by reason: inline-assembly (2 scopes)"),
            "{}",
            lines[2]
        );
        // An opt-out is shown with its reason.
        assert_eq!(
            lines[3],
            "verifier: opted out: gemm_hand_rolled: tensor-memory accumulators are not modelled"
        );
    }

    #[test]
    fn a_missing_or_empty_report_folder_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let error = read_reports(dir.path()).unwrap_err().to_string();
        assert!(error.contains(&dir.path().display().to_string()), "{error}");
        let error = read_reports(&dir.path().join("absent")).unwrap_err().to_string();
        assert!(error.contains("absent"), "{error}");
    }

    #[test]
    fn a_report_that_does_not_parse_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kernels.json"), "{\"crate\": 3}").unwrap();
        let error = format!("{:#}", read_reports(dir.path()).unwrap_err());
        assert!(error.contains("kernels.json"), "{error}");
    }
}
