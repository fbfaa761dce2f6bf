//! A function's control-flow graph at statement level, and which statement dominates which:
//! what the state-space view needs before it may read a register as the value it was converted
//! from.

use std::collections::HashMap;

use crate::ptx::function::{Function, Statement};

/// Blocks and their dominators.
pub(super) struct Dominance {
    /// Per statement, its block.
    block_of: Vec<usize>,
    /// `dominators[b][a]`: block `a` dominates block `b`.
    dominators: Vec<Vec<bool>>,
}

impl Dominance {
    pub fn of(function: &Function) -> Dominance {
        // A block starts at a label and after a branch, return, exit or trap.
        let mut block_of = Vec::with_capacity(function.statements.len());
        let mut labels: HashMap<&str, usize> = HashMap::new();
        let mut block = 0usize;
        let mut starts_new = false;
        for statement in &function.statements {
            let is_label = matches!(statement, Statement::Label(_));
            if starts_new || (is_label && block_of.iter().any(|&b| b == block)) {
                block += 1;
            }
            starts_new = false;
            if let Statement::Label(label) = statement {
                labels.insert(label, block);
            }
            if let Statement::Instruction(instruction) = statement {
                starts_new = instruction.ends_block();
            }
            block_of.push(block);
        }
        let blocks = block + 1;
        // Successors: the branch target(s), and the next block unless the block ends in an
        // unconditional transfer. An indirect branch may go to any block.
        let mut successors: Vec<Vec<usize>> = vec![Vec::new(); blocks];
        for (b, successors) in successors.iter_mut().enumerate() {
            let last = function
                .statements
                .iter()
                .zip(&block_of)
                .filter(|(_, sb)| **sb == b)
                .filter_map(|(s, _)| match s {
                    Statement::Instruction(instruction) => Some(instruction),
                    _ => None,
                })
                .last();
            let mut falls_through = true;
            if let Some(last) = last.filter(|i| i.ends_block()) {
                let unconditional = last.guard.is_none();
                match last.name() {
                    "bra" => {
                        let target = last.operands.iter().flat_map(|o| o.names()).find_map(|n| labels.get(n));
                        match target {
                            Some(&target) => successors.push(target),
                            None => successors.extend(0..blocks),
                        }
                    }
                    "brx" => successors.extend(0..blocks),
                    _ => {}
                }
                falls_through = !unconditional;
            }
            if falls_through && b + 1 < blocks {
                successors.push(b + 1);
            }
        }
        let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); blocks];
        for (b, targets) in successors.iter().enumerate() {
            for &t in targets {
                predecessors[t].push(b);
            }
        }
        let mut dominators: Vec<Vec<bool>> = vec![vec![true; blocks]; blocks];
        dominators[0] = (0..blocks).map(|a| a == 0).collect();
        loop {
            let mut changed = false;
            for b in 1..blocks {
                let mut meet = vec![true; blocks];
                for &p in &predecessors[b] {
                    for (a, bit) in meet.iter_mut().enumerate() {
                        *bit &= dominators[p][a];
                    }
                }
                meet[b] = true;
                if meet != dominators[b] {
                    dominators[b] = meet;
                    changed = true;
                }
            }
            if !changed {
                return Dominance { block_of, dominators };
            }
        }
    }

    /// Does statement `a` execute before statement `b` on every path that reaches `b`?
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        let (block_a, block_b) = (self.block_of[a], self.block_of[b]);
        if block_a == block_b { a < b } else { self.dominators[block_b][block_a] }
    }
}
