//! The backends root and what lives in it: `ROOT/NAME/KEY/` is one installed build (its
//! products and, written last, its PROVENANCE), `ROOT/NAME/KEY.lock` serialises the processes
//! preparing that build, and `KEY.staging-*` / `KEY.work-*` are the temporary folders of a
//! build in progress (or of one that was killed, removed by the next build of that key).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use regress::layout::Layout;

/// Environment variable overriding the backends root; a relative path is taken from the
/// repository root.
pub const ROOT_ENV: &str = "KERNEL_BACKENDS_ROOT";

/// The backends root: `$KERNEL_BACKENDS_ROOT`, else `kernel-backends` in the cargo home.
pub fn backends_root(layout: &Layout) -> Result<PathBuf> {
    if let Some(root) = std::env::var_os(ROOT_ENV).filter(|r| !r.is_empty()) {
        return Ok(layout.resolve(root));
    }
    let cargo_home = match std::env::var_os("CARGO_HOME").filter(|h| !h.is_empty()) {
        Some(home) => PathBuf::from(home),
        None => std::env::home_dir()
            .context("no home folder to put the cargo home in: set KERNEL_BACKENDS_ROOT")?
            .join(".cargo"),
    };
    Ok(cargo_home.join("kernel-backends"))
}

/// Where one build of one backend lives in the backends root.
#[derive(Debug, Clone)]
pub struct Slot {
    /// `ROOT/NAME`
    pub backend_dir: PathBuf,
    pub key: String,
}

impl Slot {
    pub fn new(root: &Path, backend: &str, key: &str) -> Slot {
        Slot { backend_dir: root.join(backend), key: key.to_owned() }
    }

    /// The install folder, `ROOT/NAME/KEY`.
    pub fn dir(&self) -> PathBuf {
        self.backend_dir.join(&self.key)
    }

    pub fn lock_path(&self) -> PathBuf {
        self.backend_dir.join(format!("{}.lock", self.key))
    }

    /// A new temporary folder for this build, `KEY.<purpose>-XXXXXX`, unique to the writer.
    pub fn temporary(&self, purpose: &str) -> Result<tempfile::TempDir> {
        std::fs::create_dir_all(&self.backend_dir)
            .with_context(|| format!("creating {}", self.backend_dir.display()))?;
        tempfile::Builder::new()
            .prefix(&format!("{}.{purpose}-", self.key))
            .tempdir_in(&self.backend_dir)
            .with_context(|| format!("creating a temporary folder in {}", self.backend_dir.display()))
    }

    /// Removes what interrupted builds of this key left: temporary folders and an install
    /// folder that was never completed. Call only while holding the key's lock.
    pub fn tidy(&self) -> Result<()> {
        let Ok(entries) = std::fs::read_dir(&self.backend_dir) else { return Ok(()) };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let leftover =
                [".staging-", ".work-"].iter().any(|p| name.starts_with(&format!("{}{p}", self.key)));
            if leftover || name == self.key {
                eprintln!(
                    "removing {} (left by an earlier build that did not finish)",
                    entry.path().display()
                );
                std::fs::remove_dir_all(entry.path())
                    .with_context(|| format!("removing {}", entry.path().display()))?;
            }
        }
        Ok(())
    }

    /// The other install folders of this backend (other keys) that hold a PROVENANCE.
    pub fn siblings(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(&self.backend_dir) else { return Vec::new() };
        entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.file_name().is_some_and(|n| n != self.key.as_str() && !n.to_string_lossy().contains('.'))
            })
            .filter(|path| path.join(super::provenance::PROVENANCE_FILE).is_file())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_removes_only_this_keys_leftovers() {
        let root = tempfile::tempdir().unwrap();
        let slot = Slot::new(root.path(), "up", "aaaa");
        for dir in ["aaaa", "aaaa.staging-x1", "aaaa.work-x2", "bbbb", "bbbb.work-x3"] {
            std::fs::create_dir_all(root.path().join("up").join(dir)).unwrap();
        }
        std::fs::write(root.path().join("up/aaaa.lock"), "").unwrap();
        std::fs::write(root.path().join("up/bbbb/PROVENANCE"), "").unwrap();
        slot.tidy().unwrap();
        let mut left: Vec<String> = std::fs::read_dir(root.path().join("up"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["aaaa.lock", "bbbb", "bbbb.work-x3"]);
        assert_eq!(slot.siblings(), [root.path().join("up/bbbb")]);
    }
}
