//! The terms of the side-by-side walk (`super`): what a value holds as far as the walk knows it,
//! hash-consed so that equal terms are equal ids, with the two operations loop heads need:
//! generalising two states (first-order anti-unification, one variable per pair of differing
//! terms) and matching a state against a generalised one.

use rustc_hash::FxHashMap;

use pliron::{r#type::TypeHandle, value::Value};

use crate::ir::mir::arith::{BinOpKind, CastKind, CmpPredicate};

/// A term in [`Terms`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) struct TermId(pub(super) u32);

/// What a value holds, as far as the walk knows it. Equal terms hold equal values in both
/// roles' threads, except [`Term::Unknown`], which is equal only to itself within one role.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) enum Term {
    Const(i64, TypeHandle),
    /// The kernel's parameter of this position.
    Parameter(u32),
    /// A value computed once (on no cycle) that the thread model shows is the same in every
    /// thread.
    Same(Value),
    /// One unknown value, the same wherever this variable appears in one meeting point's state
    /// (both roles included).
    Variable(u32),
    /// A value nothing is known of, in one role.
    Unknown(u32),
    Binary(BinOpKind, TypeHandle, TermId, TermId),
    Compare(CmpPredicate, TermId, TermId),
    Cast(CastKind, TypeHandle, TermId),
    /// A call of a function whose result is computed from its arguments alone (reading the
    /// block's coordinates at most): the same in every thread, at every call, for equal
    /// arguments.
    Apply(String, Vec<TermId>),
    /// A part (this path of fields) of an aggregate: equal where the aggregates are.
    Part(TermId, Vec<u32>),
}

/// Hash-consed terms: equal terms have equal ids.
#[derive(Default)]
pub(super) struct Terms {
    pub(super) nodes: Vec<Term>,
    ids: FxHashMap<Term, TermId>,
    fresh: u32,
}

impl Terms {
    pub(super) fn intern(&mut self, term: Term) -> TermId {
        if let Some(id) = self.ids.get(&term) {
            return *id;
        }
        let id = TermId(self.nodes.len() as u32);
        self.nodes.push(term.clone());
        self.ids.insert(term, id);
        id
    }

    pub(super) fn unknown(&mut self) -> TermId {
        self.fresh += 1;
        self.intern(Term::Unknown(self.fresh))
    }

    pub(super) fn variable(&mut self) -> TermId {
        self.fresh += 1;
        self.intern(Term::Variable(self.fresh))
    }

    /// The least general term both `a` and `b` are instances of: the same operator over the
    /// generalised operands where both apply one, otherwise one variable per pair of differing
    /// terms (`variables`, shared by both roles: `k + g` of the producer and `k` of the consumers,
    /// each one step ahead of the other, keep `k` as one variable).
    pub(super) fn generalise(
        &mut self,
        a: TermId,
        b: TermId,
        variables: &mut FxHashMap<(TermId, TermId), TermId>,
    ) -> TermId {
        if a == b {
            return a;
        }
        let node = match (self.nodes[a.0 as usize].clone(), self.nodes[b.0 as usize].clone()) {
            (Term::Binary(k, t, a1, a2), Term::Binary(k2, t2, b1, b2)) if k == k2 && t == t2 => Some(
                Term::Binary(k, t, self.generalise(a1, b1, variables), self.generalise(a2, b2, variables)),
            ),
            (Term::Compare(p, a1, a2), Term::Compare(p2, b1, b2)) if p == p2 => {
                Some(Term::Compare(p, self.generalise(a1, b1, variables), self.generalise(a2, b2, variables)))
            }
            (Term::Cast(k, t, a1), Term::Cast(k2, t2, b1)) if k == k2 && t == t2 => {
                Some(Term::Cast(k, t, self.generalise(a1, b1, variables)))
            }
            (Term::Apply(f, args), Term::Apply(f2, args2)) if f == f2 && args.len() == args2.len() => {
                let args =
                    args.into_iter().zip(args2).map(|(x, y)| self.generalise(x, y, variables)).collect();
                Some(Term::Apply(f, args))
            }
            (Term::Part(x, path), Term::Part(y, path2)) if path == path2 => {
                Some(Term::Part(self.generalise(x, y, variables), path))
            }
            _ => None,
        };
        match node {
            Some(node) => self.intern(node),
            None => *variables.entry((a, b)).or_insert_with(|| self.variable()),
        }
    }

    /// Whether `term` is `pattern` with its variables replaced, consistently with `binding`.
    pub(super) fn matches(
        &self,
        pattern: TermId,
        term: TermId,
        binding: &mut FxHashMap<TermId, TermId>,
    ) -> bool {
        if let Term::Variable(_) = self.nodes[pattern.0 as usize] {
            return *binding.entry(pattern).or_insert(term) == term;
        }
        if pattern == term {
            return true;
        }
        match (&self.nodes[pattern.0 as usize], &self.nodes[term.0 as usize]) {
            (Term::Binary(k, t, a, b), Term::Binary(k2, t2, a2, b2)) if k == k2 && t == t2 => {
                let (a, b, a2, b2) = (*a, *b, *a2, *b2);
                self.matches(a, a2, binding) && self.matches(b, b2, binding)
            }
            (Term::Compare(p, a, b), Term::Compare(p2, a2, b2)) if p == p2 => {
                let (a, b, a2, b2) = (*a, *b, *a2, *b2);
                self.matches(a, a2, binding) && self.matches(b, b2, binding)
            }
            (Term::Cast(k, t, a), Term::Cast(k2, t2, a2)) if k == k2 && t == t2 => {
                let (a, a2) = (*a, *a2);
                self.matches(a, a2, binding)
            }
            (Term::Apply(f, args), Term::Apply(f2, args2)) if f == f2 && args.len() == args2.len() => {
                let pairs: Vec<(TermId, TermId)> = args.iter().copied().zip(args2.iter().copied()).collect();
                pairs.into_iter().all(|(a, a2)| self.matches(a, a2, binding))
            }
            (Term::Part(a, path), Term::Part(a2, path2)) if path == path2 => {
                let (a, a2) = (*a, *a2);
                self.matches(a, a2, binding)
            }
            _ => false,
        }
    }
}
