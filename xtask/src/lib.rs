//! Project automation behind the justfile (the cargo xtask pattern).
//!
//! `just RECIPE` runs `cargo xtask RECIPE`; `main.rs` parses the command line and calls one
//! function here per command. This crate is the only code in the repository that runs cargo,
//! rustup or git as processes: the regression suite (`regress`) reads files and nothing else.
//!
//! Data flow for `just test`: [`toolchain`] reads `rust-toolchain.toml`; [`kernels`] builds the
//! nvptx workspace into `kernels.ptx`; [`checks`] runs rustfmt, the host workspace's tests
//! (among them the PTX snapshot suite, which reads that PTX) and clippy, each as a numbered
//! step with its time, and closes with `N passed, M failed, K skipped` ([`skips`]: a test that
//! skipped for a missing tool is not counted as passed). Before any kernel is compiled,
//! [`kernels`] runs the guard: [`backend`] (`check-backend default`, which `build-backend`
//! satisfies) and [`host_config`] (the kernels' target settings, generated from one table); a
//! refusal exits 70 ([`refusal`]). Paths are resolved against the repository root
//! (`regress::layout::Layout::from_build`), never against the current directory.
//!
//! `just bump-pin` ([`bump`]) moves a backend's pin: it builds both sides with [`backend`] and
//! [`kernels`], then runs canon-check, the snapshot suite and the shapes table on the new PTX.

pub mod atomic;
pub mod backend;
pub mod bench;
pub mod bump;
pub mod canon_check;
pub mod checks;
pub mod gpu;
pub mod host_config;
pub mod kernels;
pub mod kernels_oxide;
pub mod process;
pub mod refusal;
pub mod report;
pub mod setup;
pub mod shapes;
pub mod skips;
pub mod timing;
pub mod toolchain;
pub mod verifier_truth;
pub mod verify_ir;
pub mod verify_report;
