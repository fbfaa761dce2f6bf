//! What the checkers need to know about instructions and registers: what an instruction may do
//! to memory and to ordering ([`Effect`]), where an address comes from ([`Lineage`], by `cvta`
//! and symbols), and which pointer an address is based on ([`Root`], for `.nc`).
//!
//! Everything here errs one way: an instruction it does not know is a barrier, a value it cannot
//! follow has an unknown root, a register whose definitions disagree is `Mixed`. Being unsure
//! only ever costs a harmless class, never lets a change through.

use std::collections::HashMap;

use super::cfg::Dominance;
use crate::ptx::function::{Function, Statement};
use crate::ptx::instruction::{Atom, Instruction, Operand};

/// Opcodes that compute a value from registers and immediates and touch nothing else.
const PURE: &[&str] = &[
    "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max", "fma",
    "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "and", "or", "xor", "not", "cnot", "lop3",
    "shl", "shr", "shf", "bfe", "bfi", "bfind", "brev", "popc", "clz", "fns", "prmt", "bmsk", "szext",
    "dp4a", "dp2a", "copysign", "testp", "selp", "setp", "set", "slct", "cvt", "cvta", "mov", "isspacep",
];

/// Modifiers that make a load or store an ordering point of its own.
const ORDERED: &[&str] = &["volatile", "relaxed", "acquire", "release", "mmio", "acq_rel", "sc"];

/// Special registers whose reads observe time or counters: reading them is an ordering point.
const CLOCKS: &[&str] = &["%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"];

/// What an instruction may do besides computing its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Effect {
    /// Only its registers.
    Pure,
    /// A plain read of memory.
    Read,
    /// A plain write of memory.
    Write,
    /// Anything else: barriers, fences, `mbarrier` operations, calls, `.param` staging, atomics,
    /// warp-synchronous operations, control flow, opcodes this reader does not know. Nothing
    /// moves across it.
    Barrier,
}

pub(super) fn effect(instruction: &Instruction) -> Effect {
    let name = instruction.name();
    let ordered = instruction.modifiers().any(|m| ORDERED.contains(&m));
    let param = instruction.modifiers().any(|m| m.starts_with("param"));
    match name {
        _ if PURE.contains(&name) => {
            let reads_clock =
                instruction.operands.iter().flat_map(Operand::names).any(|n| CLOCKS.contains(&n));
            if reads_clock { Effect::Barrier } else { Effect::Pure }
        }
        "ld" | "ldu" if ordered => Effect::Barrier,
        // Reading a call's return value is part of the call's `.param` staging.
        "ld" if param && instruction.has_modifier("param::func") => Effect::Barrier,
        "ld" | "ldu" | "prefetch" | "prefetchu" => Effect::Read,
        "st" if ordered || param => Effect::Barrier,
        "st" => Effect::Write,
        _ => Effect::Barrier,
    }
}

/// Registers an instruction defines: the names in its first operand, unless that is an address.
pub(super) fn defs(instruction: &Instruction) -> Vec<&str> {
    match instruction.operands.first() {
        Some(first) if !first.is_address() && instruction.name() != "call" => first.names(),
        _ => Vec::new(),
    }
}

/// The address operands of an instruction (`[…]`).
pub(super) fn addresses(instruction: &Instruction) -> Vec<&Operand> {
    instruction.operands.iter().filter(|operand| operand.is_address()).collect()
}

/// The first name inside an address operand: its base register or symbol.
pub(super) fn address_base(address: &Operand) -> Option<&str> {
    match address.0.as_slice() {
        [Atom::Group { items, .. }] => items.first().and_then(|item| item.names().first().copied()),
        _ => None,
    }
}

/// A state space named by an instruction's modifier, with `shared` meaning `shared::cta`.
pub(super) fn space_of_modifier(modifier: &str) -> Option<String> {
    let base = modifier.split("::").next().unwrap_or(modifier);
    if !["global", "shared", "local", "param", "const"].contains(&base) {
        return None;
    }
    Some(if modifier == "shared" { "shared::cta".to_string() } else { modifier.to_string() })
}

/// The first state space an instruction's modifiers name.
pub(super) fn first_space(instruction: &Instruction) -> Option<String> {
    instruction.modifiers().find_map(space_of_modifier)
}

/// Where an address value comes from, as far as state spaces go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Lineage {
    /// No definition seen yet (the start of the fixpoint).
    Unset,
    /// Nothing known: an ordinary value, or a generic address of unknown space.
    Plain,
    /// `cvta.to.SPACE` of a plain value (plus offsets): an address in SPACE.
    ToSpace(String),
    /// `cvta.SPACE` of an address in SPACE (plus offsets): a generic address known to lie there.
    Generic(String),
    /// A symbol declared in SPACE, or `mov` of one (plus offsets): an address in SPACE.
    Symbol(String),
    /// Definitions that disagree: nothing may be assumed.
    Mixed,
}

impl Lineage {
    fn join(&self, other: &Lineage) -> Lineage {
        match (self, other) {
            (Lineage::Unset, x) | (x, Lineage::Unset) => x.clone(),
            (a, b) if a == b => a.clone(),
            _ => Lineage::Mixed,
        }
    }

    /// How a use shows its lineage in canonical text (empty for none).
    pub fn marker(&self) -> String {
        match self {
            Lineage::Unset | Lineage::Plain => String::new(),
            Lineage::ToSpace(space) => format!("<to.{space}>"),
            Lineage::Generic(space) => format!("<generic.{space}>"),
            Lineage::Symbol(space) => format!("<in.{space}>"),
            Lineage::Mixed => "<mixed>".to_string(),
        }
    }
}

/// Which object an address is based on, C-`restrict` style: one pointer plus integer offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Root {
    Unset,
    /// An integer computed from immediates, special registers and non-pointer parameters.
    Offset,
    /// An entry parameter declared `.ptr`, by name.
    Parameter(String),
    /// A module or function variable, by name.
    Symbol(String),
    /// Anything else: a loaded value, two pointers combined, definitions that disagree.
    Unknown,
}

impl Root {
    fn join(&self, other: &Root) -> Root {
        match (self, other) {
            (Root::Unset, x) | (x, Root::Unset) => x.clone(),
            (a, b) if a == b => a.clone(),
            _ => Root::Unknown,
        }
    }

    fn is_pointer(&self) -> bool {
        matches!(self, Root::Parameter(_) | Root::Symbol(_))
    }
}

/// Per-function facts: where each register is defined and used, which statement dominates
/// which, each register's lineage and its root.
pub(super) struct Facts {
    pub definitions: HashMap<String, Vec<usize>>,
    pub uses: HashMap<String, Vec<usize>>,
    /// Per instruction statement: is it guarded by a predicate?
    pub guarded: HashMap<usize, bool>,
    pub dominance: Dominance,
    pub lineage: HashMap<String, Lineage>,
    pub roots: HashMap<String, Root>,
}

/// Opcodes through which an address keeps its lineage and its root: offsets and copies.
fn carries_address(instruction: &Instruction) -> bool {
    matches!(instruction.name(), "add" | "sub" | "mov" | "mad")
}

impl Facts {
    pub fn of(function: &Function, symbol_spaces: &HashMap<String, String>) -> Facts {
        let mut instructions: Vec<&Instruction> = Vec::new();
        let mut definitions: HashMap<String, Vec<usize>> = HashMap::new();
        let mut uses: HashMap<String, Vec<usize>> = HashMap::new();
        let mut guarded = HashMap::new();
        for (position, statement) in function.statements.iter().enumerate() {
            let Statement::Instruction(instruction) = statement else { continue };
            instructions.push(instruction);
            guarded.insert(position, instruction.guard.is_some());
            let defined = defs(instruction);
            for name in &defined {
                definitions.entry(name.to_string()).or_default().push(position);
            }
            let skip = usize::from(!defined.is_empty());
            let guard = instruction.guard.as_deref().map(|g| g.trim_start_matches('!'));
            let read =
                guard.into_iter().chain(instruction.operands.iter().skip(skip).flat_map(Operand::names));
            for name in read {
                uses.entry(name.to_string()).or_default().push(position);
            }
        }
        // Only an entry's parameters are objects of their own: a device function's pointer
        // parameters may be anything its callers pass.
        let is_entry = function.kind == crate::ptx::function::FunctionKind::Entry;
        let pointer_params: Vec<&str> = function
            .params
            .iter()
            .filter(|p| is_entry && p.attributes.iter().any(|a| a == ".ptr"))
            .map(|p| p.name.as_str())
            .collect();
        let mut facts = Facts {
            definitions,
            uses,
            guarded,
            dominance: Dominance::of(function),
            lineage: HashMap::new(),
            roots: HashMap::new(),
        };
        // A fixpoint over every definition: the lattices are a few levels high.
        loop {
            let mut changed = false;
            for instruction in &instructions {
                let (lineage, root) = facts.transfer(instruction, symbol_spaces, &pointer_params);
                for name in defs(instruction) {
                    let old = facts.lineage.get(name).cloned().unwrap_or(Lineage::Unset);
                    let new = old.join(&lineage);
                    if new != old {
                        facts.lineage.insert(name.to_string(), new);
                        changed = true;
                    }
                    let old = facts.roots.get(name).cloned().unwrap_or(Root::Unset);
                    let new = old.join(&root);
                    if new != old {
                        facts.roots.insert(name.to_string(), new);
                        changed = true;
                    }
                }
            }
            if !changed {
                return facts;
            }
        }
    }

    /// The lineage of an operand atom's name: a symbol's space, a register's lineage.
    pub fn lineage_of(&self, name: &str, symbol_spaces: &HashMap<String, String>) -> Lineage {
        if let Some(space) = symbol_spaces.get(name) {
            return Lineage::Symbol(normal_space(space));
        }
        match self.lineage.get(name) {
            Some(Lineage::Unset) | None => Lineage::Plain,
            Some(lineage) => lineage.clone(),
        }
    }

    pub fn root_of(&self, name: &str, symbol_spaces: &HashMap<String, String>) -> Root {
        if symbol_spaces.contains_key(name) {
            return Root::Symbol(name.to_string());
        }
        if name.starts_with("%") && name.contains('.') || is_special(name) {
            return Root::Offset;
        }
        match self.roots.get(name) {
            Some(Root::Unset) | None => Root::Unknown,
            Some(root) => root.clone(),
        }
    }

    /// The root of a whole operand: an immediate is an offset; a group takes its first name.
    fn operand_root(&self, operand: &Operand, symbol_spaces: &HashMap<String, String>) -> Root {
        let names = operand.names();
        match names.as_slice() {
            [] => Root::Offset,
            [name] => self.root_of(name, symbol_spaces),
            _ => Root::Unknown,
        }
    }

    fn operand_lineage(&self, operand: &Operand, symbol_spaces: &HashMap<String, String>) -> Lineage {
        match operand.names().as_slice() {
            [] => Lineage::Plain,
            [name] => self.lineage_of(name, symbol_spaces),
            _ => Lineage::Mixed,
        }
    }

    fn transfer(
        &self,
        instruction: &Instruction,
        symbol_spaces: &HashMap<String, String>,
        pointer_params: &[&str],
    ) -> (Lineage, Root) {
        let sources: &[Operand] = instruction.operands.get(1..).unwrap_or_default();
        let name = instruction.name();
        if name == "ld" && instruction.modifiers().any(|m| m.starts_with("param")) {
            let param = sources.first().and_then(address_base);
            let root = match param {
                Some(param) if pointer_params.contains(&param) => Root::Parameter(param.to_string()),
                Some(_) if effect(instruction) == Effect::Read => Root::Offset,
                _ => Root::Unknown,
            };
            return (Lineage::Plain, root);
        }
        if name == "cvta" {
            let source = sources.first();
            let lineage = source.map_or(Lineage::Mixed, |s| self.operand_lineage(s, symbol_spaces));
            let root = source.map_or(Root::Unknown, |s| self.operand_root(s, symbol_spaces));
            let space = first_space(instruction).map(|s| normal_space(&s)).unwrap_or_default();
            let lineage = match (instruction.has_modifier("to"), lineage) {
                (true, Lineage::Plain) => Lineage::ToSpace(space),
                (false, Lineage::Plain) => Lineage::Generic(space),
                (false, Lineage::Symbol(s)) if s == space => Lineage::Generic(space),
                _ => Lineage::Mixed,
            };
            return (lineage, root);
        }
        if carries_address(instruction) {
            let address_operands: Vec<&Operand> = match name {
                // `mad d, a, b, c`: the address is `c`, the product an offset.
                "mad" => sources.get(2).into_iter().collect(),
                // `sub d, a, b`: only `a` may be an address.
                "sub" => sources.first().into_iter().collect(),
                _ => sources.iter().collect(),
            };
            let offsets: Vec<&Operand> =
                sources.iter().filter(|s| !address_operands.iter().any(|a| std::ptr::eq(*a, *s))).collect();
            // Lineage passes through one fixed operand only (the first; `c` of `mad`), so that
            // two sides that differ in which operand was converted never look alike.
            let carrier = if name == "mad" { 2 } else { 0 };
            let tagged: Vec<(usize, Lineage)> = sources
                .iter()
                .map(|s| self.operand_lineage(s, symbol_spaces))
                .enumerate()
                .filter(|(_, l)| *l != Lineage::Plain)
                .collect();
            let lineage = match tagged.as_slice() {
                [] => Lineage::Plain,
                [(index, one)] if *index == carrier => one.clone(),
                _ => Lineage::Mixed,
            };
            let roots: Vec<Root> =
                address_operands.iter().map(|s| self.operand_root(s, symbol_spaces)).collect();
            let offset_roots: Vec<Root> =
                offsets.iter().map(|s| self.operand_root(s, symbol_spaces)).collect();
            let pointers: Vec<&Root> = roots.iter().filter(|r| r.is_pointer()).collect();
            let all_offsets = |roots: &[Root]| roots.iter().all(|r| *r == Root::Offset);
            let root = match pointers.as_slice() {
                [] if all_offsets(&roots) && all_offsets(&offset_roots) => Root::Offset,
                [one]
                    if roots.iter().filter(|r| !r.is_pointer()).all(|r| *r == Root::Offset)
                        && all_offsets(&offset_roots) =>
                {
                    (*one).clone()
                }
                _ => Root::Unknown,
            };
            return (lineage, root);
        }
        if effect(instruction) == Effect::Pure {
            let offsets = sources.iter().all(|s| self.operand_root(s, symbol_spaces) == Root::Offset);
            return (Lineage::Plain, if offsets { Root::Offset } else { Root::Unknown });
        }
        (Lineage::Plain, Root::Unknown)
    }
}

/// `shared` is `shared::cta`; other spaces as written.
pub(super) fn normal_space(space: &str) -> String {
    if space == "shared" { "shared::cta".to_string() } else { space.to_string() }
}

/// Special registers (`%tid.x`, `%laneid`): integers, never addresses.
fn is_special(name: &str) -> bool {
    const SPECIAL: &[&str] = &[
        "%tid",
        "%ntid",
        "%ctaid",
        "%nctaid",
        "%laneid",
        "%warpid",
        "%nwarpid",
        "%smid",
        "%nsmid",
        "%gridid",
        "%clusterid",
        "%nclusterid",
        "%cluster_ctaid",
        "%cluster_nctaid",
        "%cluster_ctarank",
        "%cluster_nctarank",
        "%lanemask_eq",
        "%lanemask_le",
        "%lanemask_lt",
        "%lanemask_ge",
        "%lanemask_gt",
        "%dynamic_smem_size",
        "%total_smem_size",
    ];
    SPECIAL.iter().any(|s| name == *s || name.strip_prefix(s).is_some_and(|rest| rest.starts_with('.')))
}
