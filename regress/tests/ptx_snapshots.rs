//! The PTX snapshot suite: one test per kernel entry found in the built `kernels.ptx`, named
//! `ptx_snapshot::<entry>`, plus one that fails on snapshots whose kernel is gone; the same for
//! the cuda-oxide kernels' `kernels_oxide.ptx` (`ptx_snapshot::cuda-oxide::<entry>`, snapshots
//! in `ptx-snapshots/cuda-oxide/`), built by `cargo xtask kernels-oxide`.
//!
//! Run after `just kernels` (`just test` does both). After an intended codegen change:
//! `cargo insta review`. `KERNELS_PTX=path` checks another PTX file against the same snapshots.

use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};
use regress::layout::Layout;
use regress::snapshots::SnapshotSuite;

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let layout = Layout::from_build();
    let mut all = suite(&layout, &layout.checked_ptx(), &layout.snapshot_dir(), "ptx_snapshot");
    all.extend(suite(&layout, &layout.oxide_ptx(), &layout.oxide_snapshot_dir(), "ptx_snapshot::cuda-oxide"));
    libtest_mimic::run(&args, all).exit_code()
}

/// The trials of one PTX file against one snapshot folder, named `<prefix>::<entry>`.
fn suite(layout: &Layout, ptx: &std::path::Path, snapshot_dir: &std::path::Path, prefix: &str) -> Vec<Trial> {
    match SnapshotSuite::discover(layout, ptx, snapshot_dir) {
        Ok(suite) => trials(suite, prefix),
        // The suite cannot list its cases: report that as one failing test, by its cause.
        Err(error) => {
            vec![Trial::test(format!("{prefix}::discover"), move || Err(Failed::from(error.to_string())))]
        }
    }
}

fn trials(suite: SnapshotSuite, prefix: &str) -> Vec<Trial> {
    let SnapshotSuite { snapshot_dir, cases, orphans, .. } = suite;
    let mut trials: Vec<Trial> = cases
        .into_iter()
        .map(|case| {
            let dir = snapshot_dir.clone();
            Trial::test(format!("{prefix}::{}", case.entry), move || case.check(&dir).map_err(Failed::from))
        })
        .collect();
    trials.push(Trial::test(format!("{prefix}::every_snapshot_has_an_entry"), move || {
        if orphans.is_empty() {
            return Ok(());
        }
        let list: Vec<String> = orphans.iter().map(|p| format!("  {}", p.display())).collect();
        Err(Failed::from(format!(
            "these snapshots belong to no kernel entry in the PTX (a kernel was removed or renamed); \
             delete them, or restore the kernel:\n{}",
            list.join("\n")
        )))
    }));
    trials
}
