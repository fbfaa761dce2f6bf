//! Is a built PTX file older than the sources it was built from?
//!
//! Cargo writes a dep-info file (`kernels.d`) beside `kernels.ptx` listing every source file
//! of the build. Checking a stale PTX would let a changed kernel pass the suite, so the suite
//! refuses one, naming the newer source.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A source file that changed after the PTX was built.
#[derive(Debug, thiserror::Error)]
#[error(
    "{ptx} is older than its source {source_file}: rebuild the kernels (`just kernels`) before checking snapshots"
)]
pub struct StalePtx {
    pub ptx: PathBuf,
    pub source_file: PathBuf,
}

/// Checks `ptx` against the sources listed in the dep-info file beside it (same stem, `.d`).
/// Without a dep-info file (a PTX from elsewhere) there is nothing to compare, and it passes.
pub fn check(ptx: &Path) -> Result<(), StalePtx> {
    let Ok(built) = fs::metadata(ptx).and_then(|m| m.modified()) else {
        return Ok(());
    };
    let Ok(dep_info) = fs::read_to_string(ptx.with_extension("d")) else {
        return Ok(());
    };
    for source in dep_info_sources(&dep_info) {
        let changed = fs::metadata(&source).and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
        if changed > built {
            return Err(StalePtx { ptx: ptx.to_path_buf(), source_file: source });
        }
    }
    Ok(())
}

/// The prerequisites of a make-style dep-info file (`target: dep dep …`), with `\ ` escapes.
fn dep_info_sources(dep_info: &str) -> Vec<PathBuf> {
    let mut sources = Vec::new();
    for line in dep_info.lines() {
        let Some((_, deps)) = line.split_once(": ") else { continue };
        let mut current = String::new();
        let mut chars = deps.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => {
                    current.push(' ');
                    chars.next();
                }
                ' ' => {
                    if !current.is_empty() {
                        sources.push(PathBuf::from(std::mem::take(&mut current)));
                    }
                }
                _ => current.push(c),
            }
        }
        if !current.is_empty() {
            sources.push(PathBuf::from(current));
        }
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dep_info_lists_sources_with_escaped_spaces() {
        let sources = dep_info_sources("/t/kernels.ptx: /k/src/lib.rs /k/my\\ dir/a.rs\n\n/k/src/lib.rs:\n");
        assert_eq!(sources, [PathBuf::from("/k/src/lib.rs"), PathBuf::from("/k/my dir/a.rs")]);
    }

    #[test]
    fn a_source_newer_than_the_ptx_is_refused_by_name() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let source = dir.join("lib.rs");
        let ptx = dir.join("kernels.ptx");
        fs::write(&ptx, "").unwrap();
        fs::write(&source, "").unwrap();
        fs::write(dir.join("kernels.d"), format!("{}: {}\n", ptx.display(), source.display())).unwrap();
        let old = SystemTime::now() - std::time::Duration::from_secs(60);
        fs::File::options().write(true).open(&ptx).unwrap().set_modified(old).unwrap();

        let err = check(&ptx).unwrap_err();
        assert_eq!(err.source_file, source);
        assert!(err.to_string().contains("just kernels"));

        fs::File::options().write(true).open(&ptx).unwrap().set_modified(SystemTime::now()).unwrap();
        fs::File::options().write(true).open(&source).unwrap().set_modified(old).unwrap();
        assert!(check(&ptx).is_ok());
    }
}
