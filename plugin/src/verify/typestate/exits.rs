//! Paths that leave a function unfinished: a producer that never ran its tail, a consumer still
//! waiting on a stage or holding its previous one, at a `mir.return`; and where such a path
//! leaves the part of the function that could still have finished it (the `return` or `break`
//! the error is reported at).

use pliron::{context::Ptr, operation::Operation};
use rustc_hash::FxHashMap;

use super::super::{
    Rule,
    facts::StateId,
    index::ScopeIndex,
    protocol::{ACQUIRED, COPIED_EARLY, COPYING, EXPECTING, HOLDS_PREVIOUS, READY, Typestate, WAITING},
};
use super::{Found, FunctionRun};

impl FunctionRun<'_> {
    /// At a `mir.return`: a producer must have run its tail, a consumer must not hold a stage.
    pub(super) fn unfinished(&self, row: &[Typestate], op: Ptr<Operation>, report: &mut Vec<Found>) {
        for (s, i) in &self.slots.of {
            let live = row[*i].bits;
            if self.slots.producer[*i] {
                let bad = live & (READY | ACQUIRED | EXPECTING | COPYING | COPIED_EARLY);
                if bad != 0 {
                    let message = "a path leaves the function with a producer state that never reached \
                                   `semantic.producer_tail`"
                        .to_string();
                    report.push((Rule::ProducerTail, op, message, *s, Some(bad)));
                }
            } else {
                if live & WAITING != 0 {
                    let message =
                        "a path leaves the function while a consumer waits on a stage it never released"
                            .to_string();
                    report.push((Rule::ConsumerOrder, op, message, *s, Some(WAITING)));
                }
                if live != 0 && row[*i].holds & HOLDS_PREVIOUS != 0 {
                    let message = "a path leaves the function while the consumer still holds the stage of \
                                   its state's previous value (waited on, advanced past, never released)"
                        .to_string();
                    report.push((Rule::ConsumerOrder, op, message, *s, None));
                }
            }
        }
    }

    /// Where paths that reach `ret` with `state` in a `bad` typestate leave the part of the
    /// function that could still have fixed it: the first operation of each first block past
    /// the last one that can reach a step on the state (the `return` or `break`). Empty when
    /// the return itself is that point.
    pub(super) fn exit_points(
        &self,
        index: &ScopeIndex,
        ret: Ptr<Operation>,
        state: StateId,
        bad: u16,
        out_rows: &FxHashMap<usize, Vec<Typestate>>,
    ) -> Vec<Ptr<Operation>> {
        let (Some(&slot), Some(ret_block)) = (self.slots.of.get(&state), index.block_of_op(ret)) else {
            return Vec::new();
        };
        let function = index.blocks_of[index.block_function[ret_block]].clone();
        // Blocks from which some path reaches a step on the state (the step's block included).
        let mut can_fix = vec![false; function.len()];
        let mut pending: Vec<usize> = self
            .steps
            .iter()
            .enumerate()
            .filter(|(_, step)| step.as_ref().is_some_and(|(s, _)| *s == state))
            .map(|(n, _)| index.op_block[n])
            // Steps on the state in other functions (a helper's advance) are not blocks of
            // this one; the walk stays inside the returning function.
            .filter(|b| function.contains(b))
            .collect();
        while let Some(b) = pending.pop() {
            if std::mem::replace(&mut can_fix[b - function.start], true) {
                continue;
            }
            pending.extend(index.preds[b].iter().copied());
        }
        if can_fix[ret_block - function.start] {
            return Vec::new();
        }
        let carries_bad = |b: usize| out_rows.get(&b).is_some_and(|row| row[slot].bits & bad != 0);
        let mut visited = vec![false; function.len()];
        let mut walk = vec![ret_block];
        let mut exits = Vec::new();
        while let Some(x) = walk.pop() {
            if std::mem::replace(&mut visited[x - function.start], true) {
                continue;
            }
            for &p in &index.preds[x] {
                if !carries_bad(p) {
                    continue;
                }
                if can_fix[p - function.start] {
                    exits.push(x);
                } else {
                    walk.push(p);
                }
            }
        }
        exits.sort_unstable();
        exits.dedup();
        // The block's first operation: rustc gives a `return` block's jump the function's
        // closing brace, and its first statement (`_0 = ()`) the `return` itself.
        exits.into_iter().filter_map(|x| index.ops.get(index.ops_of_block[x].start).copied()).collect()
    }
}
