//! `PROVENANCE`: what an installed backend was built from. It is the last file written into
//! an install folder (to a temporary name unique to the writer, then renamed), so a folder
//! without one is a build that did not finish. The guard compares it with the inputs on disk.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::carried_record::CarriedRecord;
use super::hash::FileHash;
use crate::atomic::write_atomically;

/// The file name inside an install folder.
pub const PROVENANCE_FILE: &str = "PROVENANCE";

/// The record of one backend build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    pub backend: String,
    /// The build key, which is also the install folder's name.
    pub key: String,
    /// The upstream's git URL, or `in-tree`.
    pub upstream: String,
    /// The pin as the description wrote it (a toolchain version for an in-tree backend).
    pub pin: String,
    /// The full revision the pin resolved to (the toolchain's commit for an in-tree backend).
    pub revision: String,
    pub series_sha256: String,
    /// `rustc -vV`'s first line, commit and host.
    pub toolchain: String,
    pub llvm_version: String,
    pub build_command: Vec<String>,
    /// When the build finished, UTC, RFC 3339.
    pub built_at: String,
    /// The patches applied, in order.
    pub patches: Vec<FileHash>,
    /// In-tree sources the build was made from (empty for a git upstream).
    pub sources: Vec<FileHash>,
    /// The installed files, relative to the install folder.
    pub products: Vec<FileHash>,
    /// Registry packages the build carried patches on: version, archive sha256, series.
    #[serde(default)]
    pub carried: Vec<CarriedRecord>,
    /// A snapshot upstream (and the snapshots beside it): commit, git's id of each vendored
    /// path and of each regenerated file.
    #[serde(default)]
    pub snapshots: Vec<SnapshotRecord>,
    /// The upstream's own test suites on the patched copy, a line each with its count.
    #[serde(default)]
    pub upstream_tests: Vec<String>,
}

impl Provenance {
    /// Reads `dir/PROVENANCE`.
    pub fn read(dir: &Path) -> Result<Provenance> {
        let path = dir.join(PROVENANCE_FILE);
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("{} is not a PROVENANCE file", path.display()))
    }

    /// One line per patch the guard verified against the series on disk (the backend's own,
    /// then each carried package's), for `check-backend` to list.
    pub fn verified_patches(&self) -> Vec<String> {
        let line = |owner: &str, patch: &FileHash| {
            format!(
                "{owner}: patch {} (sha256 {}) verified",
                patch.path,
                &patch.sha256[..patch.sha256.len().min(12)]
            )
        };
        let own = self.patches.iter().map(|patch| line(&self.backend, patch));
        let carried = self.carried.iter().flat_map(|record| {
            let owner = format!("{} ({})", record.package, record.revision);
            record.patches.iter().map(move |patch| line(&owner, patch))
        });
        own.chain(carried).collect()
    }

    /// Writes `dir/PROVENANCE` through a temporary file unique to this writer, synced, then
    /// renamed into place.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let text = format!(
            "# What this backend was built from; written last by `cargo xtask build-backend`.\n{}",
            toml::to_string(self).context("formatting PROVENANCE")?
        );
        write_atomically(&dir.join(PROVENANCE_FILE), text.as_bytes())
    }
}

/// What PROVENANCE says of a vendored snapshot: its commit and git's id of each vendored path
/// and of each regenerated file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotRecord {
    pub url: String,
    pub commit: String,
    /// The folder it was copied to in the work folder (`src` for the upstream itself).
    pub at: String,
    pub paths: Vec<GitId>,
    #[serde(default)]
    pub regenerated: Vec<GitId>,
}

/// A path and git's id of it at the commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GitId {
    pub path: String,
    pub id: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let provenance = Provenance {
            backend: "up".into(),
            key: "0123456789abcdef".into(),
            upstream: "/tmp/up".into(),
            pin: "9df9e7ce".into(),
            revision: "9df9e7ce".repeat(5),
            series_sha256: "ab".repeat(32),
            toolchain: "rustc 1.99.1".into(),
            llvm_version: "23.1.1".into(),
            build_command: vec!["cargo".into(), "build".into()],
            built_at: "2026-11-29T15:00:00Z".into(),
            patches: vec![FileHash { path: "0001-a.patch".into(), sha256: "cd".repeat(32) }],
            sources: vec![],
            products: vec![FileHash { path: "up".into(), sha256: "ef".repeat(32) }],
            carried: vec![CarriedRecord {
                package: "pliron".into(),
                version: "0.20.0".into(),
                revision: format!("pliron 0.20.0 sha256:{}", "12".repeat(32)),
                series_sha256: "34".repeat(32),
                patches: vec![FileHash { path: "0001-b.patch".into(), sha256: "56".repeat(32) }],
            }],
            snapshots: vec![],
            upstream_tests: vec![],
        };
        provenance.write(dir.path()).unwrap();
        assert_eq!(Provenance::read(dir.path()).unwrap(), provenance);
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "only PROVENANCE is left, no temporary file");
    }
}
