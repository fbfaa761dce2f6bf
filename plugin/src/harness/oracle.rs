//! The oracle: the verifier done the simple, slow way, to check the indexed one against.
//!
//! No scope guard (every scope is verified); value facts in a list that is scanned for every
//! lookup (every store, load, block argument and operand); the fixpoint runs every block of
//! the scope in full rounds until a round changes nothing. Same transfer functions and same
//! rules as [`crate::verify`], and the same result type, so verdicts and facts compare.
//! Behind the `oracle` feature: the tests and the timing regression use it, the driver not.

use pliron::{context::Context, value::Value};

use crate::{
    scope::Scope,
    verify::{
        ScopeAnalysis, dataflow,
        engine::{self, Strategy},
        facts::{Fact, FactStore, Tracked, Versions, join_opt},
        index::ScopeIndex,
    },
};

/// Value facts and versions in lists; every lookup scans them. The fixpoint names a value by
/// its slot, which the store turns back into the value (`slot_values`) before scanning.
struct ScannedFacts {
    facts: Vec<(Value, Fact)>,
    versions: Vec<(Value, Versions)>,
    slot_values: Vec<Value>,
}

impl FactStore for ScannedFacts {
    fn get(&self, value: Value) -> Option<Fact> {
        self.facts.iter().find(|(v, _)| *v == value).map(|(_, fact)| *fact)
    }

    fn get_tracked(&self, value: Tracked) -> Option<Fact> {
        self.get(self.slot_values[value.slot as usize])
    }

    fn versions_tracked(&self, value: Tracked) -> Versions {
        self.versions(self.slot_values[value.slot as usize])
    }

    fn join(&mut self, value: Tracked, fact: Fact) -> bool {
        let value = self.slot_values[value.slot as usize];
        match self.facts.iter_mut().find(|(v, _)| *v == value) {
            Some((_, old)) => {
                let new = join_opt(Some(*old), fact);
                let changed = new != *old;
                *old = new;
                changed
            }
            None => {
                self.facts.push((value, fact));
                true
            }
        }
    }

    fn entries(&self) -> Vec<(Value, Fact)> {
        self.facts.clone()
    }

    fn len(&self) -> usize {
        self.facts.len()
    }

    fn versions(&self, value: Value) -> Versions {
        self.versions.iter().find(|(v, _)| *v == value).map_or(0, |(_, versions)| *versions)
    }

    fn join_versions(&mut self, value: Tracked, versions: Versions) -> bool {
        let value = self.slot_values[value.slot as usize];
        match self.versions.iter_mut().find(|(v, _)| *v == value) {
            Some((_, old)) => {
                let changed = *old | versions != *old;
                *old |= versions;
                changed
            }
            None if versions == 0 => false,
            None => {
                self.versions.push((value, versions));
                true
            }
        }
    }
}

/// Full rounds over every block until nothing changes.
fn run_rounds(ctx: &Context, index: &ScopeIndex) -> ScannedFacts {
    let mut flow = dataflow::FlowState::new(ctx, index);
    let mut store =
        ScannedFacts { facts: Vec::new(), versions: Vec::new(), slot_values: flow.slot_values().to_vec() };
    dataflow::seed(index, &flow, &mut store);
    let mut changes = dataflow::Changes::default();
    loop {
        let mut changed = false;
        for b in 0..index.blocks.len() {
            dataflow::transfer_block(index, b, &mut store, &mut flow, &mut changes);
            changed |= !changes.values.is_empty() || !changes.blocks.is_empty();
        }
        if !changed {
            return store;
        }
    }
}

/// Verifies one scope the oracle's way.
pub fn analyze_scope(ctx: &Context, scope: &Scope) -> ScopeAnalysis {
    engine::analyze_with(ctx, scope, Strategy::Unguarded, engine::Run::FULL, &mut |ctx, index| {
        Box::new(run_rounds(ctx, index))
    })
}
