//! The fixpoint's store of facts ([`IndexedFacts`]): facts and versions in arrays by slot, and
//! the rules' questions by value answered through the scope's slots by position.

use pliron::value::Value;

use super::ValueSlots;
use crate::verify::{
    facts::{Fact, FactStore, Tracked, Versions, join_opt},
    index::ScopeIndex,
};

/// The indexed store: facts and versions in arrays by slot, and, once the fixpoint has run,
/// each tracked value's slot by position ([`ValueSlots`]) for the rules, which ask by value.
#[derive(Default)]
pub(crate) struct IndexedFacts<'i> {
    by_value: Option<(&'i ScopeIndex, ValueSlots)>,
    facts: Vec<Option<Fact>>,
    versions: Vec<Versions>,
    /// Slots holding a fact.
    count: usize,
}

impl<'i> IndexedFacts<'i> {
    /// An empty store for `slots` slots, asked by slot only until [`IndexedFacts::answer_by_value`].
    pub(crate) fn new(slots: usize) -> IndexedFacts<'i> {
        IndexedFacts { by_value: None, facts: vec![None; slots], versions: vec![0; slots], count: 0 }
    }

    /// Lets the store answer by value, through the scope's slots by position.
    pub(crate) fn answer_by_value(&mut self, index: &'i ScopeIndex, slots: ValueSlots) {
        self.by_value = Some((index, slots));
    }

    fn slot(&self, value: Value) -> Option<usize> {
        let (index, slots) = self.by_value.as_ref()?;
        slots.slot(index, value).map(|tracked| tracked.slot as usize)
    }
}

impl FactStore for IndexedFacts<'_> {
    fn get(&self, value: Value) -> Option<Fact> {
        // A value the fixpoint does not track has no slot.
        self.slot(value).and_then(|slot| self.facts[slot])
    }

    fn versions(&self, value: Value) -> Versions {
        self.slot(value).map_or(0, |slot| self.versions[slot])
    }

    fn entries(&self) -> Vec<(Value, Fact)> {
        let Some((_, slots)) = &self.by_value else { return Vec::new() };
        slots
            .values
            .iter()
            .zip(&self.facts)
            .filter_map(|(value, fact)| fact.map(|fact| (*value, fact)))
            .collect()
    }

    fn len(&self) -> usize {
        self.count
    }

    fn get_tracked(&self, value: Tracked) -> Option<Fact> {
        self.facts[value.slot as usize]
    }

    fn versions_tracked(&self, value: Tracked) -> Versions {
        self.versions[value.slot as usize]
    }

    fn join(&mut self, value: Tracked, fact: Fact) -> bool {
        let old = &mut self.facts[value.slot as usize];
        let new = join_opt(*old, fact);
        if *old == Some(new) {
            return false;
        }
        if old.is_none() {
            self.count += 1;
        }
        *old = Some(new);
        true
    }

    fn join_versions(&mut self, value: Tracked, versions: Versions) -> bool {
        let old = &mut self.versions[value.slot as usize];
        let changed = *old | versions != *old;
        *old |= versions;
        changed
    }
}
