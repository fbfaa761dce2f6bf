//! Project automation behind the justfile (the cargo xtask pattern).
//!
//! `just RECIPE` runs `cargo xtask RECIPE`; `main.rs` parses the command line and calls one
//! function here per command. This crate is the only code in the repository that runs cargo,
//! rustup or git as processes: the regression suite (`regress`) reads files and nothing else.
//!
//! Data flow for `just test`: [`toolchain`] reads `rust-toolchain.toml`; [`kernels`] builds the
//! nvptx workspace into `kernels.ptx`; [`checks`] runs rustfmt, the host workspace's tests
//! (among them the PTX snapshot suite, which reads that PTX) and clippy, each as a numbered
//! step with its time. Paths are resolved against the repository root ([`repo_layout`]),
//! never against the current directory.

pub mod checks;
pub mod kernels;
pub mod process;
pub mod setup;
pub mod toolchain;

use regress::layout::Layout;

/// The repository this xtask was built from. `cargo xtask` always runs from a checkout, and
/// the xtask crate sits one folder below the root.
pub fn repo_layout() -> Layout {
    let manifest_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    Layout::at(manifest_dir.parent().expect("xtask/ has a parent folder"))
}
