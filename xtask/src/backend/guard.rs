//! The guard: is the installed backend the one the description, the series and the toolchain
//! on disk call for? It compares the install folder's PROVENANCE with the inputs, and the
//! installed files with their recorded sha256. When the folder for the current key is missing,
//! it finds the newest other build of the backend and says, by name, what changed since.

use std::path::{Path, PathBuf};

use anyhow::Result;
use regress::layout::Layout;

use super::carried_record;
use super::description::{Backend, Upstream, read_backend};
use super::error::{BackendError, StaleReason};
use super::hash::{FileHash, sha256_file};
use super::inputs::BuildInputs;
use super::provenance::{PROVENANCE_FILE, Provenance};
use super::rustc::Rustc;
use super::store::{Slot, backends_root};
use super::{git, package, snapshot, upstream};

/// An installed backend that matches its description.
#[derive(Debug, Clone)]
pub struct Installed {
    pub dir: PathBuf,
    pub provenance: Provenance,
}

impl Installed {
    /// The installed file `name` (a product's file name).
    pub fn product(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// `cargo xtask check-backend NAME`: the installed backend, or the refusal that says why not.
pub fn check_backend(layout: &Layout, name: &str) -> Result<Installed> {
    let backend = read_backend(layout.root(), name)?;
    let rustc = Rustc::for_backend(layout.root(), backend.toolchain.as_ref().map(|t| t.channel.as_str()))?;
    check(layout, name, backend, rustc)
}

/// [`check_backend`] with the toolchain's `rustc` already asked (`rustc -vV` runs once per
/// guarded kernels build).
pub fn check_backend_with(layout: &Layout, name: &str, rustc: &Rustc) -> Result<Installed> {
    check(layout, name, read_backend(layout.root(), name)?, rustc.clone())
}

fn check(layout: &Layout, name: &str, backend: Backend, rustc: Rustc) -> Result<Installed> {
    refuse_edited_vendor(&backend)?;
    let inputs = BuildInputs::read(layout.root(), backend, rustc)?;
    let slot = Slot::new(&backends_root(layout)?, name, &inputs.key());
    match verify(&inputs, &slot.dir()) {
        Some(Ok(installed)) => Ok(installed),
        Some(Err(reasons)) => Err(BackendError::Stale { backend: name.into(), reasons }.into()),
        None => Err(diagnose_missing(&inputs, &slot).into()),
    }
}

/// Refuses a backend whose vendor tree was edited by hand: a git checkout with uncommitted
/// changes, or a package whose files differ from what cargo unpacked. An install built from
/// the pin would otherwise pass while the tree that stands for the pin says something else.
/// A vendor tree not materialised here (nothing to compare) passes.
pub fn refuse_edited_vendor(backend: &Backend) -> Result<()> {
    match &backend.upstream {
        Upstream::Git { vendor, .. } if vendor.join(".git").exists() => {
            upstream::refuse_local_changes(&backend.name, vendor)
        }
        Upstream::Package { vendor, .. } if vendor.exists() => {
            package::refuse_local_changes(&backend.name, vendor)
        }
        // A snapshot is the repository's own copy: there is nothing to fetch it from, so a
        // missing one is refused like an edited one.
        Upstream::Snapshot(upstream) => {
            let beside = backend.beside.iter().map(|beside| &beside.snapshot);
            std::iter::once(upstream)
                .chain(beside)
                .try_for_each(|s| snapshot::refuse_local_changes(&backend.name, s))
        }
        _ => Ok(()),
    }
}

/// Whether `dir` holds a complete build matching `inputs`: `None` when it holds no
/// PROVENANCE, else the installed backend or what does not match.
pub fn verify(inputs: &BuildInputs, dir: &Path) -> Option<std::result::Result<Installed, Vec<StaleReason>>> {
    if !dir.join(PROVENANCE_FILE).is_file() {
        return None;
    }
    let provenance = match Provenance::read(dir) {
        Ok(provenance) => provenance,
        Err(error) => {
            let path = dir.join(PROVENANCE_FILE);
            return Some(Err(vec![StaleReason::UnreadableProvenance { path, detail: format!("{error:#}") }]));
        }
    };
    let mut reasons = differences(&provenance, inputs);
    let folder = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if provenance.key != folder {
        let path = dir.join(PROVENANCE_FILE);
        reasons.push(StaleReason::KeyMismatch { path, recorded: provenance.key.clone(), folder });
    }
    for product in &provenance.products {
        let path = dir.join(&product.path);
        if sha256_file(&path).ok().as_ref() != Some(&product.sha256) {
            reasons.push(StaleReason::ProductTampered { path });
        }
    }
    Some(if reasons.is_empty() { Ok(Installed { dir: dir.to_owned(), provenance }) } else { Err(reasons) })
}

/// What differs between a build's PROVENANCE and the inputs on disk now, by name.
pub fn differences(provenance: &Provenance, inputs: &BuildInputs) -> Vec<StaleReason> {
    let mut reasons = Vec::new();
    let (upstream, pin) = (inputs.upstream_url(), inputs.pin());
    if provenance.upstream != upstream || provenance.pin != pin {
        reasons.push(StaleReason::Pin {
            installed: format!("{} @ {}", provenance.upstream, provenance.pin),
            described: format!("{upstream} @ {pin}"),
        });
    }
    if provenance.toolchain != inputs.rustc.identity() {
        reasons.push(StaleReason::Toolchain {
            installed: provenance.toolchain.clone(),
            described: inputs.rustc.identity(),
        });
    }
    let now = inputs.series.file_hashes();
    reasons.extend(patch_differences(&provenance.patches, &now));
    // Same patches, yet another series file: its other lines (comments) changed.
    if provenance.patches == now && provenance.series_sha256 != inputs.series.sha256 {
        reasons.push(StaleReason::SeriesFile);
    }
    reasons.extend(source_differences(&provenance.sources, &inputs.sources));
    reasons.extend(carried_record::differences(&provenance.carried, &inputs.carried));
    let products: Vec<String> = inputs.backend.product_names();
    let installed_products: Vec<String> = provenance.products.iter().map(|p| p.path.clone()).collect();
    if provenance.build_command != inputs.backend.build.command || installed_products != products {
        reasons.push(StaleReason::BuildCommand);
    }
    reasons
}

fn patch_differences(installed: &[FileHash], now: &[FileHash]) -> Vec<StaleReason> {
    let mut reasons = Vec::new();
    for patch in now {
        match installed.iter().find(|p| p.path == patch.path) {
            None => reasons.push(StaleReason::PatchAdded { patch: patch.path.clone() }),
            Some(old) if old.sha256 != patch.sha256 => reasons.push(StaleReason::PatchChanged {
                patch: patch.path.clone(),
                installed: old.sha256.clone(),
                now: patch.sha256.clone(),
            }),
            Some(_) => {}
        }
    }
    for patch in installed.iter().filter(|old| !now.iter().any(|p| p.path == old.path)) {
        reasons.push(StaleReason::PatchRemoved { patch: patch.path.clone() });
    }
    let names = |list: &[FileHash]| list.iter().map(|p| p.path.clone()).collect::<Vec<_>>();
    if reasons.is_empty() && names(installed) != names(now) {
        reasons.push(StaleReason::SeriesOrder);
    }
    if !installed.is_empty() || now.is_empty() {
        return reasons;
    }
    // Nothing was applied to the installed build although the series has patches.
    vec![StaleReason::Unpatched { count: now.len() }]
}

pub fn source_differences(installed: &[FileHash], now: &[FileHash]) -> Vec<StaleReason> {
    let mut reasons = Vec::new();
    for file in now {
        match installed.iter().find(|f| f.path == file.path) {
            None => reasons.push(StaleReason::Source { path: file.path.clone(), change: "appeared" }),
            Some(old) if old.sha256 != file.sha256 => {
                reasons.push(StaleReason::Source { path: file.path.clone(), change: "changed" })
            }
            Some(_) => {}
        }
    }
    for old in installed.iter().filter(|old| !now.iter().any(|f| f.path == old.path)) {
        reasons.push(StaleReason::Source { path: old.path.clone(), change: "disappeared" });
    }
    reasons
}

/// The refusal for a key with no complete build: interrupted, stale (what changed since the
/// newest other build) or never built (and, for an upstream that cannot be reached, why it
/// cannot be built here).
fn diagnose_missing(inputs: &BuildInputs, slot: &Slot) -> BackendError {
    let backend = inputs.backend.name.clone();
    if slot.dir().exists() {
        return BackendError::Incomplete { backend, dir: slot.dir() };
    }
    let newest = slot
        .siblings()
        .into_iter()
        .filter_map(|dir| Provenance::read(&dir).ok())
        .max_by(|a, b| a.built_at.cmp(&b.built_at));
    if let Some(provenance) = newest {
        let reasons = differences(&provenance, inputs);
        if !reasons.is_empty() {
            return BackendError::Stale { backend, reasons };
        }
    }
    let mut note = String::new();
    if let Upstream::Git { url, vendor, .. } = &inputs.backend.upstream
        && !vendor.join(".git").exists()
        && let Ok(Err(detail)) = git::probe(url)
    {
        note = format!(
            ", and its upstream host {} cannot be reached from this machine to materialise it (`git ls-remote {url}`: \
             {detail})",
            git::host_of(url)
        );
    }
    BackendError::NotBuilt { backend, dir: slot.dir(), note }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::description::{Backend, Build};
    use crate::backend::rustc::Rustc;
    use crate::backend::series::{Patch, Series};

    fn hash(path: &str, sha256: &str) -> FileHash {
        FileHash { path: path.into(), sha256: sha256.into() }
    }

    /// Inputs with two patches and one in-tree source, and the PROVENANCE a build of them wrote.
    fn inputs_and_record() -> (BuildInputs, Provenance) {
        let vv = "rustc 1.99.1 (58cf8f9c3 2026-10-13)\ncommit-hash: 58cf8f9c3\nhost: x86_64-unknown-linux-gnu\n\
                  LLVM version: 23.1.1\n";
        let patch =
            |name: &str, sha: &str| Patch { name: name.into(), path: name.into(), sha256: sha.into() };
        let inputs = BuildInputs {
            backend: Backend {
                name: "up".into(),
                summary: String::new(),
                upstream: Upstream::Git {
                    url: "/srv/up".into(),
                    pin: "9df9e7ce".into(),
                    vendor: "/r/vendor/up".into(),
                },
                patches: "/r/compiler-patches/up".into(),
                build: Build {
                    command: vec!["cargo".into(), "build".into()],
                    produces: vec!["target/up".into()],
                },
                carried: vec![],
                pristine: None,
                toolchain: None,
                beside: vec![],
                prepare: vec![],
                tests: vec![],
                tests_env: Default::default(),
            },
            series: Series {
                file: "/r/compiler-patches/up/series".into(),
                sha256: "5e".into(),
                patches: vec![patch("0001-a.patch", "a1"), patch("0002-b.patch", "b2")],
            },
            rustc: Rustc::parse(vv, "rustc".into()).unwrap(),
            sources: vec![hash("tool/src/main.rs", "c3")],
            carried: vec![],
        };
        let record = Provenance {
            backend: "up".into(),
            key: inputs.key(),
            upstream: inputs.upstream_url(),
            pin: inputs.pin(),
            revision: "9df9e7ce".repeat(5),
            series_sha256: "5e".into(),
            toolchain: inputs.rustc.identity(),
            llvm_version: "23.1.1".into(),
            build_command: inputs.backend.build.command.clone(),
            built_at: "2026-11-29T15:00:00Z".into(),
            patches: vec![hash("0001-a.patch", "a1"), hash("0002-b.patch", "b2")],
            sources: vec![hash("tool/src/main.rs", "c3")],
            products: vec![hash("up", "d4")],
            carried: vec![],
            snapshots: vec![],
            upstream_tests: vec![],
        };
        (inputs, record)
    }

    #[test]
    fn a_matching_record_has_no_differences_and_each_change_is_named() {
        let (inputs, record) = inputs_and_record();
        assert_eq!(differences(&record, &inputs), []);

        let changed = |edit: &dyn Fn(&mut Provenance)| {
            let mut old = record.clone();
            edit(&mut old);
            differences(&old, &inputs).iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
        };
        assert!(
            changed(&|r| r.pin = "0123abcd".into()).contains("stale pin: installed from /srv/up @ 0123abcd")
        );
        assert!(
            changed(&|r| r.toolchain = "rustc 1.98.0".into())
                .contains("toolchain changed: built by rustc 1.98.0")
        );
        assert!(
            changed(&|r| r.patches[1].sha256 = "ff".into())
                .contains("patch `0002-b.patch` was tampered with")
        );
        assert!(
            changed(&|r| {
                r.patches.pop();
            })
            .contains("patch `0002-b.patch` was added")
        );
        assert!(
            changed(&|r| r.patches.push(hash("0003-c.patch", "c3")))
                .contains("patch `0003-c.patch` was removed")
        );
        assert!(changed(&|r| r.patches.reverse()).contains("reordered"));
        assert!(
            changed(&|r| r.patches.clear()).contains("unpatched: it was built without any of the 2 patches")
        );
        assert!(changed(&|r| r.series_sha256 = "00".into()).contains("the series file changed"));
        assert!(
            changed(&|r| r.sources[0].sha256 = "00".into()).contains("source `tool/src/main.rs` changed")
        );
        assert!(changed(&|r| r.sources.clear()).contains("source `tool/src/main.rs` appeared"));
        assert!(
            changed(&|r| r.sources.push(hash("tool/old.rs", "0")))
                .contains("source `tool/old.rs` disappeared")
        );
        assert!(changed(&|r| r.build_command.push("--release".into())).contains("the build command changed"));
    }

    #[test]
    fn a_tampered_or_missing_provenance_is_refused() {
        let (inputs, record) = inputs_and_record();
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join(inputs.key());
        std::fs::create_dir_all(&dir).unwrap();
        assert!(verify(&inputs, &dir).is_none(), "no PROVENANCE: not a complete build");
        std::fs::write(dir.join("up"), "built").unwrap();
        let mut record = record;
        record.products[0].sha256 = crate::backend::hash::sha256_hex(b"built");
        record.write(&dir).unwrap();
        assert!(matches!(verify(&inputs, &dir), Some(Ok(_))));

        // The key edited: the record no longer names its folder.
        let mut edited = record.clone();
        edited.key = "0123456789abcdef".into();
        edited.write(&dir).unwrap();
        let Some(Err(reasons)) = verify(&inputs, &dir) else { panic!("an edited key is accepted") };
        let text = reasons.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
        assert!(text.contains("records key `0123456789abcdef` but sits in the folder of key"), "{text}");
        // The same record copied into another key's folder.
        let elsewhere = root.path().join("fedcba9876543210");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::copy(dir.join("up"), elsewhere.join("up")).unwrap();
        record.write(&elsewhere).unwrap();
        assert!(matches!(verify(&inputs, &elsewhere), Some(Err(_))), "a record in another key's folder");
        record.write(&dir).unwrap();
        assert!(matches!(verify(&inputs, &dir), Some(Ok(_))));

        std::fs::write(dir.join(PROVENANCE_FILE), "backend = 3\n").unwrap();
        let Some(Err(reasons)) = verify(&inputs, &dir) else { panic!("a broken PROVENANCE is accepted") };
        assert!(reasons[0].to_string().contains("cannot be read"), "{reasons:?}");
    }
}
