//! The GPU truth run: every corpus kernel in a process of its own under a watchdog, several side
//! by side, then compute-sanitizer racecheck and synccheck on those that finished, and the
//! tables: verdict × outcome, and expected hazard × outcome.
//!
//! The watchdog is sized from the correct kernels: they run first, under a generous limit, and
//! the broken ones then get [`WATCHDOG_FACTOR`] times the slowest correct run (at least
//! [`WATCHDOG_FLOOR`]), so a hang costs seconds, not a long timeout each.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::expected::{Corpus, Expect, Expectation, Outcome};
use crate::judge::Verdict;
use crate::outcome::{
    EXIT_RIGHT, EXIT_SANITIZER_ERRORS, ProcessRecord, SanitizerRecord, classify, sanitize_after,
};
use crate::watchdog::{in_parallel, run_with_watchdog};

/// The watchdog is this many times the slowest correct kernel's run (process start included).
pub const WATCHDOG_FACTOR: u32 = 5;
/// The watchdog is never shorter than this.
pub const WATCHDOG_FLOOR: Duration = Duration::from_secs(3);
/// A sanitizer run may take this many times the watchdog (it serialises and instruments).
pub const SANITIZER_FACTOR: u32 = 10;
/// The compute-sanitizer tools run on every kernel that finished.
pub const SANITIZER_TOOLS: [&str; 2] = ["racecheck", "synccheck"];

/// Where everything is.
#[derive(Debug, Clone)]
pub struct TruthRun {
    /// This program (it runs `one KERNEL` as the child).
    pub program: PathBuf,
    pub ptx: PathBuf,
    pub expected: PathBuf,
    /// compute-sanitizer, where it is installed.
    pub sanitizer: Option<PathBuf>,
    pub jobs: usize,
    /// The limit of the calibration runs of the correct kernels.
    pub calibration_limit: Duration,
    /// Where the plain runs' table is written before compute-sanitizer starts, so that a run
    /// cut short there (a device session's time running out) still leaves every kernel's hang,
    /// fault, wrong result or clean run; the full table replaces it at the end.
    pub provisional: Option<PathBuf>,
}

/// One kernel's results.
#[derive(Debug, Clone)]
pub struct KernelTruth {
    pub expectation: Expectation,
    pub verdict: Option<Verdict>,
    pub run: ProcessRecord,
    pub seconds: f64,
    pub sanitizers: Vec<SanitizerRecord>,
    pub outcome: Outcome,
}

/// The whole run.
#[derive(Debug, Clone)]
pub struct Truth {
    pub kernels: Vec<KernelTruth>,
    pub watchdog: Duration,
    pub slowest_correct: Duration,
    pub seconds: f64,
}

impl TruthRun {
    fn one(&self, kernel: &str) -> Command {
        let mut command = Command::new(&self.program);
        command.arg("one").arg("--ptx").arg(&self.ptx).arg("--expected").arg(&self.expected).arg(kernel);
        command
    }

    fn sanitized(&self, sanitizer: &PathBuf, tool: &str, kernel: &str) -> Command {
        let mut command = Command::new(sanitizer);
        command
            .args([
                "--tool",
                tool,
                "--error-exitcode",
                &EXIT_SANITIZER_ERRORS.to_string(),
                "--print-limit",
                "5",
            ])
            .arg(&self.program)
            .arg("one")
            .arg("--ptx")
            .arg(&self.ptx)
            .arg("--expected")
            .arg(&self.expected)
            .arg(kernel);
        command
    }

    fn plain_runs(
        &self,
        kernels: &[&Expectation],
        limit: Duration,
    ) -> Result<Vec<(ProcessRecord, Duration)>> {
        in_parallel(kernels, self.jobs, |kernel| {
            run_with_watchdog(&mut self.one(&kernel.name), limit)
                .with_context(|| format!("running {}", kernel.name))
        })
        .into_iter()
        .collect()
    }

    /// Runs the corpus; `verdicts` are the verifier's (from a report-mode build).
    pub fn run(&self, corpus: &Corpus, verdicts: &BTreeMap<String, Verdict>) -> Result<Truth> {
        let started = Instant::now();
        let (correct, broken): (Vec<&Expectation>, Vec<&Expectation>) =
            corpus.kernels.iter().partition(|kernel| kernel.expect == Expect::Accept);
        eprintln!(
            "calibrating the watchdog on {} correct kernels ({} side by side)",
            correct.len(),
            self.jobs
        );
        let correct_runs = self.plain_runs(&correct, self.calibration_limit)?;
        let slowest_correct = correct_runs
            .iter()
            .filter(|(record, _)| record.exit_code == Some(EXIT_RIGHT))
            .map(|(_, elapsed)| *elapsed)
            .max()
            .unwrap_or(self.calibration_limit);
        let watchdog = (slowest_correct * WATCHDOG_FACTOR).max(WATCHDOG_FLOOR);
        eprintln!(
            "slowest correct run {:.2} s: watchdog {:.1} s for {} broken kernels",
            slowest_correct.as_secs_f64(),
            watchdog.as_secs_f64(),
            broken.len()
        );
        let broken_runs = self.plain_runs(&broken, watchdog)?;
        let all: Vec<(&Expectation, (ProcessRecord, Duration))> =
            correct.into_iter().zip(correct_runs).chain(broken.into_iter().zip(broken_runs)).collect();

        if self.sanitizer.is_some()
            && let Some(path) = &self.provisional
        {
            let plain = truth_of(&all, BTreeMap::new(), verdicts, watchdog, slowest_correct, started);
            let text = format!(
                "provisional: the plain runs only; compute-sanitizer has not run yet, so races are not looked \
                 for\n{}",
                plain.render()
            );
            write_whole(path, &text)?;
        }
        let finished: Vec<(&str, &str)> = all
            .iter()
            .filter(|(_, (record, _))| sanitize_after(record))
            .flat_map(|(kernel, _)| SANITIZER_TOOLS.iter().map(move |tool| (kernel.name.as_str(), *tool)))
            .collect();
        let mut sanitized: BTreeMap<&str, Vec<SanitizerRecord>> = BTreeMap::new();
        if let Some(sanitizer) = &self.sanitizer {
            eprintln!("compute-sanitizer: {} runs", finished.len());
            let records = in_parallel(&finished, self.jobs, |(kernel, tool)| {
                run_with_watchdog(&mut self.sanitized(sanitizer, tool, kernel), watchdog * SANITIZER_FACTOR)
                    .map(|(process, _)| SanitizerRecord { tool: tool.to_string(), process })
                    .with_context(|| format!("running compute-sanitizer {tool} on {kernel}"))
            });
            for ((kernel, _), record) in finished.iter().zip(records) {
                sanitized.entry(*kernel).or_default().push(record?);
            }
        } else {
            eprintln!("no compute-sanitizer: races are not looked for");
        }

        Ok(truth_of(&all, sanitized, verdicts, watchdog, slowest_correct, started))
    }
}

/// The table of `all` plain runs with the sanitizer records in `sanitized` (by kernel).
fn truth_of(
    all: &[(&Expectation, (ProcessRecord, Duration))],
    mut sanitized: BTreeMap<&str, Vec<SanitizerRecord>>,
    verdicts: &BTreeMap<String, Verdict>,
    watchdog: Duration,
    slowest_correct: Duration,
    started: Instant,
) -> Truth {
    let mut kernels: Vec<KernelTruth> = all
        .iter()
        .map(|(expectation, (run, elapsed))| {
            let sanitizers = sanitized.remove(expectation.name.as_str()).unwrap_or_default();
            KernelTruth {
                expectation: (*expectation).clone(),
                verdict: verdicts.get(&expectation.name).cloned(),
                outcome: classify(run, &sanitizers),
                run: run.clone(),
                seconds: elapsed.as_secs_f64(),
                sanitizers,
            }
        })
        .collect();
    kernels.sort_by(|a, b| a.expectation.name.cmp(&b.expectation.name));
    Truth { kernels, watchdog, slowest_correct, seconds: started.elapsed().as_secs_f64() }
}

/// Writes `text` to `path` whole ([`plugin::build_report::write_atomically`]), so that a reader
/// (or a run killed mid-write) never sees half a table; an error names the file.
pub fn write_whole(path: &Path, text: &str) -> Result<()> {
    plugin::build_report::write_atomically(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// A table of counts: rows × the five outcomes.
fn outcome_table(title: &str, rows: &[(&str, Vec<Outcome>)]) -> String {
    let mut text = format!("{title:<26}");
    for outcome in Outcome::ALL {
        let _ = write!(text, " {:>12}", outcome.name());
    }
    text.push('\n');
    for (name, outcomes) in rows {
        let _ = write!(text, "{name:<26}");
        for outcome in Outcome::ALL {
            let _ = write!(text, " {:>12}", outcomes.iter().filter(|o| **o == outcome).count());
        }
        text.push('\n');
    }
    text
}

impl Truth {
    /// The verifier's verdict × the GPU outcome.
    pub fn verdict_table(&self) -> String {
        let pick = |which: fn(Option<&Verdict>) -> bool| -> Vec<Outcome> {
            self.kernels
                .iter()
                .filter(|kernel| which(kernel.verdict.as_ref()))
                .map(|kernel| kernel.outcome)
                .collect()
        };
        let mut rows = vec![
            ("verifier accepted", pick(|verdict| matches!(verdict, Some(Verdict::Accepted)))),
            ("verifier rejected", pick(|verdict| matches!(verdict, Some(Verdict::Rejected(_))))),
        ];
        let unverified = pick(|verdict| matches!(verdict, Some(Verdict::Unverified(_))));
        if !unverified.is_empty() {
            rows.push(("verifier: unverified", unverified));
        }
        let missing = pick(|verdict| verdict.is_none());
        if !missing.is_empty() {
            rows.push(("no verdict", missing));
        }
        outcome_table("verdict \\ GPU outcome", &rows)
    }

    /// What the corpus expects × the GPU outcome.
    pub fn expectation_table(&self) -> String {
        let pick = |expect: Expect| -> Vec<Outcome> {
            self.kernels
                .iter()
                .filter(|kernel| kernel.expectation.expect == expect)
                .map(|kernel| kernel.outcome)
                .collect()
        };
        outcome_table(
            "expected \\ GPU outcome",
            &[("correct (accept)", pick(Expect::Accept)), ("broken (reject)", pick(Expect::Reject))],
        )
    }

    /// Kernels whose outcome is not the hazard `expected.toml` gives them.
    pub fn contradictions(&self) -> Vec<&KernelTruth> {
        self.kernels.iter().filter(|kernel| kernel.expectation.hazard.outcome() != kernel.outcome).collect()
    }

    /// The full text: per-kernel lines, both tables, the contradictions.
    pub fn render(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(
            text,
            "{} kernels; slowest correct run {:.2} s, watchdog {:.1} s; whole run {:.1} s\n",
            self.kernels.len(),
            self.slowest_correct.as_secs_f64(),
            self.watchdog.as_secs_f64(),
            self.seconds
        );
        let _ = writeln!(
            text,
            "{:<34} {:<24} {:<7} {:<38} {:<13} {:<13} {:>7}  sanitizers",
            "kernel", "class", "expect", "verdict", "hazard", "outcome", "seconds"
        );
        for kernel in &self.kernels {
            let verdict = kernel.verdict.as_ref().map_or_else(|| "no verdict".to_string(), Verdict::name);
            let sanitizers: Vec<String> = kernel
                .sanitizers
                .iter()
                .map(|record| match record.errors() {
                    Some(count) => format!("{} {count}", record.tool),
                    None if record.process.timed_out => format!("{} timed out", record.tool),
                    None => format!("{} no summary", record.tool),
                })
                .collect();
            let expect = if kernel.expectation.expect == Expect::Accept { "accept" } else { "reject" };
            let _ = writeln!(
                text,
                "{:<34} {:<24} {:<7} {:<38} {:<13} {:<13} {:>7.2}  {}",
                kernel.expectation.name,
                kernel.expectation.class,
                expect,
                verdict,
                kernel.expectation.hazard.name(),
                kernel.outcome.name(),
                kernel.seconds,
                sanitizers.join(", ")
            );
        }
        let _ = writeln!(text, "\n{}", self.verdict_table());
        let _ = writeln!(text, "{}", self.expectation_table());
        let contradictions = self.contradictions();
        let _ = writeln!(text, "outcome differs from the expected hazard: {}", contradictions.len());
        for kernel in contradictions {
            let first_line = kernel.run.output.lines().find(|line| !line.trim().is_empty()).unwrap_or("");
            let _ = writeln!(
                text,
                "  {}: expected {}, observed {} ({first_line})",
                kernel.expectation.name,
                kernel.expectation.hazard.name(),
                kernel.outcome
            );
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expected::Hazard;

    fn kernel(
        name: &str,
        expect: Expect,
        hazard: Hazard,
        verdict: Option<Verdict>,
        outcome: Outcome,
    ) -> KernelTruth {
        KernelTruth {
            expectation: Expectation {
                name: name.into(),
                class: "c".into(),
                expect,
                rules: vec![],
                hazard,
                why: "w".into(),
                note: None,
                outside_model: None,
            },
            verdict,
            run: ProcessRecord {
                timed_out: outcome == Outcome::Hang,
                exit_code: None,
                output: String::new(),
            },
            seconds: 0.5,
            sanitizers: vec![],
            outcome,
        }
    }

    #[test]
    fn the_tables_count_verdicts_and_expectations_against_outcomes() {
        let truth = Truth {
            kernels: vec![
                kernel("a", Expect::Accept, Hazard::None, Some(Verdict::Accepted), Outcome::Clean),
                kernel("b", Expect::Reject, Hazard::Hang, Some(Verdict::Accepted), Outcome::Hang),
                kernel(
                    "c",
                    Expect::Reject,
                    Hazard::Hang,
                    Some(Verdict::Rejected(vec!["consumer-order".into()])),
                    Outcome::WrongResult,
                ),
            ],
            watchdog: Duration::from_secs(3),
            slowest_correct: Duration::from_millis(400),
            seconds: 9.0,
        };
        let rows = |table: String| -> Vec<Vec<String>> {
            table
                .lines()
                .skip(1)
                .map(|line| line.split_whitespace().rev().take(5).map(String::from).collect())
                .collect()
        };
        // Columns (reversed): clean, race, wrong-result, fault, hang.
        assert_eq!(rows(truth.verdict_table()), [["1", "0", "0", "0", "1"], ["0", "0", "1", "0", "0"]]);
        assert_eq!(rows(truth.expectation_table()), [["1", "0", "0", "0", "0"], ["0", "0", "1", "0", "1"]]);
        let contradictions: Vec<&str> =
            truth.contradictions().iter().map(|k| k.expectation.name.as_str()).collect();
        assert_eq!(contradictions, ["c"]);
        assert!(truth.render().contains("c: expected hang, observed wrong-result"));
    }
    #[test]
    fn a_table_is_written_whole_and_replaces_the_provisional_one() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("h200.txt");
        write_whole(&out, "provisional: the plain runs only\n").unwrap();
        write_whole(&out, "48 kernels\n").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "48 kernels\n");
        let left: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().map(|entry| entry.unwrap().file_name()).collect();
        assert_eq!(left, [std::ffi::OsString::from("h200.txt")], "no temporary file is left behind");
    }

    #[test]
    fn a_table_that_cannot_be_written_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("missing-folder").join("h200.txt");
        let error = format!("{:#}", write_whole(&out, "x").unwrap_err());
        assert!(error.contains("missing-folder"), "{error}");
    }
}
