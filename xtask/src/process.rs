//! Running the tools this repository drives (cargo, rustup, just, git), with numbered steps and
//! their timings printed, so that long work shows where it is.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use wait_timeout::ChildExt;

/// The cargo that runs this xtask (`$CARGO`), so nested builds use the same toolchain.
pub fn cargo(dir: &Path) -> Command {
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(program);
    command.current_dir(dir);
    // Flags from the environment would replace the kernels' own `rustflags` (the target CPU
    // and PTX version) without a word; the builds here take theirs from `.cargo/config.toml`.
    for variable in ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS"] {
        command.env_remove(variable);
    }
    command
}

/// Runs `command` with the terminal as its output, failing with `what` if it fails.
pub fn run(command: &mut Command, what: &str) -> Result<()> {
    let status = command.status().with_context(|| format!("could not start {}", describe(command)))?;
    if !status.success() {
        bail!("{what} failed ({}): {}", status, describe(command));
    }
    Ok(())
}

/// Runs `command` and returns its trimmed stdout, failing with its stderr.
pub fn read(command: &mut Command) -> Result<String> {
    let output = command.output().with_context(|| format!("could not start {}", describe(command)))?;
    if !output.status.success() {
        bail!("{} failed: {}", describe(command), String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Runs `command` and says only whether it succeeded, with its stderr when it did not.
pub fn succeeds(command: &mut Command) -> Result<std::result::Result<(), String>> {
    let output = command.output().with_context(|| format!("could not start {}", describe(command)))?;
    Ok(if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    })
}

/// Runs `command` for at most `limit`, killing it when the time is up.
pub fn output_within(command: &mut Command, limit: Duration) -> Result<Option<Output>> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start {}", describe(command)))?;
    // Read both pipes on threads so a chatty command cannot block on a full pipe.
    let mut stdout = child.stdout.take().context("stdout is piped")?;
    let mut stderr = child.stderr.take().context("stderr is piped")?;
    let out = std::thread::spawn(move || drain(&mut stdout));
    let err = std::thread::spawn(move || drain(&mut stderr));
    let waited = child.wait_timeout(limit).with_context(|| format!("waiting for {}", describe(command)))?;
    let status = match waited {
        Some(status) => status,
        None => {
            child.kill().ok();
            child.wait().ok();
            return Ok(None);
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok(Some(Output { status, stdout, stderr }))
}

fn drain(pipe: &mut impl Read) -> Vec<u8> {
    let mut bytes = Vec::new();
    pipe.read_to_end(&mut bytes).ok();
    bytes
}

/// A tool's report (its stderr) on one line, for a message: each line trimmed, blank lines
/// dropped, the rest joined with ` / `.
pub fn one_line(text: &str) -> String {
    text.lines().map(str::trim).filter(|line| !line.is_empty()).collect::<Vec<_>>().join(" / ")
}

/// Passed and failed tests, added up over every `test result:` line of a `cargo test` run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TestCounts {
    pub passed: usize,
    pub failed: usize,
}

impl TestCounts {
    /// Adds the counts of one libtest summary line (`test result: ok. 12 passed; 0 failed; …`).
    fn add_summary_line(&mut self, line: &str) {
        let Some(summary) = line.strip_prefix("test result: ") else { return };
        for part in summary.split([';', '.']) {
            let mut words = part.split_whitespace();
            match (words.next().and_then(|n| n.parse::<usize>().ok()), words.next()) {
                (Some(n), Some("passed")) => self.passed += n,
                (Some(n), Some("failed")) => self.failed += n,
                _ => {}
            }
        }
    }
}

/// Runs a `cargo test` command, passing its output through, and adds up its test counts.
/// Tests that skip leave markers in a fresh folder ([`crate::skips`]); the counts returned,
/// and the error, count them as skipped, not passed.
pub fn run_tests(command: &mut Command, what: &str) -> Result<(TestCounts, Vec<crate::skips::Skip>)> {
    let markers = tempfile::tempdir().context("a temporary folder for skip markers")?;
    command.env(crate::skips::SKIPS_DIR_VAR, markers.path());
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start {}", describe(command)))?;
    let mut counts = TestCounts::default();
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.context("reading the test output")?;
        println!("{line}");
        counts.add_summary_line(&line);
    }
    let status = child.wait().context("waiting for the tests")?;
    let skips = crate::skips::collect(markers.path())?;
    if !status.success() {
        bail!(
            "{what} failed ({status}): {}",
            crate::skips::closing_line(counts.passed, counts.failed, &skips)
        );
    }
    Ok((counts, skips))
}

/// A command as a person would type it, for messages.
pub fn describe(command: &Command) -> String {
    let program = Path::new(command.get_program())
        .file_name()
        .map(OsStr::to_string_lossy)
        .unwrap_or_default()
        .into_owned();
    let args: Vec<String> = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
    let mut text = format!("{program} {}", args.join(" "));
    if let Some(dir) = command.get_current_dir() {
        text.push_str(&format!(" (in {})", dir.display()));
    }
    text
}

/// A sequence of named steps; each prints a header and, when done, its time.
pub struct Steps {
    total: usize,
    done: usize,
    started: Instant,
}

impl Steps {
    pub fn new(total: usize) -> Steps {
        Steps { total, done: 0, started: Instant::now() }
    }

    /// Runs one step, printing `[n/total] title` before and its time after.
    pub fn step<T>(&mut self, title: &str, work: impl FnOnce() -> Result<T>) -> Result<T> {
        self.done += 1;
        eprintln!("\n==> [{}/{}] {title}", self.done, self.total);
        let started = Instant::now();
        let result = work().with_context(|| format!("step {}/{} ({title})", self.done, self.total));
        if result.is_ok() {
            eprintln!(
                "==> [{}/{}] {title}: done in {:.1} s",
                self.done,
                self.total,
                started.elapsed().as_secs_f64()
            );
        }
        result
    }

    /// Prints the closing line with the total time.
    pub fn finish(&self, what: &str) {
        eprintln!(
            "\n==> {what}: all {} steps passed in {:.1} s",
            self.total,
            self.started.elapsed().as_secs_f64()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_counts_add_up_libtest_summaries() {
        let mut counts = TestCounts::default();
        counts.add_summary_line(
            "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s",
        );
        counts.add_summary_line(
            "test result: FAILED. 1 passed; 11 failed; 0 ignored; 0 measured; 0 filtered out",
        );
        counts.add_summary_line("test ptx_snapshot::saxpy ... ok");
        assert_eq!(counts, TestCounts { passed: 13, failed: 11 });
    }

    #[test]
    fn a_command_past_its_limit_is_killed() {
        let mut sleep = Command::new("sleep");
        sleep.arg("20");
        assert!(output_within(&mut sleep, Duration::from_millis(200)).unwrap().is_none());
    }

    #[test]
    fn a_report_on_one_line_drops_blank_lines_and_indentation() {
        assert_eq!(one_line("error: a\n\n   b  \n"), "error: a / b");
        assert_eq!(one_line(""), "");
    }
}
