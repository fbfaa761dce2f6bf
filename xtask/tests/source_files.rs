//! No source file of the repository is over [`MAX_LINES`] lines: a file that long holds more
//! than one job, and a newcomer cannot hold it in mind. Build output and the vendored upstreams
//! are not the project's sources and are left out.

mod common;

use std::path::{Path, PathBuf};

use common::{project_files, repository};

const MAX_LINES: usize = 800;

/// Every Rust source below `root` with its line count, outside build output and `vendor/`.
fn sources(root: &Path) -> Vec<(PathBuf, usize)> {
    project_files(root)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap();
            (e.path().to_path_buf(), text.lines().count())
        })
        .collect()
}

#[test]
fn no_source_file_is_over_the_limit() {
    let all = sources(repository());
    assert!(all.len() > 200, "found only {} sources: is the walk broken?", all.len());
    let long: Vec<String> = all
        .iter()
        .filter(|(_, lines)| *lines > MAX_LINES)
        .map(|(path, lines)| format!("{} ({lines} lines)", path.display()))
        .collect();
    assert!(long.is_empty(), "over {MAX_LINES} lines: split each by job:\n  {}", long.join("\n  "));
}

#[test]
fn a_long_file_is_counted() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("long.rs"), "fn f() {}\n".repeat(MAX_LINES + 1)).unwrap();
    std::fs::create_dir(folder.path().join("target")).unwrap();
    std::fs::write(folder.path().join("target/built.rs"), "x\n".repeat(MAX_LINES + 1)).unwrap();
    let found = sources(folder.path());
    assert_eq!(found.len(), 1, "build output is left out: {found:?}");
    assert_eq!(found[0].1, MAX_LINES + 1);
}
