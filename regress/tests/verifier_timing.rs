//! The verifier timing regression: the semantic verifier must stay linear in a scope's block
//! count, and this test proves it on every `just test`.
//!
//! It verifies generated scopes (`plugin::generate`) of both families at doubling block
//! counts, takes several timings per size, fits `time = a + b·blocks^k` on the medians with a
//! bootstrap interval for `k` from the repeats (`regress::timing::fit_growth`), and fails when
//! the whole interval lies above 1.25 for either family: noise widens the interval, it does not
//! fail the run. To show the measurement has teeth, it fits the scan-everything oracle
//! (`plugin::oracle`, small sizes only) the same way and fails unless its whole interval lies
//! above 1.8. No wall-clock time is ever compared with a constant: only exponents of timings
//! measured in the same run.
//!
//! Measurements are interleaved (one sample of every size, then the next round), so a burst
//! of load on a shared machine spreads over all sizes instead of bending the fit. Each size
//! verifies enough scopes (different seeds) to cover the same number of blocks, so that every
//! size meets the caches alike.
//!
//! The last line printed is machine-readable:
//! `timing: guard_exp=… guard_ci=… story_exp=… story_ci=… oracle_exp=… oracle_ci=…
//! story_ms_at_800=… story_ms_at_12800=…`, each `_ci` the exponent's 95% interval as `low..high`.
//!
//! `VERIFIER_TIMING_SWEEP=full` (what `cargo xtask timing` sets, in a release build) sweeps up
//! to 102,400 blocks.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use plugin::generate::{Family, Generated, generate};
use plugin::verify::{ScopeStatus, verify_scope};
use regress::timing::{Limit, Point, Series, check, exponent_field, interval_field, millis, table};

/// Set to `full` for the long sweep.
const SWEEP_ENV: &str = "VERIFIER_TIMING_SWEEP";
/// The exponent the verifier must not exceed.
const LINEAR_LIMIT: f64 = 1.25;
/// The exponent the oracle must exceed for the measurement to count.
const TEETH_LIMIT: f64 = 1.8;
/// Seed of the generated scopes (the shape; any seed gives a valid scope).
const SEED: u64 = 0x7E57_5CA1E;
/// Blocks verified per pass at every size (one scope of a larger size is verified alone).
const FOOTPRINT: usize = 6400;
/// A sample repeats the verification until it has taken at least this long, so that small
/// scopes are not timed at the clock's resolution.
const MIN_SAMPLE: Duration = Duration::from_millis(4);

/// Which verifier a series times.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verifier {
    /// `plugin::verify::verify_scope`: scope guard, indexed facts, worklist.
    Indexed,
    /// `plugin::oracle::analyze_scope`: no guard, scanned facts, full rounds.
    Oracle,
}

struct Plan {
    sizes: Vec<usize>,
    oracle_sizes: Vec<usize>,
    runs: usize,
}

impl Plan {
    fn from_env() -> Plan {
        let doubling = |from: usize, to: usize| {
            std::iter::successors(Some(from), |n| Some(n * 2)).take_while(|n| *n <= to).collect()
        };
        match std::env::var(SWEEP_ENV).as_deref() {
            Ok("full") => Plan { sizes: doubling(200, 102_400), oracle_sizes: doubling(50, 800), runs: 7 },
            _ => Plan { sizes: doubling(200, 12_800), oracle_sizes: doubling(50, 400), runs: 7 },
        }
    }
}

/// The scopes timed together at one size: as many as it takes to reach the footprint, so
/// that every size works on about the same amount of memory. Without that, small scopes
/// verified over and over stay in the processor's caches while large ones do not, and the fit
/// would see the cache sizes (about N^0.15 on these machines) on top of the algorithm.
struct Case {
    /// Each scope in its own pliron context; seeds differ, so shapes do.
    scopes: Vec<(pliron::context::Context, Generated)>,
    blocks: usize,
    /// Passes over all scopes per sample.
    repeat: u32,
}

impl Case {
    fn new(family: Family, blocks: usize, footprint: usize) -> Case {
        let count = footprint.div_ceil(blocks).max(1);
        let scopes = (0..count as u64)
            .map(|k| {
                let mut ctx = plugin::new_context();
                let generated = generate(&mut ctx, family, blocks, SEED + k).unwrap_or_else(|error| {
                    panic!("generating a {} scope of {blocks} blocks: {error}", family.name())
                });
                (ctx, generated)
            })
            .collect();
        Case { scopes, blocks, repeat: 1 }
    }

    /// Verifies every scope once, checking the verdicts: a timing of a wrong answer would mean
    /// nothing.
    fn verify(&self, family: Family, verifier: Verifier) {
        for (ctx, generated) in &self.scopes {
            let scope = &generated.scope;
            match verifier {
                Verifier::Indexed => {
                    let report = verify_scope(ctx, scope).unwrap_or_else(|rejections| {
                        panic!("the generated {} scope was rejected: {}", family.name(), rejections[0])
                    });
                    let expected =
                        if family == Family::Guard { ScopeStatus::Skipped } else { ScopeStatus::Verified };
                    assert_eq!(
                        report.status,
                        expected,
                        "{} scope of {} blocks",
                        family.name(),
                        report.blocks
                    );
                }
                Verifier::Oracle => {
                    let analysis = plugin::oracle::analyze_scope(ctx, scope);
                    if let Some(rejection) = analysis.rejections.first() {
                        panic!("the oracle rejected the generated {} scope: {rejection}", family.name());
                    }
                }
            }
        }
    }

    /// One sample: the time to verify one scope, averaged over `repeat` passes over all of them.
    fn sample(&self, family: Family, verifier: Verifier) -> Duration {
        let started = Instant::now();
        for _ in 0..self.repeat {
            self.verify(family, verifier);
        }
        started.elapsed() / (self.repeat * self.scopes.len() as u32)
    }

    /// Warms up and picks how many passes make one sample.
    fn calibrate(&mut self, family: Family, verifier: Verifier) {
        let pass = self.sample(family, verifier).max(Duration::from_nanos(1)) * self.scopes.len() as u32;
        self.repeat = (MIN_SAMPLE.as_secs_f64() / pass.as_secs_f64()).ceil().clamp(1.0, 10_000.0) as u32;
    }
}

/// Times `verifier` on `family` at every size, interleaving the sizes run by run.
fn measure(
    name: &str,
    family: Family,
    verifier: Verifier,
    sizes: &[usize],
    footprint: usize,
    runs: usize,
) -> Series {
    let mut cases: Vec<Case> = sizes.iter().map(|blocks| Case::new(family, *blocks, footprint)).collect();
    for case in &mut cases {
        case.calibrate(family, verifier);
    }
    let mut series = Series::new(name);
    series.points = cases.iter().map(|case| Point { size: case.blocks, samples: Vec::new() }).collect();
    for _ in 0..runs {
        for (case, point) in cases.iter().zip(&mut series.points) {
            point.samples.push(case.sample(family, verifier));
        }
    }
    series
}

fn main() -> ExitCode {
    let plan = Plan::from_env();
    println!(
        "verifier timing: generated scopes of {}..{} blocks, median of {} runs each; oracle at {}..{} blocks",
        plan.sizes[0],
        plan.sizes[plan.sizes.len() - 1],
        plan.runs,
        plan.oracle_sizes[0],
        plan.oracle_sizes[plan.oracle_sizes.len() - 1],
    );
    let started = Instant::now();
    let guard = measure("guard", Family::Guard, Verifier::Indexed, &plan.sizes, FOOTPRINT, plan.runs);
    let story = measure("story", Family::Story, Verifier::Indexed, &plan.sizes, FOOTPRINT, plan.runs);
    let oracle_footprint = plan.oracle_sizes[plan.oracle_sizes.len() - 1];
    let oracle = measure(
        "story-oracle",
        Family::Story,
        Verifier::Oracle,
        &plan.oracle_sizes,
        oracle_footprint,
        plan.runs,
    );
    println!("{}", table("blocks", &[guard.clone(), story.clone(), oracle.clone()]));

    let breaches: Vec<_> = [
        check(&guard, Limit::AtMost(LINEAR_LIMIT)),
        check(&story, Limit::AtMost(LINEAR_LIMIT)),
        check(&oracle, Limit::Above(TEETH_LIMIT)),
    ]
    .into_iter()
    .flatten()
    .collect();
    for breach in &breaches {
        println!("FAILED {breach}");
    }
    println!(
        "verifier timing: {} in {:.1} s",
        if breaches.is_empty() { "passed" } else { "FAILED" },
        started.elapsed().as_secs_f64()
    );
    let at = |size| story.median_at(size).map(millis).unwrap_or_else(|| "nan".to_string());
    let (guard, story, oracle) = (guard.growth(), story.growth(), oracle.growth());
    let exponent =
        |growth: &Option<regress::timing::Growth>| exponent_field(growth.as_ref().map(|g| g.exponent));
    println!(
        "timing: guard_exp={} guard_ci={} story_exp={} story_ci={} oracle_exp={} oracle_ci={} \
         story_ms_at_800={} story_ms_at_12800={}",
        exponent(&guard),
        interval_field(guard.as_ref()),
        exponent(&story),
        interval_field(story.as_ref()),
        exponent(&oracle),
        interval_field(oracle.as_ref()),
        at(800),
        at(12_800),
    );
    if breaches.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
