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
    /// PTX shapes of every kernel entry against their pins in regress/ptx-shapes.tsv.
    Shapes {
        /// Re-pin moved, new and removed kernels' rows (asks for the reason on a terminal).
        #[arg(long)]
        update: bool,
        /// The reason written into each re-pinned row: PIN(<today>): <reason>.
        #[arg(long, requires = "update")]
        reason: Option<String>,
        /// The sm for ptxas's figures, where ptxas is on the PATH.
        #[arg(long, default_value = "sm_90")]
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
    /// Write target/report/index.html: shapes, pins and reasons, the last canon-check.
    Report,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let layout = Layout::from_build();
    match cli.command {
        Task::Setup => xtask::checks::setup(&layout),
        Task::Kernels => xtask::checks::kernels(&layout),
        Task::Test => xtask::checks::test(&layout),
        Task::Fmt => xtask::checks::fmt(&layout),
        Task::Shapes { update, reason, sm } => {
            xtask::shapes::shapes(&layout, &xtask::shapes::ShapesOptions { update, reason, sm })
        }
        Task::CanonCheck { old, new, json } => xtask::canon_check::canon_check(&layout, &old, &new, json),
        Task::Report => xtask::report::report(&layout),
    }
}
