//! canon-check: compare the PTX of two builds (two backends, two pins) entry by entry, and say
//! what kind of difference each entry shows.
//!
//! Data flow: each side is one or more PTX texts → [`Program`]s → entries keyed by their name
//! with crate hashes normalised (v0 `Cs<hash>_`, legacy `17h<hash>E`), so that two builds of
//! the same code match → per matched pair, a canonical text of the entry and every function it
//! calls (and module variables it names) is compared under a ladder of relaxations; the first
//! that makes both sides equal is the class:
//!
//! 1. **identical**: equal as written (labels are always numbered by first appearance, comments
//!    and layout never count);
//! 2. **register renumbering only**: equal once registers are numbered by first use (declared
//!    register counts may differ);
//! 3. **`ld.global` ↔ `ld.global.nc` only**: equal once `.nc` is dropped from global loads;
//! 4. **instruction order only within blocks**: every block holds the same instructions;
//! 5. **generic ↔ specific state space only**: equal once memory instructions lose their state
//!    space, address conversions (`cvta`) are read as copies, and registers are renumbered;
//! 6. **other**, with a short diff.
//!
//! The module knows nothing about files or the command line; `xtask canon-check` does.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::ptx::function::Function;
use crate::ptx::instruction::{Instruction, MEMORY_OPCODES, StateSpace};
use crate::ptx::program::Program;
use crate::ptx::{ItemKind, PtxError};
use crate::snapshots::normalise;

/// The kind of difference between an entry's two versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Identical,
    RegisterRenumbering,
    NonCoherentLoads,
    OrderWithinBlocks,
    StateSpace,
    Other,
}

impl Class {
    pub const ALL: [Class; 6] = [
        Class::Identical,
        Class::RegisterRenumbering,
        Class::NonCoherentLoads,
        Class::OrderWithinBlocks,
        Class::StateSpace,
        Class::Other,
    ];

    /// How the summary table names the class.
    pub fn label(self) -> &'static str {
        match self {
            Class::Identical => "identical",
            Class::RegisterRenumbering => "register renumbering only",
            Class::NonCoherentLoads => "ld.global <-> ld.global.nc only",
            Class::OrderWithinBlocks => "instruction order only within blocks",
            Class::StateSpace => "generic <-> specific state space only",
            Class::Other => "other",
        }
    }
}

/// One matched entry and its class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryComparison {
    /// The entry's name with crate hashes normalised.
    pub entry: String,
    pub class: Class,
    /// For class `other`: the first lines of a unified diff of the canonical texts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// The comparison of two sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanonReport {
    pub old: String,
    pub new: String,
    /// Matched entries, sorted by name.
    pub entries: Vec<EntryComparison>,
    /// Entries only the old side has, and only the new side has.
    pub only_old: Vec<String>,
    pub only_new: Vec<String>,
}

impl CanonReport {
    /// Entries per class, every class listed (zero included), in ladder order.
    pub fn counts(&self) -> Vec<(Class, usize)> {
        Class::ALL
            .iter()
            .map(|&class| (class, self.entries.iter().filter(|e| e.class == class).count()))
            .collect()
    }

    pub fn count(&self, class: Class) -> usize {
        self.entries.iter().filter(|e| e.class == class).count()
    }

    /// The summary table, then every entry of class `other` with its diff.
    pub fn render_text(&self) -> String {
        let mut text = format!("canon-check\n  old: {}\n  new: {}\n\n", self.old, self.new);
        text.push_str(&format!("  {:<40} {:>7}\n", "class", "entries"));
        for (class, count) in self.counts() {
            text.push_str(&format!("  {:<40} {:>7}\n", class.label(), count));
        }
        text.push_str(&format!("  {:<40} {:>7}\n", "only in old", self.only_old.len()));
        text.push_str(&format!("  {:<40} {:>7}\n", "only in new", self.only_new.len()));
        text.push_str(&format!("  {:<40} {:>7}\n", "matched entries", self.entries.len()));
        for entry in self.entries.iter().filter(|e| e.class == Class::Other) {
            text.push_str(&format!("\nother: {}\n", entry.entry));
            for line in entry.diff.as_deref().unwrap_or_default().lines() {
                text.push_str(&format!("    {line}\n"));
            }
        }
        for (side, names) in [("old", &self.only_old), ("new", &self.only_new)] {
            if !names.is_empty() {
                text.push_str(&format!("\nonly in {side}: {}\n", names.join(", ")));
            }
        }
        text
    }
}

/// A malformed input, named.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}:{error}")]
pub struct CanonError {
    pub source_name: String,
    #[source]
    pub error: PtxError,
}

/// Compares two sides, each a list of (name for messages, PTX text).
pub fn compare(
    old_label: &str,
    old: &[(String, String)],
    new_label: &str,
    new: &[(String, String)],
) -> Result<CanonReport, CanonError> {
    let old_programs = read_all(old)?;
    let new_programs = read_all(new)?;
    let old_entries = entries_by_name(&old_programs);
    let new_entries = entries_by_name(&new_programs);
    let mut entries = Vec::new();
    for (name, (old_program, old_entry)) in &old_entries {
        if let Some((new_program, new_entry)) = new_entries.get(name) {
            let a = canonical_entry(old_program, old_entry);
            let b = canonical_entry(new_program, new_entry);
            let (class, diff) = classify(&a, &b);
            entries.push(EntryComparison { entry: name.clone(), class, diff });
        }
    }
    let only = |a: &BTreeMap<String, _>, b: &BTreeMap<String, _>| -> Vec<String> {
        a.keys().filter(|name| !b.contains_key(*name)).cloned().collect()
    };
    Ok(CanonReport {
        old: old_label.to_string(),
        new: new_label.to_string(),
        only_old: only(&old_entries, &new_entries),
        only_new: only(&new_entries, &old_entries),
        entries,
    })
}

fn read_all(sources: &[(String, String)]) -> Result<Vec<Program>, CanonError> {
    sources
        .iter()
        .map(|(name, text)| {
            Program::read(text).map_err(|error| CanonError { source_name: name.clone(), error })
        })
        .collect()
}

/// Normalised entry name → (its program, the entry). The first of equal names wins.
fn entries_by_name(programs: &[Program]) -> BTreeMap<String, (&Program, &Function)> {
    let mut entries = BTreeMap::new();
    for program in programs {
        for entry in program.entries() {
            entries.entry(normalise(&entry.name)).or_insert((program, entry));
        }
    }
    entries
}

/// What an entry is made of, ready to compare: per function (the entry first, then what it
/// calls), its declarations and its blocks; plus the module variables the entry names.
#[derive(Debug, Clone)]
struct CanonicalEntry {
    variables: Vec<String>,
    functions: Vec<CanonicalFunction>,
}

#[derive(Debug, Clone)]
struct CanonicalFunction {
    /// Kind, name, parameters: the signature line.
    signature: String,
    /// Variable declarations, then register declarations as (type, name, count).
    variables: Vec<String>,
    registers: Vec<(String, String, u64)>,
    /// Labels numbered by first appearance; instructions with symbols normalised.
    blocks: Vec<(Option<String>, Vec<Instruction>)>,
    /// Which names are numbered registers, and their prefix (`%rd12` → `%rd`).
    register_prefixes: HashMap<String, String>,
}

fn canonical_entry(program: &Program, entry: &Function) -> CanonicalEntry {
    let item = program.module.entries().find(|item| item.name.as_deref() == Some(entry.name.as_str()));
    let variables = item
        .map(|item| {
            program
                .module
                .reachable_from(item)
                .into_iter()
                .filter(|item| item.kind == ItemKind::Variable)
                .map(|item| normalise(item.text.split_whitespace().collect::<Vec<_>>().join(" ").as_str()))
                .collect()
        })
        .unwrap_or_default();
    let functions = program.reachable_from(entry).into_iter().map(canonical_function).collect();
    CanonicalEntry { variables, functions }
}

fn canonical_function(function: &Function) -> CanonicalFunction {
    let params = |params: &[crate::ptx::function::Param]| -> String {
        let rendered: Vec<String> = params
            .iter()
            .map(|p| {
                let array = p.array.map(|n| format!("[{n}]")).unwrap_or_default();
                format!("{} {}{array}", p.attributes.join(" "), normalise(&p.name))
            })
            .collect();
        rendered.join(", ")
    };
    let signature = format!(
        "{:?} ({}) {} ({})",
        function.kind,
        params(&function.returns),
        normalise(&function.name),
        params(&function.params)
    );
    let variables = function
        .variables
        .iter()
        .map(|v| format!(".{} .{} {}[{}]", v.space, v.ty, normalise(&v.name), v.count))
        .collect();
    let registers = function.registers.iter().map(|r| (r.ty.clone(), r.name.clone(), r.count)).collect();
    let mut labels: HashMap<String, String> = HashMap::new();
    for block in function.blocks.iter().flatten() {
        if let Some(label) = &block.label {
            let next = format!("L{}", labels.len());
            labels.entry(label.clone()).or_insert(next);
        }
    }
    let mut register_prefixes = HashMap::new();
    let blocks = function
        .blocks
        .iter()
        .flatten()
        .map(|block| {
            let instructions = block
                .instructions
                .iter()
                .map(|instruction| {
                    instruction.map_names(|name| {
                        if let Some(label) = labels.get(name) {
                            return label.clone();
                        }
                        if let Some(prefix) = numbered_register_prefix(function, name) {
                            register_prefixes.insert(name.to_string(), prefix);
                            return name.to_string();
                        }
                        normalise(name)
                    })
                })
                .collect();
            (block.label.as_ref().map(|label| labels[label].clone()), instructions)
        })
        .collect();
    CanonicalFunction { signature, variables, registers, blocks, register_prefixes }
}

/// The declared prefix of `name` when it is a numbered register of `function` (`%r` of `%r7`).
fn numbered_register_prefix(function: &Function, name: &str) -> Option<String> {
    function
        .registers
        .iter()
        .filter(|decl| decl.parameterized)
        .filter(|decl| {
            name.strip_prefix(decl.name.as_str())
                .is_some_and(|index| !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|decl| decl.name.clone())
        .max_by_key(String::len)
}

/// How one side is turned into text for a step of the ladder.
#[derive(Debug, Clone, Copy, Default)]
struct View {
    renumber: bool,
    drop_nc: bool,
    erase_state_space: bool,
    /// Compare each block's instructions as a sorted multiset.
    sort_blocks: bool,
}

fn render(entry: &CanonicalEntry, view: View) -> Vec<String> {
    let mut lines: Vec<String> = entry.variables.clone();
    for function in &entry.functions {
        lines.push(function.signature.clone());
        lines.extend(function.variables.iter().cloned());
        for (ty, name, count) in &function.registers {
            // Renumbering may change how many registers are declared, not their kinds.
            let count = if view.renumber { String::new() } else { format!("<{count}>") };
            lines.push(format!(".reg .{ty} {name}{count}"));
        }
        let mut numbering: HashMap<String, String> = HashMap::new();
        let mut per_prefix: HashMap<String, usize> = HashMap::new();
        let mut aliases: HashMap<String, String> = HashMap::new();
        for (label, instructions) in &function.blocks {
            if let Some(label) = label {
                lines.push(format!("{label}:"));
            }
            let mut block: Vec<String> = Vec::new();
            for instruction in instructions {
                let mut instruction = instruction.clone();
                if view.erase_state_space {
                    if let Some((destination, source)) = address_conversion(&instruction) {
                        let source = aliases.get(&source).cloned().unwrap_or(source);
                        aliases.insert(destination, source);
                        continue;
                    }
                    instruction = instruction
                        .map_names(|name| aliases.get(name).cloned().unwrap_or_else(|| name.to_string()));
                    if MEMORY_OPCODES.contains(&instruction.name()) {
                        instruction.opcode = without_modifiers(&instruction.opcode, |m| {
                            StateSpace::from_modifier(m).is_some()
                        });
                    }
                }
                if view.drop_nc
                    && instruction.name() == "ld"
                    && instruction.state_space() == Some(StateSpace::Global)
                {
                    instruction.opcode = without_modifiers(&instruction.opcode, |m| m == "nc");
                }
                if view.renumber {
                    instruction = instruction.map_names(|name| match function.register_prefixes.get(name) {
                        Some(prefix) => numbering
                            .entry(name.to_string())
                            .or_insert_with(|| {
                                let next = per_prefix.entry(prefix.clone()).or_default();
                                *next += 1;
                                format!("{prefix}#{next}")
                            })
                            .clone(),
                        None => name.to_string(),
                    });
                }
                block.push(format!("  {instruction}"));
            }
            if view.sort_blocks {
                block.sort();
            }
            lines.extend(block);
        }
    }
    lines
}

/// `cvta[.to].<space>.<type> d, s` as (d, s).
fn address_conversion(instruction: &Instruction) -> Option<(String, String)> {
    if instruction.name() != "cvta" || instruction.guard.is_some() {
        return None;
    }
    match instruction.operands.as_slice() {
        [destination, source] => match (destination.names().as_slice(), source.names().as_slice()) {
            ([d], [s]) if destination.0.len() == 1 && source.0.len() == 1 => {
                Some((d.to_string(), s.to_string()))
            }
            _ => None,
        },
        _ => None,
    }
}

fn without_modifiers(opcode: &str, drop: impl Fn(&str) -> bool) -> String {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or_default().to_string();
    parts.filter(|m| !drop(m)).fold(base, |text, m| format!("{text}.{m}"))
}

fn classify(old: &CanonicalEntry, new: &CanonicalEntry) -> (Class, Option<String>) {
    let ladder = [
        (Class::Identical, View::default()),
        (Class::RegisterRenumbering, View { renumber: true, ..View::default() }),
        (Class::NonCoherentLoads, View { drop_nc: true, ..View::default() }),
        (Class::OrderWithinBlocks, View { sort_blocks: true, ..View::default() }),
        (Class::StateSpace, View { erase_state_space: true, renumber: true, ..View::default() }),
    ];
    for (class, view) in ladder {
        if render(old, view) == render(new, view) {
            return (class, None);
        }
    }
    (Class::Other, Some(short_diff(&render(old, View::default()), &render(new, View::default()))))
}

/// The changed lines with one line of context, at most this many lines.
const DIFF_LINES: usize = 16;

fn short_diff(old: &[String], new: &[String]) -> String {
    let old = old.join("\n") + "\n";
    let new = new.join("\n") + "\n";
    let diff = similar::TextDiff::from_lines(&old, &new);
    let text = diff.unified_diff().context_radius(1).to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut shown: Vec<String> = lines.iter().take(DIFF_LINES).map(|l| l.to_string()).collect();
    if lines.len() > DIFF_LINES {
        shown.push(format!("… {} more diff lines", lines.len() - DIFF_LINES));
    }
    shown.join("\n")
}

#[cfg(test)]
mod tests;
