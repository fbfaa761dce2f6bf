//! The dominator tree of one function's blocks (Cooper, Harvey and Kennedy's iteration in reverse
//! postorder), numbered by a walk of the tree so that "does `a` dominate `b`" is two comparisons:
//! the copy loops ask it of every edge into a loop's top, and a deep chain of blocks must not make
//! one question cost the function.

use std::ops::Range;

use crate::verify::index::ScopeIndex;

/// Entry and exit numbers of each block in a walk of the dominator tree (`u32::MAX` for a block
/// the function's entry does not reach).
pub(super) struct Dominators {
    start: usize,
    enter: Vec<u32>,
    leave: Vec<u32>,
}

impl Dominators {
    /// The dominators of the blocks `blocks` (one function's, its entry first).
    pub(super) fn of(index: &ScopeIndex, blocks: Range<usize>) -> Dominators {
        let start = blocks.start;
        let count = blocks.len();
        let local = |b: usize| b.checked_sub(start).filter(|b| *b < count);
        // Reverse postorder from the entry.
        let mut order = vec![usize::MAX; count];
        let mut postorder = Vec::with_capacity(count);
        let mut stack: Vec<(usize, usize)> = Vec::new();
        if count > 0 {
            order[0] = 0;
            stack.push((0, 0));
        }
        while let Some((node, tried)) = stack.last_mut() {
            let node = *node;
            match index.succs[start + node].get(*tried).copied() {
                Some(succ) => {
                    *tried += 1;
                    if let Some(succ) = local(succ)
                        && order[succ] == usize::MAX
                    {
                        order[succ] = 0;
                        stack.push((succ, 0));
                    }
                }
                None => {
                    order[node] = postorder.len();
                    postorder.push(node);
                    stack.pop();
                }
            }
        }
        let mut idom: Vec<Option<usize>> = vec![None; count];
        if count > 0 {
            idom[0] = Some(0);
        }
        let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
            while a != b {
                while order[a] < order[b] {
                    a = idom[a].unwrap_or(0);
                }
                while order[b] < order[a] {
                    b = idom[b].unwrap_or(0);
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for node in postorder.iter().rev().copied().filter(|n| *n != 0) {
                let mut new = None;
                for pred in index.preds[start + node].iter().filter_map(|p| local(*p)) {
                    if idom[pred].is_none() {
                        continue;
                    }
                    new = Some(new.map_or(pred, |current| intersect(&idom, pred, current)));
                }
                if new.is_some() && idom[node] != new {
                    idom[node] = new;
                    changed = true;
                }
            }
        }
        // Number the tree by a walk from the entry.
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); count];
        for (node, parent) in idom.iter().enumerate().skip(1) {
            if let Some(parent) = *parent {
                children[parent].push(node);
            }
        }
        let (mut enter, mut leave) = (vec![u32::MAX; count], vec![u32::MAX; count]);
        let mut clock = 0u32;
        let mut walk: Vec<(usize, usize)> = if count > 0 { vec![(0, 0)] } else { Vec::new() };
        if count > 0 {
            enter[0] = 0;
            clock = 1;
        }
        while let Some((node, next)) = walk.last_mut() {
            let node = *node;
            if let Some(child) = children[node].get(*next).copied() {
                *next += 1;
                enter[child] = clock;
                clock += 1;
                walk.push((child, 0));
            } else {
                leave[node] = clock;
                clock += 1;
                walk.pop();
            }
        }
        Dominators { start, enter, leave }
    }

    /// Whether every path from the function's entry to block `b` passes block `a` (both reached).
    pub(super) fn dominates(&self, a: usize, b: usize) -> bool {
        let (Some(a), Some(b)) = (a.checked_sub(self.start), b.checked_sub(self.start)) else { return false };
        let reached = |n: usize| self.enter.get(n).is_some_and(|e| *e != u32::MAX);
        reached(a) && reached(b) && self.enter[a] <= self.enter[b] && self.leave[b] <= self.leave[a]
    }
}
