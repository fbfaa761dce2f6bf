//! canon-check: compare the PTX of two builds (two backends, two pins) entry by entry, and say
//! what kind of difference each entry shows.
//!
//! Data flow: each side is one or more PTX texts → [`Program`]s → entries keyed by name (mangling
//! hashes numbered, [`number_hashes`]) → per matched pair, a [`side::Side`]: the entry, every
//! function it reaches by call or by naming it (a function pointer), and the module variables
//! and external declarations it names → per function, [`facts`] (what each instruction does to
//! memory and ordering, address lineage, the pointer an address is based on) → canonical lines
//! under a view ([`render`]): signature with performance directives (`.reqntid`, `.maxntid`),
//! declarations with alignment and array shape, scope boundaries, labels numbered by definition,
//! immediates in one spelling, hashes numbered per crate by first appearance over the whole
//! entry. The classes are tried in order; each is a checker that proves the pair equivalent under
//! its one rule, and the first that does is the class:
//!
//! 1. **identical**: equal canonical lines (so a consistent renaming of labels or of every hash,
//!    comments, layout and hex case never count);
//! 2. **register renumbering only**: equal once registers are renamed by first appearance, one
//!    bijection per declaration (declared counts may differ);
//! 3. **`ld.global` ↔ `ld.global.nc` only**: equal once `.nc` is dropped from global loads, and
//!    every load that changed provably reads memory nothing in the entry or its callees writes
//!    ([`checks::read_only`]): its address is based on one `.ptr` parameter or global variable,
//!    and every write is to another state space or based on another variable. When the only
//!    writes that could reach it are through *other pointer parameters*, the class says so:
//!    **`.nc` only, if pointer parameters do not overlap** (PTX cannot say that two parameters
//!    are distinct buffers; the launch must);
//! 4. **instruction order only**: the same dependency graph ([`checks::same_dependency_graph`]);
//! 5. **generic ↔ specific state space only**: after renumbering, with `cvta` folded into the
//!    registers it defines, each access is in the same space, or generic on one side and specific
//!    on the other where its address provably lies in that space by `cvta` or symbol lineage
//!    ([`checks::only_generic_to_specific`]); never one specific space for another;
//! 6. **other**, with a short diff.
//!
//! Addresses are assumed to stay within the object they are based on (pointer plus integer
//! offsets, as LLVM's `inbounds` promises), and address conversions to be linear within a window.
//!
//! The module knows nothing about files or the command line; `xtask canon-check` does.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ptx::PtxError;
use crate::ptx::function::{Function, Statement};
use crate::ptx::program::Program;
use crate::snapshots::number_hashes;

mod cfg;
mod checks;
mod facts;
mod render;
mod side;

use checks::ReadOnly;
use facts::Facts;
use render::{Line, View};
use side::Side;

/// The kind of difference between an entry's two versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Identical,
    RegisterRenumbering,
    NonCoherentLoads,
    NonCoherentLoadsIfParametersDistinct,
    OrderWithinBlocks,
    StateSpace,
    Other,
}

impl Class {
    pub const ALL: [Class; 7] = [
        Class::Identical,
        Class::RegisterRenumbering,
        Class::NonCoherentLoads,
        Class::NonCoherentLoadsIfParametersDistinct,
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
            Class::NonCoherentLoadsIfParametersDistinct => ".nc only, if pointer parameters do not overlap",
            Class::OrderWithinBlocks => "instruction order only (same dependencies)",
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

    /// `canon-check: D/N entries differ (K <class>, …)`: N counts every entry of either side, D
    /// those not identical (entries on one side only included). The one line a pin bump prints
    /// and the report heads its canon-check section with.
    pub fn summary_line(&self) -> String {
        let total = self.entries.len() + self.only_old.len() + self.only_new.len();
        let differ = total - self.count(Class::Identical);
        let mut parts: Vec<String> = self
            .counts()
            .into_iter()
            .filter(|(class, count)| *class != Class::Identical && *count > 0)
            .map(|(class, count)| format!("{count} {}", class.label()))
            .collect();
        for (side, names) in [("old", &self.only_old), ("new", &self.only_new)] {
            if !names.is_empty() {
                parts.push(format!("{} only in {side}", names.len()));
            }
        }
        let detail = if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) };
        format!("canon-check: {differ}/{total} entries differ{detail}")
    }

    /// The summary table, then every entry of class `other` with its diff.
    pub fn render_text(&self) -> String {
        let mut text = format!("canon-check\n  old: {}\n  new: {}\n\n", self.old, self.new);
        text.push_str(&format!("  {:<48} {:>7}\n", "class", "entries"));
        for (class, count) in self.counts() {
            text.push_str(&format!("  {:<48} {:>7}\n", class.label(), count));
        }
        text.push_str(&format!("  {:<48} {:>7}\n", "only in old", self.only_old.len()));
        text.push_str(&format!("  {:<48} {:>7}\n", "only in new", self.only_new.len()));
        text.push_str(&format!("  {:<48} {:>7}\n", "matched entries", self.entries.len()));
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
            let a = Side::new(old_program, old_entry);
            let b = Side::new(new_program, new_entry);
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

/// Entry name, hashes numbered over every entry name of the side in order (so that two entries
/// whose names differ only in a hash stay two) → (its program, the entry).
fn entries_by_name(programs: &[Program]) -> BTreeMap<String, (&Program, &Function)> {
    let entries: Vec<(&Program, &Function)> =
        programs.iter().flat_map(|program| program.entries().map(move |entry| (program, entry))).collect();
    let names: Vec<&str> = entries.iter().map(|(_, entry)| entry.name.as_str()).collect();
    let numbered = number_hashes(&names.join("\n"));
    let mut by_name = BTreeMap::new();
    for (name, found) in numbered.split('\n').zip(entries) {
        by_name.entry(name.to_string()).or_insert(found);
    }
    by_name
}

fn facts_of(side: &Side) -> Vec<Facts> {
    side.functions.iter().map(|f| Facts::of(f.function, &side.symbol_spaces)).collect()
}

fn texts(lines: &[Line]) -> Vec<&str> {
    lines.iter().map(|line| line.text.as_str()).collect()
}

fn classify(old: &Side, new: &Side) -> (Class, Option<String>) {
    let (old_facts, new_facts) = (facts_of(old), facts_of(new));
    let view = |renumber, drop_nc, state_space| View { renumber, drop_nc, state_space };
    let exact =
        (render::render(old, &old_facts, View::default()), render::render(new, &new_facts, View::default()));
    if texts(&exact.0) == texts(&exact.1) {
        return (Class::Identical, None);
    }
    let renumbered = |side, facts| render::render(side, facts, view(true, false, false));
    if texts(&renumbered(old, &old_facts)) == texts(&renumbered(new, &new_facts)) {
        return (Class::RegisterRenumbering, None);
    }
    let without_nc = |side, facts| render::render(side, facts, view(false, true, false));
    if texts(&without_nc(old, &old_facts)) == texts(&without_nc(new, &new_facts)) {
        match non_coherent_loads(old, &old_facts, &exact.0, new, &new_facts, &exact.1) {
            ReadOnly::Proven => return (Class::NonCoherentLoads, None),
            ReadOnly::IfParametersDistinct => return (Class::NonCoherentLoadsIfParametersDistinct, None),
            ReadOnly::Unproven => {}
        }
    }
    if checks::same_dependency_graph(&exact.0, &exact.1) {
        return (Class::OrderWithinBlocks, None);
    }
    let spaces = |side, facts| render::render(side, facts, view(true, false, true));
    if checks::only_generic_to_specific(&spaces(old, &old_facts), &spaces(new, &new_facts)) {
        return (Class::StateSpace, None);
    }
    (Class::Other, Some(short_diff(&texts(&exact.0), &texts(&exact.1))))
}

/// The weakest proof over every load whose `.nc` differs (the lines are aligned: they are equal
/// once `.nc` is dropped).
fn non_coherent_loads(
    old: &Side,
    old_facts: &[Facts],
    old_lines: &[Line],
    new: &Side,
    new_facts: &[Facts],
    new_lines: &[Line],
) -> ReadOnly {
    let mut verdict = ReadOnly::Proven;
    for (a, b) in old_lines.iter().zip(new_lines).filter(|(a, b)| a.text != b.text) {
        let proof = [(old, old_facts, a), (new, new_facts, b)]
            .into_iter()
            .filter_map(|(side, facts, line)| {
                let at = line.instruction.as_ref()?;
                let function = &side.functions[at.function].function;
                let Statement::Instruction(load) = &function.statements[at.statement] else { return None };
                load.has_modifier("nc").then(|| checks::read_only(side, facts, at.function, at.statement))
            })
            .max()
            .unwrap_or(ReadOnly::Unproven);
        verdict = verdict.max(proof);
    }
    verdict
}

/// The changed lines with one line of context, at most this many lines.
const DIFF_LINES: usize = 16;

fn short_diff(old: &[&str], new: &[&str]) -> String {
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
