//! Running git for the backend flow: never prompting, and with a time limit wherever the
//! network is involved, so that an unreachable host fails fast instead of hanging CI.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use wait_timeout::ChildExt;

use crate::process::describe;

/// How long a probe of an upstream's git host may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// git in `dir`, never asking for credentials on a terminal.
pub fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command.current_dir(dir).env("GIT_TERMINAL_PROMPT", "0").args(["-c", "advice.detachedHead=false"]);
    command
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
    let status = match child.wait_timeout(limit).context("waiting for git")? {
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

/// Whether `url` answers `git ls-remote` within [`PROBE_TIMEOUT`]: `Err(why)` when it does not.
pub fn probe(url: &str) -> Result<std::result::Result<(), String>> {
    let mut command = git(Path::new("."));
    command.args(["ls-remote", "--quiet", "--", url, "HEAD"]);
    Ok(match output_within(&mut command, PROBE_TIMEOUT)? {
        None => Err(format!("no answer within {} s", PROBE_TIMEOUT.as_secs())),
        Some(output) if output.status.success() => Ok(()),
        Some(output) => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            Err(stderr.lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join(" / "))
        }
    })
}

/// The host part of a git URL, for messages: `github.com` for `https://github.com/o/r` or
/// `git@github.com:o/r`; a local path is its own host.
pub fn host_of(url: &str) -> String {
    if let Some((_, rest)) = url.split_once("://") {
        let authority = rest.split('/').next().unwrap_or(rest);
        return authority.rsplit('@').next().unwrap_or(authority).to_owned();
    }
    match url.split_once(':') {
        Some((user_host, _)) if !url.starts_with('/') => {
            user_host.rsplit('@').next().unwrap_or(user_host).to_owned()
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_urls() {
        assert_eq!(host_of("https://github.com/NVIDIA/cuda-rust"), "github.com");
        assert_eq!(host_of("ssh://git@example.org:22/x.git"), "example.org:22");
        assert_eq!(host_of("git@github.com:NVIDIA/cuda-rust.git"), "github.com");
        assert_eq!(host_of("/srv/git/up"), "/srv/git/up");
    }

    #[test]
    fn a_command_past_its_limit_is_killed() {
        let mut sleep = Command::new("sleep");
        sleep.arg("20");
        assert!(output_within(&mut sleep, Duration::from_millis(200)).unwrap().is_none());
    }

    #[test]
    fn a_missing_repository_does_not_answer_the_probe() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-repository");
        assert!(probe(&missing.to_string_lossy()).unwrap().is_err());
    }
}
