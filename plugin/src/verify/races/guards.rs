//! The threads an access runs in under one assignment of the interval's uniform variables
//! (`crate::verify::symbols`): the thread model's set for its block, narrowed by the branches
//! that lead to it and that those values decide per thread. A tree reduction's `if tid <
//! active { s[tid] += s[tid + active] }` is run by the threads below `active` at each level;
//! the thread model, which reads `active` as one unknown value, lets every thread reach it.

use pliron::{operation::Operation, r#type::Typed, value::Value};
use rustc_hash::FxHashMap;

use super::{Binding, barriers::meets_barrier};
use crate::ir::mir::{arith::CmpOp, control::CondBrOp};
use crate::verify::{
    flow::Flow,
    progression::{Assumed, Progressions},
    thread_model::{ThreadModel, Val},
    thread_set::Threads,
    thread_values::IntType,
};

/// Blocks walked up from an access to the branches guarding it.
const MAX_GUARD_BLOCKS: usize = 64;

/// The threads of `threads` (those the thread model lets reach operation `n` of the kernel
/// function) that take, under `assumed`, every branch on the one-predecessor chain of blocks
/// leading to `n`'s block, up to a barrier. Returns the narrowed set and the loads of variables
/// the conditions read at their assumed values: the caller keeps the narrowing only where each
/// of those loads ran in this interval before the access (otherwise a condition could have been
/// evaluated in an earlier interval, at another value).
pub(super) fn guarded_threads(
    flow: &Flow,
    model: &ThreadModel,
    binding: &Binding,
    holds_barrier: &[bool],
    assumed: &Assumed,
    n: usize,
    threads: &Threads,
) -> (Threads, Vec<Value>) {
    let (ctx, index) = (flow.ctx, flow.index);
    let is_barrier = |m: usize| meets_barrier(ctx, index, holds_barrier, m);
    let mut narrowed = threads.clone();
    let mut b = index.op_block[n];
    // A barrier before the access in its own block starts its interval there.
    if index.ops_of_block[b].clone().take_while(|m| *m != n).any(is_barrier) {
        return (narrowed, Vec::new());
    }
    let saved = std::mem::take(&mut *assumed.used.borrow_mut());
    for _ in 0..MAX_GUARD_BLOCKS {
        let &[p] = index.preds[b].as_slice() else { break };
        if index.block_function[p] != index.block_function[b] {
            break;
        }
        let Some(last) = index.ops_of_block[p].clone().last() else { break };
        if let Some(taken) = branch_threads(flow, model, binding, assumed, last, b) {
            narrowed = narrowed.and(&taken);
        }
        // The branch runs after any barrier of its block; a barrier there ends the walk.
        if index.ops_of_block[p].clone().any(is_barrier) {
            break;
        }
        b = p;
    }
    let used = std::mem::replace(&mut *assumed.used.borrow_mut(), saved);
    (narrowed, used.into_iter().collect())
}

/// The threads for which the conditional branch `branch` (an operation number) goes to block
/// `to`, where its condition is a comparison known per thread under `assumed`.
fn branch_threads(
    flow: &Flow,
    model: &ThreadModel,
    binding: &Binding,
    assumed: &Assumed,
    branch: usize,
    to: usize,
) -> Option<Threads> {
    let (ctx, index) = (flow.ctx, flow.index);
    let op = index.ops[branch];
    Operation::get_op::<CondBrOp>(op, ctx)?;
    let (condition, yes, no) = {
        let operation = op.deref(ctx);
        (operation.get_operand(0), operation.get_successor(0), operation.get_successor(1))
    };
    let (yes, no) = (*index.block_number.get(&yes)?, *index.block_number.get(&no)?);
    if yes == no {
        return None;
    }
    let compare = condition.defining_op()?;
    let predicate = *Operation::get_op::<CmpOp>(compare, ctx)?.get_attr_cmp_predicate(ctx)?;
    let (lhs, rhs) = {
        let operation = compare.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let progressions = Progressions {
        ctx,
        index,
        model,
        assumed,
        locals: flow.locals,
        params: &binding.integers,
        bound: &FxHashMap::default(),
        relevant: None,
    };
    let per_thread = |value: Value| {
        let progression = progressions.of(value)?;
        if !progression.per_thread() {
            return None;
        }
        match progression.base {
            Val::Const(c) => Some(vec![c; model.block_threads]),
            Val::Threads(values) => Some(values.to_vec()),
            Val::Uniform | Val::Unknown => None,
        }
    };
    let (a, b) = (per_thread(lhs)?, per_thread(rhs)?);
    let int = IntType::of(ctx, lhs.get_type(ctx))?;
    let holds: Vec<i64> = a.iter().zip(&b).map(|(x, y)| i64::from(int.compare(predicate, *x, *y))).collect();
    let taken = Threads::of(&holds, |v| v != 0);
    Some(if to == yes { taken } else { Threads::all(model.block_threads).and_not(&taken) })
}
