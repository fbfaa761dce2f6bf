//! The semantic verifier: per scope (a kernel and every function it reaches), local
//! well-formedness, the pipeline story and pointer provenance across calls.
//!
//! # Using it
//!
//! - [`verify_module`] verifies every kernel scope of a module: it first runs pliron's local
//!   verification of every operation, then the rest of [`verify_scope`] on each scope.
//! - [`verify_scope`] returns a [`ScopeReport`] (verified, or skipped by the scope guard, with
//!   counts) or the [`Rejection`]s. A rejection names its [`Rule`] (with a stable
//!   [`Rule::name`]), the offending operation with its [`SourceLoc`], and related operations
//!   (e.g. "state created here"). Its `Display` is a compiler-style message.
//! - [`analyze_scope`] is the same run, returning everything at once ([`ScopeAnalysis`]: the
//!   report, the rejections and the provenance facts); the oracle (feature `oracle`) returns
//!   the same type, so verdicts and facts can be compared.
//!
//! # Rules
//!
//! See [`Rule`]. Every rule checks the pliron IR of [`crate::ir`], however it was made.

pub mod accounting;
mod arena_numbers;
pub(crate) mod block_shape;
pub(crate) mod call_chains;
pub(crate) mod call_order;
pub(crate) mod constants;
pub(crate) mod counter_sites;
pub(crate) mod cycles;
pub(crate) mod dataflow;
pub(crate) mod descriptors;
pub(crate) mod divergence;
pub(crate) mod engine;
pub mod facts;
pub(crate) mod flow;
pub(crate) mod guards;
pub(crate) mod index;
pub(crate) mod init_order;
pub(crate) mod layout;
pub(crate) mod locals;
pub(crate) mod memory;
pub(crate) mod operands;
pub mod phases;
pub(crate) mod pipeline_calls;
pub(crate) mod progression;
pub(crate) mod protocol;
pub(crate) mod races;
pub(crate) mod recursion;
pub(crate) mod roles;
pub(crate) mod rules;
pub(crate) mod store_table;
pub(crate) mod symbols;
pub(crate) mod thread_model;
pub(crate) mod thread_set;
pub(crate) mod thread_values;
pub(crate) mod threads;
pub(crate) mod typestate;
pub(crate) mod uniform;
pub(crate) mod wgmma;

use std::fmt;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
};

use crate::{ir::builder::SourceLoc, scope::Scope};

pub use accounting::{Gap, GapKind};
pub use facts::{Fact, FactTable, StateId};
pub use memory::{is_memory_view, is_view_reader};

/// The rules a scope can break. [`Rule::name`] is the stable name used in messages, fixtures
/// and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// An operation fails its own (local) verification: operand or result types, attributes,
    /// block arguments, terminators.
    WellFormed,
    /// A stage index or phase bit operand does not flow from a pipeline state (through
    /// stores, loads, block arguments and call arguments), or mixes two states.
    StateProvenance,
    /// On some path, a producer does not follow new → acquire → expect-tx → copy → advance,
    /// touches a stage it has not acquired or whose copy is in flight, or creates its state
    /// again.
    ProducerOrder,
    /// On some path, a consumer does not follow wait → (access the stage) → release →
    /// advance, accesses a stage it is not waiting on, or creates its state again.
    ConsumerOrder,
    /// The producer tail is reachable other than after the producer loop (inside it, with a
    /// stage acquired, or followed by more producer work), or a producer path leaves the
    /// kernel without it.
    ProducerTail,
    /// A pointer crosses a call with a type other than the parameter's: a shared-memory
    /// pointer passed to a generic parameter without `mir.addrspace_cast`, or an adaptation
    /// whose pointee, mutability or pointer kind disagree with the parameter.
    PointerAdaptation,
    /// On some path, the constant bytes a stage's `expect_tx` announces differ from the
    /// constant bytes its copies deliver before the producer advances.
    ExpectTxBytes,
    /// Operations on one state use the barriers of different pipelines (a wait on one
    /// pipeline and a release on another, a copy completing on another pipeline's barrier).
    PipelineIdentity,
    /// A bulk copy's destination is not the stage of the state whose barrier it completes
    /// (the index offset, wrapped or masked before it addresses the ring).
    CopyDestination,
    /// The consumers' tile loop runs a whole number of tiles more or fewer than the
    /// producer's loop on the same pipeline.
    TileCount,
    /// Under the declared block size, more than one thread runs the producer operations of
    /// one pipeline.
    ProducerThreads,
    /// Under the declared block size, the threads releasing one pipeline's stages are not as
    /// many as the `consumer_threads` its `init` announced.
    ReleaseCount,
    /// On some path, accumulators are read or written by ordinary code (a load, a store, a
    /// call taking their address) while a `wgmma.mma_async` that writes them may still run: no
    /// `wait_group` since covers it.
    WgmmaAccumulatorRead,
    /// On some path, a consumer releases a stage while a `wgmma.mma_async` issued before the
    /// release (which may read the stage) is not covered by a `wait_group`.
    WgmmaReleaseBeforeWait,
    /// On some path, a `wgmma.mma_async` follows ordinary writes to accumulators or shared
    /// memory with no `wgmma.fence` between them.
    WgmmaFence,
    /// On some path, a bulk copy or a `wgmma.mma_async` follows ordinary shared-memory stores
    /// of the same thread with no `fence.proxy.async` between them.
    ProxyFence,
    /// On some path, a pipeline operation runs before a `Pipeline::init` followed by a block
    /// barrier.
    PipelineInit,
    /// Pipelines' barriers and rings overlap, an `attach` names barriers no `init` set up, or a
    /// bulk copy spills out of its stage.
    SharedLayout,
}

impl Rule {
    /// Every rule, in a fixed order.
    pub const ALL: [Rule; 18] = [
        Rule::WellFormed,
        Rule::StateProvenance,
        Rule::ProducerOrder,
        Rule::ConsumerOrder,
        Rule::ProducerTail,
        Rule::PointerAdaptation,
        Rule::ExpectTxBytes,
        Rule::PipelineIdentity,
        Rule::CopyDestination,
        Rule::TileCount,
        Rule::ProducerThreads,
        Rule::ReleaseCount,
        Rule::WgmmaAccumulatorRead,
        Rule::WgmmaReleaseBeforeWait,
        Rule::WgmmaFence,
        Rule::ProxyFence,
        Rule::PipelineInit,
        Rule::SharedLayout,
    ];

    /// The rule's stable name, e.g. `producer-order`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::WellFormed => "well-formed",
            Rule::StateProvenance => "state-provenance",
            Rule::ProducerOrder => "producer-order",
            Rule::ConsumerOrder => "consumer-order",
            Rule::ProducerTail => "producer-tail",
            Rule::PointerAdaptation => "pointer-adaptation",
            Rule::ExpectTxBytes => "expect-tx-bytes",
            Rule::PipelineIdentity => "pipeline-identity",
            Rule::CopyDestination => "copy-destination",
            Rule::TileCount => "tile-count",
            Rule::ProducerThreads => "producer-threads",
            Rule::ReleaseCount => "release-count",
            Rule::WgmmaAccumulatorRead => "wgmma-accumulator-read",
            Rule::WgmmaReleaseBeforeWait => "wgmma-release-before-wait",
            Rule::WgmmaFence => "wgmma-fence",
            Rule::ProxyFence => "proxy-fence",
            Rule::PipelineInit => "pipeline-init",
            Rule::SharedLayout => "shared-layout",
        }
    }

    /// The rule with that stable name.
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|rule| rule.name() == name)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An operation that explains a rejection ("state created here").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub note: String,
    pub op: Ptr<Operation>,
    pub location: Option<SourceLoc>,
}

/// Why a scope was rejected: the rule, a message, the offending operation and its location,
/// and related operations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub rule: Rule,
    pub message: String,
    /// The symbol of the function that holds `op`.
    pub function: String,
    pub op: Ptr<Operation>,
    /// `None` only for IR whose operation carries no file position.
    pub location: Option<SourceLoc>,
    pub related: Vec<Related>,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.rule, self.message)?;
        match &self.location {
            Some(location) => write!(f, "\n  --> {location} (in `{}`)", self.function)?,
            None => write!(f, "\n  --> <no location> (in `{}`)", self.function)?,
        }
        for related in &self.related {
            match &related.location {
                Some(location) => write!(f, "\n  note: {} at {location}", related.note)?,
                None => write!(f, "\n  note: {}", related.note)?,
            }
        }
        Ok(())
    }
}

/// Whether a scope was verified or skipped by the scope guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeStatus {
    /// The rules ran.
    Verified,
    /// The scope guard skipped it: no semantic operation and no shared-memory pointer.
    Skipped,
}

/// What verifying one scope did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeReport {
    /// The kernel's symbol.
    pub kernel: String,
    pub status: ScopeStatus,
    /// Functions in the scope (the kernel included).
    pub functions: usize,
    /// Blocks in the scope.
    pub blocks: usize,
    /// Semantic operations in the scope.
    pub semantic_ops: usize,
    /// Provenance facts computed (zero when skipped).
    pub facts: usize,
    /// What the scope holds that the model does not account for (see `plugin/MODEL.md`, "What
    /// makes a scope unverified"): a scope with a gap is unverified, never verified. Empty when
    /// skipped.
    pub gaps: Vec<Gap>,
}

impl ScopeReport {
    /// Verified: the rules ran and nothing in the scope is outside the model.
    pub fn is_proven(&self) -> bool {
        self.status == ScopeStatus::Verified && self.gaps.is_empty()
    }
}

/// Everything one verifier run on one scope produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeAnalysis {
    pub report: ScopeReport,
    /// Empty when the scope verified (or was skipped).
    pub rejections: Vec<Rejection>,
    /// The provenance facts, in a canonical order (empty when skipped).
    pub facts: FactTable,
}

/// Whether pliron's structural verification of the IR (each operation's own verifier, its types
/// and attributes, SSA dominance: rule `well-formed`) runs before the rules, which assume it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Structure {
    /// Check it: IR read from text, IR built by hand in tests, and every debug build.
    Check,
    /// Trust it: IR built by this project's own import or generator, whose structure the test
    /// suite checks (the corpus builds ask the driver for [`Structure::Check`]). A malformed
    /// operation there is a bug of the import, not of the kernel, and checking every operation
    /// of every build costs about as much as the rules themselves.
    Trust,
}

impl Structure {
    /// What a build of the verifier does by default: check in debug builds, trust in release.
    pub fn default_for_build() -> Structure {
        if cfg!(debug_assertions) { Structure::Check } else { Structure::Trust }
    }
}

/// Verifies one scope with the indexed verifier and the scope guard, checking its structure
/// first unless the guard skips it.
pub fn verify_scope(ctx: &Context, scope: &Scope) -> Result<ScopeReport, Vec<Rejection>> {
    verify_scope_with(ctx, scope, Structure::Check)
}

/// [`verify_scope`], checking the structure of the scope's functions only with
/// [`Structure::Check`] (not needed when the module holding them has been checked whole, or when
/// this project built it). The fact table is only counted, not kept.
pub fn verify_scope_with(
    ctx: &Context,
    scope: &Scope,
    structure: Structure,
) -> Result<ScopeReport, Vec<Rejection>> {
    let run = engine::Run { local_verification: structure == Structure::Check, fact_table: false };
    let analysis = engine::analyze(ctx, scope, engine::Strategy::Indexed, run);
    if analysis.rejections.is_empty() { Ok(analysis.report) } else { Err(analysis.rejections) }
}

/// pliron's structural verification alone (rule `well-formed`) of every function of a scope:
/// what [`Structure::Check`] adds to a run. Timed on its own by the timing regression, where the
/// carried pliron series shows its effect.
pub fn check_structure(ctx: &Context, scope: &Scope) -> Result<(), Vec<Rejection>> {
    let mut rejections = Vec::new();
    for func in &scope.functions {
        if let Err(mut found) = engine::local_verification(ctx, *func) {
            rejections.append(&mut found);
        }
    }
    if rejections.is_empty() { Ok(()) } else { Err(rejections) }
}

/// Runs the indexed verifier with the scope guard on one scope.
pub fn analyze_scope(ctx: &Context, scope: &Scope) -> ScopeAnalysis {
    engine::analyze(ctx, scope, engine::Strategy::Indexed, engine::Run::FULL)
}

/// Verifies every kernel scope of a `builtin.module`: first the structural verification of every
/// operation (rule `well-formed`; nothing else runs if it fails, since the rules assume
/// well-formed operations), then every scope. Returns one report per kernel, or every
/// rejection of every scope.
pub fn verify_module(ctx: &Context, module: Ptr<Operation>) -> Result<Vec<ScopeReport>, Vec<Rejection>> {
    verify_module_with(ctx, module, Structure::Check)
}

/// [`verify_module`], checking the module's structure first only with [`Structure::Check`].
pub fn verify_module_with(
    ctx: &Context,
    module: Ptr<Operation>,
    structure: Structure,
) -> Result<Vec<ScopeReport>, Vec<Rejection>> {
    if structure == Structure::Check {
        engine::local_verification(ctx, module)?;
    }
    let mut reports = Vec::new();
    let mut rejections = Vec::new();
    for scope in crate::scope::scopes_of_module(ctx, module) {
        // The module was checked whole (or is trusted): the rules only.
        match verify_scope_with(ctx, &scope, Structure::Trust) {
            Ok(report) => reports.push(report),
            Err(mut scope_rejections) => rejections.append(&mut scope_rejections),
        }
    }
    if rejections.is_empty() { Ok(reports) } else { Err(rejections) }
}
