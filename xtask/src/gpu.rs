//! `cargo xtask gpu`: build the kernels and the GPU runner, then run every kernel on the GPU
//! (or leave a bundle for a GPU machine without Rust); `--compare OLD NEW` does the same for two
//! builds of the module, side by side (`gpu-runner --compare`); `cargo xtask ptxas-tsv`: turn a
//! captured `ptxas -v` report into `regress/ptxas-sm90.tsv`.
//!
//! A run here leaves its JSON where `just report` looks for it: `Layout::last_gpu_run` and
//! `Layout::last_gpu_compare`.

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

/// The two modules of a comparison.
#[derive(Debug, Clone)]
pub struct ModulePair {
    pub old: PathBuf,
    pub new: PathBuf,
}

/// The runner binary cargo leaves in the host workspace's target folder.
fn runner_binary(layout: &Layout) -> PathBuf {
    layout.root().join("target").join("release").join("gpu-runner")
}

/// `just gpu`: kernels, runner, then the run (arguments after `--` go to the runner; its JSON
/// goes to `Layout::last_gpu_run` unless they name `--json`). With `compare`, no kernels are
/// built: the runner compares the two given modules (`Layout::last_gpu_compare`). With `bundle`, the runner and its
/// inputs are copied into that folder instead, for a GPU machine without Rust, with the
/// command to run there in `run.sh`.
pub fn gpu(
    layout: &Layout,
    bundle: Option<&Path>,
    compare: Option<&ModulePair>,
    runner_args: &[String],
) -> Result<()> {
    let mut steps = Steps::new(if compare.is_some() { 2 } else { 3 });
    let ptx = match compare {
        Some(_) => None,
        None => Some(steps.step("kernels (nvptx64, sm_90a)", || KernelBuild::of_repository(layout)?.run())?),
    };
    steps.step("GPU runner (release)", || build_runner(layout))?;
    let runner = runner_binary(layout);
    let peer = layout.resolve(PEER_SCRIPT);
    match (bundle, compare, &ptx) {
        (Some(folder), Some(pair), _) => steps
            .step("bundle for a GPU machine", || bundle_compare(layout, &layout.resolve(folder), pair))?,
        (Some(folder), None, Some(ptx)) => steps.step("bundle for a GPU machine", || {
            let mut files = vec![
                (runner.clone(), "gpu-runner".to_owned()),
                (ptx.clone(), "kernels.ptx".to_owned()),
                (peer.clone(), "peer_timings.py".to_owned()),
            ];
            files.extend(verify_report_files(&layout.verify_reports_dir(), BUNDLED_VERIFY_REPORTS)?);
            let files: Vec<(&Path, &str)> =
                files.iter().map(|(from, to)| (from.as_path(), to.as_str())).collect();
            let command = format!(
                "./gpu-runner --ptx kernels.ptx --peer-script peer_timings.py \
                 --verify-reports {BUNDLED_VERIFY_REPORTS} --json last-run.json"
            );
            write_bundle(&layout.resolve(folder), &files, &command)
        })?,
        (None, Some(pair), _) => steps.step("both modules on the GPU (needs an NVIDIA GPU)", || {
            let mut command = std::process::Command::new(&runner);
            command.arg("--compare").arg(layout.resolve(&pair.old)).arg(layout.resolve(&pair.new));
            with_json(&mut command, layout.last_gpu_compare(), runner_args)?;
            process::run(command.args(runner_args), "the GPU comparison")
        })?,
        (None, None, Some(ptx)) => steps.step("every kernel on the GPU (needs an NVIDIA GPU)", || {
            let mut command = std::process::Command::new(&runner);
            command.arg("--ptx").arg(ptx).arg("--peer-script").arg(&peer);
            if !runner_args.iter().any(|a| a.starts_with("--verify-reports")) {
                command.arg("--verify-reports").arg(layout.verify_reports_dir());
            }
            with_json(&mut command, layout.last_gpu_run(), runner_args)?;
            process::run(command.args(runner_args), "the GPU run")
        })?,
        (_, None, None) => unreachable!("the kernels are built unless two modules are given"),
    }
    steps.finish("gpu");
    Ok(())
}

/// The folder of a bundle that holds the kernels build's verify reports.
const BUNDLED_VERIFY_REPORTS: &str = "verify-reports";

/// Each verify report (`*.json`) of the kernels build in `dir`, with its name under `into`: what
/// a bundle carries so that the runner prints the verifier's verdicts beside the GEMM sweep.
fn verify_report_files(dir: &Path, into: &str) -> Result<Vec<(PathBuf, String)>> {
    let listing = std::fs::read_dir(dir).with_context(|| {
        format!("no verify reports at {}: build the kernels with `just kernels`", dir.display())
    })?;
    let mut files = Vec::new();
    for entry in listing {
        let path = entry.with_context(|| format!("listing {}", dir.display()))?.path();
        if let Some(name) = path.file_name().and_then(|n| n.to_str()).filter(|n| n.ends_with(".json")) {
            files.push((path.clone(), format!("{into}/{name}")));
        }
    }
    if files.is_empty() {
        anyhow::bail!(
            "no verify report (*.json) in {}: build the kernels with `just kernels`",
            dir.display()
        );
    }
    files.sort();
    Ok(files)
}

/// `cargo build --release -p gpu-runner`.
pub fn build_runner(layout: &Layout) -> Result<()> {
    process::run(
        process::cargo(layout.root()).args(["build", "--release", "-p", "gpu-runner"]),
        "building gpu-runner",
    )
}

/// Adds `--json <path>` unless the runner's arguments name their own, creating its folder.
fn with_json(command: &mut std::process::Command, path: PathBuf, runner_args: &[String]) -> Result<()> {
    if runner_args.iter().any(|a| a == "--json" || a.starts_with("--json=")) {
        return Ok(());
    }
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    }
    command.arg("--json").arg(path);
    Ok(())
}

/// Leaves in `folder` the runner (built already: [`build_runner`]) and both modules, as
/// `old.ptx` and `new.ptx`, with `run.sh` running `gpu-runner --compare` there: what `just
/// bump-pin` leaves to carry to a GPU machine. Bring `compare.json` back and pass it to
/// `just report --gpu-compare`.
pub fn bundle_compare(layout: &Layout, folder: &Path, pair: &ModulePair) -> Result<()> {
    let (old, new) = (layout.resolve(&pair.old), layout.resolve(&pair.new));
    for ptx in [&old, &new] {
        if !ptx.is_file() {
            anyhow::bail!("{} is not a file: --compare takes two .ptx files (old, new)", ptx.display());
        }
    }
    let runner = runner_binary(layout);
    let files = [(runner.as_path(), "gpu-runner"), (old.as_path(), "old.ptx"), (new.as_path(), "new.ptx")];
    write_bundle(folder, &files, "./gpu-runner --compare old.ptx new.ptx --json compare.json")
}

/// Copies `files` into `folder` under their names and writes `run.sh`, which runs `command`
/// from its own folder.
fn write_bundle(folder: &Path, files: &[(&Path, &str)], command: &str) -> Result<()> {
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    for (from, name) in files {
        if let Some(parent) = folder.join(name).parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::copy(from, folder.join(name))
            .with_context(|| format!("copying {} into {}", from.display(), folder.display()))?;
    }
    let script = format!(
        "#!/bin/sh\n# Written by `cargo xtask gpu --bundle`: run on the GPU machine.\ncd \"$(dirname \"$0\")\" && {command} \"$@\"\n"
    );
    let run = folder.join("run.sh");
    write_file(&run, &script)?;
    let mut permissions =
        std::fs::metadata(&run).with_context(|| format!("reading {}", run.display()))?.permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&run, permissions)
        .with_context(|| format!("making {} executable", run.display()))?;
    eprintln!("bundle in {}: run `./run.sh` there (`{command}`)", folder.display());
    Ok(())
}

/// `cargo xtask ptxas-tsv`: parses a `ptxas -arch=sm_90a -v` report (default: the captured one
/// in `regress/fixtures/`) into `table` (default: `regress/ptxas-sm90.tsv`), written through a
/// temporary file.
pub fn ptxas_tsv(layout: &Layout, report: Option<&Path>, table: Option<&Path>) -> Result<()> {
    let report = layout.resolve(report.unwrap_or(Path::new(PTXAS_REPORT)));
    let table = table.map_or_else(|| ptxas_tsv_for(layout, "sm_90"), |t| layout.resolve(t));
    write_ptxas_tsv(&report, &table)
}

/// The TSV of ptxas figures pinned for `sm` (`sm_90` and its arch-specific `sm_90a` →
/// `regress/ptxas-sm90.tsv`: one GPU, one table).
pub fn ptxas_tsv_for(layout: &Layout, sm: &str) -> PathBuf {
    layout.resolve(format!("regress/ptxas-{}.tsv", sm.trim_end_matches('a').replace('_', "")))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compare_bundle_refuses_a_module_that_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("old.ptx"), "// old").unwrap();
        let layout = Layout::at(dir.path());
        let pair = ModulePair { old: "old.ptx".into(), new: "missing.ptx".into() };
        let error = bundle_compare(&layout, &dir.path().join("bundle"), &pair).unwrap_err().to_string();
        assert!(error.contains("missing.ptx") && error.contains("two .ptx files"), "{error}");
        assert!(!dir.path().join("bundle").exists(), "nothing is left behind");
    }

    #[test]
    fn a_bundle_carries_the_verify_reports_or_names_the_build_that_writes_them() {
        let dir = tempfile::tempdir().unwrap();
        let reports = dir.path().join("verify-reports");
        let error = verify_report_files(&reports, "verify-reports").unwrap_err().to_string();
        assert!(error.contains("verify-reports") && error.contains("just kernels"), "{error}");
        std::fs::create_dir_all(&reports).unwrap();
        std::fs::write(reports.join("notes.txt"), "").unwrap();
        assert!(verify_report_files(&reports, "verify-reports").is_err(), "no report among the files");
        std::fs::write(reports.join("kernels.json"), "{}").unwrap();
        let files = verify_report_files(&reports, "verify-reports").unwrap();
        assert_eq!(files, [(reports.join("kernels.json"), "verify-reports/kernels.json".to_owned())]);
        let folder = dir.path().join("bundle");
        write_bundle(&folder, &[(files[0].0.as_path(), files[0].1.as_str())], "true").unwrap();
        assert!(folder.join("verify-reports/kernels.json").is_file());
    }

    #[test]
    fn a_bundle_holds_its_files_and_an_executable_run_script() {
        let dir = tempfile::tempdir().unwrap();
        let (old, new) = (dir.path().join("a.ptx"), dir.path().join("b.ptx"));
        std::fs::write(&old, "// old").unwrap();
        std::fs::write(&new, "// new").unwrap();
        let folder = dir.path().join("bundle");
        let command = "./gpu-runner --compare old.ptx new.ptx --json compare.json";
        write_bundle(&folder, &[(old.as_path(), "old.ptx"), (new.as_path(), "new.ptx")], command).unwrap();
        assert_eq!(std::fs::read_to_string(folder.join("new.ptx")).unwrap(), "// new");
        let script = std::fs::read_to_string(folder.join("run.sh")).unwrap();
        assert!(script.starts_with("#!/bin/sh\n") && script.contains(command), "{script}");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(folder.join("run.sh")).unwrap().permissions(),
        );
        assert_eq!(mode & 0o111, 0o111, "run.sh is executable");
    }
}
