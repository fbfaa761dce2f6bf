//! Divergent blocks: the blocks some threads of a block may run while others do not (or run a
//! different number of times), because they lie on the paths of a branch whose condition may
//! differ between threads, before those paths meet again at the branch's immediate
//! post-dominator. A loop whose exit depends on the thread has its whole body divergent; a
//! thread-dependent `return` makes everything after it divergent. A path into a panic (a block
//! ending in `mir.unreachable`) traps and ends the launch, so it is no way out of a branch.
//!
//! Cost: one post-dominator tree per function (Cooper, Harvey and Kennedy's iteration, near
//! linear) and one search per thread-dependent branch, bounded by [`MAX_REGION`] blocks (past
//! it, every block of the function counts as divergent).

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{context::Context, operation::Operation, value::Value};

use super::index::ScopeIndex;
use crate::ir::mir::control::{CondBrOp, SwitchOp};

/// Blocks one branch's search may visit.
const MAX_REGION: usize = 4096;

/// The divergent blocks (numbers), each with the branches (their terminators' operation
/// numbers, in increasing order) whose paths it lies on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Divergent(pub FxHashMap<usize, Vec<usize>>);

impl Divergent {
    /// A branch that makes `block` divergent.
    pub(crate) fn branch_of(&self, block: usize) -> Option<usize> {
        self.0.get(&block).and_then(|branches| branches.first().copied())
    }

    /// Whether every branch that makes `inner` divergent also makes `outer` divergent: then
    /// the threads that reach `outer` together took the same way at each of them as the threads
    /// that reach `inner` (a variable stored at `inner` and read at `outer` is read by threads
    /// that agree on whether the store ran).
    pub(crate) fn within(&self, inner: usize, outer: usize) -> bool {
        let Some(branches) = self.0.get(&inner) else { return true };
        let around = self.0.get(&outer).map_or(&[][..], Vec::as_slice);
        branches.iter().all(|branch| around.binary_search(branch).is_ok())
    }
}

/// The divergent blocks of the scope, given which branch conditions may differ between threads.
pub(crate) fn divergent(
    ctx: &Context,
    index: &ScopeIndex,
    mut thread_dependent: impl FnMut(Value) -> bool,
) -> Divergent {
    let mut found: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    for blocks in &index.blocks_of {
        let mut ipdom: Option<Vec<Option<usize>>> = None;
        for b in blocks.clone() {
            let Some(last) = index.ops_of_block[b].clone().last() else { continue };
            let op = index.ops[last];
            if Operation::get_op::<CondBrOp>(op, ctx).is_none()
                && Operation::get_op::<SwitchOp>(op, ctx).is_none()
            {
                continue;
            }
            if !thread_dependent(op.deref(ctx).get_operand(0)) {
                continue;
            }
            let ipdom = ipdom.get_or_insert_with(|| post_dominators(index, blocks.clone()));
            let stop = ipdom[b - blocks.start];
            let mut seen: FxHashSet<usize> = FxHashSet::default();
            let mut stack: Vec<usize> = index.succs[b].clone();
            let mut overflow = false;
            while let Some(s) = stack.pop() {
                if Some(s) == stop || !seen.insert(s) {
                    continue;
                }
                if seen.len() > MAX_REGION {
                    overflow = true;
                    break;
                }
                stack.extend(index.succs[s].iter().copied());
            }
            let region: Vec<usize> =
                if overflow { blocks.clone().collect() } else { seen.into_iter().collect() };
            for block in region {
                found.entry(block).or_default().push(last);
            }
        }
    }
    for branches in found.values_mut() {
        branches.sort_unstable();
        branches.dedup();
    }
    Divergent(found)
}

/// Each block's immediate post-dominator (a block number; `None` for the function's end), by
/// Cooper, Harvey and Kennedy's iteration on the reversed graph.
pub(crate) fn post_dominators(index: &ScopeIndex, blocks: std::ops::Range<usize>) -> Vec<Option<usize>> {
    let count = blocks.len();
    let exit = count; // the virtual end every returning block flows to
    // A block that ends the function by returning; one that ends in `mir.unreachable` (a panic,
    // which traps and ends the whole launch) is no end a thread can wait at a barrier after.
    let returns: Vec<bool> =
        blocks.clone().map(|b| index.succs[b].is_empty() && index.ends_in_return(b)).collect();
    let local = |b: usize| b - blocks.start;
    // The reversed graph's successors: the end's are the returning blocks, a block's are its
    // forward predecessors.
    let reversed_succs = |node: usize| -> Vec<usize> {
        if node == exit {
            blocks.clone().filter(|b| returns[local(*b)]).map(local).collect()
        } else {
            index.preds[blocks.start + node].iter().map(|p| local(*p)).collect()
        }
    };
    let mut order = vec![usize::MAX; count + 1];
    let mut postorder = Vec::with_capacity(count + 1);
    let mut visited = vec![false; count + 1];
    let mut stack: Vec<(usize, Vec<usize>)> = vec![(exit, reversed_succs(exit))];
    visited[exit] = true;
    while let Some((node, pending)) = stack.last_mut() {
        if let Some(next) = pending.pop() {
            if !visited[next] {
                visited[next] = true;
                let succs = reversed_succs(next);
                stack.push((next, succs));
            }
        } else {
            order[*node] = postorder.len();
            postorder.push(*node);
            stack.pop();
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; count + 1];
    idom[exit] = Some(exit);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] < order[b] {
                a = idom[a].unwrap_or(exit);
            }
            while order[b] < order[a] {
                b = idom[b].unwrap_or(exit);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for node in postorder.iter().rev().copied().filter(|n| *n != exit) {
            // Its predecessors in the reversed graph: its forward successors, or the end.
            let forward: Vec<usize> = if returns[node] {
                vec![exit]
            } else {
                index.succs[blocks.start + node].iter().map(|s| local(*s)).collect()
            };
            let mut new = None;
            for p in forward {
                if idom[p].is_none() || order[p] == usize::MAX {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(current) => intersect(&idom, p, current),
                });
            }
            if new.is_some() && idom[node] != new {
                idom[node] = new;
                changed = true;
            }
        }
    }
    (0..count).map(|node| idom[node].filter(|d| *d != exit).map(|d| blocks.start + d)).collect()
}
