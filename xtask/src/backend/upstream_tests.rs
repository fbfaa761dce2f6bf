//! The test suite a carried package ships with, run on its patched work copy: the build is
//! refused, naming every failing test, unless it passes.

use std::path::Path;

use anyhow::{Context, Result};

use super::description::{Carried, DESCRIPTION_FILE};
use super::error::BackendError;
use crate::process;

/// Runs the test suite `package` ships with, on its patched copy at `dir`, and refuses the
/// build naming every failing test.
pub fn run_upstream_tests(root: &Path, backend: &str, carried: &Carried, dir: &Path) -> Result<()> {
    let package = &carried.package;
    let target = root.join("target").join("backend-build").join("upstream-tests");
    let mut test = process::cargo(dir);
    test.args(["test", "--manifest-path", "Cargo.toml", "--target-dir"]).arg(&target);
    test.args(test_targets(backend, carried, dir)?);
    // The tests' expected messages are written without backtraces (pliron's errors carry one
    // when RUST_BACKTRACE asks for it), so a developer's setting must not fail them.
    test.env("RUST_BACKTRACE", "0").env("RUST_LIB_BACKTRACE", "0");
    // A package that ships its lock file is tested with exactly the dependencies it was
    // released with.
    if dir.join("Cargo.lock").is_file() {
        test.arg("--locked");
    }
    eprintln!("{package}: running its own test suite on the patched copy ({})", dir.display());
    // cargo's progress and the tests' own messages go to the terminal; libtest's report is read.
    test.stderr(std::process::Stdio::inherit());
    let output = test.output().with_context(|| format!("running the test suite of {package}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let passed: usize = stdout.lines().filter_map(passed_count).sum();
    if output.status.success() {
        eprintln!("{package}: {passed} tests passed");
        return Ok(());
    }
    let failing = failing_tests(&stdout);
    let detail = if failing.is_empty() {
        format!("it did not build or run ({}; cargo's report is above)", output.status)
    } else {
        format!("failing: {}", failing.join(", "))
    };
    Err(BackendError::UpstreamTestsFailed { backend: backend.into(), package: package.into(), detail }.into())
}

/// Which of the package's tests run: its library's unit tests and its integration tests, but
/// those `skip-tests` names. Examples and doctests are left out: pliron 0.20.0's example needs
/// a crate the package does not declare, and doctests compile every example in the
/// documentation separately, minutes on two cores.
fn test_targets(backend: &str, carried: &Carried, dir: &Path) -> Result<Vec<String>> {
    if carried.skip_tests.is_empty() {
        return Ok(vec!["--lib".into(), "--tests".into()]);
    }
    let manifest: toml::Table = toml::from_str(&std::fs::read_to_string(dir.join("Cargo.toml"))?)
        .with_context(|| format!("reading {}", dir.join("Cargo.toml").display()))?;
    let declared: Vec<String> = manifest
        .get("test")
        .and_then(|tests| tests.as_array())
        .into_iter()
        .flatten()
        .filter_map(|test| test.get("name")?.as_str().map(str::to_owned))
        .collect();
    if let Some(unknown) = carried.skip_tests.iter().find(|name| !declared.contains(name)) {
        return Err(BackendError::BadDescription {
            file: DESCRIPTION_FILE.into(),
            reason: format!(
                "backend `{backend}`: `skip-tests` names `{unknown}`, which is not a test of {} {} (its tests: {}); \
                 remove it",
                carried.package,
                carried.version,
                declared.join(", ")
            ),
        }
        .into());
    }
    let mut args = vec!["--lib".to_owned()];
    for name in declared.iter().filter(|name| !carried.skip_tests.contains(name)) {
        args.extend(["--test".to_owned(), name.clone()]);
    }
    Ok(args)
}

/// The tests libtest reports as failed (`test NAME ... FAILED`).
pub(super) fn failing_tests(stdout: &str) -> Vec<String> {
    let mut names: Vec<String> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("test ")?.strip_suffix(" ... FAILED").map(str::to_owned))
        .collect();
    names.dedup();
    names
}

/// The count of a libtest summary line (`test result: ok. 12 passed; …`).
pub(super) fn passed_count(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("test result: ")?;
    let (_, after) = rest.split_once(". ")?;
    after.split_once(" passed")?.0.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_failures_and_counts_are_read_from_its_output() {
        let stdout = "running 3 tests\ntest graph::a ... ok\ntest graph::dominance::tests::x ... FAILED\n\
                      test b ... FAILED\n\ntest result: FAILED. 1 passed; 2 failed; 0 ignored\n\
                      test result: ok. 7 passed; 0 failed\n";
        assert_eq!(failing_tests(stdout), ["graph::dominance::tests::x", "b"]);
        assert_eq!(stdout.lines().filter_map(passed_count).sum::<usize>(), 8);
    }
}
