//! One side of a bump: the backend at one pin, and the kernels built with it, their PTX kept in
//! a folder of its own. The old side runs in this process (the toolchain that runs xtask is the
//! old pin's); the new side runs in a child `xtask` whose `CARGO` is the new toolchain's, so
//! that every cargo and rustc it starts (and the build key it computes) is the new pin's.
//!
//! Kernels with a backend: `default` compiles the kernels workspace through the backend's
//! driver (the guarded build); a backend whose build produces `.ptx` files (the test fixtures'
//! code generators) has those files as its kernels. Other backends (cuda-rust's codegen
//! library) have no kernels build yet, and are refused by name.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};
use regress::layout::Layout;

use crate::backend::{self, DEFAULT_BACKEND};
use crate::kernels::KernelBuild;
use crate::refusal::Refused;

/// The file name of the kernels module in a side's folder.
pub const KERNELS_PTX: &str = "kernels.ptx";

/// Builds (or finds installed) backend `name` at the pin on disk and its kernels, and copies
/// the PTX into `out`. Returns the PTX files kept there.
pub fn build_side(layout: &Layout, name: &str, out: &Path) -> Result<Vec<PathBuf>> {
    let (installed, outcome) = backend::build_backend(layout, name)?;
    let what = if outcome == backend::Outcome::Built { "built" } else { "already installed" };
    eprintln!("backend `{name}` {what}: {}", installed.dir.display());
    kernels_into(layout, name, out)
}

/// Builds the kernels with the installed backend `name` (the guard checks it) and copies
/// their PTX into `out`, replacing what was there.
pub fn kernels_into(layout: &Layout, name: &str, out: &Path) -> Result<Vec<PathBuf>> {
    let built: Vec<PathBuf> = if name == DEFAULT_BACKEND {
        vec![KernelBuild::of_repository(layout)?.run()?]
    } else {
        let installed = backend::check_backend(layout, name)?;
        let ptx: Vec<PathBuf> = installed
            .provenance
            .products
            .iter()
            .filter(|p| p.path.ends_with(".ptx"))
            .map(|p| installed.product(&p.path))
            .collect();
        if ptx.is_empty() {
            return Err(Refused(format!(
                "backend `{name}` has no kernels build: bump-pin builds the kernels with `{DEFAULT_BACKEND}` \
                 (its driver) or with a backend whose build produces .ptx files, and `{name}` produces {}",
                installed.provenance.products.iter().map(|p| p.path.as_str()).collect::<Vec<_>>().join(", ")
            ))
            .into());
        }
        ptx
    };
    if out.exists() {
        std::fs::remove_dir_all(out).with_context(|| format!("emptying {}", out.display()))?;
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut kept = Vec::new();
    for (index, ptx) in built.iter().enumerate() {
        let name = if built.len() == 1 {
            KERNELS_PTX.to_owned()
        } else {
            ptx.file_name().map_or_else(|| format!("{index}.ptx"), |n| n.to_string_lossy().into_owned())
        };
        let to = out.join(name);
        std::fs::copy(ptx, &to).with_context(|| format!("copying {} to {}", ptx.display(), to.display()))?;
        kept.push(to);
    }
    Ok(kept)
}

/// What a child `xtask` left: its exit status and everything it wrote to stderr.
pub struct ChildRun {
    pub code: Option<i32>,
    pub stderr: String,
}

/// A child `xtask` (this very binary) for the project at `root`, under toolchain `cargo` when
/// given: `CARGO` selects the cargo (and the rustc beside it) that the child's builds use.
pub fn child(root: &Path, cargo: Option<&Path>, args: &[&str]) -> Result<Command> {
    let exe = std::env::current_exe().context("finding the running xtask")?;
    let mut command = Command::new(exe);
    command.args(args).arg("--project").arg(root).current_dir(root);
    if let Some(cargo) = cargo {
        command.env("CARGO", cargo);
        // rustup's proxies (a `rustc` a build script runs) pick the same toolchain.
        if let Some(toolchain) = toolchain_of(cargo) {
            command.env("RUSTUP_TOOLCHAIN", toolchain);
        }
    }
    Ok(command)
}

/// The rustup toolchain a cargo belongs to: `…/toolchains/<name>/bin/cargo`.
fn toolchain_of(cargo: &Path) -> Option<String> {
    let dir = cargo.parent()?.parent()?;
    let in_toolchains = dir.parent()?.file_name()? == "toolchains";
    in_toolchains.then(|| dir.file_name().map(|n| n.to_string_lossy().into_owned())).flatten()
}

/// Runs `command`, passing its stderr through as it comes and keeping it.
pub fn run_teed(command: &mut Command) -> Result<ChildRun> {
    let mut child = command
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start {}", crate::process::describe(command)))?;
    let stderr = child.stderr.take().context("stderr is piped")?;
    let mut kept = String::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.context("reading the child's output")?;
        eprintln!("{line}");
        kept.push_str(&line);
        kept.push('\n');
    }
    let status = child.wait().context("waiting for the child xtask")?;
    Ok(ChildRun { code: status.code(), stderr: kept })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toolchains_cargo_names_its_toolchain() {
        let cargo = Path::new("/home/u/.rustup/toolchains/1.99.0-x86_64-unknown-linux-gnu/bin/cargo");
        assert_eq!(toolchain_of(cargo).as_deref(), Some("1.99.0-x86_64-unknown-linux-gnu"));
        assert_eq!(toolchain_of(Path::new("/usr/bin/cargo")), None);
    }
}
