//! A patch series: `compiler-patches/NAME/series` lists patch files, one a line, applied in
//! that order (`#` starts a comment). Every `.patch` file in the folder must be listed, so a
//! patch cannot be carried by accident or dropped silently.

use std::path::{Path, PathBuf};

use super::error::BackendError;
use super::hash::{FileHash, sha256_file, sha256_hex};

/// One patch of a series, with the sha256 of its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub name: String,
    pub path: PathBuf,
    pub sha256: String,
}

/// The series of one backend, as it is on disk now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Series {
    pub file: PathBuf,
    /// sha256 of the series file's bytes.
    pub sha256: String,
    pub patches: Vec<Patch>,
}

impl Series {
    /// Reads `folder/series` and every patch it names for backend `backend`.
    pub fn read(backend: &str, folder: &Path) -> Result<Series, BackendError> {
        let file = folder.join("series");
        let bad = |reason: String| BackendError::BadDescription { file: file.clone(), reason };
        let bytes = std::fs::read(&file).map_err(|error| {
            bad(format!(
                "cannot be read ({error}); backend `{backend}` needs a series file, even an empty one"
            ))
        })?;
        let text = String::from_utf8(bytes.clone()).map_err(|_| bad("is not UTF-8 text".into()))?;
        let mut patches: Vec<Patch> = Vec::new();
        for name in listed_names(&text) {
            if name.contains('/') || name.contains('\\') {
                return Err(bad(format!("`{name}`: list patch files by name, they live beside the series")));
            }
            if patches.iter().any(|p| p.name == name) {
                return Err(BackendError::RepeatedPatch {
                    backend: backend.into(),
                    patch: name.into(),
                    series: file.clone(),
                });
            }
            let path = folder.join(name);
            let sha256 = sha256_file(&path).map_err(|_| BackendError::MissingPatch {
                backend: backend.into(),
                patch: name.into(),
                series: file.clone(),
            })?;
            patches.push(Patch { name: name.into(), path, sha256 });
        }
        if let Some(unlisted) =
            patch_files(folder).into_iter().find(|f| !patches.iter().any(|p| &p.name == f))
        {
            return Err(BackendError::UnlistedPatch {
                backend: backend.into(),
                patch: unlisted,
                folder: folder.to_owned(),
            });
        }
        Ok(Series { file, sha256: sha256_hex(&bytes), patches })
    }

    /// Each patch's name and sha256, in series order: as PROVENANCE records them.
    pub fn file_hashes(&self) -> Vec<FileHash> {
        self.patches.iter().map(|p| FileHash { path: p.name.clone(), sha256: p.sha256.clone() }).collect()
    }
}

/// The patch names a series lists, in order.
fn listed_names(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(|line| line.split('#').next().unwrap_or_default().trim()).filter(|line| !line.is_empty())
}

/// The `.patch` files in `folder`, sorted.
fn patch_files(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".patch"))
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(series: &str, patches: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("series"), series).unwrap();
        for patch in patches {
            std::fs::write(dir.path().join(patch), format!("content of {patch}\n")).unwrap();
        }
        dir
    }

    #[test]
    fn reads_patches_in_series_order_with_their_sha256() {
        let dir = folder(
            "# carried until upstream merges them\n0002-b.patch\n\n0001-a.patch # first\n",
            &["0001-a.patch", "0002-b.patch"],
        );
        let series = Series::read("up", dir.path()).unwrap();
        let names: Vec<&str> = series.patches.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["0002-b.patch", "0001-a.patch"]);
        assert_eq!(series.patches[1].sha256, sha256_hex(b"content of 0001-a.patch\n"));
    }

    #[test]
    fn an_empty_series_is_valid() {
        let dir = folder("# nothing carried\n", &[]);
        assert!(Series::read("up", dir.path()).unwrap().patches.is_empty());
    }

    #[test]
    fn missing_unlisted_and_repeated_patches_are_refused_by_name() {
        let missing = folder("0001-a.patch\n", &[]);
        let error = Series::read("up", missing.path()).unwrap_err();
        assert!(matches!(error, BackendError::MissingPatch { ref patch, .. } if patch == "0001-a.patch"));

        let unlisted = folder("0001-a.patch\n", &["0001-a.patch", "0002-b.patch"]);
        let error = Series::read("up", unlisted.path()).unwrap_err();
        assert!(matches!(error, BackendError::UnlistedPatch { ref patch, .. } if patch == "0002-b.patch"));

        let repeated = folder("0001-a.patch\n0001-a.patch\n", &["0001-a.patch"]);
        let error = Series::read("up", repeated.path()).unwrap_err();
        assert!(matches!(error, BackendError::RepeatedPatch { .. }), "{error}");
    }
}
