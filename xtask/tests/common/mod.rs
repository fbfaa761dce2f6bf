//! Helpers shared by the integration tests: scratch copies of the kernels workspace, sandboxed
//! projects for the backend commands, and the finished runs of the commands under test.

// Each test binary compiles this module whole and uses a part of it.
#![allow(dead_code)]

pub mod git;
pub mod module_graph;
pub mod registry;
pub mod run;
pub mod sandbox;

use std::fs;
use std::path::Path;

/// The repository this xtask sits in.
pub fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the repository")
}

/// Every file below `root` that is the project's own: build output (`target`), the vendored
/// upstreams (`vendor`) and git's folder are left out.
pub fn project_files(root: &Path) -> impl Iterator<Item = walkdir::DirEntry> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some("target" | "vendor" | ".git")))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
}

/// Copies the tree at `from` to `to`, without build output (`target` folders); with
/// `skip_new`, without `.new` files (pending snapshots) either.
pub fn copy_tree(from: &Path, to: &Path, skip_new: bool) {
    for entry in walkdir::WalkDir::new(from).into_iter().filter_entry(|e| e.file_name() != "target") {
        let entry = entry.unwrap();
        let destination = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            fs::create_dir_all(&destination).unwrap();
        } else if !skip_new || entry.path().extension().is_none_or(|x| x != "new") {
            fs::copy(entry.path(), &destination).unwrap();
        }
    }
}

/// Replaces `from` with `to` in `file`, asserting (with `message` when it fails) that `from`
/// occurs there exactly once.
pub fn replace_once(file: &Path, from: &str, to: &str, message: &str) {
    let text = fs::read_to_string(file).unwrap();
    assert_eq!(text.matches(from).count(), 1, "{message}");
    fs::write(file, text.replace(from, to)).unwrap();
}
