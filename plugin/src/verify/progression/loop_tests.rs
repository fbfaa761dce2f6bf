//! The loop tests that bound a `while` counter where a read of it is guarded by them: `i < end`
//! (or `<=`, `>` for a count-down, `!=` for a counter meeting `end` exactly) on every path from
//! the counter's last store to the read ([`Progressions::guarded_end`]).

use pliron::{operation::Operation, value::Value};
use rustc_hash::FxHashSet;

use super::{Place, Progressions};
use crate::ir::mir::{
    arith::{CmpOp, CmpPredicate},
    control::CondBrOp,
    memory::StoreOp,
};
use crate::verify::{
    index::ScopeIndex,
    locals::{loads_place, local_slot},
};

impl Progressions<'_> {
    /// The `end` of a loop test `counter < end` (or `end > counter`; `counter > end` for a
    /// count-down, where `down`) that guards the read `load` of a `while` counter: every path to `load` passes the test's true edge after the
    /// counter's last store (and after the last store of any variable assumed to hold one
    /// value, which `end` may read), so the value read is one the test let through.
    pub(super) fn guarded_end(
        &self,
        load: pliron::context::Ptr<Operation>,
        place: &Place,
        down: bool,
    ) -> Option<LoopTest> {
        let index = self.index;
        let n = *index.op_number.get(&load)?;
        let l = index.op_block[n];
        let f = index.block_function[l];
        let sites = &self.model.counter_sites;
        let mut stores: Vec<usize> = sites.stores(self.ctx, index, f, place).to_vec();
        for assumed in &self.assumed.places {
            if assumed != place {
                stores.extend_from_slice(&sites.stores(self.ctx, index, f, assumed));
            }
        }
        let store_blocks: FxHashSet<usize> = stores.iter().map(|s| index.op_block[*s]).collect();
        let tests =
            sites.tests(self.ctx, index, (f, place, down), |t| self.loop_test(t, place, down).is_some());
        for &t in tests.iter() {
            let Some(test) = self.loop_test(t, place, down) else { continue };
            let LoopTest { taken, skipped, .. } = test;
            if t == l || store_blocks.contains(&t) {
                continue;
            }
            let starts: Vec<(usize, Option<usize>)> =
                stores.iter().map(|s| (index.op_block[*s], Some(*s))).chain([(skipped, None)]).collect();
            if taken != skipped && !reaches_avoiding(index, &starts, n, t) {
                return Some(test);
            }
        }
        None
    }

    /// If block `t` ends in a branch on `counter < end` or `counter <= end` (`>` or `>=` where
    /// `down`: a count-down's test), or on `counter != end` or `counter == end` (the loop
    /// continuing while they differ), the counter a load of `place` in `t`: the test.
    fn loop_test(&self, t: usize, place: &Place, down: bool) -> Option<LoopTest> {
        let (ctx, index) = (self.ctx, self.index);
        let branch = index.ops[index.ops_of_block[t].end.checked_sub(1)?];
        Operation::get_op::<CondBrOp>(branch, ctx)?;
        let (condition, taken, skipped) = {
            let operation = branch.deref(ctx);
            (operation.get_operand(0), operation.get_successor(0), operation.get_successor(1))
        };
        let compare = condition.defining_op()?;
        if index.op_number.get(&compare).map(|m| index.op_block[*m]) != Some(t) {
            return None;
        }
        let predicate = Operation::get_op::<CmpOp>(compare, ctx)?.get_attr_cmp_predicate(ctx).map(|p| *p)?;
        let (a, b) = {
            let operation = compare.deref(ctx);
            (operation.get_operand(0), operation.get_operand(1))
        };
        // `counter != end` continues like `counter < end` (`>` for a count-down) only for a
        // counter that meets `end` exactly (the caller checks its step and start).
        let (counter, end, inclusive) = match (predicate, down) {
            (CmpPredicate::Lt, false) | (CmpPredicate::Gt, true) => (a, b, false),
            (CmpPredicate::Gt, false) | (CmpPredicate::Lt, true) => (b, a, false),
            (CmpPredicate::Le, false) | (CmpPredicate::Ge, true) => (a, b, true),
            (CmpPredicate::Ge, false) | (CmpPredicate::Le, true) => (b, a, true),
            (CmpPredicate::Ne | CmpPredicate::Eq, _) => (a, b, false),
        };
        let exact = matches!(predicate, CmpPredicate::Eq | CmpPredicate::Ne);
        // A loop left on `counter == end` continues on the branch's false edge.
        let (taken, skipped) =
            if predicate == CmpPredicate::Eq { (skipped, taken) } else { (taken, skipped) };
        // `end == counter` is the same test as `counter == end`.
        let (counter, end) =
            if exact && !loads_place(ctx, counter, place) { (end, counter) } else { (counter, end) };
        // A loop left when the test holds (`if i >= end { break }`) goes on along the false edge,
        // where its negation holds: `i < end` (`i <= end` where it leaves on `i > end`).
        let (counter, end, inclusive, taken, skipped) =
            if !exact && !loads_place(ctx, counter, place) && loads_place(ctx, end, place) {
                (end, counter, !inclusive, skipped, taken)
            } else {
                (counter, end, inclusive, taken, skipped)
            };
        let read = *index.op_number.get(&counter.defining_op()?)?;
        // The counter is read in the test's block, or in its one predecessor with no store to it
        // after the read (a division by a constant in the bound, `step < TILE / STEP`, puts the
        // divisor's zero check between the read and the test).
        let read_block = index.op_block[read];
        let stored_after_read = || {
            (read + 1..index.ops_of_block[read_block].end).any(|m| {
                let op = index.ops[m];
                Operation::get_op::<StoreOp>(op, ctx).is_some()
                    && local_slot(ctx, op.deref(ctx).get_operand(1)).is_none_or(|p| p == *place)
            })
        };
        let in_test = read_block == t || (index.preds[t] == [read_block] && !stored_after_read());
        (in_test && loads_place(ctx, counter, place)).then(|| LoopTest {
            end,
            inclusive,
            exact,
            taken: index.block_number.number(&taken),
            skipped: index.block_number.number(&skipped),
        })
    }
}

/// Whether operation `target` can be reached, within its function, from any of `starts` (a
/// block, entered after operation `after` of it or at its top) without entering block `avoid`.
fn reaches_avoiding(
    index: &ScopeIndex,
    starts: &[(usize, Option<usize>)],
    target: usize,
    avoid: usize,
) -> bool {
    let goal = index.op_block[target];
    let mut seen = vec![false; index.blocks.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (block, after) in starts {
        match after {
            Some(after) if *block == goal && *after < target => return true,
            Some(_) => stack.extend(index.succs[*block].iter().copied()),
            None => stack.push(*block),
        }
    }
    while let Some(b) = stack.pop() {
        if b == avoid || std::mem::replace(&mut seen[b], true) {
            continue;
        }
        if b == goal {
            return true;
        }
        stack.extend(index.succs[b].iter().copied());
    }
    false
}

/// A loop test on a counter ([`Progressions::loop_test`]): `counter < end` (`<=` where
/// `inclusive`; `>`, `>=` for a count-down), or, where `exact`, `counter != end`; and the blocks
/// the branch takes when the loop continues and when it leaves.
#[derive(Clone, Copy)]
pub(super) struct LoopTest {
    pub(super) end: Value,
    pub(super) inclusive: bool,
    pub(super) exact: bool,
    pub(super) taken: usize,
    pub(super) skipped: usize,
}
