//! Running git for the backend flow: never prompting, and with a time limit wherever the
//! network is involved, so that an unreachable host fails fast instead of hanging CI.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::Result;

use crate::process::{one_line, output_within, read};

/// How long a probe of an upstream's git host may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// git in `dir`, never asking for credentials on a terminal.
pub fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command.current_dir(dir).env("GIT_TERMINAL_PROMPT", "0").args(["-c", "advice.detachedHead=false"]);
    command
}

/// The changes `git status --porcelain` lists in the work tree at `dir` (untracked files
/// included), one a line, trimmed: none in a clean tree.
pub fn status_lines(dir: &Path) -> Result<Vec<String>> {
    let status = read(git(dir).args(["status", "--porcelain", "--untracked-files=normal"]))?;
    Ok(status.lines().map(|line| line.trim().to_owned()).collect())
}

/// The first `at_most` of `lines`, joined by commas, then how many more there are: for a
/// message that names changes without listing hundreds.
pub fn summary(lines: &[String], at_most: usize) -> String {
    let mut shown = lines.iter().take(at_most).cloned().collect::<Vec<_>>().join(", ");
    if lines.len() > at_most {
        shown.push_str(&format!(" and {} more", lines.len() - at_most));
    }
    shown
}

/// Whether `url` answers `git ls-remote` within [`PROBE_TIMEOUT`]: `Err(why)` when it does not.
pub fn probe(url: &str) -> Result<std::result::Result<(), String>> {
    let mut command = git(Path::new("."));
    command.args(["ls-remote", "--quiet", "--", url, "HEAD"]);
    Ok(match output_within(&mut command, PROBE_TIMEOUT)? {
        None => Err(format!("no answer within {} s", PROBE_TIMEOUT.as_secs())),
        Some(output) if output.status.success() => Ok(()),
        Some(output) => Err(one_line(&String::from_utf8_lossy(&output.stderr))),
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
    fn a_missing_repository_does_not_answer_the_probe() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-repository");
        assert!(probe(&missing.to_string_lossy()).unwrap().is_err());
    }
}
