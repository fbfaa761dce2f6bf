//! `just shapes [--backend B] [--update [--reason "…"]]`: the PTX shapes of every kernel entry
//! of one backend's PTX against their pinned rows, and the re-pinning of moved rows. The
//! default backend's table is `regress/ptx-shapes.tsv`; `--backend cuda-oxide` builds the
//! cuda-oxide kernels (`cargo xtask kernels-oxide`) and checks `regress/ptx-shapes-cuda-oxide.tsv`.
//! One table per backend, because the two compilers give the same kernels different shapes and
//! each row should move only with its own compiler's output.
//!
//! Re-pinning is never silent: the reason comes from `--reason`, or is asked for on a terminal;
//! without either the command refuses (exit 70) before building anything. Where `ptxas` is on
//! the PATH, its `-v` report for the chosen sm is kept beside the build and its figures
//! (registers, barriers, spills, stack frame per function) are written to the backend's
//! `regress/ptxas-<sm>[-cuda-oxide].tsv`, the table `cargo xtask ptxas-tsv` makes from a
//! captured report.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use regress::layout::Layout;
use regress::ptx::program::Program;
use regress::shapes::{Finding, Pin, SHAPES_COMMAND, Shape, ShapeTable, today};

use crate::atomic::write_file;
use crate::backend::{DEFAULT_BACKEND, OXIDE_BACKEND};
use crate::kernels::KernelBuild;
use crate::refusal::Refused;

/// Which backend's PTX `shapes` builds and checks, each against its own table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ShapesBackend {
    /// rustc's nvptx backend: `kernels.ptx` against `regress/ptx-shapes.tsv`.
    #[default]
    Default,
    /// cuda-oxide: `kernels_oxide.ptx` against `regress/ptx-shapes-cuda-oxide.tsv`.
    CudaOxide,
}

impl ShapesBackend {
    /// The backend's name in backends.toml and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ShapesBackend::Default => DEFAULT_BACKEND,
            ShapesBackend::CudaOxide => OXIDE_BACKEND,
        }
    }

    /// The table of the backend's pinned shapes.
    pub fn table(self, layout: &Layout) -> PathBuf {
        match self {
            ShapesBackend::Default => layout.shapes_table(),
            ShapesBackend::CudaOxide => layout.oxide_shapes_table(),
        }
    }

    /// The command that checks this backend's table (`--update --reason` re-pins it).
    pub fn command(self) -> String {
        match self {
            ShapesBackend::Default => SHAPES_COMMAND.to_owned(),
            other => format!("{SHAPES_COMMAND} --backend {}", other.name()),
        }
    }

    /// Builds the backend's kernels and returns their PTX.
    fn build(self, layout: &Layout) -> Result<PathBuf> {
        match self {
            ShapesBackend::Default => KernelBuild::of_repository(layout)?.run(),
            ShapesBackend::CudaOxide => crate::kernels_oxide::kernels_oxide(layout),
        }
    }

    /// Where ptxas's `-v` report on the backend's PTX is kept.
    fn ptxas_report_dir(self, layout: &Layout) -> PathBuf {
        let dir = layout.root().join("target").join("shapes");
        match self {
            ShapesBackend::Default => dir,
            other => dir.join(other.name()),
        }
    }

    /// The backend's table of ptxas figures for `sm`: `regress/ptxas-sm90.tsv` for the default
    /// backend, `regress/ptxas-sm90-cuda-oxide.tsv` for cuda-oxide.
    pub fn ptxas_table(self, layout: &Layout, sm: &str) -> PathBuf {
        let default = crate::gpu::ptxas_tsv_for(layout, sm);
        match self {
            ShapesBackend::Default => default,
            other => {
                let stem = default.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                default.with_file_name(format!("{stem}-{}.tsv", other.name()))
            }
        }
    }
}

/// What `cargo xtask shapes` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct ShapesOptions {
    pub update: bool,
    pub reason: Option<String>,
    /// The sm ptxas compiles for, where ptxas is on the PATH (`sm_90`).
    pub sm: String,
    pub backend: ShapesBackend,
}

pub fn shapes(layout: &Layout, options: &ShapesOptions) -> Result<()> {
    let backend = options.backend;
    let table_path = backend.table(layout);
    let command = backend.command();
    let shown = table_path.strip_prefix(layout.root()).unwrap_or(&table_path).display().to_string();
    let mut reason = options.reason.clone().filter(|r| !r.trim().is_empty());
    if options.update && reason.is_none() && !std::io::stdin().is_terminal() {
        return Err(Refused(format!(
            "`{command} --update` re-pins rows of {shown} and needs the reason to write into each PIN line; \
             there is no terminal to ask on: pass `--reason \"why the shapes moved\"`"
        ))
        .into());
    }

    eprintln!("==> building the kernels ({} backend)", backend.name());
    let ptx = backend.build(layout)?;
    let text = std::fs::read_to_string(&ptx).with_context(|| format!("reading {}", ptx.display()))?;
    let program = Program::read(&text).with_context(|| format!("{} is not readable PTX", ptx.display()))?;
    let shapes = Shape::all(&program);
    let table = if table_path.exists() { read_table(&table_path)? } else { ShapeTable::empty() };
    let findings = table.check(&shapes);
    print_status(&shapes, &table, &findings);
    match record_ptxas(&backend.ptxas_report_dir(layout), on_path("ptxas").as_deref(), &ptx, &options.sm)? {
        Some(saved) => {
            eprintln!("==> ptxas report for {}: {}", options.sm, saved.display());
            crate::gpu::write_ptxas_tsv(&saved, &backend.ptxas_table(layout, &options.sm))?;
        }
        None => eprintln!(
            "==> ptxas is not on the PATH: no register, spill or stack-frame figures from ptxas here \
             (they are recorded on the GPU machine, where ptxas is installed)"
        ),
    }

    if findings.is_empty() {
        eprintln!("==> all {} kernel entries match their rows in {shown}", shapes.len());
        return Ok(());
    }
    if !options.update {
        bail!(
            "{} of {} kernel entries differ from {shown}; if intended, re-pin them with \
             `{command} --update --reason \"why\"`",
            findings.len(),
            shapes.len()
        );
    }
    if reason.is_none() {
        reason = Some(ask_reason(&findings)?);
    }
    let pin = Pin { date: today(), reason: reason.unwrap_or_default().trim().replace(['\t', '\n'], " ") };
    let updated = table.update(&shapes, &pin);
    write_file(&table_path, &updated.render_for(&command))?;
    eprintln!("==> re-pinned {} rows of {shown} with {pin}", findings.len());
    Ok(())
}

/// Reads and parses the shapes table at `path`.
pub fn read_table(path: &Path) -> Result<ShapeTable> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    ShapeTable::parse(&text).with_context(|| format!("{} is malformed", path.display()))
}

/// One line per kernel: pinned, moved (with the columns), new or gone.
fn print_status(shapes: &[Shape], table: &ShapeTable, findings: &[Finding]) {
    for shape in shapes {
        match findings.iter().find(|f| f.kernel() == shape.kernel) {
            None => {
                let pin = table.row(&shape.kernel).map(|row| row.pin.to_string()).unwrap_or_default();
                eprintln!("  {:<36} pinned   {pin}", shape.kernel);
            }
            Some(finding @ Finding::Unpinned { .. }) => {
                eprintln!("  {:<36} NEW      {finding}", shape.kernel)
            }
            Some(finding) => eprintln!("  {:<36} MOVED    {finding}", shape.kernel),
        }
    }
    for finding in findings.iter().filter(|f| matches!(f, Finding::Orphan { .. })) {
        eprintln!("  {:<36} GONE     {finding}", finding.kernel());
    }
}

fn ask_reason(findings: &[Finding]) -> Result<String> {
    let kernels: Vec<&str> = findings.iter().map(Finding::kernel).collect();
    eprint!("Reason for re-pinning {} ({}): ", kernels.len(), kernels.join(", "));
    std::io::stderr().flush().ok();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).context("reading the reason")?;
    if line.trim().is_empty() {
        return Err(Refused(
            "no reason given: nothing was re-pinned (pass `--reason \"…\"` or type one)".into(),
        )
        .into());
    }
    Ok(line)
}

/// `program` found in a folder of `$PATH`.
pub fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|candidate| candidate.is_file())
}

/// Runs `ptxas -arch=<sm> -v` on `ptx` and keeps its report in `out_dir/ptxas-<sm>.txt`,
/// returning that path; `None` where there is no ptxas to run.
pub fn record_ptxas(out_dir: &Path, ptxas: Option<&Path>, ptx: &Path, sm: &str) -> Result<Option<PathBuf>> {
    let Some(ptxas) = ptxas else { return Ok(None) };
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let cubin = tempfile::Builder::new().suffix(".cubin").tempfile_in(out_dir)?;
    let output = Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .arg("-v")
        .arg(ptx)
        .arg("-o")
        .arg(cubin.path())
        .output()
        .with_context(|| format!("could not start {}", ptxas.display()))?;
    let report =
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if !output.status.success() {
        bail!("{} -arch={sm} -v {} failed ({}):\n{report}", ptxas.display(), ptx.display(), output.status);
    }
    let saved = out_dir.join(format!("ptxas-{sm}.txt"));
    write_file(&saved, &report)?;
    eprint!("{report}");
    Ok(Some(saved))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn fake_ptxas(dir: &Path, script: &str) -> PathBuf {
        let path = dir.join("ptxas");
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn ptxas_is_run_for_the_chosen_sm_and_its_report_kept() {
        let dir = tempfile::tempdir().unwrap();
        let ptxas = fake_ptxas(dir.path(), r#"echo "ptxas info    : Used 22 registers ($1 $2)" >&2"#);
        let out = dir.path().join("out");
        let saved = record_ptxas(&out, Some(&ptxas), Path::new("k.ptx"), "sm_90").unwrap().unwrap();
        assert_eq!(saved, out.join("ptxas-sm_90.txt"));
        assert_eq!(
            std::fs::read_to_string(saved).unwrap(),
            "ptxas info    : Used 22 registers (-arch=sm_90 -v)\n"
        );
        assert_eq!(record_ptxas(&out, None, Path::new("k.ptx"), "sm_90").unwrap(), None);
    }

    #[test]
    fn each_backend_has_its_own_tables_and_command() {
        let layout = Layout::at("/repo");
        let (default, oxide) = (ShapesBackend::Default, ShapesBackend::CudaOxide);
        assert_eq!(default.table(&layout), layout.shapes_table());
        assert_eq!(oxide.table(&layout), layout.oxide_shapes_table());
        assert_eq!(default.ptxas_table(&layout, "sm_90a"), layout.ptxas_table());
        assert_eq!(oxide.ptxas_table(&layout, "sm_90a"), layout.oxide_ptxas_table());
        assert_ne!(default.ptxas_report_dir(&layout), oxide.ptxas_report_dir(&layout));
        assert_eq!(default.command(), "just shapes");
        assert_eq!(oxide.command(), "just shapes --backend cuda-oxide");
    }

    #[test]
    fn a_failing_ptxas_is_an_error_with_its_output() {
        let dir = tempfile::tempdir().unwrap();
        let ptxas = fake_ptxas(dir.path(), r#"echo "ptxas fatal   : bad PTX" >&2; exit 1"#);
        let error = record_ptxas(dir.path(), Some(&ptxas), Path::new("k.ptx"), "sm_90").unwrap_err();
        assert!(format!("{error:#}").contains("ptxas fatal   : bad PTX"), "{error:#}");
    }
}
