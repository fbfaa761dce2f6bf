//! Running the tools this repository drives (cargo, rustup, just), with numbered steps and
//! their timings printed, so that long work shows where it is.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

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
