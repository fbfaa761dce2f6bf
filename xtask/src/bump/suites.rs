//! The regression suite across a bump, on the new PTX: canon-check against the old PTX (one
//! summary line), the snapshot suite (each changed entry left pending for `cargo insta
//! review`) and the shapes table (the rows that moved, for `just shapes --update`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use regress::layout::Layout;
use regress::ptx::program::Program;
use regress::shapes::{Finding, Shape, ShapeTable};
use regress::snapshots::SnapshotSuite;

/// What the snapshot suite said about the new PTX.
#[derive(Debug, Clone, Default)]
pub struct SnapshotOutcome {
    pub checked: usize,
    /// Entries whose PTX differs from (or has no) snapshot, each with its pending file.
    pub pending: Vec<(String, PathBuf)>,
    /// Snapshots whose entry the new PTX no longer has.
    pub orphans: Vec<PathBuf>,
}

/// Checks every entry of `ptx` against the project's snapshots. insta records each difference
/// as `<entry>.snap.new` beside the snapshot (`INSTA_UPDATE=new`, which `cargo xtask bump-pin`
/// sets unless told otherwise), for `cargo insta review`.
pub fn snapshots(layout: &Layout, ptx: &Path) -> Result<SnapshotOutcome> {
    let dir = layout.snapshot_dir();
    let suite =
        SnapshotSuite::discover(layout, ptx, &dir).context("the snapshot suite cannot read the new PTX")?;
    let mut outcome =
        SnapshotOutcome { checked: suite.cases.len(), orphans: suite.orphans.clone(), ..Default::default() };
    // insta fails a differing snapshot by panicking; its diff is printed, the panic's own
    // message ("snapshot assertion failed") would only repeat it.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for case in &suite.cases {
        if case.check(&dir).is_err() {
            outcome.pending.push((case.entry.clone(), dir.join(format!("{}.snap.new", case.entry))));
        }
    }
    std::panic::set_hook(hook);
    Ok(outcome)
}

/// The findings of the project's shapes table against `ptx`: moved, new and gone rows.
pub fn shapes(layout: &Layout, ptx: &Path) -> Result<Vec<Finding>> {
    let text = std::fs::read_to_string(ptx).with_context(|| format!("reading {}", ptx.display()))?;
    let program = Program::read(&text).with_context(|| format!("{} is not readable PTX", ptx.display()))?;
    let shapes = Shape::all(&program);
    let table_path = layout.shapes_table();
    let table =
        if table_path.exists() { crate::shapes::read_table(&table_path)? } else { ShapeTable::empty() };
    Ok(table.check(&shapes))
}
