//! The provenance fixpoint: facts for every integer value of 32 bits or less, flowing through
//! arithmetic, casts, stores to and loads from places, block arguments and call arguments.
//!
//! The transfer of one block ([`transfer_block`]) is shared by the indexed verifier and the
//! oracle; what differs is where value facts live ([`FactStore`]) and which blocks run when:
//! the indexed verifier ([`run_worklist`]) starts with every block once and then revisits a
//! block only when one of its inputs changed (its memory in-state, a block argument, a value
//! it uses); the oracle runs every block in full rounds until a round changes nothing.
//!
//! Memory: a *place* is a `mir.alloca` followed by a path of `mir.field_addr` indices. Stores
//! of tracked values to a place replace its fact; loads read it. A place whose address is
//! passed to a call or an opaque operation loses its facts there (the callee may write it).
//! Stores through any other pointer are not tracked.
//!
//! Calls of scope functions: the arguments' facts flow into the callee's entry block and the
//! callee's returned facts into the call's results, joined over every call (one fact per value
//! of the scope, so the cost stays linear; a helper called with two different states sees
//! `Contexts`, and its pipeline operations, and what its results reach, are left undecided by
//! `state-provenance`).

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    value::Value,
};

use super::{
    facts::{Fact, FactStore, Versions, is_tracked, join_opt, version_bit},
    index::ScopeIndex,
};
use crate::ir::{
    mir::{
        arith::{BinOp, CastKind, CastOp, CmpOp},
        control::{CallOp, GotoOp, ReturnOp},
        memory::{AllocaOp, FieldAddrOp, LoadOp, StoreOp},
        opaque::OpaqueOp,
    },
    semantic::pipeline::{StateAdvanceOp, StateNewOp},
};

/// A place: the alloca's operation number and a field path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Place {
    pub root: usize,
    pub path: Vec<u32>,
}

/// A place of the scope, by its number in [`Places`].
type PlaceId = u32;

/// Facts of places at one program point, each with the versions of its state it may hold.
pub(crate) type Memory = BTreeMap<PlaceId, (Fact, Versions)>;

/// Every place the scope's loads, stores and calls name, numbered once per scope, with what
/// the transfer asks of a place precomputed: the aggregates around it (what a load may read),
/// the places inside it (what a store of the whole overwrites) and its local.
#[derive(Default)]
struct Places {
    ids: FxHashMap<Place, PlaceId>,
    root: Vec<usize>,
    /// The place and every aggregate around it, the whole local first.
    enclosing: Vec<Vec<PlaceId>>,
    /// The numbered places strictly inside it.
    inside: Vec<Vec<PlaceId>>,
}

impl Places {
    /// Numbers `place` and every aggregate around it; returns the place's number.
    fn intern(&mut self, place: &Place) -> PlaceId {
        if let Some(id) = self.ids.get(place) {
            return *id;
        }
        let mut enclosing = Vec::with_capacity(place.path.len() + 1);
        for depth in 0..place.path.len() {
            let outer = Place { root: place.root, path: place.path[..depth].to_vec() };
            enclosing.push(self.intern(&outer));
        }
        let id = self.root.len() as PlaceId;
        enclosing.push(id);
        for outer in &enclosing[..enclosing.len() - 1] {
            self.inside[*outer as usize].push(id);
        }
        self.ids.insert(place.clone(), id);
        self.root.push(place.root);
        self.enclosing.push(enclosing);
        self.inside.push(Vec::new());
        id
    }
}

/// Joins the facts of `from` about places in `live` into `into`; true when `into` changed.
fn join_memory(into: &mut Memory, from: &Memory, live: &FxHashSet<PlaceId>) -> bool {
    let mut changed = false;
    for (place, (fact, versions)) in from {
        if !live.contains(place) {
            continue;
        }
        let old = into.get(place).copied();
        let new = (join_opt(old.map(|(fact, _)| fact), *fact), old.map_or(0, |(_, v)| v) | versions);
        if old != Some(new) {
            into.insert(*place, new);
            changed = true;
        }
    }
    changed
}

/// The place an address denotes, if it is an alloca reached through field addresses.
pub(crate) fn place_of(ctx: &Context, index: &ScopeIndex, address: Value) -> Option<Place> {
    let mut path = Vec::new();
    let mut current = address;
    loop {
        let op = current.defining_op()?;
        if let Some(field) = Operation::get_op::<FieldAddrOp>(op, ctx) {
            path.push(field.field(ctx)?);
            current = op.deref(ctx).get_operand(0);
        } else if Operation::get_op::<AllocaOp>(op, ctx).is_some() {
            path.reverse();
            return Some(Place { root: *index.op_number.get(&op)?, path });
        } else {
            return None;
        }
    }
}

/// What the transfer does at one operation, decided once per scope: which kind of operation
/// it is, and the places it loads, stores or lets escape.
enum Step {
    /// `semantic.state_new` or `semantic.state_advance`, with its version bit.
    StateNew(Versions),
    StateAdvance(Versions),
    /// A binary operation or comparison.
    Arithmetic,
    Cast {
        int_to_int: bool,
    },
    Load(Option<PlaceId>),
    Store(Option<PlaceId>),
    /// A call or an opaque operation, with the locals whose address it is handed.
    Call {
        escaping: Vec<usize>,
    },
    Goto,
    /// Constants, addresses, semantic operations without results, …
    Other,
}

/// The fixpoint's state besides value facts: memory at each block's entry.
pub(crate) struct FlowState {
    /// Facts of the places live at each block's entry (see [`live_places`]).
    pub memory_in: Vec<Memory>,
    live_in: Vec<FxHashSet<PlaceId>>,
    places: Places,
    /// What each operation (by number) does.
    steps: Vec<Step>,
    /// Each function's `mir.return` operations (numbers).
    returns_of: Vec<Vec<usize>>,
}

impl FlowState {
    pub(crate) fn new(ctx: &Context, index: &ScopeIndex) -> FlowState {
        let mut places = Places::default();
        let steps = steps_of(ctx, index, &mut places);
        FlowState {
            memory_in: vec![Memory::new(); index.blocks.len()],
            live_in: live_places(index, &steps, &places),
            places,
            steps,
            returns_of: returns_of(ctx, index),
        }
    }
}

/// Each function's `mir.return` operations (numbers).
pub(crate) fn returns_of(ctx: &Context, index: &ScopeIndex) -> Vec<Vec<usize>> {
    let mut returns = vec![Vec::new(); index.functions.len()];
    for (f, blocks) in index.blocks_of.iter().enumerate() {
        for b in blocks.clone() {
            if let Some(n) = index.ops_of_block[b].clone().last()
                && Operation::get_op::<ReturnOp>(index.ops[n], ctx).is_some()
            {
                returns[f].push(n);
            }
        }
    }
    returns
}

/// What each `return` of the scope's helper that `call` calls (given every function's `returns`,
/// from [`returns_of`]) returns at the position of the call's `result`, in the order of the
/// returns; `None` when `call` is no call of a scope function or a return is too short.
pub(crate) fn returned_at(
    ctx: &Context,
    index: &ScopeIndex,
    returns: &[Vec<usize>],
    call: Ptr<Operation>,
    result: Value,
) -> Option<Vec<Value>> {
    let callee = *index.callee_of.get(index.op_number.get(&call)?)?;
    let position = call.deref(ctx).results().position(|candidate| candidate == result)?;
    returns[callee]
        .iter()
        .map(|&ret| {
            let operation = index.ops[ret].deref(ctx);
            (position < operation.get_num_operands()).then(|| operation.get_operand(position))
        })
        .collect()
}

/// The step of every operation, numbering the places they name. The operations that make a
/// state value (`semantic.state_new` and `semantic.state_advance`) get their version bits in
/// scope order.
fn steps_of(ctx: &Context, index: &ScopeIndex, places: &mut Places) -> Vec<Step> {
    let mut versions = 0;
    let mut next_version = || {
        versions += 1;
        version_bit(versions - 1)
    };
    let mut place_id = |address: Value| place_of(ctx, index, address).map(|place| places.intern(&place));
    let mut steps = Vec::with_capacity(index.ops.len());
    for op in &index.ops {
        let op = *op;
        let step = if Operation::get_op::<StateNewOp>(op, ctx).is_some() {
            Step::StateNew(next_version())
        } else if Operation::get_op::<StateAdvanceOp>(op, ctx).is_some() {
            Step::StateAdvance(next_version())
        } else if Operation::get_op::<BinOp>(op, ctx).is_some()
            || Operation::get_op::<CmpOp>(op, ctx).is_some()
        {
            Step::Arithmetic
        } else if let Some(cast) = Operation::get_op::<CastOp>(op, ctx) {
            Step::Cast { int_to_int: cast.kind(ctx) == Some(CastKind::IntToInt) }
        } else if Operation::get_op::<LoadOp>(op, ctx).is_some() {
            Step::Load(place_id(op.deref(ctx).get_operand(0)))
        } else if Operation::get_op::<StoreOp>(op, ctx).is_some() {
            Step::Store(place_id(op.deref(ctx).get_operand(1)))
        } else if Operation::get_op::<CallOp>(op, ctx).is_some()
            || Operation::get_op::<OpaqueOp>(op, ctx).is_some()
        {
            let mut escaping: Vec<usize> = op
                .deref(ctx)
                .operands()
                .filter_map(|operand| place_of(ctx, index, operand))
                .map(|p| p.root)
                .collect();
            escaping.dedup();
            Step::Call { escaping }
        } else if Operation::get_op::<GotoOp>(op, ctx).is_some() {
            Step::Goto
        } else {
            Step::Other
        };
        steps.push(step);
    }
    steps
}

/// The places live at each block's entry: those some path from there loads before storing
/// them. Memory facts flow into a block only for its live places. The importer gives every
/// MIR local a place, so a kernel has about as many places as blocks; carrying every place
/// into every block made the fixpoint O(blocks × places), quadratic in kernel size (the
/// timing regression measured N^2.2 on generated scopes of that shape, the end-to-end timing
/// N^1.5 on real kernels). A dead place's fact can never reach a value, so value facts,
/// verdicts and the oracle's agreement are unchanged; the cost is the total length of the
/// places' live ranges, computed here place by place backwards from each load.
fn live_places(index: &ScopeIndex, steps: &[Step], places: &Places) -> Vec<FxHashSet<PlaceId>> {
    let blocks = index.blocks.len();
    let mut live_in = vec![FxHashSet::default(); blocks];
    let mut pending = Vec::new();
    let mut stored: Vec<FxHashSet<PlaceId>> = vec![FxHashSet::default(); blocks];
    for b in 0..blocks {
        for n in index.ops_of_block[b].clone() {
            match &steps[n] {
                // A load reads its place, or the aggregate around it stored as a whole.
                Step::Load(Some(place)) => {
                    for read in &places.enclosing[*place as usize] {
                        if !stored[b].contains(read) && live_in[b].insert(*read) {
                            pending.push((b, *read));
                        }
                    }
                }
                Step::Store(Some(place)) => {
                    stored[b].insert(*place);
                }
                _ => {}
            }
        }
    }
    while let Some((b, place)) = pending.pop() {
        for pred in &index.preds[b] {
            if !stored[*pred].contains(&place) && live_in[*pred].insert(place) {
                pending.push((*pred, place));
            }
        }
    }
    live_in
}

/// What one block's transfer changed outside the block.
#[derive(Default)]
pub(crate) struct Changes {
    /// Values whose fact changed (their users may need a revisit).
    pub values: Vec<Value>,
    /// Blocks whose memory in-state or arguments changed.
    pub blocks: Vec<usize>,
}

/// The fact a tracked operand has now (`None`: none yet); an untracked operand counts as
/// `Unrelated`.
fn operand_fact(ctx: &Context, store: &dyn FactStore, value: Value) -> Option<Fact> {
    if is_tracked(ctx, value) { store.get(value) } else { Some(Fact::Unrelated) }
}

/// Arithmetic on facts: anything about one state becomes `Derived` of it.
fn combine(facts: impl Iterator<Item = Option<Fact>>) -> Option<Fact> {
    let mut state = None;
    let mut contexts = false;
    for fact in facts {
        match fact? {
            Fact::Conflict => return Some(Fact::Conflict),
            Fact::Contexts => contexts = true,
            Fact::Unrelated => {}
            other => {
                let s = other.state().expect("state facts have a state");
                match state {
                    None => state = Some(s),
                    Some(existing) if existing == s => {}
                    Some(_) => return Some(Fact::Conflict),
                }
            }
        }
    }
    if contexts {
        return Some(Fact::Contexts);
    }
    Some(state.map_or(Fact::Unrelated, Fact::Derived))
}

/// Runs block `b` from its memory in-state, joining facts into `store`; reports what changed
/// outside the block.
pub(crate) fn transfer_block(
    ctx: &Context,
    index: &ScopeIndex,
    b: usize,
    store: &mut dyn FactStore,
    flow: &mut FlowState,
) -> Changes {
    let mut changes = Changes::default();
    let mut memory = flow.memory_in[b].clone();
    let set = |store: &mut dyn FactStore, changes: &mut Changes, value: Value, fact: Fact| {
        if is_tracked(ctx, value) && store.join(value, fact) {
            changes.values.push(value);
        }
    };
    let add_versions =
        |store: &mut dyn FactStore, changes: &mut Changes, value: Value, versions: Versions| {
            if versions != 0 && is_tracked(ctx, value) && store.join_versions(value, versions) {
                changes.values.push(value);
            }
        };
    let places = &flow.places;
    for n in index.ops_of_block[b].clone() {
        if matches!(flow.steps[n], Step::Other | Step::Store(None)) {
            continue;
        }
        let op = index.ops[n];
        let operation = op.deref(ctx);
        match &flow.steps[n] {
            Step::StateNew(version) => {
                let state = super::facts::StateId(n as u32);
                let (index_value, phase) = (operation.get_result(0), operation.get_result(1));
                set(store, &mut changes, index_value, Fact::Index(state));
                set(store, &mut changes, phase, Fact::Phase(state));
                add_versions(store, &mut changes, index_value, *version);
                add_versions(store, &mut changes, phase, *version);
            }
            Step::StateAdvance(version) => {
                // The advanced state is a new value of the same state: same facts, a new version.
                for (result, operand) in operation.results().zip(operation.operands()) {
                    if let Some(fact) = operand_fact(ctx, store, operand) {
                        set(store, &mut changes, result, fact);
                        add_versions(store, &mut changes, result, *version);
                    }
                }
            }
            Step::Arithmetic => {
                let fact = combine(operation.operands().map(|v| operand_fact(ctx, store, v)));
                if let Some(fact) = fact {
                    set(store, &mut changes, operation.get_result(0), fact);
                }
            }
            Step::Cast { int_to_int } => {
                let (result, operand) = (operation.get_result(0), operation.get_operand(0));
                let fact =
                    if *int_to_int { operand_fact(ctx, store, operand) } else { Some(Fact::Unrelated) };
                if let Some(fact) = fact {
                    set(store, &mut changes, result, fact);
                }
                if *int_to_int {
                    let versions = store.versions(operand);
                    add_versions(store, &mut changes, result, versions);
                }
            }
            Step::Load(place) => {
                let fact = match place {
                    // Its own fact, or else that of the nearest aggregate around it stored as a
                    // whole (a field read of a tuple stored whole has the tuple's fact).
                    Some(place) => places.enclosing[*place as usize]
                        .iter()
                        .rev()
                        .find_map(|read| memory.get(read).copied()),
                    None => Some((Fact::Unrelated, 0)),
                };
                if let Some((fact, versions)) = fact {
                    let result = operation.get_result(0);
                    set(store, &mut changes, result, fact);
                    add_versions(store, &mut changes, result, versions);
                }
            }
            Step::Store(Some(place)) => {
                // A store of a whole aggregate overwrites every field of it.
                for inside in &places.inside[*place as usize] {
                    memory.remove(inside);
                }
                let stored = operation.get_operand(0);
                match operand_fact(ctx, store, stored) {
                    Some(fact) => {
                        memory.insert(*place, (fact, store.versions(stored)));
                    }
                    None => {
                        memory.remove(place);
                    }
                }
            }
            Step::Store(None) => {}
            Step::Call { escaping } => {
                // Facts of places whose address escapes into the call become `Unrelated`.
                if !escaping.is_empty() {
                    for (place, fact) in memory.iter_mut() {
                        if escaping.contains(&places.root[*place as usize]) {
                            *fact = (Fact::Unrelated, 0);
                        }
                    }
                }
                match index.callee_of.get(&n) {
                    // A call of a scope function: its results are what its returns return, on
                    // every call of it (a state a helper returns or hands back is followed).
                    Some(callee) => {
                        for (k, result) in operation.results().enumerate() {
                            let mut fact = None;
                            let mut versions = 0;
                            for r in &flow.returns_of[*callee] {
                                let value = index.ops[*r].deref(ctx).get_operand(k);
                                if let Some(returned) = operand_fact(ctx, store, value) {
                                    fact = Some(join_opt(fact, returned));
                                    versions |= store.versions(value);
                                }
                            }
                            if let Some(fact) = fact {
                                set(store, &mut changes, result, fact);
                                add_versions(store, &mut changes, result, versions);
                            }
                        }
                        if let Some(entry) = index.entry_block(*callee) {
                            let operands = operation.operands();
                            pass_arguments(
                                ctx,
                                index,
                                store,
                                entry,
                                operands,
                                Fact::join_calls,
                                &mut changes,
                            );
                        }
                    }
                    None => {
                        for result in operation.results() {
                            set(store, &mut changes, result, Fact::Unrelated);
                        }
                    }
                }
            }
            Step::Goto => {
                if let Some(target) = index.succs[b].first() {
                    pass_arguments(
                        ctx,
                        index,
                        store,
                        *target,
                        operation.operands(),
                        Fact::join,
                        &mut changes,
                    );
                }
            }
            // Its results were seeded (see `seed`).
            Step::Other => {}
        }
    }
    for &succ in &index.succs[b] {
        if join_memory(&mut flow.memory_in[succ], &memory, &flow.live_in[succ]) {
            changes.blocks.push(succ);
        }
    }
    changes
}

/// Joins the facts of `values` into block `target`'s arguments, by `join`: a branch's
/// [`Fact::join`], or a call's [`Fact::join_calls`] (facts differing between calls of one
/// function are lost per call, not a conflict of the kernel's).
fn pass_arguments(
    ctx: &Context,
    index: &ScopeIndex,
    store: &mut dyn FactStore,
    target: usize,
    values: impl Iterator<Item = Value>,
    join: fn(Fact, Fact) -> Fact,
    changes: &mut Changes,
) {
    let mut changed = false;
    for (arg, value) in index.blocks[target].deref(ctx).arguments().zip(values) {
        if !is_tracked(ctx, arg) {
            continue;
        }
        if let Some(fact) = operand_fact(ctx, store, value) {
            let fact = store.get(arg).map_or(fact, |old| join(old, fact));
            let joined = store.join(arg, fact);
            let versioned = store.join_versions(arg, store.versions(value));
            if joined || versioned {
                changes.values.push(arg);
                changed = true;
            }
        }
    }
    if changed {
        changes.blocks.push(target);
    }
}

/// Seeds the facts nothing flows into: the kernel's parameters, and the results of operations
/// that compute nothing from a pipeline state ([`Step::Other`]), are `Unrelated`. Set once here,
/// those results need no visit of their operation in the fixpoint.
pub(crate) fn seed(ctx: &Context, index: &ScopeIndex, flow: &FlowState, store: &mut dyn FactStore) {
    if let Some(entry) = index.entry_block(0) {
        for arg in index.blocks[entry].deref(ctx).arguments() {
            if is_tracked(ctx, arg) {
                store.join(arg, Fact::Unrelated);
            }
        }
    }
    for (n, step) in flow.steps.iter().enumerate() {
        if matches!(step, Step::Other) {
            for result in index.ops[n].deref(ctx).results() {
                if is_tracked(ctx, result) {
                    store.join(result, Fact::Unrelated);
                }
            }
        }
    }
}

/// The indexed fixpoint: every block once, then only blocks whose inputs changed.
pub(crate) fn run_worklist(ctx: &Context, index: &ScopeIndex, store: &mut dyn FactStore) -> FlowState {
    let mut flow = FlowState::new(ctx, index);
    seed(ctx, index, &flow, store);
    let mut queued = vec![true; index.blocks.len()];
    let mut worklist: VecDeque<usize> = (0..index.blocks.len()).collect();
    while let Some(b) = worklist.pop_front() {
        queued[b] = false;
        let changes = transfer_block(ctx, index, b, store, &mut flow);
        let mut enqueue = |block: usize| {
            if !queued[block] {
                queued[block] = true;
                worklist.push_back(block);
            }
        };
        for block in changes.blocks {
            enqueue(block);
        }
        for value in changes.values {
            for user in value.uses(ctx) {
                let user = user.user_op();
                let Some(parent) = user.deref(ctx).get_parent_block() else { continue };
                let Some(&block) = index.block_number.get(&parent) else { continue };
                // A returned value reaches the results of every call of its function.
                if Operation::get_op::<ReturnOp>(user, ctx).is_some() {
                    for call in &index.callers[index.block_function[block]] {
                        enqueue(index.op_block[*call]);
                    }
                }
                if block != b {
                    enqueue(block);
                }
            }
        }
    }
    flow
}
