//! `cargo xtask bench`: the criterion benchmark of the verifier (`regress/benches/verifier.rs`)
//! against the pliron the default backend ships. A plain `cargo bench` at the project root
//! links the registry's pristine pliron (the project's own manifest never names the patched
//! copy, so that a fresh clone resolves); this runs the same benchmark in the backend's work
//! copy of the workspace (`target/backend-work/default/workspace`), whose manifest patches
//! pliron to the series-applied copy ([`crate::backend::carried::patched_workspace`]).
//!
//! Criterion's results and HTML report go to `target/criterion` of the project (not of the
//! work copy), where a later run compares itself with this one.

use anyhow::Result;
use regress::layout::Layout;

use crate::backend::{DEFAULT_BACKEND, carried};
use crate::process;

/// Runs the benchmark against the patched pliron; `criterion_args` go to criterion.
pub fn bench(layout: &Layout, criterion_args: &[String]) -> Result<()> {
    let copy = carried::patched_workspace(layout, DEFAULT_BACKEND)?;
    let results = layout.root().join("target").join("criterion");
    let mut command = process::cargo(&copy);
    // The backend's own build folder: pliron and the plugin are already built there, in release.
    command.args(["bench", "-p", "regress", "--bench", "verifier", "--target-dir"]);
    command.arg(copy.join("target").join("backend-build"));
    if !criterion_args.is_empty() {
        command.arg("--").args(criterion_args);
    }
    command.env("CRITERION_HOME", &results);
    eprintln!("benchmarking the verifier with the patched pliron, in {}", copy.display());
    process::run(&mut command, "the criterion benchmark of the verifier (patched pliron)")?;
    println!("criterion report: {}", results.join("report").join("index.html").display());
    Ok(())
}
