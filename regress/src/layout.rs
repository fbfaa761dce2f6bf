//! Where things are in the repository. Every path is resolved against the repository root,
//! never against the process's current directory.

use std::path::{Path, PathBuf};

/// Environment variable naming another PTX file for the snapshot suite to check (a build of
/// another backend, say). A relative path is taken from the repository root.
pub const KERNELS_PTX_ENV: &str = "KERNELS_PTX";

/// The Python packages `cargo xtask setup` installs CUDA's compiler tools from, at their pinned
/// versions, into one folder ([`Layout::cuda_home`]): `ptxas` (`nvidia-cuda-nvcc`), which
/// assembles PTX without a GPU, so every machine checks that the kernels assemble; and
/// `libdevice.10.bc` (`nvidia-nvvm`), which cuda-oxide's own tests link against.
pub const CUDA_TOOL_PACKAGES: [(&str, &str); 2] =
    [("nvidia-cuda-nvcc", "13.5.37"), ("nvidia-nvvm", "13.5.37")];

/// The folder name of the pinned CUDA tools under `target/tools/`.
pub const CUDA_TOOLS_DIR: &str = "cuda-13.5.37";

/// The repository's layout, anchored at its root.
#[derive(Clone, Debug)]
pub struct Layout {
    root: PathBuf,
}

impl Layout {
    /// The repository this crate was built from (the regression suite is the root package).
    pub fn from_build() -> Layout {
        Layout::at(env!("CARGO_MANIFEST_DIR"))
    }

    /// A repository rooted at `root`.
    pub fn at(root: impl Into<PathBuf>) -> Layout {
        Layout { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path from configuration or the environment: relative means "from the root".
    pub fn resolve(&self, path: impl AsRef<Path>) -> PathBuf {
        self.root.join(path)
    }

    /// The nvptx kernels workspace.
    pub fn kernels_workspace(&self) -> PathBuf {
        self.root.join("kernels")
    }

    /// Cargo's target folder for the kernels build.
    pub fn kernels_target_dir(&self) -> PathBuf {
        self.kernels_workspace().join("target")
    }

    /// Where the verifier's crate reports of the last kernels build are (one JSON per crate).
    pub fn verify_reports_dir(&self) -> PathBuf {
        self.kernels_target_dir().join("verify-reports")
    }

    /// The last `just gpu` run's JSON (`gpu-runner --json`), where `just report` reads it.
    pub fn last_gpu_run(&self) -> PathBuf {
        self.root.join("target/gpu/last-run.json")
    }

    /// The last `just gpu --compare` run's JSON, where `just report` reads it.
    pub fn last_gpu_compare(&self) -> PathBuf {
        self.root.join("target/gpu/last-compare.json")
    }

    /// Where `cargo xtask kernels` leaves the PTX of the kernels crate.
    pub fn kernels_ptx(&self) -> PathBuf {
        kernels_ptx_in(&self.kernels_target_dir())
    }

    /// The PTX the snapshot suite checks: `$KERNELS_PTX` when set, else [`Self::kernels_ptx`].
    pub fn checked_ptx(&self) -> PathBuf {
        match std::env::var_os(KERNELS_PTX_ENV) {
            Some(path) if !path.is_empty() => self.resolve(path),
            _ => self.kernels_ptx(),
        }
    }

    /// The cuda-oxide kernels workspace (its own toolchain and backend).
    pub fn oxide_workspace(&self) -> PathBuf {
        self.kernels_workspace().join("oxide")
    }

    /// Where `cargo xtask kernels-oxide` leaves the PTX of the cuda-oxide kernels.
    pub fn oxide_ptx(&self) -> PathBuf {
        self.oxide_workspace().join("target/ptx/kernels_oxide.ptx")
    }

    /// The snapshots of the cuda-oxide kernels' entries.
    pub fn oxide_snapshot_dir(&self) -> PathBuf {
        self.snapshot_dir().join("cuda-oxide")
    }

    /// The `ptxas -v` figures of the cuda-oxide kernels, pinned.
    pub fn oxide_ptxas_table(&self) -> PathBuf {
        self.root.join("regress").join("ptxas-sm90-cuda-oxide.tsv")
    }

    /// The pinned PTX shapes of the cuda-oxide kernels' entries (the default backend's are in
    /// [`Self::shapes_table`]).
    pub fn oxide_shapes_table(&self) -> PathBuf {
        self.root.join("regress").join("ptx-shapes-cuda-oxide.tsv")
    }

    /// Where setup installs [`CUDA_TOOL_PACKAGES`] (a `pip install --target` folder).
    pub fn cuda_tools_dir(&self) -> PathBuf {
        self.root.join("target/tools").join(CUDA_TOOLS_DIR)
    }

    /// The pinned CUDA tools laid out as a toolkit root (`bin/ptxas`,
    /// `nvvm/libdevice/libdevice.10.bc`), for `CUDA_HOME`.
    pub fn cuda_home(&self) -> PathBuf {
        self.cuda_tools_dir().join("nvidia/cu13")
    }

    /// The pinned `ptxas`.
    pub fn ptxas(&self) -> PathBuf {
        self.cuda_home().join("bin/ptxas")
    }

    /// The `ptxas -v` figures of every kernel function, pinned.
    pub fn ptxas_table(&self) -> PathBuf {
        self.root.join("regress").join("ptxas-sm90.tsv")
    }

    /// The pinned PTX shapes of every kernel entry.
    pub fn shapes_table(&self) -> PathBuf {
        self.root.join("regress").join("ptx-shapes.tsv")
    }

    /// The folder of PTX snapshots, one `.snap` file per kernel entry.
    pub fn snapshot_dir(&self) -> PathBuf {
        self.root.join("ptx-snapshots")
    }
}

/// Where cargo leaves `kernels.ptx` for a build into `target_dir`.
pub fn kernels_ptx_in(target_dir: &Path) -> PathBuf {
    target_dir.join("nvptx64-nvidia-cuda").join("release").join("kernels.ptx")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_resolve_against_the_root() {
        let layout = Layout::at("/repo");
        assert_eq!(layout.resolve("out/k.ptx"), Path::new("/repo/out/k.ptx"));
        assert_eq!(layout.resolve("/abs/k.ptx"), Path::new("/abs/k.ptx"));
        assert_eq!(
            layout.kernels_ptx(),
            Path::new("/repo/kernels/target/nvptx64-nvidia-cuda/release/kernels.ptx")
        );
    }
}
