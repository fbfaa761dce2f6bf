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
//! Cost: one pass over the scope's switches, one over its blocks per dispatching loop.

use std::cell::Cell;

use rustc_hash::FxHashSet;

use pliron::{context::Context, operation::Operation};

use super::super::index::ScopeIndex;
use crate::ir::mir::{control::SwitchOp, opaque::OpaqueOp};

/// Live arms from which a `match` in a loop is taken for a state machine's dispatch.
const MIN_ARMS: usize = 3;

/// The blocks of a scope inside loops that dispatch by an opaque `match` (module doc).
pub(super) struct Dispatches {
    blocks: FxHashSet<usize>,
    excused: Cell<usize>,
}

impl Dispatches {
    pub(super) fn of(ctx: &Context, index: &ScopeIndex) -> Dispatches {
        let cycles = index.cycles();
        let mut loops: Vec<usize> = Vec::new();
        for b in 0..index.blocks.len() {
            let Some(last) = index.ops_of_block[b].clone().last().map(|n| index.ops[n]) else { continue };
            if Operation::get_op::<SwitchOp>(last, ctx).is_none() || !cycles.on_cycle(b) {
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
            if opaque && arms >= MIN_ARMS && !loops.iter().any(|l| cycles.together(*l, b)) {
                loops.push(b);
            }
        }
        let mut blocks: FxHashSet<usize> =
            (0..index.blocks.len()).filter(|b| loops.iter().any(|l| cycles.together(*l, *b))).collect();
        // The blocks a dispatching loop leaves into (`Step::Done => break`): a path leaving with
        // a stage held is found there.
        let exits: Vec<usize> = blocks.iter().flat_map(|b| index.succs[*b].iter().copied()).collect();
        blocks.extend(exits);
        Dispatches { blocks, excused: Cell::new(0) }
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
