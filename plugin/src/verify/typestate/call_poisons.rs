//! Pipeline operations whose state the provenance rule could not name, seen from the calls that
//! reach them. Inside its own function such an operation ends the paths of the states it may
//! step (unreported: the provenance rule already made the scope rejected or unverified). A
//! helper's summary holds only the states its steps name, so a copy in `fill(&pipe, &state)`
//! whose state is unknown left the caller's state untouched by the call: its advance was then
//! reported as owing bytes no copy delivered, a rejection the kernel does not deserve. Each
//! function's poisons are gathered here with its callees', and a call ends the paths of every
//! state they may step, as the operation itself would.

use std::collections::{BTreeMap, BTreeSet};

use super::super::call_order::gather_from_callees;
use super::super::{facts::StateId, index::ScopeIndex, protocol::Typestate};

/// The states a function's poisoned operations (its own and its callees') may step.
#[derive(Clone, Default)]
struct Poisoned {
    /// An operation whose state is not known: it may step any state.
    any: bool,
    states: BTreeSet<StateId>,
}

/// Per function, the poisoned operations it reaches through calls included.
pub(super) struct CallPoisons(Vec<Poisoned>);

impl CallPoisons {
    /// `poisons[&n]`: operation `n`'s function and the state it names, if it is poisoned;
    /// `order`: callees before their callers.
    pub(super) fn of(index: &ScopeIndex, poisons: &super::Poisons, order: &[usize]) -> CallPoisons {
        let mut reached = vec![Poisoned::default(); index.functions.len()];
        for (function, named) in poisons.values() {
            match named {
                Some(state) => _ = reached[*function].states.insert(*state),
                None => reached[*function].any = true,
            }
        }
        gather_from_callees(index, order, &mut reached, |into, from| {
            into.any |= from.any;
            into.states.extend(from.states.iter().copied());
        });
        CallPoisons(reached)
    }

    /// At a call of `callee`: ends the paths (typestate bits cleared, unreported) of every state
    /// of `slots` a poisoned operation it reaches may step.
    pub(super) fn end_paths(&self, callee: usize, slots: &BTreeMap<StateId, usize>, row: &mut [Typestate]) {
        let reached = &self.0[callee];
        for (state, slot) in slots {
            if reached.any || reached.states.contains(state) {
                row[*slot].bits = 0;
            }
        }
    }
}
