//! `cargo xtask timing` (`just timing`): how compile time grows with kernel size.
//!
//! 1. The verifier sweep: the timing regression (`regress/tests/verifier_timing.rs`) in a
//!    release build with `VERIFIER_TIMING_SWEEP=full`, up to 102,400 blocks per generated scope,
//!    with its table and exponents.
//! 2. End to end: generated Rust kernels (`regress::kernel_source`) of 100 to 1,600 MIR blocks,
//!    each built as a kernels crate (rustc's front end, the plugin's verifier where the build
//!    goes through the driver, LLVM's NVPTX back end and the bitcode linker); the median build
//!    time per size, the verifier's share from the driver's verify report, and `ptxas` on the
//!    PTX where `ptxas` is on `PATH`. The growth exponent of each is fitted as in the
//!    regression, and the command fails when the whole build grows faster than N^1.25: a
//!    super-linear pass anywhere in the back end shows there.
//!
//! Scratch builds live under `target/xtask-scratch/timing/` (inside the repository, so the
//! pinned toolchain applies).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use regress::kernel_source::{ENTRY, KernelSource, story_kernel};
use regress::layout::{Layout, kernels_ptx_in};
use regress::timing::{Limit, Point, Series, check, exponent_field, table};

use crate::kernels::{entry_names, kernels_cargo};
use crate::process::{self, Steps};

/// Sizes of the generated kernels, in MIR blocks.
pub const KERNEL_SIZES: [usize; 5] = [100, 200, 400, 800, 1600];
/// Builds per size; the median counts.
const BUILD_RUNS: usize = 3;
/// Seed of the generated kernels.
const SEED: u64 = 0x7E57_5CA1E;
/// The whole build must not grow faster than this.
const LINEAR_LIMIT: f64 = 1.25;
/// The driver's report folder variable (see `plugin/driver`): where it writes per-crate
/// verify reports.
const REPORT_DIR_VAR: &str = "KERNELS_VERIFY_REPORT_DIR";

/// `just timing`.
pub fn timing(layout: &Layout) -> Result<()> {
    let mut steps = Steps::new(2);
    steps.step("verifier sweep: generated scopes up to 102,400 blocks (release build)", || {
        let mut command = process::cargo(layout.root());
        command.args(["test", "--release", "--test", "verifier_timing"]).env("VERIFIER_TIMING_SWEEP", "full");
        process::run(&mut command, "the verifier timing sweep")
    })?;
    steps.step("end to end: generated kernels of 100..1,600 blocks through the kernels build", || {
        end_to_end(layout, &KERNEL_SIZES, BUILD_RUNS)
    })?;
    steps.finish("timing");
    Ok(())
}

/// A scratch kernels crate for generated kernels.
pub struct TimingCrate {
    pub dir: PathBuf,
    pub target_dir: PathBuf,
    device_dir: PathBuf,
}

impl TimingCrate {
    /// A crate in `dir`, building into `dir/target`, with the repository's kernel target
    /// settings (`kernels/.cargo/config.toml`) and device API.
    pub fn create(layout: &Layout, dir: PathBuf) -> Result<TimingCrate> {
        let config_dir = dir.join(".cargo");
        std::fs::create_dir_all(config_dir.as_path())
            .and_then(|()| std::fs::create_dir_all(dir.join("src")))
            .with_context(|| format!("creating {}", dir.display()))?;
        let config = layout.kernels_workspace().join(".cargo").join("config.toml");
        std::fs::copy(&config, config_dir.join("config.toml"))
            .with_context(|| format!("copying {} into {}", config.display(), config_dir.display()))?;
        let device_dir = layout.kernels_workspace().join("src").join("device");
        Ok(TimingCrate { target_dir: dir.join("target"), dir, device_dir })
    }

    /// Writes the crate for a kernel of about `blocks` MIR blocks; returns its source.
    pub fn write(&self, blocks: usize, seed: u64) -> Result<KernelSource> {
        let source = story_kernel(blocks, seed, &self.device_dir);
        write_replacing(&self.dir.join("Cargo.toml"), &source.cargo_toml)?;
        write_replacing(&self.dir.join("src").join("lib.rs"), &source.lib_rs)?;
        Ok(source)
    }

    /// Where the build leaves the PTX.
    pub fn ptx(&self) -> PathBuf {
        kernels_ptx_in(&self.target_dir)
    }

    /// Where the driver leaves its verify reports for this crate.
    pub fn report_dir(&self) -> PathBuf {
        self.target_dir.join("verify-reports")
    }

    /// The build command: the kernels' cargo (build-std, nvptx target), release.
    pub fn command(&self) -> Command {
        let mut command = kernels_cargo(&self.dir);
        command.args(["build", "--release", "--quiet", "--target-dir"]).arg(&self.target_dir);
        command.env(REPORT_DIR_VAR, self.report_dir());
        command
    }

    /// Builds once; returns the wall time of the build.
    pub fn build(&self) -> Result<Duration> {
        let started = Instant::now();
        let status = self
            .command()
            .status()
            .with_context(|| format!("could not start cargo for {}", self.dir.display()))?;
        if !status.success() {
            bail!(
                "the generated kernel in {} did not compile ({status}); rustc's errors above name the line",
                self.dir.display()
            );
        }
        let elapsed = started.elapsed();
        let entries = entry_names(&self.ptx())?;
        if !entries.iter().any(|entry| entry == ENTRY) {
            bail!("{} has no `{ENTRY}` entry (entries: {entries:?})", self.ptx().display());
        }
        Ok(elapsed)
    }
}

/// Writes `text` to `path` through a temporary file in the same folder, renamed into place.
fn write_replacing(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().context("a file has a folder")?;
    let mut file =
        tempfile::NamedTempFile::new_in(dir).with_context(|| format!("writing in {}", dir.display()))?;
    std::io::Write::write_all(&mut file, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    file.persist(path).with_context(|| format!("renaming into {}", path.display()))?;
    Ok(())
}

/// What the driver's verify report says about the generated kernel, if it wrote one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VerifyFigures {
    pub blocks: usize,
    pub verify: Duration,
    pub compile: Duration,
}

/// Reads `<dir>/kernels.json` (the driver's report for the crate `kernels`), if present.
pub fn read_report(dir: &Path) -> Result<Option<VerifyFigures>> {
    let path = dir.join("kernels.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error).with_context(|| format!("reading {}", path.display())),
    };
    let report: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not a verify report", path.display()))?;
    let seconds = |key: &str| {
        report[key]
            .as_f64()
            .map(Duration::from_secs_f64)
            .with_context(|| format!("{} has no number `{key}`", path.display()))
    };
    let blocks = report["scopes"]
        .as_array()
        .and_then(|scopes| scopes.iter().find(|scope| scope["kernel"].as_str() == Some(ENTRY)))
        .and_then(|scope| scope["blocks"].as_u64())
        .with_context(|| format!("{} has no scope `{ENTRY}` with its block count", path.display()))?;
    Ok(Some(VerifyFigures {
        blocks: blocks as usize,
        verify: seconds("verify_seconds")?,
        compile: seconds("compile_seconds")?,
    }))
}

/// `ptxas` on `PATH`, if any.
fn find_ptxas() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("ptxas")).find(|candidate| candidate.is_file())
}

/// Times `ptxas -arch=sm_90` on `ptx`.
fn time_ptxas(ptxas: &Path, ptx: &Path, out: &Path) -> Result<Duration> {
    let started = Instant::now();
    let mut command = Command::new(ptxas);
    command.arg("-arch=sm_90").arg(ptx).arg("-o").arg(out);
    process::run(&mut command, "ptxas")?;
    Ok(started.elapsed())
}

/// The end-to-end part: builds generated kernels of each size `runs` times and prints the
/// table and the fitted exponents. Fails when the whole build grows faster than N^1.25.
pub fn end_to_end(layout: &Layout, sizes: &[usize], runs: usize) -> Result<()> {
    let krate = TimingCrate::create(layout, layout.root().join("target/xtask-scratch/timing/kernels"))?;
    eprintln!("warming up: building `core` for nvptx and a first kernel");
    krate.write(sizes[0], SEED)?;
    krate.build()?;

    let ptxas = find_ptxas();
    let mut build = Series::new("build");
    let mut verify = Series::new("verify");
    let mut ptxas_series = Series::new("ptxas");
    let mut shares = Vec::new();
    for (i, size) in sizes.iter().enumerate() {
        let source = krate.write(*size, SEED)?;
        let mut point = Point { size: *size, samples: Vec::new() };
        let mut verify_point = Point { size: *size, samples: Vec::new() };
        let mut ptxas_point = Point { size: *size, samples: Vec::new() };
        let mut imported_blocks = None;
        for run in 0..runs {
            // Rewrite the source so that cargo rebuilds the crate (and only the crate).
            krate.write(*size, SEED)?;
            eprintln!("[{}/{}] {size} blocks, build {}/{runs}", i + 1, sizes.len(), run + 1);
            point.samples.push(krate.build()?);
            if let Some(figures) = read_report(&krate.report_dir())? {
                verify_point.samples.push(figures.verify);
                shares.push((*size, figures.verify.as_secs_f64() / figures.compile.as_secs_f64().max(1e-9)));
                imported_blocks = Some(figures.blocks);
            }
            if let Some(ptxas) = &ptxas {
                let out = krate.target_dir.join("timing.cubin");
                ptxas_point.samples.push(time_ptxas(ptxas, &krate.ptx(), &out)?);
            }
        }
        eprintln!(
            "  {size} blocks requested, {} estimated from the source, {} imported by the driver",
            source.estimated_blocks,
            imported_blocks.map_or("none".to_string(), |b| b.to_string())
        );
        build.points.push(point);
        if !verify_point.samples.is_empty() {
            verify.points.push(verify_point);
        }
        if !ptxas_point.samples.is_empty() {
            ptxas_series.points.push(ptxas_point);
        }
    }

    let mut all = vec![build.clone()];
    if !verify.points.is_empty() {
        all.push(verify.clone());
    }
    if !ptxas_series.points.is_empty() {
        all.push(ptxas_series.clone());
    }
    println!(
        "\nend to end: generated kernels, median of {runs} builds (wall time of `cargo build --release`)"
    );
    print!("{}", table("blocks", &all));
    if verify.points.is_empty() {
        println!(
            "verifier share: no verify report (the build did not go through the plugin driver, which writes \
             {REPORT_DIR_VAR}/kernels.json)"
        );
    } else {
        for (size, share) in &shares {
            println!("verifier share at {size} blocks: {:.2}% of the crate's compile", share * 100.0);
        }
    }
    if ptxas.is_none() {
        println!("ptxas: not on PATH, not timed");
    }
    let last = *sizes.last().unwrap_or(&0);
    let share_at_last = shares.iter().rev().find(|(size, _)| *size == last).map(|(_, share)| *share);
    println!(
        "e2e: build_exp={} verify_exp={} ptxas_exp={} verify_share_at_{last}={}",
        exponent_field(build.exponent()),
        if verify.points.is_empty() { "nan".to_string() } else { exponent_field(verify.exponent()) },
        if ptxas_series.points.is_empty() {
            "nan".to_string()
        } else {
            exponent_field(ptxas_series.exponent())
        },
        share_at_last.map_or("nan".to_string(), |share| format!("{share:.4}")),
    );
    let mut breaches = vec![check(&build, Limit::AtMost(LINEAR_LIMIT))];
    if !verify.points.is_empty() {
        breaches.push(check(&verify, Limit::AtMost(LINEAR_LIMIT)));
    }
    if !ptxas_series.points.is_empty() {
        breaches.push(check(&ptxas_series, Limit::AtMost(LINEAR_LIMIT)));
    }
    let breaches: Vec<String> = breaches.into_iter().flatten().map(|breach| breach.to_string()).collect();
    if !breaches.is_empty() {
        bail!("the kernel build is super-linear in kernel size:\n  {}", breaches.join("\n  "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_driver_report_gives_the_kernels_blocks_and_times_and_a_missing_one_gives_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_report(dir.path()).unwrap(), None);
        let report = r#"{"crate": "kernels", "import_seconds": 0.1, "verify_seconds": 0.25,
            "compile_seconds": 5.0, "scopes": [{"kernel": "timing_story", "blocks": 812}]}"#;
        std::fs::write(dir.path().join("kernels.json"), report).unwrap();
        let figures = read_report(dir.path()).unwrap().unwrap();
        assert_eq!(figures.blocks, 812);
        assert_eq!(figures.verify, Duration::from_millis(250));
        assert_eq!(figures.compile, Duration::from_secs(5));
        std::fs::write(dir.path().join("kernels.json"), r#"{"scopes": []}"#).unwrap();
        let error = read_report(dir.path()).unwrap_err();
        assert!(format!("{error:#}").contains("verify_seconds"), "{error:#}");
    }
}
