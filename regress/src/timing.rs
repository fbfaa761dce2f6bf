//! The arithmetic of the timing regression: medians of repeated measurements, the growth of
//! time against size fitted with an intercept, an interval for the growth exponent from the
//! repeats, the gate that judges a fitted exponent against its limit, and the table and
//! machine-readable fields that report them.
//!
//! Nothing here measures or knows what is measured: `regress/tests/verifier_timing.rs` times
//! the verifier on generated scopes and `xtask timing` times kernel builds; both hand their
//! points to [`Series`], judge them with [`check`] and print with [`table`].
//!
//! # The model and why
//!
//! A timing is a fixed cost plus what the size costs: `t(N) = a + b·N^k` with `a ≥ 0`, `b ≥ 0`
//! ([`fit_growth`]). A straight line through `(ln N, ln t)` (no intercept) reads the fixed cost
//! as sub-linear growth, and subtracting a separately measured baseline first leaves the small
//! sizes as differences of two noisy numbers, which then steer the slope (an unchanged tree
//! failed as "N^1.26" that way, its 100-block point mostly baseline noise). Fitting the
//! intercept with the other two parameters, each point weighted by its relative error, lets a
//! point that is mostly fixed cost say little about `k`, and a point at size 0 (a baseline
//! measurement, where one exists) pins `a` directly. For a given `k` the model is linear in
//! `a` and `b` (weighted least squares, closed form); `k` is found by a grid search refined by
//! golden sections.
//!
//! The exponent's interval comes from the repeats: a seeded bootstrap resamples the samples of
//! every size with replacement, takes their medians and fits again; the interval is the central
//! [`CONFIDENCE`] of those exponents. The gate ([`gate`]) fails a linear limit only when the
//! whole interval lies above it, and grants teeth only when the whole interval lies above theirs.

use std::fmt::Write as _;
use std::time::Duration;

/// How many bootstrap resamples make an interval.
pub const RESAMPLES: usize = 400;
/// The share of the bootstrap exponents the interval covers (central).
pub const CONFIDENCE: f64 = 0.95;
/// The seed of the bootstrap: the same samples give the same interval.
pub const BOOTSTRAP_SEED: u64 = 0xB007_5712A9;
/// The exponents the fit searches between.
const EXPONENT_RANGE: (f64, f64) = (0.1, 4.0);
/// The grid step of the exponent search, before golden-section refinement.
const GRID_STEP: f64 = 0.05;
/// Golden-section steps after the grid: the bracket shrinks to 0.618^30 of two grid steps.
const GOLDEN_STEPS: usize = 30;

/// One size and the repeated timings taken at it. Size 0 is a baseline: the fixed cost alone.
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

/// An interval of exponents, `low ≤ high`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

impl std::fmt::Display for Interval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.2}..{:.2}", self.low, self.high)
    }
}

/// The fitted growth of a series: `t(N) = intercept + b·N^exponent`.
#[derive(Clone, Debug, PartialEq)]
pub struct Growth {
    /// The exponent fitted on the medians.
    pub exponent: f64,
    /// The central [`CONFIDENCE`] of the exponents fitted on bootstrap resamples.
    pub interval: Interval,
    /// The fixed cost `a`: what the fit says a size of 0 costs.
    pub intercept: Duration,
    /// The points fitted (sizes with at least one sample).
    pub sizes: usize,
}

/// The fit of `t = a + b·N^k` on medians, with its weighted squared residual.
#[derive(Clone, Copy, Debug)]
struct Fit {
    a: f64,
    k: f64,
    residual: f64,
}

/// Fits `t(N) = a + b·N^k` (`a, b ≥ 0`) to `points` (size, seconds > 0), each weighted by
/// `1/t²` so that every point counts by its relative error. `None` with fewer than three
/// points or two distinct positive sizes, or a non-positive time.
fn fit_medians(points: &[(f64, f64)]) -> Option<Fit> {
    let positive_sizes = {
        let mut sizes: Vec<f64> = points.iter().map(|(n, _)| *n).filter(|n| *n > 0.0).collect();
        sizes.sort_by(f64::total_cmp);
        sizes.dedup();
        sizes.len()
    };
    if points.len() < 3 || positive_sizes < 2 || points.iter().any(|(n, t)| *n < 0.0 || *t <= 0.0) {
        return None;
    }
    // Sizes relative to the largest keep N^k within f64's comfortable range at any k.
    let largest = points.iter().map(|(n, _)| *n).fold(0.0, f64::max);
    let scaled: Vec<(f64, f64)> = points.iter().map(|(n, t)| (n / largest, *t)).collect();
    let at = |k: f64| fit_linear(&scaled, k);
    let steps = ((EXPONENT_RANGE.1 - EXPONENT_RANGE.0) / GRID_STEP).round() as usize;
    let mut best = at(EXPONENT_RANGE.0);
    for step in 1..=steps {
        let candidate = at(EXPONENT_RANGE.0 + step as f64 * GRID_STEP);
        if candidate.residual < best.residual {
            best = candidate;
        }
    }
    // Golden sections around the best grid point.
    let (mut lo, mut hi) =
        ((best.k - GRID_STEP).max(EXPONENT_RANGE.0), (best.k + GRID_STEP).min(EXPONENT_RANGE.1));
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..GOLDEN_STEPS {
        let (left, right) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
        if at(left).residual <= at(right).residual { hi = right } else { lo = left }
    }
    let refined = at((lo + hi) / 2.0);
    Some(if refined.residual <= best.residual { refined } else { best })
}

/// For a fixed `k`, the weighted least-squares `a` and `b` of `t = a + b·x^k` (both kept
/// non-negative) and the residual.
fn fit_linear(points: &[(f64, f64)], k: f64) -> Fit {
    let (mut s, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, t) in points {
        let (w, x) = (1.0 / (t * t), x.powf(k));
        (s, sx, sy, sxx, sxy) = (s + w, sx + w * x, sy + w * t, sxx + w * x * x, sxy + w * x * t);
    }
    let det = s * sxx - sx * sx;
    let (mut a, mut b) = if det > 0.0 {
        let b = (s * sxy - sx * sy) / det;
        ((sy - b * sx) / s, b)
    } else {
        (sy / s, 0.0)
    };
    if a < 0.0 {
        (a, b) = (0.0, if sxx > 0.0 { sxy / sxx } else { 0.0 });
    }
    if b < 0.0 {
        (a, b) = (sy / s, 0.0);
    }
    let residual = points.iter().map(|&(x, t)| (t - a - b * x.powf(k)).powi(2) / (t * t)).sum();
    Fit { a, k, residual }
}

/// Fits the growth of `points` (medians; a point at size 0 is the baseline) and bootstraps the
/// exponent's interval from their samples: [`RESAMPLES`] resamples, seeded with
/// [`BOOTSTRAP_SEED`]. `None` when the medians cannot be fitted (see [`Growth`]: at least
/// three points, two distinct positive sizes, positive times).
pub fn fit_growth(points: &[Point]) -> Option<Growth> {
    fit_growth_seeded(points, RESAMPLES, BOOTSTRAP_SEED)
}

/// [`fit_growth`] with its bootstrap's size and seed given.
pub fn fit_growth_seeded(points: &[Point], resamples: usize, seed: u64) -> Option<Growth> {
    let measured: Vec<&Point> = points.iter().filter(|p| !p.samples.is_empty()).collect();
    let medians: Vec<(f64, f64)> =
        measured.iter().map(|p| (p.size as f64, p.median().as_secs_f64())).collect();
    let fit = fit_medians(&medians)?;
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut exponents: Vec<f64> = (0..resamples)
        .filter_map(|_| {
            let resampled: Vec<(f64, f64)> = measured
                .iter()
                .map(|p| {
                    let drawn: Vec<Duration> =
                        (0..p.samples.len()).map(|_| p.samples[rng.usize(..p.samples.len())]).collect();
                    (p.size as f64, median(&drawn).as_secs_f64())
                })
                .collect();
            fit_medians(&resampled).map(|f| f.k)
        })
        .collect();
    exponents.sort_by(f64::total_cmp);
    let interval = if exponents.is_empty() {
        Interval { low: fit.k, high: fit.k }
    } else {
        let tail = (1.0 - CONFIDENCE) / 2.0;
        let quantile = |q: f64| exponents[((exponents.len() - 1) as f64 * q).round() as usize];
        // The fit on the medians lies inside its own interval, however skewed the resamples.
        Interval { low: quantile(tail).min(fit.k), high: quantile(1.0 - tail).max(fit.k) }
    };
    Some(Growth {
        exponent: fit.k,
        interval,
        intercept: Duration::from_secs_f64(fit.a),
        sizes: measured.len(),
    })
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

    /// The growth of time against size, with the exponent's interval ([`fit_growth`]).
    pub fn growth(&self) -> Option<Growth> {
        fit_growth(&self.points)
    }

    /// The growth exponent fitted on the medians.
    pub fn exponent(&self) -> Option<f64> {
        self.growth().map(|g| g.exponent)
    }

    /// The median at `size`, if measured.
    pub fn median_at(&self, size: usize) -> Option<Duration> {
        self.points.iter().find(|p| p.size == size).map(Point::median)
    }

    /// The median at `size` per unit of size (a block), in microseconds, if measured: the
    /// per-block cost the exponent alone does not show.
    pub fn micros_per_unit_at(&self, size: usize) -> Option<f64> {
        self.median_at(size).map(|median| median.as_secs_f64() * 1e6 / size.max(1) as f64)
    }
}

/// What a fitted exponent must be, and why.
#[derive(Clone, Debug, PartialEq)]
pub enum Limit {
    /// At most this: the measured thing scales (near) linearly. Breached only when the whole
    /// interval lies above it.
    AtMost(f64),
    /// Above this: the measurement can see super-linear growth (the oracle's teeth). Kept only
    /// when the whole interval lies above it.
    Above(f64),
}

/// A series whose growth breaks its limit (or could not be fitted).
#[derive(Clone, Debug, PartialEq)]
pub struct Breach {
    pub series: String,
    pub growth: Option<Growth>,
    pub limit: Limit,
}

impl std::fmt::Display for Breach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let grows = match &self.growth {
            Some(g) => format!("N^{:.2} ({:.0}% interval {})", g.exponent, CONFIDENCE * 100.0, g.interval),
            None => "an exponent that cannot be fitted (too few sizes or a zero time)".to_string(),
        };
        match self.limit {
            Limit::AtMost(limit) => write!(
                f,
                "{}: time grows as {grows}, wholly above the limit N^{limit}: something in it became \
                 super-linear in the block count",
                self.series
            ),
            Limit::Above(limit) => write!(
                f,
                "{}: time grows as {grows}, not wholly above N^{limit}: the measurement has lost its \
                 teeth (the scan-everything oracle no longer looks super-linear to it)",
                self.series
            ),
        }
    }
}

/// The gate's decision rule on a fitted growth: `true` when it respects `limit`. An
/// [`Limit::AtMost`] is broken only when the interval's low end is above it (the repeats leave
/// no doubt the growth is steeper); an [`Limit::Above`] holds only when the interval's low end
/// is above it. Growth that cannot be fitted respects no limit.
pub fn gate(growth: Option<&Growth>, limit: &Limit) -> bool {
    match (growth, limit) {
        (Some(g), Limit::AtMost(max)) => g.interval.low <= *max,
        (Some(g), Limit::Above(min)) => g.interval.low > *min,
        (None, _) => false,
    }
}

/// Checks a series against its limit: its [`Breach`], if [`gate`] refuses it.
pub fn check(series: &Series, limit: Limit) -> Option<Breach> {
    let growth = series.growth();
    (!gate(growth.as_ref(), &limit)).then(|| Breach { series: series.name.clone(), growth, limit })
}

/// Formats a duration in milliseconds with three significant-ish decimals.
pub fn millis(duration: Duration) -> String {
    format!("{:.3}", duration.as_secs_f64() * 1e3)
}

/// A table: one row per size, one column (median ms) per series, and closing rows with each
/// series' fitted exponent and its interval. Sizes a series did not measure show `-`.
pub fn table(size_label: &str, series: &[Series]) -> String {
    let mut sizes: Vec<usize> = series.iter().flat_map(|s| s.points.iter().map(|p| p.size)).collect();
    sizes.sort();
    sizes.dedup();
    let width = series.iter().map(|s| s.name.len() + 3).max().unwrap_or(0).max(12);
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
    let growths: Vec<Option<Growth>> = series.iter().map(Series::growth).collect();
    let _ = write!(out, "{:>10}", "exponent");
    for growth in &growths {
        let cell = growth.as_ref().map(|g| format!("{:.2}", g.exponent)).unwrap_or_else(|| "-".to_string());
        let _ = write!(out, "  {cell:>width$}");
    }
    out.push('\n');
    let _ = write!(out, "{:>10}", format!("{:.0}% ci", CONFIDENCE * 100.0));
    for growth in &growths {
        let cell = growth.as_ref().map(|g| g.interval.to_string()).unwrap_or_else(|| "-".to_string());
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

/// An exponent's interval for the machine-readable line: `low..high`, or `nan..nan`.
pub fn interval_field(growth: Option<&Growth>) -> String {
    growth
        .map(|g| format!("{:.3}..{:.3}", g.interval.low, g.interval.high))
        .unwrap_or_else(|| "nan..nan".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZES: [usize; 7] = [200, 400, 800, 1600, 3200, 6400, 12_800];

    /// A series of `t(N) = constant + per·N^exponent` seconds, `runs` samples per size, each
    /// multiplied by a seeded noise factor within `1 ± noise`.
    fn synthetic(
        name: &str,
        sizes: &[usize],
        constant: f64,
        per: f64,
        exponent: f64,
        noise: f64,
        seed: u64,
    ) -> Series {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut series = Series::new(name);
        for &size in sizes {
            let exact = constant + per * (size as f64).powf(exponent);
            let samples = (0..7)
                .map(|_| Duration::from_secs_f64(exact * (1.0 + noise * (2.0 * rng.f64() - 1.0))))
                .collect();
            series.points.push(Point { size, samples });
        }
        series
    }

    fn power_law(name: &str, exponent: f64) -> Series {
        synthetic(name, &SIZES, 0.0, 1e-6, exponent, 0.0, 1)
    }

    #[test]
    fn median_is_the_middle_sample_and_ignores_one_outlier() {
        let ms = Duration::from_millis;
        assert_eq!(median(&[ms(5), ms(1), ms(900)]), ms(5));
        assert_eq!(median(&[ms(4), ms(2), ms(6), ms(800)]), ms(5));
        assert_eq!(median(&[]), Duration::ZERO);
    }

    #[test]
    fn the_fit_recovers_exponent_and_intercept_of_exact_data() {
        for k in [1.0, 1.5, 2.0, 3.0] {
            let growth = power_law("s", k).growth().unwrap();
            assert!((growth.exponent - k).abs() < 1e-3, "{k} fitted as {growth:?}");
            assert!(growth.interval.high - growth.interval.low < 1e-3, "exact data, no spread: {growth:?}");
        }
        // A fixed cost of 50 ms under linear growth: the intercept takes it, the exponent stays 1
        // (a line through log–log would have called this N^0.6).
        let growth = synthetic("s", &SIZES, 0.05, 1e-5, 1.0, 0.0, 1).growth().unwrap();
        assert!((growth.exponent - 1.0).abs() < 1e-3, "{growth:?}");
        assert!((growth.intercept.as_secs_f64() - 0.05).abs() < 1e-4, "{growth:?}");
    }

    #[test]
    fn too_few_points_or_a_zero_time_cannot_be_fitted() {
        let point = |size, ms| Point { size, samples: vec![Duration::from_millis(ms)] };
        assert_eq!(fit_growth(&[point(100, 1), point(200, 2)]), None, "two points, three parameters");
        assert_eq!(fit_growth(&[point(0, 1), point(200, 2), point(200, 3)]), None, "one positive size");
        assert_eq!(fit_growth(&[point(100, 0), point(200, 2), point(400, 4)]), None, "a zero time");
        assert!(fit_growth(&[point(0, 1), point(200, 2), point(400, 3)]).is_some());
    }

    #[test]
    fn linear_growth_with_noise_passes_the_linear_limit() {
        let series = synthetic("linear", &SIZES, 0.0, 1e-6, 1.0, 0.15, 7);
        let growth = series.growth().unwrap();
        assert!(growth.interval.low <= 1.0 && 1.0 <= growth.interval.high + 0.05, "{growth:?}");
        assert_eq!(check(&series, Limit::AtMost(1.25)), None, "{growth:?}");
    }

    #[test]
    fn quadratic_growth_fails_the_linear_limit_by_name() {
        let series = synthetic("story", &SIZES, 0.0, 1e-9, 2.0, 0.15, 7);
        let breach = check(&series, Limit::AtMost(1.25)).expect("quadratic growth passed the gate");
        assert!(breach.growth.as_ref().unwrap().interval.low > 1.8, "{breach}");
        let text = breach.to_string();
        assert!(text.starts_with("story: time grows as N^2.0"), "{text}");
        assert!(text.contains("interval") && text.contains("super-linear"), "{text}");
    }

    /// What cried wolf on an unchanged tree: a large fixed cost measured as a baseline, small
    /// sizes whose own cost is below the noise of that fixed cost.
    #[test]
    fn linear_growth_under_a_large_noisy_constant_passes() {
        let sizes = [0, 100, 200, 400, 800, 1600];
        for seed in 0..20 {
            // 2 s of fixed cost, 0.1 ms per block, every sample within ±5% (±100 ms: more than
            // the 10 ms that 100 blocks cost).
            let series = synthetic("front end", &sizes, 2.0, 1e-4, 1.0, 0.05, seed);
            assert_eq!(check(&series, Limit::AtMost(1.25)), None, "seed {seed}: {:?}", series.growth());
        }
        // The same data with the baseline subtracted first, as the old fit did, is steered by
        // the small sizes' noise: at least one seed shows growth well above linear that way.
        let mut worst: f64 = 0.0;
        for seed in 0..20 {
            let series = synthetic("front end", &sizes, 2.0, 1e-4, 1.0, 0.05, seed);
            let base = series.points[0].median();
            let marginal: Vec<(f64, f64)> = series.points[1..]
                .iter()
                .filter(|p| p.median() > base)
                .map(|p| ((p.size as f64).ln(), (p.median() - base).as_secs_f64().ln()))
                .collect();
            worst = worst.max(log_log_slope(&marginal));
        }
        assert!(worst > 1.25, "the baseline-subtracted fit never cried wolf ({worst:.2})");
    }

    /// The old estimator, for the comparison above: least squares on (ln N, ln t).
    fn log_log_slope(points: &[(f64, f64)]) -> f64 {
        let n = points.len() as f64;
        let (mx, my) =
            (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
        let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
        let sxx: f64 = points.iter().map(|(x, _)| (x - mx).powi(2)).sum();
        sxy / sxx
    }

    #[test]
    fn the_gate_fails_only_an_interval_wholly_above_and_grants_teeth_only_wholly_above() {
        let growth = |low, high| Growth {
            exponent: (low + high) / 2.0,
            interval: Interval { low, high },
            intercept: Duration::ZERO,
            sizes: 7,
        };
        // The point estimate above the limit, the interval reaching below it: no alarm.
        assert!(gate(Some(&growth(1.2, 1.4)), &Limit::AtMost(1.25)));
        assert!(!gate(Some(&growth(1.3, 1.4)), &Limit::AtMost(1.25)));
        assert!(!gate(Some(&growth(1.7, 2.3)), &Limit::Above(1.8)), "teeth not shown beyond doubt");
        assert!(gate(Some(&growth(1.9, 2.3)), &Limit::Above(1.8)));
        assert!(!gate(None, &Limit::AtMost(1.25)) && !gate(None, &Limit::Above(1.8)));

        let oracle = synthetic("oracle", &[50, 100, 200, 400], 0.0, 1e-9, 2.5, 0.15, 3);
        assert_eq!(check(&oracle, Limit::Above(1.8)), None);
        let breach = check(&synthetic("oracle", &SIZES, 0.0, 1e-6, 1.0, 0.15, 3), Limit::Above(1.8)).unwrap();
        assert!(breach.to_string().contains("lost its teeth"), "{breach}");
        assert!(
            check(&Series::new("empty"), Limit::AtMost(1.25))
                .unwrap()
                .to_string()
                .contains("cannot be fitted")
        );
    }

    #[test]
    fn the_interval_is_seeded_and_narrows_with_less_noise() {
        let noisy = synthetic("s", &SIZES, 0.0, 1e-6, 1.0, 0.3, 5);
        assert_eq!(noisy.growth(), noisy.growth(), "the same samples give the same interval");
        let quiet = synthetic("s", &SIZES, 0.0, 1e-6, 1.0, 0.03, 5);
        let width = |s: &Series| {
            let g = s.growth().unwrap();
            g.interval.high - g.interval.low
        };
        assert!(width(&quiet) < width(&noisy), "{} vs {}", width(&quiet), width(&noisy));
    }

    #[test]
    fn the_table_has_a_row_per_size_and_the_exponents_with_intervals() {
        let text = table("blocks", &[power_law("guard", 1.0), power_law("story", 2.0)]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 7 + 2);
        assert!(lines[0].contains("guard ms") && lines[0].contains("story ms"));
        assert!(lines[1].trim_start().starts_with("200"));
        assert!(lines[8].contains("1.00") && lines[8].contains("2.00"), "{}", lines[8]);
        assert!(lines[9].contains("95% ci") && lines[9].contains("1.00..1.00"), "{}", lines[9]);
        assert_eq!(interval_field(power_law("s", 2.0).growth().as_ref()), "2.000..2.000");
        assert_eq!(interval_field(None), "nan..nan");
    }
}
