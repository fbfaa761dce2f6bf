//! Rules `pipeline-identity` and `copy-destination`: the operands of a pipeline operation
//! beyond its state.
//!
//! - **Pipeline identity.** Every operation on one state (acquire, expect-tx, the copy's
//!   barrier, tail; wait, release) must use the barriers of one pipeline: a state is a position
//!   in one ring. The import names the pipeline by the address of the `Pipeline` value the
//!   method is called on (`first.consumer_wait(&state)` names `&first`); two operations name
//!   the same pipeline when that address is the same variable (through pointer casts, a
//!   reference kept in a variable stored once, a reference kept in a field of a struct a helper
//!   built or was handed, where every value the walk through memory finds there names the same
//!   variable, and a helper's parameter that every call of the helper binds to the same
//!   variable). An address the rule cannot resolve to one variable (a reference chosen on a
//!   path, a parameter bound to different pipelines by different calls) is not judged and is
//!   counted as not checked.
//! - **Copy destination.** A bulk copy writes into the stage it completes: its destination
//!   must be the ring's base plus the state's stage index scaled by the stage size, the index
//!   used as it is. An index offset before it is scaled (`(index + 1) * SIZE`), wrapped
//!   (`% STAGES`), masked, divided or subtracted names another stage.
//!
//! Byte counts (`expect_tx` against the copies on every path) are rule `expect-tx-bytes`, in
//! [`super::typestate`], which follows them along the state's typestate.

use std::collections::{BTreeMap, BTreeSet};

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

use super::{
    Rule,
    constants::mask_keeps_every_index,
    dataflow::{function_returns, returned_by},
    facts::{Fact, FactStore, StateId, is_tracked},
    flow::Flow,
    index::{CallBinding, ScopeIndex},
    locals::LocalStores,
    memory::constant_value,
    pipeline_calls::makes_pipeline,
    rules::{PipelineKind, Provenance, Reporter, state_created},
};
use crate::ir::{
    mir::{
        arith::{BinOp, BinOpKind, CastKind, CastOp},
        memory::{AllocaOp, LoadOp},
    },
    semantic::pipeline::pipeline_operand,
};

mod disjoint;

/// Helper calls a pipeline operand is followed up through.
const MAX_CALL_DEPTH: u32 = 4;
/// Definitions the walk through memory may look at for one reference read from a struct.
const FLOW_BUDGET: u32 = 64;
/// Calls deep [`runs_once`] looks for the kernel.
const RUNS_ONCE_DEPTH: u32 = 8;

/// A pipeline, named by the place of its `Pipeline` value: a local and the path of fields
/// inside it (`cx.pipe` of a context struct is the local `cx` and its pipeline field).
pub(crate) type PipelinePlace = (Value, Vec<u32>);

/// What the operand rules found: each state's pipeline variable, where one was named.
pub(crate) struct Operands {
    pub pipelines: BTreeMap<StateId, PipelinePlace>,
    /// What the rules could not judge, one line per kind (for `ScopeReport::not_checked`).
    pub not_checked: Vec<String>,
}

/// Rules `pipeline-identity` and `copy-destination`.
pub(crate) fn check_operands(
    reporter: &mut Reporter,
    facts: &dyn FactStore,
    locals: &LocalStores,
    provenance: &Provenance,
) -> Operands {
    let mut not_checked = Vec::new();
    let (unnamed, pipelines) = check_pipeline_identity(reporter, locals, provenance);
    if unnamed > 0 {
        not_checked.push(format!(
            "pipeline identity of {unnamed} pipeline operations (the pipeline is not one variable of the \
             function: a reference chosen on a path, a parameter or a field)"
        ));
    }
    let undecided = check_copy_destinations(reporter, facts, locals, provenance);
    if undecided > 0 {
        not_checked.push(format!(
            "the stage {undecided} bulk copies write into (the destination is computed through memory or a \
             block argument)"
        ));
    }
    Operands { pipelines, not_checked }
}

/// The position of the pipeline operand of an operation of `kind` (after its fixed operands).
fn pipeline_position(kind: PipelineKind) -> Option<usize> {
    match kind {
        PipelineKind::Acquire | PipelineKind::ExpectTx | PipelineKind::Tail | PipelineKind::Wait => Some(2),
        PipelineKind::Release => Some(1),
        PipelineKind::BulkCopy => Some(4),
        PipelineKind::Advance => None,
    }
}

/// The variable (its `mir.alloca`) a pipeline operand is the address of: through pointer casts,
/// through a local the address was stored into once (a reference kept in a variable), and
/// through a helper's parameter when every call of the helper in the scope hands it the same
/// variable. `None` when it is not one variable's address, or the calls disagree.
fn pipeline_variable(
    ctx: &Context,
    index: &ScopeIndex,
    locals: &LocalStores,
    mut address: Value,
    depth: u32,
) -> Option<Value> {
    for _ in 0..16 {
        let def = match address.defining_entity() {
            DefiningEntity::Op(def) => def,
            DefiningEntity::Block(_) => {
                return parameter_variable(ctx, index, locals, address, depth);
            }
        };
        if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
            return Some(address);
        }
        if let Some(cast) = Operation::get_op::<CastOp>(def, ctx) {
            if cast.kind(ctx) != Some(CastKind::PtrToPtr) {
                return None;
            }
            address = def.deref(ctx).get_operand(0);
        } else if Operation::get_op::<LoadOp>(def, ctx).is_some() {
            let slot = def.deref(ctx).get_operand(0);
            match locals.only_store_into(ctx, slot) {
                Some(stored) => address = stored,
                None => return stored_variable(ctx, index, locals, slot, address, depth),
            }
        } else {
            return None;
        }
    }
    None
}

/// The variable the reference `loaded` (read from `slot`) names, where `slot` is no local
/// stored once: a field of a struct a helper built and returned, or of a struct handed in by
/// value (`Full { pipe, state }` from `wait_full(&pipe, …)`), found by the walk through memory
/// and calls; every value it may hold must name the same variable.
fn stored_variable(
    ctx: &Context,
    index: &ScopeIndex,
    locals: &LocalStores,
    slot: Value,
    loaded: Value,
    depth: u32,
) -> Option<Value> {
    if depth == 0 {
        return None;
    }
    let flow = Flow { ctx, index, locals, leaf: Some(loaded.get_type(ctx)) };
    let mut budget = FLOW_BUDGET;
    let stored = flow.pointees(slot, &[], &mut budget)?;
    if stored.contains(&loaded) {
        return None;
    }
    agreed_variable(ctx, index, locals, stored, depth - 1)
}

/// The one variable all of `values` name (each through [`pipeline_variable`]), if they agree.
fn agreed_variable(
    ctx: &Context,
    index: &ScopeIndex,
    locals: &LocalStores,
    values: Vec<Value>,
    depth: u32,
) -> Option<Value> {
    let mut agreed = None;
    for value in values {
        let variable = pipeline_variable(ctx, index, locals, value, depth)?;
        match agreed {
            None => agreed = Some(variable),
            Some(seen) if seen == variable => {}
            Some(_) => return None,
        }
    }
    agreed
}

/// The variable every call of a helper hands its parameter `value`, if they all hand the same
/// one.
fn parameter_variable(
    ctx: &Context,
    index: &ScopeIndex,
    locals: &LocalStores,
    value: Value,
    depth: u32,
) -> Option<Value> {
    if depth == 0 {
        return None;
    }
    agreed_variable(ctx, index, locals, index.call_arguments(ctx, value)?, depth - 1)
}

/// Rule `pipeline-identity`; returns how many operations it could not judge, and each state's
/// pipeline variable.
fn check_pipeline_identity(
    reporter: &mut Reporter,
    locals: &LocalStores,
    provenance: &Provenance,
) -> (usize, BTreeMap<StateId, PipelinePlace>) {
    let ctx = reporter.ctx;
    let mut unnamed = 0;
    // State → (its pipeline variable, the first operation that named it).
    let mut pipeline_of: BTreeMap<StateId, (PipelinePlace, Ptr<Operation>)> = BTreeMap::new();
    for (n, (state, kind)) in &provenance.applies_to {
        let Some(position) = pipeline_position(*kind) else { continue };
        let op = reporter.index.ops[*n];
        let variable = pipeline_operand(ctx, op, position).and_then(|address| {
            let place = locals.slot(ctx, address).or_else(|| {
                pipeline_variable(ctx, reporter.index, locals, address, MAX_CALL_DEPTH)
                    .map(|local| (local, vec![]))
            })?;
            Some(locals.origin(ctx, reporter.index, place))
        });
        let Some(variable) = variable else {
            unnamed += 1;
            continue;
        };
        match pipeline_of.get(state) {
            None => {
                pipeline_of.insert(*state, (variable, op));
            }
            // Two places: what each may hold decides (`held_pipelines`). Where the walk cannot
            // tell, two whole variables are two pipelines (the rule's assumption: one variable per
            // pipeline), and a field of a struct (a `Pipeline` moved through the structs helpers
            // return) is not judged.
            Some((first, _)) if *first == variable => {}
            Some((first, first_op)) => match held_pipelines(ctx, reporter.index, locals, first, &variable) {
                Held::One => {}
                Held::Unknown if !first.1.is_empty() || !variable.1.is_empty() => unnamed += 1,
                Held::Two | Held::Unknown => {
                    let name = reporter.op_name(op);
                    let message = format!(
                        "`{name}` uses the barriers of another pipeline than the state's earlier operations: a \
                         state is a position in one ring, so every acquire, expect-tx, copy barrier, wait, \
                         release and tail on it must use the same pipeline (otherwise a barrier never \
                         completes: deadlock)"
                    );
                    let related = vec![
                        reporter.related("the state's pipeline is first used here", *first_op),
                        state_created(reporter, *state),
                    ];
                    reporter.reject(Rule::PipelineIdentity, op, message, related);
                }
            },
        }
    }
    (unnamed, pipeline_of.into_iter().map(|(state, (variable, _))| (state, variable)).collect())
}

/// What two places of one state's operations hold, by the `Pipeline::init` and `attach` calls
/// whose results the walk through memory finds in them.
enum Held {
    /// Both only the result of one call, which a launch runs once (on no cycle, in a function
    /// called once from such a block, up to the kernel).
    One,
    /// Each only results of such calls, and no call among both (the broken kernel's `first` and
    /// `second`).
    Two,
    /// Anything else.
    Unknown,
}

fn held_pipelines(
    ctx: &Context,
    index: &ScopeIndex,
    locals: &LocalStores,
    a: &PipelinePlace,
    b: &PipelinePlace,
) -> Held {
    let (Some(a), Some(b)) = (pipeline_makers(ctx, index, locals, a), pipeline_makers(ctx, index, locals, b))
    else {
        return Held::Unknown;
    };
    match (a.first(), a.len(), b.first(), b.len()) {
        (Some(x), 1, Some(y), 1) if x == y && runs_once(index, *x) => Held::One,
        _ if a.is_disjoint(&b) => Held::Two,
        _ => Held::Unknown,
    }
}

/// The `Pipeline::init` and `attach` calls (operation numbers) whose result `place` may hold;
/// `None` where it may hold anything else, or nothing the walk finds.
fn pipeline_makers(
    ctx: &Context,
    index: &ScopeIndex,
    locals: &LocalStores,
    (local, path): &PipelinePlace,
) -> Option<BTreeSet<usize>> {
    let flow = Flow { ctx, index, locals, leaf: None };
    let mut budget = FLOW_BUDGET;
    let values = flow.pointees(*local, path, &mut budget)?;
    if values.is_empty() {
        return None;
    }
    values
        .iter()
        .map(|value| {
            let call = value.defining_op()?;
            let n = *index.op_number.get(&call)?;
            makes_pipeline(ctx, call).then_some(n)
        })
        .collect()
}

/// Whether operation `n` runs once in a thread's launch: on no cycle of its function, which is
/// the kernel or a function called once, from a block on no cycle, by such a function.
fn runs_once(index: &ScopeIndex, mut n: usize) -> bool {
    for _ in 0..RUNS_ONCE_DEPTH {
        let b = index.op_block[n];
        if index.cycles().on_cycle(b) {
            return false;
        }
        let f = index.block_function[b];
        if f == 0 {
            return true;
        }
        let &[call] = index.callers[f].as_slice() else { return false };
        n = call;
    }
    false
}

/// How a destination address depends on the stage index of the copy's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Not at all (the ring base, a byte offset inside the stage).
    Free,
    /// The index itself, not yet scaled by a stage size.
    Index,
    /// The index plus a free term, not scaled: scaling it names another stage.
    OffsetIndex,
    /// The index times a stage size, plus free terms.
    Scaled,
}

/// What [`shape`] reads values through.
#[derive(Clone, Copy)]
struct Reads<'a> {
    ctx: &'a Context,
    index: &'a ScopeIndex,
    facts: &'a dyn FactStore,
    locals: &'a LocalStores,
}

/// Why a destination does not address the copy's own stage, or that the rule cannot tell.
enum Verdict {
    OtherStage { at: Ptr<Operation>, why: &'static str },
    Undecided,
}

/// Rule `copy-destination`; returns how many copies it could not judge.
fn check_copy_destinations(
    reporter: &mut Reporter,
    facts: &dyn FactStore,
    locals: &LocalStores,
    provenance: &Provenance,
) -> usize {
    let ctx = reporter.ctx;
    let mut undecided = 0;
    for (n, (state, kind)) in &provenance.applies_to {
        if *kind != PipelineKind::BulkCopy {
            continue;
        }
        let op = reporter.index.ops[*n];
        let destination = op.deref(ctx).get_operand(0);
        let stages = super::rules::stages_of(ctx, reporter.index, *state).unwrap_or(0);
        let reads = Reads { ctx, index: reporter.index, facts, locals };
        match shape(&reads, (*state, stages), destination, &mut 64, None) {
            Ok(_) => {}
            Err(Verdict::Undecided) => undecided += 1,
            Err(Verdict::OtherStage { at, why }) => {
                let name = reporter.op_name(op);
                let message = format!(
                    "`{name}`: its destination is not the stage its barrier's state acquired: {why}; the copy \
                     overwrites a stage consumers may be reading and the acquired stage stays stale"
                );
                let related = vec![
                    reporter.related("the stage index is changed here", at),
                    state_created(reporter, *state),
                ];
                reporter.reject(Rule::CopyDestination, op, message, related);
            }
        }
    }
    undecided
}

/// A helper the walk entered from a call: its parameters, the call's arguments, and the frame
/// the call was made in (`None`: the copy's own function).
struct Frame<'f> {
    call: CallBinding,
    caller: Option<&'f Frame<'f>>,
}

/// The shape of `parameter`, a parameter of the copy's own function, a helper of the scope: the
/// shape every call of the helper passes for it, each read in its caller, when they all agree.
/// The copy runs under one of those calls, and in each it writes where that call's argument
/// points, so a destination every call scales from the state's index addresses the state's
/// stage whichever call ran it. A call that passes another stage is rejected at the copy, the
/// caller's arithmetic named beside it; calls that disagree otherwise, or a parameter no call
/// binds, leave the copy undecided.
fn passed_shape(
    reads: &Reads,
    (state, stages): (StateId, u32),
    parameter: Value,
    budget: &mut u32,
) -> Result<Shape, Verdict> {
    if *budget == 0 {
        return Err(Verdict::Undecided);
    }
    *budget -= 1;
    let arguments = reads.index.call_arguments(reads.ctx, parameter).ok_or(Verdict::Undecided)?;
    let mut agreed = None;
    for argument in arguments {
        let found = shape(reads, (state, stages), argument, budget, None)?;
        if agreed.is_some_and(|seen| seen != found) {
            return Err(Verdict::Undecided);
        }
        agreed = Some(found);
    }
    agreed.ok_or(Verdict::Undecided)
}

/// The shape of `value` with respect to the stage index of `state`, looking through at most
/// `budget` operations in all (shared subexpressions count each time they are read, so the
/// budget bounds the work on any expression DAG). In a helper entered from a call (`frame`), a
/// parameter is the call's argument: a helper both roles call (`stage_byte(&state)`) has
/// `Contexts` in its body, so there its values are walked, not read from the facts.
fn shape(
    reads: &Reads,
    (state, stages): (StateId, u32),
    value: Value,
    budget: &mut u32,
    frame: Option<&Frame>,
) -> Result<Shape, Verdict> {
    let Reads { ctx, index, facts, locals } = *reads;
    if let Some(frame) = frame
        && let Some(argument) = frame.call.argument_for(value)
    {
        return shape(reads, (state, stages), argument, budget, frame.caller);
    }
    let tracked = is_tracked(ctx, value);
    let fact = if tracked { facts.get(value) } else { None };
    if frame.is_none() || fact != Some(Fact::Contexts) {
        match fact {
            Some(Fact::Index(s)) if s == state => return Ok(Shape::Index),
            Some(Fact::Derived(s)) if s == state => {}
            // A value read from memory the facts do not follow (a base captured by a closure)
            // is a term that does not move with the state, as before it had a fact of its own:
            // where it sits in the window is the layout rule's to show, from the address itself.
            Some(Fact::Unrelated | Fact::Unknown) if tracked => return Ok(Shape::Free),
            Some(_) => return Err(Verdict::Undecided),
            // No fact: untracked (wider than 32 bits); look through its definition below.
            None if tracked => return Err(Verdict::Undecided),
            None => {}
        }
    }
    let def = match value.defining_entity() {
        DefiningEntity::Op(def) => def,
        // A helper's parameter in the copy's own function (`fill(&pipe, &st, dst, src)`).
        DefiningEntity::Block(_) if frame.is_none() => {
            return passed_shape(reads, (state, stages), value, budget);
        }
        DefiningEntity::Block(_) => return Err(Verdict::Undecided),
    };
    if *budget == 0 {
        return Err(Verdict::Undecided);
    }
    *budget -= 1;
    if let Some(cast) = Operation::get_op::<CastOp>(def, ctx) {
        return match cast.kind(ctx) {
            Some(CastKind::IntToInt) => {
                shape(reads, (state, stages), def.deref(ctx).get_operand(0), budget, frame)
            }
            _ => Err(Verdict::Undecided),
        };
    }
    // A helper computing the destination (`ring.dst(&state)`): the shape of what it returns,
    // under the facts its body has in the scope (the state's index, where the helper reads it).
    if let Some(callee) = index.op_number.get(&def).and_then(|n| index.callee_of.get(n)) {
        let returns = function_returns(index, *callee);
        let returned = returned_by(ctx, index, &returns, def, value).ok_or(Verdict::Undecided)?;
        let call = index.call_binding(ctx, def).ok_or(Verdict::Undecided)?;
        let called = Frame { call, caller: frame };
        let mut agreed = None;
        for returned in returned {
            let found = shape(reads, (state, stages), returned, budget, Some(&called))?;
            if agreed.is_some_and(|seen| seen != found) {
                return Err(Verdict::Undecided);
            }
            agreed = Some(found);
        }
        return agreed.ok_or(Verdict::Undecided);
    }
    // A local written once (a helper's return value, kept in `_0` before the return).
    if Operation::get_op::<LoadOp>(def, ctx).is_some()
        && let Some(stored) = locals.only_store_into(ctx, def.deref(ctx).get_operand(0))
    {
        return shape(reads, (state, stages), stored, budget, frame);
    }
    let Some(binop) = Operation::get_op::<BinOp>(def, ctx) else {
        // A wide value from anything else (a load, a call) does not come from the index.
        return if tracked { Err(Verdict::Undecided) } else { Ok(Shape::Free) };
    };
    let (lhs, rhs) = {
        let operation = def.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let a = shape(reads, (state, stages), lhs, budget, frame)?;
    let b = shape(reads, (state, stages), rhs, budget, frame)?;
    let other = |why: &'static str| -> Result<Shape, Verdict> { Err(Verdict::OtherStage { at: def, why }) };
    use BinOpKind::*;
    use Shape::*;
    let mut kind = binop.kind(ctx);
    // `base | index << k` whose sides share no bit for any stage index is `base + index << k`.
    if matches!(kind, Some(BitOr | BitXor))
        && matches!((a, b), (Free, _) | (_, Free))
        && disjoint::disjoint_for_every_index(reads, (state, stages), (lhs, rhs), frame)
    {
        kind = Some(Add);
    }
    match (kind, a, b) {
        (_, Free, Free) => Ok(Free),
        (Some(Add), Index | OffsetIndex, Free) | (Some(Add), Free, Index | OffsetIndex) => Ok(OffsetIndex),
        (Some(Sub), Index | OffsetIndex, Free) => Ok(OffsetIndex),
        (Some(Add), Scaled, Free) | (Some(Add), Free, Scaled) | (Some(Sub), Scaled, Free) => Ok(Scaled),
        (Some(Mul), Index, Free) | (Some(Mul), Free, Index) | (Some(Shl), Index, Free) => Ok(Scaled),
        (Some(Mul), Scaled, Free) | (Some(Mul), Free, Scaled) | (Some(Shl), Scaled, Free) => Ok(Scaled),
        (Some(Mul | Shl), OffsetIndex, Free) | (Some(Mul), Free, OffsetIndex) => {
            other("the index is offset before it is scaled (`(index + k) * size`)")
        }
        // `index % n` with `n` at least the stage count is the index itself.
        (Some(Rem), Index, Free)
            if constant_value(ctx, rhs, 4).is_some_and(|n| n >= i64::from(stages.max(1))) =>
        {
            Ok(Index)
        }
        (Some(Rem), ..) => other("the index is wrapped (`% n`) after a change: that is another stage"),
        // `index & m` keeping every bit of every stage index (`index & (STAGES - 1)` on a ring of
        // a power of two, an index mask against speculation) is the index itself.
        (Some(BitAnd), Index, Free) | (Some(BitAnd), Free, Index)
            if constant_value(ctx, if a == Free { lhs } else { rhs }, 4)
                .is_some_and(|mask| mask_keeps_every_index(mask, i64::from(stages))) =>
        {
            Ok(Index)
        }
        (Some(Sub), Free, _) => other("the index is subtracted from a value (`n - index`)"),
        (Some(Div | Shr), ..) => other("the index is divided"),
        (Some(BitAnd | BitOr | BitXor), ..) => other("the index is masked or combined bitwise"),
        _ => other("the index is combined with itself or another value in a way that names another stage"),
    }
}
