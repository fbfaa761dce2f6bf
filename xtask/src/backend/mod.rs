//! The carried backend: `backends.toml` declares each backend (its upstream at a pin, or the
//! in-tree sources it is built from; its patch series; its build); `build-backend` turns that
//! into an installed build with a PROVENANCE, and `check-backend`, the guard every kernel build
//! runs first, refuses by name any install that does not match what is on disk.
//!
//! The modules are layers, each using only the layers above it (`tests/backend_layers.rs`
//! holds the table and fails on an import against it, `tests/module_imports.rs` on an import
//! circle):
//!
//! 1. Primitives: [`hash`] (sha256 and `/`-separated paths), [`fs`] (syncing a folder, only
//!    changed files rewritten), [`git`], [`lock`] (the OS file lock), [`error`] (every
//!    refusal, [`error::BackendError`], which the command line turns into exit 70) and
//!    [`rustc`] (`rustc -vV`).
//! 2. The model, read from disk without building or fetching anything: [`description`]
//!    (`backends.toml`), [`series`] (`compiler-patches/NAME/series` and each patch's hash),
//!    [`carried_record`] (a carried package's inputs and its record), [`inputs`] (everything
//!    a build depends on, hashed into the build key) and [`provenance`] (what an install was
//!    built from).
//! 3. Fetching and applying: [`store`] (the backends root, `ROOT/NAME/KEY`), [`upstream`] (a
//!    git upstream in `vendor/NAME`), [`package`] (a registry package there, via
//!    `cargo vendor`), [`snapshot`] (a git upstream's files at one commit, carried in the
//!    repository with git's id of each) and [`apply`] (a series applied to a work copy).
//! 4. Judging installs: [`guard`] compares an install's PROVENANCE with the inputs (and
//!    refuses a vendor tree edited by hand); [`prune`] removes the installs nothing needs.
//! 5. Flows: [`build`] (the numbered steps of `build-backend`), [`carried`] (the work copies
//!    of the packages an in-tree backend carries, and of the workspace built against them)
//!    and [`upstream_tests`] (a carried package's own test suite on its patched copy).

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
pub mod snapshot;
pub mod snapshot_build;
pub mod store;
pub mod upstream;
pub mod upstream_tests;

pub use build::{Outcome, build_backend};
pub use error::BackendError;
pub use guard::{Installed, check_backend};

/// The backend the kernels are built with unless told otherwise.
pub const DEFAULT_BACKEND: &str = "default";

/// NVlabs/cuda-oxide, the second backend: a rustc codegen backend on pliron, carried as files.
pub const OXIDE_BACKEND: &str = "cuda-oxide";
