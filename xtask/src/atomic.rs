//! Writing files that other processes read: to a temporary file unique to the writer, in the
//! same folder, synced, then renamed into place, so a reader sees the old content or the new
//! one and never a part of either.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `path` through a temporary file in the same folder, then renames it into place, so
/// a reader sees the old content or the new one, never a part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("a file to write has a parent folder")?;
    use std::os::unix::fs::PermissionsExt;
    let mut file = tempfile::Builder::new()
        .prefix(".tmp-")
        // Readable by everyone, like any file written in place (tempfile's default is 0600).
        .permissions(std::fs::Permissions::from_mode(0o644))
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    file.write_all(bytes).and_then(|()| file.as_file().sync_all()).context("writing the temporary file")?;
    file.persist(path).with_context(|| format!("renaming into {}", path.display()))?;
    Ok(())
}

/// Writes `text` to `path` through [`write_atomically`], creating its folder.
pub fn write_file(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().context("a file to write has a parent folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("config.toml");
        write_atomically(&path, b"old").expect("the first write");
        write_atomically(&path, b"new").expect("the write that replaces it");
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
