//! `cargo xtask timing` (`just timing`): how compile time grows with kernel size.
//!
//! 1. The verifier sweep: the timing regression (`regress/tests/verifier_timing.rs`) in a
//!    release build with `VERIFIER_TIMING_SWEEP=full`, up to 102,400 blocks per generated scope,
//!    with its table and exponents.
//! 2. End to end: generated Rust kernels (`regress::kernel_source`) of 100 to 1,600 MIR blocks,
//!    each built as a kernels crate (rustc's front end, the plugin's verifier where the build
//!    goes through the driver, LLVM's NVPTX back end and the bitcode linker); the median build
//!    time per size, the verifier's share from the driver's verify report, and `ptxas` on the
//!    PTX where `ptxas` is on `PATH`. The growth of each is fitted as in the regression
//!    (`time = a + b·N^k`, the baseline kernel measured as size 0 pinning the fixed cost `a`,
//!    with a bootstrap interval for `k`), and the command fails when an interval lies wholly
//!    above N^1.25: a super-linear pass anywhere in the back end shows there.
//!
//! Scratch builds live under `target/xtask-scratch/timing/` (inside the repository, so the
//! pinned toolchain applies).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use regress::kernel_source::{ENTRY, KernelSource, story_kernel};
use regress::layout::Layout;
use regress::timing::{Growth, Limit, Point, Series, check, exponent_field, interval_field, table};

use crate::atomic::write_file;
use crate::kernels::{KernelBuild, entry_names};
use crate::process::{self, Steps};

/// Sizes of the generated kernels, in MIR blocks.
pub const KERNEL_SIZES: [usize; 5] = [100, 200, 400, 800, 1600];
/// Builds per size; the median counts.
const BUILD_RUNS: usize = 5;
/// Seed of the generated kernels.
const SEED: u64 = 0x7E57_5CA1E;
/// The whole build must not grow faster than this.
const LINEAR_LIMIT: f64 = 1.25;

/// `just timing`.
pub fn timing(layout: &Layout, end_to_end_only: bool) -> Result<()> {
    let mut steps = Steps::new(if end_to_end_only { 1 } else { 2 });
    if !end_to_end_only {
        steps.step("verifier sweep: generated scopes up to 102,400 blocks (release build)", || {
            let (variable, probes) = verifier_probes(layout)?;
            let mut command = process::cargo(layout.root());
            command
                .args(["test", "--release", "--test", "verifier_timing"])
                .env("VERIFIER_TIMING_SWEEP", "full")
                .env(variable, probes);
            process::run(&mut command, "the verifier timing sweep")
        })?;
    }
    steps.step("end to end: generated kernels of 100..1,600 blocks through the kernels build", || {
        end_to_end(layout, &KERNEL_SIZES, BUILD_RUNS)
    })?;
    steps.finish("timing");
    Ok(())
}

/// Runs of each scope [`phases`] times.
const PHASE_RUNS: usize = 3;

/// `just timing --phases BLOCKS`: the installed verifier's time on one generated scope of each
/// family, phase by phase (`verifier-probe phases`), so that work on its per-block cost starts
/// from where the time goes.
pub fn phases(layout: &Layout, blocks: usize) -> Result<()> {
    if blocks == 0 {
        bail!(
            "--phases needs a block count above zero (the timing regression's sizes run from 3,200 to 102,400)"
        );
    }
    let (_, dir) = verifier_probes(layout)?;
    let probe = dir.join(crate::verify_ir::PROBE);
    for family in ["story", "guard"] {
        let output = Command::new(&probe)
            .args(["phases", family, &blocks.to_string(), &PHASE_RUNS.to_string()])
            .output()
            .with_context(|| format!("running {}", probe.display()))?;
        if !output.status.success() {
            bail!(
                "{} phases {family} failed ({}): {}",
                probe.display(),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        println!("{}", String::from_utf8_lossy(&output.stdout));
    }
    Ok(())
}

/// The variable naming the folder of the verifier builds the timing regression times, and
/// that folder: the installed default backend, once `check-backend` accepts it.
pub fn verifier_probes(layout: &Layout) -> Result<(&'static str, PathBuf)> {
    let installed = crate::backend::check_backend(layout, crate::backend::DEFAULT_BACKEND)?;
    Ok(("KERNELS_VERIFIER_PROBES", installed.dir))
}

/// A scratch kernels crate for generated kernels.
pub struct TimingCrate {
    device_dir: PathBuf,
    /// The guarded build of the crate's folder into its `target`: the installed default
    /// backend's driver compiles the crate.
    build: KernelBuild,
}

impl TimingCrate {
    /// A crate in `dir`, building into `dir/target` through the guard (the kernel target
    /// settings generated from their table, the default backend checked), with the
    /// repository's device API.
    pub fn create(layout: &Layout, dir: PathBuf) -> Result<TimingCrate> {
        std::fs::create_dir_all(dir.join("src")).with_context(|| format!("creating {}", dir.display()))?;
        let target_dir = dir.join("target");
        let build = KernelBuild::guarded(layout, dir, target_dir)?;
        let device_dir = layout.kernels_workspace().join("src").join("device");
        Ok(TimingCrate { device_dir, build })
    }

    /// The crate's folder.
    pub fn dir(&self) -> &Path {
        &self.build.workspace
    }

    /// The crate's target folder.
    pub fn target_dir(&self) -> &Path {
        &self.build.target_dir
    }

    /// Writes the crate for a kernel of about `blocks` MIR blocks; returns its source.
    pub fn write(&self, blocks: usize, seed: u64) -> Result<KernelSource> {
        let source = story_kernel(blocks, seed, &self.device_dir);
        write_file(&self.dir().join("Cargo.toml"), &source.cargo_toml)?;
        write_file(&self.dir().join("src").join("lib.rs"), &source.lib_rs)?;
        Ok(source)
    }

    /// Where the build leaves the PTX.
    pub fn ptx(&self) -> PathBuf {
        self.build.ptx()
    }

    /// Where `just timing` keeps the PTX of the kernel of `blocks` blocks (0: the baseline).
    pub fn kept_ptx(&self, blocks: usize) -> PathBuf {
        self.target_dir().join("timing-ptx").join(format!("blocks-{blocks}.ptx"))
    }

    /// Where the driver leaves its verify reports for this crate.
    pub fn report_dir(&self) -> PathBuf {
        crate::verify_report::report_dir(self.target_dir())
    }

    /// Builds once through `cargo rustc … -- -Ztime-passes`; returns rustc's own times for the
    /// crate (cargo's bookkeeping and the build-std `core`, fresh, are not in them) and the
    /// driver's verify report, where the build went through the driver.
    pub fn build(&self) -> Result<Built> {
        // Only this build's report may count: a build without the driver writes none.
        clear_report(&self.report_dir())?;
        let mut command = self.build.cargo();
        command.args(["rustc", "--release", "--quiet", "--target-dir"]).arg(self.target_dir());
        command.args(["--", "-Ztime-passes"]);
        let started = Instant::now();
        let output = command
            .output()
            .with_context(|| format!("could not start cargo for {}", self.dir().display()))?;
        let wall = started.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            eprintln!("{stderr}");
            bail!(
                "the generated kernel in {} did not compile ({}); rustc's errors above name the line",
                self.dir().display(),
                output.status
            );
        }
        let report = read_report(&self.report_dir())?;
        // The driver prints every pass but not rustc's `total`; its report's compile time is
        // its own process's, free of cargo's start-up, whose noise would swamp small kernels.
        let compile = report.map_or(wall, |figures| figures.compile);
        let times = CompileTimes::parse(&stderr, compile).with_context(|| {
            format!("rustc printed no `-Ztime-passes` times for {}", self.dir().display())
        })?;
        let entries = entry_names(&self.ptx())?;
        if !entries.iter().any(|entry| entry == ENTRY) {
            bail!("{} has no `{ENTRY}` entry (entries: {entries:?})", self.ptx().display());
        }
        Ok(Built { times, report })
    }
}

/// One build of the timing crate.
#[derive(Debug, Clone, Copy)]
pub struct Built {
    pub times: CompileTimes,
    /// The driver's report; `None` for a build that did not go through the driver.
    pub report: Option<VerifyFigures>,
}

/// rustc's times for one crate, from its `-Ztime-passes` lines (`time: 1.234; rss: … \tname`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompileTimes {
    /// The whole compile: front end, MIR passes (and the plugin's verifier), code generation
    /// and the link, where the llvm-bitcode-linker runs LLVM's NVPTX back end on the module.
    /// (The driver process's own time where the driver prints no total.)
    pub total: Duration,
    /// The link alone (`link_crate`).
    pub link: Duration,
}

impl CompileTimes {
    /// Reads the `total` and `link_crate` lines; `None` when there is no `time:` line at all.
    /// A rustc driver other than rustc's own (the plugin's `kernels-rustc`) prints every pass
    /// but not the `total`: then `compile`, the time of the compiler process, stands in for it.
    pub fn parse(stderr: &str, compile: Duration) -> Option<CompileTimes> {
        let mut total = None;
        let mut link = None;
        for line in stderr.lines() {
            let Some(rest) = line.strip_prefix("time:") else { continue };
            let Some((seconds, _)) = rest.split_once(';') else { continue };
            let Ok(seconds) = seconds.trim().parse::<f64>() else { continue };
            match line.rsplit('\t').next().map(str::trim) {
                Some("total") => total = Some(Duration::from_secs_f64(seconds)),
                Some("link_crate") => link = Some(Duration::from_secs_f64(seconds)),
                _ => {}
            }
        }
        match (total, link) {
            (None, None) => None,
            (total, link) => {
                Some(CompileTimes { total: total.unwrap_or(compile), link: link.unwrap_or_default() })
            }
        }
    }

    /// Everything before the link.
    pub fn front(&self) -> Duration {
        self.total.saturating_sub(self.link)
    }
}

/// What the driver's verify report says about the generated kernel, if it wrote one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VerifyFigures {
    pub blocks: usize,
    pub verify: Duration,
    pub compile: Duration,
}

/// Removes `<dir>/kernels.json`, if present, so that a stale report cannot pass for a new one.
pub fn clear_report(dir: &Path) -> Result<()> {
    let path = dir.join("kernels.json");
    match std::fs::remove_file(&path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(error).with_context(|| format!("removing the old report {}", path.display()))
        }
        _ => Ok(()),
    }
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

/// Times `ptxas -arch=sm_90a` on `ptx` (the kernels' target, `xtask/src/host_config.rs`).
fn time_ptxas(ptxas: &Path, ptx: &Path, out: &Path) -> Result<Duration> {
    let started = Instant::now();
    let mut command = Command::new(ptxas);
    command.arg("-arch=sm_90a").arg(ptx).arg("-o").arg(out);
    process::run(&mut command, "ptxas")?;
    Ok(started.elapsed())
}

/// Timings of one quantity: at the baseline kernel (the frame alone) and at each size.
struct Measured {
    name: &'static str,
    baseline: Point,
    series: Series,
}

impl Measured {
    fn new(name: &'static str, sizes: &[usize]) -> Measured {
        Measured { name, baseline: Point { size: 0, samples: Vec::new() }, series: empty_series(name, sizes) }
    }

    fn record(&mut self, slot: Option<usize>, sample: Duration) {
        match slot {
            None => self.baseline.samples.push(sample),
            Some(i) => self.series.points[i].samples.push(sample),
        }
    }

    fn measured(&self) -> bool {
        self.series.points.iter().any(|point| !point.samples.is_empty())
    }

    /// The series with the baseline as its size-0 point: what the fit reads the fixed cost
    /// (the compile of `core`'s bitcode in the link, the device API, process start-up) from,
    /// instead of subtracting it from each size first.
    fn with_baseline(&self) -> Series {
        let mut series = Series::new(self.name);
        series.points =
            std::iter::once(self.baseline.clone()).chain(self.series.points.iter().cloned()).collect();
        series
    }
}

/// A series named `name` with one point per size and no samples yet.
fn empty_series(name: &str, sizes: &[usize]) -> Series {
    let mut series = Series::new(name);
    series.points = sizes.iter().map(|size| Point { size: *size, samples: Vec::new() }).collect();
    series
}

/// The end-to-end part: builds the baseline kernel and generated kernels of each size, `runs`
/// rounds interleaved, and prints the table and the fitted exponents with their intervals. The
/// fit has an intercept, pinned by the baseline kernel (size 0): the fixed cost is the same at
/// every size and would flatten a fit without one, and subtracting it first would leave the
/// small sizes as noise. Fails when the compile or the verifier grows wholly above N^1.25.
pub fn end_to_end(layout: &Layout, sizes: &[usize], runs: usize) -> Result<()> {
    let krate = TimingCrate::create(layout, layout.root().join("target/xtask-scratch/timing/kernels"))?;
    eprintln!("warming up: building `core` for nvptx and the baseline kernel");
    krate.write(0, SEED)?;
    krate.build()?;

    let ptxas = crate::shapes::on_path("ptxas");
    let mut total = Measured::new("rustc", sizes);
    let mut front = Measured::new("front end", sizes);
    let mut link = Measured::new("link (LLVM)", sizes);
    let mut ptxas_times = Measured::new("ptxas", sizes);
    let mut verify = empty_series("verify", sizes);
    let mut imported = vec![None; sizes.len()];
    let slots: Vec<(Option<usize>, usize)> = std::iter::once((None, 0))
        .chain(sizes.iter().enumerate().map(|(i, size)| (Some(i), *size)))
        .collect();
    for run in 0..runs {
        for (slot, size) in &slots {
            eprintln!("build {}/{runs}: kernel of {size} blocks", run + 1);
            krate.write(*size, SEED)?;
            let built = krate.build()?;
            let times = built.times;
            total.record(*slot, times.total);
            front.record(*slot, times.front());
            link.record(*slot, times.link);
            if let Some(ptxas) = &ptxas {
                let out = krate.target_dir().join("timing.cubin");
                ptxas_times.record(*slot, time_ptxas(ptxas, &krate.ptx(), &out)?);
            }
            if run == 0 {
                // Keep each size's PTX, for ptxas on a machine that has it.
                let kept = krate.kept_ptx(*size);
                std::fs::create_dir_all(kept.parent().context("a file has a folder")?)?;
                std::fs::copy(krate.ptx(), &kept).with_context(|| format!("keeping {}", kept.display()))?;
            }
            if let (Some(i), Some(figures)) = (slot, built.report) {
                verify.points[*i].samples.push(figures.verify);
                imported[*i] = Some(figures.blocks);
            }
        }
    }

    let mut measured = vec![&total, &front, &link];
    if ptxas_times.measured() {
        measured.push(&ptxas_times);
    }
    println!(
        "\nend to end: generated kernels, median of {runs} compiles (rustc -Ztime-passes; ptxas wall time)"
    );
    let fitted: Vec<Series> = measured.iter().map(|m| m.with_baseline()).collect();
    println!("(size 0: the baseline kernel, the frame with no rounds; the fit's intercept)");
    print!("{}", table("blocks", &fitted));
    let growths: Vec<Option<Growth>> = fitted.iter().map(Series::growth).collect();
    for (series, growth) in fitted.iter().zip(&growths) {
        if let Some(growth) = growth {
            println!(
                "{}: fixed cost {} ms (fitted; the baseline's median is {} ms)",
                series.name,
                regress::timing::millis(growth.intercept),
                regress::timing::millis(series.points[0].median())
            );
        }
    }
    for (i, size) in sizes.iter().enumerate() {
        if let Some(blocks) = imported[i] {
            println!("kernel of {size} blocks: {blocks} blocks imported by the driver");
        }
    }
    let verified = verify.points.iter().all(|point| !point.samples.is_empty());
    // The verifier's median over the crate's compile's, per size.
    let shares: Vec<(usize, f64)> = if verified {
        verify
            .points
            .iter()
            .zip(&total.series.points)
            .map(|(point, rustc)| {
                (point.size, point.median().as_secs_f64() / rustc.median().as_secs_f64().max(1e-9))
            })
            .collect()
    } else {
        Vec::new()
    };
    if verified {
        print!("{}", table("blocks", std::slice::from_ref(&verify)));
        for (size, share) in &shares {
            println!(
                "verifier share at {size} blocks: {:.3}% of the crate's compile (medians)",
                share * 100.0
            );
        }
    } else {
        println!(
            "verifier share: no verify report (the driver writes one per crate into {}; was the \
             build run through kernels-rustc?)",
            krate.report_dir().display()
        );
    }
    if ptxas.is_none() {
        println!(
            "ptxas: not on PATH, not timed; the PTX of each size is kept in {}",
            krate.kept_ptx(0).parent().map(Path::display).map(|d| d.to_string()).unwrap_or_default()
        );
    }
    let last = *sizes.last().unwrap_or(&0);
    let verify_growth = if verified { verify.growth() } else { None };
    let fields =
        |growth: Option<&Growth>| (exponent_field(growth.map(|g| g.exponent)), interval_field(growth));
    let field = |i: usize| fields(growths.get(i).and_then(Option::as_ref));
    let [(rustc, rustc_ci), (front, front_ci), (link, link_ci), (ptxas_exp, ptxas_ci)] =
        [field(0), field(1), field(2), field(3)];
    let (verify_exp, verify_ci) = fields(verify_growth.as_ref());
    println!(
        "e2e: rustc_exp={rustc} rustc_ci={rustc_ci} front_exp={front} front_ci={front_ci} link_exp={link} \
         link_ci={link_ci} verify_exp={verify_exp} verify_ci={verify_ci} ptxas_exp={ptxas_exp} ptxas_ci={ptxas_ci} \
         verify_share_at_{last}={}",
        shares.last().map_or("nan".to_string(), |(_, share)| format!("{share:.4}")),
    );
    let mut breaches = Vec::new();
    // A quantity that cannot be fitted (a link rustc did not time, say) has no growth to judge.
    for (series, growth) in fitted.iter().zip(&growths) {
        if growth.is_some() {
            breaches.extend(check(series, Limit::AtMost(LINEAR_LIMIT)));
        }
    }
    if verified {
        breaches.extend(check(&verify, Limit::AtMost(LINEAR_LIMIT)));
    }
    if !breaches.is_empty() {
        let lines: Vec<String> = breaches.iter().map(|breach| breach.to_string()).collect();
        bail!("the kernel build is super-linear in kernel size:\n  {}", lines.join("\n  "));
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
        clear_report(dir.path()).unwrap();
        assert_eq!(read_report(dir.path()).unwrap(), None, "a cleared report is gone");
        clear_report(dir.path()).unwrap();
        std::fs::write(dir.path().join("kernels.json"), report).unwrap();
        assert_eq!(figures.verify, Duration::from_millis(250));
        assert_eq!(figures.compile, Duration::from_secs(5));
        std::fs::write(dir.path().join("kernels.json"), r#"{"scopes": []}"#).unwrap();
        let error = read_report(dir.path()).unwrap_err();
        assert!(format!("{error:#}").contains("no scope `timing_story`"), "{error:#}");
        let no_times = r#"{"scopes": [{"kernel": "timing_story", "blocks": 3}]}"#;
        std::fs::write(dir.path().join("kernels.json"), no_times).unwrap();
        let error = read_report(dir.path()).unwrap_err();
        assert!(format!("{error:#}").contains("no number `verify_seconds`"), "{error:#}");
    }

    #[test]
    fn time_passes_give_the_total_and_the_link() {
        let stderr = "warning: unstable feature\n\
            time:   0.024; rss:   73MB ->  100MB (  +26MB)\ttype_check_crate\n\
            time:   6.421; rss:  116MB ->  117MB (   +1MB)\tlink_crate\n\
            time:   6.785; rss:   27MB ->   96MB (  +69MB)\ttotal\n";
        let wall = Duration::from_secs(9);
        let times = CompileTimes::parse(stderr, wall).unwrap();
        assert_eq!(times.total, Duration::from_secs_f64(6.785));
        assert_eq!(times.link, Duration::from_secs_f64(6.421));
        assert_eq!(times.front(), Duration::from_secs_f64(6.785) - Duration::from_secs_f64(6.421));
        // The plugin's driver prints no total: the compiler process's time stands in.
        let times = CompileTimes::parse("time:   1.0; rss: 1MB\tlink_crate\n", wall).unwrap();
        assert_eq!((times.total, times.link), (wall, Duration::from_secs(1)));
        assert_eq!(CompileTimes::parse("warning: nothing timed\n", wall), None);
    }

    #[test]
    fn the_baseline_is_the_size_0_point_and_pins_the_fixed_cost() {
        let ms = Duration::from_millis;
        let mut m = Measured::new("rustc", &[100, 200, 400, 800]);
        m.record(None, ms(1000));
        for (i, extra) in [50u64, 100, 200, 400].iter().enumerate() {
            m.record(Some(i), ms(1000 + extra));
        }
        let series = m.with_baseline();
        let sizes: Vec<usize> = series.points.iter().map(|p| p.size).collect();
        assert_eq!(sizes, vec![0, 100, 200, 400, 800]);
        let growth = series.growth().unwrap();
        assert!((growth.exponent - 1.0).abs() < 1e-3, "{growth:?}");
        assert!((growth.intercept.as_secs_f64() - 1.0).abs() < 1e-3, "{growth:?}");
    }
}
