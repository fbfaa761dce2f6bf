//! The rules, checked once the provenance facts are known: state provenance, the producer and
//! consumer orderings and the producer tail (a typestate analysis per function), and pointer
//! adaptation across calls.

use std::collections::{BTreeMap, HashSet, VecDeque};

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
    facts::{Fact, FactStore, StateId, is_tracked},
    index::ScopeIndex,
};
use crate::ir::{
    builder::SourceLoc,
    mir::{
        arith::{AddrSpaceCastOp, CastKind, CastOp},
        control::{CallOp, ReturnOp},
        memory::{FieldAddrOp, IndexAddrOp, LoadOp},
        pointer_type_of,
    },
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
        let function = self
            .index
            .function_of_op(self.ctx, op)
            .map(|f| self.index.function_names[f].clone())
            .unwrap_or_default();
        let location = self.location(op);
        self.rejections.push(Rejection { rule, message, function, op, location, related });
    }

    fn describe_type(&self, ty: TypeHandle) -> String {
        ty.disp(self.ctx).to_string()
    }

    fn op_name(&self, op: Ptr<Operation>) -> String {
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
    fn of(ctx: &Context, op: Ptr<Operation>) -> Option<PipelineKind> {
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
    fn operands(self) -> (usize, Option<usize>) {
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
        Some(Fact::Conflict) => "different values on different paths (or a mix of states)",
        Some(Fact::Index(_)) => "a stage index",
        Some(Fact::Phase(_)) => "a phase bit",
        Some(Fact::Derived(_)) => "a value computed from a state, not the state's own index or phase",
    }
}

/// The note naming where `state` is created.
fn state_created(reporter: &Reporter, state: StateId) -> Related {
    reporter.related("the state is created here", reporter.index.state_op(state))
}

/// The role of a state.
fn role_of(ctx: &Context, index: &ScopeIndex, state: StateId) -> Option<PipelineRole> {
    Operation::get_op::<StateNewOp>(index.state_op(state), ctx).and_then(|op| op.role(ctx))
}

/// The operation that defines a value; for a block argument, the block's first operation.
fn defining_op(ctx: &Context, value: Value) -> Option<Ptr<Operation>> {
    match value.defining_entity() {
        DefiningEntity::Op(op) => Some(op),
        DefiningEntity::Block(block) => block.deref(ctx).iter(ctx).next(),
    }
}

/// Rule `state-provenance`. Returns, for every pipeline operation (by number) that passed,
/// the state it applies to and the operation's kind.
pub(crate) fn check_provenance(
    reporter: &mut Reporter,
    facts: &dyn FactStore,
) -> BTreeMap<usize, (StateId, PipelineKind)> {
    let (ctx, index) = (reporter.ctx, reporter.index);
    let mut applies_to = BTreeMap::new();
    for (n, op) in index.ops.iter().enumerate() {
        let Some(kind) = PipelineKind::of(ctx, *op) else { continue };
        let (index_operand, phase_operand) = kind.operands();
        let (stage, phase) = {
            let operation = op.deref(ctx);
            (operation.get_operand(index_operand), phase_operand.map(|i| operation.get_operand(i)))
        };
        let stage_fact = facts.get(stage);
        let Some(Fact::Index(state)) = stage_fact else {
            let name = reporter.op_name(*op);
            let mut related = Vec::new();
            if let Some(def) = defining_op(ctx, stage) {
                related.push(reporter.related("the stage index operand is defined here", def));
            }
            let message = format!(
                "`{name}`: its stage index (operand {index_operand}) must come from a pipeline state, \
                 but it is {}",
                describe_fact(stage_fact)
            );
            reporter.reject(Rule::StateProvenance, *op, message, related);
            continue;
        };
        if let (Some(phase), Some(phase_operand)) = (phase, phase_operand) {
            let phase_fact = facts.get(phase);
            if phase_fact != Some(Fact::Phase(state)) {
                let name = reporter.op_name(*op);
                let mut related = vec![state_created(reporter, state)];
                if let Some(def) = defining_op(ctx, phase) {
                    related.push(reporter.related("the phase operand is defined here", def));
                }
                let message = format!(
                    "`{name}`: its phase bit (operand {phase_operand}) must be the phase of the state its \
                     stage index comes from, but it is {}",
                    describe_fact(phase_fact)
                );
                reporter.reject(Rule::StateProvenance, *op, message, related);
                continue;
            }
        }
        if let Some(role) = kind.role()
            && role_of(ctx, index, state) != Some(role)
        {
            let name = reporter.op_name(*op);
            let message =
                format!("`{name}` is a {role:?} operation, applied to a state that is not a {role:?} state");
            let related = vec![state_created(reporter, state)];
            reporter.reject(Rule::StateProvenance, *op, message, related);
            continue;
        }
        // A bulk copy writes into the stage whose barrier it completes: its destination
        // address must be computed from that state's stage index, not from another counter.
        if kind == PipelineKind::BulkCopy {
            let destination = op.deref(ctx).get_operand(0);
            let destination_fact = facts.get(destination);
            if !matches!(destination_fact, Some(Fact::Index(s) | Fact::Derived(s)) if s == state) {
                let name = reporter.op_name(*op);
                let mut related = vec![state_created(reporter, state)];
                if let Some(def) = defining_op(ctx, destination) {
                    related.push(reporter.related("the destination address is computed here", def));
                }
                let message = format!(
                    "`{name}`: its destination (operand 0) must be computed from the stage index of the state \
                     whose barrier it completes, but it is {}",
                    describe_fact(destination_fact)
                );
                reporter.reject(Rule::StateProvenance, *op, message, related);
                continue;
            }
        }
        if index.function_of_op(ctx, index.state_op(state)) != index.function_of_op(ctx, *op) {
            let name = reporter.op_name(*op);
            let message = format!(
                "`{name}` operates on a state created in another function; pipeline operations must be \
                 in the function that creates the state (the ordering is checked per function)"
            );
            let related = vec![state_created(reporter, state)];
            reporter.reject(Rule::StateProvenance, *op, message, related);
            continue;
        }
        applies_to.insert(n, (state, kind));
    }
    applies_to
}

// Typestates, as bits of a set of possibilities.
const NOT_CREATED: u8 = 1;
const READY: u8 = 2;
const ACQUIRED: u8 = 4;
const EXPECTING: u8 = 8;
const TAILED: u8 = 16;
const WAITING: u8 = 32;
const RELEASED: u8 = 64;

fn describe_states(bits: u8) -> String {
    let names = [
        (NOT_CREATED, "not created"),
        (READY, "new or advanced"),
        (ACQUIRED, "acquired"),
        (EXPECTING, "expecting bytes"),
        (TAILED, "after its tail"),
        (WAITING, "waiting on a stage"),
        (RELEASED, "released"),
    ];
    names.iter().filter(|(bit, _)| bits & bit != 0).map(|(_, name)| *name).collect::<Vec<_>>().join(" or ")
}

/// What an operation does to a state's typestate.
enum Step {
    New,
    Pipeline(PipelineKind),
    /// A read of a stage of a consumer state.
    StageRead,
}

/// A consumer stage read: a load whose address is computed (through `mir.index_addr`,
/// `mir.field_addr` and pointer casts) with an offset that derives from a state's index
/// (looking through integer casts).
fn stage_read(ctx: &Context, facts: &dyn FactStore, load: Ptr<Operation>) -> Option<StateId> {
    let mut address = load.deref(ctx).get_operand(0);
    for _ in 0..64 {
        let op = address.defining_op()?;
        if Operation::get_op::<IndexAddrOp>(op, ctx).is_some() {
            let mut offset = op.deref(ctx).get_operand(1);
            for _ in 0..8 {
                if is_tracked(ctx, offset)
                    && let Some(Fact::Index(state) | Fact::Derived(state)) = facts.get(offset)
                {
                    return Some(state);
                }
                let Some(def) = offset.defining_op() else { break };
                match Operation::get_op::<CastOp>(def, ctx) {
                    Some(cast) if cast.kind(ctx) == Some(CastKind::IntToInt) => {
                        offset = def.deref(ctx).get_operand(0);
                    }
                    _ => break,
                }
            }
            address = op.deref(ctx).get_operand(0);
        } else if Operation::get_op::<FieldAddrOp>(op, ctx).is_some()
            || Operation::get_op::<CastOp>(op, ctx)
                .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr))
        {
            address = op.deref(ctx).get_operand(0);
        } else {
            return None;
        }
    }
    None
}

type Violation = (Rule, Ptr<Operation>, String, StateId);

/// The states of one function, each with its slot in a typestate vector.
struct Slots {
    /// State → slot.
    of: BTreeMap<StateId, usize>,
    /// Whether the state in each slot is a producer state.
    producer: Vec<bool>,
}

/// Rules `producer-order`, `consumer-order` and `producer-tail`: a may-analysis of every
/// state's typestate over its function's CFG (a worklist of blocks), then one pass over the
/// fixed point that reports the operations some path reaches in a wrong typestate.
pub(crate) fn check_ordering(
    reporter: &mut Reporter,
    facts: &dyn FactStore,
    applies_to: &BTreeMap<usize, (StateId, PipelineKind)>,
) {
    let (ctx, index) = (reporter.ctx, reporter.index);
    let mut steps: BTreeMap<usize, (StateId, Step)> = BTreeMap::new();
    // The states each function creates, in scope order.
    let mut states_of: Vec<Vec<StateId>> = vec![Vec::new(); index.functions.len()];
    for (n, op) in index.ops.iter().enumerate() {
        if Operation::get_op::<StateNewOp>(*op, ctx).is_some() {
            let state = StateId(n as u32);
            steps.insert(n, (state, Step::New));
            if let Some(f) = index.function_of_op(ctx, *op) {
                states_of[f].push(state);
            }
        } else if let Some((state, kind)) = applies_to.get(&n) {
            steps.insert(n, (*state, Step::Pipeline(*kind)));
        } else if Operation::get_op::<LoadOp>(*op, ctx).is_some()
            && let Some(state) = stage_read(ctx, facts, *op)
            && role_of(ctx, index, state) == Some(PipelineRole::Consumer)
            && index.function_of_op(ctx, index.state_op(state)) == index.function_of_op(ctx, *op)
        {
            steps.insert(n, (state, Step::StageRead));
        }
    }
    // Shared by the functions: each clears the in-states it set (`reached`) when done, so no
    // function pays for the blocks of the others.
    let mut block_in: Vec<Option<Vec<u8>>> = vec![None; index.blocks.len()];
    let mut queued = vec![false; index.blocks.len()];
    let mut reached = Vec::new();
    for (f, states) in states_of.iter().enumerate() {
        let blocks = index.blocks_of[f].clone();
        if states.is_empty() || blocks.is_empty() {
            continue;
        }
        let slots = Slots {
            of: states.iter().enumerate().map(|(i, s)| (*s, i)).collect(),
            producer: states
                .iter()
                .map(|s| role_of(ctx, index, *s) == Some(PipelineRole::Producer))
                .collect(),
        };
        let entry = blocks.start;
        block_in[entry] = Some(vec![NOT_CREATED; states.len()]);
        reached.push(entry);
        queued[entry] = true;
        let mut worklist = VecDeque::from([entry]);
        while let Some(b) = worklist.pop_front() {
            queued[b] = false;
            let start = block_in[b].clone().expect("queued blocks have an in-state");
            let out = run_typestate(reporter, &steps, &slots, b, start, None);
            for &succ in &index.succs[b] {
                let changed = match &mut block_in[succ] {
                    None => {
                        block_in[succ] = Some(out.clone());
                        reached.push(succ);
                        true
                    }
                    Some(into) => {
                        let mut changed = false;
                        for (into, from) in into.iter_mut().zip(&out) {
                            if *into | from != *into {
                                *into |= from;
                                changed = true;
                            }
                        }
                        changed
                    }
                };
                if changed && !queued[succ] {
                    queued[succ] = true;
                    worklist.push_back(succ);
                }
            }
        }
        for b in blocks {
            if let Some(start) = block_in[b].clone() {
                let mut found = Vec::new();
                run_typestate(reporter, &steps, &slots, b, start, Some(&mut found));
                for (rule, op, message, state) in found {
                    let related = vec![state_created(reporter, state)];
                    reporter.reject(rule, op, message, related);
                }
            }
        }
        // The worklist is empty, so `queued` is all false again.
        for b in reached.drain(..) {
            block_in[b] = None;
        }
    }
}

/// The typestate machine over block `b` from `state`; returns the out-state and, with
/// `report`, collects violations.
fn run_typestate(
    reporter: &Reporter,
    steps: &BTreeMap<usize, (StateId, Step)>,
    slots: &Slots,
    b: usize,
    mut state: Vec<u8>,
    mut report: Option<&mut Vec<Violation>>,
) -> Vec<u8> {
    let (ctx, index) = (reporter.ctx, reporter.index);
    for n in index.ops_of_block[b].clone() {
        let op = index.ops[n];
        if Operation::get_op::<ReturnOp>(op, ctx).is_some() {
            if let Some(report) = report.as_deref_mut() {
                report_unfinished(slots, &state, op, report);
            }
            continue;
        }
        let Some((s, step)) = steps.get(&n) else { continue };
        let Some(i) = slots.of.get(s).copied() else { continue };
        let bits = state[i];
        let producer = slots.producer[i];
        let (allowed, next, rule, what) = transition(step, producer);
        if bits & !allowed != 0
            && let Some(report) = report.as_deref_mut()
        {
            let name = reporter.op_name(op);
            // Producer work after the tail breaks the tail rule, whatever the operation.
            let after_tail = producer && bits & TAILED != 0;
            let message = if after_tail && !matches!(step, Step::Pipeline(PipelineKind::Tail)) {
                format!(
                    "`{name}` is reachable after `semantic.producer_tail`: the tail must come after the \
                     producer loop, not inside it"
                )
            } else {
                format!("{what}; on some path the state here is {}", describe_states(bits & !allowed))
            };
            report.push((if after_tail { Rule::ProducerTail } else { rule }, op, message, *s));
        }
        state[i] = next;
    }
    state
}

/// For a step: the typestates it is allowed in, the typestate after it, the rule a wrong
/// typestate breaks, and what the rule says.
fn transition(step: &Step, producer: bool) -> (u8, u8, Rule, &'static str) {
    match step {
        Step::New => (u8::MAX, READY, Rule::ProducerOrder, ""),
        Step::StageRead => (
            WAITING,
            WAITING,
            Rule::ConsumerOrder,
            "a read of a stage must come after `semantic.consumer_wait` and before `semantic.consumer_release`",
        ),
        Step::Pipeline(kind) => match kind {
            PipelineKind::Acquire => (
                READY,
                ACQUIRED,
                Rule::ProducerOrder,
                "`semantic.producer_acquire` must follow the state's creation or `semantic.state_advance`",
            ),
            PipelineKind::ExpectTx => (
                ACQUIRED,
                EXPECTING,
                Rule::ProducerOrder,
                "`semantic.producer_expect_tx` must follow `semantic.producer_acquire`",
            ),
            PipelineKind::BulkCopy => (
                EXPECTING,
                EXPECTING,
                Rule::ProducerOrder,
                "`semantic.bulk_copy` must come between `semantic.producer_expect_tx` and `semantic.state_advance`",
            ),
            PipelineKind::Advance if producer => (
                EXPECTING,
                READY,
                Rule::ProducerOrder,
                "a producer's `semantic.state_advance` must follow `semantic.producer_expect_tx`",
            ),
            PipelineKind::Advance => (
                RELEASED,
                READY,
                Rule::ConsumerOrder,
                "a consumer's `semantic.state_advance` must follow `semantic.consumer_release`",
            ),
            PipelineKind::Tail => (
                READY,
                TAILED,
                Rule::ProducerTail,
                "`semantic.producer_tail` must come after the producer loop, with no stage acquired",
            ),
            PipelineKind::Wait => (
                READY,
                WAITING,
                Rule::ConsumerOrder,
                "`semantic.consumer_wait` must follow the state's creation or `semantic.state_advance`",
            ),
            PipelineKind::Release => (
                WAITING,
                RELEASED,
                Rule::ConsumerOrder,
                "`semantic.consumer_release` must follow `semantic.consumer_wait`",
            ),
        },
    }
}

/// At a `mir.return`: a producer must have run its tail, a consumer must not hold a stage.
fn report_unfinished(slots: &Slots, state: &[u8], op: Ptr<Operation>, report: &mut Vec<Violation>) {
    for (s, i) in &slots.of {
        let bits = state[*i];
        if slots.producer[*i] {
            if bits & (READY | ACQUIRED | EXPECTING) != 0 {
                let message = "a path leaves the function with a producer state that never reached \
                               `semantic.producer_tail`"
                    .to_string();
                report.push((Rule::ProducerTail, op, message, *s));
            }
        } else if bits & WAITING != 0 {
            let message =
                "a path leaves the function while a consumer waits on a stage it never released".to_string();
            report.push((Rule::ConsumerOrder, op, message, *s));
        }
    }
}

/// Rule `pointer-adaptation`: every pointer argument of a call has its parameter's type, or
/// is a `mir.addrspace_cast` whose result has it; every adaptation goes from Shared or Global
/// to Generic and keeps pointee, mutability and pointer kind.
pub(crate) fn check_pointers(reporter: &mut Reporter) {
    let (ctx, index) = (reporter.ctx, reporter.index);
    let mut checked_casts = HashSet::new();
    for op in &index.ops {
        let Some(call) = Operation::get_op::<CallOp>(*op, ctx) else { continue };
        let Some((params, _)) = call.callee_signature(ctx) else { continue };
        let callee = call.callee(ctx).map(|c| c.to_string()).unwrap_or_default();
        let args: Vec<Value> = op.deref(ctx).operands().collect();
        for (i, (arg, param)) in args.iter().zip(&params).enumerate() {
            check_argument(reporter, *op, &callee, i, *arg, *param, &mut checked_casts);
        }
    }
    for op in &index.ops {
        if checked_casts.contains(op) || Operation::get_op::<AddrSpaceCastOp>(*op, ctx).is_none() {
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
            reporter.reject(Rule::PointerAdaptation, *op, message, vec![]);
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
    checked_casts: &mut HashSet<Ptr<Operation>>,
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
