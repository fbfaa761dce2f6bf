//! State machines: a loop whose body is a `match` over a value the loop itself sets (`match step
//! { Step::Wait => { wait; step = Step::Read } Step::Read => … }`) runs a state's operations in
//! the order that value dictates, one arm per pass. The import reads such a discriminant as an
//! opaque value and the typestate's paths do not follow it: they take every arm after every
//! other, most of them orders no launch runs (a release straight after a release). What the paths
//! find inside such a loop is no proof of a defect, so it is recorded as undecided, never
//! rejected. A `match` of two live arms (`Option`, a `while let`) is a loop's test, not a state
//! machine, and keeps its findings. The blocks the loop leaves into count as inside it: a path
//! leaving with a stage held is reported where it leaves.
//!
//! A helper that dispatches by such a `match` and is called from a loop of its caller (an
//! actor's `handle(message)`, run until it stops replying) is the same machine, its loop in the
//! caller: its blocks count as inside a dispatching loop.
//!
//! A helper holding such a loop passes the impossible orders on to its callers through its
//! summary (a consumer leaving the helper still waiting, after an arm order no launch runs), so
//! every finding on a state whose operations such a loop runs, itself or through the helpers it
//! calls, is undecided too, wherever it is found (a graph walker's `run_consumer`, a scheduler's
//! `handle`).
//!
//! Cost: one pass over the scope's switches, one over its blocks per dispatching loop.

use std::{cell::Cell, collections::BTreeSet};

use rustc_hash::FxHashSet;

use pliron::{context::Context, operation::Operation};

use super::super::{facts::StateId, index::ScopeIndex, protocol::Step};
use crate::ir::mir::{control::SwitchOp, opaque::OpaqueOp};

/// Live arms from which a `match` in a loop is taken for a state machine's dispatch.
const MIN_ARMS: usize = 3;

/// The blocks of a scope inside loops that dispatch by an opaque `match` (module doc).
pub(super) struct Dispatches {
    blocks: FxHashSet<usize>,
    /// The states whose steps a dispatching loop runs, in its blocks or in the helpers it calls.
    states: FxHashSet<StateId>,
    excused: Cell<usize>,
}

impl Dispatches {
    /// `steps`: each operation's step; `touched`: per function, the states it or its callees
    /// step.
    pub(super) fn of(
        ctx: &Context,
        index: &ScopeIndex,
        steps: &[Option<(StateId, Step)>],
        touched: &[BTreeSet<StateId>],
    ) -> Dispatches {
        let cycles = index.cycles();
        let mut loops: Vec<usize> = Vec::new();
        // Helpers that dispatch one message per call from a caller's loop (an actor's `handle`).
        let mut handlers: FxHashSet<usize> = FxHashSet::default();
        for b in 0..index.blocks.len() {
            let Some(last) = index.ops_of_block[b].clone().last().map(|n| index.ops[n]) else { continue };
            if Operation::get_op::<SwitchOp>(last, ctx).is_none() {
                continue;
            }
            let opaque = last
                .deref(ctx)
                .get_operand(0)
                .defining_op()
                .and_then(|def| Operation::get_op::<OpaqueOp>(def, ctx))
                .and_then(|opaque| opaque.what(ctx))
                .is_some_and(|what| what.starts_with("discriminant("));
            let arms = index.succs[b].iter().filter(|s| !index.is_only_unreachable(ctx, **s)).count();
            if !opaque || arms < MIN_ARMS {
                continue;
            }
            let f = index.block_function[b];
            if cycles.on_cycle(b) {
                if !loops.iter().any(|l| cycles.together(*l, b)) {
                    loops.push(b);
                }
            } else if f != 0 && index.callers[f].iter().any(|call| cycles.on_cycle(index.op_block[*call])) {
                handlers.insert(f);
            }
        }
        let mut blocks: FxHashSet<usize> =
            (0..index.blocks.len()).filter(|b| loops.iter().any(|l| cycles.together(*l, *b))).collect();
        // The blocks a dispatching loop leaves into (`Step::Done => break`): a path leaving with
        // a stage held is found there.
        let exits: Vec<usize> = blocks.iter().flat_map(|b| index.succs[*b].iter().copied()).collect();
        blocks.extend(exits);
        for f in handlers {
            blocks.extend(index.blocks_of[f].clone());
        }
        let mut states = FxHashSet::default();
        for b in &blocks {
            for n in index.ops_of_block[*b].clone() {
                if let Some((state, _)) = &steps[n] {
                    states.insert(*state);
                }
                if let Some(callee) = index.callee_of.get(&n) {
                    states.extend(touched[*callee].iter().copied());
                }
            }
        }
        Dispatches { blocks, states, excused: Cell::new(0) }
    }

    /// Whether a finding on `state` at block `b` is left undecided: inside a dispatching loop, or
    /// on a state such a loop steps (module doc).
    pub(super) fn excuses_finding(&self, b: usize, state: StateId) -> bool {
        self.excuses(b) || self.excused_state(state)
    }

    /// Whether `state` is one a dispatching loop steps: a finding on it is left undecided.
    fn excused_state(&self, state: StateId) -> bool {
        let excused = self.states.contains(&state);
        if excused {
            self.excused.set(self.excused.get() + 1);
        }
        excused
    }

    /// Whether a finding at block `b` is inside a dispatching loop, left undecided (recorded for
    /// [`Dispatches::finish`]).
    pub(super) fn excuses(&self, b: usize) -> bool {
        let inside = self.blocks.contains(&b);
        if inside {
            self.excused.set(self.excused.get() + 1);
        }
        inside
    }

    /// The undecided line for the findings excused, if any.
    pub(super) fn finish(&self) -> Option<String> {
        let excused = self.excused.get();
        (excused > 0).then(|| {
            format!(
                "the order of {excused} pipeline operations in a loop that dispatches them by a `match` on a value \
                 the verifier does not follow (a state machine: the typestate's paths take every arm after every \
                 other, orders no launch runs)"
            )
        })
    }
}
