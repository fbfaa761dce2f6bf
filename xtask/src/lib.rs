//! Project automation behind the justfile (the cargo xtask pattern).
//!
//! `just RECIPE` runs `cargo xtask RECIPE`; `main.rs` parses the command line and calls one
//! function here per command. This crate is the only code in the repository that runs cargo,
//! rustup or git as processes: the regression suite (`regress`) reads files and nothing else.
//!
//! Data flow for `just test`: [`toolchain`] reads `rust-toolchain.toml`; [`kernels`] builds the
//! nvptx workspace into `kernels.ptx`; [`checks`] runs rustfmt, the host workspace's tests
//! (among them the PTX snapshot suite, which reads that PTX) and clippy, each as a numbered
//! step with its time. Before any kernel is compiled, [`kernels`] runs the guard: [`backend`]
//! (`check-backend default`, which `build-backend` satisfies) and [`host_config`] (the kernels'
//! target settings, generated from one table); a refusal exits 70 ([`refusal`]). Paths are resolved against the repository root (`regress::layout::Layout::from_build`),
//! never against the current directory.

pub mod atomic;
pub mod backend;
pub mod bench;
pub mod canon_check;
pub mod checks;
pub mod gpu;
pub mod host_config;
pub mod kernels;
pub mod process;
pub mod refusal;
pub mod report;
pub mod setup;
pub mod shapes;
pub mod timing;
pub mod toolchain;
pub mod verifier_truth;
pub mod verify_ir;
pub mod verify_report;
