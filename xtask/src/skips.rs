//! How a test says it skipped, so that `just test` counts it as skipped rather than passed.
//!
//! A test that cannot run here (a tool it needs is missing) calls [`skip`] with its name and
//! the reason, then returns. libtest counts it as passed and captures what it prints, so the
//! skip also leaves a marker file: one `<unique>.skip` file holding `name<TAB>reason` in the
//! folder named by [`SKIPS_DIR_VAR`]. `cargo xtask test` points that variable at a fresh folder,
//! reads the markers after the run ([`collect`]) and moves each from passed to skipped in its
//! closing line. Without the variable (a plain `cargo test`), [`skip`] only prints.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The folder where skipping tests leave their markers.
pub const SKIPS_DIR_VAR: &str = "KERNELS_TEST_SKIPS";

/// A test that skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    pub test: String,
    pub reason: String,
}

/// Records that `test` skipped because of `reason` (which should say what is missing and how
/// to get it). Panics if the marker cannot be written: a skip nobody can count must not pass.
pub fn skip(test: &str, reason: &str) {
    println!("SKIPPED {test}: {reason}");
    let Some(dir) = std::env::var_os(SKIPS_DIR_VAR).map(PathBuf::from) else { return };
    write_marker(&dir, test, reason)
        .unwrap_or_else(|error| panic!("{test} skipped, but its marker could not be written: {error:#}"));
}

fn write_marker(dir: &Path, test: &str, reason: &str) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    // A unique name per marker: tests of one binary skip on several threads at once.
    let mut marker = tempfile::Builder::new()
        .suffix(".skip")
        .tempfile_in(dir)
        .with_context(|| format!("creating a marker in {}", dir.display()))?;
    let line = format!("{}\t{}\n", one_line(test), one_line(reason));
    std::io::Write::write_all(&mut marker, line.as_bytes())?;
    marker.keep().with_context(|| format!("keeping the marker in {}", dir.display()))?;
    Ok(())
}

fn one_line(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

/// The skips recorded in `dir`, sorted by test name; none if the folder does not exist.
pub fn collect(dir: &Path) -> Result<Vec<Skip>> {
    let mut skips = Vec::new();
    if !dir.exists() {
        return Ok(skips);
    }
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "skip") {
            continue;
        }
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let (test, reason) = text
            .trim_end()
            .split_once('\t')
            .with_context(|| format!("{} is not a skip marker (`test<TAB>reason`)", path.display()))?;
        skips.push(Skip { test: test.to_owned(), reason: reason.to_owned() });
    }
    skips.sort_by(|a, b| a.test.cmp(&b.test));
    Ok(skips)
}

/// `N passed, M failed, K skipped`, then each skip with its reason: the closing line of
/// `just test`. `passed` is libtest's count, in which each skipped test is included.
pub fn closing_line(passed: usize, failed: usize, skips: &[Skip]) -> String {
    let mut line =
        format!("{} passed, {failed} failed, {} skipped", passed.saturating_sub(skips.len()), skips.len());
    if !skips.is_empty() {
        let named: Vec<String> = skips.iter().map(|s| format!("{} ({})", s.test, s.reason)).collect();
        line.push_str(&format!(": {}", named.join("; ")));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_written_by_skipping_tests_are_collected_and_move_them_out_of_passed() {
        let dir = tempfile::tempdir().unwrap();
        let markers = dir.path().join("skips");
        write_marker(&markers, "report::renders", "Chromium is not\tinstalled").unwrap();
        write_marker(&markers, "a::first", "no ptxas").unwrap();
        std::fs::write(markers.join("notes.txt"), "not a marker").unwrap();
        let skips = collect(&markers).unwrap();
        assert_eq!(
            skips,
            [
                Skip { test: "a::first".into(), reason: "no ptxas".into() },
                Skip { test: "report::renders".into(), reason: "Chromium is not installed".into() },
            ]
        );
        assert_eq!(
            closing_line(10, 1, &skips),
            "8 passed, 1 failed, 2 skipped: a::first (no ptxas); report::renders (Chromium is not installed)"
        );
        assert_eq!(closing_line(3, 0, &[]), "3 passed, 0 failed, 0 skipped");
        assert!(collect(&dir.path().join("absent")).unwrap().is_empty());
    }

    #[test]
    fn a_damaged_marker_is_an_error_naming_its_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.skip"), "no tab here").unwrap();
        let error = collect(dir.path()).unwrap_err().to_string();
        assert!(error.contains("x.skip") && error.contains("not a skip marker"), "{error}");
    }
}
