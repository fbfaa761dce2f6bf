//! The project's git state around a bump: a bump starts only from a clean tree (so that what it
//! leaves to commit is the bump and nothing else), and marks the commit at the old pin with a
//! tag, once.

use std::path::Path;

use anyhow::{Context, Result};

use crate::backend::git::{self, git};
use crate::process::read;
use crate::refusal::Refused;

/// Refuses (exit 70) a project with uncommitted changes or untracked files, naming them.
pub fn refuse_dirty(root: &Path, what: &str) -> Result<()> {
    let lines = git::status_lines(root).with_context(|| {
        format!("reading the git status of {} (a bump needs a git work tree)", root.display())
    })?;
    if lines.is_empty() {
        return Ok(());
    }
    let shown = git::summary(&lines, 8);
    Err(Refused(format!(
        "`{what}` needs a clean work tree, so that what it leaves to commit is the bump alone; \
         commit or stash these first: {shown}"
    ))
    .into())
}

/// What [`tag_old_pin`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tagged {
    Created {
        commit: String,
    },
    /// The tag already names this commit: nothing to do.
    Already {
        commit: String,
    },
    /// The tag names another commit (an earlier bump from the same pin): left as it is.
    Elsewhere {
        commit: String,
    },
}

/// Tags HEAD `tag` unless the tag exists.
pub fn tag_old_pin(root: &Path, tag: &str) -> Result<Tagged> {
    let head = read(git(root).args(["rev-parse", "--verify", "HEAD"])).context("reading HEAD")?;
    let existing =
        read(git(root).args(["rev-parse", "--verify", "--quiet", &format!("refs/tags/{tag}^{{commit}}")]));
    match existing {
        Ok(commit) if commit == head => Ok(Tagged::Already { commit }),
        Ok(commit) if !commit.is_empty() => Ok(Tagged::Elsewhere { commit }),
        _ => {
            read(git(root).args(["tag", "--", tag, &head]))
                .with_context(|| format!("tagging {head} `{tag}`"))?;
            Ok(Tagged::Created { commit: head })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_in(dir: &Path, args: &[&str]) -> String {
        let mut command = git(dir);
        command
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "T")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "T")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid");
        read(command.args(args)).unwrap()
    }

    #[test]
    fn the_old_pin_is_tagged_once_and_an_earlier_tag_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git_in(root, &["init", "-q"]);
        git_in(root, &["commit", "-q", "--allow-empty", "-m", "at the old pin"]);
        let first = git_in(root, &["rev-parse", "HEAD"]);
        assert_eq!(tag_old_pin(root, "pin/up-0.1.0").unwrap(), Tagged::Created { commit: first.clone() });
        assert_eq!(tag_old_pin(root, "pin/up-0.1.0").unwrap(), Tagged::Already { commit: first.clone() });
        git_in(root, &["commit", "-q", "--allow-empty", "-m", "later"]);
        assert_eq!(tag_old_pin(root, "pin/up-0.1.0").unwrap(), Tagged::Elsewhere { commit: first.clone() });
        assert_eq!(git_in(root, &["rev-parse", "pin/up-0.1.0^{commit}"]), first);

        refuse_dirty(root, "bump-pin up up=0.2.0").unwrap();
        std::fs::write(root.join("notes.txt"), "").unwrap();
        let error = refuse_dirty(root, "bump-pin up up=0.2.0").unwrap_err();
        assert!(error.to_string().contains("?? notes.txt"), "{error}");
        assert_eq!(crate::refusal::exit_status(&error), crate::refusal::REFUSED);
    }
}
