//! The carried backend: `backends.toml` declares each backend (its upstream at a pin, or the
//! in-tree sources it is built from; its patch series; its build); `build-backend` turns that
//! into an installed build with a PROVENANCE, and `check-backend`, the guard every kernel build
//! runs first, refuses by name any install that does not match what is on disk.
//!
//! Data flow: [`description`] reads `backends.toml`; [`series`] reads
//! `compiler-patches/NAME/series` and hashes each patch; [`inputs`] adds the toolchain
//! ([`rustc`]) and the in-tree sources and hashes everything into the build key; [`build`]
//! materialises a git upstream ([`upstream`], via [`git`]) or a registry package ([`package`],
//! via `cargo vendor`), applies the series to a work copy
//! ([`apply`]; for the registry packages an in-tree backend carries, [`carried`] does the same
//! and builds in a work copy of the workspace), builds, installs under `ROOT/NAME/KEY`
//! ([`store`], guarded by [`lock`]) and writes [`provenance`] last; [`guard`] compares an
//! install's PROVENANCE with the inputs (and refuses a vendor tree edited by hand); [`prune`]
//! removes the installs nothing needs.
//! Every refusal is a [`error::BackendError`], which the command line turns into exit 70.

pub mod apply;
pub mod build;
pub mod carried;
pub mod carried_record;
pub mod description;
pub mod error;
pub mod fs;
pub mod git;
pub mod guard;
pub mod hash;
pub mod inputs;
pub mod lock;
pub mod package;
pub mod provenance;
pub mod prune;
pub mod rustc;
pub mod series;
pub mod store;
pub mod upstream;
pub mod upstream_tests;

pub use build::{Outcome, build_backend};
pub use error::BackendError;
pub use guard::{Installed, check_backend};

/// The backend the kernels are built with unless told otherwise.
pub const DEFAULT_BACKEND: &str = "default";
