//! The work copies of the registry packages an in-tree backend carries patches on (`carry` in
//! `backends.toml`, such as pliron under the default backend's verifier), and the work copy of
//! the workspace that is built against them.
//!
//! Each package is vendored pristine at its exact version (`vendor/NAME`, checksum-guarded by
//! [`super::package`]); its series is applied to a throwaway work copy, which is then synced
//! into a stable folder (`target/backend-work/BACKEND/NAME`, only changed files rewritten, so
//! cargo's freshness holds from one build to the next); the package's own test suite runs
//! there and must pass ([`super::upstream_tests`]). The backend is then built in a work copy of
//! the workspace (`target/backend-work/BACKEND/workspace`) whose manifest gains a `[patch]`
//! naming the patched folders. That is why the project's own `Cargo.toml` never names a
//! generated path: cargo resolves it, and `cargo xtask` builds, on a fresh clone. What a
//! carried package is as data (its inputs, its record in PROVENANCE) is
//! [`super::carried_record`].

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use regress::layout::Layout;

use super::apply::apply_series;
use super::carried_record::{CarriedInputs, CarriedRecord, read_inputs};
use super::description::{Carried, read_backend};
use super::fs::{sync_tree, write_if_changed};
use super::guard::check_backend;
use super::lock::Lock;
use super::package;
use super::store::{Slot, backends_root};

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
    let installed = check_backend(layout, name)?;
    let inputs = read_inputs(&read_backend(root, name)?)?;
    let _project_lock =
        Lock::acquire(&root.join("target").join("backend-locks").join(format!("{name}.lock")), name)?;
    let slot = Slot::new(&backends_root(layout)?, name, &installed.provenance.key);
    let _key_lock = Lock::acquire(&slot.lock_path(), &format!("{name} ({})", slot.key))?;
    let patched: Vec<_> =
        prepare(root, name, &inputs, &slot)?.into_iter().map(|(record, dir)| (record.package, dir)).collect();
    workspace_copy(root, name, &patched)
}
