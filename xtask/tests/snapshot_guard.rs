//! The snapshot suite's guard fires, and fires only where it should: a scratch copy of the
//! kernels workspace gets one edit to one kernel's arithmetic, is built for real, and the
//! suite's own cases, run against that PTX, must fail for exactly the entries the edit
//! touches. A kernel that does not compile must fail the build with rustc's error naming the
//! file.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use regress::layout::Layout;
use regress::snapshots::SnapshotSuite;
use tempfile::TempDir;
use xtask::kernels::KernelBuild;

use common::{copy_tree, replace_once};

/// One edit of one kernel source, and the entries whose snapshots it must break.
struct Edit {
    file: &'static str,
    from: &'static str,
    to: &'static str,
    changed_entries: &'static [&'static str],
}

const EDITS: &[Edit] = &[
    // SAXPY's addend negated: only `saxpy` changes.
    Edit {
        file: "src/elementwise.rs",
        from: "fma(alpha, x, y_i)",
        to: "fma(alpha, x, -y_i)",
        changed_entries: &["saxpy"],
    },
    // The helper in the second crate: only the kernel that calls it changes, through the
    // `.func` its snapshot includes.
    Edit {
        file: "helpers/src/lib.rs",
        from: "(l + c + r) * (1.0 / 3.0) * scale",
        to: "(l + c + r) * (1.0 / 3.0) * scale + 1.0",
        changed_entries: &["shared_memory_helper_cross_crate"],
    },
];

/// A copy of the kernels workspace (without its build output) and of the snapshots, inside
/// the repository's `target/` so that the pinned toolchain and the cargo configuration of the
/// repository apply to it.
struct Scratch {
    dir: TempDir,
}

impl Scratch {
    fn new(layout: &Layout) -> Scratch {
        let parent = layout.root().join("target").join("xtask-scratch");
        fs::create_dir_all(&parent).unwrap();
        let dir = tempfile::Builder::new().prefix("kernels-").tempdir_in(&parent).unwrap();
        copy_tree(&layout.kernels_workspace(), &dir.path().join("kernels"), true);
        copy_tree(&layout.snapshot_dir(), &dir.path().join("ptx-snapshots"), true);
        Scratch { dir }
    }

    fn kernels(&self) -> PathBuf {
        self.dir.path().join("kernels")
    }

    fn snapshots(&self) -> PathBuf {
        self.dir.path().join("ptx-snapshots")
    }

    fn apply(&self, edit: &Edit) {
        let message = format!(
            "the guard test's edit `{}` must match exactly once in kernels/{}: update the test with the kernel",
            edit.from, edit.file
        );
        replace_once(&self.kernels().join(edit.file), edit.from, edit.to, &message);
    }

    /// Builds the scratch kernels into a target folder kept between runs (so that `core` is
    /// built once) but owned by one test: cargo decides freshness by modification times, and
    /// two scratch trees building into one folder at once could each look up to date with the
    /// other's output.
    /// The build goes through the same guard as `cargo xtask kernels`.
    fn build(&self, layout: &Layout, test: &str) -> KernelBuild {
        let target_dir = layout.root().join("target").join("xtask-scratch").join(format!("{test}-target"));
        KernelBuild::guarded(layout, self.kernels(), target_dir)
            .unwrap_or_else(|error| panic!("the backend guard refused the scratch build: {error:#}"))
    }
}

/// The entries whose snapshot check fails for the PTX of `build`.
fn failing_entries(layout: &Layout, build: &KernelBuild, snapshots: &Path) -> Vec<String> {
    let ptx = build.run().expect("the edited kernels compile");
    let suite = SnapshotSuite::discover(layout, &ptx, snapshots).expect("the suite lists its cases");
    assert!(suite.orphans.is_empty(), "no kernel was removed, yet orphans: {:?}", suite.orphans);
    assert!(suite.cases.len() >= 10, "only {} kernel entries", suite.cases.len());
    suite.cases.iter().filter(|case| case.check(snapshots).is_err()).map(|case| case.entry.clone()).collect()
}

#[test]
fn editing_a_kernel_fails_exactly_its_entries() {
    let layout = Layout::from_build();
    for edit in EDITS {
        let scratch = Scratch::new(&layout);
        scratch.apply(edit);
        let build = scratch.build(&layout, "edited-kernel");
        let failing = failing_entries(&layout, &build, &scratch.snapshots());
        assert_eq!(failing, edit.changed_entries, "after editing kernels/{}", edit.file);
    }
}

#[test]
fn a_kernel_that_does_not_compile_fails_the_build_naming_the_file() {
    let layout = Layout::from_build();
    let scratch = Scratch::new(&layout);
    scratch.apply(&Edit {
        file: "src/elementwise.rs",
        from: "unsafe { *out.add(i) = a + b }",
        to: "unsafe { *out.add(i) = a + true }",
        changed_entries: &[],
    });
    let output = scratch.build(&layout, "broken-kernel").command().output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a kernel with a type error built:\n{stderr}");
    assert!(stderr.contains("error[E0277]"), "rustc's own error is shown:\n{stderr}");
    assert!(stderr.contains("src/elementwise.rs"), "the error names the file:\n{stderr}");
}
