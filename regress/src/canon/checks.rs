//! The checkers of the harmless classes that need more than equal text: each proves its rule or
//! answers no.

use std::collections::HashMap;

use super::facts::{self, Effect, Facts, Lineage, Root};
use super::render::{Access, Line, LineInstruction};
use super::side::Side;
use crate::ptx::function::Statement;
use crate::ptx::instruction::Instruction;

/// Is a line a fixed point of the order check: anything but an instruction that only computes,
/// reads or writes plain memory.
fn fixed(line: &Line) -> bool {
    line.instruction.as_ref().is_none_or(|i| i.effect == Effect::Barrier)
}

/// Order only: the fixed lines (labels, declarations, scope boundaries, barriers, fences,
/// `mbarrier` operations, calls, `.param` staging, branches) stand at the same places with the
/// same text, and between two of them the new side is a permutation of the old one that keeps
/// every dependence: register and predicate def-use in both directions, and the order of two
/// memory accesses of which one writes (any two may alias).
pub(super) fn same_dependency_graph(old: &[Line], new: &[Line]) -> bool {
    if old.len() != new.len() {
        return false;
    }
    let mut start = 0;
    for index in 0..=old.len() {
        let boundary = index == old.len() || fixed(&old[index]) || fixed(&new[index]);
        if !boundary {
            continue;
        }
        if index < old.len() && old[index].text != new[index].text {
            return false;
        }
        if !permutation_keeps_dependences(&old[start..index], &new[start..index]) {
            return false;
        }
        start = index + 1;
    }
    true
}

fn permutation_keeps_dependences(old: &[Line], new: &[Line]) -> bool {
    // Equal instructions are matched in order: the k-th copy in the old segment is the k-th in
    // the new one (equal instructions depend on each other wherever order could matter).
    let mut positions: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, line) in new.iter().enumerate().rev() {
        positions.entry(line.text.as_str()).or_default().push(index);
    }
    let mut moved_to = Vec::with_capacity(old.len());
    for line in old {
        match positions.get_mut(line.text.as_str()).and_then(Vec::pop) {
            Some(position) => moved_to.push(position),
            None => return false,
        }
    }
    for i in 0..old.len() {
        for j in i + 1..old.len() {
            if moved_to[i] > moved_to[j] && depends(&old[i], &old[j]) {
                return false;
            }
        }
    }
    true
}

fn depends(a: &Line, b: &Line) -> bool {
    let (Some(a), Some(b)) = (&a.instruction, &b.instruction) else { return true };
    let shares = |x: &[String], y: &[String]| x.iter().any(|n| y.contains(n));
    let memory = |i: &LineInstruction| matches!(i.effect, Effect::Read | Effect::Write);
    shares(&a.defs, &b.uses)
        || shares(&a.defs, &b.defs)
        || shares(&a.uses, &b.defs)
        || (memory(a) && memory(b) && (a.effect == Effect::Write || b.effect == Effect::Write))
}

/// State spaces that a generic access may name instead (never `param`).
const SPECIFIC: &[&str] = &["global", "shared::cta", "local", "const"];

/// Generic ↔ specific only: every line equal, every memory access in the same space with the
/// same address lineage, or one generic and one specific where the address provably lies in that
/// space: the specific side reaches it through `cvta.to.SPACE` of the very value the generic side
/// uses, or the generic side's address is `cvta.SPACE` of the specific side's address.
pub(super) fn only_generic_to_specific(old: &[Line], new: &[Line]) -> bool {
    old.len() == new.len()
        && old.iter().zip(new).all(|(a, b)| {
            a.text == b.text
                && match (
                    a.instruction.as_ref().and_then(|i| i.access.as_ref()),
                    b.instruction.as_ref().and_then(|i| i.access.as_ref()),
                ) {
                    (None, None) => true,
                    (Some(a), Some(b)) => compatible(a, b),
                    _ => false,
                }
        })
}

fn compatible(a: &Access, b: &Access) -> bool {
    if a.space == b.space {
        return a.lineage == b.lineage;
    }
    let (generic, specific, space) = match (&a.space, &b.space) {
        (None, Some(space)) => (a, b, space),
        (Some(space), None) => (b, a, space),
        _ => return false,
    };
    if !SPECIFIC.contains(&space.as_str()) {
        return false;
    }
    match (&generic.lineage, &specific.lineage) {
        (Lineage::Plain, Lineage::ToSpace(to)) => to == space,
        (Lineage::Generic(from), Lineage::Plain) => from == space,
        (Lineage::Generic(from), Lineage::Symbol(symbol)) => from == space && symbol == space,
        _ => false,
    }
}

/// How far a `.nc` load is proven harmless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ReadOnly {
    /// No write in the entry or its callees can reach the loaded object.
    Proven,
    /// The only writes that could are through other pointer parameters (or a pointer parameter
    /// and a module variable): harmless when the launch passes buffers that do not overlap.
    IfParametersDistinct,
    Unproven,
}

/// Is the load at (`function`, `statement`) of `side` reading memory that nothing in the entry
/// or its callees writes? The load must be in the entry, its address based on one `.ptr`
/// parameter or `.global`/`.const` variable; every write anywhere must be provably to another
/// state space, or based on another pointer.
pub(super) fn read_only(side: &Side, facts: &[Facts], function: usize, statement: usize) -> ReadOnly {
    let Some(load) = instruction_at(side, function, statement) else { return ReadOnly::Unproven };
    if function != 0 {
        return ReadOnly::Unproven;
    }
    let base = facts::addresses(load).first().and_then(|a| facts::address_base(a));
    let root = base.map_or(Root::Unknown, |b| facts[0].root_of(b, &side.symbol_spaces));
    let loaded_object_ok = match &root {
        Root::Parameter(_) => true,
        Root::Symbol(name) => {
            matches!(side.symbol_spaces.get(name).map(String::as_str), Some("global" | "const"))
        }
        _ => false,
    };
    if !loaded_object_ok {
        return ReadOnly::Unproven;
    }
    let mut verdict = ReadOnly::Proven;
    for (index, scoped) in side.functions.iter().enumerate() {
        for statement in &scoped.function.statements {
            let Statement::Instruction(instruction) = statement else { continue };
            for target in written_objects(side, &facts[index], instruction) {
                let on_chip = |name: &str| {
                    side.symbol_spaces.get(name).is_some_and(|s| s.starts_with("shared") || s == "local")
                };
                let this = match (&target, &root) {
                    (Root::Symbol(a), Root::Symbol(b)) if a != b => ReadOnly::Proven,
                    (Root::Symbol(a), _) if on_chip(a) => ReadOnly::Proven,
                    (Root::Parameter(_) | Root::Symbol(_), _) if target != root => {
                        ReadOnly::IfParametersDistinct
                    }
                    _ => ReadOnly::Unproven,
                };
                verdict = verdict.max(this);
            }
        }
    }
    verdict
}

fn instruction_at<'s>(side: &'s Side, function: usize, statement: usize) -> Option<&'s Instruction> {
    match side.functions.get(function)?.function.statements.get(statement)? {
        Statement::Instruction(instruction) => Some(instruction),
        _ => None,
    }
}

/// Instructions that write no memory another space could see, whatever their opcode's effect.
const NO_GLOBAL_WRITE: &[&str] = &[
    "bar",
    "barrier",
    "fence",
    "membar",
    "shfl",
    "vote",
    "activemask",
    "redux",
    "match",
    "nanosleep",
    "elect",
    "setmaxnreg",
    "griddepcontrol",
    "bra",
    "brx",
    "ret",
    "exit",
    "trap",
];

/// The objects an instruction may write in global memory: none, the roots of its addresses, or
/// `Unknown` (a call into unknown code, an unknown opcode without address, an address not based
/// on one pointer).
fn written_objects(side: &Side, facts: &Facts, instruction: &Instruction) -> Vec<Root> {
    let effect = facts::effect(instruction);
    if matches!(effect, Effect::Pure | Effect::Read) || NO_GLOBAL_WRITE.contains(&instruction.name()) {
        return Vec::new();
    }
    if instruction.name() == "ld" && !instruction.modifiers().any(|m| m == "volatile" || m == "mmio") {
        return Vec::new();
    }
    let space = facts::first_space(instruction);
    if space.as_deref().is_some_and(|s| s.starts_with("shared") || s == "local" || s.starts_with("param")) {
        return Vec::new();
    }
    if instruction.name() == "call" {
        let direct = instruction.callee().is_some_and(|callee| side.bodies.iter().any(|b| b == callee));
        // A callee with a body is one of the side's functions, checked on its own.
        return if direct { Vec::new() } else { vec![Root::Unknown] };
    }
    let addresses = facts::addresses(instruction);
    if addresses.is_empty() {
        return vec![Root::Unknown];
    }
    addresses
        .into_iter()
        .map(|address| match facts::address_base(address) {
            Some(base) => match facts.root_of(base, &side.symbol_spaces) {
                root @ (Root::Parameter(_) | Root::Symbol(_)) => root,
                _ => Root::Unknown,
            },
            None => Root::Unknown,
        })
        .collect()
}
