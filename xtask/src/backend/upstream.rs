//! Materialising a git upstream: `vendor/NAME` is a pristine checkout at the pin (cloned once,
//! then recorded as a git submodule of the project at the full revision), and each build gets
//! its own work copy of it, where the series is applied. The vendor tree itself is never
//! patched, and a vendor tree with local changes is refused.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::error::BackendError;
use super::git::{self, git};
use super::hash::slash_path;
use crate::process::{self, read, succeeds};

/// A git upstream at its pin, checked out in the vendor folder.
#[derive(Debug, Clone)]
pub struct Materialised {
    pub vendor: PathBuf,
    /// The full revision the pin resolved to.
    pub revision: String,
}

/// Makes `vendor` a clean checkout of `url` at `pin`, cloning or fetching only when the pin is
/// not there yet, and records it as a submodule of the project when the project is a git work
/// tree.
pub fn materialise(
    project: &Path,
    backend: &str,
    url: &str,
    pin: &str,
    vendor: &Path,
) -> Result<Materialised> {
    let unreachable = |detail: String| BackendError::UnreachableUpstream {
        backend: backend.into(),
        url: url.into(),
        host: git::host_of(url),
        detail,
    };
    let fresh = !vendor.join(".git").exists();
    if fresh {
        if vendor.exists() && std::fs::read_dir(vendor)?.next().is_some() {
            return Err(BackendError::ForeignVendor { backend: backend.into(), path: vendor.into() }.into());
        }
        git::probe(url)?.map_err(unreachable)?;
        eprintln!("cloning {url} into {}", vendor.display());
        let parent = vendor.parent().context("the vendor folder has a parent")?;
        std::fs::create_dir_all(parent)?;
        let mut clone = git(parent);
        clone.args(["clone", "--no-checkout", "--", url]).arg(vendor);
        process::run(&mut clone, &format!("cloning the upstream of `{backend}`"))?;
    } else {
        refuse_local_changes(backend, vendor)?;
    }
    let revision = match resolve(vendor, pin)? {
        Some(revision) => revision,
        None => {
            // The pin may be newer than the clone: fetch, then look again.
            git::probe(url)?.map_err(unreachable)?;
            let mut fetch = git(vendor);
            fetch.args(["fetch", "--quiet", "--", url]);
            let fetched = succeeds(&mut fetch)?;
            resolve(vendor, pin)?.ok_or_else(|| BackendError::PinNotFound {
                backend: backend.into(),
                pin: pin.into(),
                url: url.into(),
                detail: fetched.err().unwrap_or_else(|| "not found after fetching".into()).trim().to_owned(),
            })?
        }
    };
    let head = read(git(vendor).args(["rev-parse", "--verify", "--quiet", "HEAD"])).unwrap_or_default();
    // A fresh `--no-checkout` clone has no files yet, whatever its HEAD.
    if fresh || head != revision {
        read(git(vendor).args(["checkout", "--quiet", "--detach", &revision]))
            .with_context(|| format!("checking out {revision} in {}", vendor.display()))?;
    }
    if fresh {
        refuse_local_changes(backend, vendor)?;
    }
    record_submodule(project, url, vendor, &revision)?;
    Ok(Materialised { vendor: vendor.into(), revision })
}

/// The full commit id `pin` names in `repository`, if it names one (and only one).
fn resolve(repository: &Path, pin: &str) -> Result<Option<String>> {
    let mut command = git(repository);
    command.args(["rev-parse", "--verify", "--quiet", &format!("{pin}^{{commit}}")]);
    let output = command.output().context("running git rev-parse")?;
    let full = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    // `rev-parse` accepts any prefix; the pin must be a prefix of what it resolved to.
    Ok((output.status.success() && full.starts_with(pin)).then_some(full))
}

/// Refuses a vendor checkout with uncommitted changes (modified, added, deleted or untracked
/// files), naming them: the checkout stands for the pin, and changes belong in the series.
pub(super) fn refuse_local_changes(backend: &str, vendor: &Path) -> Result<()> {
    let lines = git::status_lines(vendor)?;
    if lines.is_empty() {
        return Ok(());
    }
    let changes = git::summary(&lines, 5);
    let untracked = lines.iter().any(|line| line.starts_with("??"));
    let restore = format!(
        "`git -C {0} checkout .`{1}",
        vendor.display(),
        if untracked { format!(" and `git -C {} clean -fd`", vendor.display()) } else { String::new() }
    );
    Err(BackendError::DirtyVendor { backend: backend.into(), path: vendor.into(), changes, restore }.into())
}

/// Records `vendor` in the project's index as a submodule at `revision` (with `.gitmodules`),
/// so that the pin's full revision is committed with the project. A project that is not a git
/// work tree is left as it is.
fn record_submodule(project: &Path, url: &str, vendor: &Path, revision: &str) -> Result<()> {
    let inside = git(project).args(["rev-parse", "--is-inside-work-tree"]).output();
    if !inside.is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"true")) {
        return Ok(());
    }
    let relative = slash_path(project, vendor);
    let staged = read(git(project).args(["ls-files", "--stage", "--", &relative]))?;
    if staged.starts_with("160000") && staged.contains(revision) {
        return Ok(());
    }
    let registered = read(git(project).args(["config", "--file", ".gitmodules", "--get-regexp", "path"]))
        .unwrap_or_default()
        .lines()
        .any(|line| line.split_whitespace().nth(1) == Some(relative.as_str()));
    let mut command = git(project);
    if registered {
        command.args(["add", "--force", "--", &relative]);
    } else {
        // The folder already holds the checkout, so `submodule add` only records it.
        command.args(["submodule", "add", "--force", "--", url, &relative]);
    }
    read(&mut command).with_context(|| format!("recording {relative} as a submodule at {revision}"))?;
    eprintln!("recorded {relative} as a submodule at {revision} (commit .gitmodules and {relative})");
    Ok(())
}

/// A work copy of `materialised` at its revision, inside `dir` (which must not exist yet).
pub fn work_copy(materialised: &Materialised, dir: &Path) -> Result<()> {
    let mut clone = git(materialised.vendor.parent().unwrap_or(Path::new(".")));
    clone.args(["clone", "--quiet", "--shared", "--no-checkout", "--"]).arg(&materialised.vendor).arg(dir);
    read(&mut clone).context("making the work copy")?;
    read(git(dir).args(["checkout", "--quiet", "--detach", &materialised.revision]))
        .context("checking out the pin in the work copy")?;
    Ok(())
}
