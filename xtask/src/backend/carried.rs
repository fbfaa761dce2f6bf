//! Registry packages an in-tree backend carries patches on (`carry` in `backends.toml`), such
//! as pliron under the default backend's verifier.
//!
//! Each is vendored pristine at its exact version (`vendor/NAME`, checksum-guarded by
//! [`super::package`]); its series is applied to a throwaway work copy, which is then synced
//! into a stable folder (`target/backend-work/BACKEND/NAME`, only changed files rewritten, so
//! cargo's freshness holds from one build to the next); the package's own test suite runs
//! there and must pass. The backend is then built in a work copy of the workspace
//! (`target/backend-work/BACKEND/workspace`) whose manifest gains a `[patch]` naming the
//! patched folders. That is why the project's own `Cargo.toml` never names a generated path:
//! cargo resolves it, and `cargo xtask` builds, on a fresh clone.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use regress::layout::Layout;

use super::apply::apply_series;
use super::description::{Backend, Carried, read_backend};
use super::error::{BackendError, StaleReason};
use super::fs::{sync_tree, write_if_changed};
use super::hash::FileHash;
use super::lock::Lock;
use super::package;
use super::series::Series;
use super::store::{Slot, backends_root};
use crate::process;

/// A carried package and its series as they are on disk now.
#[derive(Debug, Clone)]
pub struct CarriedInputs {
    pub carried: Carried,
    pub series: Series,
}

/// What PROVENANCE records of a carried package.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarriedRecord {
    pub package: String,
    pub version: String,
    /// `NAME VERSION sha256:ARCHIVE`, the archive's sha256 as cargo recorded it.
    pub revision: String,
    pub series_sha256: String,
    /// The patches applied, in order, with their sha256.
    pub patches: Vec<FileHash>,
}

/// Reads the series of every package `backend` carries.
pub fn read_inputs(backend: &Backend) -> Result<Vec<CarriedInputs>, BackendError> {
    let read = |carried: &Carried| {
        let series = Series::read(&format!("{} ({})", backend.name, carried.package), &carried.patches)?;
        Ok(CarriedInputs { carried: carried.clone(), series })
    };
    backend.carried.iter().map(read).collect()
}

/// The lines the carried packages add to the build key.
pub fn key_lines(carried: &[CarriedInputs]) -> String {
    let mut text = String::new();
    for input in carried {
        let Carried { package, version, skip_tests, .. } = &input.carried;
        text.push_str(&format!(
            "carry {package} {version} series {} skip-tests {skip_tests:?}\n",
            input.series.sha256
        ));
        for patch in &input.series.patches {
            text.push_str(&format!("carry-patch {package} {} {}\n", patch.name, patch.sha256));
        }
    }
    text
}

/// What differs between the carried packages a build recorded and those described now.
pub fn differences(installed: &[CarriedRecord], now: &[CarriedInputs]) -> Vec<StaleReason> {
    let mut reasons = Vec::new();
    for input in now {
        let Carried { package, version, .. } = &input.carried;
        let change = match installed.iter().find(|record| &record.package == package) {
            None => Some(format!("{package} {version} is carried now but was not in the build")),
            Some(record) if &record.version != version => {
                Some(format!("{package} was built at {}, is carried at {version} now", record.version))
            }
            Some(record) if record.patches != input.series.file_hashes() => {
                let names =
                    |list: &[FileHash]| list.iter().map(|p| p.path.clone()).collect::<Vec<_>>().join(", ");
                Some(format!(
                    "{package}'s series changed: built with [{}], carries [{}] now",
                    names(&record.patches),
                    names(&input.series.file_hashes())
                ))
            }
            Some(record) if record.series_sha256 != input.series.sha256 => {
                Some(format!("{package}'s series file changed since the build"))
            }
            Some(_) => None,
        };
        reasons.extend(change.map(|change| StaleReason::Carried { change }));
    }
    for record in installed.iter().filter(|r| !now.iter().any(|i| i.carried.package == r.package)) {
        reasons.push(StaleReason::Carried { change: format!("{} is no longer carried", record.package) });
    }
    reasons
}

/// The stable folder of backend `backend`'s work copies in the project at `root`.
pub fn work_root(root: &Path, backend: &str) -> PathBuf {
    root.join("target").join("backend-work").join(backend)
}

/// Materialises every carried package, applies its series in a work copy of `slot` and syncs
/// the result into the stable work folder. Returns each package's record and patched folder.
pub fn prepare(
    root: &Path,
    backend: &str,
    carried: &[CarriedInputs],
    slot: &Slot,
) -> Result<Vec<(CarriedRecord, PathBuf)>> {
    let mut prepared = Vec::new();
    for input in carried {
        let Carried { package, version, vendor, .. } = &input.carried;
        let materialised = package::materialise(backend, package, version, vendor)?;
        eprintln!("{} is {}", vendor.display(), materialised.revision);
        let work = slot.temporary("work")?;
        let copy = work.path().join(package);
        package::work_copy(&materialised, &copy)?;
        let series = &input.series;
        if series.patches.is_empty() {
            eprintln!("{package}: the series is empty");
        }
        apply_series(backend, series, &copy, &materialised.revision)?;
        own_workspace(&copy)?;
        let patched = work_root(root, backend).join(package);
        sync_tree(&copy, &patched, &[".git", "target"])?;
        let record = CarriedRecord {
            package: package.clone(),
            version: version.clone(),
            revision: materialised.revision,
            series_sha256: series.sha256.clone(),
            patches: series.file_hashes(),
        };
        prepared.push((record, patched));
    }
    Ok(prepared)
}

/// Makes the package at `dir` a workspace of its own, so that cargo does not take it for a
/// stray member of the project's workspace, which holds its stable work folder.
fn own_workspace(dir: &Path) -> Result<()> {
    let manifest = dir.join("Cargo.toml");
    let text =
        std::fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
    let table: toml::Table =
        toml::from_str(&text).with_context(|| format!("reading {}", manifest.display()))?;
    if table.contains_key("workspace") {
        return Ok(());
    }
    let text = format!(
        "{text}\n# Added by `cargo xtask build-backend`: this work copy is a workspace of its own.\n[workspace]\n"
    );
    std::fs::write(&manifest, text).with_context(|| format!("writing {}", manifest.display()))
}

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
            file: super::description::DESCRIPTION_FILE.into(),
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
fn failing_tests(stdout: &str) -> Vec<String> {
    let mut names: Vec<String> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("test ")?.strip_suffix(" ... FAILED").map(str::to_owned))
        .collect();
    names.dedup();
    names
}

/// The count of a libtest summary line (`test result: ok. 12 passed; …`).
fn passed_count(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("test result: ")?;
    let (_, after) = rest.split_once(". ")?;
    after.split_once(" passed")?.0.parse().ok()
}

/// Makes a work copy of the workspace at `root` in the stable work folder, its manifest
/// patched to use each `(package, folder)` in place of the registry's, and returns it.
pub fn workspace_copy(root: &Path, backend: &str, patched: &[(String, PathBuf)]) -> Result<PathBuf> {
    let copy = work_root(root, backend).join("workspace");
    // Everything cargo needs to load the workspace; build output, upstream trees, the git
    // folder and the kernels' own workspace stay behind.
    sync_tree(root, &copy, &[".git", "target", "vendor", "ptx-snapshots"])?;
    let manifest = copy.join("Cargo.toml");
    let mut text =
        std::fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
    text.push_str("\n# Added by `cargo xtask build-backend` in this work copy only: the carried packages.\n");
    text.push_str("[patch.crates-io]\n");
    for (package, dir) in patched {
        let path = dir.to_string_lossy().replace('\\', "/");
        text.push_str(&format!("{package} = {{ path = \"{path}\" }}\n"));
    }
    write_if_changed(&manifest, text.as_bytes())?;
    Ok(copy)
}

/// The work copy of the workspace patched with backend `name`'s carried packages, their series
/// applied as they are on disk now: where `cargo xtask bench` runs the criterion benchmark, so
/// that it measures the pliron the backend ships. The installed backend must match the
/// description (`check-backend`), so the series applied here is the one it was built with.
/// The backend's locks are held while the work folders are written, as `build-backend` does.
pub fn patched_workspace(layout: &Layout, name: &str) -> Result<PathBuf> {
    let root = layout.root();
    let installed = super::check_backend(layout, name)?;
    let inputs = read_inputs(&read_backend(root, name)?)?;
    let _project_lock =
        Lock::acquire(&root.join("target").join("backend-locks").join(format!("{name}.lock")), name)?;
    let slot = Slot::new(&backends_root(layout)?, name, &installed.provenance.key);
    let _key_lock = Lock::acquire(&slot.lock_path(), &format!("{name} ({})", slot.key))?;
    let patched: Vec<_> =
        prepare(root, name, &inputs, &slot)?.into_iter().map(|(record, dir)| (record.package, dir)).collect();
    workspace_copy(root, name, &patched)
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
