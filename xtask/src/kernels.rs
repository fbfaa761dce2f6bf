//! Building the nvptx kernels workspace into `kernels.ptx`, always through the guard: a
//! [`KernelBuild`] is made only after the kernels' target configuration is regenerated from its
//! table ([`crate::host_config`]) and `check-backend default` accepts the installed backend,
//! whose `kernels-rustc` then compiles the workspace's crates as `RUSTC_WORKSPACE_WRAPPER`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use regress::layout::kernels_ptx_in;
use regress::ptx::Module;

use crate::backend::DEFAULT_BACKEND;
use crate::backend::guard::check_backend_with;
use crate::backend::rustc::Rustc;
use crate::host_config::{self, KERNEL_TARGET};
use crate::process;
use crate::verify_report;

/// The file name of the default backend's rustc driver among its installed products.
pub const DRIVER: &str = "kernels-rustc";

/// One build of a kernels workspace into a target folder.
#[derive(Debug, Clone)]
pub struct KernelBuild {
    /// The folder holding the kernels workspace's `Cargo.toml` (and `.cargo/config.toml`).
    pub workspace: PathBuf,
    pub target_dir: PathBuf,
    pub compiler: KernelCompiler,
}

/// The compiler of the workspace's own crates: the installed backend's driver, and the
/// toolchain's library folder it loads `rustc_driver` from.
#[derive(Debug, Clone)]
pub struct KernelCompiler {
    pub driver: PathBuf,
    pub toolchain_lib: PathBuf,
}

impl KernelBuild {
    /// The repository's own kernels, into `kernels/target`, once the guard accepts the backend.
    pub fn of_repository(layout: &regress::layout::Layout) -> Result<KernelBuild> {
        KernelBuild::guarded(layout, layout.kernels_workspace(), layout.kernels_target_dir())
    }

    /// A build of the kernels workspace at `workspace` (the repository's or a copy of it),
    /// after writing its target configuration from the table (refusing a toolchain with
    /// another LLVM) and running `check-backend default` (refusing a missing, incomplete or
    /// stale backend). Both refusals exit 70 from the command line.
    pub fn guarded(
        layout: &regress::layout::Layout,
        workspace: PathBuf,
        target_dir: PathBuf,
    ) -> Result<KernelBuild> {
        let rustc = Rustc::of_toolchain(layout.root())?;
        host_config::prepare(&workspace, &KERNEL_TARGET, &rustc)?;
        let compiler = KernelCompiler::checked(layout, &rustc)?;
        Ok(KernelBuild { workspace, target_dir, compiler })
    }

    /// Where this build leaves the PTX.
    pub fn ptx(&self) -> PathBuf {
        kernels_ptx_in(&self.target_dir)
    }

    /// The cargo command of the build. Cargo runs in the workspace folder so that its
    /// `.cargo/config.toml` (target, CPU, build-std) applies; the workspace's crates go through
    /// the backend's driver (the build-std `core` through the plain rustc).
    pub fn command(&self) -> Command {
        let mut command = self.cargo();
        command.args(["build", "--release", "--target-dir"]).arg(&self.target_dir);
        command
    }

    /// Cargo in the workspace with the backend's driver as the workspace's compiler and the
    /// driver's report going to this build's report folder, before any subcommand: for
    /// builds other than [`KernelBuild::command`]'s (`cargo rustc … -- -Ztime-passes`).
    pub fn cargo(&self) -> Command {
        let mut command = kernels_cargo(&self.workspace);
        self.compiler.wrap(&mut command, &verify_report::report_dir(&self.target_dir));
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
        verify_report::print_summary(&verify_report::report_dir(&self.target_dir))?;
        Ok(ptx)
    }
}

impl KernelCompiler {
    /// The installed default backend's driver, once `check-backend default` accepts it (a
    /// missing, incomplete or stale backend is refused, exit 70 from the command line).
    pub fn checked(layout: &regress::layout::Layout, rustc: &Rustc) -> Result<KernelCompiler> {
        let installed = check_backend_with(layout, DEFAULT_BACKEND, rustc)?;
        eprintln!(
            "backend `{DEFAULT_BACKEND}` checked: {} (built {})",
            installed.dir.display(),
            installed.provenance.built_at
        );
        Ok(KernelCompiler { driver: installed.product(DRIVER), toolchain_lib: rustc.lib_dir()? })
    }

    /// Makes `command` (a cargo run) compile the workspace's own crates through the driver,
    /// which writes its crate reports into `report_dir`; the toolchain's `lib/`, where the
    /// driver finds `rustc_driver`, goes first on `LD_LIBRARY_PATH`.
    pub fn wrap(&self, command: &mut Command, report_dir: &Path) {
        command.env("RUSTC_WORKSPACE_WRAPPER", &self.driver);
        command.env(verify_report::REPORT_DIR_VAR, report_dir);
        let mut library_path = vec![self.toolchain_lib.clone()];
        library_path.extend(std::env::var_os("LD_LIBRARY_PATH").iter().flat_map(std::env::split_paths));
        command.env("LD_LIBRARY_PATH", std::env::join_paths(library_path).unwrap_or_default());
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
