//! The cycles of a scope's control-flow graph: its strongly connected components, by Tarjan's
//! algorithm (iterative, so a long chain of blocks cannot overflow the stack). Two blocks lie on
//! one cycle exactly when they share a component, so "does this loop come back to its condition
//! without passing that block?" is a search confined to one component, not to everything
//! reachable after the loop's exit; that keeps the loop questions of the rules linear in the
//! loop's size rather than the function's.

/// Each block's component, and which components hold a cycle.
#[derive(Debug)]
pub(crate) struct Cycles {
    component: Vec<u32>,
    cyclic: Vec<bool>,
}

impl Cycles {
    /// The components of the graph whose block `b` has successors `succs[b]`.
    pub(crate) fn new(succs: &[Vec<usize>]) -> Cycles {
        const UNVISITED: u32 = u32::MAX;
        let count = succs.len();
        let mut order = vec![UNVISITED; count];
        let mut low = vec![0u32; count];
        let mut on_stack = vec![false; count];
        let mut component = vec![UNVISITED; count];
        let mut cyclic = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        // The depth-first walk: a block and how many of its successors it has tried.
        let mut walk: Vec<(usize, usize)> = Vec::new();
        let mut next_order = 0u32;
        for root in 0..count {
            if order[root] != UNVISITED {
                continue;
            }
            walk.push((root, 0));
            order[root] = next_order;
            low[root] = next_order;
            next_order += 1;
            stack.push(root);
            on_stack[root] = true;
            while let Some((b, tried)) = walk.last_mut() {
                let b = *b;
                if let Some(succ) = succs[b].get(*tried).copied() {
                    *tried += 1;
                    if order[succ] == UNVISITED {
                        order[succ] = next_order;
                        low[succ] = next_order;
                        next_order += 1;
                        stack.push(succ);
                        on_stack[succ] = true;
                        walk.push((succ, 0));
                    } else if on_stack[succ] {
                        low[b] = low[b].min(order[succ]);
                    }
                    continue;
                }
                walk.pop();
                if let Some((parent, _)) = walk.last() {
                    low[*parent] = low[*parent].min(low[b]);
                }
                if low[b] == order[b] {
                    let id = cyclic.len() as u32;
                    let mut size = 0;
                    loop {
                        let member = stack.pop().expect("a component's root is on the stack");
                        on_stack[member] = false;
                        component[member] = id;
                        size += 1;
                        if member == b {
                            break;
                        }
                    }
                    cyclic.push(size > 1 || succs[b].contains(&b));
                }
            }
        }
        Cycles { component, cyclic }
    }

    /// Whether block `b` lies on a cycle (a path of at least one edge from `b` back to `b`).
    pub(crate) fn on_cycle(&self, b: usize) -> bool {
        self.cyclic[self.component[b] as usize]
    }

    /// Whether blocks `a` and `b` lie on one cycle: each reaches the other.
    pub(crate) fn together(&self, a: usize, b: usize) -> bool {
        self.component[a] == self.component[b] && self.on_cycle(a)
    }
}

#[cfg(test)]
mod tests {
    use super::Cycles;

    #[test]
    fn a_loop_with_a_tail_is_one_cycle_and_the_tail_none() {
        // 0 → 1 → 2 → 1 (the loop), 1 → 3 → 4 (the exit and what follows).
        let cycles = Cycles::new(&[vec![1], vec![2, 3], vec![1], vec![4], vec![]]);
        assert!(cycles.together(1, 2));
        assert!(!cycles.on_cycle(0) && !cycles.on_cycle(3) && !cycles.on_cycle(4));
        assert!(!cycles.together(1, 3));
    }

    #[test]
    fn a_self_edge_is_a_cycle_and_nested_loops_share_the_outer_component() {
        // 0 → 1 (outer header) → 2 (inner header, self edge) → 3 → 1; 1 → 4 exits.
        let cycles = Cycles::new(&[vec![1], vec![2, 4], vec![2, 3], vec![1], vec![]]);
        assert!(cycles.on_cycle(2));
        assert!(cycles.together(1, 2) && cycles.together(2, 3));
        assert!(!cycles.on_cycle(4));
        let alone = Cycles::new(&[vec![0]]);
        assert!(alone.on_cycle(0));
    }

    #[test]
    fn a_long_chain_does_not_overflow_the_stack() {
        let count = 200_000;
        let succs: Vec<Vec<usize>> =
            (0..count).map(|b| if b + 1 < count { vec![b + 1] } else { vec![0] }).collect();
        let cycles = Cycles::new(&succs);
        assert!(cycles.together(0, count - 1));
    }
}
