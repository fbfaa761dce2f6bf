//! The walk between block barriers: from a barrier (or the kernel's start), every operation
//! the threads may run before the next barrier, calls entered and returned from along a chain
//! of calls, and a call of a function holding no barrier taken whole.

use fixedbitset::FixedBitSet;
use rustc_hash::{FxHashMap, FxHashSet};

use super::{MAX_CALL_DEPTH, MAX_WALK};
use crate::verify::index::{OpClass, ScopeIndex};

/// A set of operation numbers of the scope (what one walk between barriers reached).
pub(super) type OpSet = FixedBitSet;

/// The operations reachable from `source` (the kernel's first operation or a barrier) without
/// passing another barrier. A call of a scope function enters it and comes back to the operation
/// after that call (the walk keeps its chain of calls); a return with no call to come back to
/// (the walk started inside the function) goes on after `entered_by`, the call the source's
/// function was entered by, or else after every call of the function. The call `entered_by` is
/// itself in the result (the chains through it run here). `None` when the walk passes
/// [`MAX_WALK`] steps.
pub(super) fn interval_from(
    index: &ScopeIndex,
    calls: &BarrierFreeCalls,
    barriers: &OpSet,
    source: usize,
    entered_by: Option<usize>,
) -> Option<OpSet> {
    let mut chains = CallChains::default();
    // (operation, chain) pairs walked, as `chain << 32 | operation`: hashing two integers,
    // where hashing a chain of `Rc` links walked the whole chain on every step.
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut found = OpSet::with_capacity(index.ops.len());
    if let Some(call) = entered_by {
        found.insert(call);
    }
    let entered = entered_by.map_or(CallChains::NONE, |call| chains.link(call, CallChains::NONE));
    let mut stack: Vec<(usize, u32)> = vec![(source, entered)];
    let mut first = true;
    while let Some((n, chain)) = stack.pop() {
        let starting = std::mem::take(&mut first);
        if !seen.insert((u64::from(chain) << 32) | n as u64) {
            continue;
        }
        if seen.len() > MAX_WALK {
            return None;
        }
        found.insert(n);
        // The walk ends at the next barrier, the source itself included when the walk comes
        // back to it (through a loop, or through another call of the helper holding it).
        if !starting && barriers.contains(n) {
            continue;
        }
        // A call of a function that holds no barrier comes back to the operation after it,
        // having run (at most) the accesses of the functions it can call.
        let callee = index.callee_of.get(&n).copied();
        if let Some(accesses) = callee.and_then(|callee| calls.accesses[callee].as_ref()) {
            found.extend(accesses.iter().copied());
            push_following(index, n, chain, &mut stack);
            continue;
        }
        let callee_entry = callee.and_then(|callee| index.entry_block(callee));
        let depth = chains.depth(chain);
        if let (Some(entry), true) = (callee_entry, depth < MAX_CALL_DEPTH) {
            stack.push((index.ops_of_block[entry].start, chains.link(n, chain)));
        } else if callee_entry.is_some() {
            // Deeper than the walk follows: the callee's operations as if run from anywhere.
            return None;
        } else if index.op_class[n] == OpClass::Return {
            match chains.call_and_outer(chain) {
                Some((call, outer)) => push_following(index, call, outer, &mut stack),
                None => {
                    let f = index.block_function[index.op_block[n]];
                    for call in &index.callers[f] {
                        push_following(index, *call, CallChains::NONE, &mut stack);
                    }
                }
            }
        } else {
            push_following(index, n, chain, &mut stack);
        }
    }
    Some(found)
}

/// Pushes the operations that run after `n` (the next one in its block, or the first of each
/// successor), under `chain`.
fn push_following(index: &ScopeIndex, n: usize, chain: u32, stack: &mut Vec<(usize, u32)>) {
    let block = index.op_block[n];
    if n + 1 < index.ops_of_block[block].end {
        stack.push((n + 1, chain));
    } else {
        stack.extend(index.succs[block].iter().map(|s| (index.ops_of_block[*s].start, chain)));
    }
}

/// The chains of calls one walk is under, interned: a chain is a number, its link the call
/// made and the chain it was made in (equal chains, equal numbers).
#[derive(Default)]
struct CallChains {
    /// Chain `k + 1`: (call, outer chain, depth).
    links: Vec<(usize, u32, u32)>,
    numbers: FxHashMap<(usize, u32), u32>,
}

impl CallChains {
    /// The walk's own function, entered by no call it follows.
    const NONE: u32 = 0;

    /// The chain of `call` made under `outer`.
    fn link(&mut self, call: usize, outer: u32) -> u32 {
        let depth = self.depth(outer) + 1;
        let links = &mut self.links;
        *self.numbers.entry((call, outer)).or_insert_with(|| {
            links.push((call, outer, depth));
            u32::try_from(links.len()).expect("fewer chains than MAX_WALK")
        })
    }

    /// How many calls `chain` is deep.
    fn depth(&self, chain: u32) -> u32 {
        chain.checked_sub(1).map_or(0, |k| self.links[k as usize].2)
    }

    /// The last call of `chain` and the chain it was made in.
    fn call_and_outer(&self, chain: u32) -> Option<(usize, u32)> {
        let (call, outer, _) = self.links[chain.checked_sub(1)? as usize];
        Some((call, outer))
    }
}

/// For each function holding no barrier (directly or through its calls), the candidate accesses
/// (operation numbers) of it and of every function it can call: what a call of it may run
/// between two barriers.
pub(super) struct BarrierFreeCalls {
    accesses: Vec<Option<Vec<usize>>>,
}

impl BarrierFreeCalls {
    pub(super) fn of(
        index: &ScopeIndex,
        holds_barrier: &[bool],
        candidates: &FxHashSet<usize>,
    ) -> BarrierFreeCalls {
        let mut own: Vec<Vec<usize>> = vec![Vec::new(); index.functions.len()];
        for n in candidates {
            own[index.block_function[index.op_block[*n]]].push(*n);
        }
        let mut callees: Vec<Vec<usize>> = vec![Vec::new(); index.functions.len()];
        for (call, callee) in &index.callee_of {
            callees[index.block_function[index.op_block[*call]]].push(*callee);
        }
        let accesses = (0..index.functions.len())
            .map(|f| {
                if holds_barrier[f] {
                    return None;
                }
                // Every function reachable by calls from `f`, each once.
                let mut seen = FxHashSet::from_iter([f]);
                let mut stack = vec![f];
                let mut found = Vec::new();
                while let Some(g) = stack.pop() {
                    found.extend(own[g].iter().copied());
                    stack.extend(callees[g].iter().copied().filter(|h| seen.insert(*h)));
                }
                Some(found)
            })
            .collect();
        BarrierFreeCalls { accesses }
    }
}
