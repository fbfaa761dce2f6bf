//! Whether a tile loop runs wherever its role runs. A loop's count is its passes only on the
//! launches that enter it: a producer loop under `if tiles > 100` copies nothing when the
//! consumers' loop (not so guarded) waits for `mine` tiles, and the two bounds still read alike.
//! So a loop is counted only when every path from its state's creation (or, in a helper, from
//! the helper's entry) to a return of the function passes its condition, except paths that
//! leave, at a branch whose outcome differs between threads, the way that cannot reach the loop
//! when another way can: that branch splits the roles (the threads going the other way are
//! another role's), it does not guard the tile loop of this one. A branch whose condition the
//! thread model gives one value in every thread reaching it (`0 <= tid` of a `match` arm
//! `0..=31`) is taken its one way. Any other branch (one the model cannot evaluate, one on a
//! parameter or the block's coordinates) is a guard, both ways taken.
//!
//! Cost: two walks over the function's blocks per loop read.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{context::Ptr, operation::Operation};

use super::super::{
    facts::StateId,
    index::ScopeIndex,
    thread_model::{SharedThreadModel, ThreadModel, Val},
};
use crate::ir::mir::control::{CondBrOp, ReturnOp, SwitchOp};
use pliron::context::Context;

/// Whether every path of function `f` from `state`'s creation (its entry, when the state is
/// created elsewhere) to a return passes the block of `through` (a loop's condition, or the
/// call a loop was lifted to), branches whose outcome differs between threads aside.
pub(super) fn on_every_path_of_its_role(
    ctx: &Context,
    index: &ScopeIndex,
    threads: &SharedThreadModel,
    f: usize,
    state: StateId,
    through: Ptr<Operation>,
) -> bool {
    let Some(target) = index.block_of_op(through) else { return false };
    let created = index.block_of_op(index.state_op(state)).filter(|b| index.block_function[*b] == f);
    let Some(from) = created.or_else(|| index.entry_block(f)) else { return false };
    let model = threads.get();
    // The blocks that can still reach the loop: a thread-dependent branch splits the roles only
    // where one way leads to the loop and another does not.
    let mut toward = FxHashSet::from_iter([target]);
    let mut stack = vec![target];
    while let Some(b) = stack.pop() {
        for pred in &index.preds[b] {
            if index.block_function[*pred] == f && toward.insert(*pred) {
                stack.push(*pred);
            }
        }
    }
    let mut seen = FxHashSet::from_iter([from]);
    let mut queue = VecDeque::from([from]);
    while let Some(b) = queue.pop_front() {
        if b == target {
            continue;
        }
        let Some(last) = index.ops_of_block[b].clone().last().map(|n| index.ops[n]) else { continue };
        if Operation::get_op::<ReturnOp>(last, ctx).is_some() {
            return false;
        }
        let ways = branch_ways(ctx, index, model, b, last);
        let role_split =
            matches!(ways, BranchWays::Split) && index.succs[b].iter().any(|s| toward.contains(s));
        for succ in &index.succs[b] {
            let not_taken = matches!(ways, BranchWays::One(only) if only != *succ);
            if (role_split && !toward.contains(succ)) || not_taken {
                continue;
            }
            let reached = model.reach.get(*succ).is_some_and(Option::is_some);
            if reached && index.block_function[*succ] == f && seen.insert(*succ) {
                queue.push_back(*succ);
            }
        }
    }
    true
}

/// How the threads reaching a branch go.
enum BranchWays {
    /// Every thread reaching it takes this one successor: the thread model gives its condition
    /// one value in all of them (a test no thread fails: `0 <= tid` of a `match` arm `0..=31`).
    One(usize),
    /// The threads reaching it, known exactly, take different ways: the branch splits the roles.
    Split,
    /// Anything else (a condition the model cannot evaluate, or a superset of threads that
    /// disagree): a guard, both ways taken.
    Both,
}

/// How the threads reaching block `b` go at `branch`, the operation ending it.
fn branch_ways(
    ctx: &Context,
    index: &ScopeIndex,
    model: &ThreadModel,
    b: usize,
    branch: Ptr<Operation>,
) -> BranchWays {
    let switch = Operation::get_op::<SwitchOp>(branch, ctx);
    if Operation::get_op::<CondBrOp>(branch, ctx).is_none() && switch.is_none() {
        return BranchWays::Both;
    }
    let condition = branch.deref(ctx).get_operand(0);
    let value = match model.eval(condition, &FxHashMap::default()) {
        Val::Const(c) => c,
        Val::Threads(values) => {
            let Some(Some(reach)) = model.reach.get(b) else { return BranchWays::Both };
            let mut outcomes = reach.threads.members().filter_map(|t| values.get(t).copied());
            let Some(first) = outcomes.next() else { return BranchWays::Both };
            if outcomes.any(|v| v != first) {
                // Only where the threads reaching the branch are known exactly: a superset may
                // hold the threads that tell the ways apart while every thread really there
                // goes one way.
                return if reach.exact { BranchWays::Split } else { BranchWays::Both };
            }
            first
        }
        _ => return BranchWays::Both,
    };
    let successors: Vec<_> = branch.deref(ctx).successors().collect();
    let target = match switch {
        None => Some(successors[if value != 0 { 0 } else { 1 }]),
        Some(switch) => switch.get_attr_switch_cases(ctx).and_then(|cases| {
            let arm = cases.0.iter().position(|case| *case == value as u64).unwrap_or(cases.0.len());
            successors.get(arm).copied()
        }),
    };
    target
        .and_then(|target| index.block_number.get(&target).copied())
        .map_or(BranchWays::Both, BranchWays::One)
}
