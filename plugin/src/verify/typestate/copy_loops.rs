//! Stages filled by several copies from a counted loop (`for row in 0..8 { copy 128 bytes }`).
//! The typestate's paths do not count a loop's passes: the join at the loop's head mixes the
//! bytes still owed after each pass (a mismatch) and keeps the path on which the loop's condition
//! fails before its first pass (a stage advanced with none of its copies). Such a loop is
//! summarised instead: where the loop is entered its copies are taken all at once (passes ×
//! bytes), and the copy inside it delivers nothing more.
//!
//! That is exact only when the loop makes a constant number of passes, at least one, each running
//! the copy exactly once, its condition its one way out ([`CounterReader::constant_passes`], the
//! reading of the tile-count rule), and nothing else in the loop steps the copy's state: no other operation on
//! it, no call of a function that touches it, no pipeline operation whose provenance failed.
//! Any loop that is not so is left to the paths as before (a rejection or a gap, never a pass).
//!
//! A copy in a helper the scope calls once, the helper doing nothing else to the state, is
//! summarised at that call's loop (TVM's `T.copy` lowered into a call per row).
//!
//! A loop of copies alone whose passes are not a constant (`for j in 0..n`, `n` the tiles left;
//! not a constant count whose counter is set once, outside the tile loop) is not summarised, and
//! its paths are not a proof either way: the path that skips it may be
//! one no launch takes, or one that announced no bytes (`expect_tx(n · TILE)` with `n = 0`).
//! For a state with such a loop, an advance reached still owing bytes, or owing different
//! bytes on different paths, is recorded as undecided ([`CopyLoops::excuses`]), not rejected.
//! The same holds for a loop of one copy the provenance rule failed (its destination's state
//! lost, as through a stage helper reading the ring's start through `&self`): its bytes are
//! never counted, so the path that skips the loop proves nothing, whatever its passes.

use std::cell::RefCell;
use std::collections::{BTreeSet, VecDeque};

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{context::Context, operation::Operation};

use super::super::{
    facts::StateId, index::ScopeIndex, protocol::Step, roles::CounterReader, rules::PipelineKind,
    thread_model::SharedThreadModel,
};
use super::dominators::Dominators;
use crate::ir::semantic::memory::BulkCopyOp;

/// More passes than this are not summarised (a loop that long is not a stage's copies).
const MAX_PASSES: i64 = 1 << 12;
/// Loop tops after a copy tried as its loop's.
const MAX_HEADS: usize = 4;
/// Blocks one loop may have and still be summarised.
const MAX_LOOP_BLOCKS: usize = 512;

/// The summarised copy loops of a scope.
#[derive(Default)]
pub(super) struct CopyLoops {
    /// Per edge entering a summarised loop (from a block outside it to one inside): the copies
    /// taken on it, each (operation number, passes).
    entries: FxHashMap<(usize, usize), Vec<(usize, i64)>>,
    /// The summarised copies (operation number → passes): inside their loop they deliver nothing
    /// more.
    passes: FxHashMap<usize, i64>,
    /// The states with a loop of copies alone whose passes are not counted (module doc).
    uncounted: FxHashSet<StateId>,
    /// The states whose advance [`CopyLoops::excuses`] let through.
    excused: RefCell<BTreeSet<StateId>>,
}

impl CopyLoops {
    /// Finds the copies of `steps` that a counted loop repeats (module documentation).
    /// `poisoned(n)`: operation `n` is a pipeline operation whose provenance failed. Each function
    /// with a copy on a cycle has its dominators and its variables' stores gathered once.
    pub(super) fn of(
        ctx: &Context,
        index: &ScopeIndex,
        threads: &SharedThreadModel,
        steps: &[Option<(StateId, Step)>],
        poisons: &super::Poisons,
        touched: &[BTreeSet<StateId>],
    ) -> CopyLoops {
        let poisoned = |n: usize| poisons.contains_key(&n);
        let mut found = CopyLoops::default();
        let mut functions: FxHashMap<usize, (Dominators, CounterReader)> = FxHashMap::default();
        // The copies, each with its state and whether the provenance rule failed it (then its
        // bytes are never counted, and the path that skips its loop is no proof either).
        let copies = (0..steps.len()).filter_map(|n| match (&steps[n], poisons.get(&n)) {
            (Some((state, Step::Pipeline(PipelineKind::BulkCopy))), _) => Some((n, state, false)),
            (None, Some((_, Some(state))))
                if Operation::get_op::<BulkCopyOp>(index.ops[n], ctx).is_some() =>
            {
                Some((n, state, true))
            }
            _ => None,
        });
        // Whether operation `m` steps `state` (other than the copy `n`), calls a function that
        // does, or is a pipeline operation whose provenance failed.
        let steps_other = |m: usize, n: usize, state: &StateId| {
            let steps_state = m != n && steps[m].as_ref().is_some_and(|(other, _)| other == state);
            let calls_toucher =
                index.callee_of.get(&m).is_some_and(|callee| touched[*callee].contains(state));
            steps_state || calls_toucher || (m != n && poisoned(m))
        };
        for (n, state, failed) in copies {
            // The copy's block, or, for a copy in a helper the scope calls once and that does
            // nothing else to the state (a `T.copy` outlined as a call per row), the block of
            // that call: the loop around the call repeats the copy.
            let mut copy = index.op_block[n];
            let mut through_call = None;
            if !index.cycles().on_cycle(copy) {
                let helper = index.block_function[copy];
                let &[call] = index.callers[helper].as_slice() else { continue };
                let helper_alone = index.blocks_of[helper]
                    .clone()
                    .all(|b| index.ops_of_block[b].clone().all(|m| !steps_other(m, n, state)));
                if !helper_alone || !index.cycles().on_cycle(index.op_block[call]) {
                    continue;
                }
                copy = index.op_block[call];
                through_call = Some(call);
            }
            let f = index.block_function[copy];
            let (dominators, counters) = functions.entry(f).or_insert_with(|| {
                (
                    Dominators::of(index, index.blocks_of[f].clone()),
                    CounterReader::new(ctx, index, f, threads),
                )
            });
            let Some((head, body)) = innermost_loop(index, dominators, copy) else { continue };
            let alone = body.iter().all(|b| {
                index.ops_of_block[*b].clone().all(|m| Some(m) == through_call || !steps_other(m, n, state))
            });
            if !alone {
                continue;
            }
            if failed {
                found.uncounted.insert(*state);
                continue;
            }
            let Some((passes, counter_starts)) = counters.constant_passes(ctx, head, &|b| body.contains(&b))
            else {
                found.uncounted.insert(*state);
                continue;
            };
            // A counter set once before the tile loop makes no passes the second time round: the
            // path that skips the loop is real, and stays a rejection.
            if passes <= MAX_PASSES && starts_every_entry(index, &body, &counter_starts) {
                for to in &body {
                    for from in index.preds[*to].iter().filter(|from| !body.contains(from)) {
                        found.entries.entry((*from, *to)).or_default().push((n, passes));
                    }
                }
                found.passes.insert(n, passes);
            }
        }
        found
    }

    /// Every summarised copy with its passes (operation number → passes), and what the paths
    /// of the uncounted loops left undecided.
    pub(super) fn finish(self) -> (FxHashMap<usize, i64>, Vec<String>) {
        let excused = self.excused.into_inner().len();
        let undecided = (excused > 0).then(|| {
            format!(
                "the bytes {excused} producer states deliver before an advance, through a loop of copies whose \
                 passes are not a constant (the path that skips it may be one no launch takes, or one that \
                 announced no bytes)"
            )
        });
        (self.passes, undecided.into_iter().collect())
    }

    /// Whether the producer `state`'s advance, reached on some path still owing bytes (or owing
    /// different bytes on different paths), is left undecided rather than rejected: the state
    /// has an uncounted loop of copies (module doc). Records it for [`CopyLoops::finish`].
    pub(super) fn excuses(&self, state: StateId) -> bool {
        let excused = self.uncounted.contains(&state);
        if excused {
            self.excused.borrow_mut().insert(state);
        }
        excused
    }

    /// How many passes' copies operation `n` delivers where it runs: none for a summarised copy
    /// (its loop's entry took them all), one for any other.
    pub(super) fn passes_at(&self, n: usize) -> i64 {
        if self.passes.contains_key(&n) { 0 } else { 1 }
    }

    /// The copies taken on the edge from block `from` to block `to`, each (operation number,
    /// passes): those of the loops the edge enters.
    pub(super) fn entered(&self, from: usize, to: usize) -> &[(usize, i64)] {
        self.entries.get(&(from, to)).map_or(&[], Vec::as_slice)
    }
}

/// Whether the counter is set to its start before every entry into the loop `body`: with its one
/// start store in block `start`, no path leaves the loop and comes back into it without passing
/// `start` (a counter set once before an outer loop makes no passes the second time round).
fn starts_every_entry(index: &ScopeIndex, body: &FxHashSet<usize>, starts: &[usize]) -> bool {
    let [start] = starts else { return false };
    let left: Vec<usize> = body
        .iter()
        .flat_map(|b| index.succs[*b].iter().copied())
        .filter(|b| !body.contains(b) && b != start)
        .collect();
    let entered = body.iter().any(|b| {
        index.preds[*b].iter().any(|pred| {
            !body.contains(pred)
                && index.path_exists(&left, *pred, MAX_LOOP_BLOCKS, |b| b != *start && !body.contains(&b))
                    != Some(false)
        })
    });
    !entered
}

/// The innermost loop around block `copy` that runs it exactly once per pass and leaves only by
/// its condition: the block ending in that condition and the loop's blocks. A loop is a natural
/// loop: a block `top` that dominates some predecessor of its own (the edge back), with every
/// block that reaches such a predecessor without passing `top`. A loop nested around it is not
/// part of it: it comes back only through the loop's entry. The candidates for `top` are the
/// first blocks after `copy`; the loop's condition is its one block with a way out.
fn innermost_loop(
    index: &ScopeIndex,
    dominators: &Dominators,
    copy: usize,
) -> Option<(usize, FxHashSet<usize>)> {
    let function = index.blocks_of[index.block_function[copy]].clone();
    let mut visited = FxHashSet::from_iter([copy]);
    let mut queue = VecDeque::from([copy]);
    let mut tried = 0;
    while let Some(top) = queue.pop_front() {
        let back: Vec<usize> =
            index.preds[top].iter().copied().filter(|p| dominators.dominates(top, *p)).collect();
        if !back.is_empty() {
            tried += 1;
            if tried > MAX_HEADS {
                return None;
            }
            let body = natural_loop(index, top, back)?;
            if body.contains(&copy) {
                let mut exits = body.iter().copied().filter(|b| {
                    index.succs[*b].iter().any(|succ| !body.contains(succ) && index.can_return(*succ))
                });
                // A block leading only into a panic is no way out: the trap ends the launch.
                let (Some(condition), None) = (exits.next(), exits.next()) else { return None };
                let inside = index.succs[condition].iter().filter(|succ| body.contains(succ)).count();
                return (inside == 1 && once_per_pass(index, condition, copy, &body))
                    .then_some((condition, body));
            }
        }
        for succ in &index.succs[top] {
            if function.contains(succ) && visited.insert(*succ) {
                if visited.len() > MAX_LOOP_BLOCKS {
                    return None;
                }
                queue.push_back(*succ);
            }
        }
    }
    None
}

/// The blocks of the natural loop of `top` whose edges back come from `back`: `top`, and every
/// block reaching one of `back` without passing `top`; `None` past [`MAX_LOOP_BLOCKS`].
fn natural_loop(index: &ScopeIndex, top: usize, back: Vec<usize>) -> Option<FxHashSet<usize>> {
    let mut body: FxHashSet<usize> = FxHashSet::from_iter([top]);
    let mut stack = back;
    while let Some(b) = stack.pop() {
        if body.insert(b) {
            if body.len() > MAX_LOOP_BLOCKS {
                return None;
            }
            stack.extend(index.preds[b].iter().copied().filter(|p| !body.contains(p)));
        }
    }
    Some(body)
}

/// Whether every pass of the loop `body` whose condition ends block `head` (its only way out, as
/// [`innermost_loop`] found it) runs block `copy` exactly once. A pass runs from the condition's branch into the loop back to the
/// condition; what runs before the condition (in its block, or in blocks the loop is entered
/// through) runs once more than the passes, so the copy may not be there.
fn once_per_pass(index: &ScopeIndex, head: usize, copy: usize, body: &FxHashSet<usize>) -> bool {
    if copy == head {
        return false;
    }
    let inside = |b: usize| body.contains(&b);
    // Entered elsewhere than the condition, and reaching the copy before it.
    let entries: Vec<usize> = body
        .iter()
        .copied()
        .filter(|b| *b != head && index.preds[*b].iter().any(|pred| !inside(*pred)))
        .collect();
    let before_condition = !entries.is_empty()
        && index.path_exists(&entries, copy, MAX_LOOP_BLOCKS, |b| b != head && inside(b)) != Some(false);
    // A pass around the copy: from the condition back to it without the copy.
    let starts: Vec<usize> = index.succs[head].iter().copied().filter(|b| inside(*b) && *b != copy).collect();
    let skipped = !starts.is_empty()
        && index.path_exists(&starts, head, MAX_LOOP_BLOCKS, |b| b != copy && inside(b)) != Some(false);
    // Twice in a pass: from the copy back to it without the condition.
    let again: Vec<usize> = index.succs[copy].iter().copied().filter(|b| inside(*b) && *b != head).collect();
    let twice = !again.is_empty()
        && index.path_exists(&again, copy, MAX_LOOP_BLOCKS, |b| b != head && inside(b)) != Some(false);
    !before_condition && !skipped && !twice
}
