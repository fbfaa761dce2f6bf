//! Getting what the new pin needs before anything is written: the toolchain (`rustup toolchain
//! install` with the components `rust-toolchain.toml` lists), the registry package at its new
//! version (`cargo vendor` through the project's cargo configuration, into a scratch folder),
//! or the git revision (a scratch clone of the upstream). What cannot be had is refused by
//! name (exit 70) while the project is still untouched.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result};

use super::request::{Change, Request, Target};
use crate::backend::description::Upstream;
use crate::backend::{package, upstream};
use crate::process::{one_line, output_within, read};
use crate::refusal::Refused;
use crate::toolchain::Toolchain;

/// How long installing a toolchain may take (`rustc-dev` is a large download).
const INSTALL_TIMEOUT: Duration = Duration::from_secs(1800);

/// Where the new pin's toolchain is, when the bump moves it.
#[derive(Debug, Clone, Default)]
pub struct Obtained {
    /// The new toolchain's cargo (its rustc sits beside it).
    pub toolchain_cargo: Option<PathBuf>,
}

/// Installs or fetches what every change of `request` needs.
pub fn obtain(root: &Path, request: &Request) -> Result<Obtained> {
    let mut obtained = Obtained::default();
    for change in &request.changes {
        match &change.target {
            Target::Toolchain => obtained.toolchain_cargo = Some(install_toolchain(root, change)?),
            Target::UpstreamPackage { package } | Target::CarriedPackage { package } => {
                fetch_package(root, &request.backend.name, package, &change.new)?
            }
            Target::GitRev => {
                let Upstream::Git { url, .. } = &request.backend.upstream else {
                    anyhow::bail!("backend `{}` has no git upstream", request.backend.name);
                };
                fetch_revision(&request.backend.name, url, &change.new)?
            }
        }
    }
    Ok(obtained)
}

/// `rustup toolchain install` of the new release with the components the toolchain file lists,
/// then the path of its cargo.
fn install_toolchain(root: &Path, change: &Change) -> Result<PathBuf> {
    let components = Toolchain::read(root)?.components;
    let mut install = Command::new("rustup");
    install.current_dir(root).args([
        "toolchain",
        "install",
        &change.new,
        "--profile",
        "minimal",
        "--no-self-update",
    ]);
    if !components.is_empty() {
        install.arg("--component").arg(components.join(","));
    }
    eprintln!("installing toolchain {} with {} (rustup)", change.new, components.join(", "));
    let cannot = |detail: String| {
        Refused(format!(
            "`toolchain={}`: rustup cannot install toolchain {} with the components rust-toolchain.toml needs \
             ({detail}); pick a release rustup's distribution has, or install it on a machine that reaches it",
            change.new, change.new
        ))
    };
    let output = output_within(&mut install, INSTALL_TIMEOUT)?
        .ok_or_else(|| cannot(format!("no answer within {} s", INSTALL_TIMEOUT.as_secs())))?;
    if !output.status.success() {
        return Err(cannot(rustup_error(&String::from_utf8_lossy(&output.stderr))).into());
    }
    let cargo =
        read(Command::new("rustup").current_dir(root).args(["which", "--toolchain", &change.new, "cargo"]))
            .with_context(|| format!("finding the cargo of toolchain {}", change.new))?;
    Ok(PathBuf::from(cargo))
}

/// rustup's `error:` lines on one line, without the backtrace it may print after them.
fn rustup_error(stderr: &str) -> String {
    let errors: Vec<&str> = stderr.lines().filter(|line| line.starts_with("error")).collect();
    if errors.is_empty() { one_line(stderr) } else { one_line(&errors.join("\n")) }
}

/// Fetches `package` at `version` into a scratch folder inside the project (so that its cargo
/// configuration, a mirror say, applies); the build fetches it again into `vendor/`.
fn fetch_package(root: &Path, backend: &str, package: &str, version: &str) -> Result<()> {
    let parent = root.join("target").join("bump");
    std::fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    let scratch = tempfile::Builder::new().prefix("fetch-").tempdir_in(&parent)?;
    let fetched = package::materialise(backend, package, version, &scratch.path().join(package))?;
    eprintln!("{package} {version} can be had: {}", fetched.revision);
    Ok(())
}

/// Clones the upstream into a scratch folder and resolves the new revision there.
fn fetch_revision(backend: &str, url: &str, revision: &str) -> Result<()> {
    let scratch = tempfile::Builder::new().prefix("bump-rev-").tempdir()?;
    let vendor = scratch.path().join("upstream");
    let fetched = upstream::materialise(scratch.path(), backend, url, revision, &vendor)?;
    eprintln!("{url} has {}", fetched.revision);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustups_error_is_kept_and_its_backtrace_dropped() {
        let stderr = "info: syncing channel updates for 1.98.0-x86_64-unknown-linux-gnu\n\
                      error: component 'llvm-bitcode-linker' for target 'x86_64-unknown-linux-gnu' is unavailable \
                      for download for channel '1.98.0'\n\nStack backtrace:\n   0: anyhow::error\n";
        assert_eq!(
            rustup_error(stderr),
            "error: component 'llvm-bitcode-linker' for target 'x86_64-unknown-linux-gnu' is unavailable for \
             download for channel '1.98.0'"
        );
    }
}
