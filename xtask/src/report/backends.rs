//! The report's section "default vs cuda-oxide": canon-check's class of every kernel entry that
//! both backends' PTX hold (the cuda-oxide kernels carry the default ones' names and
//! parameters), beside each side's pinned `ptxas` registers and spills.
//!
//! The report's canon-check section shows the last `just canon-check`, which is usually two pins
//! of one backend; this one is the standing question of the second backend, how far its code is
//! from the default one's, so it is computed each time the page is written, from the two PTX
//! files the last builds left (through [`Layout`]: `kernels.ptx`, or `$KERNELS_PTX`, and
//! `kernels_oxide.ptx`), and never read from a stale saved result. Where either file is missing
//! the section names it and the command that builds it. The `ptxas` figures are the committed
//! tables (`regress/ptxas-sm90.tsv`, `regress/ptxas-sm90-cuda-oxide.tsv`), which the ptxas suite
//! holds to the same builds; an entry a table lacks shows `—`.
//!
//! This module computes data only; `report.rs` turns it into the section and the page's script
//! into the table.

use std::path::Path;

use anyhow::{Context, Result};
use regress::canon::{self, CanonReport, Class};
use regress::layout::Layout;
use regress::ptxas::{FunctionKind, FunctionReport};

/// What builds the default backend's PTX.
pub const HOW_DEFAULT_PTX: &str = "just kernels";
/// What builds the cuda-oxide kernels' PTX.
pub const HOW_OXIDE_PTX: &str = "just kernels-oxide";

/// The section's input.
#[derive(Debug, Clone)]
pub enum Backends {
    /// Both PTX files were read and compared.
    Compared(BackendComparison),
    /// The PTX files that are not there, each with the command that builds it.
    Missing(Vec<(String, &'static str)>),
}

/// The two backends' PTX compared, with their pinned ptxas figures.
#[derive(Debug, Clone)]
pub struct BackendComparison {
    /// canon-check with the default backend as `old` and cuda-oxide as `new`.
    pub canon: CanonReport,
    pub default_ptxas: Vec<FunctionReport>,
    pub oxide_ptxas: Vec<FunctionReport>,
}

/// The table's columns, as the page shows them.
pub const COLUMNS: [&str; 6] = [
    "entry",
    "class",
    "default registers",
    "default spills (st/ld bytes)",
    "cuda-oxide registers",
    "cuda-oxide spills (st/ld bytes)",
];

impl BackendComparison {
    /// Compares the default backend's PTX with cuda-oxide's, each given as (name, text).
    pub fn of(
        default: (&str, &str),
        oxide: (&str, &str),
        default_ptxas: Vec<FunctionReport>,
        oxide_ptxas: Vec<FunctionReport>,
    ) -> Result<BackendComparison> {
        let side = |(name, text): (&str, &str)| vec![(name.to_owned(), text.to_owned())];
        let canon = canon::compare(default.0, &side(default), oxide.0, &side(oxide))
            .context("canon-check could not read a backend's PTX")?;
        Ok(BackendComparison { canon, default_ptxas, oxide_ptxas })
    }

    /// One row per entry both sides hold, sorted by entry: [`COLUMNS`].
    pub fn rows(&self) -> Vec<Vec<String>> {
        self.canon
            .entries
            .iter()
            .map(|entry| {
                let mut row = vec![entry.entry.clone(), entry.class.label().to_owned()];
                row.extend(figures(&self.default_ptxas, &entry.entry));
                row.extend(figures(&self.oxide_ptxas, &entry.entry));
                row
            })
            .collect()
    }

    /// `default vs cuda-oxide: N entries in both (K other, …); M only in default, …`.
    pub fn summary(&self) -> String {
        let counts: Vec<String> = self
            .canon
            .counts()
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(class, n)| format!("{n} {}", class.label()))
            .collect();
        let mut line = format!("default vs cuda-oxide: {} entries in both", self.canon.entries.len());
        if !counts.is_empty() {
            line.push_str(&format!(" ({})", counts.join(", ")));
        }
        for (names, side) in [(&self.canon.only_old, "default"), (&self.canon.only_new, "cuda-oxide")] {
            if !names.is_empty() {
                line.push_str(&format!("; {} only in {side}", names.len()));
            }
        }
        line
    }

    /// The `other` entries' diffs (the first lines of each), in entry order.
    pub fn diffs(&self) -> Vec<(String, String)> {
        self.canon
            .entries
            .iter()
            .filter(|e| e.class == Class::Other)
            .filter_map(|e| Some((e.entry.clone(), e.diff.clone()?)))
            .collect()
    }
}

/// Registers and `stores/loads` spill bytes of `entry` in `table`; `—` where it has none.
fn figures(table: &[FunctionReport], entry: &str) -> [String; 2] {
    match table.iter().find(|f| f.kind == FunctionKind::Entry && f.name == entry) {
        Some(f) => [
            f.registers.map_or("—".to_owned(), |r| r.to_string()),
            format!("{}/{}", f.spill_store_bytes, f.spill_load_bytes),
        ],
        None => ["—".to_owned(), "—".to_owned()],
    }
}

/// The section's input from the files on disk: the two PTX files and the two ptxas tables.
pub fn read(layout: &Layout) -> Result<Backends> {
    let shown = |path: &Path| path.strip_prefix(layout.root()).unwrap_or(path).display().to_string();
    let (default_ptx, oxide_ptx) = (layout.checked_ptx(), layout.oxide_ptx());
    let missing: Vec<(String, &'static str)> = [(&default_ptx, HOW_DEFAULT_PTX), (&oxide_ptx, HOW_OXIDE_PTX)]
        .into_iter()
        .filter(|(path, _)| !path.is_file())
        .map(|(path, how)| (shown(path), how))
        .collect();
    if !missing.is_empty() {
        return Ok(Backends::Missing(missing));
    }
    let read =
        |path: &Path| std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()));
    let (default_text, oxide_text) = (read(&default_ptx)?, read(&oxide_ptx)?);
    let comparison = BackendComparison::of(
        (&shown(&default_ptx), &default_text),
        (&shown(&oxide_ptx), &oxide_text),
        ptxas_table(&layout.ptxas_table())?,
        ptxas_table(&layout.oxide_ptxas_table())?,
    )?;
    Ok(Backends::Compared(comparison))
}

/// The functions of a pinned ptxas table; none where the file does not exist.
fn ptxas_table(path: &Path) -> Result<Vec<FunctionReport>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    regress::ptxas::from_tsv(&text).with_context(|| {
        format!(
            "{} is not a ptxas table: restore it (`git checkout {0}`) or rewrite it with \
             `cargo xtask ptxas-tsv --from REPORT --into {0}`",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT: &str = ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, %r2, 1;\n\tret;\n}\n\
                           .visible .entry same()\n{\n\tret;\n}\n.visible .entry only_default()\n{\n\tret;\n}\n";

    #[test]
    fn a_missing_ptx_is_named_with_the_command_that_builds_it() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::at(dir.path());
        let oxide = layout.oxide_ptx();
        std::fs::create_dir_all(oxide.parent().unwrap()).unwrap();
        std::fs::write(&oxide, DEFAULT).unwrap();
        // With `$KERNELS_PTX` set the default side is that file, not this folder's build: nothing
        // to show here.
        if std::env::var_os(regress::layout::KERNELS_PTX_ENV).is_some() {
            return;
        }
        let Backends::Missing(missing) = read(&layout).unwrap() else { panic!("the default PTX is missing") };
        assert_eq!(
            missing,
            [("kernels/target/nvptx64-nvidia-cuda/release/kernels.ptx".to_owned(), HOW_DEFAULT_PTX)]
        );

        std::fs::create_dir_all(layout.kernels_ptx().parent().unwrap()).unwrap();
        std::fs::write(layout.kernels_ptx(), DEFAULT).unwrap();
        let Backends::Compared(both) = read(&layout).unwrap() else { panic!("both PTX files are there") };
        assert_eq!(both.canon.count(Class::Identical), 3);
        assert!(both.default_ptxas.is_empty(), "no ptxas table in the folder: no figures");

        std::fs::create_dir_all(layout.root().join("regress")).unwrap();
        std::fs::write(layout.oxide_ptxas_table(), "name\tregisters\nk\t40\n").unwrap();
        let error = format!("{:#}", read(&layout).unwrap_err());
        assert!(
            error.contains("ptxas-sm90-cuda-oxide.tsv") && error.contains("cargo xtask ptxas-tsv"),
            "{error}"
        );
    }
}
