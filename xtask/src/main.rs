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
    /// Verify textual kernel IR files: exit 0 if all verify, 1 on a rejection, 2 if unparsable.
    VerifyIr {
        /// Files of pliron textual IR (relative paths from the repository root).
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Time the verifier (generated scopes up to 102,400 blocks) and kernel builds against size.
    Timing {
        /// Only the end-to-end part (generated kernels through the kernels build).
        #[arg(long)]
        end_to_end_only: bool,
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
        Task::VerifyIr { files } => std::process::exit(xtask::verify_ir::verify_ir(&layout, &files)),
        Task::Timing { end_to_end_only } => xtask::timing::timing(&layout, end_to_end_only),
    }
}
