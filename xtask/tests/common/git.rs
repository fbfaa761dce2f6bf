//! Git for the tests' fixtures, the same on a clean CI machine as anywhere.

use std::path::Path;
use std::process::Command;

/// Git that works the same on a clean CI machine: no system or global configuration, a fixed
/// identity, `main` as the first branch, and local paths allowed as submodule URLs.
pub fn with_git_env(command: &mut Command) -> &mut Command {
    command
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Fixture")
        .env("GIT_AUTHOR_EMAIL", "fixture@example.invalid")
        .env("GIT_COMMITTER_NAME", "Fixture")
        .env("GIT_COMMITTER_EMAIL", "fixture@example.invalid")
        .env("GIT_CONFIG_COUNT", "2")
        .env("GIT_CONFIG_KEY_0", "protocol.file.allow")
        .env("GIT_CONFIG_VALUE_0", "always")
        .env("GIT_CONFIG_KEY_1", "init.defaultBranch")
        .env("GIT_CONFIG_VALUE_1", "main")
}

/// Runs git in `dir` and returns its output, trimmed; a failure fails the test, naming the
/// command, the folder and git's message.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = with_git_env(&mut Command::new("git")).current_dir(dir).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}
