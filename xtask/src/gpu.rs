//! `cargo xtask gpu`: build the kernels and the GPU runner, then run every kernel on the GPU
//! (or leave a bundle for a GPU machine without Rust); `cargo xtask ptxas-tsv`: turn a
//! captured `ptxas -v` report into `regress/ptxas-sm90.tsv`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use regress::layout::Layout;

use crate::atomic::write_file;
use crate::kernels::KernelBuild;
use crate::process::{self, Steps};

/// The peer script, from the repository root.
const PEER_SCRIPT: &str = "kernels/gpu-runner/peer/peer_timings.py";
/// The captured `ptxas -v` report the TSV is generated from, from the repository root.
pub const PTXAS_REPORT: &str = "regress/fixtures/ptxas-sm90-h200.txt";

/// The runner binary cargo leaves in the host workspace's target folder.
fn runner_binary(layout: &Layout) -> PathBuf {
    layout.root().join("target").join("release").join("gpu-runner")
}

/// `just gpu`: kernels, runner, then the run (arguments after `--` go to the runner). With
/// `bundle`, copies the runner, the PTX and the peer script into that folder instead, for a
/// GPU machine without Rust: run `./gpu-runner --ptx kernels.ptx --peer-script
/// peer_timings.py` there.
pub fn gpu(layout: &Layout, bundle: Option<&Path>, runner_args: &[String]) -> Result<()> {
    let root = layout.root();
    let mut steps = Steps::new(3);
    let ptx = steps.step("kernels (nvptx64, sm_90)", || KernelBuild::of_repository(layout)?.run())?;
    steps.step("GPU runner (release)", || {
        process::run(
            process::cargo(root).args(["build", "--release", "-p", "gpu-runner"]),
            "building gpu-runner",
        )
    })?;
    let runner = runner_binary(layout);
    let peer = layout.resolve(PEER_SCRIPT);
    match bundle {
        Some(folder) => steps.step("bundle for a GPU machine", || {
            let folder = layout.resolve(folder);
            std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
            for (from, name) in [(&runner, "gpu-runner"), (&ptx, "kernels.ptx"), (&peer, "peer_timings.py")] {
                std::fs::copy(from, folder.join(name))
                    .with_context(|| format!("copying {} into {}", from.display(), folder.display()))?;
            }
            eprintln!(
                "bundle in {}: run `./gpu-runner --ptx kernels.ptx --peer-script peer_timings.py` there",
                folder.display()
            );
            Ok(())
        })?,
        None => steps.step("every kernel on the GPU (needs an NVIDIA GPU)", || {
            let mut command = std::process::Command::new(&runner);
            command.arg("--ptx").arg(&ptx).arg("--peer-script").arg(&peer).args(runner_args);
            process::run(&mut command, "the GPU run")
        })?,
    }
    steps.finish("gpu");
    Ok(())
}

/// `cargo xtask ptxas-tsv`: parses a `ptxas -arch=sm_90 -v` report (default: the captured one
/// in `regress/fixtures/`) into `regress/ptxas-sm90.tsv`, written through a temporary file.
pub fn ptxas_tsv(layout: &Layout, report: Option<&Path>) -> Result<()> {
    let report = layout.resolve(report.unwrap_or(Path::new(PTXAS_REPORT)));
    write_ptxas_tsv(&report, &ptxas_tsv_for(layout, "sm_90"))
}

/// The TSV of ptxas figures pinned for `sm` (`sm_90` → `regress/ptxas-sm90.tsv`).
pub fn ptxas_tsv_for(layout: &Layout, sm: &str) -> PathBuf {
    layout.resolve(format!("regress/ptxas-{}.tsv", sm.replace('_', "")))
}

/// Parses the `ptxas -v` report at `report` and writes its figures as TSV to `destination`
/// through a temporary file in the same folder, so a reader never sees half a table.
pub fn write_ptxas_tsv(report: &Path, destination: &Path) -> Result<()> {
    let text = std::fs::read_to_string(report).with_context(|| format!("reading {}", report.display()))?;
    let functions = regress::ptxas::parse(&text)
        .with_context(|| format!("{} is not a ptxas -v report", report.display()))?;
    write_file(destination, &regress::ptxas::to_tsv(&functions))?;
    eprintln!("{} functions from {} into {}", functions.len(), report.display(), destination.display());
    Ok(())
}
