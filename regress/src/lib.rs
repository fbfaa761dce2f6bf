//! The regression suite's library: read the kernels' PTX and turn each kernel entry into a
//! snapshot case.
//!
//! Data flow: [`layout::Layout`] says where the built `kernels.ptx` and the snapshot folder
//! are; [`ptx::Module::parse`] splits the PTX into top-level items (entries, functions,
//! module-scope variables) and answers which items an entry reaches; [`snapshots`] renders
//! each entry with everything it reaches as text and checks it against its insta snapshot in
//! `ptx-snapshots/`. The test harness in `regress/tests/ptx_snapshots.rs` turns every case into
//! a named test; `xtask` uses the same cases to prove that the suite fires on a changed kernel.
//!
//! The PTX reader knows nothing about insta or snapshots; only [`snapshots`] does.

pub mod canon;
pub mod freshness;
pub mod kernel_source;
pub mod layout;
pub mod ptx;
pub mod ptxas;
pub mod shapes;
pub mod snapshots;
pub mod timing;
pub mod timing_record;
