//! Provenance facts: where an integer value of 32 bits or less comes from.
//!
//! A stage index or phase bit is legitimate only when it flows from a pipeline state. The
//! facts form a small lattice per value: no fact yet (bottom) < one of `Index(s)`, `Phase(s)`,
//! `Derived(s)`, `Unrelated` < `Contexts` < `Conflict` (top), where `s` names the
//! `semantic.state_new` that created the state, and `Contexts` marks facts lost by joining the
//! calls of one function.

use std::collections::BTreeMap;

use pliron::{context::Context, r#type::Typed, value::Value};

use crate::ir::mir::int_width;

/// A pipeline state, named by the position of its `semantic.state_new` in the scope (see
/// [`ValueKey`] for the numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId(pub u32);

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fact {
    /// The stage index of a state.
    Index(StateId),
    /// The phase bit of a state.
    Phase(StateId),
    /// Computed from a state's index or phase by arithmetic or comparison (a byte offset, a
    /// wrap test): it says which stage, but is neither the index nor the phase.
    Derived(StateId),
    /// Not from any pipeline state (a constant, a parameter, an opaque or call result).
    Unrelated,
    /// Read from memory the facts do not follow (an element of an array of states at a run-time
    /// index, a place behind a pointer): it may be anything, a state's index included. In
    /// arithmetic it counts as [`Fact::Unrelated`] does; where a rule needs a state's index or
    /// phase, it leaves the operation undecided instead of rejecting it.
    Unknown,
    /// Different facts handed to one function by different calls of it: facts are kept per
    /// value, not per call, so what the function makes of its arguments is not known per
    /// call. Not a fault of the kernel (a helper advancing the producer's and the consumer's
    /// state), so the rules leave it undecided rather than reject it.
    Contexts,
    /// Different facts on different paths, or an operation mixing two states.
    Conflict,
}

impl Fact {
    /// The least fact above both: `Contexts` absorbs every fact but `Conflict`; `Unknown`
    /// absorbs the others: a value that may be anything on one path and a state's index (or
    /// an unrelated value) on another is not shown to mix two things, only not known.
    pub fn join(self, other: Fact) -> Fact {
        match (self, other) {
            _ if self == other => self,
            (Fact::Conflict, _) | (_, Fact::Conflict) => Fact::Conflict,
            (Fact::Contexts, _) | (_, Fact::Contexts) => Fact::Contexts,
            (Fact::Unknown, _) | (_, Fact::Unknown) => Fact::Unknown,
            _ => Fact::Conflict,
        }
    }

    /// The join of the facts two calls of one function hand the same argument: where they
    /// differ (and neither is already a conflict), `Contexts`.
    pub fn join_calls(self, other: Fact) -> Fact {
        match self.join(other) {
            Fact::Conflict if self != Fact::Conflict && other != Fact::Conflict => Fact::Contexts,
            joined => joined,
        }
    }

    /// The state the fact is about, if any.
    pub fn state(self) -> Option<StateId> {
        match self {
            Fact::Index(state) | Fact::Phase(state) | Fact::Derived(state) => Some(state),
            Fact::Unrelated | Fact::Unknown | Fact::Contexts | Fact::Conflict => None,
        }
    }
}

/// Joins a possibly-absent fact with another.
pub(crate) fn join_opt(old: Option<Fact>, new: Fact) -> Fact {
    match old {
        None => new,
        Some(old) => old.join(new),
    }
}

/// Whether a value carries provenance facts: integers of 32 bits or less.
pub(crate) fn is_tracked(ctx: &Context, value: Value) -> bool {
    int_width(ctx, value.get_type(ctx)).is_some_and(|width| width <= 32)
}

/// A value, named by its position in the scope: operations are numbered in scope order
/// (functions in scope order, blocks in function order, operations in block order), and so
/// are blocks. Stable across verifier runs on the same scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValueKey {
    Result { op: u32, index: u32 },
    Argument { block: u32, index: u32 },
}

/// Which versions of its state a stage index or phase may be: a set of the operations that
/// make a state value (`semantic.state_new`, `semantic.state_advance`), one bit each (see
/// [`version_bit`]). A copy of a state keeps its versions; an advance makes a new one, so two
/// copies are two values and an operation on a copy that is no longer current is seen (the
/// typestate compares these with the versions a state may be at on each path). Zero for
/// every other fact.
pub type Versions = u64;

/// The bit standing for every version operation past the 63rd of a scope: a set holding it
/// is not compared (staleness is then not checked for that state).
pub const VERSIONS_OVERFLOW: Versions = 1 << 63;
/// Versions a scope's states can have before they share [`VERSIONS_OVERFLOW`] (bit 62 marks a
/// summarised function's entry version): beyond these, stale copies are not compared.
pub const DISTINCT_VERSIONS: usize = 62;
/// The version a state is at when it enters a summarised function: the caller's, whatever it
/// is (not a real version: the typestate summaries substitute the caller's at each call).
pub const KEEP: Versions = 1 << 62;

/// The version bit of the `ordinal`-th version-making operation of a scope.
pub fn version_bit(ordinal: usize) -> Versions {
    if ordinal < 63 { 1 << ordinal } else { VERSIONS_OVERFLOW }
}

/// Every fact of a scope, in canonical order: what verifier runs are compared by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FactTable(pub BTreeMap<ValueKey, Fact>);

impl FactTable {
    /// Number of facts.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no facts.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A value the fixpoint tracks ([`is_tracked`]), named by its slot: a number the fixpoint gives
/// each tracked value of the scope once ([`super::dataflow`]). The fixpoint's stores are asked
/// by slot, so the indexed store reads an array where it would otherwise hash the value at every
/// operand; the oracle's list looks the slot's value up and scans for it. Four bytes, so that
/// the fixpoint's operand tables stay small (a value is 24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tracked {
    pub slot: u32,
}

/// Where the fixpoint keeps value facts: the indexed verifier in arrays by slot (and a map from
/// value to slot for the rules, which ask by value); the oracle in a list it scans.
pub(crate) trait FactStore {
    /// The fact of `value`, `None` while it has none.
    fn get(&self, value: Value) -> Option<Fact>;
    /// The versions of `value`'s state it may hold (zero: none known).
    fn versions(&self, value: Value) -> Versions;
    /// Every (value, fact).
    fn entries(&self) -> Vec<(Value, Fact)>;
    /// How many values have a fact.
    fn len(&self) -> usize;
    /// [`FactStore::get`] of a tracked value, as the fixpoint asks.
    fn get_tracked(&self, value: Tracked) -> Option<Fact>;
    /// [`FactStore::versions`] of a tracked value, as the fixpoint asks.
    fn versions_tracked(&self, value: Tracked) -> Versions;
    /// Joins `fact` into `value`'s fact; true when that changed it.
    fn join(&mut self, value: Tracked, fact: Fact) -> bool;
    /// Adds `versions` to `value`'s; true when that changed them.
    fn join_versions(&mut self, value: Tracked, versions: Versions) -> bool;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_is_idempotent_and_different_facts_conflict() {
        let (a, b) = (StateId(1), StateId(2));
        assert_eq!(Fact::Index(a).join(Fact::Index(a)), Fact::Index(a));
        assert_eq!(Fact::Index(a).join(Fact::Index(b)), Fact::Conflict);
        assert_eq!(Fact::Index(a).join(Fact::Unrelated), Fact::Conflict);
        assert_eq!(Fact::Conflict.join(Fact::Unrelated), Fact::Conflict);
        // Two calls handing one helper different states: lost per call, not a conflict; a
        // conflict stays one.
        assert_eq!(Fact::Index(a).join_calls(Fact::Index(b)), Fact::Contexts);
        assert_eq!(Fact::Index(a).join_calls(Fact::Index(a)), Fact::Index(a));
        assert_eq!(Fact::Conflict.join_calls(Fact::Index(a)), Fact::Conflict);
        assert_eq!(Fact::Contexts.join(Fact::Index(a)), Fact::Contexts);
        assert_eq!(Fact::Contexts.join(Fact::Conflict), Fact::Conflict);
        assert_eq!(join_opt(None, Fact::Phase(a)), Fact::Phase(a));
        assert_eq!(Fact::Derived(b).state(), Some(b));
        assert_eq!(Fact::Unrelated.state(), None);
        // What memory the facts do not follow holds may be anything: joined with an unrelated
        // value or a state's, still not known (not shown to mix them).
        assert_eq!(Fact::Unknown.join(Fact::Unrelated), Fact::Unknown);
        assert_eq!(Fact::Unrelated.join(Fact::Unknown), Fact::Unknown);
        assert_eq!(Fact::Unknown.join(Fact::Index(a)), Fact::Unknown);
        assert_eq!(Fact::Derived(b).join(Fact::Unknown), Fact::Unknown);
        assert_eq!(Fact::Unknown.join(Fact::Conflict), Fact::Conflict);
        assert_eq!(Fact::Unknown.join(Fact::Contexts), Fact::Contexts);
        assert_eq!(Fact::Unknown.state(), None);
    }

    #[test]
    fn version_bits_are_distinct_until_they_overflow() {
        assert_ne!(version_bit(0), version_bit(1));
        assert_eq!(version_bit(62), 1 << 62);
        assert_eq!(version_bit(63), VERSIONS_OVERFLOW);
        assert_eq!(version_bit(500), VERSIONS_OVERFLOW);
    }
}
