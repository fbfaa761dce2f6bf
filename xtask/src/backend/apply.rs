//! Applying a series to a work copy, patch by patch, in order. Each patch is checked first
//! (`git apply --check`); one that does not apply is either already upstream (it applies in
//! reverse: "drop this patch") or no longer applies, reported with the hunk git stopped at.

use std::path::Path;

use anyhow::Result;

use super::error::BackendError;
use super::git::git;
use super::series::Series;
use crate::process::{one_line, read, succeeds};

/// Applies every patch of `series` to the work copy at `dir`, which is at `revision`.
pub fn apply_series(backend: &str, series: &Series, dir: &Path, revision: &str) -> Result<()> {
    for (index, patch) in series.patches.iter().enumerate() {
        eprintln!("  patch {}/{}: {}", index + 1, series.patches.len(), patch.name);
        let check = succeeds(git(dir).args(["apply", "--check"]).arg(&patch.path))?;
        if let Err(report) = check {
            let reverse = succeeds(git(dir).args(["apply", "--reverse", "--check"]).arg(&patch.path))?;
            if reverse.is_ok() {
                return Err(BackendError::PatchAlreadyUpstream {
                    backend: backend.into(),
                    patch: patch.name.clone(),
                    revision: revision.into(),
                    series: series.file.clone(),
                }
                .into());
            }
            let text = std::fs::read_to_string(&patch.path).unwrap_or_default();
            return Err(BackendError::PatchDoesNotApply {
                backend: backend.into(),
                patch: patch.name.clone(),
                revision: revision.into(),
                hunk: failed_hunk(&report, &text),
                detail: one_line(&report),
            }
            .into());
        }
        read(git(dir).args(["apply"]).arg(&patch.path))?;
    }
    Ok(())
}

/// Names the hunk git stopped at: git reports `patch failed: FILE:LINE`, where LINE is the
/// hunk's starting line in the old file; the patch's own `@@` header for it is quoted.
fn failed_hunk(report: &str, patch: &str) -> String {
    let Some((file, line)) = report.lines().find_map(|l| l.split("patch failed: ").nth(1)).and_then(|at| {
        let (file, line) = at.trim().rsplit_once(':')?;
        Some((file.to_owned(), line.parse::<u64>().ok()?))
    }) else {
        let missing = report.lines().find(|l| l.contains("No such file") || l.contains("does not exist"));
        return match missing {
            Some(line) => {
                format!("a file it changes is gone ({})", line.trim_start_matches("error: ").trim())
            }
            None => "git names no hunk".to_owned(),
        };
    };
    let mut current_file = String::new();
    let mut index_in_file = 0;
    for patch_line in patch.lines() {
        if let Some(path) = patch_line.strip_prefix("--- ") {
            current_file = path.trim().trim_start_matches("a/").to_owned();
            index_in_file = 0;
        } else if let Some(header) = patch_line.strip_prefix("@@ -") {
            index_in_file += 1;
            let old_start = header.split([',', ' ']).next().and_then(|n| n.parse::<u64>().ok());
            if current_file == file && old_start == Some(line) {
                return format!("hunk #{index_in_file} of {file} ({patch_line})");
            }
        }
    }
    format!("the hunk of {file} at line {line}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "diff --git a/src/main.rs b/src/main.rs\n--- a/src/main.rs\n+++ b/src/main.rs\n\
                         @@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -10,3 +10,3 @@\n x\n-y\n+Y\n z\n";

    #[test]
    fn names_the_hunk_git_stopped_at() {
        let report = "error: patch failed: src/main.rs:10\nerror: src/main.rs: patch does not apply\n";
        assert_eq!(failed_hunk(report, PATCH), "hunk #2 of src/main.rs (@@ -10,3 +10,3 @@)");
        let gone = "error: src/gone.rs: No such file or directory\n";
        assert!(failed_hunk(gone, PATCH).contains("src/gone.rs"));
    }
}
