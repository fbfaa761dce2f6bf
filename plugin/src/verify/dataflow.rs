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

mod arithmetic;
mod indexed_facts;
mod return_forms;
mod tables;

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::Value,
};

use super::{
    facts::{Fact, FactStore, Versions, join_opt, version_bit},
    index::{OpClass, ScopeIndex},
};
use crate::ir::{
    mir::{
        arith::{BinOp, CastKind, CastOp, CmpOp},
        control::GotoOp,
        memory::{AllocaOp, FieldAddrOp},
        opaque::OpaqueOp,
    },
    semantic::pipeline::{StateAdvanceOp, StateNewOp},
    types::AdtType,
};
use arithmetic::{combine, narrows_widened};
pub(crate) use indexed_facts::IndexedFacts;
use return_forms::ReturnForms;
pub(crate) use tables::ValueSlots;
use tables::{Slotted, Tables};

/// A place: the alloca's operation number and a field path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Place {
    pub root: usize,
    pub path: Vec<u32>,
}

/// A place of the scope, by its number in [`Places`].
type PlaceId = u32;

/// Facts of places at one program point, each with the versions of its state it may hold, in
/// increasing order of place (a block's live places are few: a sorted list beats a tree, and
/// its buffer is reused from block to block).
type Memory = Vec<(PlaceId, (Fact, Versions))>;

/// The fact `memory` holds for `place`.
fn memory_get(memory: &Memory, place: PlaceId) -> Option<(Fact, Versions)> {
    memory.binary_search_by_key(&place, |(p, _)| *p).ok().map(|at| memory[at].1)
}

/// Sets `place`'s fact in `memory`.
fn memory_set(memory: &mut Memory, place: PlaceId, fact: (Fact, Versions)) {
    match memory.binary_search_by_key(&place, |(p, _)| *p) {
        Ok(at) => memory[at].1 = fact,
        Err(at) => memory.insert(at, (place, fact)),
    }
}

/// Forgets `place`'s fact in `memory`.
fn memory_remove(memory: &mut Memory, place: PlaceId) {
    if let Ok(at) = memory.binary_search_by_key(&place, |(p, _)| *p) {
        memory.remove(at);
    }
}

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

/// The places live at each block's entry (see [`live_places`]) and the facts the fixpoint has
/// joined into them so far: block `b`'s are `places[start[b]..start[b + 1]]`, in increasing
/// order, with `facts` beside them. Laid out once per scope, so joining a block's memory into a
/// successor allocates nothing.
struct LiveMemory {
    start: Vec<u32>,
    places: Vec<PlaceId>,
    facts: Vec<Option<(Fact, Versions)>>,
}

impl LiveMemory {
    /// Block `b`'s memory at entry, into `memory` (emptied first).
    fn entry_of(&self, b: usize, memory: &mut Memory) {
        memory.clear();
        let range = self.start[b] as usize..self.start[b + 1] as usize;
        for (place, fact) in self.places[range.clone()].iter().zip(&self.facts[range]) {
            if let Some(fact) = fact {
                memory.push((*place, *fact));
            }
        }
    }

    /// Joins the facts of `from` about places live at block `b`'s entry into them; true when
    /// that changed them.
    fn join_into(&mut self, b: usize, from: &Memory) -> bool {
        let range = self.start[b] as usize..self.start[b + 1] as usize;
        let live = &self.places[range.clone()];
        let facts = &mut self.facts[range];
        let mut changed = false;
        let (mut i, mut j) = (0, 0);
        // Both lists are in increasing order of place: one merge walk.
        while i < from.len() && j < live.len() {
            match from[i].0.cmp(&live[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let (fact, versions) = from[i].1;
                    let old = facts[j];
                    let new =
                        (join_opt(old.map(|(fact, _)| fact), fact), old.map_or(0, |(_, v)| v) | versions);
                    if old != Some(new) {
                        facts[j] = Some(new);
                        changed = true;
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        changed
    }
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
        /// A narrowing of 64-bit arithmetic on a widened 32-bit value (`(index as usize * TILE)
        /// as u32`): the facts do not follow 64-bit values, so its provenance is not known.
        narrows_widened: bool,
    },
    Load(Option<PlaceId>),
    Store {
        place: Option<PlaceId>,
        /// The value stored is a whole aggregate (a struct, a tuple, an array): the facts do not
        /// follow its fields, and one may hold a state's index (`WinAddr(window + index *
        /// TILE)` returned by a helper), so the place holds `Unknown`, not `Unrelated`.
        aggregate: bool,
    },
    /// A call or an opaque operation, with the locals whose address it is handed and the
    /// scope function it calls.
    Call {
        escaping: Vec<usize>,
        callee: Option<usize>,
        /// An operation the import left opaque in place of a pipeline state it cannot follow
        /// (`mir::opaque::UNFOLLOWED_STATE`): its results may be any state's index and phase.
        unfollowed_state: bool,
    },
    Goto,
    /// Constants, addresses, semantic operations without results, …
    Other,
}

impl Step {
    /// Whether the transfer reads the operation's operands (their facts or versions).
    fn reads_operands(&self) -> bool {
        match self {
            Step::StateAdvance(_)
            | Step::Arithmetic
            | Step::Cast { .. }
            | Step::Store { place: Some(_), .. }
            | Step::Call { .. }
            | Step::Goto => true,
            Step::StateNew(_) | Step::Load(_) | Step::Store { place: None, .. } | Step::Other => false,
        }
    }
}

/// The fixpoint's state besides value facts: memory at each block's entry, and what it reads
/// instead of the IR (each operation's step, the scope's values by slot).
pub(crate) struct FlowState {
    live: LiveMemory,
    places: Places,
    /// What each operation (by number) does.
    steps: Vec<Step>,
    tables: Tables,
    /// Each function's `mir.return` operations (numbers).
    returns_of: Vec<Vec<usize>>,
    /// What each function's results are computed from: a call's results take its arguments'
    /// facts where they have a form.
    forms: ReturnForms,
    /// The memory of the block being transferred, kept to reuse its buffer.
    scratch: Memory,
}

impl FlowState {
    pub(crate) fn new(ctx: &Context, index: &ScopeIndex) -> FlowState {
        let mut places = Places::default();
        let mut steps = Vec::with_capacity(index.ops.len());
        let mut versions = 0;
        let tables = Tables::new(ctx, index, |n| {
            let step = step_of(ctx, index, n, &mut places, &mut versions);
            // A return's operands are what the calls of its function read.
            let reads_operands = step.reads_operands() || index.op_class[n] == OpClass::Return;
            steps.push(step);
            reads_operands
        });
        let returns_of = returns_of(index);
        FlowState {
            live: live_places(index, &steps, &places),
            places,
            steps,
            tables,
            forms: ReturnForms::new(ctx, index, &returns_of),
            returns_of,
            scratch: Memory::new(),
        }
    }

    /// The value of each slot (the oracle's store names values by it).
    #[cfg_attr(not(feature = "oracle"), allow(dead_code))]
    pub(crate) fn slot_values(&self) -> &[Value] {
        &self.tables.value_slots.values
    }
}

/// Each function's `mir.return` operations (numbers).
pub(crate) fn returns_of(index: &ScopeIndex) -> Vec<Vec<usize>> {
    (0..index.functions.len()).map(|f| function_returns(index, f)).collect()
}

/// Function `f`'s `mir.return` operations (numbers), in block order.
pub(crate) fn function_returns(index: &ScopeIndex, f: usize) -> Vec<usize> {
    index.blocks_of[f]
        .clone()
        .filter(|b| index.ends_in_return(*b))
        .filter_map(|b| index.ops_of_block[b].clone().last())
        .collect()
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
    returned_by(ctx, index, &returns[callee], call, result)
}

/// What each of `callee_returns` (the `mir.return`s of the function `call` calls) returns at the
/// position of the call's `result`; `None` when a return is too short.
pub(crate) fn returned_by(
    ctx: &Context,
    index: &ScopeIndex,
    callee_returns: &[usize],
    call: Ptr<Operation>,
    result: Value,
) -> Option<Vec<Value>> {
    let position = call.deref(ctx).results().position(|candidate| candidate == result)?;
    callee_returns
        .iter()
        .map(|&ret| {
            let operation = index.ops[ret].deref(ctx);
            (position < operation.get_num_operands()).then(|| operation.get_operand(position))
        })
        .collect()
}

/// The step of operation `n`, numbering the places it names. The operations that make a state
/// value (`semantic.state_new` and `semantic.state_advance`) get their version bits in scope
/// order (`versions` counts them).
fn step_of(ctx: &Context, index: &ScopeIndex, n: usize, places: &mut Places, versions: &mut usize) -> Step {
    let mut next_version = || {
        *versions += 1;
        version_bit(*versions - 1)
    };
    let mut place_id = |address: Value| place_of(ctx, index, address).map(|place| places.intern(&place));
    let op = index.ops[n];
    // The index's class of the operation says which few kinds it can be, so each is asked of
    // only those (every ask dereferences the operation).
    match index.op_class[n] {
        OpClass::Semantic if Operation::is_op::<StateNewOp>(op, ctx) => Step::StateNew(next_version()),
        OpClass::Semantic if Operation::is_op::<StateAdvanceOp>(op, ctx) => {
            Step::StateAdvance(next_version())
        }
        OpClass::Load => Step::Load(place_id(index.accessed_address(n).expect("a load has an address"))),
        OpClass::Store => Step::Store {
            place: place_id(index.accessed_address(n).expect("a store has an address")),
            aggregate: op.deref(ctx).get_operand(0).get_type(ctx).deref(ctx).is::<AdtType>(),
        },
        OpClass::Call | OpClass::Opaque => {
            let mut escaping: Vec<usize> = op
                .deref(ctx)
                .operands()
                .filter_map(|operand| place_of(ctx, index, operand))
                .map(|p| p.root)
                .collect();
            escaping.dedup();
            let unfollowed_state = index.op_class[n] == OpClass::Opaque
                && Operation::get_op::<OpaqueOp>(op, ctx)
                    .is_some_and(|opaque| opaque.is_unfollowed_state(ctx));
            Step::Call { escaping, callee: index.callee_of.get(&n).copied(), unfollowed_state }
        }
        OpClass::Other if Operation::is_op::<BinOp>(op, ctx) || Operation::is_op::<CmpOp>(op, ctx) => {
            Step::Arithmetic
        }
        OpClass::Other => match Operation::get_op::<CastOp>(op, ctx) {
            Some(cast) => {
                let int_to_int = cast.kind(ctx) == Some(CastKind::IntToInt);
                Step::Cast { int_to_int, narrows_widened: int_to_int && narrows_widened(ctx, op) }
            }
            None if Operation::is_op::<GotoOp>(op, ctx) => Step::Goto,
            None => Step::Other,
        },
        _ => Step::Other,
    }
}

/// The places live at each block's entry: those some path from there loads before storing
/// them. Memory facts flow into a block only for its live places. The importer gives every
/// MIR local a place, so a kernel has about as many places as blocks; carrying every place
/// into every block made the fixpoint O(blocks × places), quadratic in kernel size (the
/// timing regression measured N^2.2 on generated scopes of that shape, the end-to-end timing
/// N^1.5 on real kernels). A dead place's fact can never reach a value, so value facts,
/// verdicts and the oracle's agreement are unchanged; the cost is the total length of the
/// places' live ranges, computed here place by place backwards from each load.
fn live_places(index: &ScopeIndex, steps: &[Step], places: &Places) -> LiveMemory {
    const NONE: u32 = u32::MAX;
    let blocks = index.blocks.len();
    // The loads that read a place (or an aggregate around it) not stored before them in their
    // block, and the blocks that store each place, as (place, block) pairs.
    let mut loaded = Vec::new();
    let mut stored = Vec::new();
    // The last block seen storing each place: a read in that block after it reads the store.
    let mut stored_in = vec![NONE; places.root.len()];
    for b in 0..blocks {
        for n in index.ops_of_block[b].clone() {
            match &steps[n] {
                // A load reads its place, or the aggregate around it stored as a whole.
                Step::Load(Some(place)) => {
                    for read in &places.enclosing[*place as usize] {
                        if stored_in[*read as usize] != b as u32 {
                            loaded.push((*read, b as u32));
                        }
                    }
                }
                Step::Store { place: Some(place), .. } => {
                    stored_in[*place as usize] = b as u32;
                    stored.push((*place, b as u32));
                }
                _ => {}
            }
        }
    }
    loaded.sort_unstable();
    stored.sort_unstable();
    // Place by place, backwards from its loads, stopping at blocks that store it. The marks
    // hold the place last walked, so they are never cleared.
    let mut kills = vec![NONE; blocks];
    let mut live_mark = vec![NONE; blocks];
    let mut live = Vec::new();
    let mut stack = Vec::new();
    let mut next_store = 0;
    let mut loads = loaded.as_slice();
    while let Some(&(place, _)) = loads.first() {
        let count = loads.iter().take_while(|(p, _)| *p == place).count();
        let (these, rest) = loads.split_at(count);
        loads = rest;
        while next_store < stored.len() && stored[next_store].0 <= place {
            if stored[next_store].0 == place {
                kills[stored[next_store].1 as usize] = place;
            }
            next_store += 1;
        }
        for &(_, b) in these {
            if live_mark[b as usize] != place {
                live_mark[b as usize] = place;
                live.push((b, place));
                stack.push(b as usize);
            }
        }
        while let Some(b) = stack.pop() {
            for &pred in &index.preds[b] {
                if kills[pred] != place && live_mark[pred] != place {
                    live_mark[pred] = place;
                    live.push((pred as u32, place));
                    stack.push(pred);
                }
            }
        }
    }
    // By block, each block's places in increasing order (they were found in that order).
    let mut start = vec![0u32; blocks + 1];
    for (b, _) in &live {
        start[*b as usize + 1] += 1;
    }
    for b in 0..blocks {
        start[b + 1] += start[b];
    }
    let mut next = start.clone();
    let mut ordered = vec![0; live.len()];
    for (b, place) in live {
        ordered[next[b as usize] as usize] = place;
        next[b as usize] += 1;
    }
    let facts = vec![None; ordered.len()];
    LiveMemory { start, places: ordered, facts }
}

/// What one block's transfer changed outside the block. Kept by the caller and emptied by
/// each transfer, so that its buffers serve every block.
#[derive(Default)]
pub(crate) struct Changes {
    /// Slots of the values whose fact changed (their users may need a revisit).
    pub values: Vec<u32>,
    /// Blocks whose memory in-state or arguments changed.
    pub blocks: Vec<usize>,
}

/// The fact an operand has now (`None`: none yet); an untracked operand counts as `Unrelated`.
fn operand_fact(store: &dyn FactStore, operand: Slotted) -> Option<Fact> {
    match operand {
        Some(value) => store.get_tracked(value),
        None => Some(Fact::Unrelated),
    }
}

/// The versions an operand may hold; an untracked operand holds none.
fn operand_versions(store: &dyn FactStore, operand: Slotted) -> Versions {
    operand.map_or(0, |value| store.versions_tracked(value))
}

/// Joins `fact` into a result or argument, if tracked, noting the change.
fn set(store: &mut dyn FactStore, changes: &mut Changes, target: Slotted, fact: Fact) {
    if let Some(value) = target
        && store.join(value, fact)
    {
        changes.values.push(value.slot);
    }
}

/// Adds `versions` to a result or argument, if tracked, noting the change.
fn add_versions(store: &mut dyn FactStore, changes: &mut Changes, target: Slotted, versions: Versions) {
    if versions != 0
        && let Some(value) = target
        && store.join_versions(value, versions)
    {
        changes.values.push(value.slot);
    }
}

/// Runs block `b` from its memory in-state, joining facts into `store`; reports in `changes`
/// (emptied first) what changed outside the block.
pub(crate) fn transfer_block(
    index: &ScopeIndex,
    b: usize,
    store: &mut dyn FactStore,
    flow: &mut FlowState,
    changes: &mut Changes,
) {
    changes.values.clear();
    changes.blocks.clear();
    let mut memory = std::mem::take(&mut flow.scratch);
    flow.live.entry_of(b, &mut memory);
    let (places, tables) = (&flow.places, &flow.tables);
    for n in index.ops_of_block[b].clone() {
        let (operands, results) = (tables.operands(n), tables.results(n));
        match &flow.steps[n] {
            Step::StateNew(version) => {
                let state = super::facts::StateId(n as u32);
                set(store, changes, results[0], Fact::Index(state));
                set(store, changes, results[1], Fact::Phase(state));
                add_versions(store, changes, results[0], *version);
                add_versions(store, changes, results[1], *version);
            }
            Step::StateAdvance(version) => {
                // The advanced state is a new value of the same state: same facts, a new version.
                for (result, operand) in results.iter().zip(operands) {
                    if let Some(fact) = operand_fact(store, *operand) {
                        set(store, changes, *result, fact);
                        add_versions(store, changes, *result, *version);
                    }
                }
            }
            Step::Arithmetic => {
                if let Some(fact) = combine(operands.iter().map(|operand| operand_fact(store, *operand))) {
                    set(store, changes, results[0], fact);
                }
            }
            Step::Cast { int_to_int, narrows_widened } => {
                // Not known is `Contexts`, which the rules leave undecided instead of rejecting.
                let fact = match (int_to_int, narrows_widened) {
                    (true, true) => Some(Fact::Contexts),
                    (true, false) => operand_fact(store, operands[0]),
                    (false, _) => Some(Fact::Unrelated),
                };
                if let Some(fact) = fact {
                    set(store, changes, results[0], fact);
                }
                if *int_to_int {
                    let versions = operand_versions(store, operands[0]);
                    add_versions(store, changes, results[0], versions);
                }
            }
            Step::Load(place) => {
                let fact = match place {
                    // Its own fact, or else that of the nearest aggregate around it stored as a
                    // whole (a field read of a tuple stored whole has the tuple's fact).
                    Some(place) => places.enclosing[*place as usize]
                        .iter()
                        .rev()
                        .find_map(|read| memory_get(&memory, *read)),
                    // Memory the facts do not follow: it may hold a state's index.
                    None => Some((Fact::Unknown, 0)),
                };
                if let Some((fact, versions)) = fact {
                    set(store, changes, results[0], fact);
                    add_versions(store, changes, results[0], versions);
                }
            }
            Step::Store { place: Some(place), aggregate } => {
                // A store of a whole aggregate overwrites every field of it.
                for inside in &places.inside[*place as usize] {
                    memory_remove(&mut memory, *inside);
                }
                let stored = operands[0];
                let fact = if *aggregate { Some(Fact::Unknown) } else { operand_fact(store, stored) };
                match fact {
                    Some(fact) => memory_set(&mut memory, *place, (fact, operand_versions(store, stored))),
                    None => memory_remove(&mut memory, *place),
                }
            }
            Step::Call { escaping, callee, unfollowed_state } => {
                // Places whose address escapes into the call hold what the call left there:
                // `Unknown` (a helper taking `&mut self` may have advanced the state in it).
                let mut hands_over_a_state = false;
                if !escaping.is_empty() {
                    for (place, fact) in memory.iter_mut() {
                        if escaping.contains(&places.root[*place as usize]) {
                            hands_over_a_state |= fact.0 != Fact::Unrelated;
                            *fact = (Fact::Unknown, 0);
                        }
                    }
                }
                match callee {
                    // A call of a scope function: its results are what its returns return, on
                    // every call of it (a state a helper returns or hands back is followed).
                    Some(callee) => {
                        for (k, result) in results.iter().enumerate() {
                            if let Some(form) = flow.forms.of(*callee, k) {
                                let argument = |position: &usize| operands.get(*position).copied().flatten();
                                let fact = match &form.params[..] {
                                    [one] if form.identity => operand_fact(store, argument(one)),
                                    params => {
                                        combine(params.iter().map(|p| operand_fact(store, argument(p))))
                                    }
                                };
                                if let Some(fact) = fact {
                                    set(store, changes, *result, fact);
                                    if form.identity {
                                        let versions = operand_versions(store, argument(&form.params[0]));
                                        add_versions(store, changes, *result, versions);
                                    }
                                }
                                continue;
                            }
                            let mut fact = None;
                            let mut versions = 0;
                            for r in &flow.returns_of[*callee] {
                                let value = tables.operands(*r)[k];
                                if let Some(returned) = operand_fact(store, value) {
                                    fact = Some(join_opt(fact, returned));
                                    versions |= operand_versions(store, value);
                                }
                            }
                            if let Some(fact) = fact {
                                set(store, changes, *result, fact);
                                add_versions(store, changes, *result, versions);
                            }
                        }
                        if let Some(entry) = index.entry_block(*callee) {
                            pass_arguments(tables, store, entry, operands, Fact::join_calls, changes);
                        }
                    }
                    // A call outside the scope, or another opaque operation (the shared window's
                    // address), handed nothing from a state computes nothing from one. Handed a
                    // state's index, phase or a value derived from them, or a place holding one
                    // (`st.index().wrapping_mul(TILE)`, a function the import does not follow),
                    // it may return one: undecided where a rule needs a state, not rejected. So
                    // is a state the import cannot follow (`&mut states[p]`), which may be any
                    // state's.
                    None => {
                        hands_over_a_state |= operands.iter().any(|operand| {
                            operand_fact(store, *operand).is_some_and(|f| f != Fact::Unrelated)
                        });
                        let fact = if *unfollowed_state || hands_over_a_state {
                            Fact::Unknown
                        } else {
                            Fact::Unrelated
                        };
                        for result in results {
                            set(store, changes, *result, fact);
                        }
                    }
                }
            }
            Step::Goto => {
                if let Some(target) = index.succs[b].first() {
                    pass_arguments(tables, store, *target, operands, Fact::join, changes);
                }
            }
            // Its results were seeded (see `seed`); a store to an untracked place changes no fact.
            Step::Other | Step::Store { place: None, .. } => {}
        }
    }
    for &succ in &index.succs[b] {
        if flow.live.join_into(succ, &memory) {
            changes.blocks.push(succ);
        }
    }
    flow.scratch = memory;
}

/// Joins the facts of `values` into block `target`'s arguments, by `join`: a branch's
/// [`Fact::join`], or a call's [`Fact::join_calls`] (facts differing between calls of one
/// function are lost per call, not a conflict of the kernel's).
fn pass_arguments(
    tables: &Tables,
    store: &mut dyn FactStore,
    target: usize,
    values: &[Slotted],
    join: fn(Fact, Fact) -> Fact,
    changes: &mut Changes,
) {
    let mut changed = false;
    for (arg, value) in tables.args(target).iter().zip(values) {
        let Some(arg) = *arg else { continue };
        if let Some(fact) = operand_fact(store, *value) {
            let fact = store.get_tracked(arg).map_or(fact, |old| join(old, fact));
            let joined = store.join(arg, fact);
            let versioned = store.join_versions(arg, operand_versions(store, *value));
            if joined || versioned {
                changes.values.push(arg.slot);
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
pub(crate) fn seed(index: &ScopeIndex, flow: &FlowState, store: &mut dyn FactStore) {
    if let Some(entry) = index.entry_block(0) {
        for arg in flow.tables.args(entry).iter().flatten() {
            store.join(*arg, Fact::Unrelated);
        }
    }
    for (n, step) in flow.steps.iter().enumerate() {
        if matches!(step, Step::Other) {
            for result in flow.tables.results(n).iter().flatten() {
                store.join(*result, Fact::Unrelated);
            }
        }
    }
}

/// The indexed fixpoint: every block once, then only blocks whose inputs changed. Returns the
/// facts, in a store that answers the rules by value.
pub(crate) fn run_worklist<'i>(ctx: &Context, index: &'i ScopeIndex) -> IndexedFacts<'i> {
    let mut flow = FlowState::new(ctx, index);
    let mut store = IndexedFacts::new(flow.tables.slots());
    seed(index, &flow, &mut store);
    let mut queued = vec![true; index.blocks.len()];
    let mut worklist: VecDeque<usize> = (0..index.blocks.len()).collect();
    let mut changes = Changes::default();
    while let Some(b) = worklist.pop_front() {
        queued[b] = false;
        transfer_block(index, b, &mut store, &mut flow, &mut changes);
        let mut enqueue = |block: usize| {
            if !queued[block] {
                queued[block] = true;
                worklist.push_back(block);
            }
        };
        for block in &changes.blocks {
            enqueue(*block);
        }
        for slot in &changes.values {
            for user in flow.tables.users(*slot) {
                let block = user.block as usize;
                // A returned value reaches the results of every call of its function.
                if user.returns {
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
    store.answer_by_value(index, flow.tables.value_slots);
    store
}
