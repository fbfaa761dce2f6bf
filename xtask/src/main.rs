//! `cargo xtask`: the commands behind the justfile. See `lib.rs` for how they fit together.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use regress::layout::Layout;
use xtask::backend::{self, Outcome};
use xtask::verifier_truth::TruthCorpus;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Project automation for the GPU kernels and their backend")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Install the toolchain's components, just and cargo-insta, then build everything.
    Setup,
    /// Build the GPU kernels into kernels/target/nvptx64-nvidia-cuda/release/kernels.ptx.
    Kernels,
    /// Build the cuda-oxide kernels (kernels/oxide) with the cuda-oxide backend, after its guard.
    KernelsOxide,
    /// Run every check: rustfmt, the kernels build, all tests (PTX snapshots too), clippy.
    Test,
    /// Format the host workspace and the kernels workspace.
    Fmt,
    /// Build a backend (pin, patch series, build) and install it with its PROVENANCE.
    BuildBackend(BackendArgs),
    /// Exit 0 if the installed backend matches its pin, series and toolchain; 70 (with the reason) if not.
    CheckBackend(BackendArgs),
    /// Write a snapshot backend's vendor folder (and those beside it) from a local git clone that
    /// holds the commit backends.toml pins: the files of its `paths`, and git's id of each.
    VendorSnapshot {
        /// The backend, as declared in backends.toml, with a snapshot upstream.
        name: String,
        /// The git directory of a clone of the upstream (a bare one will do).
        #[arg(long, value_name = "GIT_DIR")]
        from: PathBuf,
        /// Write the snapshot beside the upstream that is copied as AT, instead of the upstream.
        #[arg(long, value_name = "AT")]
        beside: Option<String>,
        /// The project whose backends.toml to use (default: this repository).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
    },
    /// Remove installed backends that neither the current backends.toml nor the newest builds need.
    PruneBackends {
        /// Installs kept per backend beyond those backends.toml needs: the newest by build time.
        #[arg(long, default_value_t = backend::prune::DEFAULT_KEEP, value_name = "N")]
        keep: usize,
        /// Say what would be removed and freed, and remove nothing.
        #[arg(long)]
        dry_run: bool,
        /// The project whose backends.toml says what is needed (default: this repository).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
    },
    /// Move a backend's pin (`toolchain=1.99.0`, `PACKAGE=VERSION`, `rev=SHA`): tag the old pin,
    /// build both backends and the kernels with each, canon-check, snapshots, shapes, checklist.
    BumpPin {
        /// The backend, as declared in backends.toml.
        backend: String,
        /// What to move and where: `toolchain=RELEASE`, `rev=SHA` (a git upstream), or
        /// `PACKAGE=VERSION` (the package upstream, or a package the backend carries).
        changes: Vec<String>,
        /// The project to bump (default: this repository).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
    },
    /// The kernels built with an installed backend, their PTX copied into a folder (the step
    /// `bump-pin` runs under the new toolchain).
    #[command(hide = true)]
    BumpKernels {
        backend: String,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
    },
    /// PTX shapes of every kernel entry against their pins in regress/ptx-shapes.tsv (the
    /// cuda-oxide kernels' in regress/ptx-shapes-cuda-oxide.tsv with `--backend cuda-oxide`).
    Shapes {
        /// Whose PTX to build and check, against that backend's table.
        #[arg(long, value_enum, default_value_t = xtask::shapes::ShapesBackend::Default)]
        backend: xtask::shapes::ShapesBackend,
        /// Re-pin moved, new and removed kernels' rows (asks for the reason on a terminal).
        #[arg(long)]
        update: bool,
        /// The reason written into each re-pinned row: PIN(<today>): <reason>.
        #[arg(long, requires = "update")]
        reason: Option<String>,
        /// The sm for ptxas's figures, where ptxas is on the PATH (the module is sm_90a PTX).
        #[arg(long, default_value = "sm_90a")]
        sm: String,
    },
    /// Compare the PTX of two builds entry by entry and count the kinds of difference.
    CanonCheck {
        /// The old side: a .ptx file or a folder of them (relative to the repository root).
        old: std::path::PathBuf,
        /// The new side: a .ptx file or a folder of them.
        new: std::path::PathBuf,
        /// Print the result as JSON instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Write target/report/index.html: the last canon-check, verifier timing, GPU run and GPU
    /// comparison as charts, then shapes, pins and reasons. A missing input's section says
    /// which command produces it.
    Report {
        /// A canon-check JSON to show instead of the last one (target/canon-check/last.json).
        #[arg(long, value_name = "FILE")]
        canon: Option<PathBuf>,
        /// A timing record instead of the last one (target/timing/last.json).
        #[arg(long, value_name = "FILE")]
        timing: Option<PathBuf>,
        /// A `gpu-runner --json` document instead of the last `just gpu` run's.
        #[arg(long, value_name = "FILE")]
        gpu_run: Option<PathBuf>,
        /// A `gpu-runner --compare --json` document instead of the last `just gpu --compare`'s.
        #[arg(long, value_name = "FILE")]
        gpu_compare: Option<PathBuf>,
    },
    /// Verify textual kernel IR files: exit 0 if all verify, 1 on a rejection, 2 if unparsable.
    VerifyIr {
        /// Files of pliron textual IR (relative paths from the repository root).
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Run every kernel on the GPU (needs an NVIDIA GPU): correctness, time, roofline, PyTorch.
    Gpu {
        /// Instead of running, copy the runner, the PTX and the peer script into this folder,
        /// for a GPU machine without Rust.
        #[arg(long)]
        bundle: Option<std::path::PathBuf>,
        /// Compare two builds of the module instead (old, new: .ptx files): every kernel on both,
        /// correctness of each, the interleaved time ratio; kernels more than 3 % slower flagged.
        #[arg(long, num_args = 2, value_names = ["OLD", "NEW"])]
        compare: Option<Vec<std::path::PathBuf>>,
        /// Arguments for the runner (`-- --help` lists them).
        #[arg(last = true)]
        runner_args: Vec<String>,
    },
    /// Build the verifier corpus in report mode, judge its verdicts, then run every corpus kernel
    /// on the GPU (watchdog, compute-sanitizer): the verdict × outcome table.
    VerifierTruth {
        /// Another corpus crate with the same contract (a blind round, e.g.
        /// `plugin/driver/tests/blind/round-3`) instead of the verifier corpus.
        #[arg(long)]
        corpus: Option<std::path::PathBuf>,
        /// Instead of running, copy corpus-truth, the corpus PTX, expected.toml and the verdicts
        /// into this folder, for a GPU machine without Rust.
        #[arg(long)]
        bundle: Option<std::path::PathBuf>,
        /// Arguments for `corpus-truth run` (`-- --help` lists them).
        #[arg(last = true)]
        runner_args: Vec<String>,
    },
    /// Turn a captured `ptxas -arch=sm_90 -v` report into regress/ptxas-sm90.tsv.
    PtxasTsv {
        /// The report (default: regress/fixtures/ptxas-sm90-h200.txt).
        #[arg(long)]
        from: Option<std::path::PathBuf>,
        /// The table to write (default: regress/ptxas-sm90.tsv, the default backend's).
        #[arg(long)]
        into: Option<std::path::PathBuf>,
    },
    /// Time the verifier (generated scopes up to 102,400 blocks) and kernel builds against size.
    Timing {
        /// Only the end-to-end part (generated kernels through the kernels build).
        #[arg(long)]
        end_to_end_only: bool,
        /// Instead: where the verifier's time goes, phase by phase, on generated scopes of this
        /// many blocks (both families), through the installed verifier.
        #[arg(long, value_name = "BLOCKS", conflicts_with = "end_to_end_only")]
        phases: Option<usize>,
    },
    /// Criterion benchmark of the verifier, linked with the patched pliron the backend ships.
    Bench {
        /// Arguments for criterion (`-- --help` lists them), e.g. a filter such as `verify/story`.
        #[arg(last = true)]
        criterion_args: Vec<String>,
    },
}

#[derive(Args)]
struct BackendArgs {
    /// The backend, as declared in backends.toml.
    #[arg(default_value = backend::DEFAULT_BACKEND)]
    name: String,
    /// The project whose backends.toml to use (default: this repository); its relative paths,
    /// and a relative KERNEL_BACKENDS_ROOT, are taken from that folder.
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
}

impl BackendArgs {
    fn layout(&self) -> Result<Layout> {
        project_layout(self.project.as_deref())
    }
}

/// The layout of the `--project` folder, or of this repository.
fn project_layout(project: Option<&std::path::Path>) -> Result<Layout> {
    match project {
        None => Ok(Layout::from_build()),
        Some(dir) => {
            let dir = std::path::absolute(dir).and_then(|d| d.canonicalize());
            Ok(Layout::at(dir.context("the --project folder cannot be found")?))
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if matches!(cli.command, Task::BumpPin { .. }) && std::env::var_os("INSTA_UPDATE").is_none() {
        // A bump leaves each changed snapshot pending for `cargo insta review`, on CI too (where
        // insta's default records nothing). SAFETY: no other thread exists yet.
        unsafe { std::env::set_var("INSTA_UPDATE", "new") };
    }
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let status = xtask::refusal::exit_status(&error);
            let label = if status == xtask::refusal::REFUSED { "refused" } else { "error" };
            // The chain without a backtrace: the step, then what went wrong, down to the cause.
            eprintln!("{label}: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  because: {cause}");
            }
            ExitCode::from(status)
        }
    }
}

fn run(task: Task) -> Result<()> {
    let layout = Layout::from_build();
    match task {
        Task::Setup => xtask::checks::setup(&layout),
        Task::Kernels => xtask::checks::kernels(&layout),
        Task::KernelsOxide => xtask::kernels_oxide::kernels_oxide(&layout).map(drop),
        Task::Test => xtask::checks::test(&layout),
        Task::Fmt => xtask::checks::fmt(&layout),
        Task::BuildBackend(args) => {
            let (installed, outcome) = backend::build_backend(&args.layout()?, &args.name)?;
            let what = if outcome == Outcome::Built { "built and installed" } else { "up to date" };
            println!("backend `{}` {what}: {}", args.name, installed.dir.display());
            Ok(())
        }
        Task::CheckBackend(args) => {
            let installed = backend::check_backend(&args.layout()?, &args.name)?;
            println!(
                "backend `{}` matches its pin, series and toolchain: {} (built {})",
                args.name,
                installed.dir.display(),
                installed.provenance.built_at
            );
            for line in installed.provenance.verified_patches() {
                println!("  {line}");
            }
            Ok(())
        }
        Task::VendorSnapshot { name, from, beside, project } => {
            let project = project_layout(project.as_deref())?;
            let snapshot = backend::snapshot::described(project.root(), &name, beside.as_deref())?;
            let record = backend::snapshot::vendor_from_git(&snapshot, &from)?;
            println!(
                "vendored {} at {} into {}: {} files, {} regenerated at build time",
                snapshot.url,
                snapshot.commit,
                snapshot.vendor.display(),
                record.files.len(),
                record.regenerated.len()
            );
            Ok(())
        }
        Task::PruneBackends { keep, dry_run, project } => {
            let pruned = backend::prune::prune_backends(&project_layout(project.as_deref())?, keep, dry_run)?;
            print!("{}", pruned.report(dry_run));
            Ok(())
        }
        Task::BumpPin { backend, changes, project } => {
            xtask::bump::bump_pin(&project_layout(project.as_deref())?, &backend, &changes)
        }
        Task::BumpKernels { backend, out, project } => {
            xtask::bump::bump_kernels(&project_layout(project.as_deref())?, &backend, &out)
        }
        Task::Shapes { backend, update, reason, sm } => {
            xtask::shapes::shapes(&layout, &xtask::shapes::ShapesOptions { update, reason, sm, backend })
        }
        Task::CanonCheck { old, new, json } => xtask::canon_check::canon_check(&layout, &old, &new, json),
        Task::Report { canon, timing, gpu_run, gpu_compare } => {
            xtask::report::report(&layout, &xtask::report::Sources { canon, timing, gpu_run, gpu_compare })
        }
        Task::VerifyIr { files } => std::process::exit(xtask::verify_ir::verify_ir(&layout, &files)?),
        Task::Gpu { bundle, compare, runner_args } => {
            let pair =
                compare.map(|pair| xtask::gpu::ModulePair { old: pair[0].clone(), new: pair[1].clone() });
            xtask::gpu::gpu(&layout, bundle.as_deref(), pair.as_ref(), &runner_args)
        }
        Task::VerifierTruth { corpus, bundle, runner_args } => xtask::verifier_truth::verifier_truth(
            &layout,
            corpus.as_deref().map_or(TruthCorpus::Verifier, TruthCorpus::Round),
            bundle.as_deref(),
            &runner_args,
        ),
        Task::PtxasTsv { from, into } => xtask::gpu::ptxas_tsv(&layout, from.as_deref(), into.as_deref()),
        Task::Timing { end_to_end_only, phases: Some(blocks) } if !end_to_end_only => {
            xtask::timing::phases(&layout, blocks)
        }
        Task::Timing { end_to_end_only, .. } => xtask::timing::timing(&layout, end_to_end_only),
        Task::Bench { criterion_args } => xtask::bench::bench(&layout, &criterion_args),
    }
}
