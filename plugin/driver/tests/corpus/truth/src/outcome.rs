//! What one kernel did on the GPU, from the records of its processes: the plain run (under a
//! watchdog) and, when that finished, the compute-sanitizer runs.
//!
//! The plain run is `corpus-truth one KERNEL` in a process of its own. Its exit status says
//! how it went ([`EXIT_RIGHT`], [`EXIT_WRONG`], [`EXIT_CUDA_ERROR`]); a run the watchdog had
//! to kill is a hang; any other ending (a signal, a panic) is a fault.

use crate::expected::Outcome;

/// The kernel finished and wrote the expected output.
pub const EXIT_RIGHT: i32 = 0;
/// The kernel finished, but the output differs from the expected one.
pub const EXIT_WRONG: i32 = 3;
/// The launch or the synchronisation after it failed (illegal address, trap, …).
pub const EXIT_CUDA_ERROR: i32 = 4;
/// compute-sanitizer's exit status when it found errors (`--error-exitcode`).
pub const EXIT_SANITIZER_ERRORS: i32 = 86;

/// How one process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessRecord {
    /// Killed by the watchdog.
    pub timed_out: bool,
    /// The exit status; `None` for a process ended by a signal (or killed).
    pub exit_code: Option<i32>,
    /// Its stdout and stderr.
    pub output: String,
}

/// One compute-sanitizer run (`racecheck` or `synccheck`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanitizerRecord {
    pub tool: String,
    pub process: ProcessRecord,
}

impl SanitizerRecord {
    /// Errors the tool reported: the count in its summary line (`ERROR SUMMARY: N errors`, or
    /// racecheck's `RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)`), else 1 for
    /// its error exit status. `None` where the tool did not finish (timed out) or printed no
    /// summary.
    pub fn errors(&self) -> Option<usize> {
        if self.process.timed_out {
            return None;
        }
        let summary = self.process.output.lines().rev().find_map(summary_errors);
        match summary {
            Some(count) => Some(count),
            None if self.process.exit_code == Some(EXIT_SANITIZER_ERRORS) => Some(1),
            None => None,
        }
    }
}

/// The error count of a compute-sanitizer summary line, if `line` is one.
fn summary_errors(line: &str) -> Option<usize> {
    let rest = line.split("SUMMARY:").nth(1)?;
    // Racecheck puts the errors in parentheses after the hazards it displayed.
    let counted = match rest.split_once('(') {
        Some((_, inside)) => inside,
        None => rest,
    };
    counted.split_whitespace().next()?.parse::<usize>().ok()
}

/// The outcome of a kernel: the plain run decides hang, fault and wrong result; a run that
/// finished with the right output is a race if a sanitizer found errors, clean otherwise.
pub fn classify(run: &ProcessRecord, sanitizers: &[SanitizerRecord]) -> Outcome {
    if run.timed_out {
        return Outcome::Hang;
    }
    match run.exit_code {
        Some(EXIT_RIGHT) => {
            if sanitizers.iter().any(|record| record.errors().is_some_and(|count| count > 0)) {
                Outcome::Race
            } else {
                Outcome::Clean
            }
        }
        Some(EXIT_WRONG) => Outcome::WrongResult,
        _ => Outcome::Fault,
    }
}

/// Whether the sanitizers should run after this plain run: only when it finished.
pub fn sanitize_after(run: &ProcessRecord) -> bool {
    !run.timed_out && matches!(run.exit_code, Some(EXIT_RIGHT) | Some(EXIT_WRONG))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(timed_out: bool, exit_code: Option<i32>, output: &str) -> ProcessRecord {
        ProcessRecord { timed_out, exit_code, output: output.into() }
    }

    fn sanitizer(exit_code: i32, output: &str) -> SanitizerRecord {
        SanitizerRecord { tool: "racecheck".into(), process: process(false, Some(exit_code), output) }
    }

    #[test]
    fn a_killed_run_is_a_hang_whatever_it_printed() {
        assert_eq!(classify(&process(true, None, "right"), &[]), Outcome::Hang);
        assert!(!sanitize_after(&process(true, None, "")));
    }

    #[test]
    fn exit_statuses_map_to_outcomes_and_anything_else_is_a_fault() {
        assert_eq!(classify(&process(false, Some(EXIT_RIGHT), ""), &[]), Outcome::Clean);
        assert_eq!(classify(&process(false, Some(EXIT_WRONG), ""), &[]), Outcome::WrongResult);
        assert_eq!(classify(&process(false, Some(EXIT_CUDA_ERROR), ""), &[]), Outcome::Fault);
        assert_eq!(classify(&process(false, None, "killed by SIGSEGV"), &[]), Outcome::Fault);
        assert_eq!(classify(&process(false, Some(101), "panicked"), &[]), Outcome::Fault);
        assert!(!sanitize_after(&process(false, Some(EXIT_CUDA_ERROR), "")));
    }

    #[test]
    fn a_right_result_with_sanitizer_errors_is_a_race() {
        let right = process(false, Some(EXIT_RIGHT), "");
        let racy = sanitizer(
            EXIT_SANITIZER_ERRORS,
            "========= Error: Race reported\n========= ERROR SUMMARY: 3 errors\n",
        );
        let quiet = sanitizer(0, "========= ERROR SUMMARY: 0 errors\n");
        assert_eq!(racy.errors(), Some(3));
        let racecheck = sanitizer(
            EXIT_SANITIZER_ERRORS,
            "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n",
        );
        assert_eq!(racecheck.errors(), Some(1));
        let racecheck_quiet =
            sanitizer(0, "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n");
        assert_eq!(racecheck_quiet.errors(), Some(0));
        assert_eq!(quiet.errors(), Some(0));
        assert_eq!(classify(&right, &[quiet.clone(), racy]), Outcome::Race);
        assert_eq!(classify(&right, &[quiet]), Outcome::Clean);
        // A wrong result stays a wrong result, races or not.
        let wrong = process(false, Some(EXIT_WRONG), "");
        let racy = sanitizer(EXIT_SANITIZER_ERRORS, "========= ERROR SUMMARY: 1 error\n");
        assert_eq!(classify(&wrong, &[racy]), Outcome::WrongResult);
    }

    #[test]
    fn a_sanitizer_that_timed_out_or_printed_no_summary_counts_no_errors() {
        let timed_out = SanitizerRecord {
            tool: "synccheck".into(),
            process: process(true, None, "ERROR SUMMARY: 5 errors"),
        };
        assert_eq!(timed_out.errors(), None);
        assert_eq!(sanitizer(0, "no summary").errors(), None);
        // Without a summary, the error exit status still counts.
        assert_eq!(sanitizer(EXIT_SANITIZER_ERRORS, "").errors(), Some(1));
        assert_eq!(classify(&process(false, Some(EXIT_RIGHT), ""), &[timed_out]), Outcome::Clean);
    }
}
