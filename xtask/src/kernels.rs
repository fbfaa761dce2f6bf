//! Building the nvptx kernels workspace into `kernels.ptx`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use regress::layout::kernels_ptx_in;
use regress::ptx::Module;

use crate::process;

/// One build of a kernels workspace into a target folder.
#[derive(Debug, Clone)]
pub struct KernelBuild {
    /// The folder holding the kernels workspace's `Cargo.toml` (and `.cargo/config.toml`).
    pub workspace: PathBuf,
    pub target_dir: PathBuf,
}

impl KernelBuild {
    /// The repository's own kernels, into `kernels/target`.
    pub fn of_repository(layout: &regress::layout::Layout) -> KernelBuild {
        KernelBuild { workspace: layout.kernels_workspace(), target_dir: layout.kernels_target_dir() }
    }

    /// Where this build leaves the PTX.
    pub fn ptx(&self) -> PathBuf {
        kernels_ptx_in(&self.target_dir)
    }

    /// The cargo command of the build. Cargo runs in the workspace folder so that its
    /// `.cargo/config.toml` (target, CPU, build-std) applies.
    pub fn command(&self) -> Command {
        let mut command = kernels_cargo(&self.workspace);
        command.args(["build", "--release", "--target-dir"]).arg(&self.target_dir);
        command
    }

    /// Builds, showing cargo's progress and rustc's diagnostics as they come, and returns
    /// the path of the PTX.
    pub fn run(&self) -> Result<PathBuf> {
        let status = self
            .command()
            .status()
            .with_context(|| format!("could not start cargo for {}", self.workspace.display()))?;
        if !status.success() {
            bail!(
                "the kernels in {} did not compile ({status}); rustc's errors above name the file and line",
                self.workspace.display()
            );
        }
        let ptx = self.ptx();
        if !ptx.is_file() {
            bail!("cargo reported success but left no PTX at {}", ptx.display());
        }
        Ok(ptx)
    }
}

/// Cargo in a kernels workspace. build-std and the nvptx features are unstable, and the
/// toolchain is a stable release, so every cargo run that compiles kernels needs this.
pub fn kernels_cargo(workspace: &Path) -> Command {
    let mut command = process::cargo(workspace);
    command.env("RUSTC_BOOTSTRAP", "1");
    command
}

/// The names of the kernel entries in a PTX file, in module order.
pub fn entry_names(ptx: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(ptx).with_context(|| format!("reading {}", ptx.display()))?;
    let module = Module::parse(&text).with_context(|| format!("{} is not readable PTX", ptx.display()))?;
    Ok(module.entries().filter_map(|entry| entry.name.clone()).collect())
}
