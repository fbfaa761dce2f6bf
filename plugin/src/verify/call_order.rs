//! The order the bottom-up passes visit functions in (the typestate's summaries, the return
//! forms of the provenance fixpoint, the init order): callees before their callers, and the
//! calls that close a cycle (not followed).

use rustc_hash::FxHashSet;

use super::index::ScopeIndex;

/// The calls of function `f` that call a scope function: (call number, callee).
pub(crate) fn calls_in(index: &ScopeIndex, f: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    index.blocks_of[f].clone().flat_map(move |b| {
        index.ops_of_block[b].clone().filter_map(move |n| index.callee_of.get(&n).map(|callee| (n, *callee)))
    })
}

/// Joins into each function's value the values of the functions it calls, callees first
/// (`order` from [`callee_first`]), so that each ends up holding what it reaches through calls.
pub(crate) fn gather_from_callees<T: Clone>(
    index: &ScopeIndex,
    order: &[usize],
    values: &mut [T],
    join: impl Fn(&mut T, &T),
) {
    for f in order {
        for (_, callee) in calls_in(index, *f) {
            if callee != *f {
                let inherited = values[callee].clone();
                join(&mut values[*f], &inherited);
            }
        }
    }
}

/// The functions in an order where every callee comes before its callers (depth-first
/// post-order from each function), and the calls (numbers) that close a cycle.
pub(crate) fn callee_first(index: &ScopeIndex) -> (Vec<usize>, FxHashSet<usize>) {
    let functions = index.functions.len();
    let calls: Vec<Vec<(usize, usize)>> = (0..functions).map(|f| calls_in(index, f).collect()).collect();
    // 0: not seen, 1: on the stack, 2: done.
    let mut mark = vec![0u8; functions];
    let mut order = Vec::with_capacity(functions);
    let mut cyclic = FxHashSet::default();
    for root in 0..functions {
        if mark[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        mark[root] = 1;
        while let Some((f, next)) = stack.last_mut() {
            let f = *f;
            if let Some((n, callee)) = calls[f].get(*next).copied() {
                *next += 1;
                match mark[callee] {
                    0 => {
                        mark[callee] = 1;
                        stack.push((callee, 0));
                    }
                    1 => {
                        cyclic.insert(n);
                    }
                    _ => {}
                }
            } else {
                mark[f] = 2;
                order.push(f);
                stack.pop();
            }
        }
    }
    (order, cyclic)
}
