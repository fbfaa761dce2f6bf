//! `corpus-truth`: `one KERNEL` launches one corpus kernel and exits with its verdict on the
//! output (0 right, 3 wrong, 4 CUDA error); `run` runs the whole corpus, each kernel through
//! `one` in a process of its own under a watchdog, then under compute-sanitizer, and prints
//! the tables. See the library for how the pieces fit.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use corpus_truth::expected::Corpus;
use corpus_truth::judge::verdicts;
use corpus_truth::outcome::{EXIT_CUDA_ERROR, EXIT_RIGHT, EXIT_WRONG};
use corpus_truth::truth::{TruthRun, write_whole};
use plugin::build_report::CrateReport;

#[derive(Parser)]
#[command(name = "corpus-truth", about = "Runs the verifier corpus's kernels on the GPU")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Launch one kernel under the corpus contract; exit 0 if its output is right, 3 if wrong,
    /// 4 if CUDA reported an error.
    One {
        #[arg(long)]
        ptx: PathBuf,
        #[arg(long)]
        expected: PathBuf,
        kernel: String,
    },
    /// Run every kernel of expected.toml (watchdog, side by side, compute-sanitizer) and print
    /// the verdict × outcome table.
    Run {
        #[arg(long)]
        ptx: PathBuf,
        #[arg(long)]
        expected: PathBuf,
        /// The corpus's crate report from a report-mode build (the verifier's verdicts).
        #[arg(long)]
        report: PathBuf,
        /// Processes side by side.
        #[arg(long, default_value_t = 8)]
        jobs: usize,
        /// compute-sanitizer (default: found on the PATH; races are not looked for without it).
        #[arg(long)]
        compute_sanitizer: Option<PathBuf>,
        /// The limit of each calibration run of a correct kernel, in seconds.
        #[arg(long, default_value_t = 20)]
        calibration_limit: u64,
        /// Also write the result text here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse().command) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(task: Task) -> Result<ExitCode> {
    match task {
        Task::One { ptx, expected, kernel } => {
            let corpus = Corpus::read(&expected)?;
            match corpus_truth::gpu::run_kernel(&ptx, &kernel, &corpus.contract) {
                Err(error) => {
                    println!("cuda error: {error:#}");
                    Ok(ExitCode::from(EXIT_CUDA_ERROR as u8))
                }
                Ok(output) => {
                    let difference = corpus_truth::compare(&output, &corpus.contract.expected_output());
                    match difference.first {
                        None => {
                            println!("right");
                            Ok(ExitCode::from(EXIT_RIGHT as u8))
                        }
                        Some((index, got, want)) => {
                            println!(
                                "wrong: {} of {} elements differ, first out[{index}] = {got} (want {want})",
                                difference.differing,
                                output.len()
                            );
                            Ok(ExitCode::from(EXIT_WRONG as u8))
                        }
                    }
                }
            }
        }
        Task::Run { ptx, expected, report, jobs, compute_sanitizer, calibration_limit, out } => {
            let corpus = Corpus::read(&expected)?;
            let text =
                std::fs::read_to_string(&report).with_context(|| format!("reading {}", report.display()))?;
            let crate_report: CrateReport = serde_json::from_str(&text)
                .with_context(|| format!("{} is not a crate report", report.display()))?;
            let sanitizer = compute_sanitizer.or_else(|| on_path("compute-sanitizer"));
            let run = TruthRun {
                program: std::env::current_exe().context("locating this program")?,
                ptx: std::path::absolute(&ptx)?,
                expected: std::path::absolute(&expected)?,
                sanitizer,
                jobs,
                calibration_limit: Duration::from_secs(calibration_limit),
                provisional: out.clone(),
            };
            let truth = run.run(&corpus, &verdicts(&crate_report))?;
            let text = truth.render();
            print!("{text}");
            if let Some(out) = out {
                write_whole(&out, &text)?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `name` in a folder of the PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(name)).find(|path| path.is_file())
}
