//! What one role's walk knows at a point (`super`): the terms of the variables it follows and
//! of the values computed so far, and the calls it is inside; and the meeting points' keys.

use rustc_hash::FxHashMap;

use pliron::value::Value;

use super::terms::TermId;

/// A local of the kernel and a path of parts in it.
pub(super) type Slot = (Value, Vec<u32>);

/// What one role's walk knows at a point: the terms of the kernel's variables (per local, its
/// parts stored), and of the values computed so far.
#[derive(Clone, Default, Debug)]
pub(super) struct RoleState {
    pub(super) locals: FxHashMap<Value, Vec<(Vec<u32>, TermId)>>,
    pub(super) values: FxHashMap<Value, TermId>,
    /// The calls (operation numbers) the role is inside, outermost first.
    pub(super) stack: Vec<usize>,
}

impl RoleState {
    /// A store into `slot`: parts it overlaps are no longer known.
    pub(super) fn store(&mut self, (local, path): Slot, term: TermId) {
        let parts = self.locals.entry(local).or_default();
        parts.retain(|(stored, _)| !(stored.starts_with(&path) || path.starts_with(stored)));
        parts.push((path, term));
    }

    pub(super) fn load(&self, (local, path): &Slot) -> Option<TermId> {
        self.locals.get(local)?.iter().find(|(stored, _)| stored == path).map(|(_, term)| *term)
    }

    /// The term of the aggregate stored around `slot` (a local, or a part of it, stored whole
    /// since `slot` or anything overlapping it was last stored), with the path from it down to
    /// `slot`.
    pub(super) fn load_around(&self, (local, path): &Slot) -> Option<(TermId, Vec<u32>)> {
        let parts = self.locals.get(local)?;
        let (stored, term) = parts
            .iter()
            .filter(|(stored, _)| stored.len() < path.len() && path.starts_with(stored))
            .max_by_key(|(stored, _)| stored.len())?;
        Some((*term, path[stored.len()..].to_vec()))
    }

    /// Every (key, term) pair, for comparing states.
    pub(super) fn entries(&self) -> Vec<(Key, TermId)> {
        self.locals
            .iter()
            .flat_map(|(local, parts)| {
                parts.iter().map(|(path, term)| (Key::Slot(*local, path.clone()), *term))
            })
            .chain(self.values.iter().map(|(value, term)| (Key::Value(*value), *term)))
            .collect()
    }

    pub(super) fn set(&mut self, key: &Key, term: TermId) {
        match key {
            Key::Slot(local, path) => {
                let parts = self.locals.entry(*local).or_default();
                match parts.iter_mut().find(|(stored, _)| stored == path) {
                    Some(part) => part.1 = term,
                    None => parts.push((path.clone(), term)),
                }
            }
            Key::Value(value) => {
                self.values.insert(*value, term);
            }
        }
    }
}

/// A variable or a value of a [`RoleState`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) enum Key {
    Slot(Value, Vec<u32>),
    Value(Value),
}

/// A meeting point: each role's block and the calls it is inside.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) struct Node {
    pub(super) producer: (usize, Vec<usize>),
    pub(super) consumer: (usize, Vec<usize>),
}

impl Node {
    pub(super) fn at(p: usize, p_stack: &[usize], c: usize, c_stack: &[usize]) -> Node {
        Node { producer: (p, p_stack.to_vec()), consumer: (c, c_stack.to_vec()) }
    }
}
