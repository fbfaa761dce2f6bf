//! Pre-passes over a MIR body before it is imported: which locals are assigned once, how each
//! is assigned, which hold constants, references to states, and the argument tuples of closure calls.

use rustc_data_structures::fx::FxHashMap;

use rustc_index::IndexVec;
use rustc_middle::mir::{
    self, Body, BorrowKind, Local, Operand, Place, ProjectionElem, Rvalue, StatementKind, TerminatorKind,
};
use rustc_middle::ty::{self, TyCtxt, TypingEnv};
use rustc_span::Spanned;

/// The arguments of a closure call with its argument tuple spread out: the closure, then the
/// operands the tuple was built from (`_10 = (move _11, copy _12)`, see [`built_tuples`]).
/// `None` when the tuple is not built from operands in this function.
pub(super) fn untupled_arguments<'tcx>(
    tuples: &FxHashMap<Local, Option<Vec<Operand<'tcx>>>>,
    args: &[Spanned<Operand<'tcx>>],
) -> Option<Vec<Spanned<Operand<'tcx>>>> {
    let [closure, tuple] = args else { return None };
    // A closure of no arguments is called with the unit constant.
    if let Operand::Constant(constant) = &tuple.node
        && constant.ty().is_unit()
    {
        return Some(vec![closure.clone()]);
    }
    let tuple_local = tuple.node.place().filter(|place| place.projection.is_empty())?.local;
    let built = tuples.get(&tuple_local)?.as_ref()?;
    let mut untupled = vec![closure.clone()];
    untupled.extend(built.iter().map(|operand| Spanned { node: operand.clone(), span: tuple.span }));
    Some(untupled)
}

/// The tuple locals of a body, each with the operands of its one whole assignment as a tuple
/// (`None` when it is assigned otherwise, in parts, or more than once): one pass per body, so
/// spreading the arguments of many closure calls stays linear.
pub(super) fn built_tuples<'tcx>(body: &Body<'tcx>) -> FxHashMap<Local, Option<Vec<Operand<'tcx>>>> {
    let mut tuples: FxHashMap<Local, Option<Vec<Operand<'tcx>>>> = FxHashMap::default();
    for block in body.basic_blocks.iter() {
        for statement in &block.statements {
            let StatementKind::Assign(assign) = &statement.kind else { continue };
            let (place, rvalue) = &**assign;
            if !matches!(body.local_decls[place.local].ty.kind(), ty::Tuple(_)) {
                continue;
            }
            let built = match rvalue {
                Rvalue::Aggregate(kind, operands)
                    if place.projection.is_empty() && matches!(**kind, mir::AggregateKind::Tuple) =>
                {
                    Some(operands.iter().cloned().collect())
                }
                _ => None,
            };
            match tuples.entry(place.local) {
                std::collections::hash_map::Entry::Vacant(entry) => {
                    entry.insert(built);
                }
                // Assigned twice, or in parts: not one tuple of operands.
                std::collections::hash_map::Entry::Occupied(mut entry) => {
                    entry.insert(None);
                }
            }
        }
    }
    tuples
}

/// How a local got its one value.
#[derive(Clone, Copy)]
pub(super) enum Assignment<'a, 'tcx> {
    Rvalue(&'a Rvalue<'tcx>),
    Call(&'a Operand<'tcx>, &'a [Spanned<Operand<'tcx>>]),
}

/// How MIR assigns one local, from one pass over the body ([`assignments`]).
#[derive(Clone, Copy, Default)]
pub(super) struct Assignments<'a, 'tcx> {
    /// Assignments of the local as a whole (a statement or a call's destination).
    pub(super) whole: u32,
    /// The first of them.
    pub(super) first: Option<Assignment<'a, 'tcx>>,
    /// Whether a projection of it (a field, an element) is assigned too.
    pub(super) partial: bool,
    /// Whether it is borrowed mutably or its address taken (so a value it was assigned may
    /// have changed since).
    pub(super) mutably_borrowed: bool,
}

impl<'a, 'tcx> Assignments<'a, 'tcx> {
    /// Assigned exactly once as a whole (projections may be assigned too).
    pub(super) fn once(&self) -> bool {
        self.whole == 1
    }

    /// The one assignment, if the local is assigned exactly once and nothing inside it is.
    pub(super) fn only(&self) -> Option<Assignment<'a, 'tcx>> {
        if self.whole == 1 && !self.partial { self.first } else { None }
    }
}

/// Every local's [`Assignments`], in one pass over `body`.
pub(super) fn assignments<'a, 'tcx>(body: &'a Body<'tcx>) -> IndexVec<Local, Assignments<'a, 'tcx>> {
    let mut table: IndexVec<Local, Assignments<'a, 'tcx>> =
        IndexVec::from_elem(Assignments::default(), &body.local_decls);
    let mut record = |place: &Place<'tcx>, assignment: Assignment<'a, 'tcx>| {
        let entry = &mut table[place.local];
        if !place.projection.is_empty() {
            entry.partial = true;
        } else {
            entry.whole += 1;
            entry.first.get_or_insert(assignment);
        }
    };
    for block in body.basic_blocks.iter() {
        for statement in &block.statements {
            if let StatementKind::Assign(assign) = &statement.kind {
                record(&assign.0, Assignment::Rvalue(&assign.1));
            }
        }
        if let TerminatorKind::Call { func, args, destination, .. } = &block.terminator().kind {
            record(destination, Assignment::Call(func, args));
        }
    }
    for statement in body.basic_blocks.iter().flat_map(|block| &block.statements) {
        if let StatementKind::Assign(assign) = &statement.kind
            && let Rvalue::Ref(_, BorrowKind::Mut { .. }, place) | Rvalue::RawPtr(_, place) = &assign.1
        {
            table[place.local].mutably_borrowed = true;
        }
    }
    table
}

/// The local `operand` reads and the locals it is a copy of, through at most a few
/// single-assignment `_a = _b` steps (the operand's own local first; empty for a constant or a
/// projection).
pub(super) fn copy_chain<'tcx>(
    assignments: &IndexVec<Local, Assignments<'_, 'tcx>>,
    operand: &Operand<'tcx>,
) -> Vec<Local> {
    let mut chain = Vec::new();
    let mut next = operand.place().and_then(|place| place.as_local());
    while let Some(local) = next
        && chain.len() < 4
    {
        chain.push(local);
        next = match assignments[local].only() {
            Some(Assignment::Rvalue(Rvalue::Use(Operand::Copy(place) | Operand::Move(place), ..))) => {
                place.as_local()
            }
            _ => None,
        };
    }
    chain
}

/// Where a reference comes from, through single-assignment temporaries and reborrows.
pub(super) enum ReferenceOrigin<'a, 'tcx> {
    /// A constant reference (rustc's promoted constants).
    Constant(&'a mir::ConstOperand<'tcx>),
    /// A borrow of this place (no dereference in it).
    Borrow(Place<'tcx>),
}

/// The origin of the reference `operand`, following at most a few `_a = _b`, `_a = &(*_b)`
/// steps; `None` when a step is not a single assignment.
pub(super) fn reference_origin<'a, 'tcx>(
    assignments: &IndexVec<Local, Assignments<'a, 'tcx>>,
    operand: &'a Operand<'tcx>,
) -> Option<ReferenceOrigin<'a, 'tcx>> {
    match operand {
        Operand::Constant(constant) => Some(ReferenceOrigin::Constant(constant)),
        _ => reference_chain(assignments, operand).map(|(_, origin)| origin),
    }
}

/// [`reference_origin`] of a reference held in a local, with the locals the reference passed
/// through on the way (the operand's own local first).
pub(super) fn reference_chain<'a, 'tcx>(
    assignments: &IndexVec<Local, Assignments<'a, 'tcx>>,
    operand: &Operand<'tcx>,
) -> Option<(Vec<Local>, ReferenceOrigin<'a, 'tcx>)> {
    let mut local = operand.place()?.as_local()?;
    let mut carriers = Vec::new();
    for _ in 0..4 {
        carriers.push(local);
        let Assignment::Rvalue(rvalue) = assignments[local].only()? else { return None };
        local = match rvalue {
            Rvalue::Use(Operand::Constant(constant), ..) => {
                return Some((carriers, ReferenceOrigin::Constant(constant)));
            }
            Rvalue::Use(Operand::Copy(place) | Operand::Move(place), ..) => place.as_local()?,
            Rvalue::Ref(_, _, borrowed) => match borrowed.projection.as_slice() {
                [] => return Some((carriers, ReferenceOrigin::Borrow(*borrowed))),
                [ProjectionElem::Deref] => borrowed.local,
                _ => return None,
            },
            _ => return None,
        };
    }
    None
}

/// The single-assignment locals whose one assignment is an integer constant (MIR's array
/// indices: `_10 = const 0_usize; … _4[_10]`).
pub(super) fn constant_locals<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    single: &IndexVec<Local, bool>,
) -> FxHashMap<Local, u32> {
    let mut constants = FxHashMap::default();
    for block in body.basic_blocks.iter() {
        for statement in &block.statements {
            if let StatementKind::Assign(assign) = &statement.kind
                && let (place, Rvalue::Use(Operand::Constant(constant), ..)) = &**assign
                && place.projection.is_empty()
                && single[place.local]
                && matches!(constant.ty().kind(), ty::Uint(_))
                && let Some(bits) = constant.const_.try_eval_bits(tcx, TypingEnv::fully_monomorphized())
                && let Ok(index) = u32::try_from(bits)
            {
                constants.insert(place.local, index);
            }
        }
    }
    constants
}

pub(super) use crate::naming::core_item_name;
