//! `cargo xtask`: the commands behind the justfile. See `lib.rs` for how they fit together.

use anyhow::Result;
use clap::{Parser, Subcommand};
use regress::layout::Layout;

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
    /// Run every check: rustfmt, the kernels build, all tests (PTX snapshots too), clippy.
    Test,
    /// Format the host workspace and the kernels workspace.
    Fmt,
    /// Run every kernel on the GPU (needs an NVIDIA GPU): correctness, time, roofline, PyTorch.
    Gpu {
        /// Instead of running, copy the runner, the PTX and the peer script into this folder,
        /// for a GPU machine without Rust.
        #[arg(long)]
        bundle: Option<std::path::PathBuf>,
        /// Arguments for the runner (`-- --help` lists them).
        #[arg(last = true)]
        runner_args: Vec<String>,
    },
    /// Turn a captured `ptxas -arch=sm_90 -v` report into regress/ptxas-sm90.tsv.
    PtxasTsv {
        /// The report (default: regress/fixtures/ptxas-sm90-h200.txt).
        #[arg(long)]
        from: Option<std::path::PathBuf>,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let layout = Layout::from_build();
    match cli.command {
        Task::Setup => xtask::checks::setup(&layout),
        Task::Kernels => xtask::checks::kernels(&layout),
        Task::Test => xtask::checks::test(&layout),
        Task::Fmt => xtask::checks::fmt(&layout),
        Task::Gpu { bundle, runner_args } => xtask::gpu::gpu(&layout, bundle.as_deref(), &runner_args),
        Task::PtxasTsv { from } => xtask::gpu::ptxas_tsv(&layout, from.as_deref()),
    }
}
