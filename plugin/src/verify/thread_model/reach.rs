//! Which threads reach each block ([`Roles::reach_all`]): the kernel's blocks from its entry with
//! every thread, each other function's from the blocks of its calls, narrowed at each branch the
//! thread model decides per thread. A function whose every call sits in a block no thread
//! reaches is one no thread runs (`None` for all its blocks).

use std::collections::VecDeque;

use super::{Reach, Roles, Threads};

impl Roles<'_> {
    /// The threads reaching each block of the scope: the kernel from its entry, each other
    /// function from the blocks of its calls (`None`: not reached).
    pub(super) fn reach_all(&mut self) -> Vec<Option<Reach>> {
        let index = self.index;
        let mut reach: Vec<Option<Reach>> = vec![None; index.blocks.len()];
        for f in 0..index.blocks_of.len() {
            let Some(entry) = index.entry_block(f) else { continue };
            let start = if f == 0 {
                Reach { threads: Threads::all(self.shape.threads()), exact: true }
            } else {
                // Callers of later functions are not yet known: inexact.
                let mut start = Reach { threads: Threads::none(self.shape.threads()), exact: true };
                for call in &index.callers[f] {
                    let caller_block = index.block_of_op(index.ops[*call]);
                    let caller = caller_block.map(|b| index.block_function[b]);
                    let caller_done = caller.is_some_and(|c| c < f);
                    match caller_block.and_then(|b| reach[b].as_ref()) {
                        Some(found) if caller_done => {
                            start.threads.union(&found.threads);
                            start.exact &= found.exact;
                        }
                        // A call in a block of a function already walked that no thread
                        // reaches (behind a branch on a constant: `if column_warps > 1` where
                        // a const generic made it 1): no thread enters here through it.
                        None if caller_done => {}
                        _ => start.exact = false,
                    }
                }
                if !start.exact {
                    start.threads = Threads::all(self.shape.threads());
                }
                if start.exact && start.threads.count() == 0 {
                    // Every call is unreached: so is the function.
                    continue;
                }
                start
            };
            self.reach_function(f, entry, start, &mut reach);
        }
        reach
    }

    /// The worklist over one function's blocks.
    fn reach_function(&mut self, f: usize, entry: usize, start: Reach, reach: &mut [Option<Reach>]) {
        let index = self.index;
        reach[entry] = Some(start);
        let mut queue = VecDeque::from([entry]);
        while let Some(b) = queue.pop_front() {
            let Some(here) = reach[b].clone() else { continue };
            for (succ, threads, decided) in self.edges(b, &here.threads) {
                if index.block_function.get(succ) != Some(&f) {
                    continue;
                }
                let incoming = Reach { threads, exact: here.exact && decided };
                let changed = match &mut reach[succ] {
                    slot @ None => {
                        *slot = Some(incoming);
                        true
                    }
                    Some(old) => {
                        let mut merged = old.clone();
                        merged.threads.union(&incoming.threads);
                        merged.exact &= incoming.exact;
                        let changed = merged != *old;
                        *old = merged;
                        changed
                    }
                };
                if changed {
                    queue.push_back(succ);
                }
            }
        }
    }
}
