//! One verifier run on one scope: local verification, the scope guard, the provenance
//! fixpoint, then the rules.

use rustc_hash::FxHashMap;

use pliron::{
    builtin::{op_interfaces::OneRegionInterface, ops::FuncOp},
    context::{Context, Ptr},
    linked_list::ContainsLinkedList,
    operation::Operation,
    r#type::{TypeHandle, Typed},
};

use super::{
    Gap, GapKind, Rejection, Rule, ScopeAnalysis, ScopeReport, ScopeStatus, accounting, dataflow,
    facts::{DISTINCT_VERSIONS, FactStore, FactTable},
    index::{OpClass, ScopeIndex, is_semantic},
    init_order, layout, operands, races, recursion, roles,
    rules::{self, Reporter},
    thread_model::SharedThreadModel,
    threads, typestate, wgmma,
};
use crate::{
    ir::{
        builder::SourceLoc,
        semantic::pipeline::{StateAdvanceOp, StateNewOp},
        types::{AddressSpace, PointerType},
    },
    scope::{Scope, function_name},
};

/// How the provenance facts are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// Scope guard, facts in a map, worklist of blocks.
    Indexed,
    /// No guard; the caller computes the facts (the oracle).
    #[cfg_attr(not(feature = "oracle"), allow(dead_code))]
    Unguarded,
}

/// What a run does besides the scope guard, the fact computation and the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    /// Locally verify each function of the scope first. `false` only where the caller has
    /// already verified the module holding the scope: every function passed as part of it, so
    /// the per-function checks could not reject anything.
    pub local_verification: bool,
    /// Build the canonical [`FactTable`] for [`ScopeAnalysis::facts`]; otherwise only its
    /// size is counted (for the report) and `facts` is left empty.
    pub fact_table: bool,
}

impl Run {
    /// Everything: what [`super::analyze_scope`] and the oracle return.
    pub(crate) const FULL: Run = Run { local_verification: true, fact_table: true };
}

/// How a scope uses the pipeline protocol, from one scan of its operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PipelineUse {
    /// No state created, no pipeline operation applied.
    None,
    /// Pipeline operations (a bulk copy, say) but no state created in the scope.
    OperationsOnly,
    /// A `semantic.state_new`: a pipeline scope.
    CreatesState,
}

impl PipelineUse {
    fn of(ctx: &Context, index: &ScopeIndex) -> PipelineUse {
        let mut found = PipelineUse::None;
        for (_, op) in index.ops_of_class(OpClass::Semantic) {
            if Operation::get_op::<StateNewOp>(op, ctx).is_some() {
                return PipelineUse::CreatesState;
            }
            if rules::PipelineKind::of(ctx, op).is_some() {
                found = PipelineUse::OperationsOnly;
            }
        }
        found
    }
}

/// Local verification of `root` (a module or a function) and everything in it: every
/// operation's own verifier, its interfaces, attributes, types and regions, and SSA dominance
/// (every definition dominates its uses), all pliron's own `verify_operation`. Its dominance
/// check is linear in the block count with the carried pliron series
/// (`compiler-patches/pliron/`); the pristine 0.20.0 is quadratic there.
pub(crate) fn local_verification(ctx: &Context, root: Ptr<Operation>) -> Result<(), Vec<Rejection>> {
    pliron::operation::verify_operation(root, ctx).map_err(|error| {
        let location = SourceLoc::from_location(ctx, &error.loc);
        let function = function_name(ctx, root);
        vec![Rejection {
            rule: Rule::WellFormed,
            message: error.err.to_string(),
            function,
            op: root,
            location,
            related: vec![],
        }]
    })
}

/// The scope guard's question, asked of the scope as it is, before anything is numbered or
/// verified: does it hold a semantic operation, a shared-memory pointer, or something that could
/// reach either unseen (inline assembly that may touch memory, a call whose callee is unknown)?
/// Only a scope with none of these is irrelevant to the protocol: nothing else in MIR can make a
/// shared-memory address or wait on a barrier. One pass over the operations, nothing allocated,
/// so that deciding to skip costs a scan. Returns the answer and the scope's block count.
fn needs_verification(ctx: &Context, scope: &Scope) -> (bool, usize) {
    let is_shared = |ty: TypeHandle| {
        ty.deref(ctx).downcast_ref::<PointerType>().is_some_and(|ptr| ptr.space() == AddressSpace::Shared)
    };
    let mut blocks = 0;
    for func in &scope.functions {
        let Some(func) = Operation::get_op::<FuncOp>(*func, ctx) else { continue };
        for block in func.get_region(ctx).deref(ctx).iter(ctx) {
            blocks += 1;
            if block.deref(ctx).arguments().any(|arg| is_shared(arg.get_type(ctx))) {
                return (true, blocks);
            }
            for op in block.deref(ctx).iter(ctx) {
                // The result types first: one dereference reads them all, where asking each
                // result value for its type finds the value in its operation again. The dialect
                // is asked last, since asking builds (and drops) a boxed operation.
                let relevant = op.deref(ctx).result_types().any(is_shared)
                    || accounting::opaque_gap(ctx, op).is_some_and(|(kind, _)| {
                        matches!(kind, GapKind::InlineAssembly | GapKind::IndirectCall)
                    })
                    || is_semantic(ctx, op);
                if relevant {
                    return (true, blocks);
                }
            }
        }
    }
    (false, blocks)
}

/// Runs the verifier on one scope. With [`Strategy::Indexed`], the facts come from the
/// worklist over an indexed store; otherwise `unguarded_facts` computes them.
pub(crate) fn analyze(ctx: &Context, scope: &Scope, strategy: Strategy, run: Run) -> ScopeAnalysis {
    analyze_with(ctx, scope, strategy, run, &mut |ctx, index| {
        // Facts say which pipeline state a value comes from, and only rules about states and
        // pipeline operations ask for one (a missing fact and `Unrelated` answer them alike).
        // A scope that creates no state and applies no pipeline operation has nothing to ask:
        // the fixpoint is skipped unless the caller wants the table itself (the oracle's
        // agreement check).
        if run.fact_table || PipelineUse::of(ctx, index) != PipelineUse::None {
            Box::new(dataflow::run_worklist(ctx, index))
        } else {
            Box::new(dataflow::IndexedFacts::default())
        }
    })
}

/// [`analyze`] with the fact computation supplied (the oracle passes its own).
pub(crate) fn analyze_with(
    ctx: &Context,
    scope: &Scope,
    strategy: Strategy,
    run: Run,
    compute_facts: &mut dyn for<'i> FnMut(&Context, &'i ScopeIndex) -> Box<dyn FactStore + 'i>,
) -> ScopeAnalysis {
    super::phases::start();
    if strategy == Strategy::Indexed {
        let (needed, blocks) = needs_verification(ctx, scope);
        super::phases::end("scope guard");
        if !needed {
            let report = ScopeReport {
                kernel: scope.kernel_name(ctx),
                status: ScopeStatus::Skipped,
                functions: scope.functions.len(),
                blocks,
                semantic_ops: 0,
                facts: 0,
                gaps: Vec::new(),
            };
            return ScopeAnalysis { report, rejections: Vec::new(), facts: FactTable::default() };
        }
    }
    let rejections = if run.local_verification {
        super::check_structure(ctx, scope).err().unwrap_or_default()
    } else {
        Vec::new()
    };
    if run.local_verification {
        super::phases::end("structure (pliron)");
    }
    let index = ScopeIndex::new(ctx, scope);
    super::phases::end("scope index");
    let mut report = ScopeReport {
        kernel: scope.kernel_name(ctx),
        status: ScopeStatus::Verified,
        functions: index.functions.len(),
        blocks: index.blocks.len(),
        semantic_ops: index.semantic_ops,
        facts: 0,
        gaps: Vec::new(),
    };
    if !rejections.is_empty() {
        return ScopeAnalysis { report, rejections, facts: FactTable::default() };
    }
    let operation_gaps = accounting::operation_gaps(ctx, &index);
    super::phases::end("operation gaps");
    let store = compute_facts(ctx, &index);
    super::phases::end("facts (fixpoint)");
    let mut facts = FactTable::default();
    if run.fact_table {
        for (value, fact) in store.entries() {
            if let Some(key) = index.key_of(ctx, value) {
                facts.0.insert(key, fact);
            }
        }
        report.facts = facts.len();
    } else {
        // The table's size without building it: a store holds each value once, and only values
        // of the scope (results of its operations, arguments of its blocks), which `key_of`
        // gives distinct keys.
        report.facts = store.len();
        debug_assert_eq!(
            report.facts,
            store.entries().into_iter().filter(|(value, _)| index.key_of(ctx, *value).is_some()).count()
        );
    }
    // Read by the byte counts, the pipeline identity, the thread model, the typestate, the
    // layout rule and the memory accounting: built once.
    let locals = super::memory::LocalStores::of(ctx, &index);
    super::phases::end("local stores");
    let byte_counts = typestate::byte_counts(ctx, &index, &locals);
    let mut undecided = not_checked(ctx, &index, &byte_counts);
    let mut reporter = Reporter { ctx, index: &index, rejections: Vec::new() };
    let applies_to = rules::check_provenance(&mut reporter, &*store);
    undecided.extend(applies_to.not_checked());
    super::phases::end("provenance");
    let operands = operands::check_operands(&mut reporter, &*store, &locals, &applies_to);
    undecided.extend(operands.not_checked);
    // One thread model for the rules that need one, built on the first ask.
    let thread_model = SharedThreadModel::new(ctx, &index, &locals);
    super::phases::end("operands");
    undecided.extend(roles::check_roles(&mut reporter, &applies_to, &operands.pipelines, &thread_model));
    undecided.extend(threads::check_threads(&mut reporter, &applies_to, &operands.pipelines, &thread_model));
    super::phases::end("roles and threads");
    let returns = dataflow::returns_of(&index);
    let (copy_passes, unordered) = typestate::check_ordering(
        &mut reporter,
        &*store,
        &locals,
        &returns,
        &applies_to,
        &thread_model,
        &byte_counts,
    );
    undecided.extend(unordered);
    super::phases::end("typestate");
    let init_gap = init_order::check_init_order(&mut reporter, &thread_model);
    super::phases::end("init order");
    let (layout_gaps, occupied) =
        layout::check_layout(&mut reporter, &*store, &locals, &returns, &thread_model, &copy_passes);
    super::phases::end("layout");
    report.gaps = operation_gaps;
    report.gaps.extend(accounting::call_gaps(ctx, &index, &*store, &locals, &returns));
    report.gaps.extend(recursion::recursion_gaps(ctx, &index));
    let memory = accounting::memory_gaps(ctx, &index, &*store, &locals, &returns);
    report.gaps.extend(races::shared_order_gaps(&mut reporter, &locals, &memory.shared, &thread_model));
    let (beside_gaps, beside_layout) =
        races::beside_layout_gaps(&mut reporter, &locals, &memory.beside_pipelines, &thread_model, &occupied);
    report.gaps.extend(beside_gaps);
    if PipelineUse::of(ctx, &index) == PipelineUse::CreatesState {
        // The race check asks this of scopes without a pipeline; a pipeline's roles are
        // thread-dependent branches, and a block barrier inside one hangs the other roles.
        report.gaps.extend(races::divergent_barrier_gap(ctx, &index, &thread_model));
    }
    report.gaps.extend(layout_gaps);
    report.gaps.extend(init_gap);
    report.gaps.extend(undecided.into_iter().map(Gap::undecided));
    super::phases::end("memory accounting and races");
    rules::check_pointers(&mut reporter);
    super::phases::end("pointer adaptation");
    let schedule = match strategy {
        Strategy::Indexed => wgmma::Schedule::Worklist,
        Strategy::Unguarded => wgmma::Schedule::Rounds,
    };
    wgmma::check_wgmma(&mut reporter, schedule, &beside_layout);
    super::phases::end("wgmma");
    let mut rejections = reporter.rejections;
    rejections.sort_by_key(|r| (index.op_number.get(&r.op).copied(), r.rule));
    ScopeAnalysis { report, rejections, facts }
}

/// What the rules cannot decide in this scope, beyond what they report themselves
/// (`plugin/MODEL.md`, "What makes a scope unverified"): byte counts that are not constants, and
/// states past the versions the typestate can tell apart.
fn not_checked(ctx: &Context, index: &ScopeIndex, known_bytes: &FxHashMap<usize, i64>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut versions = 0;
    let mut variable_bytes = 0;
    for (n, op) in index.ops_of_class(OpClass::Semantic) {
        if typestate::byte_count_operand(ctx, op).is_some() && !known_bytes.contains_key(&n) {
            variable_bytes += 1;
        }
        if Operation::get_op::<StateNewOp>(op, ctx).is_some()
            || Operation::get_op::<StateAdvanceOp>(op, ctx).is_some()
        {
            versions += 1;
        }
    }
    if versions > DISTINCT_VERSIONS {
        lines.push(format!(
            "stale copies of a state: {versions} state versions, more than the {} the typestate tells apart",
            DISTINCT_VERSIONS
        ));
    }
    if variable_bytes > 0 {
        lines.push(format!("{variable_bytes} transaction byte counts that are not constants"));
    }
    lines
}
