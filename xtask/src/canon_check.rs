//! `just canon-check OLD NEW [--json]`: compare the PTX of two builds, each a `.ptx` file or a
//! folder of them, with `regress::canon`, print the per-class table (or JSON), and keep the
//! result in `target/canon-check/last.json` for `just report`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use regress::canon::{self, CanonReport};
use regress::layout::Layout;

use crate::atomic::write_file;

/// Where the last result is kept, for the report.
pub fn last_result_path(layout: &Layout) -> PathBuf {
    layout.root().join("target").join("canon-check").join("last.json")
}

/// The `.ptx` files of `path`: the file itself, or every `.ptx` below a folder, sorted.
pub fn ptx_files(path: &Path) -> Result<Vec<PathBuf>> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    if !path.is_dir() {
        bail!(
            "{} is neither a PTX file nor a folder: give a `.ptx` file or a folder holding some",
            path.display()
        );
    }
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(path)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "ptx"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("{} holds no `.ptx` file", path.display());
    }
    Ok(files)
}

fn read_side(path: &Path) -> Result<Vec<(String, String)>> {
    ptx_files(path)?
        .into_iter()
        .map(|file| {
            let text =
                std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
            Ok((file.display().to_string(), text))
        })
        .collect()
}

/// Compares `old` with `new` (resolved against the repository root).
pub fn compare(layout: &Layout, old: &Path, new: &Path) -> Result<CanonReport> {
    let (old, new) = (layout.resolve(old), layout.resolve(new));
    canon::compare(
        &old.display().to_string(),
        &read_side(&old)?,
        &new.display().to_string(),
        &read_side(&new)?,
    )
    .context("canon-check could not read its input")
}

/// Writes `report` as JSON to `path`, atomically.
pub fn save(report: &CanonReport, path: &Path) -> Result<()> {
    let json = serde_json::to_string_pretty(report).context("rendering the result as JSON")?;
    write_file(path, &(json + "\n"))
}

/// Reads a result saved by [`save`].
pub fn load(path: &Path) -> Result<CanonReport> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a canon-check result", path.display()))
}

/// `cargo xtask canon-check OLD NEW [--json]`: prints the result and keeps it for the report.
pub fn canon_check(layout: &Layout, old: &Path, new: &Path, json: bool) -> Result<()> {
    let report = compare(layout, old, new)?;
    save(&report, &last_result_path(layout))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.render_text());
    }
    Ok(())
}
