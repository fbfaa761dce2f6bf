//! Timing the verifier on generated scopes ([`crate::harness::generate`]): the measurement behind the
//! timing regression (`regress/tests/verifier_timing.rs`). The regression runs it in its own
//! process for the oracle and, through the default backend's `verifier-probe` binaries, for
//! the verifier built with the patched and with the pristine pliron, so that the same code
//! times both builds.
//!
//! Measurements are interleaved (one sample of every size, then the next round), so a burst of
//! load on a shared machine spreads over all sizes instead of bending the fit. Each size
//! verifies enough scopes (different seeds) to cover the same number of blocks, so that every
//! size meets the caches alike: without that, small scopes verified over and over stay in the
//! processor's caches while large ones do not, and a fit would see the cache sizes (about
//! N^0.15) on top of the algorithm. What it cannot even out is one scope's own working set: a
//! scope small enough to fit the last-level cache is verified faster per block than one that is
//! not, so the regression times only sizes past that point (`regress/tests/verifier_timing.rs`).
//! Every verification checks its verdict: a timing of a wrong answer would mean nothing.

use std::time::{Duration, Instant};

use pliron::context::Context;

use crate::harness::generate::{Family, Generated, generate};
use crate::verify::{ScopeStatus, Structure, check_structure, verify_scope_with};

/// Seed of the generated scopes (the shape; any seed gives a valid scope).
pub const SEED: u64 = 0x7E57_5CA1E;
/// A sample repeats the verification until it has taken at least this long, so that small
/// scopes are not timed at the clock's resolution.
const MIN_SAMPLE: Duration = Duration::from_millis(4);

/// Which verifier is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verifier {
    /// [`verify_scope_with`] as the driver runs it: scope guard, indexed facts, worklist; the
    /// structure checked first only in a debug build ([`Structure::default_for_build`]).
    Indexed,
    /// pliron's structural verification alone ([`check_structure`]): where the carried pliron
    /// series shows.
    Structure,
    /// `plugin::harness::oracle::analyze_scope`: no guard, scanned facts, full rounds.
    #[cfg(feature = "oracle")]
    Oracle,
}

/// The samples taken at one size.
#[derive(Clone, Debug, PartialEq)]
pub struct Samples {
    pub blocks: usize,
    pub samples: Vec<Duration>,
}

/// The scopes timed together at one size.
struct Case {
    /// Each scope in its own pliron context; seeds differ, so shapes do.
    scopes: Vec<(Context, Generated)>,
    blocks: usize,
    /// Passes over all scopes per sample.
    repeat: u32,
}

impl Case {
    fn new(family: Family, blocks: usize, footprint: usize) -> Case {
        let count = footprint.div_ceil(blocks).max(1);
        let scopes = (0..count as u64)
            .map(|k| {
                let mut ctx = crate::new_context();
                let generated = generate(&mut ctx, family, blocks, SEED + k).unwrap_or_else(|error| {
                    panic!("generating a {} scope of {blocks} blocks: {error}", family.name())
                });
                (ctx, generated)
            })
            .collect();
        Case { scopes, blocks, repeat: 1 }
    }

    fn verify(&self, family: Family, verifier: Verifier) {
        for (ctx, generated) in &self.scopes {
            let scope = &generated.scope;
            match verifier {
                Verifier::Indexed => {
                    let report = verify_scope_with(ctx, scope, Structure::default_for_build())
                        .unwrap_or_else(|rejections| {
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
                Verifier::Structure => {
                    if let Err(rejections) = check_structure(ctx, scope) {
                        panic!("a generated {} scope is malformed: {}", family.name(), rejections[0]);
                    }
                }
                #[cfg(feature = "oracle")]
                Verifier::Oracle => {
                    let analysis = crate::harness::oracle::analyze_scope(ctx, scope);
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

/// Times `verifier` on `family` at every size (`footprint` blocks verified per pass at each),
/// interleaving the sizes run by run; `runs` samples per size.
pub fn measure(
    family: Family,
    verifier: Verifier,
    sizes: &[usize],
    footprint: usize,
    runs: usize,
) -> Vec<Samples> {
    let mut cases: Vec<Case> = sizes.iter().map(|blocks| Case::new(family, *blocks, footprint)).collect();
    for case in &mut cases {
        case.calibrate(family, verifier);
    }
    let mut measured: Vec<Samples> =
        cases.iter().map(|case| Samples { blocks: case.blocks, samples: Vec::new() }).collect();
    for _ in 0..runs {
        for (case, point) in cases.iter().zip(&mut measured) {
            point.samples.push(case.sample(family, verifier));
        }
    }
    measured
}

/// Each phase of the analysis of one generated `family` scope of `blocks` blocks, verified
/// `runs` times (see [`crate::verify::phases`]), as a table: the phase, milliseconds at its fastest run,
/// microseconds a block, its share of the whole; the whole last.
pub fn phase_table(family: Family, blocks: usize, runs: usize) -> String {
    let case = Case::new(family, blocks, blocks);
    case.verify(family, Verifier::Indexed);
    let title = format!("{} scope, {} blocks", family.name(), case.blocks);
    phase_rows(&title, case.blocks, runs, || case.verify(family, Verifier::Indexed))
}

/// Runs `verify` `runs` times with the phases timed and prints their table, each phase at its
/// fastest run (the whole is the fastest run's sum): on a shared machine, other work only ever
/// adds time, so the minimum is the steadiest figure to compare two builds by. For a real
/// scope, `verify` is one verification of it (as the release driver runs it) and `blocks` its
/// block count; the caller runs it once before, as a warm-up.
pub fn phase_rows(title: &str, blocks: usize, runs: usize, verify: impl Fn()) -> String {
    let runs = runs.max(1);
    let mut fastest: Vec<(&'static str, Duration)> = Vec::new();
    let mut whole = Duration::MAX;
    for _ in 0..runs {
        let spent = crate::verify::phases::collect(&verify);
        whole = whole.min(spent.iter().map(|(_, spent)| *spent).sum());
        for (name, time) in spent {
            match fastest.iter_mut().find(|(phase, _)| *phase == name) {
                Some((_, best)) => *best = (*best).min(time),
                None => fastest.push((name, time)),
            }
        }
    }
    let row = |name: &str, spent: Duration| {
        format!(
            "{name:<30} {:>10.3} {:>10.3} {:>6.1}%\n",
            spent.as_secs_f64() * 1e3,
            spent.as_secs_f64() * 1e6 / blocks.max(1) as f64,
            100.0 * spent.as_secs_f64() / whole.as_secs_f64().max(f64::MIN_POSITIVE)
        )
    };
    let mut table = format!(
        "{title}, fastest of {runs} runs\n{:<30} {:>10} {:>10} {:>7}\n",
        "phase", "ms", "us/block", "share"
    );
    for (name, spent) in &fastest {
        table.push_str(&row(name, *spent));
    }
    table.push_str(&row("whole", whole));
    table
}

/// One line per size: `BLOCKS NANOS NANOS …`, what `verifier-probe timing` prints.
pub fn format_samples(measured: &[Samples]) -> String {
    let line = |point: &Samples| {
        let samples: Vec<String> = point.samples.iter().map(|s| s.as_nanos().to_string()).collect();
        format!("{} {}\n", point.blocks, samples.join(" "))
    };
    measured.iter().map(line).collect()
}

/// Reads what [`format_samples`] wrote.
pub fn parse_samples(text: &str) -> Result<Vec<Samples>, String> {
    let parse_line = |line: &str| {
        let mut numbers = line.split_whitespace().map(|n| n.parse::<u64>());
        let blocks = numbers.next().ok_or("an empty line")?.map_err(|e| e.to_string())? as usize;
        let samples = numbers
            .map(|n| n.map(Duration::from_nanos).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        if samples.is_empty() {
            return Err(format!("no samples at {blocks} blocks"));
        }
        Ok(Samples { blocks, samples })
    };
    text.lines().filter(|line| !line.trim().is_empty()).map(parse_line).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_round_trip_through_their_text_and_bad_text_is_refused() {
        let measured = vec![
            Samples { blocks: 200, samples: vec![Duration::from_nanos(1500), Duration::from_nanos(1400)] },
            Samples { blocks: 400, samples: vec![Duration::from_micros(3)] },
        ];
        assert_eq!(parse_samples(&format_samples(&measured)).unwrap(), measured);
        assert!(parse_samples("200\n").unwrap_err().contains("no samples"));
        assert!(parse_samples("200 x\n").is_err());
    }

    #[test]
    fn the_phase_table_names_every_phase_of_a_verified_scope_and_only_the_guard_of_a_skipped_one() {
        let story = phase_table(Family::Story, 200, 1);
        for phase in ["scope guard", "scope index", "facts (fixpoint)", "typestate", "wgmma", "whole"] {
            assert!(story.lines().any(|line| line.starts_with(phase)), "no `{phase}` in\n{story}");
        }
        let guard = phase_table(Family::Guard, 200, 1);
        assert_eq!(guard.lines().count(), 4, "a skipped scope has the guard and the whole only:\n{guard}");
    }

    #[test]
    fn a_measurement_has_every_size_and_run() {
        let measured = measure(Family::Story, Verifier::Indexed, &[20, 40], 40, 2);
        assert_eq!(measured.iter().map(|p| p.blocks).collect::<Vec<_>>(), [20, 40]);
        assert!(measured.iter().all(|p| p.samples.len() == 2 && p.samples.iter().all(|s| !s.is_zero())));
    }
}
