//! Block barriers under thread-dependent control flow: a barrier only part of the block reaches
//! hangs the rest (or breaks the intervals between barriers the race check rests on). The race
//! check asks it of scopes without a pipeline; [`divergent_barrier_gap`] asks it of the others.

use pliron::{context::Context, operation::Operation};

use super::at_source;
use crate::ir::semantic::memory::BarrierOp;
use crate::verify::{
    Gap, GapKind,
    index::{OpClass, ScopeIndex},
    thread_model::{SharedThreadModel, ThreadModel},
};

/// The gap of a scope that reaches a block barrier under a branch some threads take and others
/// do not (`r14_role_consumer_block_barrier`: a barrier inside the consumers' loop of a pipeline
/// kernel, which hangs on the H200), if it does. A scope without a barrier costs one scan.
pub(crate) fn divergent_barrier_gap(
    ctx: &Context,
    index: &ScopeIndex,
    thread_model: &SharedThreadModel,
) -> Option<Gap> {
    index.ops_of_class(OpClass::Semantic).find(|(_, op)| Operation::is_op::<BarrierOp>(*op, ctx))?;
    let model = thread_model.get();
    let holds_barrier = functions_holding_barriers(ctx, index);
    let branch = divergent_branch(ctx, index, model, &holds_barrier)?;
    Some(Gap::at(ctx, index, index.ops[branch], GapKind::SharedOrder, divergent_barrier(ctx, index, branch)))
}

/// Why a barrier under the branch `branch` (an operation number) leaves a scope unproven.
pub(super) fn divergent_barrier(ctx: &Context, index: &ScopeIndex, branch: usize) -> String {
    let at = at_source(ctx, index, branch);
    format!(
        "a block barrier is reached under a branch{at} whose condition may differ between threads, before the \
         branch's paths meet again: part of the block may wait at a barrier the rest never reaches, so the \
         intervals between barriers are not known"
    )
}

/// For each function, whether it holds a block barrier or calls (through the scope) one that
/// does.
pub(super) fn functions_holding_barriers(ctx: &Context, index: &ScopeIndex) -> Vec<bool> {
    let mut holds = vec![false; index.functions.len()];
    for (n, op) in index.ops_of_class(OpClass::Semantic) {
        if Operation::is_op::<BarrierOp>(op, ctx) {
            holds[index.block_function[index.op_block[n]]] = true;
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (call, callee) in &index.callee_of {
            let caller = index.block_function[index.op_block[*call]];
            if holds[*callee] && !holds[caller] {
                holds[caller] = true;
                changed = true;
            }
        }
    }
    holds
}

/// Whether operation `n` is a barrier or a call of a function holding one.
pub(super) fn meets_barrier(ctx: &Context, index: &ScopeIndex, holds_barrier: &[bool], n: usize) -> bool {
    (index.op_class[n] == OpClass::Semantic && Operation::is_op::<BarrierOp>(index.ops[n], ctx))
        || index.callee_of.get(&n).is_some_and(|callee| holds_barrier[*callee])
}

/// A divergent block (`super::divergence`) that some thread reaches, holding a barrier or a call
/// of a function holding one: the branch that makes it divergent.
pub(super) fn divergent_branch(
    ctx: &Context,
    index: &ScopeIndex,
    model: &ThreadModel,
    holds_barrier: &[bool],
) -> Option<usize> {
    (0..index.ops.len())
        .filter(|n| model.reach[index.op_block[*n]].is_some() && meets_barrier(ctx, index, holds_barrier, *n))
        .find_map(|n| model.divergent().branch_of(index.op_block[n]))
}
