//! The rules, checked once the provenance facts are known: state provenance and pointer
//! adaptation across calls (the orderings are in [`super::typestate`]).

use std::collections::BTreeMap;

use rustc_hash::FxHashSet;

use pliron::{
    context::{Context, Ptr},
    linked_list::ContainsLinkedList,
    operation::Operation,
    printable::Printable,
    r#type::{TypeHandle, Typed},
    value::{DefiningEntity, Value},
};

use super::{
    Rejection, Related, Rule,
    facts::{Fact, FactStore, StateId},
    index::{OpClass, ScopeIndex},
};
use crate::ir::{
    builder::SourceLoc,
    mir::{arith::AddrSpaceCastOp, control::CallOp, pointer_type_of},
    semantic::{
        memory::BulkCopyOp,
        pipeline::{
            ConsumerReleaseOp, ConsumerWaitOp, PipelineRole, ProducerAcquireOp, ProducerExpectTxOp,
            ProducerTailOp, StateAdvanceOp, StateNewOp,
        },
    },
    types::AddressSpace,
};

/// Collects rejections with their locations.
pub(crate) struct Reporter<'a> {
    pub ctx: &'a Context,
    pub index: &'a ScopeIndex,
    pub rejections: Vec<Rejection>,
}

impl Reporter<'_> {
    pub(crate) fn location(&self, op: Ptr<Operation>) -> Option<SourceLoc> {
        SourceLoc::from_location(self.ctx, op.deref(self.ctx).loc())
    }

    pub(crate) fn related(&self, note: impl Into<String>, op: Ptr<Operation>) -> Related {
        Related { note: note.into(), op, location: self.location(op) }
    }

    pub(crate) fn reject(&mut self, rule: Rule, op: Ptr<Operation>, message: String, related: Vec<Related>) {
        let function =
            self.index.function_of_op(op).map(|f| self.index.function_names[f].clone()).unwrap_or_default();
        let location = self.location(op);
        self.rejections.push(Rejection { rule, message, function, op, location, related });
    }

    fn describe_type(&self, ty: TypeHandle) -> String {
        ty.disp(self.ctx).to_string()
    }

    pub(crate) fn op_name(&self, op: Ptr<Operation>) -> String {
        Operation::get_opid(op, self.ctx).to_string()
    }
}

/// The pipeline operations, by what they need from their operands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum PipelineKind {
    Acquire,
    ExpectTx,
    Tail,
    Wait,
    Release,
    Advance,
    BulkCopy,
}

impl PipelineKind {
    pub(crate) fn of(ctx: &Context, op: Ptr<Operation>) -> Option<PipelineKind> {
        Some(if Operation::get_op::<ProducerAcquireOp>(op, ctx).is_some() {
            PipelineKind::Acquire
        } else if Operation::get_op::<ProducerExpectTxOp>(op, ctx).is_some() {
            PipelineKind::ExpectTx
        } else if Operation::get_op::<ProducerTailOp>(op, ctx).is_some() {
            PipelineKind::Tail
        } else if Operation::get_op::<ConsumerWaitOp>(op, ctx).is_some() {
            PipelineKind::Wait
        } else if Operation::get_op::<ConsumerReleaseOp>(op, ctx).is_some() {
            PipelineKind::Release
        } else if Operation::get_op::<StateAdvanceOp>(op, ctx).is_some() {
            PipelineKind::Advance
        } else if Operation::get_op::<BulkCopyOp>(op, ctx).is_some() {
            PipelineKind::BulkCopy
        } else {
            return None;
        })
    }

    /// (operand holding the stage index, operand holding the phase bit if the op takes one).
    pub(crate) fn operands(self) -> (usize, Option<usize>) {
        match self {
            PipelineKind::Acquire | PipelineKind::Tail | PipelineKind::Wait | PipelineKind::Advance => {
                (0, Some(1))
            }
            PipelineKind::ExpectTx | PipelineKind::Release => (0, None),
            PipelineKind::BulkCopy => (3, None),
        }
    }

    /// The role of the state the op applies to (`None`: either).
    fn role(self) -> Option<PipelineRole> {
        match self {
            PipelineKind::Acquire | PipelineKind::ExpectTx | PipelineKind::Tail | PipelineKind::BulkCopy => {
                Some(PipelineRole::Producer)
            }
            PipelineKind::Wait | PipelineKind::Release => Some(PipelineRole::Consumer),
            PipelineKind::Advance => None,
        }
    }
}

fn describe_fact(fact: Option<Fact>) -> &'static str {
    match fact {
        None | Some(Fact::Unrelated) => "an integer unrelated to any pipeline state",
        Some(Fact::Unknown) => "a value read from memory the verifier does not follow",
        Some(Fact::Conflict) => "different values on different paths (or a mix of states)",
        Some(Fact::Contexts) => "different states handed to one helper by different calls",
        Some(Fact::Index(_)) => "a stage index",
        Some(Fact::Phase(_)) => "a phase bit",
        Some(Fact::Derived(_)) => "a value computed from a state, not the state's own index or phase",
    }
}

/// The note naming where `state` is created.
pub(crate) fn state_created(reporter: &Reporter, state: StateId) -> Related {
    reporter.related("the state is created here", reporter.index.state_op(state))
}

/// The role of a state.
pub(crate) fn role_of(ctx: &Context, index: &ScopeIndex, state: StateId) -> Option<PipelineRole> {
    Operation::get_op::<StateNewOp>(index.state_op(state), ctx).and_then(|op| op.role(ctx))
}

/// The stage count a state was created with.
pub(crate) fn stages_of(ctx: &Context, index: &ScopeIndex, state: StateId) -> Option<u32> {
    Operation::get_op::<StateNewOp>(index.state_op(state), ctx).and_then(|op| op.stages(ctx))
}

/// The operation that defines a value; for a block argument, the block's first operation.
fn defining_op(ctx: &Context, value: Value) -> Option<Ptr<Operation>> {
    match value.defining_entity() {
        DefiningEntity::Op(op) => Some(op),
        DefiningEntity::Block(block) => block.deref(ctx).iter(ctx).next(),
    }
}

/// What rule `state-provenance` found, for the typestate analysis.
pub(crate) struct Provenance {
    /// For every pipeline operation (by number) that passed: its state and kind.
    pub applies_to: BTreeMap<usize, (StateId, PipelineKind)>,
    /// Every pipeline operation that failed: the state its stage operand names, if any. The
    /// typestate analysis says nothing more about that state on paths through it (one error
    /// per cause), about every state of its function when it names none.
    pub failed: BTreeMap<usize, Option<StateId>>,
    /// Pipeline operations whose operands' provenance was lost joining the calls of one
    /// function ([`Fact::Contexts`]) or read from memory the facts do not follow
    /// ([`Fact::Unknown`]): neither passed nor rejected, they make the scope unverified. Also in
    /// `failed`, so the typestate stops there too.
    pub lost_per_call: usize,
}

impl Provenance {
    /// The not-checked line for the operations whose provenance was lost per call or through
    /// 64-bit arithmetic, if any.
    pub(crate) fn not_checked(&self) -> Option<String> {
        (self.lost_per_call > 0).then(|| {
            format!(
                "the states of {} pipeline operations (a helper is called with different states, and \
                 provenance is kept per value, not per call; or an operand went through 64-bit arithmetic, \
                 or was read from memory, such as an array of states at a run-time index, that provenance \
                 does not follow)",
                self.lost_per_call
            )
        })
    }
}

/// Rule `state-provenance`.
pub(crate) fn check_provenance(reporter: &mut Reporter, facts: &dyn FactStore) -> Provenance {
    let (ctx, index) = (reporter.ctx, reporter.index);
    let mut applies_to = BTreeMap::new();
    let mut failed = BTreeMap::new();
    let mut lost_per_call = 0;
    for (n, op) in index.ops_of_class(OpClass::Semantic) {
        let Some(kind) = PipelineKind::of(ctx, op) else { continue };
        let (index_operand, phase_operand) = kind.operands();
        let (stage, phase) = {
            let operation = op.deref(ctx);
            (operation.get_operand(index_operand), phase_operand.map(|i| operation.get_operand(i)))
        };
        let stage_fact = facts.get(stage);
        let lost = |value: Option<Value>| {
            value.is_some_and(|v| matches!(facts.get(v), Some(Fact::Contexts | Fact::Unknown)))
        };
        let destination = (kind == PipelineKind::BulkCopy).then(|| op.deref(ctx).get_operand(0));
        if lost(Some(stage)) || lost(phase) || lost(destination) {
            failed.insert(n, stage_fact.and_then(Fact::state));
            lost_per_call += 1;
            continue;
        }
        let Some(Fact::Index(state)) = stage_fact else {
            let name = reporter.op_name(op);
            let mut related = Vec::new();
            if let Some(def) = defining_op(ctx, stage) {
                related.push(reporter.related("the stage index operand is defined here", def));
            }
            let message = format!(
                "`{name}`: its stage index (operand {index_operand}) must come from a pipeline state, \
                 but it is {}",
                describe_fact(stage_fact)
            );
            reporter.reject(Rule::StateProvenance, op, message, related);
            failed.insert(n, stage_fact.and_then(Fact::state));
            continue;
        };
        if let (Some(phase), Some(phase_operand)) = (phase, phase_operand) {
            let phase_fact = facts.get(phase);
            if phase_fact != Some(Fact::Phase(state)) {
                let name = reporter.op_name(op);
                let mut related = vec![state_created(reporter, state)];
                if let Some(def) = defining_op(ctx, phase) {
                    related.push(reporter.related("the phase operand is defined here", def));
                }
                let message = format!(
                    "`{name}`: its phase bit (operand {phase_operand}) must be the phase of the state its \
                     stage index comes from, but it is {}",
                    describe_fact(phase_fact)
                );
                reporter.reject(Rule::StateProvenance, op, message, related);
                failed.insert(n, Some(state));
                continue;
            }
        }
        if let Some(role) = kind.role()
            && role_of(ctx, index, state) != Some(role)
        {
            let name = reporter.op_name(op);
            let message =
                format!("`{name}` is a {role:?} operation, applied to a state that is not a {role:?} state");
            let related = vec![state_created(reporter, state)];
            reporter.reject(Rule::StateProvenance, op, message, related);
            failed.insert(n, Some(state));
            continue;
        }
        // A bulk copy writes into the stage whose barrier it completes: its destination
        // address must be computed from that state's stage index, not from another counter.
        if let Some(destination) = destination {
            let destination_fact = facts.get(destination);
            if !matches!(destination_fact, Some(Fact::Index(s) | Fact::Derived(s)) if s == state) {
                let name = reporter.op_name(op);
                let mut related = vec![state_created(reporter, state)];
                if let Some(def) = defining_op(ctx, destination) {
                    related.push(reporter.related("the destination address is computed here", def));
                }
                let message = format!(
                    "`{name}`: its destination (operand 0) must be computed from the stage index of the state \
                     whose barrier it completes, but it is {}",
                    describe_fact(destination_fact)
                );
                reporter.reject(Rule::StateProvenance, op, message, related);
                failed.insert(n, Some(state));
                continue;
            }
        }
        // An operation in another function than the state's creation is fine: the typestate
        // follows the state into helpers through function summaries.
        applies_to.insert(n, (state, kind));
    }
    Provenance { applies_to, failed, lost_per_call }
}

/// Rule `pointer-adaptation`: every pointer argument of a call has its parameter's type, or
/// is a `mir.addrspace_cast` whose result has it; every adaptation goes from Shared or Global
/// to Generic and keeps pointee, mutability and pointer kind.
pub(crate) fn check_pointers(reporter: &mut Reporter) {
    let (ctx, index) = (reporter.ctx, reporter.index);
    let mut checked_casts = FxHashSet::default();
    for (_, op) in index.ops_of_class(OpClass::Call) {
        let Some(call) = Operation::get_op::<CallOp>(op, ctx) else { continue };
        let Some((params, _)) = call.callee_signature(ctx) else { continue };
        let callee = call.callee(ctx).map(|c| c.to_string()).unwrap_or_default();
        let args: Vec<Value> = op.deref(ctx).operands().collect();
        for (i, (arg, param)) in args.iter().zip(&params).enumerate() {
            check_argument(reporter, op, &callee, i, *arg, *param, &mut checked_casts);
        }
    }
    for (_, op) in index.ops_of_class(OpClass::AddrSpaceCast) {
        if checked_casts.contains(&op) {
            continue;
        }
        let (source, target) = {
            let operation = op.deref(ctx);
            (operation.get_operand(0).get_type(ctx), operation.get_result(0).get_type(ctx))
        };
        if let Some(problem) = adaptation_problem(ctx, source, target) {
            let message = format!(
                "the address-space adaptation from `{}` to `{}` {problem}",
                reporter.describe_type(source),
                reporter.describe_type(target)
            );
            reporter.reject(Rule::PointerAdaptation, op, message, vec![]);
        }
    }
}

fn check_argument(
    reporter: &mut Reporter,
    call: Ptr<Operation>,
    callee: &str,
    i: usize,
    arg: Value,
    param: TypeHandle,
    checked_casts: &mut FxHashSet<Ptr<Operation>>,
) {
    let ctx = reporter.ctx;
    let arg_ty = arg.get_type(ctx);
    let cast = arg.defining_op().filter(|def| Operation::get_op::<AddrSpaceCastOp>(*def, ctx).is_some());
    if let Some(cast) = cast {
        checked_casts.insert(cast);
        let source = cast.deref(ctx).get_operand(0).get_type(ctx);
        if let Some(problem) = adaptation_problem(ctx, source, arg_ty) {
            let message = format!(
                "call of `@{callee}`, argument {i}: the address-space adaptation from `{}` to `{}` {problem} \
                 (parameter type `{}`)",
                reporter.describe_type(source),
                reporter.describe_type(arg_ty),
                reporter.describe_type(param)
            );
            let related = vec![reporter.related("the adaptation is here", cast)];
            reporter.reject(Rule::PointerAdaptation, call, message, related);
            return;
        }
    }
    if arg_ty == param {
        return;
    }
    let (from, to) = (pointer_type_of(ctx, arg_ty), pointer_type_of(ctx, param));
    let mut related = Vec::new();
    if let Some(def) = defining_op(ctx, arg) {
        related.push(reporter.related("the argument is defined here", def));
    }
    let (arg_desc, param_desc) = (reporter.describe_type(arg_ty), reporter.describe_type(param));
    let (rule, message) = match (from, to) {
        (Some(from), Some(to))
            if from.space() == AddressSpace::Shared && to.space() == AddressSpace::Generic =>
        {
            (
                Rule::PointerAdaptation,
                format!(
                    "call of `@{callee}`, argument {i}: a shared-memory pointer `{arg_desc}` is passed to the \
                 generic pointer parameter `{param_desc}` without an explicit `mir.addrspace_cast`"
                ),
            )
        }
        (None, None) => (
            Rule::WellFormed,
            format!(
                "call of `@{callee}`, argument {i}: type `{arg_desc}` differs from the parameter type `{param_desc}`"
            ),
        ),
        _ => (
            Rule::PointerAdaptation,
            format!(
                "call of `@{callee}`, argument {i}: `{arg_desc}` is passed for a parameter of type `{param_desc}` \
                 (pointee, mutability, pointer kind and address space must agree)"
            ),
        ),
    };
    reporter.reject(rule, call, message, related);
}

/// What is wrong with adapting `source` to `target`, if anything.
fn adaptation_problem(ctx: &Context, source: TypeHandle, target: TypeHandle) -> Option<&'static str> {
    let (Some(from), Some(to)) = (pointer_type_of(ctx, source), pointer_type_of(ctx, target)) else {
        return Some("is not between pointers");
    };
    if from.space() == AddressSpace::Generic || to.space() != AddressSpace::Generic {
        return Some("must go from a specific address space (Shared or Global) to Generic");
    }
    if from.pointee() != to.pointee() {
        return Some("changes the pointee type");
    }
    if from.mutability() != to.mutability() {
        return Some("changes the mutability");
    }
    if from.kind() != to.kind() {
        return Some("changes the pointer kind");
    }
    None
}
