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
