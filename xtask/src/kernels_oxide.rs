//! `cargo xtask kernels-oxide`: the cuda-oxide kernels (`kernels/oxide`, their own workspace on
//! cuda-oxide's nightly) compiled by the installed `cuda-oxide` backend into
//! `kernels/oxide/target/ptx/kernels_oxide.ptx`.
//!
//! The guard runs first: a missing, unpatched or stale cuda-oxide backend is refused (exit 70)
//! by name, as the default one is before `cargo xtask kernels`. Then the project's verifier
//! judges the crate ([`verify_oxide`]): a check build of `kernels/oxide` and its helper crate
//! on the project's own toolchain (rustc 1.99.1, `RUSTC_BOOTSTRAP=1`) for the host triple,
//! through the default backend's `kernels-rustc` as `RUSTC_WORKSPACE_WRAPPER`
//! ([`KernelCompiler`], after `check-backend default`), which finds the `#[kernel]` entries by
//! cuda-oxide's reserved symbol prefix and reads cuda-device's calls from its table
//! (`plugin/driver/src/device_api.rs`). It needs nothing of cuda-oxide's code generator: a
//! rejected scope, or an unverified one without `#[kernel_verifier::unverified(reason = "…")]`,
//! fails it as it fails the kernels build, and its summary is the kernels build's. Only then is
//! the crate built for the host triple from the repository root (see `kernels/oxide/src/lib.rs`
//! for why each setting is what it is); the backend routes the kernels to PTX itself.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use regress::layout::Layout;

use crate::backend::description::read_backend;
use crate::backend::rustc::Rustc;
use crate::backend::snapshot_build::command;
use crate::backend::{OXIDE_BACKEND, check_backend};
use crate::kernels::KernelCompiler;
use crate::{process, verify_report};

/// The backend's product that rustc loads as its code generator.
pub const CODEGEN_LIBRARY: &str = "librustc_codegen_cuda.so";

/// The flags cuda-oxide's kernels are compiled with, beside `-Zcodegen-backend`: its MIR must
/// be kept whole (always encoded, no jump threading) for the backend to import it, and v0
/// mangling names generic instances.
const RUSTFLAGS: &str = "-Copt-level=3 -Cdebug-assertions=off -Zmir-enable-passes=-JumpThreading \
                         -Zalways-encode-mir -Csymbol-mangling-version=v0";

/// Builds the cuda-oxide kernels and returns the PTX file.
pub fn kernels_oxide(layout: &Layout) -> Result<PathBuf> {
    let installed = check_backend(layout, OXIDE_BACKEND)?;
    verify_oxide(layout)?;
    let backend = read_backend(layout.root(), OXIDE_BACKEND)?;
    let toolchain = backend.toolchain.as_ref();
    let host = Rustc::for_backend(layout.root(), toolchain.map(|t| t.channel.as_str()))?.host;
    let library = installed.product(CODEGEN_LIBRARY);
    let ptx = layout.oxide_ptx();
    let ptx_dir = ptx.parent().context("the PTX has a folder")?;
    let manifest = layout.oxide_workspace().join("Cargo.toml");
    let args: Vec<String> = ["build", "--release", "--locked", "--manifest-path"]
        .into_iter()
        .map(String::from)
        .chain([manifest.to_string_lossy().into_owned(), "--target".into(), host])
        .collect();
    let mut build = command("cargo", &args, layout.root(), toolchain);
    build
        .env("RUSTFLAGS", format!("-Zcodegen-backend={} {RUSTFLAGS}", library.display()))
        .env("CUDA_OXIDE_PTX_DIR", ptx_dir)
        .env("CUDA_OXIDE_TARGET", "sm_90a")
        // rustc's nvptx backend never contracts `a * b + c`; the same kernels must round alike.
        .env("CUDA_OXIDE_NO_FMA", "1");
    eprintln!("building the cuda-oxide kernels with {}", library.display());
    process::run(&mut build, "the cuda-oxide kernels build")?;
    if !ptx.is_file() {
        bail!("the cuda-oxide kernels build succeeded but left no {}", ptx.display());
    }
    eprintln!("cuda-oxide kernels: {}", ptx.display());
    Ok(ptx)
}

/// Where the verify-only build of the cuda-oxide kernels keeps its products (metadata only) and
/// its crate reports: its own folder, since it is another toolchain's build.
pub fn verify_target_dir(layout: &Layout) -> PathBuf {
    layout.oxide_workspace().join("target/verify")
}

/// The project's verifier on the cuda-oxide kernels: the check build of [`verify_command`]
/// after `check-backend default`, then the verifier's summary lines.
pub fn verify_oxide(layout: &Layout) -> Result<()> {
    let rustc = Rustc::of_toolchain(layout.root())?;
    let compiler = KernelCompiler::checked(layout, &rustc)?;
    let target_dir = verify_target_dir(layout);
    let mut check = verify_command(layout, &compiler, &rustc.host, &target_dir);
    eprintln!("verifying the cuda-oxide kernels with {}", compiler.driver.display());
    let status = check.status().context("could not start cargo for the cuda-oxide kernels' verify build")?;
    if !status.success() {
        bail!(
            "the verifier refused the cuda-oxide kernels in {} ({status}); rustc's errors above name the kernel, \
             the rule and the line",
            layout.oxide_workspace().display()
        );
    }
    verify_report::print_summary(&verify_report::report_dir(&target_dir))
}

/// The check build of `kernels/oxide` through `kernels-rustc`: the project's toolchain (cargo
/// runs from the repository root, so that its `rust-toolchain.toml` and not the crate's applies,
/// and so that `kernels/.cargo/config.toml`'s nvptx target and build-std do not), the host
/// triple, the release profile (no overflow checks, as the PTX build), and the workspace's
/// own lock file.
pub fn verify_command(layout: &Layout, compiler: &KernelCompiler, host: &str, target_dir: &Path) -> Command {
    let mut command = process::cargo(layout.root());
    command
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["check", "--release", "--locked", "--manifest-path"])
        .arg(layout.oxide_workspace().join("Cargo.toml"))
        .args(["--target", host, "--target-dir"])
        .arg(target_dir);
    compiler.wrap(&mut command, &verify_report::report_dir(target_dir));
    command
}
