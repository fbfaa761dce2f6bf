//! A tile loop with its first pass peeled off in front of it: `if x < n { …advance…; for _ in
//! x + step..n { …advance… } }` (the CUTLASS consumer that waits for its first stage before the
//! loop that releases the previous one, a producer that issues its first copy early). The state
//! has two advance sites, one on no cycle (the peeled pass, `P`) and one in a loop the rule reads
//! (`L`, from `x + step` below `n` by `step`, tested before its first pass).
//!
//! The two together advance `[x < n] · (1 + ⌈(n − x − step) / step⌉⁺)` times, which is
//! `⌈(n − x) / step⌉⁺`, the passes of `for (iv = x; iv < n; iv += step)`, when:
//! - a branch `G` on no cycle tests `x < n` (read as linear forms, equal to `L`'s start less
//!   its step and to its bound) and every path to `P` passes `G` on the side where it holds;
//! - from that side every path to a return passes `P` (the peeled pass always runs there), and
//!   from the other side `P` cannot be reached;
//! - every path from `P` to a return passes `L`'s header, and `L`'s header cannot be reached
//!   but through `P` (the loop runs once, after the peeled pass, and only then).
//!
//! The pair is then read as that one loop, with `G` as its condition, and compared with the other
//! role's loops as any other. Anything else about two advance sites stays unread.
//!
//! Cost: a bounded walk back from `P` for `G`, then a few path searches over the function's
//! blocks.

use std::collections::VecDeque;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    value::Value,
};
use rustc_hash::FxHashSet;

use super::forms::{Induction, linear, read_through_store};
use super::linear::Linear;
use super::stores::Stores;
use super::{MAX_HEADERS, MAX_LOOP_BLOCKS, MAX_READS, TileLoop, as_less_than, tile_loop};
use crate::ir::mir::{arith::CmpOp, control::CondBrOp, memory::LoadOp};
use crate::verify::index::ScopeIndex;
use crate::verify::locals::local_slot;

/// The loop that advance sites `sites` (two, in function `f`) make together, read as one loop,
/// if they are a peeled first pass and the loop of the rest.
pub(super) fn peeled_loop(
    ctx: &Context,
    index: &ScopeIndex,
    stores: &Stores,
    f: usize,
    sites: &[Ptr<Operation>],
) -> Option<TileLoop> {
    let [a, b] = sites else { return None };
    let cycles = index.cycles();
    let (blocks_a, blocks_b) = (index.block_of_op(*a)?, index.block_of_op(*b)?);
    let (peel, looped) = match (cycles.on_cycle(blocks_a), cycles.on_cycle(blocks_b)) {
        (false, true) => (blocks_a, *b),
        (true, false) => (blocks_b, *a),
        _ => return None,
    };
    let rest = tile_loop(ctx, index, stores, f, looped)?;
    if rest.guard.is_some() || !rest.tested_first {
        return None;
    }
    let first = rest.start.clone().plus(&rest.step, -1);
    let entry = index.entry_block(f)?;
    let in_function = |b: usize| index.block_function[b] == f;
    // The loop runs once, after the peeled pass, and only then.
    let avoiding = |avoid: usize| move |b: usize| b != avoid && in_function(b);
    if index.path_exists(&[entry], rest.header, MAX_LOOP_BLOCKS, avoiding(peel)) != Some(false)
        || returns_avoiding(index, &[peel], rest.header, f) != Some(false)
    {
        return None;
    }
    let (guard, taken, other) = guard_before(ctx, index, stores, f, peel, (&first, &rest.bound))?;
    let always_peeled = returns_avoiding(index, &[taken], peel, f) == Some(false);
    let never_peeled = index.path_exists(&[other], peel, MAX_LOOP_BLOCKS, avoiding(guard)) == Some(false);
    let only_through_guard =
        index.path_exists(&[entry], peel, MAX_LOOP_BLOCKS, avoiding(guard)) == Some(false);
    if !(always_peeled && never_peeled && only_through_guard) {
        return None;
    }
    let condition = index.ops[index.ops_of_block[guard].clone().last()?];
    Some(TileLoop { start: first, header: guard, condition, ..rest })
}

/// The nearest conditional branch on no cycle before block `peel` (walking back over at most
/// [`MAX_HEADERS`] such branches) whose test reads `first < bound` where it goes toward `peel`:
/// its block, and its successors toward `peel` and away from it.
fn guard_before(
    ctx: &Context,
    index: &ScopeIndex,
    stores: &Stores,
    f: usize,
    peel: usize,
    (first, bound): (&Linear, &Linear),
) -> Option<(usize, usize, usize)> {
    let cycles = index.cycles();
    let mut seen = FxHashSet::from_iter([peel]);
    let mut queue = VecDeque::from([peel]);
    let mut tried = 0;
    while let Some(b) = queue.pop_front() {
        for pred in index.preds[b].iter().copied() {
            if index.block_function[pred] != f || !seen.insert(pred) || seen.len() > MAX_LOOP_BLOCKS {
                continue;
            }
            queue.push_back(pred);
            let Some(n) = index.ops_of_block[pred].clone().last() else { continue };
            let branch = index.ops[n];
            if Operation::get_op::<CondBrOp>(branch, ctx).is_none() || cycles.on_cycle(pred) {
                continue;
            }
            tried += 1;
            if tried > MAX_HEADERS {
                return None;
            }
            let (condition, successors) = {
                let operation = branch.deref(ctx);
                (operation.get_operand(0), [operation.get_successor(0), operation.get_successor(1)])
            };
            let [Some(&yes), Some(&no)] = successors.map(|s| index.block_number.get(&s)) else { continue };
            let toward_yes = yes == b || seen.contains(&yes);
            let toward_no = no == b || seen.contains(&no);
            let (taken, other) = match (toward_yes, toward_no) {
                (true, false) => (yes, no),
                (false, true) => (no, yes),
                _ => continue,
            };
            let Some(compare) = condition.defining_op() else { continue };
            let Some(cmp) = Operation::get_op::<CmpOp>(compare, ctx) else { continue };
            let Some(predicate) = cmp.get_attr_cmp_predicate(ctx).map(|p| *p) else { continue };
            let (lhs, rhs) = {
                let operation = compare.deref(ctx);
                (operation.get_operand(0), operation.get_operand(1))
            };
            let mut budget = MAX_READS;
            let mut no_iv = Induction::default();
            // A counter the peeled pass steps is stored more than once: read where it was set.
            let read = |value: Value, budget: &mut u32, iv: &mut Induction| {
                linear(ctx, stores, value, iv, budget).filter(|form| form.iv() == 0).or_else(|| {
                    let load =
                        value.defining_op().filter(|op| Operation::get_op::<LoadOp>(*op, ctx).is_some())?;
                    let place = local_slot(ctx, load.deref(ctx).get_operand(0))?;
                    read_through_store(ctx, stores, value, &place, budget)
                })
            };
            let (Some(x), Some(y)) = (read(lhs, &mut budget, &mut no_iv), read(rhs, &mut budget, &mut no_iv))
            else {
                continue;
            };
            let Some((low, high, inclusive)) = as_less_than(predicate, taken == yes, x, y) else { continue };
            // `low < high + c` holds exactly where `first < bound` does when the spans agree.
            let mut span = high.plus(&low, -1);
            span.constant += i64::from(inclusive);
            if span == bound.clone().plus(first, -1) {
                return Some((pred, taken, other));
            }
        }
    }
    None
}

/// Whether a path of function `f` from `starts` reaches a block ending in a return without
/// passing block `avoid`; `None` past [`MAX_LOOP_BLOCKS`] blocks.
fn returns_avoiding(index: &ScopeIndex, starts: &[usize], avoid: usize, f: usize) -> Option<bool> {
    let mut seen: FxHashSet<usize> = starts.iter().copied().filter(|b| *b != avoid).collect();
    let mut stack: Vec<usize> = seen.iter().copied().collect();
    while let Some(b) = stack.pop() {
        if index.ends_in_return(b) {
            return Some(true);
        }
        for succ in index.succs[b].iter().copied() {
            if succ != avoid && index.block_function[succ] == f && seen.insert(succ) {
                if seen.len() > MAX_LOOP_BLOCKS {
                    return None;
                }
                stack.push(succ);
            }
        }
    }
    Some(false)
}
