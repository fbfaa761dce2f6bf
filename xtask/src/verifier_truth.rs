//! `cargo xtask verifier-truth`: the verifier corpus (`plugin/driver/tests/corpus/`) built in
//! report mode, its verdicts judged against `expected.toml`, then every corpus kernel run on the
//! GPU by `corpus-truth` (or, with `--bundle DIR`, everything that run needs copied into a
//! folder for a GPU machine without Rust).
//!
//! [`build_corpus`] is also what the verdict test (`plugin/driver/tests/corpus.rs`) builds
//! with, through the driver it was built with.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use corpus_truth::expected::Corpus;
use corpus_truth::judge::{KnownMisjudged, Ratchet, confusion_matrix, judge, verdicts};
use plugin::build_report::{CrateReport, MODE_VAR, STRUCTURE_VAR};
use regress::layout::Layout;

use crate::kernels::KernelBuild;
use crate::process::{self, Steps};
use crate::verify_report;

/// The corpus workspace, from the repository root.
pub const CORPUS: &str = "plugin/driver/tests/corpus";
/// The corpus crate's package name, and its name in reports and PTX file names.
pub const PACKAGE: &str = "verifier-corpus";
pub const CRATE: &str = "verifier_corpus";

/// A report-mode build of the corpus.
#[derive(Debug, Clone)]
pub struct CorpusBuild {
    pub report: CrateReport,
    pub report_path: PathBuf,
    pub ptx: PathBuf,
    pub seconds: f64,
}

/// Builds the corpus at `corpus` into `target_dir` in report mode with the cargo commands
/// `cargo` makes (in the corpus folder, the driver as workspace wrapper). The corpus crate is
/// cleaned first: cargo does not notice a changed driver, and a crate found fresh would
/// neither run the driver nor write a report.
pub fn build_corpus(cargo: impl Fn() -> Command, target_dir: &Path) -> Result<CorpusBuild> {
    let reports = verify_report::report_dir(target_dir);
    let mut clean = cargo();
    clean.args(["clean", "--release", "-p", PACKAGE, "--target-dir"]).arg(target_dir);
    process::run(&mut clean, "cleaning the corpus crate")?;
    let _ = std::fs::remove_file(reports.join(format!("{CRATE}.json")));
    let started = Instant::now();
    let mut build = cargo();
    build
        .args(["build", "--release", "--target-dir"])
        .arg(target_dir)
        .env(MODE_VAR, "report")
        // The import's output on every corpus kernel is held to pliron's structural verifier.
        .env(STRUCTURE_VAR, "check")
        .env(verify_report::REPORT_DIR_VAR, &reports);
    process::run(&mut build, "building the verifier corpus in report mode")?;
    let seconds = started.elapsed().as_secs_f64();
    let report_path = reports.join(format!("{CRATE}.json"));
    let text = std::fs::read_to_string(&report_path)
        .with_context(|| format!("the corpus build wrote no report at {}", report_path.display()))?;
    let report: CrateReport = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a crate report", report_path.display()))?;
    let ptx = target_dir.join("nvptx64-nvidia-cuda/release").join(format!("{CRATE}.ptx"));
    if !ptx.is_file() {
        bail!("the corpus build reported success but left no PTX at {}", ptx.display());
    }
    Ok(CorpusBuild { report, report_path, ptx, seconds })
}

/// The corpus's ratchet of known misjudgments.
pub fn known_misjudged_path(layout: &Layout) -> PathBuf {
    layout.resolve(CORPUS).join("known-misjudged.toml")
}

/// Which crate `just verifier-truth` builds and judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TruthCorpus<'a> {
    /// The verifier corpus ([`CORPUS`]), held to its ratchet of known misjudgments.
    Verifier,
    /// Another crate with the corpus's contract and an `expected.toml` (a blind round).
    Round(&'a Path),
}

/// `just verifier-truth`: build, judge, then run on the GPU or bundle.
pub fn verifier_truth(
    layout: &Layout,
    corpus: TruthCorpus<'_>,
    bundle: Option<&Path>,
    runner_args: &[String],
) -> Result<()> {
    let root = layout.root();
    let mut steps = Steps::new(4);
    let folder = match corpus {
        TruthCorpus::Verifier => layout.resolve(CORPUS),
        TruthCorpus::Round(crate_folder) => layout.resolve(crate_folder),
    };
    let expected = folder.join("expected.toml");
    if !expected.is_file() {
        bail!(
            "{} holds no expected.toml: a corpus folder is a crate with the corpus's contract and an expected.toml beside its Cargo.toml",
            folder.display()
        );
    }
    // One target folder per corpus crate: each is its own workspace with the same package name.
    let target = match corpus {
        TruthCorpus::Verifier => root.join("target/verifier-corpus"),
        TruthCorpus::Round(_) => {
            root.join("target/verifier-truth").join(folder.file_name().unwrap_or_default())
        }
    };
    let built = steps.step("the corpus, through the installed driver in report mode", || {
        let kernel_build = KernelBuild::guarded(layout, folder.clone(), target.clone())?;
        build_corpus(|| kernel_build.cargo(), &target)
    })?;
    eprintln!("corpus build: {:.1} s, {} kernel scopes", built.seconds, built.report.scopes.len());
    steps.step("the verdicts against expected.toml", || {
        let corpus_expectations = Corpus::read(&expected)?;
        let (judgements, unexpected) = judge(&corpus_expectations, &verdicts(&built.report));
        println!("{}", confusion_matrix(&judgements));
        // The ratchet of known misjudgments belongs to the corpus; a blind round has none.
        if corpus == TruthCorpus::Verifier {
            let known = KnownMisjudged::read(&known_misjudged_path(layout))?;
            let ratchet = Ratchet::of(&judgements, unexpected, &known);
            if !ratchet.holds() {
                eprintln!("the ratchet of known misjudgments does not hold:\n{}", ratchet.explain());
            }
        }
        Ok(())
    })?;
    steps.step("corpus-truth (release)", || {
        process::run(
            process::cargo(root).args(["build", "--release", "-p", "corpus-truth"]),
            "building corpus-truth",
        )
    })?;
    let program = root.join("target/release/corpus-truth");
    match bundle {
        Some(folder) => steps.step("bundle for a GPU machine", || {
            let folder = layout.resolve(folder);
            std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
            for (from, name) in [
                (&program, "corpus-truth"),
                (&built.ptx, "corpus.ptx"),
                (&expected, "expected.toml"),
                (&built.report_path, "report.json"),
            ] {
                std::fs::copy(from, folder.join(name))
                    .with_context(|| format!("copying {} into {}", from.display(), folder.display()))?;
            }
            eprintln!(
                "bundle in {}: run `./corpus-truth run --ptx corpus.ptx --expected expected.toml --report report.json` there",
                folder.display()
            );
            Ok(())
        })?,
        None => steps.step("every corpus kernel on the GPU (needs an NVIDIA GPU)", || {
            let mut command = Command::new(&program);
            command
                .arg("run")
                .arg("--ptx")
                .arg(&built.ptx)
                .arg("--expected")
                .arg(&expected)
                .arg("--report")
                .arg(&built.report_path)
                .args(runner_args);
            process::run(&mut command, "the GPU truth run")
        })?,
    }
    steps.finish("verifier-truth");
    Ok(())
}
