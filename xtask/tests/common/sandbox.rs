//! A test's own project for the backend commands: one temporary folder holding the project
//! (`project/`), the backends root (`backends/`) and the test's package registry (`registry/`),
//! and xtask run on that project.

use std::path::PathBuf;
use std::process::Command;

use tempfile::TempDir;

pub struct Sandbox {
    /// The temporary folder, removed when the sandbox is dropped; xtask runs from it.
    pub dir: TempDir,
    pub project: PathBuf,
    /// The backends root (`KERNEL_BACKENDS_ROOT`).
    pub root: PathBuf,
}

impl Sandbox {
    /// An empty sandbox in a temporary folder named `<prefix>…`.
    pub fn new(prefix: &str) -> Sandbox {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir().unwrap();
        Sandbox { project: dir.path().join("project"), root: dir.path().join("backends"), dir }
    }

    /// The directory registry the project's cargo may be pointed at
    /// ([`super::registry::use_registry`]).
    pub fn registry(&self) -> PathBuf {
        self.dir.path().join("registry")
    }

    /// `xtask ARGS --project PROJECT`, from the sandbox's folder, with its backends root and
    /// without the caller's `CARGO_TARGET_DIR`.
    pub fn xtask(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
        command
            .args(args)
            .arg("--project")
            .arg(&self.project)
            .env("KERNEL_BACKENDS_ROOT", &self.root)
            .env_remove("CARGO_TARGET_DIR")
            .current_dir(self.dir.path());
        command
    }
}
