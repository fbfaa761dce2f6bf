//! The PTX snapshot suite: one test per kernel entry found in the built `kernels.ptx`, named
//! `ptx_snapshot::<entry>`, plus one that fails on snapshots whose kernel is gone.
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
    let ptx = layout.checked_ptx();
    let snapshot_dir = layout.snapshot_dir();

    let trials = match SnapshotSuite::discover(&layout, &ptx, &snapshot_dir) {
        Ok(suite) => trials(suite),
        // The suite cannot list its cases: report that as one failing test, by its cause.
        Err(error) => {
            vec![Trial::test("ptx_snapshot::discover", move || Err(Failed::from(error.to_string())))]
        }
    };
    libtest_mimic::run(&args, trials).exit_code()
}

fn trials(suite: SnapshotSuite) -> Vec<Trial> {
    let SnapshotSuite { snapshot_dir, cases, orphans, .. } = suite;
    let mut trials: Vec<Trial> = cases
        .into_iter()
        .map(|case| {
            let dir = snapshot_dir.clone();
            Trial::test(format!("ptx_snapshot::{}", case.entry), move || {
                case.check(&dir).map_err(Failed::from)
            })
        })
        .collect();
    trials.push(Trial::test("ptx_snapshot::every_snapshot_has_an_entry", move || {
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
