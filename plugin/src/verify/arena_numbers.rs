//! The number of each operation (or block) of one scope, looked up by its handle.
//!
//! The rules ask "which operation is this" millions of times in a large scope. A hash map from
//! handle to number spreads neighbouring operations over the whole table, so in a scope too large
//! for the processor's caches every lookup was a miss, and the verifier's cost per block grew
//! with the scope. pliron allocates a function's operations in its arena one after another, so
//! their arena slots are nearly consecutive: a table indexed by slot keeps neighbours together,
//! and a lookup in scope order walks it forwards.
//!
//! pliron does not show a handle's slot; its `Hash` writes the slot map's key, whose low 32 bits
//! are the slot. [`arena_key`] reads what the hash writes. Correctness does not rest on that
//! detail: each entry keeps the whole key and a lookup compares it, two handles of the scope
//! with one slot (a key without the slot in it) make the table fall back to a hash map, and so
//! do slots spread too thinly to index (other functions' operations between the scope's).

use std::hash::{Hash, Hasher};

use rustc_hash::FxHashMap;

/// Handles per number a slot-indexed table may spend before a hash map is used instead.
const MAX_SPREAD: usize = 4;

/// Numbers of a scope's objects of one kind, by handle (`Ptr<Operation>`, `Ptr<BasicBlock>`).
pub(crate) struct ArenaNumbers<H> {
    lookup: Lookup<H>,
}

enum Lookup<H> {
    /// Entry `slot - base` holds the key and number of the object in arena slot `slot`.
    Slots {
        base: u32,
        entries: Vec<Option<(u64, usize)>>,
    },
    Map(FxHashMap<H, usize>),
}

impl<H: Hash + Eq + Copy> ArenaNumbers<H> {
    /// The numbers of `objects`, each its position.
    pub(crate) fn of(objects: &[H]) -> ArenaNumbers<H> {
        let keys: Vec<u64> = objects.iter().map(arena_key).collect();
        let slot = |key: u64| key as u32;
        let (Some(low), Some(high)) =
            (keys.iter().map(|k| slot(*k)).min(), keys.iter().map(|k| slot(*k)).max())
        else {
            return ArenaNumbers { lookup: Lookup::Slots { base: 0, entries: Vec::new() } };
        };
        let span = (high - low) as usize + 1;
        if span <= MAX_SPREAD * objects.len() + 64 {
            let mut entries = vec![None; span];
            let distinct = keys.iter().enumerate().all(|(n, key)| {
                let entry = &mut entries[(slot(*key) - low) as usize];
                entry.replace((*key, n)).is_none()
            });
            if distinct {
                return ArenaNumbers { lookup: Lookup::Slots { base: low, entries } };
            }
        }
        let map = objects.iter().enumerate().map(|(n, object)| (*object, n)).collect();
        ArenaNumbers { lookup: Lookup::Map(map) }
    }

    /// `object`'s number, if it is one of the scope's.
    pub(crate) fn get(&self, object: &H) -> Option<&usize> {
        match &self.lookup {
            Lookup::Slots { base, entries } => {
                let key = arena_key(object);
                let (found, n) = entries.get((key as u32).wrapping_sub(*base) as usize)?.as_ref()?;
                (*found == key).then_some(n)
            }
            Lookup::Map(map) => map.get(object),
        }
    }

    /// `object`'s number; panics when it is not one of the scope's.
    pub(crate) fn number(&self, object: &H) -> usize {
        *self.get(object).expect("an object of the scope")
    }

    pub(crate) fn contains_key(&self, object: &H) -> bool {
        self.get(object).is_some()
    }

    /// Whether lookups index by arena slot (for the tests).
    #[cfg(test)]
    fn by_slot(&self) -> bool {
        matches!(self.lookup, Lookup::Slots { .. })
    }
}

/// What `object`'s `Hash` writes, as one number: the arena's key (slot in the low 32 bits,
/// generation above) with the slot map pliron uses today.
fn arena_key<H: Hash>(object: &H) -> u64 {
    let mut written = Written(0);
    object.hash(&mut written);
    written.0
}

/// A hasher that keeps what it is given: a single `u64` as it is, anything else folded in.
struct Written(u64);

impl Hasher for Written {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = self.0.rotate_left(32) ^ value;
    }
}

#[cfg(test)]
mod tests {
    use pliron::{
        builtin::ops::ModuleOp,
        context::{Context, Ptr},
        op::Op,
        operation::Operation,
    };

    use super::*;

    fn operations(ctx: &mut Context, count: usize) -> Vec<Ptr<Operation>> {
        (0..count)
            .map(|k| ModuleOp::new(ctx, format!("m{k}").as_str().try_into().unwrap()).get_operation())
            .collect()
    }

    #[test]
    fn each_operation_has_its_position_and_others_have_none() {
        let mut ctx = crate::new_context();
        let all = operations(&mut ctx, 40);
        let (scope, others) = all.split_at(30);
        let numbers = ArenaNumbers::of(scope);
        // Operations made one after another sit in consecutive slots: indexed, not hashed.
        assert!(numbers.by_slot(), "pliron's handles no longer hash to their arena slot");
        for (n, op) in scope.iter().enumerate() {
            assert_eq!(numbers.get(op), Some(&n));
        }
        assert!(others.iter().all(|op| !numbers.contains_key(op)));
    }

    #[test]
    fn thinly_spread_operations_are_hashed_and_still_found() {
        let mut ctx = crate::new_context();
        let all = operations(&mut ctx, 600);
        let scope: Vec<_> = all.iter().step_by(100).copied().collect();
        let numbers = ArenaNumbers::of(&scope);
        assert!(!numbers.by_slot());
        for (n, op) in scope.iter().enumerate() {
            assert_eq!(numbers.get(op), Some(&n));
        }
        assert!(!numbers.contains_key(&all[1]));
        assert!(ArenaNumbers::<Ptr<Operation>>::of(&[]).get(&all[0]).is_none());
    }
}
