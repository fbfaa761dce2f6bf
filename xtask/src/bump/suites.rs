//! The regression suite across a bump, on the new PTX: canon-check against the old PTX (one
//! summary line), the snapshot suite (each changed entry left pending for `cargo insta
//! review`) and the shapes table (the rows that moved, for `just shapes --update`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use regress::canon::{CanonReport, Class};
use regress::layout::Layout;
use regress::ptx::program::Program;
use regress::shapes::{Finding, Shape, ShapeTable};
use regress::snapshots::SnapshotSuite;

/// `canon-check: D/N entries differ (K <class>, …)`: N counts every entry of either side, D
/// those not identical (entries on one side only included).
pub fn canon_summary(report: &CanonReport) -> String {
    let total = report.entries.len() + report.only_old.len() + report.only_new.len();
    let differ = total - report.count(Class::Identical);
    let mut parts: Vec<String> = report
        .counts()
        .into_iter()
        .filter(|(class, count)| *class != Class::Identical && *count > 0)
        .map(|(class, count)| format!("{count} {}", class.label()))
        .collect();
    for (side, names) in [("old", &report.only_old), ("new", &report.only_new)] {
        if !names.is_empty() {
            parts.push(format!("{} only in {side}", names.len()));
        }
    }
    let detail = if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) };
    format!("canon-check: {differ}/{total} entries differ{detail}")
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use regress::canon::EntryComparison;

    fn entry(name: &str, class: Class) -> EntryComparison {
        EntryComparison { entry: name.into(), class, diff: None }
    }

    #[test]
    fn the_summary_counts_every_entry_and_names_each_kind_of_difference() {
        let report = CanonReport {
            old: "old".into(),
            new: "new".into(),
            entries: vec![
                entry("a", Class::Identical),
                entry("b", Class::NonCoherentLoads),
                entry("c", Class::NonCoherentLoads),
                entry("d", Class::Other),
            ],
            only_old: vec![],
            only_new: vec!["e".into()],
        };
        assert_eq!(
            canon_summary(&report),
            "canon-check: 4/5 entries differ (2 ld.global <-> ld.global.nc only, 1 other, 1 only in new)"
        );
        let same = CanonReport { entries: vec![entry("a", Class::Identical)], only_new: vec![], ..report };
        assert_eq!(canon_summary(&same), "canon-check: 0/1 entries differ");
    }
}
