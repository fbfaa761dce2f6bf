//! `cargo xtask kernels-oxide`: the cuda-oxide kernels (`kernels/oxide`, their own workspace on
//! cuda-oxide's nightly) compiled by the installed `cuda-oxide` backend into
//! `kernels/oxide/target/ptx/kernels_oxide.ptx`.
//!
//! The guard runs first: a missing, unpatched or stale cuda-oxide backend is refused (exit 70)
//! by name, as the default one is before `cargo xtask kernels`. The crate is built for the host
//! triple from the repository root (see `kernels/oxide/src/lib.rs` for why each setting is
//! what it is); the backend routes the kernels to PTX itself.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use regress::layout::Layout;

use crate::backend::description::read_backend;
use crate::backend::rustc::Rustc;
use crate::backend::snapshot_build::command;
use crate::backend::{OXIDE_BACKEND, check_backend};
use crate::process;

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
