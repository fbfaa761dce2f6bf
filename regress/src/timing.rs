//! The arithmetic of the timing regression: medians of repeated measurements, the growth
//! exponent of time against size fitted by least squares on log–log, the limits the fitted
//! exponents must respect, and the table and machine-readable line that report them.
//!
//! Nothing here measures or knows what is measured: `regress/tests/verifier_timing.rs` times
//! the verifier on generated scopes and `xtask timing` times kernel builds; both hand their
//! points to [`Series`] and print with [`table`].

use std::fmt::Write as _;
use std::time::Duration;

/// One size and the repeated timings taken at it.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The size (blocks of a scope, say).
    pub size: usize,
    /// Every timing taken at this size.
    pub samples: Vec<Duration>,
}

impl Point {
    /// The median sample (the mean of the two middle ones for an even count); zero when
    /// there is none.
    pub fn median(&self) -> Duration {
        median(&self.samples)
    }
}

/// The median of `samples`: robust to the odd slow run a busy machine gives.
pub fn median(samples: &[Duration]) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = samples.to_vec();
    sorted.sort();
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 { sorted[middle] } else { (sorted[middle - 1] + sorted[middle]) / 2 }
}

/// The slope of the least-squares line through `(ln x, ln y)`: for `y = c·x^k`, `k`. `None`
/// with fewer than two distinct sizes or a non-positive value (no logarithm).
pub fn fit_exponent(points: &[(f64, f64)]) -> Option<f64> {
    if points.iter().any(|(x, y)| *x <= 0.0 || *y <= 0.0) {
        return None;
    }
    let logs: Vec<(f64, f64)> = points.iter().map(|(x, y)| (x.ln(), y.ln())).collect();
    let n = logs.len() as f64;
    let mean_x = logs.iter().map(|(x, _)| x).sum::<f64>() / n;
    let mean_y = logs.iter().map(|(_, y)| y).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    (logs.len() >= 2 && sxx > 0.0).then(|| sxy / sxx)
}

/// A named series of points: one family on one verifier, or one build step.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<Point>,
}

impl Series {
    pub fn new(name: impl Into<String>) -> Series {
        Series { name: name.into(), points: Vec::new() }
    }

    /// The growth exponent of the medians against size.
    pub fn exponent(&self) -> Option<f64> {
        let points: Vec<(f64, f64)> =
            self.points.iter().map(|p| (p.size as f64, p.median().as_secs_f64())).collect();
        fit_exponent(&points)
    }

    /// The median at `size`, if measured.
    pub fn median_at(&self, size: usize) -> Option<Duration> {
        self.points.iter().find(|p| p.size == size).map(Point::median)
    }
}

/// What a fitted exponent must be, and why.
#[derive(Clone, Debug, PartialEq)]
pub enum Limit {
    /// At most this: the measured thing scales (near) linearly.
    AtMost(f64),
    /// Above this: the measurement can see super-linear growth (the oracle's teeth).
    Above(f64),
}

/// A series whose exponent breaks its limit (or could not be fitted).
#[derive(Clone, Debug, PartialEq)]
pub struct Breach {
    pub series: String,
    pub exponent: Option<f64>,
    pub limit: Limit,
}

impl std::fmt::Display for Breach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let exponent = match self.exponent {
            Some(k) => format!("{k:.2}"),
            None => "not fittable".to_string(),
        };
        match self.limit {
            Limit::AtMost(limit) => write!(
                f,
                "{}: time grows as N^{exponent}, above the limit N^{limit}: something in it became \
                 super-linear in the block count",
                self.series
            ),
            Limit::Above(limit) => write!(
                f,
                "{}: time grows as N^{exponent}, not above N^{limit}: the measurement has lost its \
                 teeth (the scan-everything oracle no longer looks super-linear to it)",
                self.series
            ),
        }
    }
}

/// Checks a series against its limit.
pub fn check(series: &Series, limit: Limit) -> Option<Breach> {
    let exponent = series.exponent();
    let ok = match (exponent, &limit) {
        (Some(k), Limit::AtMost(max)) => k <= *max,
        (Some(k), Limit::Above(min)) => k > *min,
        (None, _) => false,
    };
    (!ok).then(|| Breach { series: series.name.clone(), exponent, limit })
}

/// Formats a duration in milliseconds with three significant-ish decimals.
pub fn millis(duration: Duration) -> String {
    format!("{:.3}", duration.as_secs_f64() * 1e3)
}

/// A table: one row per size, one column (median ms) per series, and a closing row with each
/// series' fitted exponent. Sizes a series did not measure show `-`.
pub fn table(size_label: &str, series: &[Series]) -> String {
    let mut sizes: Vec<usize> = series.iter().flat_map(|s| s.points.iter().map(|p| p.size)).collect();
    sizes.sort();
    sizes.dedup();
    let width = series.iter().map(|s| s.name.len()).max().unwrap_or(0).max(12);
    let mut out = String::new();
    let _ = write!(out, "{size_label:>10}");
    for s in series {
        let _ = write!(out, "  {:>width$}", format!("{} ms", s.name));
    }
    out.push('\n');
    for size in sizes {
        let _ = write!(out, "{size:>10}");
        for s in series {
            let cell = s.median_at(size).map(millis).unwrap_or_else(|| "-".to_string());
            let _ = write!(out, "  {cell:>width$}");
        }
        out.push('\n');
    }
    let _ = write!(out, "{:>10}", "exponent");
    for s in series {
        let cell = s.exponent().map(|k| format!("{k:.2}")).unwrap_or_else(|| "-".to_string());
        let _ = write!(out, "  {cell:>width$}");
    }
    out.push('\n');
    out
}

/// An exponent for the machine-readable line (`nan` when not fittable, so the line keeps its
/// fields).
pub fn exponent_field(exponent: Option<f64>) -> String {
    exponent.map(|k| format!("{k:.3}")).unwrap_or_else(|| "nan".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(name: &str, exponent: f64) -> Series {
        let mut s = Series::new(name);
        for size in [200usize, 400, 800, 1600, 3200] {
            let secs = 1e-6 * (size as f64).powf(exponent);
            s.points.push(Point { size, samples: vec![Duration::from_secs_f64(secs)] });
        }
        s
    }

    #[test]
    fn median_is_the_middle_sample_and_ignores_one_outlier() {
        let ms = Duration::from_millis;
        assert_eq!(median(&[ms(5), ms(1), ms(900)]), ms(5));
        assert_eq!(median(&[ms(4), ms(2), ms(6), ms(800)]), ms(5));
        assert_eq!(median(&[]), Duration::ZERO);
    }

    #[test]
    fn the_fit_recovers_the_exponent_of_a_power_law() {
        for k in [1.0, 1.5, 2.0, 3.0] {
            let fitted = series("s", k).exponent().unwrap();
            // Durations hold whole nanoseconds: the fit is exact up to that rounding.
            assert!((fitted - k).abs() < 1e-6, "{k} fitted as {fitted}");
        }
        assert_eq!(fit_exponent(&[(1.0, 1.0)]), None);
        assert_eq!(fit_exponent(&[(2.0, 1.0), (2.0, 3.0)]), None);
        assert_eq!(fit_exponent(&[(2.0, 0.0), (4.0, 1.0)]), None);
    }

    #[test]
    fn the_limits_fire_on_super_linear_growth_and_on_lost_teeth() {
        assert_eq!(check(&series("linear", 1.0), Limit::AtMost(1.25)), None);
        let breach = check(&series("quadratic", 2.0), Limit::AtMost(1.25)).unwrap();
        assert!(breach.to_string().contains("super-linear"), "{breach}");
        assert_eq!(check(&series("oracle", 2.0), Limit::Above(1.8)), None);
        let breach = check(&series("oracle", 1.0), Limit::Above(1.8)).unwrap();
        assert!(breach.to_string().contains("lost its teeth"), "{breach}");
        let empty = Series::new("empty");
        assert!(check(&empty, Limit::AtMost(1.25)).is_some());
    }

    #[test]
    fn the_table_has_a_row_per_size_and_the_exponents() {
        let text = table("blocks", &[series("guard", 1.0), series("story", 2.0)]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 5 + 1);
        assert!(lines[0].contains("guard ms") && lines[0].contains("story ms"));
        assert!(lines[1].trim_start().starts_with("200"));
        assert!(lines[6].contains("1.00") && lines[6].contains("2.00"), "{}", lines[6]);
    }
}
