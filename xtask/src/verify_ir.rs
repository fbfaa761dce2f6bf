//! `just verify-ir FILE…`: verifies textual kernel IR with the verifier that ships, the default
//! backend's `verifier-probe` (the plugin's verifier linked with the patched pliron; parsing,
//! verifying and rendering are `plugin::report`'s). The backend is checked first, as before a
//! kernels build, so a stale or unpatched verifier is refused by name.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result, bail};
use regress::layout::Layout;

use crate::backend::{self, DEFAULT_BACKEND};

/// Exit status when every file verified.
pub const VERIFIED: i32 = 0;
/// Exit status when some file was rejected by a rule.
pub const REJECTED: i32 = 1;
/// Exit status when some file could not be read or parsed.
pub const UNPARSABLE: i32 = 2;
/// The installed program that verifies IR files.
pub const PROBE: &str = "verifier-probe";

/// Verifies each file (relative paths from the repository root), prints the verdicts, and
/// returns the exit status: the worst of the files' (unparsable > rejected > verified).
pub fn verify_ir(layout: &Layout, files: &[PathBuf]) -> Result<i32> {
    let installed = backend::check_backend(layout, DEFAULT_BACKEND)?;
    let probe = installed.product(PROBE);
    // From the root, so that relative paths are taken from there and shown as given.
    let status = Command::new(&probe)
        .arg("verify-ir")
        .args(files)
        .current_dir(layout.root())
        .status()
        .with_context(|| format!("running {}", probe.display()))?;
    match status.code() {
        Some(code @ (VERIFIED | REJECTED | UNPARSABLE)) => Ok(code),
        _ => bail!("{} verify-ir ended with {status}", probe.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(path: &str) -> PathBuf {
        PathBuf::from("plugin/tests/fixtures").join(path)
    }

    #[test]
    fn exit_status_says_verified_rejected_or_unparsable() {
        let layout = Layout::from_build();
        assert_eq!(verify_ir(&layout, &[fixture("good/producer_loop.pir")]).unwrap(), VERIFIED);
        let bad = [fixture("good/producer_loop.pir"), fixture("bad/tail_missing.pir")];
        assert_eq!(verify_ir(&layout, &bad).unwrap(), REJECTED);
        let scratch = tempfile::NamedTempFile::new().expect("a temporary file");
        std::fs::write(scratch.path(), "builtin.module @m {\n  ^top():\n").expect("written");
        let files = [fixture("bad/tail_missing.pir"), scratch.path().to_path_buf()];
        assert_eq!(verify_ir(&layout, &files).unwrap(), UNPARSABLE);
    }
}
