//! A function's control-flow graph at statement level, and which statement dominates which:
//! what the state-space view needs before it may read a register as the value it was converted
//! from.

use std::collections::HashMap;

use crate::ptx::function::{Function, Statement};
use crate::ptx::instruction::Instruction;

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
        // Per block, its last instruction.
        let mut last: Vec<Option<&Instruction>> = vec![None];
        let mut block = 0usize;
        let mut starts_new = false;
        for statement in &function.statements {
            if starts_new || (matches!(statement, Statement::Label(_)) && !block_of.is_empty()) {
                block += 1;
                last.push(None);
            }
            starts_new = false;
            match statement {
                Statement::Label(label) => {
                    labels.insert(label, block);
                }
                Statement::Instruction(instruction) => {
                    starts_new = instruction.ends_block();
                    last[block] = Some(instruction);
                }
                _ => {}
            }
            block_of.push(block);
        }
        let blocks = block + 1;
        // Successors: the branch target(s), and the next block unless the block ends in an
        // unconditional transfer. An indirect branch may go to any block.
        let mut successors: Vec<Vec<usize>> = vec![Vec::new(); blocks];
        for (b, successors) in successors.iter_mut().enumerate() {
            let mut falls_through = true;
            if let Some(last) = last[b].filter(|i| i.ends_block()) {
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
                falls_through = last.guard.is_some();
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
