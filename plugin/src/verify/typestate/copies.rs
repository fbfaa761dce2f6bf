//! Which value of a consumer state a pipeline operation is handed: the current one, or the one
//! its last advance started from (the *previous* value). Versions cannot tell them apart in a
//! loop (both come from the same `semantic.state_advance`), so the typestate follows the
//! state's copy places instead: the locals (and their fields) that a store gives a value of the
//! state, each a bit of [`Typestate::current_copies`] or [`Typestate::previous_copies`].
//!
//! A store into a copy place makes it hold what its value holds; an advance of the current
//! value turns every place holding the current value into one holding the previous value (and
//! forgets the older ones). A value is known to be the current or the previous one only where
//! it is loaded from a copy place with no store into that place on any path from the load to its
//! use (or is made by the state's creation or advance in the block of its use, with no call and
//! no other step on the state in between). A value loaded from a copy place with such a store in
//! between is *unsure* (it may be the previous value where the place now holds the current
//! one), and the typestate does not follow a release or stage access handed it; anything else
//! is "not known", and the typestate judges the operation as it always did (on the current
//! value).
//!
//! Only places no write outside the scope's own stores can reach are copy places
//! ([`LocalStores::only_written_by_stores`]).

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{
    context::Context,
    operation::Operation,
    value::{DefiningEntity, Value},
};

use super::super::{
    call_order::calls_in,
    facts::{Fact, FactStore, StateId},
    index::{OpClass, ScopeIndex},
    memory::LocalStores,
    protocol::{Step, Typestate},
};
use super::foreign::ForeignAccess;
use crate::ir::{
    mir::{arith::CastOp, memory::LoadOp},
    semantic::pipeline::{StateAdvanceOp, StateNewOp},
};

/// Copy places one state can have followed (one bit each in a `u32`).
const MAX_COPY_PLACES: usize = 32;
/// Helper calls a stage index handed to a helper's access is followed up through.
const MAX_HANDED_DEPTH: usize = 4;
/// Blocks one search for a store between a copy place's load and its use may visit.
const MAX_SEARCH_BLOCKS: usize = 256;

/// Where a value comes from, as far as the copy places say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// The result of the state's creation or advance: its current value.
    Made,
    /// Loaded from copy place `bit`.
    Place(u8),
    /// Loaded from copy place `bit`, but a store into the place may come between the load and
    /// the use: the value may be one the place no longer holds.
    Unsure(u8),
    /// Anything else.
    Unknown,
}

/// Which value of its state a value is, on one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Which {
    Current,
    Previous,
    /// A value loaded from a copy place, which the typestate cannot tell: it may be the
    /// previous value even where the place now holds the current one.
    Unsure,
    Unknown,
}

impl Source {
    /// Whether the value is, or may be, the previous value of its state on a path in
    /// `typestate`.
    pub(super) fn may_be_previous(self, typestate: &Typestate) -> bool {
        matches!(self.which(typestate), Which::Previous | Which::Unsure)
    }

    pub(super) fn which(self, typestate: &Typestate) -> Which {
        match self {
            Source::Made => Which::Current,
            Source::Place(bit) if typestate.current_copies & (1 << bit) != 0 => Which::Current,
            Source::Place(bit) if typestate.previous_copies & (1 << bit) != 0 => Which::Previous,
            Source::Unsure(_) => Which::Unsure,
            _ => Which::Unknown,
        }
    }
}

/// The scope's stores into copy places, and where the state operand of each pipeline
/// operation and the stage index of each stage access come from.
#[derive(Default)]
pub(super) struct Copies {
    /// Store (operation number) → the state, the place's bit and the stored value's source.
    stores: FxHashMap<usize, (StateId, u8, Source)>,
    /// Pipeline operation or stage access (operation number) → its value's source.
    sources: FxHashMap<usize, Source>,
    /// A call (operation number) and the stage index of a stage access below it computed in the
    /// calling function ([`ForeignAccess::offset`]) → that value's source at the call.
    at_calls: FxHashMap<(usize, Value), Source>,
    /// A call (operation number) → for each stage access below it whose index is a parameter of
    /// its helper, the state and the source of the value the call chain passes for it, taken
    /// where that value is computed rather than passed on.
    handed: FxHashMap<usize, Vec<(StateId, Source)>>,
}

impl Copies {
    /// Finds the copy places of every state, the stores into them and the sources of the steps'
    /// values (`steps`: each operation's step; `access_offsets`: the stage index each stage
    /// access's pointer derives from).
    pub(super) fn of(
        ctx: &Context,
        index: &ScopeIndex,
        facts: &dyn FactStore,
        locals: &LocalStores,
        steps: &[Option<(StateId, Step)>],
        access_offsets: &FxHashMap<usize, Value>,
        foreign: &[Vec<ForeignAccess>],
    ) -> Copies {
        let mut places: FxHashMap<StateId, Vec<(Value, Vec<u32>)>> = FxHashMap::default();
        let mut copies = Copies::default();
        // Stores of a state's index or phase into a place only the scope's stores write.
        let mut found = Vec::new();
        for (n, op) in index.ops_of_class(OpClass::Store) {
            if steps[n].is_some() {
                continue;
            }
            let (value, address) = {
                let operation = op.deref(ctx);
                (operation.get_operand(0), operation.get_operand(1))
            };
            let (Some(Fact::Index(state)) | Some(Fact::Phase(state))) = facts.get(value) else { continue };
            let Some(place) = locals.slot(ctx, address) else { continue };
            if !locals.only_written_by_stores(place.0) {
                continue;
            }
            let known = places.entry(state).or_default();
            let bit = match known.iter().position(|p| *p == place) {
                Some(bit) => bit,
                None if known.len() < MAX_COPY_PLACES => {
                    known.push(place);
                    known.len() - 1
                }
                None => continue,
            };
            found.push((n, state, bit as u8, value));
        }
        let finder = SourceFinder { ctx, index, locals, places: &places };
        for (n, state, bit, value) in found {
            copies.stores.insert(n, (state, bit, finder.source(state, value, n)));
        }
        for (n, step) in steps.iter().enumerate() {
            let Some((state, step)) = step else { continue };
            let Some(value) = super::worked_on(ctx, index, access_offsets, n, step) else { continue };
            let source = finder.source(*state, value, n);
            if source != Source::Unknown {
                copies.sources.insert(n, source);
            }
        }
        // Most scopes have no foreign access at all: their calls need no walk.
        let any_foreign = foreign.iter().any(|accesses| !accesses.is_empty());
        for f in (0..foreign.len()).filter(|_| any_foreign) {
            for (call, callee) in calls_in(index, f) {
                for access in foreign[callee].iter().filter(|access| access.home == f) {
                    let source = finder.source(access.state, access.offset, call);
                    if source != Source::Unknown {
                        copies.at_calls.insert((call, access.offset), source);
                    }
                }
            }
        }
        // A helper reading a stage at an index its caller passes (`column_of_stage(ring,
        // prev.index(), c)`) is judged, in the helper's summary, as reading the current stage:
        // what the index really is, is asked at the calls, up to where it is computed.
        for (n, step) in steps.iter().enumerate() {
            let (Some((state, Step::StageAccess)), Some(offset)) = (step, access_offsets.get(&n)) else {
                continue;
            };
            let mut pending = vec![(*offset, 0)];
            while let Some((value, depth)) = pending.pop() {
                let value = as_passed(ctx, locals, value);
                let Some(arguments) = index.call_arguments(ctx, value) else { continue };
                let DefiningEntity::Block(block) = value.defining_entity() else { continue };
                let Some(&b) = index.block_number.get(&block) else { continue };
                for (call, argument) in index.callers[index.block_function[b]].iter().zip(arguments) {
                    match finder.source(*state, argument, *call) {
                        Source::Unknown if depth < MAX_HANDED_DEPTH => pending.push((argument, depth + 1)),
                        Source::Unknown => {}
                        source => copies.handed.entry(*call).or_default().push((*state, source)),
                    }
                }
            }
        }
        copies
    }

    /// The states and sources of the stage indices call `call` hands on toward stage accesses
    /// in its callees (see [`Copies::handed`]).
    pub(super) fn handed_at_call(&self, call: usize) -> &[(StateId, Source)] {
        self.handed.get(&call).map_or(&[], Vec::as_slice)
    }

    /// Where the stage index `offset` of a stage access below call `call` comes from, at the call.
    pub(super) fn source_at_call(&self, call: usize, offset: Value) -> Source {
        self.at_calls.get(&(call, offset)).copied().unwrap_or(Source::Unknown)
    }

    /// The store into a copy place operation `n` is, if it is one.
    pub(super) fn store(&self, n: usize) -> Option<(StateId, u8, Source)> {
        self.stores.get(&n).copied()
    }

    /// Where the value step `n` works on comes from.
    pub(super) fn source(&self, n: usize) -> Source {
        self.sources.get(&n).copied().unwrap_or(Source::Unknown)
    }
}

/// Applies a store into copy place `bit` of a value from `source`.
pub(super) fn store_copy(typestate: &mut Typestate, bit: u8, source: Source) {
    let which = source.which(typestate);
    let mask = 1u32 << bit;
    typestate.current_copies &= !mask;
    typestate.previous_copies &= !mask;
    match which {
        Which::Current => typestate.current_copies |= mask,
        Which::Previous => typestate.previous_copies |= mask,
        Which::Unsure | Which::Unknown => {}
    }
}

/// After an advance of the current value: the places that held it hold the previous value;
/// the results are stored into places afterwards.
pub(super) fn advance_copies(typestate: &mut Typestate, advanced: Which) {
    if advanced == Which::Current {
        typestate.previous_copies = typestate.current_copies;
    } else {
        typestate.previous_copies = 0;
    }
    typestate.current_copies = 0;
}

struct SourceFinder<'a> {
    ctx: &'a Context,
    index: &'a ScopeIndex,
    locals: &'a LocalStores,
    places: &'a FxHashMap<StateId, Vec<(Value, Vec<u32>)>>,
}

impl SourceFinder<'_> {
    /// Where `value`, used by operation `user`, comes from (module doc).
    fn source(&self, state: StateId, value: Value, user: usize) -> Source {
        let (ctx, index) = (self.ctx, self.index);
        let DefiningEntity::Op(def) = value.defining_entity() else { return Source::Unknown };
        let Some(&m) = index.op_number.get(&def) else { return Source::Unknown };
        let same_block = index.op_block[m] == index.op_block[user];
        if (same_block && m >= user)
            || index.block_function[index.op_block[m]] != index.block_function[index.op_block[user]]
        {
            return Source::Unknown;
        }
        if Operation::is_op::<StateNewOp>(def, ctx) || Operation::is_op::<StateAdvanceOp>(def, ctx) {
            // The value made here is the current one until the next step on the state, or a
            // call that may take one.
            let changes = |k: usize| match index.op_class[k] {
                OpClass::Call | OpClass::Opaque => true,
                OpClass::Semantic => {
                    let op = index.ops[k];
                    Operation::is_op::<StateNewOp>(op, ctx) || Operation::is_op::<StateAdvanceOp>(op, ctx)
                }
                _ => false,
            };
            return if same_block && !(m + 1..user).any(changes) { Source::Made } else { Source::Unknown };
        }
        if !Operation::is_op::<LoadOp>(def, ctx) {
            return Source::Unknown;
        }
        let Some(place) = self.locals.slot(ctx, def.deref(ctx).get_operand(0)) else {
            return Source::Unknown;
        };
        let Some(bit) = self.places.get(&state).and_then(|known| known.iter().position(|p| *p == place))
        else {
            return Source::Unknown;
        };
        // Only a store into the place between the load and the use makes the loaded value one
        // the place may no longer hold. A copy place is written only by stores the pass places
        // (`only_written_by_stores`), so neither a call (one that advances the state makes the
        // typestate forget which value each place holds) nor a store through a pointer the
        // pass cannot place reaches it.
        let stores_into_place = |k: usize| {
            index.op_class[k] == OpClass::Store
                && index
                    .accessed_address(k)
                    .and_then(|address| self.locals.slot(ctx, address))
                    .is_some_and(|written| written.0 == place.0)
        };
        let unchanged = if same_block {
            !(m + 1..user).any(stores_into_place)
        } else {
            self.no_store_between(m, user, &stores_into_place)
        };
        if unchanged { Source::Place(bit as u8) } else { Source::Unsure(bit as u8) }
    }

    /// Whether no path from operation `m` to operation `user` (in another block of the same
    /// function) that does not run `m` again passes an operation `stores` admits; `false` where
    /// the search would pass [`MAX_SEARCH_BLOCKS`] blocks.
    fn no_store_between(&self, m: usize, user: usize, stores: &dyn Fn(usize) -> bool) -> bool {
        let index = self.index;
        let (from, to) = (index.op_block[m], index.op_block[user]);
        let function = index.block_function[from];
        if index.ops_of_block[from].clone().any(|k| k > m && stores(k))
            || index.ops_of_block[to].clone().any(|k| k < user && stores(k))
        {
            return false;
        }
        let walk = |starts: &[usize], forward: bool| -> Option<FxHashSet<usize>> {
            let mut seen = FxHashSet::default();
            let mut stack: Vec<usize> = starts.to_vec();
            while let Some(b) = stack.pop() {
                if b == from || index.block_function[b] != function || !seen.insert(b) {
                    continue;
                }
                if seen.len() > MAX_SEARCH_BLOCKS {
                    return None;
                }
                stack.extend_from_slice(if forward { &index.succs[b] } else { &index.preds[b] });
            }
            Some(seen)
        };
        let (Some(after), Some(before)) = (walk(&index.succs[from], true), walk(&index.preds[to], false))
        else {
            return false;
        };
        // A block on a path from the load to the use (the use's own block where a path comes
        // back to it) holding a store into the place.
        after.iter().filter(|b| before.contains(b)).all(|b| !index.ops_of_block[*b].clone().any(stores))
    }
}

/// `value` with the integer casts that made it, and the one store into a local it was loaded
/// from, looked through (`index as usize` of a helper's parameter `index`, which the helper keeps
/// in a local).
fn as_passed(ctx: &Context, locals: &LocalStores, mut value: Value) -> Value {
    for _ in 0..MAX_HANDED_DEPTH {
        let Some(def) = value.defining_op() else { break };
        if Operation::get_op::<CastOp>(def, ctx).is_some() {
            value = def.deref(ctx).get_operand(0);
        } else if Operation::get_op::<LoadOp>(def, ctx).is_some()
            && let Some(stored) = locals.only_store_into(ctx, def.deref(ctx).get_operand(0))
        {
            value = stored;
        } else {
            break;
        }
    }
    value
}
