//! The verification report of one compiled crate: what the driver (`kernels-rustc`) writes
//! after verifying a crate's kernel scopes, and what `just kernels` sums up at the end of a
//! build (`xtask::verify_report`). One schema, defined here, serves the writer and the reader.
//!
//! One JSON file per crate, `<report dir>/<crate>.json`, written to a temporary file unique to
//! the writer and renamed into place, so a reader never sees half a report.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The environment variable naming the folder the driver writes its crate reports into (set by
/// a kernels build, read by the driver).
pub const REPORT_DIR_VAR: &str = "KERNELS_VERIFY_REPORT_DIR";

/// The environment variable that turns the driver's report mode on (`KERNELS_VERIFY_MODE=report`):
/// rejections go into the crate report instead of failing the build, and code generation
/// continues, so a crate of deliberately broken kernels still builds to PTX.
pub const MODE_VAR: &str = "KERNELS_VERIFY_MODE";

/// The environment variable that decides whether the driver checks the structure of the IR its
/// import built before the rules run (`KERNELS_VERIFY_STRUCTURE=check` or `trust`; unset: check
/// in a debug build of the driver, trust in a release build, `crate::verify::Structure`). The
/// corpus builds set `check`, so the test suite holds the import's output to pliron's verifier.
pub const STRUCTURE_VAR: &str = "KERNELS_VERIFY_STRUCTURE";

/// What happened to one kernel scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Verified: the rules accepted it and everything in it is accounted for by the model.
    Verified,
    /// Nothing in the scope can touch the protocol (no shared memory, barrier, copy, fence,
    /// wgmma, inline assembly with memory effects or unknown callee): skipped by the scope guard.
    Skipped,
    /// The verifier rejected the scope; the rejections are rustc errors.
    Rejected,
    /// No rule rejected the scope, but part of it is outside the model (its `gaps`): not a
    /// proof, and an error in a kernels build unless the kernel opts out.
    Unverified,
    /// Unverified, and the kernel carries `#[kernel_verifier::unverified(reason = "…")]`: the
    /// build goes on, and the reason is shown in the summary and the report.
    OptedOut,
}

/// One kernel scope: its size, its verdict and the time spent on it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScopeReport {
    pub kernel: String,
    /// Functions in the scope (the kernel included).
    pub functions: usize,
    /// Blocks and operations of the imported IR.
    pub blocks: usize,
    pub operations: usize,
    /// Operations the import left opaque (MIR the IR does not model), kept as MIR text.
    pub opaque_operations: usize,
    pub verdict: Verdict,
    /// Shared-memory pointers accepted as explicit address-space adaptations at calls.
    pub adaptations: usize,
    /// Rejections (0 unless the verdict is `rejected`).
    pub rejections: usize,
    /// Each rejection's rule and position (empty unless the verdict is `rejected`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
    pub import_seconds: f64,
    pub verify_seconds: f64,
    /// What the scope holds that the verifier's model does not account for (`plugin/MODEL.md`,
    /// "What makes a scope unverified"); empty for a verified scope.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<Finding>,
    /// The reason the kernel's opt-out attribute states, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opt_out: Option<String>,
}

/// One rejection of a scope (the rule's stable name, `consumer-order`, or `import` where the
/// scope could not be imported at all) or one gap (the gap kind's name, `opaque-operation`):
/// the message, and where it points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub rule: String,
    pub message: String,
    /// The source file as rustc names it (relative to the crate for a local crate), and the
    /// 1-based line; empty and 0 where the operation carries no position.
    pub file: String,
    pub line: u32,
}

/// One crate's report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CrateReport {
    #[serde(rename = "crate")]
    pub crate_name: String,
    pub scopes: Vec<ScopeReport>,
    /// Time spent collecting scopes and importing MIR, and verifying, over all scopes.
    pub import_seconds: f64,
    pub verify_seconds: f64,
    /// The whole compilation of the crate in this driver (parsing to code generation).
    pub compile_seconds: f64,
}

impl CrateReport {
    pub fn new(crate_name: String) -> CrateReport {
        CrateReport {
            crate_name,
            scopes: Vec::new(),
            import_seconds: 0.0,
            verify_seconds: 0.0,
            compile_seconds: 0.0,
        }
    }

    /// Adds a scope and its times to the totals.
    pub fn push(&mut self, scope: ScopeReport) {
        self.import_seconds += scope.import_seconds;
        self.verify_seconds += scope.verify_seconds;
        self.scopes.push(scope);
    }

    /// Writes the report into `dir` atomically; returns the report's path.
    pub fn write_into(&self, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{}.json", self.crate_name));
        let mut bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        write_atomically(&path, &bytes)?;
        Ok(path)
    }
}

/// Writes `bytes` to a temporary file beside `path` and renames it into place, so a reader
/// never sees half a file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(kernel: &str, verdict: Verdict, verify_seconds: f64) -> ScopeReport {
        ScopeReport {
            kernel: kernel.into(),
            functions: 1,
            blocks: 2,
            operations: 3,
            opaque_operations: 0,
            verdict,
            adaptations: 0,
            rejections: 0,
            findings: Vec::new(),
            import_seconds: 0.5,
            verify_seconds,
            gaps: Vec::new(),
            opt_out: None,
        }
    }

    #[test]
    fn the_report_adds_up_its_scopes_and_lands_whole_under_the_crate_name() {
        let dir = tempfile::tempdir().unwrap();
        let mut report = CrateReport::new("kernels".into());
        report.push(scope("a", Verdict::Verified, 0.25));
        report.push(scope("b", Verdict::Skipped, 0.0));
        let mut rejected = scope("c", Verdict::Rejected, 0.0);
        rejected.rejections = 1;
        rejected.findings.push(Finding {
            rule: "consumer-order".into(),
            message: "read before wait".into(),
            file: "src/lib.rs".into(),
            line: 12,
        });
        report.push(rejected);
        assert_eq!(report.import_seconds, 1.5);
        assert_eq!(report.verify_seconds, 0.25);
        let path = report.write_into(&dir.path().join("new")).unwrap();
        assert_eq!(path, dir.path().join("new/kernels.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["crate"], "kernels");
        assert_eq!(value["scopes"][1]["verdict"], "skipped");
        // Findings round-trip with their rule and line; a scope without any omits the field.
        assert!(value["scopes"][1].get("findings").is_none());
        let back: CrateReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back.scopes[2].findings[0].rule, "consumer-order");
        assert_eq!(back.scopes[2].findings[0].line, 12);
        // Nothing but the report is left in the folder: the temporary file was renamed.
        assert_eq!(std::fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }
}
