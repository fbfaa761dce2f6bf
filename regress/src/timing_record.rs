//! The verifier timing run's points and fits, kept in a file for `just report` to chart.
//!
//! `regress/tests/verifier_timing.rs` measures and judges; at its end it hands its series to
//! [`TimingRecord::of`] and [`TimingRecord::write`] writes them to [`LAST_RECORD`] (a temporary
//! file in the same folder, then a rename). The report reads it back with
//! [`TimingRecord::read`]. Nothing here measures or judges.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::layout::Layout;
use crate::timing::Series;

/// Where the last timing run's record is, from the repository root.
pub const LAST_RECORD: &str = "target/timing/last.json";

/// One size of a series: the median and the spread of its samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedPoint {
    pub blocks: usize,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
}

/// The fitted growth `t = a + b·N^k` of a series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedGrowth {
    pub exponent: f64,
    /// The exponent's 95 % bootstrap interval.
    pub low: f64,
    pub high: f64,
    pub intercept_ms: f64,
}

/// One series: a family on one build of the verifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedSeries {
    pub name: String,
    /// Which verifier: `patched` (what ships), `pristine` (pliron without the series) or
    /// `oracle` (the scan-everything reference).
    pub verifier: String,
    pub points: Vec<RecordedPoint>,
    pub growth: Option<RecordedGrowth>,
}

/// A whole timing run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimingRecord {
    pub series: Vec<RecordedSeries>,
}

impl TimingRecord {
    /// The record of `series`, each with the verifier it timed; fits each one's growth.
    pub fn of(series: &[(&Series, &str)]) -> TimingRecord {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let series = series
            .iter()
            .map(|(series, verifier)| RecordedSeries {
                name: series.name.clone(),
                verifier: (*verifier).to_owned(),
                points: series
                    .points
                    .iter()
                    .filter(|p| !p.samples.is_empty())
                    .map(|p| RecordedPoint {
                        blocks: p.size,
                        median_ms: ms(p.median()),
                        min_ms: ms(*p.samples.iter().min().expect("not empty")),
                        max_ms: ms(*p.samples.iter().max().expect("not empty")),
                    })
                    .collect(),
                growth: series.growth().map(|g| RecordedGrowth {
                    exponent: g.exponent,
                    low: g.interval.low,
                    high: g.interval.high,
                    intercept_ms: ms(g.intercept),
                }),
            })
            .collect();
        TimingRecord { series }
    }

    /// [`LAST_RECORD`] in `layout`'s repository.
    pub fn last_path(layout: &Layout) -> PathBuf {
        layout.resolve(LAST_RECORD)
    }

    /// Writes the record to `path` through a temporary file beside it and a rename.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let folder = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(folder)?;
        let temporary = folder.join(format!(".{}.{}.tmp", std::process::id(), fastrand::u64(..)));
        std::fs::write(&temporary, serde_json::to_string_pretty(self).map_err(std::io::Error::other)?)?;
        std::fs::rename(&temporary, path)
    }

    /// Reads a record [`TimingRecord::write`] wrote.
    pub fn read(path: &Path) -> Result<TimingRecord, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{} is not a timing record: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::timing::Point;

    #[test]
    fn a_record_keeps_medians_spreads_and_the_fit_and_reads_back() {
        let mut series = Series::new("story");
        series.points = [100usize, 200, 400, 800]
            .iter()
            .map(|&n| Point {
                size: n,
                samples: [1.0, 1.1, 0.9]
                    .iter()
                    .map(|f| Duration::from_secs_f64(f * n as f64 * 1e-6))
                    .collect(),
            })
            .collect();
        series.points.push(Point { size: 1600, samples: vec![] });
        let record = TimingRecord::of(&[(&series, "patched")]);
        let recorded = &record.series[0];
        assert_eq!(recorded.points.len(), 4, "sizes without samples are left out");
        assert!((recorded.points[3].median_ms - 0.8).abs() < 1e-9);
        assert!((recorded.points[3].max_ms - 0.88).abs() < 1e-9);
        let growth = recorded.growth.as_ref().unwrap();
        assert!((growth.exponent - 1.0).abs() < 0.05, "{growth:?}");

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timing").join("last.json");
        record.write(&path).unwrap();
        assert_eq!(TimingRecord::read(&path).unwrap(), record);
        assert_eq!(std::fs::read_dir(path.parent().unwrap()).unwrap().count(), 1, "no temporary left");
        let error = TimingRecord::read(&dir.path().join("absent.json")).unwrap_err();
        assert!(error.contains("absent.json"), "{error}");
    }
}
