//! Stage accesses whose stage pointer was computed in another function: a closure that reads a
//! stage pointer it captured (`(0..8).map(|r| *stage.add(r * 32 + c)).sum()`), a helper reading
//! through a pointer kept in a struct its caller filled. Inside the accessing function the state's
//! current value is not known (a summary starts from any), so whether the pointer was taken from
//! the state's current value is asked where it is known: at each call, in the function that
//! computed the pointer, leading to the access. A pointer computed before the loop and read by a
//! closure called on every tile names the first tile's stage on all of them (blind round 23's
//! `r23_clo_bad_captured_stage`). Where the call's callee may itself advance the state (a loop
//! helper running a closure that waits, reads and advances), an access below it may come after
//! such an advance, reading an older stage than the one held: not followed (undecided), since
//! the order inside the callee is not known here (blind round 31's `r31_hof_bad_captured_stage`).
//!
//! Cost: one pass over the accesses, then per function (callees first) one pass over its calls,
//! each adding the callee's open accesses: linear in the accesses times the call depth.

use pliron::{
    context::Ptr,
    operation::Operation,
    value::{DefiningEntity, Value},
};
use rustc_hash::{FxHashMap, FxHashSet};

use super::super::{
    Rule,
    facts::StateId,
    index::ScopeIndex,
    protocol::{Step, Typestate, stale_versions},
};
use super::{Effect, Found, FunctionRun, calls_in};

/// A stage access in a function (or below it) whose stage pointer's offset comes from a state's
/// index computed in function `home`, not yet checked against the state's value there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ForeignAccess {
    pub state: StateId,
    /// The state's index value the pointer's offset derives from.
    pub offset: Value,
    /// The function computing `offset`.
    pub home: usize,
}

/// The function defining `value` (an operation's result or a block argument).
fn home_of(index: &ScopeIndex, value: Value) -> Option<usize> {
    match value.defining_entity() {
        DefiningEntity::Op(op) => index.function_of_op(op),
        DefiningEntity::Block(block) => index.block_number.get(&block).map(|b| index.block_function[*b]),
    }
}

/// The functions `from` calls, directly or through other functions of the scope.
fn called_from(index: &ScopeIndex, from: usize) -> FxHashSet<usize> {
    let mut called = FxHashSet::default();
    let mut pending = vec![from];
    while let Some(f) = pending.pop() {
        for (_, callee) in calls_in(index, f) {
            if called.insert(callee) {
                pending.push(callee);
            }
        }
    }
    called
}

/// For each function, the foreign accesses in it or below it whose offset comes from outside it:
/// each is checked at the calls of the function `home` makes toward it; an access still open at
/// a root (its offset computed in a function that does not call toward it) is not checked.
pub(super) fn foreign_accesses(
    index: &ScopeIndex,
    steps: &[Option<(StateId, Step)>],
    access_offsets: &FxHashMap<usize, Value>,
    order: &[usize],
    cyclic: &FxHashSet<usize>,
) -> Vec<Vec<ForeignAccess>> {
    let mut foreign: Vec<Vec<ForeignAccess>> = vec![Vec::new(); index.functions.len()];
    // Per accessing function, what it calls: one walk of the call graph each.
    let mut callees: FxHashMap<usize, FxHashSet<usize>> = FxHashMap::default();
    for (n, step) in steps.iter().enumerate() {
        let (Some((state, Step::StageAccess)), Some(offset)) = (step, access_offsets.get(&n).copied()) else {
            continue;
        };
        let (Some(at), Some(home)) = (index.function_of_op(index.ops[n]), home_of(index, offset)) else {
            continue;
        };
        // A pointer a helper of the accessing function computed (`stage_of(&state)` returning
        // it) is checked where it is read, the helper's result carrying the state's versions.
        if at != home && !callees.entry(at).or_insert_with(|| called_from(index, at)).contains(&home) {
            foreign[at].push(ForeignAccess { state: *state, offset, home });
        }
    }
    for f in order {
        let mut inherited = Vec::new();
        for (call, callee) in calls_in(index, *f) {
            // A call closing a cycle is not followed: the states it could touch end there.
            if callee == *f || cyclic.contains(&call) {
                continue;
            }
            inherited.extend(foreign[callee].iter().copied().filter(|access| access.home != *f));
        }
        for access in inherited {
            if !foreign[*f].contains(&access) {
                foreign[*f].push(access);
            }
        }
    }
    foreign
}

impl FunctionRun<'_> {
    /// At call `call` (operation `n`) of `callee`: the stage accesses below it whose stage
    /// pointer this function computed must use the state's current value here (a pointer taken
    /// before the state's last advance names an older stage); with `report`, each stale one is
    /// reported at the call.
    pub(super) fn check_foreign(
        &self,
        n: usize,
        call: Ptr<Operation>,
        callee: usize,
        row: &[Typestate],
        report: &mut Option<&mut Vec<Found>>,
    ) {
        // A stage index handed to a helper's access from a copy that is, or may be, the
        // previous value: the helper's summary judged it as the current value's.
        for (state, source) in self.copies.handed_at_call(n) {
            let Some(&i) = self.slots.of.get(state) else { continue };
            if row[i].bits != 0 && source.may_be_previous(&row[i]) {
                self.not_followed(n);
            }
        }
        for access in self.foreign[callee].iter().filter(|access| access.home == self.function) {
            let Some(&i) = self.slots.of.get(&access.state) else { continue };
            let before = row[i];
            if before.bits == 0 {
                continue;
            }
            // A callee that may advance the state (a loop helper running a closure that waits,
            // reads and advances) may read through the pointer after an advance: the pointer
            // then names an older stage than the one held (the first tile's stage read on every
            // tile). Which comes first below the call is not followed.
            let advances_below = self.summaries[callee].as_ref().is_none_or(|summary| {
                summary
                    .get(&access.state)
                    .is_some_and(|effects| effects.iter().flatten().any(Effect::advances))
            });
            if advances_below {
                self.not_followed(n);
                continue;
            }
            // The callee judged the access as the current value's (a summary starts from any
            // value): where the index was taken from a copy that is, or may be, the previous
            // value, the access reads another stage than the one it was judged on.
            if !stale_versions(before.current, self.facts.versions(access.offset)) {
                let source = self.copies.source_at_call(n, access.offset);
                if source.may_be_previous(&before) {
                    self.not_followed(n);
                }
                continue;
            }
            if let Some(report) = report.as_deref_mut() {
                let message = "this call reads a stage through a pointer taken from a stale copy of the state: on \
                               some path the state was advanced after the pointer was computed, so it names an \
                               older stage"
                    .to_string();
                let rule = if self.slots.producer[i] { Rule::ProducerOrder } else { Rule::ConsumerOrder };
                report.push((rule, call, message, access.state, None));
            }
        }
    }
}
