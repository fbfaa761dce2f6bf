//! Which value of a consumer state a pipeline operation is handed: the current one, or the one
//! its last advance started from (the *previous* value). Versions cannot tell them apart in a
//! loop (both come from the same `semantic.state_advance`), so the typestate follows the
//! state's copy places instead: the locals (and their fields) that a store gives a value of the
//! state, each a bit of [`Typestate::current_copies`] or [`Typestate::previous_copies`].
//!
//! A store into a copy place makes it hold what its value holds; an advance of the current
//! value turns every place holding the current value into one holding the previous value (and
//! forgets the older ones). A value is known to be the current or the previous one only where
//! it is loaded from a copy place in the block that uses it, with no store into that place, no
//! call and no other step on the state in between; everything else is "not known", and the
//! typestate then judges the operation as it always did (on the current value).
//!
//! Only places no write outside the scope's own stores can reach are copy places
//! ([`LocalStores::only_written_by_stores`]).

use rustc_hash::FxHashMap;

use pliron::{
    context::Context,
    operation::Operation,
    value::{DefiningEntity, Value},
};

use super::super::{
    facts::{Fact, FactStore, StateId},
    index::{OpClass, ScopeIndex},
    memory::LocalStores,
    protocol::{Step, Typestate},
};
use crate::ir::{
    mir::memory::LoadOp,
    semantic::pipeline::{StateAdvanceOp, StateNewOp},
};

/// Copy places one state can have followed (one bit each in a `u32`).
const MAX_COPY_PLACES: usize = 32;

/// Where a value comes from, as far as the copy places say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// The result of the state's creation or advance: its current value.
    Made,
    /// Loaded from copy place `bit`.
    Place(u8),
    /// Anything else.
    Unknown,
}

/// Which value of its state a value is, on one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Which {
    Current,
    Previous,
    Unknown,
}

impl Source {
    pub(super) fn which(self, typestate: &Typestate) -> Which {
        match self {
            Source::Made => Which::Current,
            Source::Place(bit) if typestate.current_copies & (1 << bit) != 0 => Which::Current,
            Source::Place(bit) if typestate.previous_copies & (1 << bit) != 0 => Which::Previous,
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
        copies
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
        Which::Unknown => {}
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
        if m >= user || index.op_block[m] != index.op_block[user] {
            return Source::Unknown;
        }
        let made = Operation::is_op::<StateNewOp>(def, ctx) || Operation::is_op::<StateAdvanceOp>(def, ctx);
        let place = if made {
            None
        } else if Operation::is_op::<LoadOp>(def, ctx) {
            let Some(place) = self.locals.slot(ctx, def.deref(ctx).get_operand(0)) else {
                return Source::Unknown;
            };
            let Some(bit) = self.places.get(&state).and_then(|known| known.iter().position(|p| *p == place))
            else {
                return Source::Unknown;
            };
            Some((place, bit as u8))
        } else {
            return Source::Unknown;
        };
        // Nothing in between may change what the place or the state holds.
        for k in m + 1..user {
            let changes = match index.op_class[k] {
                OpClass::Call | OpClass::Opaque => true,
                OpClass::Semantic => {
                    let op = index.ops[k];
                    Operation::is_op::<StateNewOp>(op, ctx) || Operation::is_op::<StateAdvanceOp>(op, ctx)
                }
                OpClass::Store => place.as_ref().is_some_and(|(place, _)| {
                    index
                        .accessed_address(k)
                        .and_then(|address| self.locals.slot(ctx, address))
                        .is_none_or(|written| written.0 == place.0)
                }),
                _ => false,
            };
            if changes {
                return Source::Unknown;
            }
        }
        match place {
            Some((_, bit)) => Source::Place(bit),
            None => Source::Made,
        }
    }
}
