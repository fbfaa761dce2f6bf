//! `just verify-ir FILE…`: verifies textual kernel IR with the plugin's verifier. A thin
//! front: parsing, verifying and rendering live in `plugin::report`.

use std::path::PathBuf;

use regress::layout::Layout;

/// Exit status when every file verified.
pub const VERIFIED: i32 = 0;
/// Exit status when some file was rejected by a rule.
pub const REJECTED: i32 = 1;
/// Exit status when some file could not be read or parsed.
pub const UNPARSABLE: i32 = 2;

/// Verifies each file (relative paths from the repository root), prints the verdicts, and
/// returns the exit status: the worst of the files' (unparsable > rejected > verified).
pub fn verify_ir(layout: &Layout, files: &[PathBuf]) -> i32 {
    let mut status = VERIFIED;
    for file in files {
        let path = layout.resolve(file);
        let verdict = plugin::report::verify_file(&path, file);
        print!("{}", plugin::report::render(file, &verdict));
        let file_status = match verdict {
            plugin::report::FileVerdict::Verified(_) => VERIFIED,
            plugin::report::FileVerdict::Rejected(_) => REJECTED,
            plugin::report::FileVerdict::Unparsable(_) => UNPARSABLE,
        };
        status = status.max(file_status);
    }
    status
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
        assert_eq!(verify_ir(&layout, &[fixture("good/producer_loop.pir")]), VERIFIED);
        let bad = [fixture("good/producer_loop.pir"), fixture("bad/tail_missing.pir")];
        assert_eq!(verify_ir(&layout, &bad), REJECTED);
        let scratch = tempfile::NamedTempFile::new().expect("a temporary file");
        std::fs::write(scratch.path(), "builtin.module @m {\n  ^top():\n").expect("written");
        let files = [fixture("bad/tail_missing.pir"), scratch.path().to_path_buf()];
        assert_eq!(verify_ir(&layout, &files), UNPARSABLE);
    }
}
