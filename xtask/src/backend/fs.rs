//! Folder syncing for the stable work folders: a tree copied so that only files whose content
//! differs are rewritten, which keeps cargo's freshness (by modification time) from one build to
//! the next.

use std::path::Path;

use anyhow::{Context, Result};

/// Makes `to` hold exactly the files of `from` (but for folders named in `skip`, at any
/// depth), rewriting only files whose content differs, so that unchanged files keep their
/// modification times. Folders named in `skip` inside `to` are left alone.
pub fn sync_tree(from: &Path, to: &Path, skip: &[&str]) -> Result<()> {
    let skipped =
        |entry: &walkdir::DirEntry| entry.depth() > 0 && skip.iter().any(|s| entry.file_name() == *s);
    let mut wanted = std::collections::BTreeSet::new();
    for entry in walkdir::WalkDir::new(from).into_iter().filter_entry(|e| !skipped(e)) {
        let entry = entry.with_context(|| format!("listing {}", from.display()))?;
        let relative = entry.path().strip_prefix(from).unwrap_or(entry.path()).to_owned();
        let target = to.join(&relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).with_context(|| format!("creating {}", target.display()))?;
        } else if entry.file_type().is_file() {
            let bytes =
                std::fs::read(entry.path()).with_context(|| format!("reading {}", entry.path().display()))?;
            write_if_changed(&target, &bytes)?;
        }
        wanted.insert(relative);
    }
    let mut stale = Vec::new();
    for entry in walkdir::WalkDir::new(to).into_iter().filter_entry(|e| !skipped(e)) {
        let entry = entry.with_context(|| format!("listing {}", to.display()))?;
        let relative = entry.path().strip_prefix(to).unwrap_or(entry.path()).to_owned();
        if entry.depth() > 0 && !wanted.contains(&relative) {
            stale.push(entry.path().to_owned());
        }
    }
    for path in stale {
        let removed =
            if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        // A folder removed first takes its files with it.
        if path.exists() {
            removed.with_context(|| format!("removing {}", path.display()))?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` unless it holds them already (its modification time then stays).
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<()> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_rewrites_only_changed_files_and_removes_stale_ones() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("from"), dir.path().join("to"));
        std::fs::create_dir_all(from.join("src/target")).unwrap();
        std::fs::write(from.join("src/lib.rs"), "a").unwrap();
        std::fs::write(from.join("src/target/out"), "built").unwrap();
        std::fs::write(from.join("Cargo.toml"), "m").unwrap();
        sync_tree(&from, &to, &["target"]).unwrap();
        assert!(!to.join("src/target").exists(), "skipped folders are not copied");
        std::fs::write(to.join("stale.rs"), "").unwrap();
        let before = std::fs::metadata(to.join("Cargo.toml")).unwrap().modified().unwrap();
        std::fs::write(from.join("src/lib.rs"), "b").unwrap();
        sync_tree(&from, &to, &["target"]).unwrap();
        assert_eq!(std::fs::read_to_string(to.join("src/lib.rs")).unwrap(), "b");
        assert!(!to.join("stale.rs").exists());
        assert_eq!(std::fs::metadata(to.join("Cargo.toml")).unwrap().modified().unwrap(), before);
    }
}
