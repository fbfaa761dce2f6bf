//! The commands behind the daily recipes: build the kernels, run every check, format.

use anyhow::Result;
use regress::layout::Layout;

use crate::backend;
use crate::kernels::{KernelBuild, entry_names, kernels_cargo};
use crate::process::{self, Steps};
use crate::setup;

/// `just kernels`: builds the kernels and says where the PTX is and what it holds.
pub fn kernels(layout: &Layout) -> Result<()> {
    let ptx = KernelBuild::of_repository(layout)?.run()?;
    let entries = entry_names(&ptx)?;
    eprintln!("{} kernel entries in {}:", entries.len(), ptx.display());
    for entry in &entries {
        eprintln!("  {entry}");
    }
    Ok(())
}

/// `just setup`: toolchain components, tools, then a build of everything.
pub fn setup(layout: &Layout) -> Result<()> {
    let root = layout.root();
    let mut steps = Steps::new(8);
    steps.step("toolchain components (rust-toolchain.toml)", || setup::ensure_components(root))?;
    steps.step("the toolchains of backends that name their own (backends.toml)", || {
        setup::ensure_backend_toolchains(root)
    })?;
    steps.step("tools: just, cargo-insta", || setup::ensure_tools(root))?;
    steps.step("CUDA tools: ptxas and libdevice (pinned Python packages; no GPU needed)", || {
        setup::ensure_cuda_tools(layout)
    })?;
    steps.step("the default backend (build-backend default)", || {
        backend::build_backend(layout, backend::DEFAULT_BACKEND).map(drop)
    })?;
    steps.step(
        "the cuda-oxide backend (build-backend cuda-oxide; about 15 minutes cold on 2 cores)",
        || backend::build_backend(layout, backend::OXIDE_BACKEND).map(drop),
    )?;
    steps.step("kernels (nvptx64, sm_90a)", || kernels(layout))?;
    steps.step("host workspace and its tests", || {
        process::run(process::cargo(root).args(["test", "--workspace", "--no-run"]), "building the tests")
    })?;
    steps.finish("setup");
    Ok(())
}

/// `just test`: formatting, kernels, every test (the PTX snapshots among them), clippy.
pub fn test(layout: &Layout) -> Result<()> {
    let root = layout.root();
    let kernels_dir = layout.kernels_workspace();
    let mut steps = Steps::new(6);
    steps.step("rustfmt --check (host workspace, kernels, cuda-oxide kernels)", || {
        process::run(process::cargo(root).args(["fmt", "--all", "--check"]), "rustfmt (host)")?;
        process::run(process::cargo(&kernels_dir).args(["fmt", "--all", "--check"]), "rustfmt (kernels)")?;
        process::run(&mut oxide_fmt(layout, true)?, "rustfmt (cuda-oxide kernels)")
    })?;
    steps.step("kernels (nvptx64, sm_90a)", || kernels(layout))?;
    steps.step("cuda-oxide kernels (the cuda-oxide backend, sm_90a)", || {
        crate::kernels_oxide::kernels_oxide(layout).map(drop)
    })?;
    let (counts, skips) = steps.step("tests: host workspace, PTX snapshots, snapshot guard", || {
        // Every test binary runs, so that one failing suite does not hide another. The timing
        // regression times the verifier builds the installed default backend holds.
        let probes = crate::timing::verifier_probes(layout)?;
        let mut command = process::cargo(root);
        command.args(["test", "--workspace", "--no-fail-fast"]).env(probes.0, probes.1);
        process::run_tests(&mut command, "the tests")
    })?;
    steps.step("clippy, host workspace", || {
        process::run(
            process::cargo(root).args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]),
            "clippy (host)",
        )
    })?;
    steps.step("clippy, kernels", || {
        process::run(
            kernels_cargo(&kernels_dir).args(["clippy", "--release", "--", "-D", "warnings"]),
            "clippy (kernels)",
        )
    })?;
    steps.finish("test");
    // The closing line, in the plain form CI and people read.
    // A test that skipped (a tool it needs is missing) is counted as skipped, with its reason.
    println!("test: {}", crate::skips::closing_line(counts.passed, counts.failed, &skips));
    Ok(())
}

/// `just fmt`: formats both workspaces.
pub fn fmt(layout: &Layout) -> Result<()> {
    process::run(process::cargo(layout.root()).args(["fmt", "--all"]), "rustfmt (host)")?;
    process::run(process::cargo(&layout.kernels_workspace()).args(["fmt", "--all"]), "rustfmt (kernels)")?;
    process::run(&mut oxide_fmt(layout, false)?, "rustfmt (cuda-oxide kernels)")
}

/// `cargo fmt` of the cuda-oxide kernels, with the cuda-oxide backend's toolchain (its rustfmt).
fn oxide_fmt(layout: &Layout, check: bool) -> Result<std::process::Command> {
    let backend = backend::description::read_backend(layout.root(), backend::OXIDE_BACKEND)?;
    let manifest = layout.oxide_workspace().join("Cargo.toml").to_string_lossy().into_owned();
    // Its two packages by name: `--all` would also reformat the path dependencies' workspace,
    // the vendored cuda-oxide (which the guard then refuses as edited).
    let mut args: Vec<String> =
        ["fmt", "-p", "kernels-oxide", "-p", "kernels-oxide-helpers", "--manifest-path"]
            .into_iter()
            .map(String::from)
            .chain([manifest])
            .collect();
    if check {
        args.push("--check".to_owned());
    }
    Ok(backend::snapshot_build::command("cargo", &args, layout.root(), backend.toolchain.as_ref()))
}
