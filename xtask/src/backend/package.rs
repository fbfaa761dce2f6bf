//! Materialising a registry-package upstream: `vendor/NAME` holds the package's sources at the
//! pinned version, unpacked by `cargo vendor` (so the project's own cargo configuration, a
//! registry mirror or a source replacement, applies). cargo writes `.cargo-checksum.json` beside
//! the sources: its file hashes make a local edit of the vendor tree detectable, and its package
//! checksum is the "full revision" PROVENANCE records. As for a git upstream, the vendor tree is
//! never patched: each build applies the series to its own copy.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use super::error::BackendError;
use super::git::git;
use super::hash::{sha256_file, sha256_hex, slash_path};
use super::upstream::Materialised;
use crate::process::{self, one_line, output_within, read};

/// The file cargo writes beside vendored sources.
const CHECKSUM_FILE: &str = ".cargo-checksum.json";

/// How long fetching a package may take: a large package with its dependencies, on a slow mirror.
const FETCH_TIMEOUT: Duration = Duration::from_secs(900);

/// What `.cargo-checksum.json` says.
#[derive(serde::Deserialize)]
struct Checksums {
    files: BTreeMap<String, String>,
    /// The sha256 of the package archive; absent for sources that have no archive.
    package: Option<String>,
}

/// Makes `vendor` hold package `package` at `version`, fetching it only when it does not yet.
/// A vendor tree at another version is replaced, unless it has local changes.
pub fn materialise(backend: &str, package: &str, version: &str, vendor: &Path) -> Result<Materialised> {
    let mut replaced = String::new();
    if vendor.exists() {
        let present = read_vendored(backend, vendor)?;
        if present.name == package && present.version == version {
            return Ok(Materialised { vendor: vendor.into(), revision: present.revision(package, version) });
        }
        replaced = format!(" (it held {} {})", present.name, present.version);
    }
    let parent = vendor.parent().context("the vendor folder has a parent")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    // Inside the project, so that its cargo configuration applies and the rename below stays on
    // one file system; removed on every way out.
    let scratch = tempfile::Builder::new()
        .prefix(".fetching-")
        .tempdir_in(parent)
        .with_context(|| format!("creating a scratch folder in {}", parent.display()))?;
    let unpacked = fetch(backend, package, version, scratch.path())?;
    let fetched = read_vendored(backend, &unpacked)?;
    if fetched.name != package || fetched.version != version {
        anyhow::bail!(
            "cargo vendor unpacked {} {} where {package} {version} was asked for",
            fetched.name,
            fetched.version
        );
    }
    if vendor.exists() {
        std::fs::rename(vendor, scratch.path().join("replaced"))
            .with_context(|| format!("moving the old {} aside", vendor.display()))?;
    }
    std::fs::rename(&unpacked, vendor)
        .with_context(|| format!("moving {package} {version} into {}", vendor.display()))?;
    eprintln!("unpacked {package} {version} into {}{replaced}", vendor.display());
    Ok(Materialised { vendor: vendor.into(), revision: fetched.revision(package, version) })
}

/// Runs `cargo vendor` for a throwaway manifest that depends on exactly `package` `version`,
/// and returns the folder it unpacked the package into.
fn fetch(backend: &str, package: &str, version: &str, scratch: &Path) -> Result<PathBuf> {
    let probe = scratch.join("probe");
    std::fs::create_dir_all(&probe)?;
    // Its own `[workspace]`: the project's workspace must not claim it.
    let manifest = format!(
        "[package]\nname = \"fetch-backend-upstream\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = \
         false\n\n[lib]\npath = \"lib.rs\"\n\n[dependencies]\n{package} = \"={version}\"\n\n[workspace]\n"
    );
    std::fs::write(probe.join("Cargo.toml"), manifest)?;
    std::fs::write(probe.join("lib.rs"), "")?;
    eprintln!("fetching {package} {version} (cargo vendor)");
    let mut vendor = process::cargo(&probe);
    vendor
        .args(["vendor", "--quiet", "--respect-source-config", "--versioned-dirs", "--"])
        .arg("../unpacked");
    let unavailable = |detail: String| BackendError::PackageUnavailable {
        backend: backend.into(),
        package: package.into(),
        version: version.into(),
        detail,
    };
    let output = output_within(&mut vendor, FETCH_TIMEOUT)?
        .ok_or_else(|| unavailable(format!("no answer within {} s", FETCH_TIMEOUT.as_secs())))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let causes: Vec<&str> = stderr.lines().filter(|line| line.trim() != "Caused by:").collect();
        return Err(unavailable(one_line(&causes.join("\n"))).into());
    }
    Ok(scratch.join("unpacked").join(format!("{package}-{version}")))
}

/// A vendored package as found on disk.
struct Vendored {
    name: String,
    version: String,
    checksums: Checksums,
}

impl Vendored {
    /// PROVENANCE's revision of a package: name, version and the sha256 cargo recorded for its
    /// archive, or, for a source without archives, the sha256 of its file list.
    fn revision(&self, package: &str, version: &str) -> String {
        let sha256 = self.checksums.package.clone().unwrap_or_else(|| {
            let listing: String =
                self.checksums.files.iter().map(|(path, sha)| format!("{sha}  {path}\n")).collect();
            sha256_hex(listing.as_bytes())
        });
        format!("{package} {version} sha256:{sha256}")
    }
}

/// Reads the vendored package at `dir`, refusing a folder cargo did not unpack and one whose
/// files differ from what cargo recorded.
fn read_vendored(backend: &str, dir: &Path) -> Result<Vendored> {
    let foreign = || BackendError::ForeignVendor { backend: backend.into(), path: dir.into() };
    let text = std::fs::read_to_string(dir.join(CHECKSUM_FILE)).map_err(|_| foreign())?;
    let checksums: Checksums = serde_json::from_str(&text).map_err(|_| foreign())?;
    let changes = local_changes(dir, &checksums.files)?;
    if !changes.is_empty() {
        return Err(BackendError::DirtyVendor {
            backend: backend.into(),
            path: dir.into(),
            changes: changes.join(", "),
            restore: format!("remove {} and run `just build-backend {backend}` again", dir.display()),
        }
        .into());
    }
    let manifest: toml::Table = std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()
        .and_then(|text| toml::from_str(&text).ok())
        .ok_or_else(foreign)?;
    let field = |key: &str| manifest.get("package").and_then(|p| p.get(key)).and_then(|v| v.as_str());
    match (field("name"), field("version")) {
        (Some(name), Some(version)) => {
            Ok(Vendored { name: name.to_owned(), version: version.to_owned(), checksums })
        }
        _ => Err(foreign().into()),
    }
}

/// Refuses a vendored package whose files differ from what cargo recorded (or a folder cargo
/// did not unpack), naming the changes.
pub(super) fn refuse_local_changes(backend: &str, vendor: &Path) -> Result<()> {
    read_vendored(backend, vendor).map(drop)
}

/// Files of `dir` that differ from `recorded`, in `git status --short`'s words.
fn local_changes(dir: &Path, recorded: &BTreeMap<String, String>) -> Result<Vec<String>> {
    let mut changes = Vec::new();
    let mut seen = 0;
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let path = slash_path(dir, entry.path());
        if path == CHECKSUM_FILE {
            continue;
        }
        match recorded.get(&path) {
            None => changes.push(format!("?? {path}")),
            Some(sha256) => {
                seen += 1;
                let now = sha256_file(entry.path())
                    .with_context(|| format!("reading {}", entry.path().display()))?;
                if &now != sha256 {
                    changes.push(format!("M {path}"));
                }
            }
        }
    }
    if seen < recorded.len() {
        let present = |path: &String| dir.join(path).is_file();
        changes.extend(recorded.keys().filter(|path| !present(path)).map(|path| format!("D {path}")));
    }
    Ok(changes)
}

/// A work copy of the vendored package inside `dir` (which must not exist yet): the files, in
/// a repository of their own so that the series applies with `git apply` as for a git upstream.
pub fn work_copy(materialised: &Materialised, dir: &Path) -> Result<()> {
    for entry in walkdir::WalkDir::new(&materialised.vendor) {
        let entry = entry.with_context(|| format!("listing {}", materialised.vendor.display()))?;
        let relative = entry.path().strip_prefix(&materialised.vendor).unwrap_or(entry.path());
        let to = dir.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).with_context(|| format!("creating {}", to.display()))?;
        } else if relative != Path::new(CHECKSUM_FILE) {
            std::fs::copy(entry.path(), &to).with_context(|| format!("copying to {}", to.display()))?;
        }
    }
    read(git(dir).args(["init", "--quiet"])).context("making the work copy a repository")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_changes_name_modified_added_and_deleted_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "// edited\n").unwrap();
        std::fs::write(dir.path().join("src/extra.rs"), "").unwrap();
        let sha = |text: &str| sha256_hex(text.as_bytes());
        let recorded = BTreeMap::from([
            ("Cargo.toml".to_owned(), sha("[package]\n")),
            ("src/lib.rs".to_owned(), sha("// pristine\n")),
            ("src/gone.rs".to_owned(), sha("")),
        ]);
        assert_eq!(
            local_changes(dir.path(), &recorded).unwrap(),
            ["?? src/extra.rs", "M src/lib.rs", "D src/gone.rs"]
        );
    }
}
