//! Everything a backend build depends on, read from disk without building or fetching anything:
//! the pin, the series and each patch's sha256, the toolchain, the build command and, for an
//! in-tree backend, the sha256 of every source file it is built from. The hash of all of it is
//! the build's key: the folder the backend is installed in, so that configurations coexist.

use std::path::Path;

use anyhow::{Context, Result};

use super::carried_record::{self, CarriedInputs};
use super::description::{Backend, Upstream};
use super::error::BackendError;
use super::hash::{FileHash, sha256_file, sha256_hex, slash_path};
use super::rustc::Rustc;
use super::series::Series;

/// The inputs of one backend build.
#[derive(Debug, Clone)]
pub struct BuildInputs {
    pub backend: Backend,
    pub series: Series,
    pub rustc: Rustc,
    /// In-tree sources (empty for an upstream, whose pin stands for its sources).
    pub sources: Vec<FileHash>,
    /// The registry packages an in-tree backend carries patches on, with their series.
    pub carried: Vec<CarriedInputs>,
}

impl BuildInputs {
    /// Reads the inputs of `backend` in the project at `root`, built with `rustc` (the
    /// toolchain's, [`Rustc::of_toolchain`]).
    pub fn read(root: &Path, backend: Backend, rustc: Rustc) -> Result<BuildInputs> {
        let series = Series::read(&backend.name, &backend.patches)?;
        let sources = match &backend.upstream {
            Upstream::Git { .. } | Upstream::Package { .. } | Upstream::Snapshot(_) => Vec::new(),
            Upstream::InTree { inputs } => {
                if let Some(patch) = series.patches.first() {
                    return Err(BackendError::InTreePatches {
                        backend: backend.name.clone(),
                        patch: patch.name.clone(),
                        series: series.file.clone(),
                    }
                    .into());
                }
                hash_sources(root, inputs)?
            }
        };
        let carried = carried_record::read_inputs(&backend)?;
        Ok(BuildInputs { backend, series, rustc, sources, carried })
    }

    /// Upstream and pin as PROVENANCE names them: `URL @ pin`, or `in-tree` with the toolchain.
    pub fn upstream_url(&self) -> String {
        match &self.backend.upstream {
            Upstream::Git { url, .. } => url.clone(),
            Upstream::Package { package, .. } => format!("package {package}"),
            Upstream::Snapshot(snapshot) => snapshot.url.clone(),
            Upstream::InTree { .. } => "in-tree".to_owned(),
        }
    }

    /// The pin as written in the description; an in-tree build is pinned by its toolchain.
    pub fn pin(&self) -> String {
        match &self.backend.upstream {
            Upstream::Git { pin, .. } => pin.clone(),
            Upstream::Package { version, .. } => version.clone(),
            Upstream::Snapshot(snapshot) => snapshot.commit.clone(),
            Upstream::InTree { .. } => self.rustc.version.clone(),
        }
    }

    /// The key of this build: a hash of every input, written out line by line.
    pub fn key(&self) -> String {
        let mut text =
            format!("backend {}\nupstream {}\npin {}\n", self.backend.name, self.upstream_url(), self.pin());
        text.push_str(&format!("series {}\n", self.series.sha256));
        for patch in &self.series.patches {
            text.push_str(&format!("patch {} {}\n", patch.name, patch.sha256));
        }
        text.push_str(&format!("toolchain {}\n", self.rustc.identity()));
        text.push_str(&format!("command {:?}\n", self.backend.build.command));
        text.push_str(&format!("produces {:?}\n", self.backend.build.produces));
        if let Some(pristine) = &self.backend.pristine {
            text.push_str(&format!("pristine {:?} {:?}\n", pristine.command, pristine.produces));
        }
        text.push_str(&carried_record::key_lines(&self.carried));
        for beside in &self.backend.beside {
            text.push_str(&format!(
                "beside {} {} {}\n",
                beside.at, beside.snapshot.url, beside.snapshot.commit
            ));
        }
        for (kind, commands) in [("prepare", &self.backend.prepare), ("tests", &self.backend.tests)] {
            for command in commands {
                text.push_str(&format!("{kind} {command:?}\n"));
            }
        }
        for (name, value) in &self.backend.tests_env {
            text.push_str(&format!("tests-env {name}={value}\n"));
        }
        for source in &self.sources {
            text.push_str(&format!("source {} {}\n", source.path, source.sha256));
        }
        sha256_hex(text.as_bytes())[..16].to_owned()
    }
}

/// The sha256 of every file under `inputs` (files or folders, relative to `root`), sorted by
/// path. Build output folders (`target`) are not sources.
pub fn hash_sources(root: &Path, inputs: &[std::path::PathBuf]) -> Result<Vec<FileHash>> {
    let mut hashes = Vec::new();
    for input in inputs {
        let start = root.join(input);
        if !start.exists() {
            return Err(BackendError::BadDescription {
                file: root.join(super::description::DESCRIPTION_FILE),
                reason: format!("in-tree input `{}` does not exist", input.display()),
            }
            .into());
        }
        let walk = walkdir::WalkDir::new(&start).sort_by_file_name().into_iter();
        for entry in walk.filter_entry(|e| !(e.file_type().is_dir() && e.file_name() == "target")) {
            let entry = entry.with_context(|| format!("listing {}", start.display()))?;
            if !entry.file_type().is_file() {
                continue;
            }
            let path = slash_path(root, entry.path());
            let sha256 =
                sha256_file(entry.path()).with_context(|| format!("reading {}", entry.path().display()))?;
            hashes.push(FileHash { path, sha256 });
        }
    }
    hashes.sort();
    hashes.dedup();
    Ok(hashes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_skip_build_output_and_use_root_relative_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("tool/src")).unwrap();
        std::fs::create_dir_all(root.join("tool/target/debug")).unwrap();
        std::fs::write(root.join("tool/src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(root.join("tool/target/debug/out"), "built").unwrap();
        std::fs::write(root.join("Cargo.lock"), "# lock\n").unwrap();
        let hashes = hash_sources(root, &["tool".into(), "Cargo.lock".into()]).unwrap();
        let paths: Vec<&str> = hashes.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths, ["Cargo.lock", "tool/src/main.rs"]);
        assert!(hash_sources(root, &["missing".into()]).unwrap_err().to_string().contains("`missing`"));
    }
}
