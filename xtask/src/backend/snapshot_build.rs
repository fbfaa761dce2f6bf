//! The steps a snapshot upstream adds to `build-backend`: its work copy (the upstream's files
//! and, beside them, the snapshots it depends on by path), its own toolchain for every command,
//! the `prepare` commands with the regenerated files held to the commit's ids, and its own test
//! suites after the build.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use super::description::{Backend, Snapshot, Toolchain, Upstream};
use super::error::BackendError;
use super::provenance::{GitId, SnapshotRecord};
use super::snapshot::{self, Record};
use super::upstream_tests::{failing_tests, passed_count};
use crate::process;

/// The folder of the upstream's own work copy inside the work folder.
pub const UPSTREAM_AT: &str = "src";

/// Copies the upstream and every `beside` snapshot into `work` and returns the upstream's copy.
pub fn work_copies(backend: &Backend, upstream: &Snapshot, work: &Path) -> Result<PathBuf> {
    let dir = work.join(UPSTREAM_AT);
    snapshot::work_copy(upstream, &dir)?;
    for beside in &backend.beside {
        snapshot::work_copy(&beside.snapshot, &work.join(&beside.at))?;
    }
    eprintln!(
        "copied {} at {} into {}{}",
        upstream.url,
        &upstream.commit[..12],
        dir.display(),
        backend
            .beside
            .iter()
            .map(|b| format!(", {} beside it as {}", b.snapshot.url, b.at))
            .collect::<String>()
    );
    Ok(dir)
}

/// Refuses a toolchain that is not the one the upstream's own toolchain file names.
pub fn refuse_other_toolchain(backend: &Backend) -> Result<()> {
    let (Upstream::Snapshot(upstream), Some(toolchain)) = (&backend.upstream, &backend.toolchain) else {
        return Ok(());
    };
    let Some(file) = &toolchain.file else { return Ok(()) };
    let path = upstream.vendor.join(file);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let table: toml::Table =
        toml::from_str(&text).with_context(|| format!("{} is not TOML", path.display()))?;
    let named = table.get("toolchain").and_then(|t| t.get("channel")).and_then(|c| c.as_str()).unwrap_or("");
    if named == toolchain.channel {
        return Ok(());
    }
    Err(BackendError::ToolchainDisagrees {
        backend: backend.name.clone(),
        described: toolchain.channel.clone(),
        file: path,
        upstream: named.to_owned(),
    }
    .into())
}

/// `program args…` in `dir`, through the backend's own toolchain when it has one. A program
/// given as a relative path with a `/` is the work copy's (a tool the build made).
pub fn command(program: &str, args: &[String], dir: &Path, toolchain: Option<&Toolchain>) -> Command {
    let program_path = if program.contains('/') { dir.join(program) } else { PathBuf::from(program) };
    let mut command = match toolchain {
        Some(toolchain) => {
            let mut rustup = Command::new("rustup");
            rustup.args(["run", &toolchain.channel]).arg(&program_path);
            // The project's cargo and rustc (and their settings) must not leak into the
            // upstream's build: rustup run picks the toolchain's own.
            for variable in
                ["CARGO", "RUSTC", "RUSTDOC", "RUSTC_WRAPPER", "RUSTUP_TOOLCHAIN", "CARGO_TARGET_DIR"]
            {
                rustup.env_remove(variable);
            }
            rustup
        }
        None if program == "cargo" => process::cargo(dir),
        None => Command::new(program_path),
    };
    for variable in ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS"] {
        command.env_remove(variable);
    }
    command.current_dir(dir).args(args);
    command
}

/// Runs the `prepare` commands in `dir`, then holds the regenerated files to the commit's ids.
pub fn prepare(backend: &Backend, upstream: &Snapshot, dir: &Path) -> Result<Vec<GitId>> {
    for line in &backend.prepare {
        let (program, args) = line.split_first().context("a command has a program")?;
        let mut run = command(program, args, dir, backend.toolchain.as_ref());
        process::run(&mut run, &format!("`{}` (prepare) of backend `{}`", line.join(" "), backend.name))?;
    }
    let checked = snapshot::check_regenerated(&backend.name, upstream, dir)?;
    for (path, id) in &checked {
        eprintln!("regenerated {path}: {id}, the commit's");
    }
    Ok(checked.into_iter().map(|(path, id)| GitId { path, id }).collect())
}

/// Runs the upstream's own test suites in `dir`, refusing the build naming the failing ones;
/// returns a line per command with its count of passed tests.
pub fn run_tests(root: &Path, backend: &Backend, dir: &Path) -> Result<Vec<String>> {
    let mut summaries = Vec::new();
    for line in &backend.tests {
        let (program, args) = line.split_first().context("a command has a program")?;
        let mut test = command(program, args, dir, backend.toolchain.as_ref());
        for (name, value) in &backend.tests_env {
            test.env(name, value.replace("{root}", &root.to_string_lossy()));
        }
        test.env("RUST_BACKTRACE", "0").stderr(std::process::Stdio::inherit());
        let output = test.output().with_context(|| format!("running `{}`", line.join(" ")))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let passed: usize = stdout.lines().filter_map(passed_count).sum();
        if !output.status.success() {
            // libtest's report (each failure's message) goes to stdout, which is read here.
            let log = root.join("target/backend-build").join(format!("{}-tests.log", backend.name));
            if let Some(parent) = log.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&log, stdout.as_bytes()).with_context(|| format!("writing {}", log.display()))?;
            let failing = failing_tests(&stdout);
            let detail = if failing.is_empty() {
                format!(
                    "`{}` did not build or run ({}; cargo's report is above)",
                    line.join(" "),
                    output.status
                )
            } else {
                format!("failing: {}; each failure's message is in {}", failing.join(", "), log.display())
            };
            return Err(BackendError::UpstreamTestsFailed {
                backend: backend.name.clone(),
                package: backend.name.clone(),
                detail,
            }
            .into());
        }
        let summary = format!("{}: {passed} passed", line.join(" "));
        eprintln!("{summary}");
        summaries.push(summary);
    }
    Ok(summaries)
}

/// The records of the upstream and of every `beside` snapshot, with the regenerated files' ids.
pub fn records(
    backend: &Backend,
    upstream: &Snapshot,
    regenerated: Vec<GitId>,
) -> Result<Vec<SnapshotRecord>> {
    let record_of = |snapshot: &Snapshot, at: &str, regenerated: Vec<GitId>| -> Result<SnapshotRecord> {
        let record = Record::read(&snapshot.vendor)?;
        let paths = record.paths.into_iter().map(|(path, id)| GitId { path, id }).collect();
        Ok(SnapshotRecord {
            url: snapshot.url.clone(),
            commit: snapshot.commit.clone(),
            at: at.into(),
            paths,
            regenerated,
        })
    };
    let mut records = vec![record_of(upstream, UPSTREAM_AT, regenerated)?];
    for beside in &backend.beside {
        records.push(record_of(&beside.snapshot, &beside.at, Vec::new())?);
    }
    Ok(records)
}
