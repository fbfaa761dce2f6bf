//! The compiler-pass plugin's library: MIR-shaped kernel IR on pliron, and the semantic
//! verifier that checks it. Backend-neutral: nothing here knows about rustc (the driver in
//! `plugin/driver` imports MIR into this IR; tests and the timing suite build or parse it).
//!
//! Data flow: IR comes in through [`ir::builder`] (the importer, generated scopes) or
//! [`text`] (textual IR files) → [`scope::scopes_of_module`] cuts a module into scopes (a
//! kernel and every function it reaches) → [`verify::verify_scope`] runs local verification,
//! the scope guard, the indexed provenance fixpoint and the rules, and returns a report or
//! rejections naming rule, operation and location → [`report`] renders them for people.
//! With the `oracle` feature, [`harness::oracle`] verifies the same scopes the slow, simple way, for
//! agreement tests and the timing regression; [`harness::timing`] times the verifier on generated
//! scopes (the timing regression's measurement). With the `random-kernels` feature,
//! [`harness::random_kernel`] draws the small random kernels of the oracle-agreement corpus. [`build_report`] is the per-crate verification
//! report the driver writes and `just kernels` reads back.

pub mod build_report;
pub mod harness {
    //! What tests and the timing regression use to exercise the verifier, kept out of the
    //! library's root: generated scopes of a chosen size, the timing measurement over them, the
    //! slow reference verifier they are checked against, and random small kernels.
    pub mod generate;
    #[cfg(feature = "oracle")]
    pub mod oracle;
    #[cfg(feature = "random-kernels")]
    pub mod random_kernel;
    pub mod timing;
}
pub mod ir {
    //! The kernel IR: types, the `mir` and `semantic` dialects, and the builder.
    pub mod builder;
    pub mod mir;
    pub mod semantic;
    pub mod types;
}
pub mod report;
pub mod scope;
pub mod text;
pub mod verify;

/// A pliron context with the `mir` and `semantic` dialects registered (pliron registers every
/// linked dialect when a context is created).
pub fn new_context() -> pliron::context::Context {
    pliron::context::Context::new()
}
